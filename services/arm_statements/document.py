"""One statementDocument (contract 2.0) from what a recogniser read: the rules both share.

A recogniser (the Excel sheets of tabular-parser, the OCR tables of scan-gateway) reads lines,
values, columns and header fields into the typed reads of this module; ``build_document`` turns
them into the contract's document and decides, the same way for both:
- a value needs review when its read says so (unreadable, a formula without a value, an
  uncertain OCR reading), its line's code was inferred from the name, or (OCR reads only,
  ``StatementRead.from_ocr``) it is a term of a hard relation that fails, and no relation that
  holds in its column covers it;
- a line needs review when its code is unreadable or missing, it repeats a code printed above,
  its code was read with a confidence under ``REVIEW_BELOW`` and no relation covers it, OCR
  read a code no form prints (``code_unknown``) that no holding relation confirms (2115 as a
  term of 2100 = 2110 + 2115 − 2120), or one of its values needs review;
- relations are checked over the lines with status ok (the first of a repeated code); when a
  code was inferred or a line's code is unreadable or missing, only relations all of whose
  lines are present (``check_lines(complete=False)``); codes inferred give CODES_INFERRED,
  codes of the pre-2011 form mapped onto 66n lines (``legacy_mapped``) LEGACY_FORM_MAPPED;
- a form with its own numbering (ОКУД 0420002 / 0420003) has ``form_variant`` null (it is
  neither variant, so no FORM_VARIANT_UNKNOWN): only the relations common to both are checked;
- columns resolve relative labels against the report date; without a report date in the
  header the first dated column gives it (confidence ``FROM_COLUMNS``);
- units «тыс. руб.» over amounts half of which carry kopecks are up for review (UNITS_DOUBTFUL);
- a value printing more than two decimals («0,013» per share) gets no amount: its text is kept,
  it needs review and VALUE_TOO_PRECISE names the line (rounding would change it silently);
- a balance / ОФР line whose clean code its form does not print (no catalogue line of that
  form, nor a break-down of one: «6011» read from an e-signature block) needs review with
  LINE_CODE_UNKNOWN, unless a holding relation counts every amount of it (2115);
- OCR reads only: a one- or two-digit value whose nearest amounts above and below in its column
  are far larger, and that no holding relation covers, needs review (VALUE_SMALL_OUTLIER: a
  blank cell's dash read as a digit looks exactly so);
- the status is ``needs_check`` when a hard relation fails, a line or header field needs
  review, or a balance / ОФР has no line; otherwise ``done`` (a soft failure warns only).
Warnings follow in a fixed order: the recogniser's own notes, columns, relations, NO_LINES,
the variant, the lines (code, repeat, name, values), the recogniser's closing notes, the header.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum
from typing import Any, Literal

from services.arm_statements.catalogue import lookup_line, parent_code
from services.arm_statements.checks import Checks
from services.arm_statements.forms import OWN_NUMBERING_OKUD, FormKind
from services.arm_statements.header_fields import HEADER_FIELDS
from services.arm_statements.money import format_amount, kopecks, parse_exact, too_precise
from services.arm_statements.periods import PeriodKind, resolve_relative
from services.arm_statements.recomputation import (
    CheckedLine,
    CheckRule,
    RecomputeResult,
    recheck_lines,
)
from services.arm_statements.text import fold
from services.arm_statements.warnings import DocumentWarning, StatementWarning

__all__ = [
    "FROM_COLUMNS",
    "REVIEW_BELOW",
    "ColumnRead",
    "HeaderField",
    "HeaderRead",
    "HeaderReview",
    "LineRead",
    "LineStatus",
    "StatementRead",
    "ValueIssue",
    "ValueRead",
    "build_document",
]

Json = dict[str, Any]
LineStatus = Literal["ok", "unreadable", "missing", "detail"]

REVIEW_BELOW = 80.0
"""A confidence under this puts a field, a value or a code up for review."""
FROM_COLUMNS = 80.0
"""The confidence of a report date taken from the first dated column."""


class ValueIssue(StrEnum):
    """What is wrong with a value cell, if anything."""

    UNREADABLE = "unreadable"  # no amount in the text; the raw text is kept
    FORMULA = "formula"  # a formula without a stored value
    FOOTNOTE = "footnote"  # a footnote number was cut after a bracket; the amount is sure
    UNCERTAIN = "uncertain"  # an amount repaired from OCR text, or read with low confidence
    TOO_PRECISE = "too_precise"  # more than two decimals printed: no amount, the text is kept


_REVIEW_ISSUES = frozenset(
    {ValueIssue.UNREADABLE, ValueIssue.FORMULA, ValueIssue.UNCERTAIN, ValueIssue.TOO_PRECISE}
)


class HeaderReview(StrEnum):
    """Why a header field is up for review."""

    INVALID = "invalid"  # printed, but not a valid value (a warning says so)
    UNCERTAIN = "uncertain"  # read, but not surely (OCR); listed in needs_review_fields only


@dataclass(frozen=True, slots=True)
class ValueRead:
    """One value cell of a line, in the document's column ``column_index``."""

    column_index: int
    amount: Decimal | None
    string_value: str | None
    text: str | None
    confidence: float | None
    is_recognized: bool
    issue: ValueIssue | None = None


