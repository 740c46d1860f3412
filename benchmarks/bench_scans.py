"""The local recogniser on the shared real scans: pages per minute beside one plain Tesseract
pass over the same pages, and the values read right against truth.json.

For each file of `../shared/samples/public/real-scans` (or `$ARM_SHARED_SAMPLES/real-scans`):

- tesseract: every page rendered as the recogniser renders it (300 dpi; images as they are)
  and read once by `pytesseract.image_to_data` (rus+eng, psm 6) — the floor any OCR pays;
- recognise: `tests.scan_gateway._real_scans.score_file` — the local recogniser (text-layer
  judgement, upscale, deskew, rule removal, layout, digits-only re-reads of misread cells) and
  the mapper, in this process, scored against truth.json.

Target (issue 19): recognise within 3× of the plain Tesseract pass.
Run: `python -m benchmarks scans` (or `python benchmarks/bench_scans.py`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.scan_gateway.local import OCR_LANGUAGES
from tests.scan_gateway._real_scans import real_scans, score_file, truth

__all__ = ["main"]

_DPI = 300


def _pages(path: Path) -> list[Any]:
    from PIL import Image

    if path.suffix.lower() != ".pdf":
        return [Image.open(path)]
    import pypdfium2

    document = pypdfium2.PdfDocument(path.read_bytes())
    try:
        return [document[i].render(scale=_DPI / 72).to_pil() for i in range(len(document))]
    finally:
        document.close()


def _plain_tesseract(images: list[Any]) -> float:
    import pytesseract

    started = time.perf_counter()
    for image in images:
        pytesseract.image_to_data(image.convert("L"), lang=OCR_LANGUAGES, config="--psm 6")
    return time.perf_counter() - started


def main() -> str:
    folder = real_scans()
    if not folder.is_dir():
        return f"skipped: {folder} is absent"
    expected = truth()
    rows = [
        f"{'file':58} {'pages':>5} {'tess s':>7} {'ours s':>7} {'ratio':>6} {'right':>8} {'wrongU':>6}"
    ]
    total_pages, total_tess, total_ours, right, values, wrong = 0, 0.0, 0.0, 0, 0, 0
    for name in sorted(expected):
        path = folder / name
        images = _pages(path)
        tess = _plain_tesseract(images)
        started = time.perf_counter()
        score = score_file(path, expected[name])  # recogniser + mapper; the mapper is ~ms
        ours = time.perf_counter() - started
        total_pages += len(images)
        total_tess += tess
        total_ours += ours
        right += score.right
        values += score.total
        wrong += score.wrong_unflagged
        rows.append(
            f"{name[:58]:58} {len(images):5d} {tess:7.1f} {ours:7.1f} {ours / tess:6.2f}"
            f" {score.right:>3}/{score.total:<4} {score.wrong_unflagged:6d}"
        )
    rows.append(
        f"\ntotal: {total_pages} pages; plain Tesseract {total_pages / total_tess * 60:.1f} pages/min,"
        f" local recogniser {total_pages / total_ours * 60:.1f} pages/min"
        f" ({total_ours / total_tess:.2f}× Tesseract's time; target ≤ 3×);"
        f" values right {right}/{values} ({right / values:.0%}), wrong and unflagged {wrong}"
    )
    return "\n".join(rows)


if __name__ == "__main__":
    print(main())
