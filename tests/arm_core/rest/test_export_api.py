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
from tests.arm_core.web._recognition import upload_and_recognize
from tests.builders import HYPERLINK_NAME, formula_named_income_xlsx

pytestmark = [pytest.mark.db, pytest.mark.wire]


async def test_a_formula_in_a_borrowers_line_name_comes_out_as_text(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    recognised = await upload_and_recognize(
        app, client, sessions, "p.xlsx", formula_named_income_xlsx()
    )
    url = f"/api/v1/documents/{recognised.document_id}/export"
    xlsx = await client.get(url, params={"format": "xlsx"})
    assert xlsx.status_code == 200
    with zipfile.ZipFile(io.BytesIO(xlsx.content)) as archive:
        sheets = [n for n in archive.namelist() if n.startswith("xl/worksheets/")]
        assert sheets and not any(b"<f>" in archive.read(n) for n in sheets)
    sheet = openpyxl.load_workbook(io.BytesIO(xlsx.content)).worksheets[0]
    names = [row[1] for row in sheet.iter_rows(values_only=True)]
    assert HYPERLINK_NAME in names, names
    start = next(r for r in range(1, 30) if sheet.cell(r, 1).value == TABLE_HEADING)
    assert start > 5 and sheet.cell(2, 1).value == "Организация"

    text = (await client.get(url, params={"format": "csv"})).content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    line = next(r for r in rows if r[0] == "2110")
    assert line[1] == "'" + HYPERLINK_NAME
    assert all(not cell.startswith("=") for row in rows for cell in row)
