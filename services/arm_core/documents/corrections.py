"""Analysts' corrections: validated, stored beside the recognised document, applied on read.

A correction never overwrites what was recognised (the document rows stay as the service sent
them); the corrected document is the normalised one with every correction applied in order,
and its checks are recomputed by `arm_statements.recheck` on the corrected values with the rule
the recognition used (`CheckRule.of_document` of the recognised document: the same variant,
complete or partial lines), so a correction never makes a relation fail that does not involve
it. Only statement forms are corrected here: an ОСВ has no relations to recompute and its rows
are read as sent.

Once corrected, a statement's flags and status are those of the corrected values, by the
rule the recognisers use (`arm_statements.document`): a corrected or confirmed value no longer
needs review, nor does a doubted value that a relation holding after the corrections covers; a
line keeps its own doubt (its code unreadable or missing, or flagged with none of its values
flagged: a repeated or uncertain code) until its code is corrected; the status is
`needs_check` while a hard relation fails or a line or header field needs review, else `done`.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from services.arm_core.db.documents import Document
from services.arm_core.db.models import Correction, CorrectionKind
from services.arm_core.documents.read import DocumentBody, load_document, normalised_document
from services.arm_core.documents.store import is_osv
from services.arm_core.exceptions import DoubtsLeft, InvalidCorrection
from services.arm_statements.money import format_amount, parse_amount, too_precise
from services.arm_statements.recomputation import CheckRule, recheck
from services.contract.models.result_v2_dicts import (
    OsvDocument,
    StatementChecks,
    StatementColumn,
    StatementDocument,
    StatementHeader,
    StatementLine,
    StatementValue,
)

__all__ = [
    "HEADER_FIELDS",
    "CorrectedDocument",
    "CorrectionRequest",
    "add_correction",
    "apply_corrections",
    "as_statement",
    "correction_json",
    "doubts_left",
    "list_corrections",
    "load_corrected",
    "own_doubt",
    "statement_lines",
]

HEADER_FIELDS: dict[str, str] = {
    "organization_name": "Организация",
    "inn": "ИНН",
    "report_date": "Отчётная дата",
    "units": "Единица измерения",
    "okud": "ОКУД",
    "okpo": "ОКПО",
    "okopf": "ОКОПФ",
    "okfs": "ОКФС",
    "okei": "ОКЕИ",
    "address": "Адрес",
}
"""The header fields an analyst may correct, with their Russian names."""

_LINE_CODE = re.compile(r"^\d{4,5}$")
_HEADER_PATTERNS: dict[str, tuple[re.Pattern[str], str]] = {
    "inn": (re.compile(r"^(\d{10}|\d{12})$"), "ИНН — 10 или 12 цифр"),
    "okud": (re.compile(r"^\d{7}$"), "ОКУД — 7 цифр"),
    "okpo": (re.compile(r"^\d{8,10}$"), "ОКПО — 8–10 цифр"),
    "okopf": (re.compile(r"^\d{5}$"), "ОКОПФ — 5 цифр"),
    "okfs": (re.compile(r"^\d{2}$"), "ОКФС — 2 цифры"),
    "okei": (re.compile(r"^\d{3}$"), "ОКЕИ — 3 цифры"),
}


@dataclass(frozen=True, slots=True)
class CorrectionRequest:
    """What the analyst asked: a kind and where (line position, column, header field);
    `confirm_doubts`: for the review mark, the number of doubts the analyst knowingly leaves."""

    kind: CorrectionKind
    line: int | None = None
    column_index: int | None = None
    field: str | None = None
    value: str | None = None
    confirm_doubts: int | None = None


_Body = TypeVar("_Body", bound=DocumentBody, covariant=True)
_Normal = TypeVar("_Normal", bound=DocumentBody)


@dataclass(frozen=True, slots=True)
class CorrectedDocument(Generic[_Body]):
    """The normalised document with the corrections applied and its checks recomputed.

    `corrected` holds `(line, column_index)` of corrected or confirmed values, `fields` the
    corrected header fields, `codes` the lines whose code was corrected, `settled` the
    doubted values a relation that holds after the corrections now confirms.
    """

    document: _Body
    corrections: tuple[Correction, ...]
    corrected: frozenset[tuple[int, int]]
    codes: frozenset[int]
    fields: frozenset[str]
    recognised_status: str | None = None
    settled: frozenset[tuple[int, int]] = frozenset()

    @property
    def statement(self) -> StatementDocument:
        """The document as a statement form (an ОСВ is refused: ask `is_osv` first)."""
        if self.document.get("document_type") == "OSV":
            raise TypeError("an ОСВ is not a statement form")
        return cast(StatementDocument, self.document)

    @property
    def osv(self) -> OsvDocument:
        """The document as an ОСВ (a statement form is refused: ask `is_osv` first)."""
        if self.document.get("document_type") != "OSV":
            raise TypeError("a statement form is not an ОСВ")
        return cast(OsvDocument, self.document)

    @property
    def reviewed(self) -> Correction | None:
        """The latest `reviewed` mark, if any."""
        marks = [c for c in self.corrections if c.kind == CorrectionKind.REVIEWED.value]
        return marks[-1] if marks else None


async def list_corrections(session: AsyncSession, document_id: uuid.UUID) -> list[Correction]:
    """A document's corrections in the order they were made."""
    result = await session.scalars(
        select(Correction).where(Correction.document_id == document_id).order_by(Correction.id)
    )
    return list(result.all())


