"""Relations checked on hand-made forms: readings, tolerance, missing lines, contract shape."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from services.arm_statements import (
    Checks,
    InvalidToleranceError,
    LineValues,
    Relation,
    check_lines,
    relations_for,
)

from ._forms import FULL_BALANCE, FULL_INCOME, SIMPLIFIED_BALANCE, SIMPLIFIED_INCOME, one_column

_MONEY = re.compile(r"^-?\d+(\.\d{1,2})?$")
_FORMS = {
    ("BALANCE", "full"): FULL_BALANCE,
    ("INCOME", "full"): FULL_INCOME,
    ("BALANCE", "simplified"): SIMPLIFIED_BALANCE,
    ("INCOME", "simplified"): SIMPLIFIED_INCOME,
}
_CASES = [
    (document_type, variant, relation)
    for (document_type, variant) in _FORMS
    for relation in relations_for(document_type, variant)  # type: ignore[arg-type]
]


def _failed(checks: Checks) -> set[str]:
    return {f.relation for f in (*checks.relations_failed, *checks.soft_relations_failed)}


@pytest.mark.parametrize(("document_type", "variant"), list(_FORMS))
def test_correct_hand_made_forms_pass(document_type: str, variant: str) -> None:
    """A consistent form fails no relation, hard or soft."""
    checks = check_lines(document_type, variant, one_column(_FORMS[(document_type, variant)]))  # type: ignore[arg-type]
    assert checks == Checks()
    assert checks.to_dict() == {"relations_failed": [], "soft_relations_failed": []}


@pytest.mark.parametrize(
    ("document_type", "variant", "relation"), _CASES, ids=[f"{c[1]}:{c[2].name}" for c in _CASES]
)
def test_each_relation_fails_when_its_target_is_off(
    document_type: str, variant: str, relation: Relation
) -> None:
    """Moving the target 100 away from zero fails that relation, in the list of its kind,
    reported in the contract's shape."""
    amounts = dict(_FORMS[(document_type, variant)])
    printed = int(amounts[relation.target])
    amounts[relation.target] = printed + 100 if printed >= 0 else printed - 100
    checks = check_lines(document_type, variant, one_column(amounts, column=4))  # type: ignore[arg-type]
    listed = checks.relations_failed if relation.kind == "hard" else checks.soft_relations_failed
    (item,) = [f for f in listed if f.relation == relation.name]
    assert item.column_index == 4
    assert item.codes == relation.codes
    assert item.actual == str(amounts[relation.target])
    assert item.expected == str(printed)
    as_dict = item.to_dict()
    assert set(as_dict) == {"column_index", "relation", "codes", "expected", "actual"}
    assert _MONEY.match(str(as_dict["expected"])) and _MONEY.match(str(as_dict["actual"]))


@pytest.mark.parametrize("code", ["2120", "2210", "2220", "2330", "2350", "1320"])
def test_bracketed_lines_check_the_same_with_or_without_minus(code: str) -> None:
    """Expense and contra lines typed as a plain number read like the bracketed ones."""
    for form in (FULL_BALANCE, FULL_INCOME):
        if code in form:
            amounts = dict(form)
            amounts[code] = abs(int(amounts[code]))
            document_type = "BALANCE" if code.startswith("1") else "INCOME"
            assert check_lines(document_type, "full", one_column(amounts)) == Checks()


@pytest.mark.parametrize("printed", ["-42059", "42059"])
def test_full_income_accepts_both_signs_of_2410(printed: str) -> None:
    """2410 signed as in ГИР БО (−42059) and positive-and-subtracted (42059) both pass."""
    amounts = dict(FULL_INCOME) | {"2410": printed, "2411": "46647"}
    assert check_lines("INCOME", "full", one_column(amounts)) == Checks()


