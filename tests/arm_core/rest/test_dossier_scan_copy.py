"""A scan and an Excel export of the same balance in one dossier: the same figures agree across
the two recognisers (units normalised), and a figure the export prints differently is one
disagreement between the scan and the workbook."""

from __future__ import annotations

import shutil
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.devstack._samples import statement_sheet
from services.runtime.storage import S3Storage
from tests.arm_core._borrower import json_of
from tests.arm_core.web._recognition import upload_and_recognize, upload_and_recognize_scan
from tests.builders import write_xlsx
from tests.scan_gateway._forms import BALANCE, font_path, render_pdf

pytestmark = [
    pytest.mark.db,
    pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with"),
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract"),
]

INN = "7812345675"  # the scanned form's ИНН (tests/scan_gateway/_forms.py HEADER)
NAME = "ООО «Ромашка-Сервис»"


def _export(changes: dict[str, int], *, rubles: bool = False) -> bytes:
    """The scanned balance as a 1C export: the same lines and dates, in thousands (or rubles),
    with some current-year amounts changed."""

    def amount(text: str, changed: int | None = None) -> int:
        value = changed if changed is not None else int(text.replace(" ", ""))
        return value * 1000 + 300 if rubles else value

    lines: list[Any] = [
        (code, name, (amount(now, changes.get(code)), amount(before)))
        for name, code, now, before in BALANCE.lines
    ]
    sheet = statement_sheet(
        "Бухгалтерский баланс",
        "Бухгалтерский баланс",
        "на 31 декабря 2024 г.",
        "0710001",
        BALANCE.columns,
        lines,
        organization=(NAME, INN),
        units=("Единица измерения: в рублях", "383")
        if rubles
        else ("Единица измерения: в тыс. рублей", "384"),
    )
    return write_xlsx([sheet])


async def test_a_scan_and_its_excel_copy_agree_and_one_changed_figure_is_found(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    storage: S3Storage,
) -> None:
    scan = await upload_and_recognize_scan(
        app, client, sessions, storage, "balance.pdf", render_pdf((BALANCE,))
    )
    copy = await upload_and_recognize(
        app, client, sessions, "balance-rub.xlsx", _export({}, rubles=True)
    )
    agreeing = await json_of(client, f"/api/v1/organizations/{INN}/dossier")
    assert {d["id"] for d in agreeing["documents"]} == {
        str(scan.document_id),
        str(copy.document_id),
    }
    assert agreeing["disagreements"] == []

    changed = await upload_and_recognize(
        app, client, sessions, "balance-typo.xlsx", _export({"1250": 798})
    )
    dossier = await json_of(client, f"/api/v1/organizations/{INN}/dossier")
    (found,) = dossier["disagreements"]
    assert (found["line_code"], found["period_date"]) == ("1250", "2024-12-31")
    amounts = {d["document_id"]: d["amount"] for d in found["documents"]}
    assert amounts[str(scan.document_id)] == "789"
    assert amounts[str(changed.document_id)] == "798"
    assert found["units"] == "тыс. руб."
