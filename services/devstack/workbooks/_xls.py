"""Real .xls (BIFF8) files through xlwt (merges, row outline levels, bold rows)."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Sequence
from decimal import Decimal

import xlwt

from services.devstack.workbooks._spec import SheetSpec, hidden_by_merges, merge_bounds

__all__ = ["write_xls"]


def write_xls(sheets: Sequence[SheetSpec]) -> bytes:
    """One BIFF8 workbook with a worksheet per spec, in order."""
    book = xlwt.Workbook(encoding="utf-8")
    plain = xlwt.XFStyle()
    bold = xlwt.easyxf("font: bold on")
    date = xlwt.easyxf(num_format_str="YYYY-MM-DD")
    for spec in sheets:
        sheet = book.add_sheet(spec.name, cell_overwrite_ok=True)
        covered = hidden_by_merges(spec)
        for row_index, level in spec.outline_levels.items():
            sheet.row(row_index).level = level
        for row_index, row in enumerate(spec.rows):
            style = bold if row_index in spec.bold_rows else plain
            for col_index, value in enumerate(row):
                if value is None or (row_index, col_index) in covered:
                    continue
                if isinstance(value, dt.date):
                    sheet.write(row_index, col_index, value, date)
                else:
                    sheet.write(
                        row_index,
                        col_index,
                        float(value) if isinstance(value, Decimal) else value,
                        style,
                    )
        for merge in spec.merged:
            top, left, bottom, right = merge_bounds(merge)
            sheet.merge(top, bottom, left, right)
        if spec.hidden:
            sheet.visibility = 1
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
