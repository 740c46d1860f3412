"""Header fields as text: ИНН check digits, «Коды» digits, units and ОКЕИ."""

from __future__ import annotations

import pytest

from services.arm_statements import (
    CODE_LENGTHS,
    HEADER_FIELDS,
    code_digits,
    inn_checksum_ok,
    normalize_units,
    okei_for_units,
    units_for_okei,
)


@pytest.mark.parametrize("inn", ["7707083893", "500100732259"])
def test_inn_with_valid_control_digits_passes_and_any_changed_digit_fails(inn: str) -> None:
    """A real ИНН passes; changing its last digit or any digit covered by the checksum fails."""
    assert inn_checksum_ok(inn)
    for position in range(len(inn)):
        for digit in "0123456789":
            if digit == inn[position]:
                continue
            changed = inn[:position] + digit + inn[position + 1 :]
            assert not inn_checksum_ok(changed), changed


@pytest.mark.parametrize("inn", ["", "770708389", "77070838930", "5001007322590"])
def test_inn_of_another_length_fails(inn: str) -> None:
    """Only 10 and 12 digits can be an ИНН."""
    assert not inn_checksum_ok(inn)


@pytest.mark.parametrize(
    ("text", "length", "digits"),
    [
        ("0710001", 7, "0710001"),
        ("710001", 7, "0710001"),
        ("71 0001", 7, "710001"),
        ("384", 3, "384"),
        ("12300 / 16", None, "1230016"),
        ("ОКПО: 12345678", None, "12345678"),
        ("нет", 7, ""),
    ],
)
def test_code_digits_restore_zeros_only_of_a_bare_number(
    text: str, length: int | None, digits: str
) -> None:
    """Digits are kept; leading zeros come back only when the text is a bare, short number."""
    assert code_digits(text, length=length) == digits


@pytest.mark.parametrize(
    ("text", "units"),
    [
        ("в тыс. рублей", "тыс. руб."),
        ("тыс.\u00a0руб.", "тыс. руб."),
        ("в млн. руб.", "млн. руб."),
        ("в миллионах рублей", "млн. руб."),
        ("в рублях", "руб."),
        ("в штуках", None),
    ],
)
def test_units_are_normalised(text: str, units: str | None) -> None:
    """Each wording of thousands, millions and roubles maps to one spelling."""
    assert normalize_units(text) == units


def test_okei_and_units_map_both_ways() -> None:
    """383/384/385 ↔ руб./тыс. руб./млн. руб.; anything else maps to None."""
    for okei in ("383", "384", "385"):
        units = units_for_okei(okei)
        assert units is not None
        assert normalize_units(units) == units
        assert okei_for_units(units) == okei
    assert units_for_okei("999") is None
    assert units_for_okei(None) is None
    assert okei_for_units("в штуках") is None
    assert okei_for_units(None) is None


def test_header_fields_cover_every_code_with_a_length() -> None:
    """Every code whose length is checked is a header field of the contract."""
    assert set(CODE_LENGTHS) <= set(HEADER_FIELDS)
    assert len(set(HEADER_FIELDS)) == len(HEADER_FIELDS) == 10
