"""OCR amounts: the strict reading is clean; repaired readings keep the amount but are dirty."""

from __future__ import annotations

import pytest

from services.scan_gateway.amounts import read_amount


@pytest.mark.parametrize(
    ("text", "money", "shown"),
    [
        ("1 234,5", "1234.50", "1 234,5"),
        ("(1 234)", "-1234", "(1 234)"),
        ("-1 234", "-1234", "-1 234"),
        ("1 234 567", "1234567", "1 234 567"),
        ("960", "960", "960"),
    ],
)
def test_cleanly_printed_amounts_are_recognised(text: str, money: str, shown: str) -> None:
    """Russian-formatted amounts read as printed: clean (is_recognized), string_value = text."""
    read = read_amount(text)
    assert (read.money, read.string_value, read.clean) == (money, shown, True)


@pytest.mark.parametrize(
    ("text", "money"),
    [
        ("1 2З0", "1230"),  # Cyrillic З for 3
        ("l 234", "1234"),  # letter l for 1
        ("1O5", "105"),  # letter O for 0
        ("12 34", "1234"),  # a stray space breaks the grouping
        ("1 234 -", "1234"),  # a stray trailing dash
        ("1-234", "1234"),  # a stray inner dash
        ("(1 234", "-1234"),  # the closing bracket lost
    ],
)
def test_dirty_amounts_are_repaired_but_not_recognised(text: str, money: str) -> None:
    """OCR slips are repaired into the amount, flagged is_recognized = false."""
    read = read_amount(text)
    assert (read.money, read.clean) == (money, False)


@pytest.mark.parametrize("text", ["-", "—", "(-)", ""])
def test_dashes_and_blanks_are_clean_empties(text: str) -> None:
    read = read_amount(text)
    assert read.amount is None and read.clean


@pytest.mark.parametrize("text", ["Итого", "abc1", "ООО"])
def test_words_never_become_numbers(text: str) -> None:
    """Letters are read as digits only in a text that is mostly digits."""
    read = read_amount(text)
    assert read.amount is None and not read.clean
