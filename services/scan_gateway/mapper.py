"""Result-set tables → statementDocuments (contract 2.0), with the OCR semantics of spec 001.

For each table: find its columns (name, «Код», value columns, «Пояснения») by header, else by
content; decide the document type by `arm_statements.forms` (the table's title, its codes, the
titles printed on its page, its line names); a table none of this places is a TABLE_UNMAPPED
file warning, and a table whose mapping raises is TABLE_PARSE_FAILED (the rest goes on).
Consecutive tables of one type make one document (a balance over two pages) unless the later
page prints a new form title.

This module reads what is OCR's — values through `services.scan_gateway.amounts` (a repaired,
unreadable or low-confidence value is *uncertain*), codes never repaired (a code that is not
4–5 clean digits makes an unreadable line, since a misread code would move figures to another
line; a clean code no form prints is kept and flagged), the header from the text lines and,
for fields the form's page lacks, from the cover pages before it — and
`arm_statements.build_document` writes the document: review (a holding relation vouches for
the uncertain figures in it; as OCR reads, the terms of a failed relation need review),
checks, warnings and status, by the same rules as for Excel.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from services.arm_statements import fold, is_page_furniture, match_line_name, statements_version
from services.arm_statements.document import (
    REVIEW_BELOW,
    ColumnRead,
    HeaderField,
    HeaderRead,
    HeaderReview,
    LineRead,
    LineStatus,
    StatementRead,
    ValueIssue,
    ValueRead,
    build_document,
)
from services.arm_statements.forms import FormEvidence, FormKind, form_kind, okud_kind, title_kind
from services.runtime.recognizer import Recognition
from services.scan_gateway._codes import known_code
from services.scan_gateway._header import read_header
from services.scan_gateway._period import date_in_text, parse_period_label
from services.scan_gateway.amounts import read_amount
from services.scan_gateway.resultset import Item, Row, Table, TextLine, Word

__all__ = ["FileWarning", "map_items", "warning_json_failed"]

Json = dict[str, Any]

_CODE = re.compile(r"^\d{4,5}$")


@dataclass(frozen=True, slots=True)
class FileWarning:
    """A file-level warning (metrics.warnings of the result and the envelope)."""

    code: str
    severity: str
    message: str
    locator: dict[str, Any]

    def to_json(self) -> Json:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "locator": dict(self.locator),
        }


def warning_json_failed(part: str, reason: str) -> FileWarning:
    """JSON_FAILED: an item of the result set is missing or is not the JSON it should be."""
    return FileWarning(
        "JSON_FAILED", "error", f"Элемент результата «{part}» не прочитан: {reason}", {"part": part}
    )


@dataclass(slots=True)
class _Layout:
    name: int | None
    code: int | None
    values: list[int]


@dataclass(slots=True)
class _Part:
    table: Table
    layout: _Layout
    kind: FormKind
    lines: Sequence[TextLine]
    titled: bool


@dataclass(slots=True)
class _Doc:
    kind: FormKind
    parts: list[_Part] = field(default_factory=list)
    cover: Sequence[TextLine] = ()  # pages before it that hold no form (a tax-office cover)


def _header_kind(header: str) -> str | None:
    s = fold(header, ocr=True)
    if "пояснен" in s and "наименование" not in s:
        return "notes"  # «Пояснения | Наименование» read as one head is the name column
    if re.search(r"(^|\s)код(\s|$|а\b|\.)", s) and "коды" not in s:
        return "code"
    if "наименование" in s or "показател" in s or "статья" in s:
        return "name"
    return None


def _column_indexes(table: Table) -> list[int]:
    found = {c.index for c in table.columns}
    for row in table.rows:
        found.update(cell.column for cell in row.cells)
    return sorted(found)


def _layout(table: Table) -> _Layout:
    roles: dict[int, str] = {}
    for column in table.columns:
        role = _header_kind(column.header)
        if role is not None and role not in roles.values():
            roles[column.index] = role
    indexes = _column_indexes(table)
    if "code" not in roles.values():
        best, share = None, 0.0
        for index in indexes:
            texts = [c.text for r in table.rows if (c := r.cell(index)) and c.text]
            if texts:
                hit = sum(bool(_CODE.match(t.replace(" ", ""))) for t in texts) / len(texts)
                if hit > share and hit >= 0.5:
                    best, share = index, hit
        if best is not None and best not in roles:
            roles[best] = "code"
    if "name" not in roles.values():
        for index in indexes:
            if index in roles:
                continue
            texts = [
                c.text
                for r in table.rows
                if (c := r.cell(index)) and c.text and not is_page_furniture(c.text)
            ]  # an e-signature block's lines over a figures column make it no name column
            letters = sum(sum(ch.isalpha() for ch in t) for t in texts)
            if texts and letters >= 3 * len(texts):
                roles[index] = "name"
                break
    by_role = {role: index for index, role in roles.items()}
    start = max(by_role.get("code", -1), by_role.get("name", -1))
    values = [i for i in indexes if i > start and i not in roles]
    return _Layout(by_role.get("name"), by_role.get("code"), values)


def _codes(table: Table, layout: _Layout) -> tuple[str, ...]:
    if layout.code is None:
        return ()
    found: list[str] = []
    for row in table.rows:
        cell = row.cell(layout.code)
        if cell is not None and _CODE.match(cell.text):
            found.append(cell.text)
    return tuple(found)


def _is_title(text: str) -> bool:
    return title_kind(text) is not None


def _evidence(table: Table, layout: _Layout, lines: Sequence[TextLine]) -> FormEvidence:
    """What a table shows of a form: its title, codes, names; the page's titles nearby."""
    names: tuple[str | None, ...] = ()
    if layout.name is not None:
        names = tuple(c.text for row in table.rows if (c := row.cell(layout.name)) is not None)
    return FormEvidence(
        titles=(table.title,) if table.title else (),
        codes=_codes(table, layout),
        code_column=True,
        nearby=tuple(line.text for line in lines),
        names=names,
        value_columns=len(layout.values),
    )


