"""Trial balances whatever their title (issue 15.2): 1C «Обороты счета» with the six sums on
one header row, and a bank's «Оборотная ведомость» by balance accounts with Актив / Пассив
balances. Built in code (tests.builders.ledger), written as real XLSX, read end to end."""

from __future__ import annotations

from typing import Any

from services.contract import Kind, validate
from services.tabular_parser.recognizer import recognize_bytes
from tests.builders import SheetSpec, write_xlsx
from tests.builders.ledger import (
    bank_turnover_statement,
    eps_turnover_statement,
    turnover_of_account,
    turnover_with_indicators,
)


def _only_document(data: bytes) -> dict[str, Any]:
    recognition = recognize_bytes(data)
    assert recognition.group_schema == "osv"
    assert len(recognition.documents) == 1
    document = recognition.documents[0]
    assert validate(Kind.RESULT, _result_file(recognition.documents, recognition.warnings)) == []
    return document


def _result_file(documents: list[dict[str, Any]], warnings: list[dict[str, Any]]) -> object:
    return {
        "schema_version": "2.0",
        "job_id": "6f1c1f3e-0000-4000-8000-000000000001",
        "file_id": "6f1c1f3e-0000-4000-8000-000000000002",
        "status": "needs_check" if any(d["status"] == "needs_check" for d in documents) else "done",
        "service": {"name": "tabular-parser", "version": "test"},
        "group_schema": "osv",
        "documents": documents,
        "metrics": {"duration_ms": 0, "warnings": warnings},
    }


def test_oboroty_scheta_with_the_six_sums_on_one_row_is_an_osv() -> None:
    """«Обороты счета 11»: an OSV of account 11 whose checks hold; the corresponding accounts'
    columns go to extra under their turnover («Деб. оборот: 01» — the number 1.0 is account
    01), the «Количество» row is folded into its entity with its own digits, not a row."""
    document = _only_document(write_xlsx([turnover_of_account("11")]))

    assert document["status"] == "done"
    assert document["checks"] == {"failed": []}
    assert document["warnings"] == []
    header = document["header"]
    assert (header["title"], header["account"]) == ("Обороты счета 11", "11")
    assert (header["period_start"], header["period_end"]) == ("2025-01-01", "2025-06-30")
    rows = document["rows"]
    assert [(r["kind"], r["account"], r["name"]) for r in rows] == [
        ("subaccount", "11.04", None),
        ("subconto", None, "Выращивание. Овцы"),
        ("total", None, "Итого"),
    ]
    account = rows[0]
    assert [account[f] for f in ("opening_debit", "turnover_debit", "turnover_credit")] == [
        "1000",
        "500",
        "400",
    ]
    assert (account["closing_debit"], account["closing_credit"]) == ("1100", None)
    assert account["extra"] == {
        "Деб. оборот: 01": "300",
        "Деб. оборот: 60": "200",
        "Кред. оборот: 20": "400",
    }
    assert rows[1]["extra"]["Количество: Нач. сальдо деб."] == "10.125"
    assert rows[1]["extra"]["Количество: Кон. сальдо деб."] == "11.375"


def test_oboroty_scheta_with_an_indicator_column_and_a_level_column() -> None:
    """1C:БП's flat export: «Начальное сальдо Дт» … headers, a «Показатели» column (БУ / Кол.)
    and a level column left of the report that is neither a table column nor title text; the
    «Кол.» row under «Итого» is the total's."""
    document = _only_document(write_xlsx([turnover_with_indicators("10")]))

    assert document["status"] == "done"
    header = document["header"]
    assert header["title"] == "Обороты счета 10 за 4 квартал 2024 г."
    assert header["organization_name"] == 'ООО "Ромашка"'
    assert header["account"] == "10"
    assert header["subconto_kinds"] == ["Номенклатура"]
    assert header["period_start"] == "2024-10-01"
    rows = document["rows"]
    assert [(r["kind"], r["account"] or r["name"], r["level"]) for r in rows] == [
        ("account", "10", 0),
        ("subconto", "Мука", 1),
        ("total", "Итого", 0),
    ]
    assert rows[1]["extra"]["Кол.: Начальное сальдо Дт"] == "3.125"
    assert rows[1]["extra"]["Оборот Кт: 20"] == "200"
    assert rows[2]["extra"]["Кол.: Конечное сальдо Дт"] == "4.125"  # the row under «Итого»
    assert document["locator"]["range"].endswith("11")
    assert document["warnings"] == []  # a quantity with three decimals is not a rounded sum


