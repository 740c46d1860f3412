"""Findings across forms of one borrower: what one form implies for another's line.

Two kinds, each rule written once here with its accounting basis:

- **the year's profit** (``profit_movements``): the balance's retained earnings (1370) move by
  the ОФР's net profit (2400) of the period ending on the balance date, counted from the
  previous year end. Dividends, reserves and prior-period corrections explain differences,
  so a difference is reported, never failed (``soft``).
- **a trial balance at the balance date** (``osv_findings``): closing balances of the chart of
  accounts (Приказ Минфина № 94н) summed as the balance's lines are built from them. Where the
  accounting policy may put more accounts into a line (stocks, receivables, payables, fixed
  assets), the finding is ``soft``.

Amounts are compared in rubles; two figures agree when they differ by less than one unit of
the coarser document (two units for a movement: two rounded balance figures are subtracted).
A trial balance without stated units is in rubles (1C prints its ОСВ in rubles). Pure.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from services.arm_statements.agreement import UNIT_SCALE, Figure
from services.arm_statements.money import format_money, parse_money

__all__ = [
    "OSV_RULES",
    "CrossFinding",
    "OsvRule",
    "osv_findings",
    "profit_movements",
]

_ACCOUNT = re.compile(r"^\d{2}$")


@dataclass(frozen=True, slots=True)
class OsvRule:
    """A balance line from closing balances: ``plus`` minus ``minus``, each ``(account, side)``
    with side ``D`` (debit) or ``K`` (credit)."""

    line_code: str
    plus: tuple[tuple[str, str], ...]
    minus: tuple[tuple[str, str], ...] = ()
    soft: bool = False

    @property
    def basis(self) -> str:
        """The rule as an accountant writes it: «Дт 01 − Кт 02»."""

        def terms(pairs: Sequence[tuple[str, str]]) -> str:
            by_side: dict[str, list[str]] = {}
            for account, side in pairs:
                by_side.setdefault("Дт" if side == "D" else "Кт", []).append(account)
            return " + ".join(f"{side} {'+'.join(accts)}" for side, accts in by_side.items())

        text = terms(self.plus)
        return f"{text} − {terms(self.minus)}" if self.minus else text


_RECEIVABLES = ("60", "62", "68", "69", "70", "71", "73", "75", "76")
OSV_RULES: Final[tuple[OsvRule, ...]] = (
    OsvRule("1150", (("01", "D"),), (("02", "K"),), soft=True),
    OsvRule(
        "1210",
        tuple(
            (a, "D")
            for a in ("10", "11", "15", "16", "20", "21", "23", "28", "29", "41", "43", "44", "45")
        ),
        (("14", "K"), ("42", "K")),
        soft=True,
    ),
    OsvRule("1230", tuple((a, "D") for a in _RECEIVABLES), (("63", "K"),), soft=True),
    OsvRule("1250", tuple((a, "D") for a in ("50", "51", "52", "55", "57"))),
    OsvRule("1310", (("80", "K"),)),
    OsvRule("1370", (("84", "K"), ("99", "K")), (("84", "D"), ("99", "D"))),
    OsvRule("1410", (("67", "K"),), soft=True),
    OsvRule("1510", (("66", "K"),), soft=True),
    OsvRule("1520", tuple((a, "K") for a in _RECEIVABLES), soft=True),
)
"""The balance lines an ОСВ at the balance date implies (1C's regulated-report formulas,
without the parts that depend on subaccount terms)."""


@dataclass(frozen=True, slots=True)
class CrossFinding:
    """What another form implies for a balance line (``expected``) against what the balance
    prints (``actual``), both in ``units``; ``documents`` are ``(document_id, role)``."""

    rule: str
    line_code: str
    period_date: dt.date
    expected: Decimal
    actual: Decimal
    units: str
    agrees: bool
    soft: bool
    basis: str
    documents: tuple[tuple[str, str], ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "line_code": self.line_code,
            "period_date": self.period_date.isoformat(),
            "expected": format_money(self.expected),
            "actual": format_money(self.actual),
            "difference": format_money(self.actual - self.expected),
            "units": self.units,
            "agrees": self.agrees,
            "soft": self.soft,
            "basis": self.basis,
            "documents": [{"document_id": d, "role": r} for d, r in self.documents],
        }


def _pick(figures: Iterable[Figure]) -> dict[tuple[str, dt.date], Figure]:
    """One figure per (line, date): an undoubted one where there is one."""
    chosen: dict[tuple[str, dt.date], Figure] = {}
    for figure in figures:
        key = (figure.line_code, figure.period_date)
        held = chosen.get(key)
        if held is None or (held.needs_review and not figure.needs_review):
            chosen[key] = figure
    return chosen


def profit_movements(figures: Iterable[Figure]) -> list[CrossFinding]:
    """For every ОФР net profit (2400) of a period ending on D with the balance's 1370 at D and
    at the previous year end: the movement of 1370 against 2400 (soft)."""
    chosen = _pick(figures)
    found: list[CrossFinding] = []
    for (code, date), profit in sorted(chosen.items(), key=lambda item: item[0][1]):
        if code != "2400":
            continue
        now = chosen.get(("1370", date))
        before = chosen.get(("1370", dt.date(date.year - 1, 12, 31)))
        if now is None or before is None:
            continue
        units = max((profit, now, before), key=lambda f: f.scale).units
        scale = UNIT_SCALE[units]
        movement = (now.rubles - before.rubles) / scale
        expected = profit.rubles / scale
        found.append(
            CrossFinding(
                rule="profit-movement",
                line_code="1370",
                period_date=date,
                expected=expected,
                actual=movement,
                units=units,
                agrees=abs(movement - expected) < 2,
                soft=True,
                basis="1370 на отчётную дату − 1370 на конец предыдущего года = 2400",
                documents=(
                    (now.source.document_id, "balance"),
                    (before.source.document_id, "balance_previous"),
                    (profit.source.document_id, "income"),
                ),
            )
        )
    return found


def _closing(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[Decimal, Decimal]]:
    """(closing debit, closing credit) of each two-digit account; an account printed only by
    its subaccounts is their sum at the shallowest level."""
    top: dict[str, tuple[Decimal, Decimal]] = {}
    parts: dict[str, dict[int, list[tuple[Decimal, Decimal]]]] = {}
    for row in rows:
        account = row.get("account")
        if not isinstance(account, str) or row.get("kind") == "total":
            continue
        sums = (
            parse_money(row.get("closing_debit")) or Decimal(0),
            parse_money(row.get("closing_credit")) or Decimal(0),
        )
        if _ACCOUNT.match(account):
            top.setdefault(account, sums)
        elif _ACCOUNT.match(account[:2]) and account[2:3] == ".":
            level = row.get("level")
            level = level if isinstance(level, int) else 0
            parts.setdefault(account[:2], {}).setdefault(level, []).append(sums)
    for account, levels in parts.items():
        if account not in top:
            shallow = levels[min(levels)]
            top[account] = (
                sum((d for d, _ in shallow), Decimal(0)),
                sum((k for _, k in shallow), Decimal(0)),
            )
    return top


def _side(
    balances: Mapping[str, tuple[Decimal, Decimal]], pairs: Sequence[tuple[str, str]]
) -> Decimal:
    total = Decimal(0)
    for account, side in pairs:
        debit, credit = balances.get(account, (Decimal(0), Decimal(0)))
        total += debit if side == "D" else credit
    return total


def osv_findings(
    osv_id: str, osv: Mapping[str, Any], figures: Iterable[Figure]
) -> list[CrossFinding]:
    """The balance lines an ОСВ implies at its period end, against the balance figures of
    that date (a line is compared when the balance prints it and the ОСВ has one of its
    accounts)."""
    header = osv.get("header") or {}
    end = header.get("period_end")
    try:
        date = dt.date.fromisoformat(end) if isinstance(end, str) else None
    except ValueError:
        date = None
    units = header.get("units") or "руб."
    if date is None or units not in UNIT_SCALE:
        return []
    balances = _closing(osv.get("rows") or ())
    chosen = _pick(f for f in figures if f.period_date == date)
    found: list[CrossFinding] = []
    for rule in OSV_RULES:
        figure = chosen.get((rule.line_code, date))
        accounts = {a for a, _ in (*rule.plus, *rule.minus)}
        if figure is None or not accounts & balances.keys():
            continue
        implied = (_side(balances, rule.plus) - _side(balances, rule.minus)) * UNIT_SCALE[units]
        coarse = max(figure.scale, UNIT_SCALE[units])
        shown = figure.units if figure.scale >= UNIT_SCALE[units] else units
        scale = UNIT_SCALE[shown]
        found.append(
            CrossFinding(
                rule="osv-balance",
                line_code=rule.line_code,
                period_date=date,
                expected=implied / scale,
                actual=figure.rubles / scale,
                units=shown,
                agrees=abs(figure.rubles - implied) < coarse,
                soft=rule.soft,
                basis=rule.basis,
                documents=((figure.source.document_id, "balance"), (osv_id, "osv")),
            )
        )
    return found