def _table_kind(table: Table, layout: _Layout, lines: Sequence[TextLine]) -> FormKind | None:
    """arm_statements.forms' rule: the table's own title, its codes, the page's titles, names."""
    return form_kind(_evidence(table, layout, lines))


# -- one document ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Anchor:
    """The last coded line read: a line without a code under it details it."""

    code: str | None = None
    ref: str | None = None


def _value(cell_text: str, confidence: float | None, column: int) -> ValueRead:
    read = read_amount(cell_text)
    issue: ValueIssue | None = None
    if read.amount is None and not read.clean:
        issue = ValueIssue.UNREADABLE
    elif not read.clean or (
        confidence is not None and confidence < REVIEW_BELOW and read.amount is not None
    ):
        issue = ValueIssue.UNCERTAIN
    return ValueRead(
        column_index=column,
        amount=read.amount,
        string_value=read.string_value,
        text=cell_text,
        confidence=confidence,
        is_recognized=read.clean,
        issue=issue,
    )


def _line(row: Row, table: Table, layout: _Layout, kind: str, anchor: _Anchor) -> LineRead | None:
    name_cell = row.cell(layout.name) if layout.name is not None else None
    code_cell = row.cell(layout.code) if layout.code is not None else None
    value_cells = [(i, row.cell(i)) for i in layout.values]
    code_text = code_cell.text.strip() if code_cell is not None else ""
    name = name_cell.text if name_cell is not None and name_cell.text else None
    if not any(ch.isdigit() for ch in code_text) and not any(
        c is not None and any(ch.isdigit() for ch in c.text) for _, c in value_cells
    ):
        return None  # a section title («II. ОБОРОТНЫЕ АКТИВЫ» over the codes) or a blank row
    if code_text and _header_kind(code_text) == "code":
        return None  # a header repeated on the page
    figures = {i for i, _ in value_cells}
    outside = " ".join(c.text for c in row.cells if c.text and c.column not in figures)
    if is_page_furniture(outside) or (
        not _CODE.match(code_text.replace(" ", ""))
        and is_page_furniture(" ".join(c.text for c in row.cells if c.text))
    ):
        return None  # a stamp or an e-signature block over the table: no line, whatever digits
    value_cells = [  # a row of the table under the block: the cells its text fills are unread
        (i, replace(c, text="?") if c is not None and is_page_furniture(c.text) else c)
        for i, c in value_cells
    ]
    ref = f"p{table.page}:t{table.index}:r{row.index}"
    status: LineStatus = "ok"
    code: str | None = None
    parent: str | None = None
    compact = code_text.replace(" ", "")
    if compact and _CODE.match(compact):
        code = compact
    elif compact:
        status = "unreadable"
    elif layout.code is None and name is not None:
        code = match_line_name(name, kind, after=anchor.code)
        status = "ok" if code is not None else "missing"
    elif anchor.ref is not None:
        status, parent = "detail", anchor.ref
    else:
        status = "missing"
    if code is not None:
        anchor.code, anchor.ref = code, ref
    return LineRead(
        row_index=row.index,
        ref=ref,
        status=status,
        code=code,
        code_text=code_text or None,
        code_confidence=code_cell.confidence if code_cell and code_text else None,
        name=name,
        name_confidence=name_cell.confidence if name and name_cell else None,
        values=tuple(
            _value(cell.text, cell.confidence, index)
            for index, cell in value_cells
            if cell is not None
        ),
        parent_ref=parent,
        code_inferred=code is not None and not code_text,
        code_unknown=code is not None and bool(code_text) and not known_code(code),
    )


