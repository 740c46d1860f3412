"""The four ОСВ control sums: exact failures with expected/actual, and what they leave out."""

from __future__ import annotations

from typing import Any

from ._builder import R, Six, osv_sheet
from ._fixtures import BY_ACCOUNT_ROWS, BY_ACCOUNT_TOTAL, GENERAL_ROWS, GENERAL_TOTAL
from ._strict import recognize_osv

OPENING_DEBIT, TURNOVER_DEBIT = 0, 2


def _document(built: Any) -> dict[str, Any]:
    [result] = recognize_osv(built.sheet)  # a sheet of one table is one document
    return result.document


def _failed(doc: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    return [
        (f["check"], f["ref"], f["column"], f["expected"], f["actual"])
        for f in doc["checks"]["failed"]
    ]


def _ref(built: Any, label: str) -> str:
    return f"TDSheet!A{built.rows[label] + 1}"


def test_all_sums_hold_gives_done() -> None:
    """A consistent general ОСВ: no failure, status done."""
    doc = _document(osv_sheet(GENERAL_ROWS, GENERAL_TOTAL))
    assert doc["checks"]["failed"] == []
    assert doc["status"] == "done"


def test_broken_child_value_fails_its_row_and_its_parent_only() -> None:
    """60.02 turnover Dr 50 → 60: the row no longer balances and 60 ≠ Σ its children; nothing else."""
    built = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL)
    built.put("60.02", TURNOVER_DEBIT, 60.0)
    doc = _document(built)
    assert doc["status"] == "needs_check"
    assert _failed(doc) == [
        ("CHILDREN_SUM", _ref(built, "60"), "turnover_debit", "210", "200"),
        ("ROW_BALANCE", _ref(built, "60.02"), "closing_balance", "-240", "-250"),
    ]


def test_broken_top_level_value_fails_row_total_and_debit_equals_credit() -> None:
    """01 opening Dr 1000 → 1001: ROW_BALANCE on 01, TOTAL_SUM and DEBIT_EQUALS_CREDIT on Итого."""
    built = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL)
    built.put("01", OPENING_DEBIT, 1001.0)
    doc = _document(built)
    total_ref = f"TDSheet!A{built.total + 1}"
    assert _failed(doc) == [
        ("ROW_BALANCE", _ref(built, "01"), "closing_balance", "1501", "1500"),
        ("TOTAL_SUM", total_ref, "opening_debit", "1101", "1100"),
        ("DEBIT_EQUALS_CREDIT", total_ref, "opening", "1101", "1100"),
    ]


def test_kopecks_are_compared_exactly() -> None:
    """A one-kopeck difference is a failure: no tolerance on ОСВ sums."""
    built = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL)
    built.put("ООО «Поставщик А»", OPENING_DEBIT, 60.01)
    built.put("ООО «Поставщик А»", 4, 110.01)
    doc = _document(built)
    assert _failed(doc) == [
        ("CHILDREN_SUM", _ref(built, "60.01"), "opening_debit", "100.01", "100"),
        ("CHILDREN_SUM", _ref(built, "60.01"), "closing_debit", "200.01", "200"),
    ]


OFF_BALANCE = [
    R("001", "Арендованные основные средства", ("5000", None, "100", None, "5100", None)),
    R("МЦ", "Материальные ценности в эксплуатации", ("70", None, None, "20", "50", None)),
    R("МЦ.04", "Инвентарь и хозяйственные принадлежности", ("70", None, None, "20", "50", None), 1),
]


def _with_off_balance(total: Six) -> Any:
    return osv_sheet(GENERAL_ROWS + OFF_BALANCE, total)


def test_off_balance_accounts_are_left_out_of_debit_equals_credit() -> None:
    """001 and МЦ are single-entry: their Dr in Итого does not break Dr = Cr."""
    doc = _document(_with_off_balance(("6170", "1100", "800", "720", "6850", "1700")))
    assert [r["kind"] for r in doc["rows"][-4:]] == ["account", "account", "subaccount", "total"]
    assert doc["checks"]["failed"] == []
    assert doc["status"] == "done"


def test_total_without_off_balance_accounts_is_accepted() -> None:
    """Some configurations leave off-balance accounts out of Итого: that total also holds."""
    doc = _document(_with_off_balance(GENERAL_TOTAL))
    assert doc["checks"]["failed"] == []