async def load_corrected(
    session: AsyncSession, document_id: uuid.UUID
) -> tuple[Document, CorrectedDocument[DocumentBody]] | None:
    """A stored document and its corrected form (an ОСВ without its rows: they are paged)."""
    document = await load_document(session, document_id)
    if document is None:
        return None
    normal = normalised_document(document)
    return document, apply_corrections(normal, await list_corrections(session, document_id))


def correction_json(correction: Correction) -> dict[str, Any]:
    """A correction as the API shows it."""
    return {
        "id": correction.id,
        "kind": correction.kind,
        "line": correction.line,
        "column_index": correction.column_index,
        "field": correction.field,
        "old_value": correction.old_value,
        "new_value": correction.new_value,
        "author": correction.author,
        "created_at": correction.created_at.isoformat(),
    }


def _line(document: StatementDocument, index: int | None) -> tuple[int, StatementLine]:
    """The line at `index` with its index; refused when the document has no such line."""
    lines = document.get("lines") or []
    if index is None or not 0 <= index < len(lines):
        raise InvalidCorrection(f"в документе нет строки {index}")
    return index, lines[index]


def _value(
    line: StatementLine, column_index: int | None, columns: Sequence[StatementColumn]
) -> StatementValue:
    """The line's value in the column (a blank one when the line has none there)."""
    known = {c.get("column_index") for c in columns}
    if column_index is None or column_index not in known:
        raise InvalidCorrection(f"в документе нет колонки {column_index}")
    for value in line.get("values") or []:
        if value.get("column_index") == column_index:
            return value
    return {
        "column_index": column_index,
        "amount": None,
        "string_value": None,
        "text": None,
        "confidence": None,
        "is_recognized": False,
        "needs_review": False,
    }


def _with_value(line: StatementLine, value: StatementValue) -> StatementLine:
    """The line with `value` in its column: replacing the one there, or added last."""
    column = value["column_index"]
    values = line.get("values") or []
    if any(v.get("column_index") == column for v in values):
        return {**line, "values": [value if v.get("column_index") == column else v for v in values]}
    return {**line, "values": [*values, value]}


def _with_line(document: StatementDocument, index: int, line: StatementLine) -> StatementDocument:
    lines = list(document.get("lines") or [])
    lines[index] = line
    return {**document, "lines": lines}


def _amount(text: str | None) -> str:
    """The typed amount as a contract money string; refused when it is no amount, or when it
    has more decimals than the contract holds («0,013» per share): never rounded silently."""
    if too_precise(text):
        raise InvalidCorrection(
            f"«{text}» — больше двух знаков после запятой: сумма хранится с точностью до "
            "копеек и не будет округлена; оставьте значение пустым и опишите его в комментарии"
        )
    amount = parse_amount((text or "").strip())
    if amount is None:
        raise InvalidCorrection(
            f"«{text or ''}» — не сумма: введите число, например 1234, -500, (500) или 1 234,56"
        )
    return format_amount(amount)


def _header_value(field: str | None, text: str | None) -> str:
    if field not in HEADER_FIELDS:
        raise InvalidCorrection(f"поле шапки «{field}» не исправляется")
    value = (text or "").strip()
    if not value:
        raise InvalidCorrection(f"{HEADER_FIELDS[field]}: пустое значение")
    if field == "report_date":
        return _date(value)
    rule = _HEADER_PATTERNS.get(field)
    if rule is not None and not rule[0].match(value):
        raise InvalidCorrection(f"«{value}» — не подходит: {rule[1]}")
    return value


def _date(value: str) -> str:
    for pattern in ("%Y-%m-%d", "%d.%m.%Y"):
        try:
            return dt.datetime.strptime(value, pattern).date().isoformat()
        except ValueError:
            continue
    raise InvalidCorrection(f"«{value}» — не дата: введите ДД.ММ.ГГГГ")


def _corrected_header(header: StatementHeader, field: str, value: str | None) -> StatementHeader:
    """The header with `field` (one of HEADER_FIELDS, a key chosen at run time) set and no
    longer doubted."""
    fields = header.get("needs_review_fields") or []
    corrected: dict[str, object] = {
        **header,
        field: value,
        "needs_review_fields": [f for f in fields if f != field],
    }
    return cast(StatementHeader, corrected)