def _columns(parts: list[_Part]) -> list[ColumnRead]:
    out: dict[int, ColumnRead] = {}
    for part in parts:
        headers = {c.index: c for c in part.table.columns}
        for index in part.layout.values:
            if index in out:
                continue
            column = headers.get(index)
            label = column.header if column is not None and column.header else None
            kind, date = parse_period_label(label) if label else ("none", None)
            confidence = column.confidence if label and column else None
            out[index] = ColumnRead(index, label, confidence, kind, date)
    return [out[i] for i in sorted(out)]


def _page_text(item: Item) -> list[TextLine]:
    """A page's text lines and its table rows as lines (a cover page's «Коды» are a grid)."""
    rows = [
        TextLine(tuple(Word(c.text, c.confidence) for c in row.cells if c.text))
        for table in item.tables
        for row in table.rows
    ]
    return [*item.lines, *(row for row in rows if row.words)]


def _title_date(lines: Sequence[TextLine]) -> HeaderField | None:
    """The date a form's title prints, on its line or the next («Отчет о финансовых
    результатах» / «за 2025 год»)."""
    for at, text_line in enumerate(lines):
        if not _is_title(text_line.text):
            continue
        for candidate in lines[at : at + 2]:
            found = date_in_text(candidate.text)
            if found is not None:
                conf = min((w.confidence for w in candidate.words), default=None)
                low = conf is not None and conf < REVIEW_BELOW
                return HeaderField(found.isoformat(), candidate.text, conf, low)
        return None
    return None


def _header(
    lines_source: Sequence[TextLine], kind: FormKind, cover: Sequence[TextLine] = ()
) -> dict[str, HeaderRead]:
    """The header fields of the text lines; no «Дата» line → the date of the form's title;
    fields still missing from the cover pages before the form (a tax-office form prints the
    organisation, ИНН, units and the reporting year once, on its title page). An ОКУД of
    another form than the one found is up for review."""
    fields = read_header(lines_source)
    if "report_date" not in fields:
        dated = _title_date(lines_source)
        if dated is not None:
            fields["report_date"] = dated
    for name, field_read in read_header(cover).items():
        fields.setdefault(name, field_read)
    okud = fields.get("okud")
    if okud is not None and okud.value is not None and okud_kind(okud.value) != kind:
        fields["okud"] = HeaderField(okud.value, okud.text, okud.confidence, True)
    return {name: found.read(HeaderReview.UNCERTAIN) for name, found in fields.items()}


