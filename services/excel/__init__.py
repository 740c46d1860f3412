"""Excel workbooks as plain structures: signature, guards, readers.

`load_workbook(data)` is the whole pipeline for untrusted bytes — run it in the sandbox:
signature by content → guards → streaming scan → calamine values. It raises `NotAWorkbook`
(→ UNSUPPORTED_FORMAT) or `UnreadableWorkbook` (→ UNREADABLE).
"""

from __future__ import annotations

from .exceptions import ExcelError, LimitExceeded, NotAWorkbook, UnreadableWorkbook
from .guards import (
    check_dimension,
    check_extent,
    check_file_size,
    check_xml_prologs,
    check_zip_members,
    parse_cell_ref,
)
from .limits import DEFAULT_LIMITS, Limits
from .model import CellRange, CellValue, Sheet, Workbook, a1, column_letters, sheet_ref
from .reader import read_workbook
from .signature import ExcelFormat, detect_format
from .values import (
    format_amount,
    format_kopecks,
    looks_like_malformed_amount,
    money_strings,
    parse_amount,
    parse_kopecks,
    span_kopecks,
)

__all__ = [
    "DEFAULT_LIMITS",
    "CellRange",
    "CellValue",
    "ExcelError",
    "ExcelFormat",
    "LimitExceeded",
    "Limits",
    "NotAWorkbook",
    "Sheet",
    "UnreadableWorkbook",
    "Workbook",
    "a1",
    "check_dimension",
    "check_extent",
    "check_file_size",
    "check_xml_prologs",
    "check_zip_members",
    "column_letters",
    "detect_format",
    "format_amount",
    "format_kopecks",
    "load_workbook",
    "looks_like_malformed_amount",
    "money_strings",
    "parse_amount",
    "parse_cell_ref",
    "parse_kopecks",
    "read_workbook",
    "sheet_ref",
    "span_kopecks",
]


def load_workbook(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Workbook:
    """Identify, guard and read untrusted bytes; a top-level function, so the sandbox can run it."""
    check_file_size(data, limits)
    fmt = detect_format(data)
    if fmt is None:
        msg = "not an XLS, XLSX or XLSB workbook"
        raise NotAWorkbook(msg)
    return read_workbook(data, fmt, limits)
