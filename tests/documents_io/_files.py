"""Workbooks built for the file-reading tests: a small report and a filler sheet of millions
of cells, written as XML directly (the builders would take minutes over millions of cells)."""

from __future__ import annotations

import io
import zipfile

from services.excel import column_letters
from tests.builders import CellInput

REPORT: list[list[CellInput]] = [
    ["Показатель", "Код", "За год"],
    ["Выручка", "2110", 1500.0],
    ["Себестоимость", "2120", -900.0],
    ["Прибыль", "2200", 600.0],
]


def xlsx_with_filler(rows: int, cols: int) -> bytes:
    """A workbook of the report sheet and a filler sheet of rows × cols numbers (written as
    XML directly: the builders would take minutes over millions of cells)."""
    letters = [column_letters(c) for c in range(cols)]

    def sheet(cells: list[str]) -> bytes:
        return (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            "<sheetData>" + "".join(cells) + "</sheetData></worksheet>"
        ).encode()

    def cell(ref: str, value: object) -> str:
        if isinstance(value, float):
            return f'<c r="{ref}"><v>{value}</v></c>'
        return f'<c r="{ref}" t="inlineStr"><is><t>{value}</t></is></c>'

    report = [
        f'<row r="{r + 1}">'
        + "".join(cell(f"{letters[c]}{r + 1}", v) for c, v in enumerate(row))
        + "</row>"
        for r, row in enumerate(REPORT)
    ]
    filler = [
        f'<row r="{r}">' + "".join(f'<c r="{x}{r}"><v>{r}</v></c>' for x in letters) + "</row>"
        for r in range(1, rows + 1)
    ]
    ns = "http://schemas.openxmlformats.org"
    parts = {
        "[Content_Types].xml": (
            f'<?xml version="1.0"?><Types xmlns="{ns}/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            '<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            "</Types>"
        ).encode(),
        "_rels/.rels": (
            f'<?xml version="1.0"?><Relationships xmlns="{ns}/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{ns}/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
            "</Relationships>"
        ).encode(),
        "xl/workbook.xml": (
            f'<?xml version="1.0"?><workbook xmlns="{ns}/spreadsheetml/2006/main" '
            f'xmlns:r="{ns}/officeDocument/2006/relationships"><sheets>'
            '<sheet name="Отчет" sheetId="1" r:id="rId1"/>'
            '<sheet name="filler" sheetId="2" r:id="rId2"/></sheets></workbook>'
        ).encode(),
        "xl/_rels/workbook.xml.rels": (
            f'<?xml version="1.0"?><Relationships xmlns="{ns}/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{ns}/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
            f'<Relationship Id="rId2" Type="{ns}/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/>'
            "</Relationships>"
        ).encode(),
        "xl/worksheets/sheet1.xml": sheet(report),
        "xl/worksheets/sheet2.xml": sheet(filler),
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, body in parts.items():
            archive.writestr(name, body)
    return out.getvalue()
