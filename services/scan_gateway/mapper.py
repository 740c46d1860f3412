"""Result-set tables → statementDocuments (contract 2.0), with the OCR semantics of spec 001.

For each table: find its columns (name, «Код», value columns, «Пояснения») by header, else by
content; decide the document type by its codes (1xxx balance, 2xxx ОФР), else by the titles
printed on its page, else by its line names; a table none of this places is a TABLE_UNMAPPED
file warning, and a table whose mapping raises is TABLE_PARSE_FAILED (the rest goes on).
Consecutive tables of one type make one document (a balance over two pages) unless the later
page prints a new form title.

Values: `services.scan_gateway.amounts` reads each cell; a value is up for review when it was
repaired, unreadable or read with low confidence — unless a relation that holds in its column
covers it (arm_statements.recompute): a holding sum vouches for the figures in it.
Codes are never repaired: a code that is not 4–5 clean digits makes an unreadable line
(line_code null, the raw text kept), since a misread code would move figures to another line.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from services.arm_statements import (
    HEADER_FIELDS,
    match_line_name,
    recompute,
    resolve_relative,
    statements_version,
)
from services.runtime.recognizer import Recognition
from services.scan_gateway._header import REVIEW_BELOW, HeaderField, read_header
from services.scan_gateway._period import date_in_text, fold, parse_period_label
from services.scan_gateway.amounts import read_amount
from services.scan_gateway.resultset import Item, Row, Table, TextLine

__all__ = ["FileWarning", "map_items", "warning_json_failed"]

Json = dict[str, Any]

_CODE = re.compile(r"^\d{4,5}$")
_BALANCE_TITLE = re.compile(r"бухгалтерск\w*\s+баланс|^баланс\b")
_INCOME_TITLE = re.compile(r"отчет\w*\s+о\s+финансовых\s+результат|о\s+прибылях\s+и\s+убытках")
_DETAIL_PREFIX = re.compile(r"^(в\s+том\s+числе|в\s+т\.\s*ч\.|из\s+них|включая)")


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
    kind: str
    lines: Sequence[TextLine]
    titled: bool


@dataclass(slots=True)
class _Doc:
    kind: str
    parts: list[_Part] = field(default_factory=list)


def _header_kind(header: str) -> str | None:
    s = fold(header)
    if "пояснен" in s:
        return "notes"
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
            texts = [c.text for r in table.rows if (c := r.cell(index)) and c.text]
            letters = sum(sum(ch.isalpha() for ch in t) for t in texts)
            if texts and letters >= 3 * len(texts):
                roles[index] = "name"
                break
    by_role = {role: index for index, role in roles.items()}
    start = max(by_role.get("code", -1), by_role.get("name", -1))
    values = [i for i in indexes if i > start and i not in roles]
    return _Layout(by_role.get("name"), by_role.get("code"), values)


def _codes(table: Table, layout: _Layout) -> list[str]:
    if layout.code is None:
        return []
    found = []
    for row in table.rows:
        cell = row.cell(layout.code)
        if cell is not None and _CODE.match(cell.text):
            found.append(cell.text)
    return found


def _title_kind(texts: Sequence[str]) -> str | None:
    for text in texts:
        s = fold(text)
        if _INCOME_TITLE.search(s):
            return "INCOME"
        if _BALANCE_TITLE.search(s):
            return "BALANCE"
    return None


def _table_kind(table: Table, layout: _Layout, lines: Sequence[TextLine]) -> str | None:
    codes = _codes(table, layout)
    balance = sum(c.startswith("1") for c in codes)
    income = sum(c.startswith("2") for c in codes)
    if balance != income:
        return "BALANCE" if balance > income else "INCOME"
    titled = _title_kind([table.title or ""] + [line.text for line in lines])
    if titled is not None:
        return titled
    if layout.name is None:
        return None
    votes = {"BALANCE": 0, "INCOME": 0}
    for row in table.rows:
        cell = row.cell(layout.name)
        if cell is None or not cell.text:
            continue
        for kind in votes:
            votes[kind] += match_line_name(cell.text, kind) is not None
    if votes["BALANCE"] != votes["INCOME"] and max(votes.values()) >= 2:
        return max(votes, key=lambda k: votes[k])
    return None


# -- one document ------------------------------------------------------------------------------


def _conf(value: float | None) -> float | int | None:
    """A confidence as JSON prints it best: 94 rather than 94.0."""
    if value is None:
        return None
    return int(value) if float(value).is_integer() else round(value, 2)


def _value(cell_text: str, confidence: float | None, column: int) -> Json:
    read = read_amount(cell_text)
    return {
        "column_index": column,
        "amount": read.money,
        "string_value": read.string_value,
        "text": cell_text,
        "confidence": _conf(confidence),
        "is_recognized": read.clean,
        "needs_review": False,
        "_suspect": (not read.clean)
        or (confidence is not None and confidence < REVIEW_BELOW and read.amount is not None),
        "_unreadable": read.amount is None and not read.clean,
    }


def _row_lines(part: _Part, kind: str, state: dict[str, Any]) -> list[Json]:
    table, layout = part.table, part.layout
    out: list[Json] = []
    for row in table.rows:
        line = _line(row, table, layout, kind, state)
        if line is not None:
            out.append(line)
    return out


def _line(row: Row, table: Table, layout: _Layout, kind: str, state: dict[str, Any]) -> Json | None:
    name_cell = row.cell(layout.name) if layout.name is not None else None
    code_cell = row.cell(layout.code) if layout.code is not None else None
    value_cells = [(i, row.cell(i)) for i in layout.values]
    code_text = code_cell.text.strip() if code_cell is not None else ""
    has_values = any(c is not None and c.text for _, c in value_cells)
    name = name_cell.text if name_cell is not None and name_cell.text else None
    if not code_text and not has_values:
        return None  # a section title or a blank row
    if code_text and _header_kind(code_text) == "code":
        return None  # a header repeated on the page
    ref = f"p{table.page}:t{table.index}:r{row.index}"
    line: Json = {
        "row_index": row.index,
        "ref": ref,
        "line_status": "ok",
        "line_code": None,
        "line_code_text": code_text or None,
        "line_code_confidence": _conf(code_cell.confidence) if code_cell and code_text else None,
        "line_name": name,
        "line_name_confidence": _conf(name_cell.confidence) if name and name_cell else None,
    }
    compact = code_text.replace(" ", "")
    if compact and _CODE.match(compact):
        line["line_code"] = compact
        state["last_code"], state["last_ref"] = compact, ref
    elif compact:
        line["line_status"] = "unreadable"
    elif layout.code is None and name is not None:
        found = match_line_name(name, kind, after=state.get("last_code"))
        if found is not None:
            line["line_code"] = found
            state["last_code"], state["last_ref"] = found, ref
        else:
            line["line_status"] = "missing"
    elif state.get("last_ref") is not None:
        line["line_status"] = "detail"
        line["parent_ref"] = state["last_ref"]
    else:
        line["line_status"] = "missing"
    line["needs_review"] = False
    line["values"] = [
        _value(cell.text, cell.confidence, index) for index, cell in value_cells if cell is not None
    ]
    return line


def _header_json(fields: dict[str, HeaderField]) -> Json:
    header: Json = {}
    review: list[str] = []
    for name in HEADER_FIELDS:
        found = fields.get(name, HeaderField(None, None, None, False))
        header[name] = found.value
        header[f"{name}_text"] = found.text
        header[f"{name}_confidence"] = _conf(found.confidence)
        if found.review:
            review.append(name)
    header["needs_review_fields"] = review
    return header


def _columns(parts: list[_Part], report: dt.date | None) -> list[Json]:
    out: dict[int, Json] = {}
    for part in parts:
        headers = {c.index: c for c in part.table.columns}
        for index in part.layout.values:
            if index in out:
                continue
            column = headers.get(index)
            label = column.header if column is not None and column.header else None
            kind, date = parse_period_label(label) if label else ("none", None)
            if date is None:
                date = resolve_relative(kind, report)
            out[index] = {
                "column_index": index,
                "label": label,
                "label_confidence": _conf(column.confidence) if label and column else None,
                "period_date": date.isoformat() if date else None,
                "period_kind": kind,
            }
    return [out[i] for i in sorted(out)]


def _warning(code: str, severity: str, message: str, **extra: Any) -> Json:
    item: Json = {"code": code, "severity": severity, "message": message}
    item.update({k: v for k, v in extra.items() if v is not None})
    return item


def _document(doc: _Doc) -> Json:
    lines_source = [line for part in doc.parts for line in part.lines]
    fields = read_header(lines_source)
    if "report_date" not in fields:
        for text_line in lines_source:
            found = date_in_text(text_line.text) if _title_kind([text_line.text]) else None
            if found is not None:
                conf = min((w.confidence for w in text_line.words), default=None)
                fields["report_date"] = HeaderField(
                    found.isoformat(),
                    text_line.text,
                    conf,
                    conf is not None and conf < REVIEW_BELOW,
                )
                break
    header = _header_json(fields)
    report = dt.date.fromisoformat(header["report_date"]) if header["report_date"] else None

    state: dict[str, Any] = {}
    lines = [line for part in doc.parts for line in _row_lines(part, doc.kind, state)]
    columns = _columns(doc.parts, report) if lines else []
    document: Json = {
        "document_type": doc.kind,
        "form_variant": None,
        "status": "done",
        "warnings": [],
        "locator": [{"page": p.table.page, "table": p.table.index} for p in doc.parts],
        "header": header,
        "columns": columns,
        "lines": lines,
    }
    result = recompute(document)
    document["form_variant"] = result.form_variant
    warnings: list[Json] = []
    refs: dict[str, str] = {}
    for line in lines:
        if line["line_status"] == "ok" and line["line_code"] not in refs:
            refs[line["line_code"]] = line["ref"]
        for value in line["values"]:
            suspect = value.pop("_suspect")
            unreadable = value.pop("_unreadable")
            covered = result.is_covered(line["ref"], value["column_index"])
            value["needs_review"] = bool((suspect or unreadable) and not covered)
            if unreadable:
                warnings.append(
                    _warning(
                        "VALUE_UNREADABLE",
                        "warning",
                        f"Значение не читается как сумма: «{value['text']}»",
                        line_refs=[line["ref"]],
                        column_index=value["column_index"],
                    )
                )
            elif value["needs_review"]:
                warnings.append(
                    _warning(
                        "VALUE_NEEDS_REVIEW",
                        "warning",
                        f"Сумма «{value['text']}» прочитана неуверенно как {value['amount']}",
                        line_refs=[line["ref"]],
                        column_index=value["column_index"],
                    )
                )
        low_code = (
            line["line_status"] == "ok"
            and line["line_code_confidence"] is not None
            and line["line_code_confidence"] < REVIEW_BELOW
            and not any(result.is_covered(line["ref"], v["column_index"]) for v in line["values"])
        )
        line["needs_review"] = bool(
            line["line_status"] in ("unreadable", "missing")
            or low_code
            or any(v["needs_review"] for v in line["values"])
        )
        if line["line_status"] == "unreadable":
            warnings.append(
                _warning(
                    "LINE_CODE_UNREADABLE",
                    "warning",
                    f"Код строки «{line['line_name'] or ''}» не распознан: «{line['line_code_text']}»",
                    line_refs=[line["ref"]],
                )
            )
        elif line["line_status"] == "missing":
            warnings.append(
                _warning(
                    "LINE_CODE_MISSING",
                    "warning",
                    f"У строки «{line['line_name'] or ''}» нет кода",
                    line_refs=[line["ref"]],
                )
            )
    if result.checks is not None:
        document["checks"] = result.checks.to_dict()
        for failures, code, severity, what in (
            (result.checks.relations_failed, "RELATION_FAILED", "error", "Соотношение"),
            (
                result.checks.soft_relations_failed,
                "SOFT_RELATION_FAILED",
                "warning",
                "Мягкое соотношение",
            ),
        ):
            for f in failures:
                warnings.append(
                    _warning(
                        code,
                        severity,
                        f"{what} {f.relation} не выполняется: сумма {f.expected}, в отчёте {f.actual}",
                        line_refs=[refs[c] for c in f.codes if c in refs] or None,
                        column_index=f.column_index,
                    )
                )
    if not lines:
        warnings.append(
            _warning("NO_LINES", "warning", "В таблице формы не найдено ни одной строки")
        )
    document["warnings"] = warnings
    needs_check = bool(
        (result.checks is not None and result.checks.relations_failed)
        or any(line["needs_review"] for line in lines)
        or header["needs_review_fields"]
        or not lines
    )
    document["status"] = "needs_check" if needs_check else "done"
    return document


# -- the whole result set ----------------------------------------------------------------------


def map_items(
    items: Sequence[Item], warnings: Sequence[FileWarning] = (), raw_s3_key: str | None = None
) -> Recognition:
    """The documents of a result set; `warnings` are file warnings found while fetching it."""
    file_warnings = [w.to_json() for w in warnings]
    docs: list[_Doc] = []
    for item in sorted(items, key=lambda i: i.page):
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
                        f"Таблица {table.table_id} (стр. {table.page}) не отнесена ни к одной форме",
                        locator,
                    ).to_json()
                )
                continue
            titled = _title_kind([item_line.text for item_line in item.lines]) is not None
            part = _Part(table, layout, kind, item.lines if table.index == 0 else (), titled)
            last = docs[-1] if docs else None
            if last is not None and last.kind == kind and not (titled and table.index == 0):
                last.parts.append(part)
            else:
                docs.append(_Doc(kind, [part]))
    documents: list[Json] = []
    for doc in docs:
        try:
            documents.append(_document(doc))
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
    return Recognition(
        documents=documents,
        warnings=file_warnings,
        group_schema="rsbu" if documents else None,
        statements_version=statements_version if documents else None,
        raw_s3_key=raw_s3_key,
    )
