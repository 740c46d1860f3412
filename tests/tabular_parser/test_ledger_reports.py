"""Ledger reports that are not trial balances never become documents (issue 15.2, 15.8).

Each report is built in code (tests.builders.ledger) and read through the whole workbook
entry point: no document, the file warning SHEET_OTHER saying what the sheet is and what to
export instead, and a RECOGNITION_FAILED that names, per sheet, what was found.
"""

from __future__ import annotations

import pickle

import pytest

from services.runtime.recognizer import ErrorCode, RecognitionFailed
from services.tabular_parser.recognizer import recognize_bytes
from tests.builders import SheetSpec, write_xlsx
from tests.builders.ledger import (
    account_analysis,
    account_card,
    chart_of_accounts,
    flat_turnover_table,
    postings_report,
    unreadable_balance_table,
)
from tests.tabular_parser.statements._forms import onec_balance, other_sheet


def _failure(*sheets: SheetSpec) -> RecognitionFailed:
    with pytest.raises(RecognitionFailed) as caught:
        recognize_bytes(write_xlsx(list(sheets)))
    return caught.value


@pytest.mark.parametrize(
    ("sheet", "said"),
    [
        (
            account_analysis("51"),
            "Анализ счета 51 — не оборотно-сальдовая ведомость («Анализ счета 51 за 2024 г.»); "
            "выгрузите ОСВ по счету 51",
        ),
        (account_card("60.01"), "Карточка счета 60.01 — не оборотно-сальдовая ведомость"),
        (postings_report(), "Отчет по проводкам — не оборотно-сальдовая ведомость"),
        (chart_of_accounts(), "План счетов — не оборотно-сальдовая ведомость"),
        (flat_turnover_table(), "плоская таблица сальдо и оборотов, собранная обработкой"),
        (unreadable_balance_table(), "таблица сальдо и оборотов (заголовок: «№ строки»"),
    ],
    ids=["analysis", "card", "postings", "chart", "flat", "balances-without-sides"],
)
def test_a_ledger_report_is_sheet_other_naming_what_it_is(sheet: SheetSpec, said: str) -> None:
    """No document for the report; one SHEET_OTHER (info, at the sheet) whose message says
    what the sheet is; the error carries that warning and repeats it for the sheet."""
    failed = _failure(sheet)

    assert failed.code == ErrorCode.RECOGNITION_FAILED
    assert [(w["code"], w["severity"], w["locator"]) for w in failed.warnings] == [
        ("SHEET_OTHER", "info", {"sheet": sheet.name})
    ]
    assert said in failed.warnings[0]["message"]
    assert failed.warnings[0]["message"].startswith(f"Лист «{sheet.name}»: ")
    assert f"лист «{sheet.name}»: " in failed.message
    assert said in failed.message


def test_a_report_beside_a_statement_leaves_the_statement_alone() -> None:
    """An «Анализ счета» sheet next to a balance: the balance is the one document and the
    analysis is SHEET_OTHER; its amounts 25000, 80000, 1500 make no second statement."""
    recognition = recognize_bytes(write_xlsx([onec_balance(), account_analysis("51", "Анализ")]))

    assert [d["document_type"] for d in recognition.documents] == ["BALANCE"]
    assert [(w["code"], w["locator"]) for w in recognition.warnings] == [
        ("SHEET_OTHER", {"sheet": "Анализ"})
    ]


def test_a_sheet_that_is_no_form_says_what_it_shows() -> None:
    """A reference sheet: its one SHEET_OTHER says what the sheet shows (its first title, the
    shape of its numbers) once, and what to export instead; so does the error message."""
    failed = _failure(other_sheet("Справка"), SheetSpec("Пусто", []))

    message = failed.warnings[0]["message"]
    assert "на листе: заголовок «Справка о кредиторах»" in message
    assert "таблица: столбцов с числами — 1, строк с числами — 1, без кодов строк" in message
    assert message.count("на листе:") == 1
    assert "выгрузите из 1С бухгалтерский баланс (ОКУД 0710001)" in message
    assert "лист «Справка» — Лист" not in failed.message  # the sheet is not named twice
    assert "«Справка»" in failed.message
    assert "лист «Пусто»" in failed.message and "лист пуст" in failed.message


def test_a_coded_table_is_described_with_its_value_columns_and_okud() -> None:
    """A sheet with an ОКУД and a table of codes and amounts that is no known form: the
    description names the ОКУД, the number of value columns and the code column."""
    rows: list[list[object]] = [["Отчет о чем-то особенном"], ["Форма по ОКУД 0710099"]]
    rows += [["Строка", str(5000 + i), 100 + i, 200 + i] for i in range(4)]
    failed = _failure(SheetSpec("Особый", rows))  # type: ignore[arg-type]

    assert "ОКУД 0710099" in failed.message
    assert "таблица: столбцов с числами — 2, строк с числами — 4, есть столбец кодов строк" in (
        failed.message
    )


def test_recognition_failed_crosses_a_process_boundary_with_its_warnings() -> None:
    """The worker process pickles the error: its code, message and file warnings survive."""
    warning = {"code": "SHEET_OTHER", "severity": "info", "message": "m", "locator": {"sheet": "A"}}
    failed = RecognitionFailed(ErrorCode.RECOGNITION_FAILED, "nothing", warnings=[warning])

    copy = pickle.loads(pickle.dumps(failed))

    assert (copy.code, copy.message, copy.warnings) == (failed.code, failed.message, [warning])