@dataclass(frozen=True, slots=True)
class LineRead:
    """One line of a form: where it is (``ref``), its code, its name and its values.

    ``code`` is set for status ok only (a printed code or one matched by name);
    ``code_text`` is what the code cell printed. ``suggested_code``: the catalogue line a
    missing code's name matches; ``legacy_code``: the unreadable code is a pre-2011 one.
    ``name_raw`` is the printed name when a footnote was cut from it. ``code_inferred``: the
    code comes from the line's name (a form without codes, or with its own numbering), not
    from a printed catalogue code. ``code_unknown``: OCR read a clean code that no form prints
    (likely a misread one: «2219» for 2210); the line needs review. ``legacy_mapped``: the
    form is the pre-2011 (67n) one; ``code`` is the 66n line its printed 3-digit code
    (``code_text``) and name stand for (010 «Выручка» → 2110), reviewed like an inferred code.
    """

    row_index: int
    ref: str
    status: LineStatus
    code: str | None
    code_text: str | None
    code_confidence: float | None
    name: str | None
    name_confidence: float | None
    values: tuple[ValueRead, ...] = ()
    parent_ref: str | None = None
    suggested_code: str | None = None
    legacy_code: bool = False
    name_raw: str | None = None
    code_inferred: bool = False
    code_unknown: bool = False
    legacy_mapped: bool = False


@dataclass(frozen=True, slots=True)
class ColumnRead:
    """A value column: its label and the period the label names (date None when relative)."""

    column_index: int
    label: str | None
    label_confidence: float | None
    period_kind: PeriodKind
    period_date: dt.date | None


@dataclass(frozen=True, slots=True)
class HeaderField:
    """One header field as a recogniser's header reader finds it: the value, the printed
    text, the confidence and whether it is in doubt. Both recognisers' readers make these;
    `read` turns one into what `build_document` takes, with the reason the recogniser has
    for a doubt (a workbook's field is doubted as invalid, a scan's as uncertain)."""

    value: str | None = None
    text: str | None = None
    confidence: float | None = None
    review: bool = False

    def read(self, doubt: HeaderReview) -> HeaderRead:
        """This field for `build_document`: `doubt` is the review reason when it is doubted."""
        return HeaderRead(self.value, self.text, self.confidence, doubt if self.review else None)


@dataclass(frozen=True, slots=True)
class HeaderRead:
    """One header field as read; ``review`` says why it is up for review, if it is."""

    value: str | None = None
    text: str | None = None
    confidence: float | None = None
    review: HeaderReview | None = None


@dataclass(frozen=True, slots=True)
class StatementRead:
    """Everything a recogniser read for one document.

    ``notes`` are warnings of the recogniser's own that lead the list (e.g. columns of a
    second sheet aligned by order); ``closing_notes`` follow the line warnings (e.g. a table
    left out). ``locator``: the contract's locators, one per sheet segment or scanned table.
    ``from_ocr``: the figures were read by OCR, so a value in a hard relation that fails and
    that no holding relation covers needs review (one of them is misread); figures of a
    workbook are the filer's own, and RELATION_FAILED says enough.
    """

    kind: FormKind
    locator: Sequence[Json]
    header: Mapping[str, HeaderRead]
    columns: Sequence[ColumnRead]
    lines: Sequence[LineRead]
    notes: Sequence[DocumentWarning] = ()
    from_ocr: bool = False
    closing_notes: Sequence[DocumentWarning] = ()

    @property
    def is_empty_form(self) -> bool:
        """A balance / ОФР none of whose lines has an amount: no form to produce (decision
        0005); a DISCLOSURE is header-only by design and never empty in this sense."""
        return _is_statement(self.kind) and not any(
            value.amount is not None for line in self.lines for value in line.values
        )