def _apply(document: StatementDocument, correction: Correction) -> StatementDocument:
    """The document with one stored correction applied (a new document; `document` is kept)."""
    kind = correction.kind
    if kind == CorrectionKind.HEADER.value:
        header = document.get("header") or cast(StatementHeader, {})
        return {
            **document,
            "header": _corrected_header(header, correction.field or "", correction.new_value),
        }
    if kind == CorrectionKind.REVIEWED.value:
        return document
    index, line = _line(document, correction.line)
    if kind == CorrectionKind.LINE_CODE.value:
        return _with_line(
            document, index, {**line, "line_code": correction.new_value, "line_status": "ok"}
        )
    value = _value(line, correction.column_index, document.get("columns") or [])
    if kind == CorrectionKind.VALUE.value:
        value = {**value, "amount": correction.new_value, "is_recognized": True}
    return _with_line(document, index, _with_value(line, {**value, "needs_review": False}))


def _values_doubted(line: StatementLine) -> bool:
    return any(v.get("needs_review") for v in line.get("values") or [])


def as_statement(document: DocumentBody) -> StatementDocument | None:
    """The document as a statement form; None for an ОСВ."""
    if document.get("document_type") == "OSV":
        return None
    return cast(StatementDocument, document)


def statement_lines(document: DocumentBody) -> list[StatementLine]:
    """A statement's lines; none for an ОСВ (its rows are paged apart)."""
    statement = as_statement(document)
    return (statement.get("lines") or []) if statement is not None else []


def own_doubt(line: StatementLine) -> bool:
    """Whether a recognised line is doubted for itself, not only for its values: its code is
    unreadable or missing, or it is flagged while none of its values is (a repeated code, an
    uncertain one)."""
    if not line.get("needs_review"):
        return False
    return line.get("line_status") in ("unreadable", "missing") or not _values_doubted(line)


def doubts_left(document: DocumentBody) -> int | None:
    """Values, lines (for their own sake) and header fields that still need review; None for
    an ОСВ, whose rows are not in the corrected document (they are paged, never corrected)."""
    statement = as_statement(document)
    if statement is None:
        return None
    lines = statement.get("lines") or []
    values = sum(bool(v.get("needs_review")) for ln in lines for v in ln.get("values") or [])
    own = sum(own_doubt(ln) for ln in lines)
    fields = len((statement.get("header") or {}).get("needs_review_fields") or [])
    return values + own + fields


def _reflagged(
    document: StatementDocument, doubted: set[int], codes: set[int]
) -> StatementDocument:
    """The document with each line's flag and its status from the corrected values (the
    module's rule); `doubted` are the lines with their own doubt, `codes` the lines whose code
    an analyst corrected."""
    lines: list[StatementLine] = [
        {**line, "needs_review": (index in doubted and index not in codes) or _values_doubted(line)}
        for index, line in enumerate(document.get("lines") or [])
    ]
    reflagged: StatementDocument = {**document, "lines": lines}
    if document.get("status") not in ("done", "needs_check"):
        return reflagged  # a 1.x document's `error` is the producer's word, not a review state
    header: Mapping[str, object] = document.get("header") or {}
    checks: Mapping[str, object] = document.get("checks") or {}
    needs_check = bool(
        checks.get("relations_failed")
        or any(line.get("needs_review") for line in lines)
        or header.get("needs_review_fields")
        or (document.get("document_type") in ("BALANCE", "INCOME") and not lines)
    )
    return {**reflagged, "status": "needs_check" if needs_check else "done"}


def _rechecked(
    document: StatementDocument, rule: CheckRule
) -> tuple[StatementDocument, frozenset[tuple[int, int]]]:
    """The corrected document rechecked by the rule its recognition used, each doubted value a
    holding relation now covers settled (as the builder does); and `(line, column)` settled."""
    if document.get("document_type") not in _CHECKED:
        return document, frozenset()
    result = recheck(document, rule)
    if result.checks is None:
        return document, frozenset()
    checks: dict[str, object] = {**(document.get("checks") or {}), **result.checks.to_dict()}
    covered = {(c.line_index, c.column_index) for c in result.covered}
    settled: set[tuple[int, int]] = set()
    lines: list[StatementLine] = []
    for index, line in enumerate(document.get("lines") or []):
        values: list[StatementValue] = []
        for value in line.get("values") or []:
            place = (index, value.get("column_index"))
            if place in covered and value.get("needs_review"):
                value = {**value, "needs_review": False}
                settled.add((index, value["column_index"]))
            values.append(value)
        lines.append({**line, "values": values} if "values" in line else line)
    return {**document, "checks": cast(StatementChecks, checks), "lines": lines}, frozenset(settled)


