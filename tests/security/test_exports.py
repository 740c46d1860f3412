"""Exports carry data, never formulas (issue 27, item 1), probed on the secured stack: a
borrower's workbook whose line name is `=HYPERLINK(…)` goes through tabular-parser over the
secured NATS, and the analyst's XLSX and CSV exports hold it as text."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Callable
from typing import Any

import openpyxl
import pytest

from tests.arm_core.auth._flow import bearer
from tests.arm_core.auth._provider import FakeProvider
from tests.arm_core.auth.conftest import CoreFactory
from tests.builders import HYPERLINK_NAME, formula_named_income_xlsx

from ._recognition import recognised

pytestmark = [pytest.mark.db, pytest.mark.wire]


async def test_a_formula_line_name_is_exported_as_text(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    tabular_parser: Callable[..., Any],
) -> None:
    """The XLSX export has no `<f>` element and the name as a string cell (openpyxl wrote a
    live formula); the CSV cell starts with `'` (it kept the `=`); amounts stay numbers."""
    app, client = await core(oidc)
    async with tabular_parser():
        job = await recognised(
            app, client, bearer(provider, "integrator"), "ofr.xlsx", formula_named_income_xlsx()
        )
    analyst = bearer(provider, "analyst")
    listed = await client.get(f"/api/v1/files/{job['file_id']}/documents", headers=analyst)
    assert listed.status_code == 200, listed.text
    (document,) = listed.json()["items"]
    url = f"/api/v1/documents/{document['document_id']}/export"

    xlsx = await client.get(url, params={"format": "xlsx"}, headers=analyst)
    assert xlsx.status_code == 200, xlsx.text
    with zipfile.ZipFile(io.BytesIO(xlsx.content)) as archive:
        sheets = [n for n in archive.namelist() if n.startswith("xl/worksheets/")]
        assert sheets and not any(b"<f>" in archive.read(n) for n in sheets)
    cells = [c for row in openpyxl.load_workbook(io.BytesIO(xlsx.content)).active for c in row]
    named = [c for c in cells if c.value == HYPERLINK_NAME]
    assert named and all(c.data_type == "s" for c in named)
    assert any(isinstance(c.value, int | float) for c in cells)

    exported = await client.get(url, params={"format": "csv"}, headers=analyst)
    rows = list(csv.reader(io.StringIO(exported.content.decode("utf-8-sig")), delimiter=";"))
    line = next(r for r in rows if r and r[0] == "2110")
    assert line[1] == "'" + HYPERLINK_NAME
    assert all(not cell.startswith(("=", "+", "@")) for row in rows for cell in row)