def test_a_bank_turnover_statement_is_an_osv_and_its_imbalance_is_reported() -> None:
    """Balances by side (Актив → debit, Пассив → credit) under a «Б/сч» column of 4-digit
    accounts; the unbalanced account 1011 is a ROW_BALANCE failure (needs_check), nothing is
    forced to pass; sums with fractions of a kopeck are rounded and say so, and a row whose
    only difference is that rounding (1030) is no failure. Without an «Итого» row the
    top-level accounts are still checked debit against credit: these few do not balance."""
    document = _only_document(write_xlsx([bank_turnover_statement()]))

    assert document["header"]["title"] == "Оборотная ведомость по балансовым счетам"
    assert document["header"]["period_end"] == "2016-12-31"
    accounts = {r["account"]: r for r in document["rows"] if r["account"]}
    assert list(accounts) == ["1010", "1011", "1020", "1030"]
    assert (accounts["1010"]["opening_debit"], accounts["1010"]["closing_debit"]) == (
        "1500",
        "2000",
    )
    assert document["status"] == "needs_check"
    assert [(f["check"], f["ref"], f["column"]) for f in document["checks"]["failed"]] == [
        ("ROW_BALANCE", "Sheet1!A9", "closing_balance"),
        ("DEBIT_EQUALS_CREDIT", "Sheet1!A11", "opening"),
        ("DEBIT_EQUALS_CREDIT", "Sheet1!A11", "turnover"),
        ("DEBIT_EQUALS_CREDIT", "Sheet1!A11", "closing"),
    ]
    rounded = [w for w in document["warnings"] if w["code"] == "OSV_VALUE_ROUNDED"]
    assert len(rounded) == 1
    assert rounded[0]["line_refs"] == ["Sheet1!A10"]
    assert "2400.005" in rounded[0]["message"]
    assert rounded[0]["message"].startswith("Сумм с долями копейки: 3, округлены до копеек")
    assert (accounts["1030"]["opening_debit"], accounts["1030"]["turnover_debit"]) == (
        "1000.01",
        "0.01",
    )
    assert accounts["1020"]["opening_debit"] == "2400.01"


def test_an_eps_statement_with_balances_by_side_is_an_osv_whose_checks_hold() -> None:
    """ЕПС: the итого column is the sum, «…Актив» puts a balance on the debit side and
    «…Пассив.» on the credit side; руб. / вал. and the side go to extra; «Итого по активу» and
    «Итого по пассиву» are each the total of their own section, and debit equals credit."""
    document = _only_document(write_xlsx([eps_turnover_statement()]))

    assert document["status"] == "done"
    assert document["checks"] == {"failed": []}
    rows = {r["account"] or r["name"]: r for r in document["rows"]}
    active, passive = rows["205.01"], rows["603.05"]
    assert (active["opening_debit"], active["opening_credit"]) == ("1500", None)
    assert (passive["closing_debit"], passive["closing_credit"]) == (None, "1200")
    assert (passive["turnover_debit"], passive["turnover_credit"]) == ("210", "700")
    assert active["extra"]["№ строки"] == "А.Балансовые счета. Актив"
    assert active["extra"]["Входящие остатки руб."] == "1500"
    assert active["extra"]["Входящие остатки вал."] == "0"
    totals = [r for r in document["rows"] if r["kind"] == "total"]
    assert [(t["opening_debit"], t["opening_credit"]) for t in totals] == [
        ("2710", None),
        (None, "2710"),
    ]
    assert document["header"]["subconto_kinds"] == []  # the numbering row is no header text


def test_an_eps_statement_whose_sides_do_not_balance_says_so() -> None:
    """One passive balance changed: its row, its section's total and debit = credit fail,
    each where it is; the active section's total still holds."""
    spec = eps_turnover_statement()
    rows = [list(row) for row in spec.rows]
    rows[6][2:5] = [2100, 0, 2100]  # 102.08 opens with 2100 instead of 2000
    document = _only_document(write_xlsx([SheetSpec(spec.name, rows, merged=spec.merged)]))

    failed = {(f["check"], f["ref"], f["column"]) for f in document["checks"]["failed"]}
    assert document["status"] == "needs_check"
    assert ("ROW_BALANCE", "TDSheet!A7", "closing_balance") in failed
    assert ("TOTAL_SUM", "TDSheet!A9", "opening_credit") in failed
    assert ("DEBIT_EQUALS_CREDIT", "TDSheet!A9", "opening") in failed
    assert not any(ref == "TDSheet!A6" for _, ref, _ in failed)


def test_a_bank_group_printed_under_its_accounts_is_their_parent() -> None:
    """The group «10» (a number in the cell, as the real export has it) under 1010 … 1030 is
    their parent, so its sums are checked against theirs (within the rounding); the class
    heading and «ПО КЛАССУ» in the account column are no subconto of the account above."""
    spec = bank_turnover_statement()
    rows = [list(row) for row in spec.rows]
    rows.append([10.0, 6110.01, 0.0, 800.005, 200.0, 5500.02, 0.0])
    rows.append(["ПО КЛАССУ", 6110.01, 0.0, 800.005, 200.0, 5500.02, 0.0])
    document = _only_document(write_xlsx([SheetSpec(spec.name, rows, merged=spec.merged)]))

    levels = [(r["account"] or r["name"], r["level"]) for r in document["rows"]]
    assert levels == [
        ("КЛАСС 1 Денежные средства", 0),
        ("1010", 1),
        ("1011", 1),
        ("1020", 1),
        ("1030", 1),
        ("10", 0),
        ("ПО КЛАССУ", 0),
    ]
    failed = [(f["check"], f["ref"]) for f in document["checks"]["failed"]]
    assert ("CHILDREN_SUM", "Sheet1!A12") not in failed
    assert ("ROW_BALANCE", "Sheet1!A9") in failed  # 1011 still does not balance

    rows[11][1] = 6200.0  # the group's opening no longer equals its accounts'
    broken = _only_document(write_xlsx([SheetSpec(spec.name, rows, merged=spec.merged)]))
    assert {
        "check": "CHILDREN_SUM",
        "ref": "Sheet1!A12",
        "column": "opening_debit",
        "expected": "6110.02",
        "actual": "6200",
    } in broken["checks"]["failed"]
