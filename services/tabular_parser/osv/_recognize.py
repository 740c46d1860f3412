"""One worksheet → one contract-shaped osvDocument (contracts/recognition-result.schema.json)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.tabular_parser.excel.model import CellRange, Sheet, sheet_ref
from services.tabular_parser.excel.values import format_kopecks

from ._body import Body, Entry, Issue, read_body
from ._checks import Failure, run_checks
from ._columns import Layout, find_layout
from ._hierarchy import assign_levels
from ._period import parse_period
from ._title import TitleBlock, read_title_block

__all__ = ["OsvResult", "recognize_osv"]


@dataclass(frozen=True, slots=True)
class OsvResult:
    """The recognised trial balance: `document` is the osvDocument of the result file."""

    document: dict[str, Any]

    @property
    def status(self) -> str:
        return str(self.document["status"])


def recognize_osv(sheet: Sheet, *, release_rows: bool = False) -> OsvResult | None:
    """Recognise a 1C «Оборотно-сальдовая ведомость» on the sheet; None when it is not one.

    The sheet is an ОСВ when its first rows hold the three-group header (Сальдо на начало /
    Обороты / Сальдо на конец, each over Дебет and Кредит); a sheet with that header but
    neither title nor rows is not taken. With `release_rows` the sheet's rows are emptied once
    the body is read (it is an ОСВ then), so a large sheet's cells and its document are not
    both held at the peak.
    """
    layout = find_layout(sheet)
    if layout is None:
        return None
    title = read_title_block(sheet, layout.header_row)
    body = read_body(sheet, layout)
    if title.title is None and not body.entries:
        return None
    if release_rows:
        sheet.rows = []
    _, unknown_nesting = assign_levels(body.entries, len(layout.subconto_kinds))
    full = title.account is None and not title.filtered
    failures = run_checks(body.entries, body.total, full=full, skip_children=unknown_nesting)
    return OsvResult(_document(sheet, layout, title, body, failures, unknown_nesting))


def _document(
    sheet: Sheet,
    layout: Layout,
    title: TitleBlock,
    body: Body,
    failures: list[Failure],
    unknown_nesting: set[int],
) -> dict[str, Any]:
    # sheet_ref of row 0 ends with "1": its prefix serves every row without re-quoting the name.
    prefix = sheet_ref(sheet.name, 0, layout.first_col)[:-1]
    period = parse_period(title.period_text)
    table = CellRange(layout.header_row, layout.first_col, body.last_row, layout.last_col)
    return {
        "document_type": "OSV",
        "status": "needs_check" if failures else "done",
        "warnings": _warnings(title, body, prefix, unknown_nesting, period is not None),
        "locator": {"sheet": sheet.name, "range": table.a1()},
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