def _conf(value: float | None) -> float | int | None:
    """A confidence as JSON prints it best: 94 rather than 94.0."""
    if value is None:
        return None
    return int(value) if float(value).is_integer() else round(value, 2)


def _is_statement(kind: FormKind) -> bool:
    return kind in ("BALANCE", "INCOME")


def _report_date(report: HeaderRead, columns: Sequence[ColumnRead]) -> HeaderRead:
    """The report date as read, or, when the header printed none, the first absolute
    column's date (marked FROM_COLUMNS)."""
    if report.value is not None:
        return report
    dated = next((c.period_date for c in columns if c.period_kind == "absolute"), None)
    return report if dated is None else HeaderRead(dated.isoformat(), None, FROM_COLUMNS)


def _columns_json(columns: Sequence[ColumnRead], report: dt.date | None) -> list[Json]:
    out: list[Json] = []
    for column in sorted(columns, key=lambda c: c.column_index):
        date = column.period_date or resolve_relative(column.period_kind, report)
        out.append(
            {
                "column_index": column.column_index,
                "label": column.label,
                "label_confidence": _conf(column.label_confidence) if column.label else None,
                "period_date": date.isoformat() if date else None,
                "period_kind": column.period_kind,
            }
        )
    return out


def _column_warnings(columns: list[Json]) -> list[DocumentWarning]:
    return [
        DocumentWarning(
            StatementWarning.COLUMN_PERIOD_UNKNOWN,
            f"Период колонки не распознан: «{column['label'] or ''}»",
            column_index=column["column_index"],
        )
        for column in columns
        if column["period_kind"] == "none"
    ]


def _line_json(line: LineRead) -> Json:
    item: Json = {
        "row_index": line.row_index,
        "ref": line.ref,
        "line_status": line.status,
        "line_code": line.code if line.status == "ok" else None,
        "line_code_text": line.code_text,
        "line_code_confidence": _conf(line.code_confidence),
        "line_name": line.name,
        "line_name_confidence": _conf(line.name_confidence),
    }
    if line.status == "detail":
        item["parent_ref"] = line.parent_ref
    return item


def _checked_line(line: LineRead) -> CheckedLine:
    """The line as the checks read it: its amounts as Decimals, in kopecks as the document
    will print them (never written as strings to be parsed back)."""
    return CheckedLine(
        line.status,
        line.code if line.status == "ok" else None,
        line.ref,
        line.name,
        [(v.column_index, None if v.amount is None else kopecks(v.amount)) for v in line.values],
    )


def _value_json(value: ValueRead, needs_review: bool) -> Json:
    return {
        "column_index": value.column_index,
        "amount": None if value.amount is None else format_amount(value.amount),
        "string_value": value.string_value,
        "text": value.text,
        "confidence": _conf(value.confidence),
        "is_recognized": value.is_recognized,
        "needs_review": needs_review,
    }


def _first_refs(lines: Sequence[LineRead]) -> tuple[dict[str, str], set[str]]:
    """The ref of each code's first ok line, and the refs of lines that repeat a code."""
    first: dict[str, str] = {}
    repeats: set[str] = set()
    for line in lines:
        if line.status == "ok" and line.code is not None:
            if line.code in first:
                repeats.add(line.ref)
            else:
                first[line.code] = line.ref
    return first, repeats


def _complete(lines: Sequence[LineRead]) -> bool:
    """Every line's code printed by the form: an absent line is one the form does not print."""
    return not any(
        line.code_inferred or line.legacy_mapped or line.status in ("unreadable", "missing")
        for line in lines
    )


def _value_review(
    line: LineRead,
    value: ValueRead,
    result: RecomputeResult,
    contradicted: set[tuple[str, int]],
    outliers: set[tuple[str, int]],
    inexact: set[tuple[str, int]],
) -> bool:
    if line.code is not None and (line.code, value.column_index) in inexact:
        return True  # vouched for by a relation within its tolerance only: no vouching
    doubtful = (
        value.issue in _REVIEW_ISSUES
        or ((line.code_inferred or line.legacy_mapped) and value.amount is not None)
        or (line.code is not None and (line.code, value.column_index) in contradicted)
        or (line.ref, value.column_index) in outliers
    )
    return doubtful and not result.is_covered(line.ref, value.column_index)


