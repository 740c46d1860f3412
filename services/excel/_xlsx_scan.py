"""Two streaming passes over each XLSX sheet part: a guard, then what calamine does not expose.

The sheet XML is decompressed in blocks and scanned with byte regexes (no DOM, no per-element
callbacks). The guard pass measures the real extent of the sheet — the used rectangle and the
number of cells — and checks it against the caps *before* calamine allocates its dense grid,
because a bomb can lie in its `<dimension>`. The describe pass (row outline levels, bold cells
by style index, formula cells with no cached value, the row-tag cap, the stored number of cells
styled with a date-trap format, see `numfmt`) is returned deferred: the reader runs it while
calamine, which releases the GIL, parses the same sheet. Part names are
matched case-insensitively (1C's `SharedStrings.xml`).
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Callable, Iterator
from functools import partial
from xml.etree import ElementTree

from ._inflate import member_blocks
from ._meta import SheetMeta
from .exceptions import LimitExceeded, UnreadableWorkbook
from .guards import check_dimension, check_extent, check_xml_head, parse_cell_ref
from .limits import Limits
from .numfmt import is_date_trap

__all__ = ["Describe", "col_index", "row_blocks", "scan_xlsx", "sheet_parts"]

_FMT = "XLSX"
_BLOCK = 1 << 20
_MAX_PENDING = 64 << 20  # one `<row>` longer than this is not a real sheet
_LAST_SINGLE_LETTER = 25  # column Z
_LEVELS = {str(level).encode(): level for level in range(1, 8)}
_MINUS_ONE = (-1).__add__  # 1-based row number → 0-based index, in C
_ROW_END = b"</row>"
_DIMENSION = re.compile(rb'<dimension\b[^>]*?\bref="([^"]*)"')
_ROW_TAG = re.compile(rb"<row\b([^>]*)>")
_ATTR_R = re.compile(rb'\br="(\d+)"')
_ATTR_OUTLINE = re.compile(rb'\boutlineLevel="(\d+)"')
_CELL_COL_FIRST = re.compile(rb'<c r="([A-Z]{1,3})[0-9]')
_CELL_ROW_FIRST = re.compile(rb'<c r="[A-Z]{1,3}([0-9]+)"')
_OUTLINED_ROW = re.compile(rb'<row r="([0-9]+)"[^>]*?\boutlineLevel="([0-9]+)"')
_ROW_R_FIRST = re.compile(rb'<row r="([0-9]+)"')
_CELL_COLS = re.compile(rb'<c\b[^>]*?\br="([A-Z]+)\d')
_CELL_ROWS = re.compile(rb'<c\b[^>]*?\br="[A-Z]+(\d+)"')
_ROW_WITH_CELL = re.compile(rb'<row r="([0-9]{1,7})"[^>]*>\s*<c\b')
_FORMULA_NO_VALUE = re.compile(
    rb'<c\b[^>]*?\br="([A-Z]+\d+)"[^>]*?(?<!/)>\s*'
    rb"<f\b[^>]*?(?:/>|>[^<]*</f>)\s*(?:<v\s*/>|<v>\s*</v>)?\s*</c>"
)


Describe = Callable[[], SheetMeta]
"""The deferred describe pass of one sheet; it may still raise `LimitExceeded` (row tags)."""


def scan_xlsx(archive: zipfile.ZipFile, limits: Limits) -> dict[str, Describe]:
    """Guard every sheet now (raises `UnreadableWorkbook` / `LimitExceeded`); sheet name → its
    describe pass, which reads `archive` again and so needs it open when called."""
    members = {name.lower(): name for name in archive.namelist()}
    sheets = sheet_parts(archive, members, limits)
    bold_styles, trap_styles = _styles(archive, members, limits)
    cells = _Cells(_styled_cell_regex(bold_styles), _styled_cell_regex(trap_styles, generic=True))
    found: dict[str, Describe] = {}
    for name, part, hidden in sheets:
        path = members.get(part.lower())
        if path is not None:
            _guard_sheet(archive, path, limits)
            found[name] = partial(_describe_sheet, archive, path, hidden, cells, limits)
    return found


class _Cells:
    """The describe pass's cell regexes: bold cells (row), date-trap cells (attributes, body)."""

    __slots__ = ("bold", "traps")

    def __init__(self, bold: re.Pattern[bytes] | None, traps: re.Pattern[bytes] | None) -> None:
        self.bold = bold
        self.traps = traps


def _read_small(archive: zipfile.ZipFile, name: str, limits: Limits) -> bytes:
    info = archive.getinfo(name)
    if info.file_size > limits.max_small_part_bytes:
        msg = f"part {name!r} is {info.file_size} bytes"
        raise UnreadableWorkbook(msg, fmt=_FMT)
    return archive.read(info)