_CHECKED = frozenset({"BALANCE", "INCOME", "DISCLOSURE"})


def apply_corrections(
    normalised: _Normal, corrections: Sequence[Correction]
) -> CorrectedDocument[_Normal]:
    """The normalised document with `corrections` applied in order and checks recomputed: a
    new document, `normalised` is left as it was (parts no correction touched are shared).

    Without corrections the document is returned as recognised (its checks as the service
    computed them), so an uncorrected document reads exactly as before. An ОСВ takes only
    review marks: it reads as recognised.
    """
    corrected: set[tuple[int, int]] = set()
    codes: set[int] = set()
    fields: set[str] = set()
    for correction in corrections:
        if correction.kind in (CorrectionKind.VALUE.value, CorrectionKind.CONFIRM.value):
            corrected.add((correction.line or 0, correction.column_index or 0))
        elif correction.kind == CorrectionKind.LINE_CODE.value:
            codes.add(correction.line or 0)
        elif correction.kind == CorrectionKind.HEADER.value:
            fields.add(correction.field or "")
    document: DocumentBody = normalised
    settled: frozenset[tuple[int, int]] = frozenset()
    changes = [c for c in corrections if c.kind != CorrectionKind.REVIEWED.value]
    if changes and normalised.get("document_type") != "OSV":
        statement = cast(StatementDocument, normalised)
        doubted = {i for i, line in enumerate(statement.get("lines") or []) if own_doubt(line)}
        for correction in changes:
            statement = _apply(statement, correction)
        statement, settled = _rechecked(statement, CheckRule.of_document(normalised))
        document = _reflagged(statement, doubted, codes)
    return CorrectedDocument(
        cast(_Normal, document),  # a statement stays a statement
        tuple(corrections),
        frozenset(corrected),
        frozenset(codes),
        frozenset(fields),
        status if isinstance(status := normalised.get("status"), str) else None,
        settled - corrected,
    )


def _old_and_new(
    document: StatementDocument, request: CorrectionRequest
) -> tuple[str | None, str | None]:
    """Validate the request against the current corrected document: (old, new) values."""
    kind = request.kind
    if kind == CorrectionKind.REVIEWED:
        return None, None
    if kind == CorrectionKind.HEADER:
        new = _header_value(request.field, request.value)
        header: Mapping[str, object] = document.get("header") or {}
        old = header.get(request.field or "")
        return (None if old is None else str(old)), new
    _index, line = _line(document, request.line)
    if kind == CorrectionKind.LINE_CODE:
        code = (request.value or "").strip()
        if not _LINE_CODE.match(code):
            raise InvalidCorrection(f"«{code}» — не код строки: 4 или 5 цифр, например 2110")
        return line.get("line_code"), code
    old = _value(line, request.column_index, document.get("columns") or []).get("amount")
    if kind == CorrectionKind.CONFIRM:
        return old, old
    return old, _amount(request.value)


async def add_correction(
    session: AsyncSession, document: Document, request: CorrectionRequest, *, author: str
) -> Correction:
    """Validate `request` against the corrected document and store it (the caller commits).

    Raises `InvalidCorrection` (with the reason) for an ОСВ, an unknown line, column or field,
    or a value that is not an amount, a line code or a valid header field; `DoubtsLeft` for a
    review mark while doubts remain whose count the request did not confirm exactly. The mark
    keeps that confirmed count as its `new_value` (None: nothing was left in doubt).
    """
    if is_osv(document.document_type) and request.kind != CorrectionKind.REVIEWED:
        raise InvalidCorrection("строки ОСВ не исправляются; документ можно отметить проверенным")
    normal = normalised_document(document)
    current = apply_corrections(normal, await list_corrections(session, document.id))
    old, new = _old_and_new(current.statement, request)
    if request.kind == CorrectionKind.REVIEWED:
        doubts = doubts_left(current.document)
        if doubts and request.confirm_doubts != doubts:
            raise DoubtsLeft(doubts, request.confirm_doubts)
        new = str(doubts) if doubts else None
    correction = Correction(
        document_id=document.id,
        kind=request.kind.value,
        line=request.line if request.kind not in _NO_LINE else None,
        column_index=request.column_index if request.kind in _WITH_COLUMN else None,
        field=request.field if request.kind == CorrectionKind.HEADER else None,
        old_value=old,
        new_value=new,
        author=author,
    )
    session.add(correction)
    await session.flush()
    return correction


_NO_LINE = frozenset({CorrectionKind.HEADER, CorrectionKind.REVIEWED})
_WITH_COLUMN = frozenset({CorrectionKind.VALUE, CorrectionKind.CONFIRM})
