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

import copy
import datetime as dt
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from services.arm_core.db.documents import Document
from services.arm_core.db.models import Correction, CorrectionKind
from services.arm_core.documents.read import load_document, normalised_document
from services.arm_core.documents.store import is_osv
from services.arm_core.exceptions import DoubtsLeft, InvalidCorrection
from services.arm_statements.money import format_amount, parse_amount, too_precise
from services.arm_statements.recompute import CheckRule, recheck

__all__ = [
    "HEADER_FIELDS",
    "CorrectedDocument",
    "CorrectionRequest",
    "add_correction",
    "apply_corrections",
    "correction_json",
    "doubts_left",
    "list_corrections",
    "load_corrected",
    "own_doubt",
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


@dataclass(frozen=True, slots=True)
class CorrectedDocument:
    """The normalised document with the corrections applied and its checks recomputed.

    `corrected` holds `(line, column_index)` of corrected or confirmed values, `fields` the
    corrected header fields, `codes` the lines whose code was corrected, `settled` the
    doubted values a relation that holds after the corrections now confirms.
    """

    document: dict[str, Any]
    corrections: tuple[Correction, ...]
    corrected: frozenset[tuple[int, int]]
    codes: frozenset[int]
    fields: frozenset[str]
    recognised_status: str | None = None
    settled: frozenset[tuple[int, int]] = frozenset()

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
) -> tuple[Document, CorrectedDocument] | None:
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


def _line(document: dict[str, Any], index: int | None) -> dict[str, Any]:
    lines = document.get("lines") or []
    if index is None or not 0 <= index < len(lines):
        raise InvalidCorrection(f"в документе нет строки {index}")
    line: dict[str, Any] = lines[index]
    return line


def _value(
    line: dict[str, Any], column_index: int | None, columns: Sequence[Any]
) -> dict[str, Any]:
    known = {c.get("column_index") for c in columns}
    if column_index is None or column_index not in known:
        raise InvalidCorrection(f"в документе нет колонки {column_index}")
    for value in line.get("values") or []:
        if value.get("column_index") == column_index:
            found: dict[str, Any] = value
            return found
    created: dict[str, Any] = {
        "column_index": column_index,
        "amount": None,
        "string_value": None,
        "text": None,
        "confidence": None,
        "is_recognized": False,
        "needs_review": False,
    }
    line.setdefault("values", []).append(created)
    return created


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


def _apply(document: dict[str, Any], correction: Correction) -> None:
    """Apply one stored correction to the document dict (in place)."""
    kind = correction.kind
    if kind == CorrectionKind.HEADER.value:
        header = dict(document.get("header") or {})
        document["header"] = header
        header[correction.field or ""] = correction.new_value
        fields = header.get("needs_review_fields") or []
        header["needs_review_fields"] = [f for f in fields if f != correction.field]
        return
    if kind == CorrectionKind.REVIEWED.value:
        return
    line = _line(document, correction.line)
    if kind == CorrectionKind.LINE_CODE.value:
        line["line_code"] = correction.new_value
        line["line_status"] = "ok"
        return
    value = _value(line, correction.column_index, document.get("columns") or [])
    if kind == CorrectionKind.VALUE.value:
        value["amount"] = correction.new_value
        value["is_recognized"] = True
    value["needs_review"] = False


def _values_doubted(line: dict[str, Any]) -> bool:
    return any(v.get("needs_review") for v in line.get("values") or [])


def own_doubt(line: dict[str, Any]) -> bool:
    """Whether a recognised line is doubted for itself, not only for its values: its code is
    unreadable or missing, or it is flagged while none of its values is (a repeated code, an
    uncertain one)."""
    if not line.get("needs_review"):
        return False
    return line.get("line_status") in ("unreadable", "missing") or not _values_doubted(line)


def doubts_left(document: dict[str, Any]) -> int | None:
    """Values, lines (for their own sake) and header fields that still need review; None for
    an ОСВ, whose rows are not in the corrected document (they are paged, never corrected)."""
    if document.get("document_type") == "OSV":
        return None
    lines = document.get("lines") or []
    values = sum(bool(v.get("needs_review")) for ln in lines for v in ln.get("values") or [])
    own = sum(own_doubt(ln) for ln in lines)
    fields = len((document.get("header") or {}).get("needs_review_fields") or [])
    return values + own + fields


