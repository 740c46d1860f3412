"""Cell texts as the statement and ОСВ recognisers read them (``excel.text``)."""

from __future__ import annotations

import datetime as dt

import pytest

from services.excel.model import CellValue
from services.excel.text import cell_text, squash
from services.tabular_parser.osv._cells import cell_text as osv_cell_text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, ""),
        ("", ""),
        ("  Выручка\u00a0\u00a0за\u2009год\n(тыс.\u202fруб.)\t", "Выручка за год (тыс. руб.)"),
        (True, "TRUE"),
        (False, "FALSE"),
        (1234.0, "1234"),
        (-0.5, "-0.5"),
        (1150, "1150"),
        (dt.date(2024, 12, 31), "2024-12-31"),
        (dt.datetime(2024, 12, 31, 15, 30), "2024-12-31T15:30:00"),
        (dt.time(9, 5), "09:05:00"),
        (dt.timedelta(days=1, hours=2), "1 day, 2:00:00"),
    ],
)
def test_cell_text_is_what_a_person_reads(value: CellValue, text: str) -> None:
    """Spaces squashed, integral floats without ".0", dates in ISO form; both recognisers agree."""
    assert cell_text(value) == text
    assert osv_cell_text(value) == text


def test_a_midnight_datetime_reads_as_its_date_except_in_the_osv() -> None:
    """Statements read 2024-12-31 00:00 as the date; the ОСВ reader keeps the time it always had."""
    midnight = dt.datetime(2024, 12, 31)
    assert cell_text(midnight) == "2024-12-31"
    assert cell_text(midnight, keep_midnight=True) == "2024-12-31T00:00:00"
    assert osv_cell_text(midnight) == "2024-12-31T00:00:00"


def test_squash_collapses_every_kind_of_space() -> None:
    """Non-breaking, narrow and thin spaces, tabs and line breaks all become one space."""
    assert squash("\u00a0a \u202f\u2009b\r\n\tc ") == "a b c"
