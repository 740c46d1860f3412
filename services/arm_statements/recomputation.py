"""Recomputing form variant, checks and covered values from a contract-shaped document.

Reads a statementDocument dict of the 2.0 shape (``lines[]`` with ``line_status``,
``line_code``, ``values[] {column_index, amount}``) or of the 1.x shape (``line_code`` always a
string, no ``line_status``): arm-core's 1.x mapper and the services share this entry point.
The document is read into ``CheckedLine``s (amounts as Decimals); the builder, which has its
reads typed already, hands those to ``recheck_lines`` directly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from services.arm_statements.catalogue import target_use_line
from services.arm_statements.checks import (
    DEFAULT_TOLERANCE,
    Checks,
    evaluate_relations,
)
from services.arm_statements.exceptions import InvalidDocumentError
from services.arm_statements.line import FormVariant
from services.arm_statements.money import parse_money
from services.arm_statements.variant import detect_form_variant

__all__ = [
    "CheckRule",
    "CheckedLine",
    "CoveredValue",
    "RecomputeResult",
    "recheck",
    "recheck_lines",
    "recompute",
]

_CODE = re.compile(r"^\d{3,5}$")
_PARTIAL_WARNINGS = frozenset({"CODES_INFERRED", "LEGACY_FORM_MAPPED"})
_PARTIAL_STATUSES = frozenset({"unreadable", "missing"})
_VARIANTS: dict[object, FormVariant | Literal["detect"] | None] = {
    "full": "full",
    "simplified": "simplified",
    "detect": "detect",
    None: None,
}


@dataclass(frozen=True, slots=True)
class CoveredValue:
    """A value that takes part in a relation that holds in its column.

    ``line_index`` is the line's position in ``lines[]``; ``ref`` its ref (None in 1.x).
    scan-gateway sets needs_review = false on a dirty value that is covered.
    """

    line_index: int
    ref: str | None
    column_index: int


@dataclass(frozen=True, slots=True)
class RecomputeResult:
    """What recompute found for one document.

    ``checks`` is None for a document that gets no ``checks`` (no lines, or a DISCLOSURE other
    than the target-use report).
    ``duplicate_lines``: positions of lines whose code an earlier line already had (ignored).
    """

    document_type: str
    form_variant: FormVariant | None
    checks: Checks | None
    covered: frozenset[CoveredValue]
    duplicate_lines: tuple[int, ...] = ()
    rounded: frozenset[tuple[str, int]] = frozenset()
    """(code, column) of the values that hold a relation only within the tolerance, not
    exactly, and take part in no relation that holds exactly (a rounding difference, or a
    digit misread by a few units: OCR reads review them)."""

    @property
    def covered_refs(self) -> frozenset[tuple[str, int]]:
        """``(ref, column_index)`` of every covered value of a line that has a ref."""
        return frozenset((c.ref, c.column_index) for c in self.covered if c.ref is not None)

    def is_covered(self, ref: str, column_index: int) -> bool:
        """Whether the value of line ``ref`` in ``column_index`` is covered by a holding relation."""
        return (ref, column_index) in self.covered_refs


@dataclass(frozen=True, slots=True)
class CheckedLine:
    """What the checks read of one line, amounts as Decimals: its status (``ok`` for a coded
    line), its code, ``ref`` and name, and its ``(column_index, amount)`` values in order.

    The builder hands its typed reads over as these, so an amount is never written as a
    money string only to be parsed back; a contract document is read into them first.
    """

    status: str
    code: str | None
    ref: str | None
    name: str | None
    values: Sequence[tuple[int, Decimal | None]]


@dataclass(frozen=True, slots=True)
class _Read:
    values: dict[str, dict[int, Decimal | None]]
    positions: dict[str, tuple[int, str | None]]
    codes: list[str]
    names: list[str | None]
    duplicates: tuple[int, ...]


def _sequence(value: object, field: str) -> Sequence[object]:
    if value is None:
        return ()
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return value
    raise InvalidDocumentError(field, "must be an array")


def _mapping(value: object, field: str) -> Mapping[str, object]:
    if isinstance(value, Mapping):
        return value
    raise InvalidDocumentError(field, "must be an object")


def _line_values(line: Mapping[str, object], field: str) -> list[tuple[int, Decimal | None]]:
    values: list[tuple[int, Decimal | None]] = []
    for j, raw in enumerate(_sequence(line.get("values"), f"{field}.values")):
        value = _mapping(raw, f"{field}.values[{j}]")
        column = value.get("column_index")
        if isinstance(column, bool) or not isinstance(column, int):
            raise InvalidDocumentError(f"{field}.values[{j}].column_index", "must be an integer")
        values.append((column, parse_money(value.get("amount"))))
    return values


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _checked_line(raw: object, field: str, seen: set[str]) -> CheckedLine:
    """A contract line (2.0, or 1.x without ``line_status``: every line is coded) as the
    checks read it; the values of a line that takes no part (uncoded, or its code `seen` on
    an earlier line) are not read."""
    line = _mapping(raw, field)
    status = line.get("line_status", "ok")
    code = _text(line.get("line_code"))
    takes_part = status == "ok" and code is not None and _CODE.match(code.strip()) is not None
    if takes_part and code is not None:
        takes_part = code.strip() not in seen
        seen.add(code.strip())
    return CheckedLine(
        str(status),
        code,
        _text(line.get("ref")),
        _text(line.get("line_name")),
        _line_values(line, field) if takes_part else (),
    )


def _read_lines(lines: Sequence[CheckedLine]) -> _Read:
    values: dict[str, dict[int, Decimal | None]] = {}
    positions: dict[str, tuple[int, str | None]] = {}
    codes: list[str] = []
    names: list[str | None] = []
    duplicates: list[int] = []
    for i, line in enumerate(lines):
        if line.status != "detail":
            names.append(line.name)
        code = line.code
        if line.status != "ok" or code is None or not _CODE.match(code.strip()):
            continue
        code = code.strip()
        if code in values:
            duplicates.append(i)
            continue
        by_column: dict[int, Decimal | None] = {}
        for column, amount in line.values:
            by_column.setdefault(column, amount)  # first wins
        values[code] = by_column
        positions[code] = (i, line.ref)
        codes.append(code)
    return _Read(values, positions, codes, names, tuple(duplicates))


def _checked(document_type: str, codes: Sequence[str]) -> bool:
    """A balance / ОФР, or the one DISCLOSURE with relations: the target-use report (a line of
    it printed); every other disclosure gets no ``checks``."""
    if document_type == "DISCLOSURE":
        return any(target_use_line(code) is not None for code in codes)
    return document_type in ("BALANCE", "INCOME")


def recompute(
    document: Mapping[str, object],
    *,
    tolerance: Decimal = DEFAULT_TOLERANCE,
    form_variant: FormVariant | Literal["detect"] | None = "detect",
    complete: bool = True,
) -> RecomputeResult:
    """Form variant, checks and covered values of a statementDocument (2.0 or 1.x shape).

    Only lines with status ok (every line in 1.x) and a code take part; of two lines with the
    same code the first wins (the rule of the 1.x mapper), and so does the first value of a
    column within a line. Detail, unreadable and missing lines are ignored. The variant is
    decided from the structure of the codes (names as fallback) unless ``form_variant`` is
    given. Amounts that are not money strings count as missing. ``complete=False``: a relation
    is checked only when all its lines are present (``check_lines``).
    """
    doc = _mapping(document, "document")
    document_type = doc.get("document_type")
    if not isinstance(document_type, str):
        raise InvalidDocumentError("document_type", "must be a string")
    lines = _sequence(doc.get("lines"), "lines")
    seen: set[str] = set()
    checked = [_checked_line(line, f"lines[{i}]", seen) for i, line in enumerate(lines)]
    return _recompute(document_type, checked, tolerance, form_variant, complete)


def _recompute(
    document_type: str,
    lines: Sequence[CheckedLine],
    tolerance: Decimal,
    form_variant: FormVariant | Literal["detect"] | None,
    complete: bool,
) -> RecomputeResult:
    read = _read_lines(lines)
    if form_variant == "detect":
        variant = detect_form_variant(document_type, read.codes, read.names)
    else:
        variant = form_variant if document_type in ("BALANCE", "INCOME") else None
    if not lines or not _checked(document_type, read.codes):
        return RecomputeResult(document_type, variant, None, frozenset(), read.duplicates)
    outcomes = evaluate_relations(
        document_type, variant, read.values, tolerance=tolerance, complete=complete
    )
    covered = frozenset(
        CoveredValue(*read.positions[code], outcome.column_index)
        for outcome in outcomes
        if outcome.holds
        for code in outcome.present
    )
    exact = {
        (c, o.column_index)
        for o in outcomes
        if o.holds and o.actual == o.expected
        for c in o.present
    }
    rounded = frozenset(
        (code, o.column_index)
        for o in outcomes
        if o.holds and o.actual != o.expected
        for code in o.present
        if (code, o.column_index) not in exact
    )
    return RecomputeResult(
        document_type, variant, Checks.of(outcomes), covered, read.duplicates, rounded
    )


@dataclass(frozen=True, slots=True)
class CheckRule:
    """How a document's relations are checked: the form variant (or ``"detect"``) and whether
    its lines are complete (absent lines count as 0) or partial (a relation is checked only
    when all its lines are present: codes inferred from names, mapped from the pre-2011 form,
    or a code unreadable or missing).

    The builder decides the rule from what the recogniser read; ``of_document`` reads the same
    rule back from the document it built, so a correction is rechecked exactly as the
    document was (a correction then never makes a relation fail that does not involve it).
    """

    form_variant: FormVariant | Literal["detect"] | None
    complete: bool

    @classmethod
    def of_document(cls, document: Mapping[str, object]) -> CheckRule:
        """The rule a built (or 1.x-mapped) document was checked by: its stored
        ``form_variant`` (``"detect"`` when the key is absent), and partial when a warning
        says codes were inferred or mapped or a line's code is unreadable or missing.

        Read it from the document as recognised, before corrections: a corrected code turns
        an unreadable line ok, but the lines the recogniser failed to map stay unmapped.
        """
        doc = _mapping(document, "document")
        raw = doc.get("form_variant", "detect")
        if not (raw is None or isinstance(raw, str)) or raw not in _VARIANTS:
            raise InvalidDocumentError("form_variant", "must be full, simplified or null")
        variant = _VARIANTS[raw]
        warnings = _sequence(doc.get("warnings"), "warnings")
        partial = any(
            isinstance(w, Mapping) and w.get("code") in _PARTIAL_WARNINGS for w in warnings
        ) or any(
            isinstance(line, Mapping) and line.get("line_status") in _PARTIAL_STATUSES
            for line in _sequence(doc.get("lines"), "lines")
        )
        return cls(variant, not partial)


def recheck(
    document: Mapping[str, object],
    rule: CheckRule,
    *,
    tolerance: Decimal = DEFAULT_TOLERANCE,
) -> RecomputeResult:
    """The checks of ``document`` by ``rule``: the one entry the builder (on what it read)
    and arm-core (on the corrected document, with the rule of the recognised one) share."""
    return recompute(
        document, tolerance=tolerance, form_variant=rule.form_variant, complete=rule.complete
    )


def recheck_lines(
    document_type: str,
    lines: Sequence[CheckedLine],
    rule: CheckRule,
    *,
    tolerance: Decimal = DEFAULT_TOLERANCE,
) -> RecomputeResult:
    """``recheck`` of lines already read (the builder's): the same checks, amounts as they are."""
    return _recompute(document_type, lines, tolerance, rule.form_variant, rule.complete)
