"""The analyst's words: amounts with thin-space thousands and a decimal comma, Russian form
variants, dates as people write them."""

from __future__ import annotations

import datetime as dt

from services.arm_core.documents.words import document_name, money, ru_date


def test_amounts_read_as_a_russian_analyst_writes_them() -> None:
    assert money("-1234567.50") == "−1\u202f234\u202f567,50"
    assert money("1000") == "1\u202f000"
    assert money("0.5") == "0,5"
    assert money(None) == "" and money("") == ""
    assert money("н/д") == "н/д"


def test_form_variants_and_dates_are_russian() -> None:
    assert document_name("BALANCE", "full") == "Баланс (полная)"
    assert document_name("INCOME", "simplified") == "ОФР (упрощённая)"
    assert document_name("DISCLOSURE", None) == "Пояснения"
    assert ru_date("2024-12-31") == "31.12.2024"
    assert ru_date(dt.date(2025, 3, 1)) == "01.03.2025"
    assert ru_date("31 декабря") == "31 декабря" and ru_date(None) == ""