_MATERIAL = Decimal("0.001")
"""A workbook figure rounded to kopecks by less than this share of itself (a formula's
12345.678 in thousands, shown «12 346») keeps its rounded amount, as the filer's number format
shows it rounded; a larger change («0,013» → 0.01) never happens silently."""


def _too_precise(read: StatementRead, line: LineRead, value: ValueRead) -> bool:
    """More decimals than the contract holds, and rounding would change the figure: always for
    OCR (a misread separator as likely as a fraction) and per-share lines, for a workbook's
    other figures when the change is material."""
    if not too_precise(value.text):
        return False
    if read.from_ocr or _per_share(line) or value.amount is None:
        return True
    exact = parse_exact(value.text)
    return exact is None or abs(exact - value.amount) > _MATERIAL * abs(exact)


def _per_share(line: LineRead) -> bool:
    """2900 / 2910, or a line named «… на акцию» (the 67н form prints it under code 201)."""
    return line.code in _PER_SHARE or (line.name is not None and "на акцию" in fold(line.name))


def _exact(read: StatementRead) -> list[LineRead]:
    """Lines whose values printing more than two decimals carry no amount (TOO_PRECISE): the
    contract holds kopecks, so «0,013» per share would be rounded or scaled silently."""
    out: list[LineRead] = []
    for line in read.lines:
        doubtful = [_too_precise(read, line, v) for v in line.values]
        if not any(doubtful):
            out.append(line)
            continue
        values = tuple(
            replace(v, amount=None, issue=ValueIssue.TOO_PRECISE) if flag else v
            for v, flag in zip(line.values, doubtful, strict=True)
        )
        out.append(replace(line, values=values))
    return out


def _form_prints(code: str, kind: FormKind) -> bool:
    """A balance / ОФР prints its catalogue lines and five-digit break-downs of them."""
    catalogue = lookup_line(parent_code(code) or code)
    return catalogue is not None and catalogue.document_type == kind


def _unknown(line: LineRead, kind: FormKind) -> bool:
    """The line's code was printed (not inferred or mapped) but the form prints no such code."""
    if line.status != "ok" or line.code is None or line.code_inferred or line.legacy_mapped:
        return False
    return line.code_unknown or (_is_statement(kind) and not _form_prints(line.code, kind))


_SMALL = 100  # one or two digits
_FAR = 100  # how many times larger the neighbours are
_FLOOR = 1000  # and at least this


def _small_outliers(read: StatementRead, lines: Sequence[LineRead]) -> set[tuple[str, int]]:
    """(ref, column) of OCR values of one or two digits between far larger amounts of their
    column (the nearest non-zero ones above and below, or the one that exists)."""
    if not read.from_ocr:
        return set()
    by_column: dict[int, list[tuple[str, Decimal]]] = {}
    for line in lines:
        if line.code in _PER_SHARE:
            continue
        for value in line.values:
            if value.amount is not None and value.amount != 0:
                by_column.setdefault(value.column_index, []).append((line.ref, value.amount))
    found: set[tuple[str, int]] = set()
    for column, amounts in by_column.items():
        for i, (ref, amount) in enumerate(amounts):
            size = abs(amount)
            if size >= _SMALL or amount != amount.to_integral_value():
                continue
            near = [abs(a) for _, a in amounts[max(i - 1, 0) : i] + amounts[i + 1 : i + 2]]
            floor = max(Decimal(_FLOOR), _FAR * size)
            if near and all(n >= floor for n in near):
                found.add((ref, column))
    return found


def _contradicted(read: StatementRead, result: RecomputeResult) -> set[tuple[str, int]]:
    """(code, column) of every term of a failed hard relation, for OCR reads only."""
    if not read.from_ocr or result.checks is None:
        return set()
    return {
        (code, failure.column_index)
        for failure in result.checks.relations_failed
        for code in failure.codes
    }


def _inexact(read: StatementRead, result: RecomputeResult) -> set[tuple[str, int]]:
    """(code, column) of the values a relation vouches for only within its tolerance, for OCR
    reads only: a last digit misread by one (1356 as 1355) keeps 6400 = 6100 + 6200 − 6300
    within 4 units, so the relation cannot tell it from a rounding difference."""
    return set(result.rounded) if read.from_ocr else set()