def _parse_xml(archive: zipfile.ZipFile, name: str, limits: Limits) -> ElementTree.Element:
    data = _read_small(archive, name, limits)
    check_xml_head(data[: limits.max_xml_prolog_bytes], name, limits, _FMT)
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise UnreadableWorkbook(f"part {name!r} is not well-formed XML: {exc}", fmt=_FMT) from exc


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def sheet_parts(
    archive: zipfile.ZipFile, members: dict[str, str], limits: Limits
) -> list[tuple[str, str, bool]]:
    """(sheet name, part path, hidden) in workbook order, via workbook.xml and its rels."""
    workbook = _parse_xml(archive, members["xl/workbook.xml"], limits)
    rels_name = members.get("xl/_rels/workbook.xml.rels")
    targets: dict[str, str] = {}
    if rels_name is not None:
        for rel in _parse_xml(archive, rels_name, limits).iter():
            if _local(rel.tag) == "Relationship" and "Id" in rel.attrib:
                targets[rel.attrib["Id"]] = rel.attrib.get("Target", "")
    found: list[tuple[str, str, bool]] = []
    for sheet in workbook.iter():
        if _local(sheet.tag) != "sheet":
            continue
        rel_id = next((v for k, v in sheet.attrib.items() if _local(k) == "id"), None)
        target = targets.get(rel_id or "")
        if not target:
            continue
        path = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
        hidden = sheet.attrib.get("state", "visible") != "visible"
        found.append((sheet.attrib.get("name", ""), posixpath.normpath(path), hidden))
    return found


def _styles(
    archive: zipfile.ZipFile, members: dict[str, str], limits: Limits
) -> tuple[list[int], list[int]]:
    """Indexes of `cellXfs` entries whose font is bold, and of those whose number format (one
    written in `numFmts`) is a date trap."""
    name = members.get("xl/styles.xml")
    if name is None:
        return [], []
    styles = _parse_xml(archive, name, limits)
    bold_fonts: list[bool] = []
    traps: set[str] = set()
    xfs: list[tuple[int, str]] = []
    for section in styles:
        kind = _local(section.tag)
        if kind == "fonts":
            bold_fonts = [_is_bold(font) for font in section]
        elif kind == "numFmts":
            traps = {
                fmt.attrib.get("numFmtId", "")
                for fmt in section
                if is_date_trap(fmt.attrib.get("formatCode", ""))
            }
        elif kind == "cellXfs":
            xfs = [
                (int(xf.attrib.get("fontId", "0") or 0), xf.attrib.get("numFmtId", "0"))
                for xf in section
            ]
    bold = [
        index
        for index, (font, _) in enumerate(xfs)
        if 0 <= font < len(bold_fonts) and bold_fonts[font]
    ]
    return bold, [index for index, (_, fmt) in enumerate(xfs) if fmt in traps]


def _is_bold(font: ElementTree.Element) -> bool:
    for prop in font:
        if _local(prop.tag) == "b":
            return prop.attrib.get("val", "1").lower() not in ("0", "false")
    return False


def _styled_cell_regex(styles: list[int], *, generic: bool = False) -> re.Pattern[bytes] | None:
    """Cells styled with one of `styles`: for bold (a hint) only the usual attribute order
    (r, s, t), capturing the row; `generic`, any order, capturing the attributes and the body."""
    if not styles:
        return None
    alternatives = "|".join(str(index) for index in styles[:500]).encode()
    if generic:
        return re.compile(
            rb'<c\b([^>]*?\bs="(?:' + alternatives + rb')"[^>]*?)(?<!/)>(.*?)</c>', re.DOTALL
        )
    return re.compile(rb'<c r="[A-Z]{1,3}([0-9]{1,7})" s="(?:' + alternatives + rb')"')


class _Extent:
    __slots__ = ("cells", "first_col", "first_row", "last_col", "last_row")

    def __init__(self) -> None:
        self.first_row = self.first_col = 1 << 40
        self.last_row = self.last_col = -1
        self.cells = 0

    def check(self, limits: Limits) -> None:
        if self.last_row >= 0 and self.last_col >= 0:
            check_extent(
                self.first_row,
                self.first_col,
                self.last_row,
                self.last_col,
                self.cells,
                limits,
                _FMT,
            )
        elif self.cells > limits.max_cells:
            raise LimitExceeded("max_cells", self.cells, limits.max_cells, fmt=_FMT)


