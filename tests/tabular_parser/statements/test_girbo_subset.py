"""Filings like the real ГИР БО ones, printed as 1C and ГИР БО workbooks (XLSX, XLS), come back
exactly: every amount by code and period, the header fields and the form variant.

The filings are generated here with a seeded generator (no shared data): full and simplified
balances and ОФР whose totals add up, with bracketed expenses, negative results, zeros, missing
lines, NKO five-digit codes, per-share amounts with kopecks and amounts in the billions. The
real-data run of scripts/report_girbo_recognition.py is repeated on the first filings of the
shared export when it is beside the repository.
"""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

import pytest

from services.tabular_parser.statements import StatementsResult

from ._filings import FORMATS, LAYOUTS, Filing, Layout, compare, recognize, render

Amounts = dict[str, dict[int, Decimal | None]]

_ROOT = Path(__file__).resolve().parents[3]
_EXPORT = _ROOT.parent / "shared" / "samples" / "public" / "grind-t_bo-nalog__exports_bfo.json.br"
_INNS = ("7707083893", "7728168971", "7702070139", "500100732259")
_NAMES = (
    'ООО "Северный ветер"',
    'Акционерное общество "Тепловые сети"',
    "  Публичное акционерное общество «Ромашка»",
    "Ассоциация выпускников",
)


class _Gen:
    """Random amounts for one filing; ``scale`` makes some filings run into the billions."""

    def __init__(self, rng: random.Random, columns: int) -> None:
        self.rng = rng
        self.columns = columns
        self.scale = rng.choice((1, 1, 10, 1000, 100_000))

    def amount(
        self, low: int = 0, high: int = 5000, *, blank: float = 0.15, missing: float = 0.0
    ) -> list[int | None]:
        """One line: a random amount per column, some blank or zero; ``missing``: the
        chance that the line is absent from the filing altogether."""
        if self.rng.random() < missing:
            return [None] * self.columns
        out: list[int | None] = []
        for _ in range(self.columns):
            roll = self.rng.random()
            if roll < blank:
                out.append(None)
            elif roll < blank + 0.05:
                out.append(0)
            else:
                out.append(self.rng.randint(low, high) * self.scale)
        return out


def _sum(*parts: list[int | None], signs: tuple[int, ...] = ()) -> list[int | None]:
    signs = signs or (1,) * len(parts)
    return [
        sum(s * (p[i] or 0) for s, p in zip(signs, parts, strict=True))
        for i in range(len(parts[0]))
    ]


def _amounts(lines: dict[str, list[int | None]]) -> Amounts:
    return {
        code: {i: None if v is None else Decimal(v) for i, v in enumerate(values)}
        for code, values in lines.items()
        if any(v is not None for v in values)
    }