def _inferred_warning(lines: Sequence[LineRead]) -> list[DocumentWarning]:
    inferred = [line.ref for line in lines if line.code_inferred]
    if not inferred:
        return []
    message = (
        f"Коды {len(inferred)} строк выведены из наименований: форма не печатает коды "
        "справочника; суммы без выполненного соотношения требуют проверки"
    )
    return [DocumentWarning(StatementWarning.CODES_INFERRED, message)]


def _legacy_warning(lines: Sequence[LineRead]) -> list[DocumentWarning]:
    mapped = [line for line in lines if line.legacy_mapped and line.code]
    if not mapped:
        return []
    pairs = ", ".join(f"{line.code_text} → {line.code}" for line in mapped)
    message = (
        "Форма до 2011 г. (приказ 67н, «Отчет о прибылях и убытках»): коды строк сопоставлены "
        f"со строками ОФР по приказу 66н там, где совпали код и наименование ({pairs}); "
        "остальные строки не сопоставлены; суммы без выполненного соотношения требуют проверки"
    )
    return [DocumentWarning(StatementWarning.LEGACY_FORM_MAPPED, message, (mapped[0].ref,))]


def _lines_json(
    lines: Sequence[LineRead],
    repeats: set[str],
    result: RecomputeResult,
    doubts: tuple[set[tuple[str, int]], set[tuple[str, int]], set[str], set[tuple[str, int]]],
) -> list[Json]:
    contradicted, outliers, unknown, inexact = doubts
    out: list[Json] = []
    for line in lines:
        item = _line_json(line)
        values = [
            _value_json(v, _value_review(line, v, result, contradicted, outliers, inexact))
            for v in line.values
        ]
        low_code = (
            line.status == "ok"
            and line.code_confidence is not None
            and line.code_confidence < REVIEW_BELOW
            and not any(result.is_covered(line.ref, v.column_index) for v in line.values)
        )
        item["needs_review"] = bool(
            line.status in ("unreadable", "missing")
            or line.ref in repeats
            or low_code
            or line.ref in unknown
            or any(v["needs_review"] for v in values)
        )
        item["values"] = values
        out.append(item)
    return out


def _confirmed(line: LineRead, result: RecomputeResult) -> bool:
    """A code no official form prints is no misread when a relation that holds counts every
    amount of its line (2115 in 2100 = 2110 + 2115 − 2120)."""
    amounts = [v for v in line.values if v.amount is not None]
    return bool(amounts) and all(result.is_covered(line.ref, v.column_index) for v in amounts)


def _check_warnings(checks: Checks, refs: dict[str, str]) -> list[DocumentWarning]:
    out: list[DocumentWarning] = []
    for failures, code, what in (
        (checks.relations_failed, StatementWarning.RELATION_FAILED, "Соотношение"),
        (
            checks.soft_relations_failed,
            StatementWarning.SOFT_RELATION_FAILED,
            "Мягкое соотношение",
        ),
    ):
        for f in failures:
            out.append(
                DocumentWarning(
                    code,
                    f"{what} {f.relation} не выполняется: сумма {f.expected}, в отчёте {f.actual}",
                    line_refs=tuple(refs[c] for c in f.codes if c in refs),
                    column_index=f.column_index,
                )
            )
    return out


def _code_warnings(line: LineRead) -> list[DocumentWarning]:
    refs = (line.ref,)
    if line.status == "unreadable" and line.legacy_code:
        message = f"Трёхзначный код «{line.code_text}» (формы до 2011 г.) не проверяется"
        return [DocumentWarning(StatementWarning.LEGACY_LINE_CODE, message, refs)]
    if line.status == "unreadable":
        named = f" «{line.name}»" if line.name else ""
        message = f"Код строки{named} не распознан: «{line.code_text}»"
        return [DocumentWarning(StatementWarning.LINE_CODE_UNREADABLE, message, refs)]
    if line.status == "missing":
        hint = f"; по наименованию — {line.suggested_code}" if line.suggested_code else ""
        message = f"У строки «{line.name or ''}» нет кода{hint}"
        return [DocumentWarning(StatementWarning.LINE_CODE_MISSING, message, refs)]
    return []


def _line_label(line: LineRead) -> str:
    return line.code or line.code_text or (f"«{line.name}»" if line.name else line.ref)


