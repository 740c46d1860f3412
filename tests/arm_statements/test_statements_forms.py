"""arm_statements.forms: one rule for which form a title, an ОКУД, codes or names show."""

from __future__ import annotations

import pytest

from services.arm_statements import FormEvidence, form_kind, title_kind


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("Бухгалтерский баланс на 31 декабря 2024 г.", "BALANCE"),
        ("Упрощенная бухгалтерская (финансовая) отчётность", None),
        ("Отчет о финансовых результатах за 2024 г.", "INCOME"),
        ("ОТЧЁТ О ПРИБЫЛЯХ И УБЫТКАХ за 2010 год", "INCOME"),
        ("Пояснения к бухгалтерскому балансу", "DISCLOSURE"),
        ("Отчет о движении денежных средств", "DISCLOSURE"),
        ("«Бухгалтерский баланс»", "BALANCE"),
        ("БАЛАНС", None),
        ("Пояснения к строкам", None),
        ("Итого по разделу III", None),
    ],
)
def test_title_names_its_form(title: str, kind: str | None) -> None:
    """Titles of both recognisers name the same form; bare «Баланс» (the total line) is none."""
    assert title_kind(title) == kind


def test_own_title_beats_codes_and_codes_beat_a_nearby_title() -> None:
    """A title on the form decides over its codes; the codes decide over a title printed near
    it (another table's, on the same scanned page)."""
    income_codes = ("2110", "2120", "2100")
    assert form_kind(FormEvidence(titles=("Бухгалтерский баланс",), codes=income_codes)) == (
        "BALANCE"
    )
    assert form_kind(FormEvidence(codes=income_codes, nearby=("Бухгалтерский баланс",))) == (
        "INCOME"
    )


def test_okud_decides_without_a_title() -> None:
    """ОКУД 0710002 is the ОФР even when no title is printed."""
    assert form_kind(FormEvidence(okud="0710002", codes=("1600", "1700", "1100"))) == "INCOME"


def test_few_codes_decide_only_from_a_code_column_or_with_a_hint() -> None:
    """Two balance codes anywhere on a sheet are no balance; from a «Код» column, or on a sheet
    whose name says «Баланс», they are."""
    codes = ("1300", "1700")
    assert form_kind(FormEvidence(codes=codes)) is None
    assert form_kind(FormEvidence(codes=codes, code_column=True)) == "BALANCE"
    assert form_kind(FormEvidence(codes=codes, hint="BALANCE")) == "BALANCE"


def test_amounts_that_are_no_catalogue_codes_count_for_nothing() -> None:
    """Four-digit numbers outside the catalogue (9999, 3100) never vote."""
    assert form_kind(FormEvidence(codes=("9999", "3100", "8000", "1600"))) is None


def test_names_decide_last_with_two_catalogue_names() -> None:
    """Without titles, ОКУД or codes, two ОФР line names make an INCOME; one does not."""
    names = ("Выручка", "Себестоимость продаж", None)
    assert form_kind(FormEvidence(names=names)) == "INCOME"
    assert form_kind(FormEvidence(names=("Выручка",))) is None


def test_non_credit_financial_forms_are_balance_and_income_by_okud() -> None:
    """ОКУД 0420002 / 0420003 are a balance and an ОФР."""
    assert form_kind(FormEvidence(okud="0420002")) == "BALANCE"
    assert form_kind(FormEvidence(okud="0420003")) == "INCOME"


def test_evidence_is_described_in_words() -> None:
    """A title, an ОКУД, codes of each form and a table's value columns are all named."""
    evidence = FormEvidence(
        titles=("Бухгалтерский баланс",), okud="0710001", codes=("1600", "1700"), value_columns=3
    )
    assert evidence.describe() == (
        "заголовок «Бухгалтерский баланс»; ОКУД 0710001; кодов строк баланса 2, отчёта о "
        "финансовых результатах 0; таблица из 3 колонок значений с кодами строк"
    )
    assert FormEvidence().describe() == "ни заголовка формы, ни ОКУД, ни кодов строк"
