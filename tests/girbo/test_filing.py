"""A ГИР БО filing read as the printed forms' figures: dates per column, thousands, and the
printed form's signs whatever sign the filer typed."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from services.arm_statements.agreement import Figure
from services.girbo import GIRBO, UNITS, filing, filing_figures, official_figures

INN = "7707083893"


def _by_key(figures: list[Figure]) -> dict[tuple[str, str], Decimal]:
    return {(f.line_code, f.period_date.isoformat()): f.amount for f in figures}


def test_columns_are_dated_by_the_filing_year_and_amounts_are_thousands() -> None:
    figures = filing_figures(
        INN, filing(INN, 2024, balance={"1600": (100, 90, 80)}, income={"2110": (50, 40)})
    )
    assert _by_key(figures) == {
        ("1600", "2024-12-31"): 100,
        ("1600", "2023-12-31"): 90,
        ("1600", "2022-12-31"): 80,
        ("2110", "2024-12-31"): 50,
        ("2110", "2023-12-31"): 40,
    }
    assert {(f.units, f.source.kind, f.source.document_id) for f in figures} == {
        (UNITS, GIRBO, f"girbo:{INN}:2024")
    }


def test_bracketed_lines_are_negative_whether_stored_positive_or_with_a_minus() -> None:
    """2120 stored 30 (most filers) and 2210 stored −5 (3–4 % type the minus): both are
    deductions, printed in brackets; 2110 and a signed 2412 keep their sign."""
    figures = filing_figures(
        INN,
        filing(
            INN,
            2024,
            income={"2110": (50,), "2120": (30,), "2210": (-5,), "2411": (7,), "2412": (2,)},
            balance={"1320": (4, None, None)},
        ),
    )
    assert _by_key(figures) == {
        ("2110", "2024-12-31"): 50,
        ("2120", "2024-12-31"): -30,
        ("2210", "2024-12-31"): -5,
        ("2411", "2024-12-31"): -7,
        ("2412", "2024-12-31"): 2,
        ("1320", "2024-12-31"): -4,
    }


def test_income_tax_is_signed_in_the_full_form_and_a_deduction_in_the_simplified() -> None:
    full = filing(INN, 2024, income={"2410": (-3, 2)})
    simplified = filing(INN, 2024, income={"2410": (3, 2)}, knd="0710096")
    assert _by_key(filing_figures(INN, full)) == {
        ("2410", "2024-12-31"): -3,
        ("2410", "2023-12-31"): 2,
    }
    assert _by_key(filing_figures(INN, simplified)) == {
        ("2410", "2024-12-31"): -3,
        ("2410", "2023-12-31"): -2,
    }


def test_an_nko_section_iii_under_13x01_is_read_as_its_line_with_its_sign() -> None:
    nko = filing(INN, 2024, balance={"13201": (12, None, None), "1600": (12, None, None)})
    both = filing(INN, 2024, balance={"13201": (12, None, None), "1320": (3, None, None)})
    assert _by_key(filing_figures(INN, nko))[("1320", "2024-12-31")] == 12
    assert _by_key(filing_figures(INN, both))[("1320", "2024-12-31")] == -3


def test_the_dates_own_filing_wins_over_a_later_filings_previous_column() -> None:
    """2023's filing says 1600 = 91 at 31.12.2023, 2024's previous column says 90 (restated):
        statements of 2023 are held against 91, 31.12.2022 against 2023's previous column (not
    2024's before-previous one); 2021's filing is not asked for."""
    filings = [
        filing(INN, 2024, balance={"1600": (100, 90, 80)}),
        filing(INN, 2023, balance={"1600": (91, 81, None)}),
        filing(INN, 2021, balance={"1600": (1, 1, 1)}),
    ]
    figures, used = official_figures(INN, filings, [2023])
    assert {
        (f.period_date, f.source.document_id): f.amount for f in figures if f.line_code == "1600"
    } == {
        (dt.date(2024, 12, 31), f"girbo:{INN}:2024"): 100,
        (dt.date(2023, 12, 31), f"girbo:{INN}:2023"): 91,
        (dt.date(2022, 12, 31), f"girbo:{INN}:2023"): 81,
    }
    assert used == [f"girbo:{INN}:2023", f"girbo:{INN}:2024"]


def test_a_filing_without_forms_or_year_gives_no_figures() -> None:
    empty = filing(INN, 2024)
    empty["typeCorrections"] = []
    assert filing_figures(INN, empty) == []
    assert filing_figures(INN, {**filing(INN, 2024, balance={"1600": (1,)}), "period": "?"}) == []


def test_forms_kept_on_the_filing_itself_are_read_too() -> None:
    nested = filing(INN, 2024, balance={"1600": (100, 90, 80)})
    flat = {**nested, **nested["typeCorrections"][0]["correction"], "period": "2024"}
    del flat["typeCorrections"]
    assert _by_key(filing_figures(INN, flat)) == _by_key(filing_figures(INN, nested))


def test_the_latest_correction_is_read() -> None:
    first = filing(INN, 2024, balance={"1600": (100, 90, 80)})
    second = filing(INN, 2024, balance={"1600": (101, 90, 80)})
    second["typeCorrections"][0]["correction"]["correctionVersion"] = 1
    both = {**first, "typeCorrections": [*first["typeCorrections"], *second["typeCorrections"]]}
    assert _by_key(filing_figures(INN, both))[("1600", "2024-12-31")] == 101
