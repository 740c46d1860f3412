"""The same figure across documents: units normalised, rounding to the coarser unit tolerated."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from services.arm_statements.agreement import Figure, Source, disagreements, figures_of

A = Source("a")
B = Source("b")
C = Source("c")
DEC_2023 = dt.date(2023, 12, 31)


def _statement(
    units: str | None,
    lines: dict[str, list[str | None]],
    *,
    dates: tuple[str | None, ...] = ("2024-12-31", "2023-12-31"),
    kinds: tuple[str, ...] = ("absolute", "absolute"),
    report_date: str | None = "2024-12-31",
    doubted: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    return {
        "header": {"units": units, "report_date": report_date},
        "columns": [
            {"column_index": i, "period_date": d, "period_kind": k}
            for i, (d, k) in enumerate(zip(dates, kinds, strict=True))
        ],
        "lines": [
            {
                "line_code": code,
                "needs_review": False,
                "values": [
                    {"column_index": i, "amount": a, "needs_review": code in doubted}
                    for i, a in enumerate(amounts)
                ],
            }
            for code, amounts in lines.items()
        ],
    }


def test_previous_year_column_against_last_years_current_column() -> None:
    """Year N's prior-year 1600 differs from year N−1's current 1600: one disagreement, with
    both documents, their amounts and the difference in the documents' units."""
    this_year = _statement("тыс. руб.", {"1600": ["5000", "4100"], "1300": ["900", "800"]})
    last_year = _statement(
        "тыс. руб.",
        {"1600": ["4000", "3500"], "1300": ["800", "700"]},
        dates=("2023-12-31", "2022-12-31"),
        report_date="2023-12-31",
    )
    found = disagreements([*figures_of(A, this_year), *figures_of(B, last_year)])
    assert [(d.line_code, d.period_date) for d in found] == [("1600", DEC_2023)]
    shape = found[0].as_json()
    assert shape["difference"] == "100"
    assert shape["units"] == "тыс. руб."
    assert {d["document_id"]: d["amount"] for d in shape["documents"]} == {"a": "4100", "b": "4000"}


def test_rubles_against_thousands_agree_within_one_thousand() -> None:
    """1 234 567 руб. printed as 1 235 тыс. (rounded) or 1 234 (truncated) agrees; 1 236 not."""
    rubles = figures_of(A, _statement("руб.", {"1250": ["1234567", None]}))
    for printed, agrees in (("1235", True), ("1234", True), ("1236", False), ("1233", False)):
        thousands = figures_of(B, _statement("тыс. руб.", {"1250": [printed, None]}))
        assert (disagreements([*rubles, *thousands]) == []) is agrees, printed


def test_millions_against_thousands_use_the_coarser_unit() -> None:
    millions = figures_of(A, _statement("млн. руб.", {"1600": ["12", None]}))
    close = figures_of(B, _statement("тыс. руб.", {"1600": ["12400", None]}))
    far = figures_of(C, _statement("тыс. руб.", {"1600": ["13100", None]}))
    assert disagreements([*millions, *close]) == []
    (found,) = disagreements([*millions, *far])
    assert found.units == "млн. руб."
    assert found.as_json()["difference"] == "1.10"


def test_unknown_units_give_no_figures() -> None:
    """Comparing a document of unknown scale would guess: it is left out, not compared."""
    assert figures_of(A, _statement(None, {"1600": ["5000", "4000"]})) == []


def test_relative_columns_are_dated_from_the_report_date() -> None:
    document = _statement(
        "тыс. руб.",
        {"1600": ["5000", "4000"]},
        dates=(None, None),
        kinds=("relative:current", "relative:prev_year_end"),
        report_date="2024-12-31",
    )
    assert [f.period_date for f in figures_of(A, document)] == [dt.date(2024, 12, 31), DEC_2023]


def test_doubted_values_are_compared_and_say_so() -> None:
    first = figures_of(
        A, _statement("тыс. руб.", {"2110": ["700", "600"]}, doubted=frozenset({"2110"}))
    )
    second = figures_of(
        B, _statement("тыс. руб.", {"2110": ["650", None]}, dates=("2023-12-31", None))
    )
    (found,) = disagreements([*first, *second])
    assert {d["document_id"]: d["needs_review"] for d in found.as_json()["documents"]} == {
        "a": True,
        "b": False,
    }


def test_one_document_alone_never_disagrees_with_itself() -> None:
    """Two columns of one date in one document are not two sources."""
    document = _statement("руб.", {"1600": ["10", "20"]}, dates=("2024-12-31", "2024-12-31"))
    assert disagreements(figures_of(A, document)) == []


def test_per_share_lines_are_rubles_whatever_the_units() -> None:
    thousands = figures_of(A, _statement("тыс. руб.", {"2900": ["0.01", None]}))
    rubles = figures_of(B, _statement("руб.", {"2900": ["0.01", None]}))
    assert disagreements([*thousands, *rubles]) == []
    assert thousands[0].rubles == Decimal("0.01")


def test_three_sources_one_disagreement_listing_all() -> None:
    figures = [
        Figure(Source(name), "1600", DEC_2023, Decimal(amount), "тыс. руб.")
        for name, amount in (("a", "100"), ("b", "100"), ("c", "120"))
    ]
    (found,) = disagreements(figures)
    assert [f.source.document_id for f in found.figures] == ["a", "b", "c"]
    assert found.difference == Decimal(20)
