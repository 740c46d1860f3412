"""Which Excel format a file is, by its content only (never by its name).

The rules are the contract's one sniffer (`services.contract.filetypes`), which arm-core asks
at upload too; this narrows its answer to the workbook formats the reader knows.
"""

from __future__ import annotations

from typing import Literal

from services.contract.filetypes import FileType, sniff

__all__ = ["ExcelFormat", "detect_format"]

ExcelFormat = Literal["XLS", "XLSX", "XLSB"]

_EXCEL: dict[FileType, ExcelFormat] = {"XLS": "XLS", "XLSX": "XLSX", "XLSB": "XLSB"}


def detect_format(data: bytes) -> ExcelFormat | None:
    """ "XLS", "XLSX", "XLSB", or None for anything that is not an Excel workbook."""
    found = sniff(data)
    return None if found is None else _EXCEL.get(found)
