"""How much of an untrusted workbook we agree to read.

The defaults are sized for the largest real trial balances (1C:УПП ОСВ of a few hundred
thousand rows) with headroom, while keeping one worker far below its memory limit:

- `max_file_bytes` 200 MB: bigger uploads are not statements; the S3 read is bounded anyway.
- `max_zip_members` 10,000: a workbook has tens of parts; thousands only in hostile files.
- `max_uncompressed_bytes` 1 GiB: the sum of declared sizes; the biggest real sheet parts
  are a few hundred MB.
- `max_compression_ratio` 200: real sheet XML deflates 5–30×; bombs deflate 1000×.
  Checked only for members above `ratio_floor_bytes` (1 MiB), where a high ratio matters.
- `max_rows` 1,000,000 and `max_cols` 16,384 (Excel's width): a used cell past row
  1,000,000 is not a real statement, and refusing it keeps a sparse XFD1048576 cell away
  from calamine, which allocates the whole used rectangle. An XLSX sheet over these extent caps
  only because of a few stray cells far past its table is read without them (`_strays`).
- `max_cells` 10,000,000: both the used rectangle (calamine allocates ~32 bytes a cell) and
  the number of cells actually present; 10 M cells ≈ 320 MB in calamine.
- `max_xml_prolog_bytes` 64 KiB: a DOCTYPE can only sit before the root element, so only the
  head of a part needs scanning; a longer prolog is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LIMITS", "Limits"]


@dataclass(frozen=True, slots=True)
class Limits:
    max_file_bytes: int = 200 * 1024 * 1024
    max_zip_members: int = 10_000
    max_uncompressed_bytes: int = 1024 * 1024 * 1024
    max_compression_ratio: int = 200
    ratio_floor_bytes: int = 1024 * 1024
    max_rows: int = 1_000_000
    max_cols: int = 16_384
    max_cells: int = 10_000_000
    max_xml_prolog_bytes: int = 64 * 1024
    max_small_part_bytes: int = 50 * 1024 * 1024  # workbook.xml, rels, styles: read whole


DEFAULT_LIMITS = Limits()
