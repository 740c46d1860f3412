"""Property tests: generated consistent statements pass; one changed line fails exactly the
relations that contain it."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from services.arm_statements import (
    DEFAULT_TOLERANCE,
    LineValues,
    check_lines,
    detect_form_variant,
    relations_for,
)

_AMOUNT = st.integers(min_value=0, max_value=10**10)
_SIGNED = st.integers(min_value=-(10**9), max_value=10**9)
# lines whose sign differs by source: a second reading exists (see relations.py)
_EITHER = ("2410", "1320")


@st.composite
def _full_balance(draw: st.DrawFn) -> dict[str, int]:
    a = {c: draw(_AMOUNT) for c in ("1105", "1110", "1120", "1130", "1140", "1150", "1160",
                                    "1170", "1180", "1190", "1210", "1215", "1220", "1230",
                                    "1240", "1250", "1260", "1310", "1340", "1350", "1360",
                                    "1410", "1420", "1430", "1450", "1510", "1520", "1530",
                                    "1540", "1550")}  # fmt: skip
    a["1320"] = -draw(_AMOUNT)  # own shares, printed in brackets
    a["1370"] = draw(_SIGNED)  # retained earnings or uncovered loss
    a["1100"] = sum(a[c] for c in a if c.startswith("11"))
    a["1200"] = sum(a[c] for c in a if c.startswith("12"))
    a["1300"] = a["1310"] + a["1320"] + a["1340"] + a["1350"] + a["1360"] + a["1370"]
    a["1400"] = a["1410"] + a["1420"] + a["1430"] + a["1450"]
    a["1500"] = sum(a[c] for c in ("1510", "1520", "1530", "1540", "1550"))
    a["1600"] = a["1100"] + a["1200"]
    # liabilities balance the assets through a balancing line of section V
    gap = a["1600"] - (a["1300"] + a["1400"] + a["1500"])
    a["1550"] += gap
    a["1500"] += gap
    a["1700"] = a["1300"] + a["1400"] + a["1500"]
    return a


@st.composite
def _simplified_balance(draw: st.DrawFn) -> dict[str, int]:
    a = {c: draw(_AMOUNT) for c in ("1150", "1170", "1210", "1230", "1250",
                                    "1410", "1450", "1510", "1520", "1550")}  # fmt: skip
    capital = ("1350", "1360") if draw(st.booleans()) else ("1300",)  # NKO or company
    for code in capital:
        a[code] = draw(_AMOUNT)
    a["1600"] = sum(a[c] for c in ("1150", "1170", "1210", "1230", "1250"))
    liabilities = sum(a[c] for c in ("1410", "1450", "1510", "1520", "1550", *capital))
    a["1520"] += a["1600"] - liabilities
    a["1700"] = a["1600"]
    return a


def _bracketed(draw: st.DrawFn) -> int:
    """An expense: its magnitude printed in brackets, or (the filer's habit) without them."""
    magnitude = draw(_AMOUNT)
    return -magnitude if draw(st.booleans()) else magnitude


@st.composite
def _full_income(draw: st.DrawFn) -> dict[str, int]:
    a = {"2110": draw(_AMOUNT), "2310": draw(_AMOUNT), "2320": draw(_AMOUNT),
         "2340": draw(_AMOUNT), "2420": draw(_SIGNED), "2460": draw(_SIGNED),
         "2510": draw(_SIGNED), "2520": draw(_SIGNED), "2530": draw(_SIGNED),
         "2411": -draw(_AMOUNT), "2412": draw(_SIGNED)}  # fmt: skip
    for code in ("2120", "2210", "2220", "2330", "2350"):
        a[code] = _bracketed(draw)
    a["2410"] = -abs(a["2411"]) + a["2412"]
    a["2100"] = a["2110"] - abs(a["2120"])
    a["2200"] = a["2100"] - abs(a["2210"]) - abs(a["2220"])
    a["2300"] = a["2200"] + a["2310"] + a["2320"] - abs(a["2330"]) + a["2340"] - abs(a["2350"])
    a["2400"] = a["2300"] + a["2410"] + a["2420"] + a["2460"]
    a["2500"] = a["2400"] + a["2510"] + a["2520"] + a["2530"]
    return a


@st.composite
def _simplified_income(draw: st.DrawFn) -> dict[str, int]:
    a = {"2110": draw(_AMOUNT), "2340": draw(_AMOUNT), "2410": draw(_AMOUNT)}
    for code in ("2120", "2330", "2350"):
        a[code] = _bracketed(draw)
    a["2400"] = a["2110"] - abs(a["2120"]) - abs(a["2330"]) + a["2340"] - abs(a["2350"]) - a["2410"]
    if draw(st.booleans()):  # the signed habit: tax printed negative and added
        a["2410"] = -a["2410"]
    return a


_FORMS = {
    ("BALANCE", "full"): _full_balance(),
    ("BALANCE", "simplified"): _simplified_balance(),
    ("INCOME", "full"): _full_income(),
    ("INCOME", "simplified"): _simplified_income(),
}


@st.composite
def _statement(draw: st.DrawFn) -> tuple[str, str, dict[int, dict[str, int]]]:
    document_type, variant = draw(st.sampled_from(list(_FORMS)))
    columns = draw(st.lists(st.integers(0, 20), min_size=1, max_size=3, unique=True))
    return document_type, variant, {c: draw(_FORMS[(document_type, variant)]) for c in columns}


def _values(by_column: dict[int, dict[str, int]]) -> LineValues:
    values: dict[str, dict[int, Decimal | None]] = {}
    for column, amounts in by_column.items():
        for code, amount in amounts.items():
            values.setdefault(code, {})[column] = Decimal(amount)
    return values


@settings(max_examples=200, deadline=None)
@given(_statement())
def test_consistent_statements_fail_nothing(
    statement: tuple[str, str, dict[int, dict[str, int]]],
) -> None:
    """Statements built to satisfy every relation pass with zero failures, hard or soft, and
    their codes say which variant they are."""
    document_type, variant, by_column = statement
    checks = check_lines(document_type, variant, _values(by_column))  # type: ignore[arg-type]
    assert checks.relations_failed == ()
    assert checks.soft_relations_failed == ()
    codes = next(iter(by_column.values()))
    assert detect_form_variant(document_type, list(codes)) == variant


@settings(max_examples=300, deadline=None)
@given(_statement(), st.data())
def test_one_changed_line_fails_exactly_its_relations(
    statement: tuple[str, str, dict[int, dict[str, int]]], data: st.DataObject
) -> None:
    """Moving one amount away from zero by more than the tolerance (and more than twice any
    sign-ambiguous line of the column, so no second reading can absorb it) fails exactly the
    relations containing that line, in that column, each in the list of its kind."""
    document_type, variant, by_column = statement
    column = data.draw(st.sampled_from(sorted(by_column)))
    amounts = by_column[column]
    code = data.draw(st.sampled_from(sorted(amounts)))
    ambiguity = 2 * max((abs(amounts[c]) for c in _EITHER if c in amounts), default=0)
    delta = ambiguity + data.draw(st.integers(int(DEFAULT_TOLERANCE) + 1, 10**9))
    amounts[code] += delta if amounts[code] >= 0 else -delta

    checks = check_lines(document_type, variant, _values(by_column))  # type: ignore[arg-type]

    containing = [r for r in relations_for(document_type, variant) if code in r.codes]  # type: ignore[arg-type]
    assert {(f.relation, f.column_index) for f in checks.relations_failed} == {
        (r.name, column) for r in containing if r.kind == "hard"
    }
    assert {(f.relation, f.column_index) for f in checks.soft_relations_failed} == {
        (r.name, column) for r in containing if r.kind == "soft"
    }