@pytest.mark.parametrize("printed", ["200", "-200"])
def test_simplified_income_accepts_both_signs_of_2410(printed: str) -> None:
    """Simplified 2410 positive and subtracted, or signed, both pass."""
    amounts = dict(SIMPLIFIED_INCOME) | {"2410": printed}
    assert check_lines("INCOME", "simplified", one_column(amounts)) == Checks()


def test_tax_income_is_added_under_the_signed_reading() -> None:
    """A positive 2410 that is tax income (deferred tax asset) adds to 2300."""
    amounts = dict(FULL_INCOME) | {
        "2410": 500,
        "2411": 0,
        "2412": 500,
        "2400": 160794,
        "2500": 160794,
    }
    assert check_lines("INCOME", "full", one_column(amounts)) == Checks()


def test_wrong_2410_reports_the_closest_reading() -> None:
    """When neither reading holds, expected is the one closer to what is printed."""
    amounts = dict(FULL_INCOME) | {"2400": 118135}
    checks = check_lines("INCOME", "full", one_column(amounts))
    items = {f.relation: f for f in checks.relations_failed}
    assert items["2400=2300+2410+2420+2430+2450+2460"].expected == "118235"


@pytest.mark.parametrize(
    ("passive", "holds"),
    [(1004, True), (996, True), (1005, False), (995, False), (1000, True)],
)
def test_default_tolerance_is_four_units(passive: int, holds: bool) -> None:
    """±4 in the document's units passes; ±5 fails."""
    checks = check_lines("BALANCE", None, one_column({"1600": 1000, "1700": passive}))
    assert checks.hard_ok is holds


def test_tolerance_is_configurable_and_not_rescaled() -> None:
    """A zero tolerance catches one unit; amounts are compared as given, with decimals."""
    values = one_column({"1600": "1000", "1700": "1000.01"})
    assert not check_lines("BALANCE", None, values, tolerance=Decimal(0)).hard_ok
    assert check_lines("BALANCE", None, values, tolerance=Decimal("0.01")).hard_ok
    failure = check_lines("BALANCE", None, values, tolerance=Decimal(0)).relations_failed[0]
    assert (failure.expected, failure.actual) == ("1000.01", "1000")


def test_negative_tolerance_is_refused() -> None:
    """A negative tolerance is a caller error, raised as the package's own exception."""
    with pytest.raises(InvalidToleranceError) as info:
        check_lines("BALANCE", None, one_column({"1600": 1}), tolerance=Decimal(-1))
    assert info.value.tolerance == Decimal(-1)


def test_missing_target_is_not_checked() -> None:
    """Terms that disagree with nothing: without 1400 the relation is not checked."""
    values = one_column({"1410": 10, "1420": 20})
    assert check_lines("BALANCE", "full", values) == Checks()


def test_all_terms_missing_is_not_checked() -> None:
    """A target alone is not a failure."""
    assert check_lines("BALANCE", "full", one_column({"1400": 500})) == Checks()
    assert check_lines("BALANCE", "full", {"1400": {3: Decimal(5)}, "1410": {3: None}}) == Checks()


def test_missing_terms_count_as_zero_when_the_target_is_present() -> None:
    """With 1400 present, absent components are 0: 1410 alone must equal 1400."""
    assert check_lines("BALANCE", "full", one_column({"1400": 500, "1410": 500})) == Checks()
    checks = check_lines("BALANCE", "full", one_column({"1400": 500, "1410": 400}))
    (item,) = checks.relations_failed
    assert (item.relation, item.expected, item.actual) == ("1400=1410+1420+1430+1450", "400", "500")


def test_columns_are_checked_independently() -> None:
    """Each column is its own check; a null amount makes that column's line missing."""
    values: LineValues = {
        "1600": {3: Decimal(100), 4: Decimal(200), 5: None},
        "1700": {3: Decimal(100), 4: Decimal(250), 5: Decimal(1)},
    }
    checks = check_lines("BALANCE", "simplified", values)
    assert [(f.column_index, f.relation) for f in checks.relations_failed] == [(4, "1600=1700")]


