"""Every period form 1C prints in an ОСВ title parses to its first and last day."""

from __future__ import annotations

import datetime as dt

import pytest

from services.tabular_parser.osv import parse_period

D = dt.date


@pytest.mark.parametrize(
    ("text", "start", "end", "from_year_start"),
    [
        ("Июль 2019 г.", D(2019, 7, 1), D(2019, 7, 31), False),
        ("за Февраль 2024 г.", D(2024, 2, 1), D(2024, 2, 29), False),
        ("Октябрь 2024 г. - Сентябрь 2025 г.", D(2024, 10, 1), D(2025, 9, 30), False),
        ("Октябрь 2024 г. – Сентябрь 2025 г.", D(2024, 10, 1), D(2025, 9, 30), False),
        ("Октябрь 2024 г. — Сентябрь 2025 г.", D(2024, 10, 1), D(2025, 9, 30), False),
        ("Январь - Сентябрь 2025 г.", D(2025, 1, 1), D(2025, 9, 30), True),
        ("2024 г.", D(2024, 1, 1), D(2024, 12, 31), True),
        ("2024 год", D(2024, 1, 1), D(2024, 12, 31), True),
        ("1 квартал 2025 г.", D(2025, 1, 1), D(2025, 3, 31), True),
        ("2 квартал 2025 года", D(2025, 4, 1), D(2025, 6, 30), False),
        ("IV квартал 2025 г.", D(2025, 10, 1), D(2025, 12, 31), False),
        ("3-й квартал 2025 г.", D(2025, 7, 1), D(2025, 9, 30), False),
        ("1 полугодие 2025 г.", D(2025, 1, 1), D(2025, 6, 30), True),
        ("2 полугодие 2025 г.", D(2025, 7, 1), D(2025, 12, 31), False),
        ("9 месяцев 2025 г.", D(2025, 1, 1), D(2025, 9, 30), True),
        ("01.01.2025 - 31.03.2025", D(2025, 1, 1), D(2025, 3, 31), True),
        ("01.04.2025-30.06.2025", D(2025, 4, 1), D(2025, 6, 30), False),
        ("с 01.02.2025 по 28.02.2025", D(2025, 2, 1), D(2025, 2, 28), False),
        ("1 января 2025 г. - 31 марта 2025 г.", D(2025, 1, 1), D(2025, 3, 31), True),
        ("ИЮЛЬ 2019 Г.", D(2019, 7, 1), D(2019, 7, 31), False),
        ("май 2023 г.", D(2023, 5, 1), D(2023, 5, 31), False),
        ("Период: Март 2025 г.", D(2025, 3, 1), D(2025, 3, 31), False),
    ],
)
def test_period_forms_give_first_and_last_day(
    text: str, start: dt.date, end: dt.date, from_year_start: bool
) -> None:
    """Each printed form maps to the span it names, ranges from the left start to the right end."""
    period = parse_period(text)
    assert period is not None
    assert (period.start, period.end, period.is_from_year_start) == (start, end, from_year_start)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Оборотно-сальдовая ведомость",
        "5 квартал 2025 г.",
        "31.02.2025",
        "Сентябрь 2025 - Январь 2025",
    ],
)
def test_text_without_a_valid_period_gives_none(text: str) -> None:
    """No period, an impossible quarter or date, or a range running backwards: None."""
    assert parse_period(text) is None