def _full_balance(rng: random.Random, nko: bool) -> Amounts:
    g = _Gen(rng, 3)
    b = {c: g.amount(missing=0.2) for c in ("1110", "1150", "1170", "1180", "1190")}
    b["1100"] = _sum(*b.values())
    current = {c: g.amount(missing=0.3) for c in ("1210", "1220", "1230", "1240", "1250", "1260")}
    b |= current | {"1200": _sum(*current.values())}
    b["1600"] = _sum(b["1100"], b["1200"])
    if rng.random() < 0.3:  # an organisation's own line breaking down 1230
        b["12301"] = [None if v is None else v // 2 for v in b["1230"]]
    b |= {c: g.amount() for c in ("1410", "1420", "1450", "1510", "1530", "1540", "1550")}
    b["1400"] = _sum(b["1410"], b["1420"], b["1450"])
    b["1520"] = g.amount(1000, 9000, blank=0)
    b["1500"] = _sum(*(b[c] for c in ("1510", "1520", "1530", "1540", "1550")))
    capital = _sum(b["1600"], b["1400"], b["1500"], signs=(1, -1, -1))  # may be negative
    if nko:  # the NKO wording of section III: целевые средства, фонд имущества
        b["1350"] = g.amount(blank=0)
        b["1360"] = _sum(capital, b["1350"], signs=(1, -1))
        b["1300"] = capital
    else:
        b["1310"] = [10 * g.scale] * 3
        b["1320"] = g.amount(0, 5, blank=0.7)  # own shares: stored positive, printed bracketed
        b["1370"] = _sum(capital, b["1310"], b["1320"], signs=(1, -1, 1))
        b["1300"] = capital
    b["1700"] = list(b["1600"])
    return _amounts(b)


def _full_income(rng: random.Random, per_share: bool) -> Amounts:
    g = _Gen(rng, 2)
    i: dict[str, list[int | None]] = {"2110": g.amount(5000, 90000, blank=0)}
    i["2120"] = g.amount(1000, 60000, blank=0.05)  # expenses are stored positive
    i["2100"] = _sum(i["2110"], i["2120"], signs=(1, -1))
    i |= {c: g.amount(0, 9000) for c in ("2210", "2220", "2310", "2320", "2330", "2340", "2350")}
    i["2200"] = _sum(i["2100"], i["2210"], i["2220"], signs=(1, -1, -1))
    i["2300"] = _sum(
        *(i[c] for c in ("2200", "2310", "2320", "2330", "2340", "2350")),
        signs=(1, 1, 1, -1, 1, -1),
    )
    i["2411"] = g.amount(0, 3000)
    i["2412"] = [g.rng.randint(-500, 500) * g.scale for _ in range(2)]
    i["2410"] = _sum(i["2411"], i["2412"], signs=(-1, 1))  # signed: a tax expense is negative
    i["2460"] = g.amount(-300, 300, blank=0.5)
    i["2400"] = _sum(i["2300"], i["2410"], i["2460"])
    i["2500"] = list(i["2400"])
    amounts = _amounts(i)
    if per_share:
        amounts["2900"] = {k: Decimal(rng.randint(-999, 9999)) / 100 for k in range(2)}
    return amounts


def _simplified(rng: random.Random) -> tuple[Amounts, Amounts]:
    g = _Gen(rng, 3)
    b = {c: g.amount() for c in ("1150", "1170", "1210", "1230", "1250")}
    b["1600"] = _sum(*b.values())
    b |= {c: g.amount(0, 3000) for c in ("1410", "1450", "1510", "1520", "1550")}
    b["1300"] = _sum(b["1600"], *(b[c] for c in ("1410", "1450", "1510", "1520", "1550")),
                     signs=(1, -1, -1, -1, -1, -1))  # fmt: skip
    b["1700"] = list(b["1600"])
    g = _Gen(rng, 2)
    i = {"2110": g.amount(5000, 9000, blank=0), "2120": g.amount(1000, 4000, blank=0)}
    i |= {c: g.amount(0, 500) for c in ("2330", "2340", "2350", "2410")}
    i["2400"] = _sum(*(i[c] for c in ("2110", "2120", "2330", "2340", "2350", "2410")),
                     signs=(1, -1, -1, 1, -1, -1))  # fmt: skip
    return _amounts(b), _amounts(i)


def generated_filings(count: int = 14, seed: int = 20250101) -> list[Filing]:
    """``count`` consistent filings: every fourth simplified, one NKO, some with EPS lines."""
    rng = random.Random(seed)
    filings: list[Filing] = []
    for n in range(count):
        simplified = n % 4 == 3
        if simplified:
            balance, income = _simplified(rng)
        else:
            balance = _full_balance(rng, nko=n == 5)
            income = _full_income(rng, per_share=n % 3 == 0)
        filings.append(
            Filing(
                key=f"gen-{n}",
                year=rng.choice((2021, 2022, 2023, 2024, 2025)),
                simplified=simplified,
                inn=_INNS[n % len(_INNS)],
                name=_NAMES[n % len(_NAMES)],
                balance=balance,
                income=income,
                address="125009, г. Москва, ул. Тверская, д. 7" if n % 2 else None,
                okpo="12345678",
                explanations={"1150": "п.3", "2110": "п.11"} if n % 2 == 0 else {},
                nko=n == 5,
            )
        )
    return filings


_FILINGS = generated_filings()


def test_generated_filings_look_like_real_ones() -> None:
    """The generator covers what real filings hold: both variants, negative and zero amounts,
    missing lines, five-digit codes, kopecks and amounts beyond a billion."""
    values = [
        v
        for f in _FILINGS
        for amounts in (f.balance, f.income)
        for by_column in amounts.values()
        for v in by_column.values()
    ]
    assert {f.simplified for f in _FILINGS} == {True, False}
    assert any(v is not None and v < 0 for v in values)
    assert any(v == 0 for v in values)
    assert any(v is None for v in values)
    assert any(v is not None and v != v.to_integral_value() for v in values)
    assert any(v is not None and abs(v) >= 10**9 for v in values)
    assert any(len(code) == 5 for f in _FILINGS for code in f.balance)
    assert any("1240" not in f.balance for f in _FILINGS if not f.simplified)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_generated_filing_comes_back_exactly(layout: Layout, fmt: str) -> None:
    """Every printed amount (by code and period date), ИНН, name, date, units, ОКЕИ (and ОКУД
    in 1C) and the form variant are recovered; every relation of the consistent data holds."""
    checked = 0
    for filing in _FILINGS:
        result = recognize(filing, layout, fmt)
        comparison = compare(filing, layout, result)
        assert comparison.mismatches == [], filing.key
        assert result.failures == []
        assert [x for d in result.documents for x in d.get("checks", {}).get(
            "relations_failed", [])] == [], filing.key  # fmt: skip
        checked += comparison.values
    assert checked > 1000


def test_comparison_reports_a_wrong_amount_and_a_wrong_variant() -> None:
    """The measure can fail: an amount changed after recognition and a variant flipped are
    both reported, with what was expected and what was read."""
    filing = _FILINGS[0]
    result = recognize(filing, "onec", "XLSX")
    balance = next(d for d in result.documents if d["document_type"] == "BALANCE")
    line = next(x for x in balance["lines"] if x["line_code"] == "1600")
    right = line["values"][0]["amount"]
    line["values"][0]["amount"] = str(int(right) + 1)
    balance["form_variant"] = "simplified"
    mismatches = compare(filing, "onec", StatementsResult(result.documents)).mismatches
    assert [(m.what, m.where, m.reason, m.expected) for m in mismatches] == [
        ("value", "BALANCE 1600 col0", "amount differs", right),
        ("variant", "BALANCE", "differs", "full"),
    ]


def test_girbo_layout_prints_only_the_filings_lines_and_1c_every_form_line() -> None:
    """ГИР БО exports print the lines a filing has; 1C prints the whole form («-» for blanks)."""
    filing = next(f for f in _FILINGS if not f.simplified and "1240" not in f.balance)
    girbo_codes = {c for sheet in render(filing, "girbo") for row in sheet.rows for c in row[11:12]}
    onec_codes = {c for sheet in render(filing, "onec") for row in sheet.rows for c in row[2:3]}
    assert "1240" not in girbo_codes
    assert "1240" in onec_codes


@pytest.mark.shared
def test_real_girbo_filings_are_read_exactly() -> None:
    """The first 30 real filings, both layouts, XLSX: at least 99.5 % of amounts exact."""
    pytest.importorskip("brotli")
    if not _EXPORT.exists():
        pytest.skip("the shared ГИР БО export is not beside the repository")
    from scripts._girbo_data import load
    from scripts.report_girbo_recognition import to_filing

    filings = [f for raw in load(_EXPORT)[:30] if (f := to_filing(raw)) is not None]
    values = errors = 0
    for filing in filings:
        for layout in LAYOUTS:
            comparison = compare(filing, layout, recognize(filing, layout, "XLSX"))
            values += comparison.values
            errors += sum(m.what == "value" and m.expected is not None
                          for m in comparison.mismatches)  # fmt: skip
    assert len(filings) == 30
    assert values > 5_000
    assert (values - errors) / values >= 0.995
