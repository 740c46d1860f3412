"""The workbook the review tests upload: a 1C ОФР whose 2120 amount (current year) is printed
with a letter O for a zero, so the parser cannot read it and flags it for review.

With 2120 unread the relation 2100 = 2110 + 2120 fails in that column; typed in as printed,
(118 450), it holds again.
"""

from __future__ import annotations

from services.devstack._samples import INCOME, INCOME_LABELS, statement_sheet
from tests.builders import write_xlsx

SHEET = "Отчет о финансовых результатах"
DOUBTFUL_CODE = "2120"
DOUBTFUL_TEXT = "(118 45O)"
RIGHT_AMOUNT = "(118 450)"
RIGHT_VALUE = "-118450"


def doubtful_income_xlsx() -> bytes:
    """The ОФР as XLSX with the 2120 amount of the first period unreadable."""
    lines = [
        (code, name, (DOUBTFUL_TEXT, *amounts[1:]) if code == DOUBTFUL_CODE else amounts)
        for code, name, amounts in INCOME
    ]
    sheet = statement_sheet(
        SHEET, SHEET, "за Январь - Декабрь 2024 г.", "0710002", INCOME_LABELS, lines
    )
    return write_xlsx([sheet])
