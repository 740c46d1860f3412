"""Our recogniser over one real file, and what it emitted measured against the source cells."""

from __future__ import annotations

from decimal import Decimal
from functools import cache
from typing import Any

import pytest

from services.arm_statements import too_precise
from services.runtime.recognizer import RecognitionFailed
from services.tabular_parser.osv._columns import SUM_FIELDS
from services.tabular_parser.recognizer import recognize_bytes

from ._sources import SAMPLES, cell_ref, source_book

__all__ = ["FILES", "case", "documents", "precision_violations"]

FILES = (
    "real/Anna-Lisichka_module_11_1__balance_nocodes_2024h1.xls",
    "real/easylager_excel_to_sqlite__bank_oborot_vedomost_2016.xls",
    "real/kaetosh_Flat_table_account_analysis__analiz_51_2024.xlsx",
    "real/znak13_XBRL_Buhuchot_Oborot__balans_0420002_2019q2.xls",
    "real/znak13_XBRL_Buhuchot_Oborot__ofr_0420003_2019_annual.xls",
    "real/znak13_XBRL_Buhuchot_Oborot__ofr_0420003_2019q2.xls",
    "real/znak13_XBRL_Buhuchot_Oborot__osv_eps_2019_07.xlsx",
    "DaniilTiunov_ProjectPythonRepa__balance-is_legacy67n.xlsx",
    "gradosphera_mono__obraztsy_uproshennyh_form_balans_ofr_ocs.xls",
    "kaetosh_FlatTable1C_v2__MZP_10_4kv2024.xlsx",
    "kaetosh_FlatTable1C_v2__Pivot_account_turnover.xlsx",
    "kaetosh_LedgerFlattener__RZK_11.xlsx",
    "kaetosh_LedgerFlattener__UPP_valuta1.xlsx",
)


def case(name: str, broken: dict[str, str]) -> Any:
    """The file as a test parameter, a strict xfail with its reason when it is in `broken`."""
    reason = broken.get(name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(name, marks=marks, id=name.removeprefix("real/"))


@cache
def documents(name: str) -> tuple[dict[str, Any], ...]:
    """The documents recognised in the file; none when the recogniser found none."""
    try:
        return tuple(recognize_bytes((SAMPLES / name).read_bytes()).documents)
    except RecognitionFailed:
        return ()


def _kept_as_printed(value: dict[str, Any]) -> bool:
    """A figure with more decimals than the contract holds: no amount, its text, a review."""
    return value["amount"] is None and value["needs_review"] and too_precise(value["text"])


def precision_violations(name: str) -> list[str]:
    """Every emitted amount that is not its source cell's value, every source number (other
    than 0) a line's value left out (unless kept as printed for review: more decimals than the
    contract holds), «<ref> column <n>: emitted X, cell Y», and every invented line: a printed
    line code its source row does not print counts as a wrong value (issue 26, class 8)."""
    source = source_book(name)
    found: list[str] = []
    for document in documents(name):
        for line in document.get("lines", []):
            sheet, row, _ = cell_ref(line["ref"])
            printed = line.get("line_code_text")
            if printed is not None and printed not in source.row_texts(sheet, row):
                found.append(f"{line['ref']}: line code {printed} is not printed on its row")
            for value in line["values"]:
                cell = source.amount(sheet, row, value["column_index"])
                emitted = None if value["amount"] is None else Decimal(value["amount"])
                if _kept_as_printed(value):
                    continue
                if emitted != cell and not (emitted is None and not cell):
                    found.append(
                        f"{line['ref']} column {value['column_index']}: "
                        f"emitted {value['amount']}, cell {cell}"
                    )
        for osv_row in document.get("rows", []):
            sheet, row, _ = cell_ref(osv_row["ref"])
            cells = source.row_amounts(sheet, row)
            for field in SUM_FIELDS:
                emitted_sum = osv_row.get(field)
                if emitted_sum is not None and Decimal(emitted_sum) not in cells:
                    found.append(
                        f"{osv_row['ref']} {field}: emitted {emitted_sum}, not a cell of its row"
                    )
    return found
