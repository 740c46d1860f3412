"""Trial balances of issue 26, built in code and written as real XLS / XLSX: a trial balance is
known by its columns, not by its title (class 4), and group titles that lost their merge attach
to the Дебет | Кредит pairs below them by position, whatever spaces their text amounts use
(class 5)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

import pytest

from services.contract import Kind, validate
from services.tabular_parser.recognizer import recognize_bytes
from tests.builders import CellInput, SheetSpec, write_xls, write_xlsx

Writer = Callable[[Sequence[SheetSpec]], bytes]
WRITERS = [pytest.param(write_xls, id="xls"), pytest.param(write_xlsx, id="xlsx")]


def _only_document(data: bytes) -> dict[str, Any]:
    recognition = recognize_bytes(data)
    assert recognition.group_schema == "osv"
    assert len(recognition.documents) == 1
    result = {
        "schema_version": "2.0",
        "job_id": "6f1c1f3e-0000-4000-8000-000000000001",
        "file_id": "6f1c1f3e-0000-4000-8000-000000000002",
        "status": recognition.documents[0]["status"],
        "service": {"name": "tabular-parser", "version": "test"},
        "group_schema": "osv",
        "documents": recognition.documents,
        "metrics": {"duration_ms": 0, "warnings": recognition.warnings},
    }
    assert validate(Kind.RESULT, result) == []
    document: dict[str, Any] = recognition.documents[0]
    return document


def _codes(document: dict[str, Any]) -> list[str]:
    return [w["code"] for w in document["warnings"]]


# class 4: a plain 1C ОСВ without title, period or total rows


def _flat_osv(accounts: int = 97, *, balanced: bool = True) -> SheetSpec:
    """«Счет | Сальдо начальное Дт | Кт | Обороты Дт | Кт | Сальдо конечное Дт | Кт» and
    ``accounts`` rows, nothing else. Every third account ends with a negative debit balance
    (1C prints a credit balance of an active account so); the credit account 99 balances the
    sheet, unless ``balanced`` is off."""
    header: list[CellInput] = [
        "Счет",
        "Сальдо начальное Дт",
        "Сальдо начальное Кт",
        "Обороты Дт",
        "Обороты Кт",
        "Сальдо конечное Дт",
        "Сальдо конечное Кт",
    ]
    rows: list[list[CellInput]] = [list(header)]
    opening = debit = credit = Decimal(0)
    for i in range(accounts - 1):
        start, up, down = Decimal(1000 + 10 * i), Decimal(50 + i), Decimal(30 + i)
        if i % 3 == 0:
            down = start + up + 200  # the balance goes negative: −200
        rows.append([f"{10 + i:02d}", float(start), None, float(up), float(down)])
        rows[-1] += [float(start + up - down), None]
        opening, debit, credit = opening + start, debit + up, credit + down
    closing = opening + debit - credit
    skew = Decimal(0) if balanced else Decimal(7)
    rows.append(["99", None, float(opening), float(credit), float(debit + skew)])
    rows[-1] += [None, float(closing + skew)]
    return SheetSpec("TDSheet", rows)


@pytest.mark.parametrize("write", WRITERS)
def test_a_flat_osv_without_title_period_or_total_is_read_by_its_columns(write: Writer) -> None:
    """97 account rows read with negatives as printed; no period is OSV_PERIOD_UNRECOGNIZED;
    without «Итого» the top-level accounts balance debit against credit, so it is done."""
    document = _only_document(write([_flat_osv()]))
    rows = document["rows"]
    assert len(rows) == 97
    assert rows[0]["account"] == "10"
    assert (rows[0]["opening_debit"], rows[0]["closing_debit"]) == ("1000", "-200")
    assert rows[1]["closing_debit"] == "1030"
    assert sum(1 for r in rows if (r["closing_debit"] or "").startswith("-")) == 32
    assert document["header"]["title"] is None
    assert document["header"]["period_start"] is None
    assert {"OSV_TITLE_MISSING", "OSV_PERIOD_UNRECOGNIZED", "OSV_NO_TOTAL"} <= set(_codes(document))
    assert all(w["severity"] == "info" for w in document["warnings"])
    assert document["checks"] == {"failed": []}
    assert document["status"] == "done"


@pytest.mark.parametrize("write", WRITERS)
def test_a_flat_osv_that_does_not_balance_is_needs_check_at_its_last_row(write: Writer) -> None:
    document = _only_document(write([_flat_osv(balanced=False)]))
    failed = document["checks"]["failed"]
    assert {(f["check"], f["column"]) for f in failed} == {
        ("DEBIT_EQUALS_CREDIT", "turnover"),
        ("DEBIT_EQUALS_CREDIT", "closing"),
    }
    assert {f["ref"] for f in failed} == {"TDSheet!A98"}
    assert document["status"] == "needs_check"


# class 5: group titles in consecutive unmerged cells, amounts as text


def _amount(value: Decimal, space: str) -> str:
    """«1234567.5» → «1␣234␣567,50» with ``space`` between the thousands."""
    whole, _, fraction = f"{abs(value):.2f}".partition(".")
    groups: list[str] = []
    while whole:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    return ("-" if value < 0 else "") + space.join(groups) + "," + fraction


def _pasted_osv(space: str) -> SheetSpec:
    """A 1C ОСВ pasted into XLS: the three group titles side by side in columns C, D, E (no
    merge) over «Дебет | Кредит» ×3 in C…H, every amount a text with ``space``."""

    def t(value: str) -> str:
        return _amount(Decimal(value), space)

    rows: list[list[CellInput]] = [
        ["Оборотно-сальдовая ведомость за 2024 г."],
        [],
        ["Счет", None, "Сальдо на начало периода", "Обороты за период", "Сальдо на конец периода"],
        ["Код", "Наименование", "Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"],
        ["01", "Основные средства", t("1234567.5"), "", t("1000"), "", t("1235567.5"), ""],
        ["60", "Расчеты с поставщиками", "", t("2000"), t("500"), t("700"), "", t("2200")],
        ["80", "Уставный капитал", "", t("1232567.5"), "", t("800"), "", t("1233367.5")],
        ["Итого", None, t("1234567.5"), t("1234567.5"), t("1500"), t("1500")],
    ]
    rows[-1] += [t("1235567.5"), t("1235567.5")]
    return SheetSpec("Лист1", rows)


@pytest.mark.parametrize("write", WRITERS)
@pytest.mark.parametrize(
    "space",
    [
        pytest.param("\u00a0", id="nbsp"),
        pytest.param("\u2009", id="thin"),
        pytest.param("\u202f", id="narrow-nbsp"),
        pytest.param(" ", id="space"),
    ],
)
def test_unmerged_group_titles_attach_to_their_pairs_and_text_amounts_are_numbers(
    write: Writer, space: str
) -> None:
    document = _only_document(write([_pasted_osv(space)]))
    rows = {r["account"] or r["kind"]: r for r in document["rows"]}
    assert set(rows) == {"01", "60", "80", "total"}
    assert (rows["01"]["opening_debit"], rows["01"]["turnover_debit"]) == ("1234567.50", "1000")
    assert rows["01"]["closing_debit"] == "1235567.50"
    assert (rows["60"]["opening_credit"], rows["60"]["turnover_credit"]) == ("2000", "700")
    assert rows["60"]["closing_credit"] == "2200"
    assert rows["total"]["closing_credit"] == "1235567.50"
    assert document["header"]["period_end"] == "2024-12-31"
    assert document["checks"] == {"failed": []}
    assert document["status"] == "done"
