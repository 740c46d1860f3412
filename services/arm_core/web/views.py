"""What the templates show: a corrected statement as a grid, its failed checks, its header.

Pure functions of the corrected document, so the page and its tests read the same model.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pydantic import ValidationError

from services.arm_core.documents.corrections import (
    HEADER_FIELDS,
    CorrectedDocument,
    own_doubt,
    statement_lines,
)
from services.arm_core.documents.read import DocumentBody
from services.arm_core.documents.review import Change, review_of
from services.arm_core.documents.words import SEVERITIES, money, ru_date
from services.arm_core.jobs.progress import PagesDone
from services.contract.models.result_v2 import FileLocator, FileWarning
from services.contract.models.result_v2_dicts import (
    RelationFailure,
    StatementColumn,
    StatementDocument,
)

__all__ = [
    "Cell",
    "CheckRow",
    "GridLine",
    "HeaderRow",
    "RunningPages",
    "StatementView",
    "header_shown",
    "money",
    "statement_view",
    "waited",
]


def waited(since: dt.datetime | None, now: dt.datetime | None = None) -> str:
    """How long a job has run since `since`, as a person reads it: «0:07», «12:30», «1:02:05»."""
    if since is None:
        return ""
    if since.tzinfo is None:  # SQLite hands back naive UTC
        since = since.replace(tzinfo=dt.UTC)
    seconds = max(0, int(((now or dt.datetime.now(dt.UTC)) - since).total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{seconds:02}" if hours else f"{minutes}:{seconds:02}"


@dataclass(frozen=True, slots=True)
class RunningPages:
    """The pages beside a running scan's wait (decision 0037): `counted`, the pages of the
    stored file; `done`, what its recogniser last said it finished (None: not known)."""

    counted: int | None
    done: PagesDone | None = None

    @property
    def total(self) -> int | None:
        """The recogniser's total when it told one (it reads at most 50 pages), else the
        count."""
        return self.done.total if self.done is not None else self.counted

    @property
    def shown(self) -> str:
        """«готово страниц: 2 из 5», or «страниц: 5» while no page done is known."""
        if self.done is not None:
            return f"готово страниц: {self.done.done} из {self.done.total}"
        return f"страниц: {self.counted}" if self.counted else ""


@dataclass(frozen=True, slots=True)
class Cell:
    """One value of the grid."""

    column_index: int
    amount: str | None
    shown: str
    text: str | None
    needs_review: bool
    unrecognized: bool
    corrected: bool
    in_failed: bool
    change: Change | None = None
    settled: bool = False
    label: str = ""

    @property
    def stop(self) -> bool:
        """A Tab stop: a value still in doubt (empty, clean and settled values are reached by
        the arrow keys, n / p or the mouse)."""
        return self.needs_review


@dataclass(frozen=True, slots=True)
class GridLine:
    """One line of the grid; `index` is its position in `lines[]`; `own_doubt`: the line is
    in doubt for its code (unreadable, missing, repeated), not only for its values."""

    index: int
    code: str | None
    name: str | None
    status: str
    needs_review: bool
    code_corrected: bool
    failed: bool
    cells: list[Cell]
    own_doubt: bool = False


@dataclass(frozen=True, slots=True)
class CheckRow:
    """A failed relation in one column."""

    hard: bool
    relation: str
    column: str
    codes: list[str]
    expected: str
    actual: str


@dataclass(frozen=True, slots=True)
class HeaderRow:
    """A header field, marked when the recogniser doubted it or an analyst corrected it."""

    field: str
    label: str
    value: str | None
    needs_review: bool
    corrected: bool


@dataclass(frozen=True, slots=True)
class StatementView:
    """The grid, the failed checks and the header of a corrected statement form."""

    columns: list[dict[str, object]]
    lines: list[GridLine]
    checks: list[CheckRow]
    header: list[HeaderRow]
    doubtful: list[tuple[int, int]]


@dataclass(frozen=True, slots=True)
class Remark:
    """A recogniser's warning as the analyst reads it: how serious, what it says, and the
    lines it names (index and «code name», to jump to)."""

    code: str
    severity: str
    level: str
    message: str
    lines: list[tuple[int, str]]


_LIVE_CODES = frozenset({"RELATION_FAILED", "SOFT_RELATION_FAILED"})
"""Warnings the page shows live instead: a relation's state after the corrections is under
«Проверки»; the recogniser's word on it would lie once a correction makes it hold."""


def remarks(document: DocumentBody) -> list[Remark]:
    """The recogniser's warnings on a document, as recognised (corrections change values,
    not what was seen), without the relation ones, errors first."""
    named: dict[str, tuple[int, str]] = {}
    for index, line in enumerate(statement_lines(document)):
        label = " ".join(str(p) for p in (line.get("line_code"), line.get("line_name")) if p)
        named.setdefault(str(line.get("ref")), (index, label or f"строка {index + 1}"))
    found = [
        Remark(
            code=str(w.get("code")),
            severity=SEVERITIES.get(str(w.get("severity")), str(w.get("severity"))),
            level=str(w.get("severity")),
            message=str(w.get("message") or ""),
            lines=[named[str(ref)] for ref in w.get("line_refs") or () if str(ref) in named],
        )
        for w in document.get("warnings") or ()
        if w.get("code") not in _LIVE_CODES
    ]
    order = {"error": 0, "warning": 1, "info": 2}
    return sorted(found, key=lambda r: order.get(r.level, 3))


