"""One worksheet → the osvDocuments (contracts/recognition-result.schema.json) of its ОСВ tables.

A sheet usually holds one ОСВ, but 1C also prints several one below the other (an «ОСВ по
счету» for several accounts, two periods in a row). Each table is a document of its own, with
its own locator range, header, checks and status:

- A table ends at its «Итого»; without one, at its signature footer or at the next table's
  header (`_body.read_body`).
- The next table's header is looked for only in the `_columns._SCAN_ROWS` rows after the
  previous table's end, so after the last table the extra work is those few rows.
- Its title block is the rows between the previous table's end and its header, less the
  previous table's signature footer (everything up to the last footer line): title, account,
  period, units and «Отбор» are read there only. The organisation too; when that block names
  none, the previous table's is kept (one sheet is one organisation's export).
- Text between two tables that is neither a footer, a title-block line nor a table is read as
  any title block reads it: a plain line above the title is the organisation when there is no
  «Организация:» line, anything else is ignored, without a warning, as text after the last
  table is (it holds no table data: a row with sums is inside some table's range).
- A header with neither a title nor rows is no document (as for a lone table) and the search
  goes on below it; with a title but no rows it is a document without rows (OSV_NO_TOTAL).
  Either way the tables before and after it are read as usual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.tabular_parser.excel.model import CellRange, Sheet, sheet_ref
from services.tabular_parser.excel.values import format_kopecks

from ._body import Body, Entry, Issue, read_body
from ._cells import cell_text
from ._checks import Failure, run_checks
from ._columns import Layout, find_layout
from ._footer import is_footer
from ._hierarchy import assign_levels
from ._period import parse_period
from ._title import TitleBlock, read_title_block

__all__ = ["OsvResult", "recognize_osv"]


@dataclass(frozen=True, slots=True)
class OsvResult:
    """One recognised trial balance: `document` is the osvDocument of the result file."""

    document: dict[str, Any]

    @property
    def status(self) -> str:
        return str(self.document["status"])


@dataclass(frozen=True, slots=True)
class _Table:
    layout: Layout
    title: TitleBlock
    body: Body
    failures: list[Failure]
    unknown_nesting: set[int]


def recognize_osv(sheet: Sheet, *, release_rows: bool = False) -> list[OsvResult]:
    """Every 1C «Оборотно-сальдовая ведомость» table of the sheet, top to bottom; [] if none.

    A table is there when a row holds the three-group header (Сальдо на начало / Обороты /
    Сальдо на конец, each over Дебет and Кредит); a header with neither title nor rows is not
    taken. With `release_rows` the sheet's rows are emptied once its tables are read (it is an
    ОСВ then), so a large sheet's cells and its documents are not both held at the peak.
    """
    tables = _read_tables(sheet)
    if release_rows and tables:
        sheet.rows = []
    return [OsvResult(_document(sheet, table)) for table in tables]


def _read_tables(sheet: Sheet) -> list[_Table]:
    tables: list[_Table] = []
    start = 0  # the first row after the previous table
    organization: str | None = None
    while (layout := find_layout(sheet, start)) is not None:
        title_start = _after_footer(sheet, start, layout.header_row) if start else 0
        title = read_title_block(sheet, layout.header_row, title_start)
        body = read_body(sheet, layout)
        start = body.last_row + 1
        if title.title is None and not body.entries:
            continue
        if title.organization_name is None:
            title.organization_name = organization
        organization = title.organization_name
        _, unknown_nesting = assign_levels(body.entries, len(layout.subconto_kinds))
        full = title.account is None and not title.filtered
        failures = run_checks(body.entries, body.total, full=full, skip_children=unknown_nesting)
        tables.append(_Table(layout, title, body, failures, unknown_nesting))
    return tables


def _after_footer(sheet: Sheet, start: int, stop: int) -> int:
    """The first row of [start, stop) below the last signature line (the previous table's)."""
    first = start
    for row in range(start, stop):
        line = " ".join(t for t in (cell_text(v) for v in sheet.rows[row]) if t)
        if line and is_footer(line):
            first = row + 1
    return first


def _document(sheet: Sheet, table: _Table) -> dict[str, Any]:
    layout, title, body = table.layout, table.title, table.body
    failures, unknown_nesting = table.failures, table.unknown_nesting
    # sheet_ref of row 0 ends with "1": its prefix serves every row without re-quoting the name.
    prefix = sheet_ref(sheet.name, 0, layout.first_col)[:-1]
    period = parse_period(title.period_text)
    cells = CellRange(layout.header_row, layout.first_col, body.last_row, layout.last_col)
    return {
        "document_type": "OSV",
        "status": "needs_check" if failures else "done",
        "warnings": _warnings(title, body, prefix, unknown_nesting, period is not None),
        "locator": {"sheet": sheet.name, "range": cells.a1()},
        "header": {
            "organization_name": title.organization_name,
            "title": title.title,
            "account": title.account,
            "subconto_kinds": list(layout.subconto_kinds),
            "period_text": title.period_text,
            "period_start": period.start.isoformat() if period else None,
            "period_end": period.end.isoformat() if period else None,
            "is_from_year_start": period.is_from_year_start if period else None,
            "units": title.units,
        },
        "rows": _rows(body.entries, prefix),
        "checks": {
            "failed": [
                {
                    "check": f.check,
                    "ref": f"{prefix}{body.entries[f.entry].row_index + 1}",
                    "column": f.column,
                    "expected": _money(f.expected),
                    "actual": _money(f.actual),
                }
                for f in failures
            ]
        },
    }


def _rows(entries: list[Entry], prefix: str) -> list[dict[str, Any]]:
    """The contract rows, in `_columns.SUM_FIELDS` order for the sums (one flat loop: it runs
    once per row of a large sheet). An entry's `extra` is used as is, not copied: the entries
    are dropped once the document is built."""
    money = format_kopecks
    rows: list[dict[str, Any]] = []
    append = rows.append
    for entry in entries:
        od, oc, td, tc, cd, cc = entry.values
        row: dict[str, Any] = {
            "row_index": entry.row_index,
            "ref": f"{prefix}{entry.row_index + 1}",
            "level": entry.level,
            "kind": entry.kind,
            "account": entry.account,
            "name": entry.name,
            "inn": entry.inn,
            "opening_debit": None if od is None else money(od),
            "opening_credit": None if oc is None else money(oc),
            "turnover_debit": None if td is None else money(td),
            "turnover_credit": None if tc is None else money(tc),
            "closing_debit": None if cd is None else money(cd),
            "closing_credit": None if cc is None else money(cc),
        }
        if entry.extra:
            row["extra"] = entry.extra
        append(row)
    return rows


def _money(value: int | None) -> str | None:
    """The money string of a kopeck amount (None stays None)."""
    return None if value is None else format_kopecks(value)


def _warnings(
    title: TitleBlock,
    body: Body,
    prefix: str,
    unknown_nesting: set[int],
    period_known: bool,
) -> list[dict[str, Any]]:
    issues: list[Issue] = []
    if title.title is None:
        issues.append(
            Issue("OSV_TITLE_MISSING", "no «Оборотно-сальдовая ведомость» title above the table")
        )
    if not period_known:
        text = f": {title.period_text!r}" if title.period_text else " in the title block"
        issues.append(Issue("OSV_PERIOD_UNRECOGNIZED", f"no period recognised{text}"))
    if body.total is None:
        issues.append(
            Issue("OSV_NO_TOTAL", "no «Итого» row: TOTAL_SUM and DEBIT_EQUALS_CREDIT not checked")
        )
    if title.filtered and title.account is None:
        issues.append(
            Issue(
                "OSV_FILTERED", "the report has a filter (Отбор): DEBIT_EQUALS_CREDIT not checked"
            )
        )
    for parent in sorted(unknown_nesting):
        issues.append(
            Issue(
                "OSV_NESTING_UNKNOWN",
                "several subconto kinds and no outline levels: CHILDREN_SUM not checked here",
                body.entries[parent].row_index,
            )
        )
    issues += body.issues
    # Only a row that is an entry has a ref (an issue may name a skipped or folded row).
    entry_rows = {e.row_index for e in body.entries} if issues else set()
    warnings = []
    for issue in issues:
        warning: dict[str, Any] = {"code": issue.code, "severity": "info", "message": issue.message}
        if issue.row_index is not None and issue.row_index in entry_rows:
            warning["line_refs"] = [f"{prefix}{issue.row_index + 1}"]
        if issue.column_index is not None:
            warning["column_index"] = issue.column_index
        warnings.append(warning)
    return warnings
