"""One ОСВ table of a sheet whose reading raised: the file warning TABLE_PARSE_FAILED for it.

A sheet on which no table could be read at all still fails as a whole (the recogniser's
sheet-level TABLE_PARSE_FAILED); this is the failure of one table while others of the same
sheet are documents, so its locator names the table's range, not only the sheet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.excel.model import CellRange

__all__ = ["TableFailure"]

_MESSAGE_LIMIT = 500


@dataclass(frozen=True, slots=True)
class TableFailure:
    """Reading the ОСВ table at `cells` of `sheet` raised `error`.

    `cells` is as much of the table as is known: from its header to its last row, or its
    header alone when its body could not be read; for a failed search for the next table, the
    first row searched. `rest_skipped`: the rows below were not read, because where this table
    ends (and so where the next one's title block starts) is unknown.
    """

    sheet: str
    cells: CellRange
    error: Exception
    rest_skipped: bool = False
    searching: bool = False

    def warning(self) -> dict[str, Any]:
        """The file-level warning TABLE_PARSE_FAILED, located at the table's range."""
        if self.searching:
            what = f"поиск таблицы ОСВ со строки {self.cells.first_row + 1} не удался"
        else:
            what = f"таблица ОСВ {self.cells.a1()} не разобрана"
        if self.rest_skipped:
            what += "; таблицы ниже не читались"
        error = f"{type(self.error).__name__}: {self.error}"
        return {
            "code": "TABLE_PARSE_FAILED",
            "severity": "error",
            "message": f"Лист «{self.sheet}»: {what}: {error}"[:_MESSAGE_LIMIT],
            "locator": {"sheet": self.sheet, "range": self.cells.a1()},
        }