@dataclass(frozen=True, slots=True)
class FileRemark:
    """A recogniser's warning on the file as a whole (a sheet or page it did not understand,
    a part left out): how serious, what it says, where."""

    code: str
    severity: str
    level: str
    message: str
    where: str


def file_remarks(metrics: object) -> list[FileRemark]:
    """The file-level warnings a result's `metrics` carries, errors first; an item that is
    not a contract FileWarning (a 1.x result's plain text, a rejected file's) is left out."""
    items = metrics.get("warnings") if isinstance(metrics, dict) else None
    found: list[FileRemark] = []
    for item in items if isinstance(items, list) else ():
        try:
            warning = FileWarning.model_validate(item)
        except ValidationError:
            continue
        level = warning.severity
        found.append(
            FileRemark(
                warning.code,
                SEVERITIES.get(level, level),
                level,
                warning.message,
                _where(warning.locator),
            )
        )
    order = {"error": 0, "warning": 1, "info": 2}
    return sorted(found, key=lambda r: order.get(r.level, 3))


def _where(locator: FileLocator) -> str:
    parts = []
    if locator.sheet:
        parts.append(f"лист «{locator.sheet}»" + (f", {locator.range}" if locator.range else ""))
    if locator.page is not None:
        parts.append(f"страница {locator.page}")
    if locator.table is not None:
        parts.append(f"таблица {locator.table + 1}")
    if locator.part:
        parts.append(f"часть «{locator.part}»")
    return ", ".join(parts)


def _column_label(column: StatementColumn) -> str:
    label = column.get("label") or f"Колонка {column.get('column_index')}"
    date = column.get("period_date")
    if not date or str(date) in str(label) or ru_date(date) in str(label):
        return str(label)
    return f"{label} ({ru_date(date)})"


def _failures(document: StatementDocument) -> list[tuple[bool, RelationFailure]]:
    checks = document.get("checks")
    if checks is None:
        return []
    hard = [(True, f) for f in checks.get("relations_failed") or []]
    return hard + [(False, f) for f in checks.get("soft_relations_failed") or []]


def statement_view(corrected: CorrectedDocument[DocumentBody]) -> StatementView:
    """The view model of a corrected statement form."""
    document = corrected.statement
    columns = sorted(document.get("columns") or [], key=lambda c: c.get("column_index", 0))
    labels = {c.get("column_index"): _column_label(c) for c in columns}
    failures = _failures(document)
    failing = {(code, f.get("column_index")) for _, f in failures for code in f.get("codes") or []}
    changes = {(c.line, c.column_index): c for c in review_of(corrected).changes if c.field is None}
    lines: list[GridLine] = []
    doubtful: list[tuple[int, int]] = []
    for index, line in enumerate(document.get("lines") or []):
        by_column = {v.get("column_index"): v for v in line.get("values") or []}
        code = line.get("line_code")
        cells: list[Cell] = []
        for column in columns:
            ci = column.get("column_index", 0)
            value = by_column.get(ci)
            amount = value.get("amount") if value else None
            text = value.get("text") if value else None
            review = bool(value and value.get("needs_review"))
            done = (index, ci) in corrected.corrected
            unrecognized = (
                value is not None
                and bool(value)
                and value.get("is_recognized") is False
                and not done
            )
            if review:
                doubtful.append((index, ci))
            shown = money(amount) if amount is not None else (text or "")
            cells.append(
                Cell(
                    column_index=ci,
                    amount=amount,
                    shown=shown,
                    text=text,
                    needs_review=review,
                    unrecognized=unrecognized,
                    corrected=done,
                    in_failed=(code, ci) in failing,
                    change=changes.get((index, ci)) if done else None,
                    settled=(index, ci) in corrected.settled,
                    label=_cell_label(shown, code, line.get("line_name"), labels[ci], review),
                )
            )
        lines.append(
            GridLine(
                index=index,
                code=code,
                name=line.get("line_name"),
                status=str(line.get("line_status") or "ok"),
                needs_review=bool(line.get("needs_review")),
                code_corrected=index in corrected.codes,
                failed=any((code, c.get("column_index")) in failing for c in columns),
                cells=cells,
                own_doubt=own_doubt(line) and index not in corrected.codes,
            )
        )
    checks = [
        CheckRow(
            hard=hard,
            relation=str(f.get("relation")),
            column=labels.get(f.get("column_index"), str(f.get("column_index"))),
            codes=list(f.get("codes") or []),
            expected=money(f.get("expected")),
            actual=money(f.get("actual")),
        )
        for hard, f in failures
    ]
    header = document.get("header") or {}
    doubted = set(header.get("needs_review_fields") or [])
    header_rows = [
        HeaderRow(
            field,
            label,
            header_shown(field, header.get(field)),
            field in doubted,
            field in corrected.fields,
        )
        for field, label in HEADER_FIELDS.items()
        if field in header
    ]
    return StatementView(
        [{**c, "heading": labels[c.get("column_index")]} for c in columns],
        lines,
        checks,
        header_rows,
        doubtful,
    )


def _cell_label(shown: str, code: str | None, name: str | None, column: str, doubt: bool) -> str:
    """What a screen reader says on a value: the value, its line, its column, the doubt."""
    line = f"строка {code or 'без кода'}" + (f" «{name}»" if name else "")
    return f"{shown or 'пусто'}, {line}, {column}" + (", нужна проверка" if doubt else "")


def header_shown(field: str, value: object) -> str | None:
    """A header field's value as the page shows it: the report date as 31.12.2024 (stored and
    answered by the API as ISO), the rest as stored."""
    if value is None:
        return None
    return ru_date(value) if field == "report_date" else str(value)
