"""Issue 26 class 8: units printed inside the «Коды» block are read, wherever the header block
prints them — «в тыс. рублей по ОКЕИ 384» in one cell of the codes column, with or without an
«Единица измерения» label, or the units beside a bare code."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import pytest

from services.tabular_parser.recognizer import recognize_bytes
from tests.builders import CellInput, SheetSpec, write_xls, write_xlsx

from ._forms import onec_balance

Writer = Callable[[Sequence[SheetSpec]], bytes]

UNITS_ROWS: dict[str, list[CellInput]] = {
    "one-cell": ["Единица измерения:", None, None, None, "в тыс. рублей по ОКЕИ 384"],
    "no-label": [None, None, None, None, "в тыс. рублей по ОКЕИ 384"],
    "label-and-code": ["Единица измерения:", None, None, None, "в тыс. рублей по ОКЕИ", "384"],
    "millions": [None, None, None, None, "в млн. рублей по ОКЕИ 385"],
}


def _balance_with_units(row: list[CellInput]) -> SheetSpec:
    """The 1C balance of the statement fixtures, its units row replaced by ``row``."""
    spec = onec_balance()
    rows = [list(r) for r in spec.rows]
    at = next(
        i for i, r in enumerate(rows) if r and isinstance(r[0], str) and r[0].startswith("Единица")
    )
    rows[at] = row + [None] * (len(rows[at]) - len(row))
    return replace(spec, rows=rows)


@pytest.mark.parametrize("write", [write_xls, write_xlsx], ids=["xls", "xlsx"])
@pytest.mark.parametrize("layout", list(UNITS_ROWS))
def test_units_printed_in_the_codes_column_are_read(write: Writer, layout: str) -> None:
    [document] = recognize_bytes(write([_balance_with_units(UNITS_ROWS[layout])])).documents
    header = document["header"]
    millions = layout == "millions"
    assert header["units"] == ("млн. руб." if millions else "тыс. руб.")
    assert header["units_text"] == ("в млн. рублей" if millions else "в тыс. рублей")
    assert header["okei"] == ("385" if millions else "384")
    assert header["needs_review_fields"] == []
    assert document["status"] == "done"