def _value_warning(
    value: Json, read: ValueRead, line: LineRead, outliers: set[tuple[str, int]]
) -> DocumentWarning | None:
    column = value["column_index"]
    if read.issue == ValueIssue.TOO_PRECISE:
        code, message = (
            StatementWarning.VALUE_TOO_PRECISE,
            f"Строка {_line_label(line)}: значение «{read.text}» напечатано с точностью больше "
            "двух знаков после запятой; сумма не выведена (округление изменило бы её), "
            "проверьте значение",
        )
    elif (line.ref, column) in outliers and value["needs_review"]:
        code, message = (
            StatementWarning.VALUE_SMALL_OUTLIER,
            f"Строка {_line_label(line)}: сумма {value['amount']} («{read.text}») намного меньше "
            "соседних в колонке и не подтверждена соотношением; возможно, это прочерк",
        )
    elif read.issue == ValueIssue.UNREADABLE:
        code, message = (
            StatementWarning.VALUE_UNREADABLE,
            f"Значение не читается как сумма: «{read.text}»",
        )
    elif read.issue == ValueIssue.FORMULA:
        code, message = StatementWarning.FORMULA_WITHOUT_VALUE, "Формула без сохранённого значения"
    elif read.issue == ValueIssue.FOOTNOTE:
        code, message = (
            StatementWarning.VALUE_FOOTNOTE_REMOVED,
            f"Из значения убрана сноска: «{read.text}»",
        )
    elif read.issue == ValueIssue.UNCERTAIN and value["needs_review"]:
        code, message = (
            StatementWarning.VALUE_NEEDS_REVIEW,
            f"Сумма «{read.text}» прочитана неуверенно как {value['amount']}",
        )
    else:
        return None
    return DocumentWarning(code, message, (line.ref,), column_index=column)


def _line_warnings(
    lines: Sequence[LineRead],
    items: list[Json],
    repeats: set[str],
    doubts: tuple[set[tuple[str, int]], set[str]],
) -> list[DocumentWarning]:
    outliers, unknown = doubts
    out: list[DocumentWarning] = []
    for line, item in zip(lines, items, strict=True):
        out.extend(_code_warnings(line))
        if line.ref in unknown:
            out.append(
                DocumentWarning(
                    StatementWarning.LINE_CODE_UNKNOWN,
                    f"Код {line.code} не печатается в этой форме (строка «{line.name or ''}»): "
                    "возможно, он прочитан не из таблицы или с ошибкой; проверьте строку",
                    (line.ref,),
                )
            )
        if line.ref in repeats:
            out.append(
                DocumentWarning(
                    StatementWarning.DUPLICATE_LINE_CODE,
                    f"Код {line.code} уже встречался выше",
                    (line.ref,),
                )
            )
        if line.name_raw is not None and line.name != line.name_raw:
            out.append(
                DocumentWarning(
                    StatementWarning.NAME_FOOTNOTE_REMOVED,
                    f"Из наименования убрана сноска: «{line.name_raw}»",
                    (line.ref,),
                )
            )
        for value, read in zip(item["values"], line.values, strict=True):
            warning = _value_warning(value, read, line, outliers)
            if warning is not None:
                out.append(warning)
    return out


_FIELD_NAMES = {"inn": "ИНН", "report_date": "Отчетная дата"}


def _header_warnings(header: dict[str, HeaderRead], review: list[str]) -> list[DocumentWarning]:
    out = [
        DocumentWarning(
            StatementWarning.HEADER_FIELD_INVALID,
            f"Поле шапки не распознано: «{header[name].text or ''}»",
            field=name,
        )
        for name in review
        if header[name].review == HeaderReview.INVALID
    ]
    out.extend(
        DocumentWarning(
            StatementWarning.HEADER_FIELD_MISSING,
            f"Поле шапки «{_FIELD_NAMES[name]}» не найдено",
            field=name,
        )
        for name in ("inn", "report_date")
        if header[name].value is None and name not in review
    )
    return out


_THOUSANDS = "тыс. руб."
_PER_SHARE = frozenset({"2900", "2910"})  # roubles per share, with kopecks, in any statement
_UNITS_FRACTIONS = 3
"""Amounts with kopecks that put «тыс. руб.» in doubt (when half the non-zero ones have them)."""