def row_blocks(archive: zipfile.ZipFile, name: str) -> Iterator[bytes]:
    """The decompressed part in blocks of about `_BLOCK` bytes, each ending after a `</row>`
    (the last one: whatever is left), so no row is split across two blocks."""
    pending = b""
    for block in member_blocks(archive, name, _BLOCK):
        buf = pending + block if pending else block
        cut = buf.rfind(_ROW_END)
        if cut < 0:
            if len(buf) > _MAX_PENDING:
                raise UnreadableWorkbook(f"part {name!r} has a row over 64 MiB", fmt=_FMT)
            pending = buf
            continue
        cut += len(_ROW_END)
        yield buf[:cut]
        pending = buf[cut:]
    yield pending


def _guard_sheet(archive: zipfile.ZipFile, name: str, limits: Limits) -> None:
    """The caps, enforced while reading: a lying `<dimension>` cannot get past this."""
    extent = _Extent()
    head = True
    for block in row_blocks(archive, name):
        if head:
            check_xml_head(block[: limits.max_xml_prolog_bytes], name, limits, _FMT)
            dimension = _DIMENSION.search(block[: limits.max_xml_prolog_bytes])
            if dimension is not None:
                check_dimension(dimension.group(1).decode("ascii", "replace"), limits, _FMT)
            head = False
        _guard_block(block, extent)
        extent.check(limits)


def _guard_block(block: bytes, extent: _Extent) -> None:
    """Fast path for the attribute order every known writer uses (`r` first), else generic.

    The fast path counts a row only when it has read every cell's row: a reference it could
    not read (more digits than Excel has rows, A20000000) would otherwise go unmeasured, and
    calamine would allocate the rows up to it before the reader's own check.

    A DOCTYPE can only precede the root element (checked on the head), so the body is not
    searched for one again.
    """
    cells = block.count(b"<c")  # a superset (`<col`, `<cfRule`): only caps and the check
    extent.cells += cells
    if not (cells and _within_known(block, extent)):
        letters = _CELL_COL_FIRST.findall(block)
        if len(letters) == cells:
            numbers = _CELL_ROW_FIRST.findall(block)
            if len(numbers) == cells:  # every cell's row read, however many digits it has
                _widen(extent, set(letters), set(numbers))
                return
        _widen(extent, set(_CELL_COLS.findall(block)), set(_CELL_ROWS.findall(block)))


def _describe_sheet(
    archive: zipfile.ZipFile,
    name: str,
    hidden: bool,
    cells: _Cells,
    limits: Limits,
) -> SheetMeta:
    meta = SheetMeta(hidden=hidden)
    state = _RowState()
    for block in row_blocks(archive, name):
        _describe_block(block, meta, state, cells.bold)
        if cells.traps is not None:
            _stored_numbers(block, cells.traps, meta.numbers)
        if state.seen > limits.max_rows:  # a superset (`<rowBreaks`): a cap, not a count
            raise LimitExceeded("max_rows", state.seen, limits.max_rows, fmt=_FMT)
    return meta


class _RowState:
    """Row tags seen, and the running row number for `<row>` tags without an `r` attribute."""

    __slots__ = ("last", "seen")

    def __init__(self) -> None:
        self.last = 0
        self.seen = 0


def _describe_block(
    block: bytes, meta: SheetMeta, state: _RowState, bold_cell: re.Pattern[bytes] | None
) -> None:
    rows = block.count(b"<row")  # a superset (`<rowBreaks`) only sends a block the slow way
    state.seen += rows
    if rows:
        _read_rows(block, rows, meta, state)
    if b"<f" in block:
        for ref in _FORMULA_NO_VALUE.findall(block):
            cell = parse_cell_ref(ref.decode("ascii"))
            if cell is not None:
                meta.formula_cells.add(cell)
    if bold_cell is not None:
        meta.bold_rows.update(int(row) - 1 for row in set(bold_cell.findall(block)))


_ATTR_CELL_REF = re.compile(rb'\br="([A-Z]{1,3}[0-9]{1,7})"')
_ATTR_TYPE = re.compile(rb'\bt="([^"]*)"')
_VALUE = re.compile(rb"<v>([^<]*)</v>")


def _stored_numbers(
    block: bytes, cells: re.Pattern[bytes], numbers: dict[tuple[int, int], float]
) -> None:
    """The `<v>` of each numeric cell the regex matches (a date-trap style), by position."""
    for attrs, body in cells.findall(block):
        kind = _ATTR_TYPE.search(attrs)
        ref = _ATTR_CELL_REF.search(attrs)
        value = _VALUE.search(body)
        if ref is None or value is None or (kind is not None and kind.group(1) != b"n"):
            continue
        cell = parse_cell_ref(ref.group(1).decode("ascii"))
        try:
            number = float(value.group(1))
        except ValueError:
            continue
        if cell is not None:
            numbers[cell] = number