def _reflag(document: dict[str, Any], doubted: set[int], codes: set[int]) -> None:
    """Each line's flag and the document's status from the corrected values (the module's
    rule); `doubted` are the lines with their own doubt, `codes` the lines whose code an
    analyst corrected."""
    lines = document.get("lines") or []
    for index, line in enumerate(lines):
        line["needs_review"] = (index in doubted and index not in codes) or _values_doubted(line)
    if document.get("status") not in ("done", "needs_check"):
        return  # a 1.x document's `error` is the producer's word, not a review state
    header = document.get("header") or {}
    checks = document.get("checks") or {}
    needs_check = bool(
        checks.get("relations_failed")
        or any(line.get("needs_review") for line in lines)
        or header.get("needs_review_fields")
        or (document.get("document_type") in ("BALANCE", "INCOME") and not lines)
    )
    document["status"] = "needs_check" if needs_check else "done"


def _recheck(document: dict[str, Any], rule: CheckRule) -> frozenset[tuple[int, int]]:
    """Recheck the corrected document by the rule its recognition used and settle each doubted
    value a holding relation now covers (as the builder does): `(line, column)` settled."""
    if document.get("document_type") not in _CHECKED:
        return frozenset()
    result = recheck(document, rule)
    if result.checks is None:
        return frozenset()
    checks = dict(document.get("checks") or {})
    checks.update(result.checks.to_dict())
    document["checks"] = checks
    lines = document.get("lines") or []
    settled: set[tuple[int, int]] = set()
    for covered in result.covered:
        for value in lines[covered.line_index].get("values") or []:
            if value.get("column_index") == covered.column_index and value.get("needs_review"):
                value["needs_review"] = False
                settled.add((covered.line_index, covered.column_index))
    return frozenset(settled)


_CHECKED = frozenset({"BALANCE", "INCOME", "DISCLOSURE"})


def apply_corrections(
    normalised: dict[str, Any], corrections: Sequence[Correction]
) -> CorrectedDocument:
    """The normalised document with `corrections` applied in order and checks recomputed.

    Without corrections the document is returned as recognised (its checks as the service
    computed them), so an uncorrected document reads exactly as before.
    """
    document = copy.deepcopy(normalised)
    doubted = {i for i, line in enumerate(document.get("lines") or []) if own_doubt(line)}
    corrected: set[tuple[int, int]] = set()
    codes: set[int] = set()
    fields: set[str] = set()
    for correction in corrections:
        _apply(document, correction)
        if correction.kind in (CorrectionKind.VALUE.value, CorrectionKind.CONFIRM.value):
            corrected.add((correction.line or 0, correction.column_index or 0))
        elif correction.kind == CorrectionKind.LINE_CODE.value:
            codes.add(correction.line or 0)
        elif correction.kind == CorrectionKind.HEADER.value:
            fields.add(correction.field or "")
    settled: frozenset[tuple[int, int]] = frozenset()
    if any(c.kind != CorrectionKind.REVIEWED.value for c in corrections):
        settled = _recheck(document, CheckRule.of_document(normalised))
        _reflag(document, doubted, codes)
    return CorrectedDocument(
        document,
        tuple(corrections),
        frozenset(corrected),
        frozenset(codes),
        frozenset(fields),
        normalised.get("status"),
        settled - corrected,
    )


def _old_and_new(
    document: dict[str, Any], request: CorrectionRequest
) -> tuple[str | None, str | None]:
    """Validate the request against the current corrected document: (old, new) values."""
    kind = request.kind
    if kind == CorrectionKind.REVIEWED:
        return None, None
    if kind == CorrectionKind.HEADER:
        new = _header_value(request.field, request.value)
        old = (document.get("header") or {}).get(request.field or "")
        return (None if old is None else str(old)), new
    line = _line(document, request.line)
    if kind == CorrectionKind.LINE_CODE:
        code = (request.value or "").strip()
        if not _LINE_CODE.match(code):
            raise InvalidCorrection(f"«{code}» — не код строки: 4 или 5 цифр, например 2110")
        return line.get("line_code"), code
    value = _value(copy.deepcopy(line), request.column_index, document.get("columns") or [])
    old = value.get("amount")
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
    old, new = _old_and_new(current.document, request)
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
