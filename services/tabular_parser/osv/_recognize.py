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
- A table whose reading raises is a `TableFailure` (TABLE_PARSE_FAILED at its range) and the
  other tables stay documents. When it raised after its body was read, its end is known and
  the search goes on below it. When its body (or the search for it) raised, its end is not
  known, so reading stops there: below it, its own rows could not be told from the next
  table's title block. A sheet where no table could be read raises as before (the whole sheet
  is TABLE_PARSE_FAILED); so does one whose one table fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.excel.model import CellRange, Sheet, sheet_ref
from services.excel.values import format_kopecks, money_strings

from ._body import Body, Entry, Issue, read_body
from ._cells import cell_text
from ._checks import Failure, run_checks
from ._columns import Layout, find_layout
from ._failure import TableFailure
from ._footer import is_footer
from ._hierarchy import assign_levels
from ._period import parse_period
from ._title import TitleBlock, read_title_block

__all__ = ["OsvResult", "OsvSheet", "read_osv_sheet"]


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


@dataclass(frozen=True, slots=True)
class OsvSheet:
    """The ОСВ tables of one sheet: a result per table read, a failure per table that raised."""

    results: list[OsvResult]
    failures: list[TableFailure]


def read_osv_sheet(sheet: Sheet, *, release_rows: bool = False) -> OsvSheet:
    """Every 1C «Оборотно-сальдовая ведомость» table of the sheet, top to bottom (none: no
    results), with a table whose reading raised reported as a `TableFailure` while the others
    stay documents.

    A table is there when a row holds the three-group header (Сальдо на начало / Обороты /
    Сальдо на конец, each over Дебет and Кредит); a header with neither title nor rows is not
    taken. With `release_rows` the sheet's rows are emptied once its tables are read (it is an
    ОСВ then), so a large sheet's cells and its documents are not both held at the peak.
    Raises when no table could be read but one raised (the sheet fails as a whole, as a sheet
    of one failing table always did).
    """
    tables, failures = _read_tables(sheet)
    if release_rows and tables:
        sheet.rows = []
    results: list[OsvResult] = []
    for table in tables:
        try:
            results.append(OsvResult(_document(sheet, table)))
        except Exception as exc:  # one broken table must not lose the others
            failures.append(TableFailure(sheet.name, _cells(table.layout, table.body), exc))
    failures.sort(key=lambda failure: failure.cells.first_row)
    if failures and not results:
        raise failures[0].error
    return OsvSheet(results, failures)


def _read_tables(sheet: Sheet) -> tuple[list[_Table], list[TableFailure]]:
    tables: list[_Table] = []
    failures: list[TableFailure] = []
    start = 0  # the first row after the previous table
    organization: str | None = None
    while True:
        try:
            layout = find_layout(sheet, start)
        except Exception as exc:  # where the next table is, is unknown
            row = CellRange(start, 0, start, 0)
            failures.append(TableFailure(sheet.name, row, exc, rest_skipped=True, searching=True))
            break
        if layout is None:
            break
        try:
            body = read_body(sheet, layout)
        except Exception as exc:  # where this table ends is unknown
            header = CellRange(
                layout.header_row, layout.first_col, layout.header_end, layout.last_col
            )
            failures.append(TableFailure(sheet.name, header, exc, rest_skipped=True))
            break
        previous_end, start = start, body.last_row + 1
        try:
            table = _table(sheet, layout, body, previous_end, organization)
        except Exception as exc:  # its end is known: the next table is looked for below it
            failures.append(TableFailure(sheet.name, _cells(layout, body), exc))
            continue
        if table is not None:
            organization = table.title.organization_name
            tables.append(table)
    return tables, failures


def _table(
    sheet: Sheet, layout: Layout, body: Body, previous_end: int, organization: str | None
) -> _Table | None:
    """The table of a header and its body; None when it has neither title nor rows.

    `previous_end` is the first row after the previous table (0 for the first table);
    `organization` is the previous table's, kept when this title block names none.
    """
    title_start = _after_footer(sheet, previous_end, layout.header_row) if previous_end else 0
    title = read_title_block(sheet, layout.header_row, title_start, layout.first_col)
    if title.title is None and not body.entries:
        return None
    if title.organization_name is None:
        title.organization_name = organization
    _, unknown_nesting = assign_levels(body.entries, len(layout.subconto_kinds))
    full = title.account is None and not title.filtered
    failures = run_checks(
        body.entries,
        body.total,
        full=full,
        skip_children=unknown_nesting,
        subtotals=body.subtotals,
    )
    return _Table(layout, title, body, failures, unknown_nesting)


def _cells(layout: Layout, body: Body) -> CellRange:
    """A table's range: its header to its last row, over its columns."""
    return CellRange(layout.header_row, layout.first_col, body.last_row, layout.last_col)


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
    cells = _cells(layout, body)
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
    rows: list[dict[str, Any]] = []
    append = rows.append
    for entry in entries:
        od, oc, td, tc, cd, cc = money_strings(entry.values)
        row: dict[str, Any] = {
            "row_index": entry.row_index,
            "ref": f"{prefix}{entry.row_index + 1}",
            "level": entry.level,
            "kind": entry.kind,
            "account": entry.account,
            "name": entry.name,
            "inn": entry.inn,
            "opening_debit": od,
            "opening_credit": oc,
            "turnover_debit": td,
            "turnover_credit": tc,
            "closing_debit": cd,
            "closing_credit": cc,
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
            Issue("OSV_TITLE_MISSING", "Над таблицей нет заголовка «Оборотно-сальдовая ведомость»")
        )
    if not period_known:
        text = f": «{title.period_text}»" if title.period_text else ": в шапке его нет"
        issues.append(Issue("OSV_PERIOD_UNRECOGNIZED", f"Период не распознан{text}"))
    if body.total is None:
        full = title.account is None and not title.filtered
        checked = (
            "дебет и кредит сверены по счетам верхнего уровня"
            if full
            else "проверены только сальдо строк и суммы подчинённых строк"
        )
        issues.append(
            Issue("OSV_NO_TOTAL", f"Нет строки «Итого»: итог не сверен с суммой счетов; {checked}")
        )
    if title.filtered and title.account is None:
        issues.append(
            Issue(
                "OSV_FILTERED",
                "В отчёте задан отбор («Отбор:»): равенство дебета и кредита итога не проверено",
            )
        )
    for parent in sorted(unknown_nesting):
        issues.append(
            Issue(
                "OSV_NESTING_UNKNOWN",
                "Несколько видов субконто без уровней группировки: "
                "сумма подчинённых строк не проверена",
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
