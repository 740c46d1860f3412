"""Real .xlsx files through xlsxwriter (merges, outline levels, bold rows, hidden sheets)."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import xlsxwriter

from services.devstack.workbooks._spec import SheetSpec, hidden_by_merges, merge_bounds

__all__ = ["write_xlsx"]


def write_xlsx(sheets: Sequence[SheetSpec]) -> bytes:
    """One workbook with a worksheet per spec, in order."""
    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True, "strings_to_numbers": False})
    bold = book.add_format({"bold": True})
    date = book.add_format({"num_format": "yyyy-mm-dd"})
    bold_date = book.add_format({"bold": True, "num_format": "yyyy-mm-dd"})
    for spec in sheets:
        sheet = book.add_worksheet(spec.name)
        covered = hidden_by_merges(spec)
        for row_index, level in spec.outline_levels.items():
            sheet.set_row(row_index, None, None, {"level": level})
        for row_index, row in enumerate(spec.rows):
            is_bold = row_index in spec.bold_rows
            for col_index, value in enumerate(row):
                if value is None or (row_index, col_index) in covered:
                    continue
                if isinstance(value, dt.date):
                    sheet.write_datetime(
                        row_index, col_index, value, bold_date if is_bold else date
                    )
                else:
                    sheet.write(row_index, col_index, _plain(value), bold if is_bold else None)
        for merge in spec.merged:
            top, left, bottom, right = merge_bounds(merge)
            corner = (
                spec.rows[top][left]
                if top < len(spec.rows) and left < len(spec.rows[top])
                else None
            )
            sheet.merge_range(top, left, bottom, right, None)
            if corner is not None:
                sheet.write(top, left, _plain(corner), bold if top in spec.bold_rows else None)
        if spec.hidden:
            sheet.hide()
    book.close()
    return buffer.getvalue()


def _plain(value: Any) -> Any:
    return float(value) if isinstance(value, Decimal) else value
