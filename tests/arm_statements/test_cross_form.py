"""Findings across forms: the year's profit against retained earnings, an ОСВ against the
balance line by line."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from services.arm_statements.agreement import Figure, Source
from services.arm_statements.cross_form import OSV_RULES, osv_findings, profit_movements

BALANCE = Source("balance")
INCOME = Source("income")
END = dt.date(2024, 12, 31)
BEFORE = dt.date(2023, 12, 31)


def _figure(
    source: Source, code: str, date: dt.date, amount: int, units: str = "тыс. руб."
) -> Figure:
    return Figure(source, code, date, Decimal(amount), units)


def test_retained_earnings_moving_by_the_net_profit_agree() -> None:
    figures = [
        _figure(BALANCE, "1370", END, 39000),
        _figure(BALANCE, "1370", BEFORE, 31000),
        _figure(INCOME, "2400", END, 8000),
    ]
    (found,) = profit_movements(figures)
    assert (found.agrees, found.soft) == (True, True)
    assert (found.expected, found.actual) == (Decimal(8000), Decimal(8000))
    assert [role for _, role in found.documents] == ["balance", "balance_previous", "income"]


def test_dividends_show_as_a_soft_difference_not_a_failure() -> None:
    """Profit 14 400, retained earnings up by 8 000: 6 400 paid out, reported as soft."""
    figures = [
        _figure(BALANCE, "1370", END, 39000),
        _figure(BALANCE, "1370", BEFORE, 31000),
        _figure(INCOME, "2400", END, 14400),
    ]
    (found,) = profit_movements(figures)
    assert found.agrees is False and found.soft is True
    assert found.as_json()["difference"] == "-6400"


def test_no_previous_year_end_no_movement_finding() -> None:
    figures = [_figure(BALANCE, "1370", END, 39000), _figure(INCOME, "2400", END, 8000)]
    assert profit_movements(figures) == []


def _osv(rows: list[tuple[str, int | None, int | None]], end: str = "2024-12-31") -> dict[str, Any]:
    return {
        "header": {"period_end": end, "units": None},
        "rows": [
            {
                "account": account,
                "kind": "account" if "." not in account else "subaccount",
                "level": account.count("."),
                "closing_debit": str(debit) if debit is not None else None,
                "closing_credit": str(credit) if credit is not None else None,
            }
            for account, debit, credit in rows
        ],
    }


def test_an_osv_in_rubles_against_a_balance_in_thousands() -> None:
    """Cash 51 + 50 = 6 140 400 руб. is 1250 = 6 140 тыс.; 01 − 02 = 900 000 is 1150 = 900;
    80 = 10 000 000 is 1310 = 10 000; 1230 printed 30 460 but the
    ОСВ's receivables sum to 25 000 000: a (soft) finding that does not agree."""
    osv = _osv(
        [
            ("01", 1_500_000, None),
            ("02", None, 600_000),
            ("50", 400, None),
            ("51", 6_140_000, None),
            ("62", 25_000_000, None),
            ("80", None, 10_000_000),
        ]
    )
    figures = [
        _figure(BALANCE, "1250", END, 6140),
        _figure(BALANCE, "1150", END, 900),
        _figure(BALANCE, "1310", END, 10000),
        _figure(BALANCE, "1230", END, 30460),
        _figure(BALANCE, "1250", BEFORE, 1),
    ]
    found = {f.line_code: f for f in osv_findings("osv", osv, figures)}
    assert set(found) == {"1150", "1230", "1250", "1310"}
    assert all(found[code].agrees for code in ("1150", "1250", "1310"))
    assert found["1230"].agrees is False and found["1230"].soft is True
    assert found["1250"].soft is False
    assert found["1230"].as_json()["expected"] == "25000"
    assert found["1250"].documents == (("balance", "balance"), ("osv", "osv"))


def test_an_account_printed_only_by_its_subaccounts_is_their_sum() -> None:
    osv = _osv([("51.01", 100_000, None), ("51.02", 40_000, None), ("51.02.1", 40_000, None)])
    (found,) = osv_findings("osv", osv, [_figure(BALANCE, "1250", END, 140)])
    assert found.agrees is True


def test_an_osv_of_another_date_says_nothing() -> None:
    osv = _osv([("51", 1000, None)], end="2024-11-30")
    assert osv_findings("osv", osv, [_figure(BALANCE, "1250", END, 1)]) == []


def test_each_rule_states_its_basis_in_accounts() -> None:
    basis = {rule.line_code: rule.basis for rule in OSV_RULES}
    assert basis["1150"] == "Дт 01 − Кт 02"
    assert basis["1250"] == "Дт 50+51+52+55+57"
    assert basis["1370"] == "Кт 84+99 − Дт 84+99"
