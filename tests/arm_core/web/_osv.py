"""The ОСВ the page tests upload: «ОСВ по счету 62.01» with 150 counterparties, so its rows
fill two pages, and three failed control sums, two on the first page and one on the second.

Counterparty 5's closing debit is printed 125 instead of 120 (its row no longer balances, and
62.01 is no longer the sum of its counterparties), counterparty 140's 119.
"""

from __future__ import annotations

from tests.builders import spec_of, write_xlsx
from tests.tabular_parser.osv._builder import R, osv_sheet

COUNTERPARTIES = 150
BROKEN = {5: 125.0, 140: 119.0}  # row position → the misprinted closing debit
CLOSING_DEBIT = 4


def counterparty(k: int) -> str:
    return f"ООО «Контрагент {k:03d}»"


def paged_osv_xlsx() -> bytes:
    """The ОСВ as XLSX; rows 5 and 140 (their positions among the rows) misprinted."""
    n = COUNTERPARTIES
    rows = [R("62.01", None, (str(100 * n), None, str(50 * n), str(30 * n), str(120 * n), None))]
    rows += [
        R(None, counterparty(k), ("100", None, "50", "30", "120", None), 1) for k in range(1, n + 1)
    ]
    built = osv_sheet(
        rows,
        (str(100 * n), None, str(50 * n), str(30 * n), str(120 * n), None),
        title="Оборотно-сальдовая ведомость по счету 62.01 за 1 квартал 2025 г.",
        code_and_name=False,
        kinds=("Контрагенты",),
    )
    for k, amount in BROKEN.items():
        built.put(counterparty(k), CLOSING_DEBIT, amount)
    return write_xlsx([spec_of(built.sheet)])