def _units_doubt(units: HeaderRead, lines: Sequence[LineRead]) -> DocumentWarning | None:
    """«в тыс. руб.» over amounts with kopecks: a statement in thousands rounds each line to
    whole thousands, so figures such as 1327883.67 are roubles under a wrong unit (real
    0420003 of 2019) — the warning puts the unit up for review, never taken on trust."""
    if units.value != _THOUSANDS or units.review is not None:
        return None
    amounts = [
        value.amount
        for line in lines
        if line.code not in _PER_SHARE
        for value in line.values
        if value.amount is not None and value.amount != 0
    ]
    kopecks = [a for a in amounts if a != a.to_integral_value()]
    if len(kopecks) < _UNITS_FRACTIONS or 2 * len(kopecks) < len(amounts):
        return None
    message = (
        f"Единица измерения «{units.text or units.value}», но {len(kopecks)} из {len(amounts)} "
        f"сумм с копейками (например {format_amount(kopecks[0])}): в тысячах суммы целые, "
        "похоже, они в рублях; проверьте единицу измерения"
    )
    return DocumentWarning(StatementWarning.UNITS_DOUBTFUL, message, field="units")


def _header_json(header: dict[str, HeaderRead], review: list[str]) -> Json:
    out: Json = {}
    for name in HEADER_FIELDS:
        found = header[name]
        out[name] = found.value
        out[f"{name}_text"] = found.text
        out[f"{name}_confidence"] = _conf(found.confidence)
    out["needs_review_fields"] = review
    return out


def build_document(read: StatementRead) -> Json:
    """The contract statementDocument of ``read``, by the rules in this module's docstring."""
    header = {name: read.header.get(name, HeaderRead()) for name in HEADER_FIELDS}
    warnings: list[DocumentWarning] = list(read.notes)
    lines = _exact(read)
    columns: list[Json] = []
    if lines:
        header["report_date"] = _report_date(header["report_date"], read.columns)
        dated = header["report_date"].value
        report = dt.date.fromisoformat(dated) if dated is not None else None
        columns = _columns_json(read.columns, report)
        warnings.extend(_column_warnings(columns))
    refs, repeats = _first_refs(lines)
    own_numbering = header["okud"].value in OWN_NUMBERING_OKUD
    rule = CheckRule(None if own_numbering else "detect", _complete(lines))
    result = recheck_lines(read.kind, [_checked_line(line) for line in lines], rule)
    outliers = _small_outliers(read, lines)
    unknown = {
        line.ref for line in lines if _unknown(line, read.kind) and not _confirmed(line, result)
    }
    doubts = (_contradicted(read, result), outliers, unknown, _inexact(read, result))
    items = _lines_json(lines, repeats, result, doubts)
    form_variant = result.form_variant if _is_statement(read.kind) else None
    if result.checks is not None:
        warnings.extend(_check_warnings(result.checks, refs))
    if _is_statement(read.kind) and not lines:
        warnings.append(
            DocumentWarning(StatementWarning.NO_LINES, "В таблице формы не найдено ни одной строки")
        )
    warnings.extend(_inferred_warning(lines))
    warnings.extend(_legacy_warning(lines))
    if _is_statement(read.kind) and lines and form_variant is None and not own_numbering:
        warnings.append(
            DocumentWarning(
                StatementWarning.FORM_VARIANT_UNKNOWN,
                "Не удалось определить, полная это форма или упрощённая",
            )
        )
    warnings.extend(_line_warnings(lines, items, repeats, (outliers, unknown)))
    warnings.extend(read.closing_notes)
    doubt = _units_doubt(header["units"], lines)
    if doubt is not None:
        header["units"] = replace(header["units"], review=HeaderReview.UNCERTAIN)
        warnings.append(doubt)
    review = [name for name in HEADER_FIELDS if header[name].review is not None]
    warnings.extend(_header_warnings(header, review))
    needs_check = bool(
        (result.checks is not None and result.checks.relations_failed)
        or any(item["needs_review"] for item in items)
        or review
        or (_is_statement(read.kind) and not lines)
    )
    document: Json = {
        "document_type": read.kind,
        "form_variant": form_variant,
        "status": "needs_check" if needs_check else "done",
        "warnings": [w.to_json() for w in warnings],
        "locator": [dict(loc) for loc in read.locator],
        "header": _header_json(header, review),
        "columns": columns,
        "lines": items,
    }
    if result.checks is not None:
        document["checks"] = result.checks.to_dict()
    return document
