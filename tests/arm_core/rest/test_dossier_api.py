"""The borrower's dossier over the API: documents grouped by ИНН, figures held against each
other, and the dossier following corrections at once."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.devstack._samples import BALANCE, ORG_INN
from tests.arm_core._borrower import (
    OTHER,
    balance_xlsx,
    income_before_lines,
    income_xlsx,
    json_of,
    last_year,
    osv_xlsx,
    shifted,
    upload,
)

pytestmark = pytest.mark.db


async def test_a_prior_year_figure_changed_is_one_disagreement_naming_both_documents(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """2023's balance says 1250 = 4 650 at 31.12.2023 where 2024's balance says 4 150; the
    ОФРs of both years agree; another organisation's documents stay out of the dossier."""
    wrong_cash = shifted(last_year(), {"1250": (4650, 3870, 3870)})
    this, last, income_now, income_before, _other = await upload(
        app,
        client,
        sessions,
        [
            ("balance-2024.xlsx", balance_xlsx(2024, BALANCE)),
            ("balance-2023.xlsx", balance_xlsx(2023, wrong_cash)),
            ("ofr-2024.xlsx", income_xlsx(2024)),
            ("ofr-2023.xlsx", income_xlsx(2023, income_before_lines())),
            ("other.xlsx", balance_xlsx(2024, BALANCE, organization=OTHER)),
        ],
    )
    listed = await json_of(client, "/api/v1/organizations")
    by_inn = {o["inn"]: o for o in listed["items"]}
    assert by_inn[ORG_INN]["document_count"] == 4
    assert by_inn[ORG_INN]["last_report_date"] == "2024-12-31"
    assert by_inn[ORG_INN]["open_disagreements"] == 1
    assert by_inn[OTHER[1]]["open_disagreements"] == 0

    dossier = await json_of(client, f"/api/v1/organizations/{ORG_INN}/dossier")
    assert {d["id"] for d in dossier["documents"]} == {
        str(r.document_id) for r in (this, last, income_now, income_before)
    }
    (found,) = dossier["disagreements"]
    assert (found["line_code"], found["period_date"]) == ("1250", "2023-12-31")
    assert {d["document_id"]: d["amount"] for d in found["documents"]} == {
        str(this.document_id): "4150",
        str(last.document_id): "4650",
    }
    assert (found["difference"], found["units"]) == ("500", "тыс. руб.")
    assert dossier["official"] == {"state": "off", "filings": []}  # no OPENBAO__GIRBO__GIRBO_URL
    assert {f["rule"] for f in dossier["cross_form"]} == {"profit-movement"}

    corrected = await json_of(client, f"/api/v1/documents/{last.document_id}/corrected")
    assert [d["line_code"] for d in corrected["disagreements"]] == ["1250"]
    untouched = await json_of(client, f"/api/v1/documents/{income_now.document_id}/corrected")
    assert untouched["disagreements"] == []