def _document(doc: _Doc) -> Json | None:
    """The document of ``doc``; None when no line has an amount (no empty form is produced)."""
    anchor = _Anchor()
    lines = [
        line
        for part in doc.parts
        for row in part.table.rows
        if (line := _line(row, part.table, part.layout, doc.kind, anchor)) is not None
    ]
    read = StatementRead(
        kind=doc.kind,
        locator=[{"page": p.table.page, "table": p.table.index} for p in doc.parts],
        header=_header([line for part in doc.parts for line in part.lines], doc.kind, doc.cover),
        columns=_columns(doc.parts),
        lines=lines,
        from_ocr=True,
    )
    return None if read.is_empty_form else build_document(read)


def _no_lines(doc: _Doc) -> list[Json]:
    """TABLE_UNMAPPED for each table of a form that gave no line: no empty form is produced."""
    form = "бухгалтерский баланс" if doc.kind == "BALANCE" else "отчёт о финансовых результатах"
    return [
        FileWarning(
            "TABLE_UNMAPPED",
            "warning",
            f"Таблица {part.table.table_id} (стр. {part.table.page}) похожа на {form}, но в ней "
            "не найдено ни одной строки с суммой; документ не создан",
            {"page": part.table.page, "table": part.table.index},
        ).to_json()
        for part in doc.parts
    ]


# -- the whole result set ----------------------------------------------------------------------


def map_items(
    items: Sequence[Item], warnings: Sequence[FileWarning] = (), raw_s3_key: str | None = None
) -> Recognition:
    """The documents of a result set; `warnings` are file warnings found while fetching it."""
    file_warnings = [w.to_json() for w in warnings]
    docs: list[_Doc] = []
    cover: list[TextLine] = []
    for item in sorted(items, key=lambda i: i.page):
        parts = sum(len(doc.parts) for doc in docs)
        for table in item.tables:
            locator = {"page": table.page, "table": table.index}
            try:
                layout = _layout(table)
                kind = _table_kind(table, layout, item.lines)
            except Exception as exc:  # one table's trouble must not lose the others
                file_warnings.append(
                    FileWarning(
                        "TABLE_PARSE_FAILED",
                        "error",
                        f"Таблица {table.table_id} не разобрана: {type(exc).__name__}",
                        locator,
                    ).to_json()
                )
                continue
            if kind is None or (layout.code is None and layout.name is None):
                file_warnings.append(
                    FileWarning(
                        "TABLE_UNMAPPED",
                        "warning",
                        f"Таблица {table.table_id} (стр. {table.page}) не отнесена ни к одной "
                        f"форме (в таблице: {_evidence(table, layout, item.lines).describe()})",
                        locator,
                    ).to_json()
                )
                continue
            titled = any(_is_title(item_line.text) for item_line in item.lines)
            part = _Part(table, layout, kind, item.lines if table.index == 0 else (), titled)
            last = docs[-1] if docs else None
            if last is not None and last.kind == kind and not (titled and table.index == 0):
                last.parts.append(part)
            else:
                docs.append(_Doc(kind, [part], tuple(cover)))
        if sum(len(doc.parts) for doc in docs) == parts:
            cover.extend(_page_text(item))
    documents: list[Json] = []
    for doc in docs:
        try:
            document = _document(doc)
        except Exception as exc:
            for part in doc.parts:
                file_warnings.append(
                    FileWarning(
                        "TABLE_PARSE_FAILED",
                        "error",
                        f"Таблица {part.table.table_id} не разобрана: {type(exc).__name__}",
                        {"page": part.table.page, "table": part.table.index},
                    ).to_json()
                )
            continue
        if document is None:
            file_warnings.extend(_no_lines(doc))
        else:
            documents.append(document)
    return Recognition(
        documents=documents,
        warnings=file_warnings,
        group_schema="rsbu" if documents else None,
        statements_version=statements_version if documents else None,
        raw_s3_key=raw_s3_key,
    )