def test_unbalanced_balance_accounts_still_fail_next_to_off_balance_ones() -> None:
    """Leaving 001/МЦ out does not hide a real Dr ≠ Cr in the balance accounts."""
    built = _with_off_balance(("6171", "1100", "800", "720", "6851", "1700"))
    built.put("01", OPENING_DEBIT, 1001.0)
    built.put("01", 4, 1501.0)
    doc = _document(built)
    assert [(f["check"], f["column"]) for f in doc["checks"]["failed"]] == [
        ("DEBIT_EQUALS_CREDIT", "opening"),
        ("DEBIT_EQUALS_CREDIT", "closing"),
    ]


def test_osv_by_account_is_not_checked_for_debit_equals_credit() -> None:
    """One account's ОСВ has Dr ≠ Cr by nature; every other sum still holds."""
    built = osv_sheet(
        BY_ACCOUNT_ROWS,
        BY_ACCOUNT_TOTAL,
        title="Оборотно-сальдовая ведомость по счету 62.01 за Июль 2019 г.",
        code_and_name=False,
        kinds=("Контрагенты", "Договоры"),
    )
    assert _document(built)["checks"]["failed"] == []


def test_broken_subconto_under_by_account_fails_children_sum_at_its_own_parent() -> None:
    """A contract changed under «ООО «Альфа»»: CHILDREN_SUM on Альфа (its parent), not on 62.01."""
    built = osv_sheet(
        BY_ACCOUNT_ROWS,
        BY_ACCOUNT_TOTAL,
        title="Оборотно-сальдовая ведомость по счету 62.01 за Июль 2019 г.",
        code_and_name=False,
        kinds=("Контрагенты", "Договоры"),
    )
    built.put("Договор № 1", TURNOVER_DEBIT, 500.0)
    built.put("Договор № 1", 4, 900.0)
    doc = _document(built)
    alfa = _ref(built, "ООО «Альфа»")
    assert _failed(doc) == [
        ("CHILDREN_SUM", alfa, "turnover_debit", "500", "600"),
        ("CHILDREN_SUM", alfa, "closing_debit", "900", "1000"),
    ]


def test_filtered_general_osv_skips_debit_equals_credit_with_a_warning() -> None:
    """«Отбор:» shows a subset of accounts: Dr = Cr is not expected, and the skip is reported."""
    rows = GENERAL_ROWS[:1]
    built = osv_sheet(
        rows,
        ("1000", None, "500", None, "1500", None),
        title_lines=("Выводимые данные: БУ", "Отбор: Счет В списке 01"),
    )
    doc = _document(built)
    assert doc["checks"]["failed"] == []
    assert [w["code"] for w in doc["warnings"]] == ["OSV_FILTERED"]


def test_parent_with_netted_balance_is_accepted_when_the_net_matches() -> None:
    """1C may print a parent's balance netted on one side: Σ(Dr − Cr) of children must equal it."""
    rows = [
        R(
            "76",
            "Расчеты с разными дебиторами и кредиторами",
            ("100", None, "50", None, "150", None),
        ),
        R("76.01", "Расчеты по страхованию", ("300", None, "50", None, "350", None), 1),
        R("76.02", "Расчеты по претензиям", (None, "200", None, None, None, "200"), 1),
    ]
    title = "Оборотно-сальдовая ведомость по счету 76 за 2024 г."
    good = _document(osv_sheet(rows, ("100", None, "50", None, "150", None), title=title))
    assert good["checks"]["failed"] == []
    rows[0] = R(
        "76", "Расчеты с разными дебиторами и кредиторами", ("120", None, "50", None, "170", None)
    )
    built = osv_sheet(rows, ("120", None, "50", None, "170", None), title=title)
    bad = _document(built)
    parent = _ref(built, "76")
    assert _failed(bad) == [
        ("CHILDREN_SUM", parent, "opening_debit", "300", "120"),
        ("CHILDREN_SUM", parent, "opening_credit", "200", "0"),
        ("CHILDREN_SUM", parent, "closing_debit", "350", "170"),
        ("CHILDREN_SUM", parent, "closing_credit", "200", "0"),
    ]