async def test_a_correction_settles_the_disagreement_at_once(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """The analyst corrects 2023's 1250 to what 2024 prints: the dossier has no disagreement
    left, and the correction's own answer says so."""
    wrong_cash = shifted(last_year(), {"1250": (4650, 3870, 3870)})
    _this, last = await upload(
        app,
        client,
        sessions,
        [
            ("b-2024.xlsx", balance_xlsx(2024, BALANCE)),
            ("b-2023.xlsx", balance_xlsx(2023, wrong_cash)),
        ],
    )
    document = (await json_of(client, f"/api/v1/documents/{last.document_id}/corrected"))[
        "document"
    ]
    line = next(i for i, ln in enumerate(document["lines"]) if ln["line_code"] == "1250")
    column = next(
        c["column_index"] for c in document["columns"] if c["period_date"] == "2023-12-31"
    )
    answer = await client.post(
        f"/api/v1/documents/{last.document_id}/corrections",
        json={"kind": "value", "line": line, "column_index": column, "value": "4150"},
    )
    assert answer.status_code == 201, answer.text
    assert answer.json()["disagreements"] == []
    dossier = await json_of(client, f"/api/v1/organizations/{ORG_INN}/dossier")
    assert dossier["disagreements"] == []


async def test_a_ruble_copy_agrees_within_rounding_and_a_real_difference_does_not(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """The same balance in rubles (each amount × 1000 plus up to 400 rubles) agrees with the
    thousands form; a ruble copy 2 000 rubles off on 1600 disagrees, in тыс. руб."""

    def in_rubles(extra: dict[str, int]) -> list[Any]:
        return [
            (
                code,
                name,
                tuple(
                    int(Decimal(a) * 1000) + extra.get(code, 400) if isinstance(a, int) else a
                    for a in amounts
                ),
            )
            for code, name, amounts in BALANCE
        ]

    rubles = ("Единица измерения: в рублях", "383")
    thousands, close, far = await upload(
        app,
        client,
        sessions,
        [
            ("thousands.xlsx", balance_xlsx(2024, BALANCE)),
            ("rubles.xlsx", balance_xlsx(2024, in_rubles({}), units=rubles)),
            ("rubles-off.xlsx", balance_xlsx(2024, in_rubles({"1600": 2000}), units=rubles)),
        ],
    )
    dossier = await json_of(client, f"/api/v1/organizations/{ORG_INN}/dossier")
    disputed = {(d["line_code"], d["period_date"]) for d in dossier["disagreements"]}
    assert disputed == {("1600", f"{year}-12-31") for year in (2024, 2023, 2022)}
    for found in dossier["disagreements"]:
        documents = {d["document_id"] for d in found["documents"]}
        assert str(far.document_id) in documents
        assert found["units"] == "тыс. руб."
    assert close.document_id != thousands.document_id


async def test_an_unknown_organisation_is_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v1/organizations/7700000000/dossier")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")


async def test_forms_of_one_date_are_held_against_each_other_apart_from_disagreements(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """The 2024 balance, its ОФР and a 1C ОСВ at 31.12.2024: retained earnings grew by 8 000
    while the profit was 14 400 (a soft finding: dividends explain it); the ОСВ's cash and
    capital agree with 1250 and 1310, its fixed assets (Дт 01 − Кт 02 = 500) do not agree with
    1150 = 45 300. None of it is a disagreement."""
    balance, income, osv = await upload(
        app,
        client,
        sessions,
        [
            ("balance-2024.xlsx", balance_xlsx(2024, BALANCE)),
            ("ofr-2024.xlsx", income_xlsx(2024)),
            (
                "osv-2024.xlsx",
                osv_xlsx(
                    2024,
                    [
                        ("01", "Основные средства", 1_500_000, None),
                        ("02", "Амортизация основных средств", None, 1_000_000),
                        ("51", "Расчетные счета", 6_140_000, None),
                        ("80", "Уставный капитал", None, 10_000_000),
                    ],
                ),
            ),
        ],
    )
    dossier = await json_of(client, f"/api/v1/organizations/{ORG_INN}/dossier")
    assert str(osv.document_id) in {d["id"] for d in dossier["documents"]}
    assert dossier["disagreements"] == []
    found = {(f["rule"], f["line_code"]): f for f in dossier["cross_form"]}
    profit = found[("profit-movement", "1370")]
    assert (profit["expected"], profit["actual"], profit["agrees"], profit["soft"]) == (
        "14400",
        "8000",
        False,
        True,
    )
    assert {d["role"]: d["document_id"] for d in profit["documents"]} == {
        "balance": str(balance.document_id),
        "balance_previous": str(balance.document_id),
        "income": str(income.document_id),
    }
    assert found[("osv-balance", "1250")]["agrees"] is True
    assert found[("osv-balance", "1310")]["agrees"] is True
    fixed = found[("osv-balance", "1150")]
    assert (fixed["expected"], fixed["actual"], fixed["agrees"]) == ("500", "45300", False)
    assert fixed["basis"] == "Дт 01 − Кт 02"


async def test_a_deleted_file_leaves_the_dossier(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """Deleting the file of 2023's balance takes its document, and the disagreement it caused,
    out of the dossier."""
    wrong_cash = shifted(last_year(), {"1250": (4650, 3870, 3870)})
    this, last = await upload(
        app,
        client,
        sessions,
        [
            ("b-2024.xlsx", balance_xlsx(2024, BALANCE)),
            ("b-2023.xlsx", balance_xlsx(2023, wrong_cash)),
        ],
    )
    before = await json_of(client, f"/api/v1/organizations/{ORG_INN}/dossier")
    assert len(before["disagreements"]) == 1
    deleted = await client.delete(f"/api/v1/files/{last.file_id}")
    assert deleted.status_code == 200, deleted.text
    after = await json_of(client, f"/api/v1/organizations/{ORG_INN}/dossier")
    assert [d["id"] for d in after["documents"]] == [str(this.document_id)]
    assert after["disagreements"] == []