def _within_known(block: bytes, extent: _Extent) -> bool:
    """Widen the extent by the block's rows without reading every cell reference, when safe.

    Safe means: every `<c` of the block is a cell whose first attribute is an `r` with a
    column inside the columns seen so far and a row between the first and the last row tag
    of the block that holds cells; one regex pass with no capture proves it (anything else —
    a far cell, a row out of order, lowercase, `$`, a cell without `r` or with `r` later, a
    `<col` or `<cfRule` — matches the guard). The rows then widen the extent at least as
    much as their cells would. Otherwise False: the caller reads every reference. Only
    sheets up to column Z take this path (the usual trial balance).
    """
    if not 0 <= extent.first_col <= extent.last_col <= _LAST_SINGLE_LETTER:
        return False
    first = _ROW_WITH_CELL.search(block)
    last = _ROW_WITH_CELL.match(block, block.rfind(b'<row r="'))
    if first is None or last is None:
        return False
    low, high = int(first.group(1)), int(last.group(1))
    if not 0 < low <= high:
        return False
    columns = f"[{chr(65 + extent.first_col)}-{chr(65 + extent.last_col)}]"
    guard = re.compile(f'<c(?! r="{columns}(?:{_int_range(low, high)})")'.encode())
    if guard.search(block) is not None:
        return False
    extent.first_row = min(extent.first_row, low - 1)
    extent.last_row = max(extent.last_row, high - 1)
    return True


def _int_range(low: int, high: int) -> str:
    """A regex matching exactly the decimal numbers low..high (no sign, no leading zero)."""
    parts = []
    for digits in range(len(str(low)), len(str(high)) + 1):
        start = max(low, 10 ** (digits - 1))
        end = min(high, 10**digits - 1)
        parts.append(_same_length_range(str(start), str(end)))
    return "|".join(parts)


def _same_length_range(low: str, high: str) -> str:
    """Numbers low..high written with the same number of digits (low <= high)."""
    if low == high:
        return low
    common = 0
    while low[common] == high[common]:
        common += 1
    prefix, low, high = low[:common], low[common:], high[common:]
    if len(low) == 1:
        return f"{prefix}[{low}-{high}]"
    rest = len(low) - 1
    parts = [low[0] + _same_length_range(low[1:], "9" * rest)]
    if int(high[0]) - int(low[0]) > 1:
        parts.append(f"[{int(low[0]) + 1}-{int(high[0]) - 1}][0-9]{{{rest}}}")
    parts.append(high[0] + _same_length_range("0" * rest, high[1:]))
    return f"{prefix}(?:{'|'.join(parts)})"


def _widen(extent: _Extent, letters: set[bytes], numbers: set[bytes]) -> None:
    if letters:
        cols = [col_index(text) for text in letters]
        extent.first_col = min(extent.first_col, *cols)
        extent.last_col = max(extent.last_col, *cols)
    if numbers:
        found = [int(text) - 1 for text in numbers]
        extent.first_row = min(extent.first_row, *found)
        extent.last_row = max(extent.last_row, *found)


def _read_rows(block: bytes, rows: int, meta: SheetMeta, state: _RowState) -> None:
    """Outline levels by row; the used extent comes from cell references, not row tags."""
    levels = meta.outline_levels
    if block.count(b"<row r=") == rows:  # every row numbered, `r` first: no Python loop
        state.last = int(_ROW_R_FIRST.findall(block[block.rfind(b"<row r=") :])[0])
        if b"outlineLevel=" not in block:
            return
        fast = _OUTLINED_ROW.findall(block)
        if len(fast) == block.count(b"outlineLevel="):
            numbers = [row for row, _ in fast]
            written = [level for _, level in fast]
            if _LEVELS.keys() >= set(written):  # levels 1-7 as written: mapped in C
                rows_0 = map(_MINUS_ONE, map(int, numbers))
                levels.update(zip(rows_0, map(_LEVELS.__getitem__, written), strict=True))
            else:
                levels.update(
                    (int(row) - 1, min(int(level), 7)) for row, level in fast if level != b"0"
                )
            return
    last = state.last
    for attrs in _ROW_TAG.findall(block):
        found = _ATTR_R.search(attrs)
        number = int(found.group(1)) if found is not None else last + 1
        last = number
        if b"outlineLevel" in attrs:
            level = _ATTR_OUTLINE.search(attrs)
            if level is not None and int(level.group(1)) > 0:
                levels[number - 1] = min(int(level.group(1)), 7)
    state.last = last


def col_index(letters: bytes) -> int:
    col = 0
    for ch in letters:
        col = col * 26 + ch - 64
    return col - 1