def test_org_added_and_unknown_codes_do_not_take_part() -> None:
    """11501 breaks down 1150 and is not summed again; unknown codes are ignored."""
    amounts = dict(FULL_BALANCE) | {"11501": 999, "1999": 5, "190": 7}
    assert check_lines("BALANCE", "full", one_column(amounts)) == Checks()


def test_nko_section_three_adds_target_capital() -> None:
    """In the NKO variant 1320 «Целевой капитал» is added, not subtracted: both pass."""
    values = one_column({"1310": 100, "1320": 50, "1350": 10, "1300": 160})
    assert check_lines("BALANCE", "full", values) == Checks()


def test_nko_simplified_balance_uses_1350_and_1360() -> None:
    """The simplified NKO balance (1350 + 1360 instead of 1300) is checked by the same relation."""
    amounts = {k: v for k, v in SIMPLIFIED_BALANCE.items() if k != "1300"}
    amounts |= {"1350": 300, "1360": 100}
    assert check_lines("BALANCE", "simplified", one_column(amounts)) == Checks()
    amounts["1360"] = 90
    assert _failed(check_lines("BALANCE", "simplified", one_column(amounts))) == {
        "1700=1300+1350+1360+1410+1450+1510+1520+1550"
    }


def test_unknown_variant_checks_only_common_relations() -> None:
    """Without a variant only 1600 = 1700 (common to both forms) is checked."""
    amounts = dict(FULL_BALANCE) | {"1100": 1}
    assert check_lines("BALANCE", None, one_column(amounts)) == Checks()
    assert check_lines("INCOME", None, one_column({"2400": 1, "2110": 5})) == Checks()
    assert check_lines("DISCLOSURE", "full", one_column({"1600": 1, "1700": 2})) == Checks()


# ПАО «КАМАЗ» ОФР 2025 (both years): «Прочие поступления» 2115 printed between 2110 and 2120.
_KAMAZ_GROSS: list[dict[str, int | str]] = [
    {"2110": 315209726, "2115": 864854, "2120": -315317485, "2100": 757095},
    {"2110": 323383185, "2115": 117750, "2120": -299343014, "2100": 24157921},
]


@pytest.mark.parametrize("amounts", _KAMAZ_GROSS, ids=["2025", "2024"])
def test_a_printed_2115_is_a_term_of_gross_profit(amounts: dict[str, int | str]) -> None:
    """2100 = 2110 + 2115 − 2120 holds where the form prints 2115, in complete forms and in
    forms whose lines were matched (``complete=False``) alike."""
    for complete in (True, False):
        assert check_lines("INCOME", "full", one_column(amounts), complete=complete) == Checks()


def test_a_wrong_2100_still_fails_with_2115_printed() -> None:
    """2115 does not make the relation loose: a 2100 off by 1 000 fails, naming 2115."""
    amounts = dict(_KAMAZ_GROSS[0]) | {"2100": 758095}
    (item,) = check_lines("INCOME", "full", one_column(amounts)).relations_failed
    assert (item.relation, item.expected, item.actual) == (
        "2100=2110+2115-2120",
        "757095",
        "758095",
    )
    assert "2115" in item.codes


def test_2115_is_never_required() -> None:
    """A form without 2115 checks 2100 = 2110 − 2120 as before, even when its lines were
    matched by name (an absent optional line is no unmapped line)."""
    amounts: dict[str, int | str] = {"2110": 1469293, "2120": -45957, "2100": 1423336}
    for complete in (True, False):
        assert check_lines("INCOME", "full", one_column(amounts), complete=complete) == Checks()
        wrong = one_column(amounts | {"2100": 1423436})
        failed = check_lines("INCOME", "full", wrong, complete=complete).relations_failed
        assert [f.relation for f in failed] == ["2100=2110+2115-2120"]
