"""A contract statementDocument from the parts (sheet segments) that hold one form.

Status (D, docs/warning-codes.md «Statements»): ``needs_check`` when a hard relation fails,
when any line or value needs review, when a header field needs review, or when a balance or
ОФР has no lines; a failed soft relation alone leaves ``done`` with a warning.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from services.arm_statements import (
    HEADER_FIELDS,
    Checks,
    PeriodKind,
    check_lines,
    detect_form_variant,
    parse_period_label,
    resolve_relative,
)
from services.tabular_parser.excel.model import CellRange, Sheet
from services.tabular_parser.excel.values import format_amount
from services.tabular_parser.statements._classify import DocumentKind
from services.tabular_parser.statements._header import HeaderField, HeaderRead
from services.tabular_parser.statements._lines import LineRead
from services.tabular_parser.statements._table import TableLayout, ValueColumn

__all__ = ["Part", "build_document"]

INHERITED = 90.0
FROM_COLUMNS = 80.0
_INHERITABLE = (
    "organization_name",
    "inn",
    "okpo",
    "okopf",
    "okfs",
    "okei",
    "units",
    "address",
    "report_date",
)
_REVIEW_MATTERS = frozenset(HEADER_FIELDS)

Json = dict[str, Any]


@dataclass(slots=True)
class Part:
    """One sheet segment of a document: where its table is and what it read."""

    sheet: Sheet
    first_row: int
    last_row: int
    header: HeaderRead
    layout: TableLayout | None = None
    lines: list[LineRead] = field(default_factory=list)
    column_map: dict[int, int] = field(default_factory=dict)  # own column index → document's


def _warning(code: str, severity: str, message: str, **extra: Any) -> Json:
    item: Json = {"code": code, "severity": severity, "message": message}
    item.update({k: v for k, v in extra.items() if v is not None})
    return item


def _merge_header(parts: list[Part], fallback: HeaderRead | None) -> dict[str, HeaderField]:
    merged: dict[str, HeaderField] = {}
    for name in HEADER_FIELDS:
        found = next(
            (
                p.header.get(name)
                for p in parts
                if p.header.get(name).text is not None or p.header.get(name).value is not None
            ),
            None,
        )
        if found is None and fallback is not None and name in _INHERITABLE:
            source = fallback.get(name)
            if source.value is not None and not source.review:
                found = HeaderField(
                    source.value, source.text, min(INHERITED, source.confidence or 0)
                )
        merged[name] = found or HeaderField()
    return merged


def _columns(
    parts: list[Part], report_date: dt.date | None
) -> tuple[list[Json], dict[int, ValueColumn]]:
    first = parts[0].layout
    base = first.columns if first is not None else []
    out: list[Json] = []
    by_index: dict[int, ValueColumn] = {}
    for column in base:
        by_index[column.index] = column
    for part in parts[1:]:
        own = part.layout.columns if part.layout is not None else []
        if len(own) == len(base):
            part.column_map = {c.index: b.index for c, b in zip(own, base, strict=True)}
        else:
            for c in own:
                by_index.setdefault(c.index, c)
    for index in sorted(by_index):
        column = by_index[index]
        kind: PeriodKind
        kind, date = parse_period_label(column.label or "")
        if date is None:
            date = resolve_relative(kind, report_date)
        out.append(
            {
                "column_index": index,
                "label": column.label,
                "label_confidence": 100 if column.label else None,
                "period_date": date.isoformat() if date else None,
                "period_kind": kind,
            }
        )
    return out, by_index


def _value_json(value: Any, column_index: int) -> Json:
    return {
        "column_index": column_index,
        "amount": None if value.amount is None else format_amount(value.amount),
        "string_value": value.string_value,
        "text": value.text,
        "confidence": value.confidence,
        "is_recognized": value.is_recognized,
        "needs_review": value.needs_review,
    }


def _line_json(line: LineRead, part: Part, duplicate: bool) -> Json:
    item: Json = {
        "row_index": line.row,
        "ref": line.ref,
        "line_status": line.status,
        "line_code": line.code if line.status == "ok" else None,
        "line_code_text": line.code_text,
        "line_code_confidence": line.code_confidence,
        "line_name": line.name,
        "line_name_confidence": line.name_confidence,
    }
    if line.status == "detail":
        item["parent_ref"] = line.parent_ref
    item["needs_review"] = line.needs_review or duplicate
    item["values"] = [
        _value_json(v, part.column_map.get(v.column.index, v.column.index)) for v in line.values
    ]
    return item


def _range(part: Part) -> str:
    sheet = part.sheet
    layout = part.layout
    if layout is None:
        width = max((len(r) for r in sheet.rows[part.first_row : part.last_row]), default=1)
        last_row = max(part.first_row, min(part.last_row, len(sheet.rows)) - 1)
        return CellRange(part.first_row, 0, last_row, max(0, width - 1)).a1()
    top = layout.header_row if layout.header_row is not None else layout.data_start
    bottom = max([line.row for line in part.lines] + [top])
    right = max([layout.last_col] + [c.index for c in layout.columns])
    return CellRange(top, layout.first_col, bottom, max(layout.first_col, right)).a1()


def _line_warnings(lines: list[tuple[LineRead, Part]], duplicates: set[str]) -> list[Json]:
    out: list[Json] = []
    for line, part in lines:
        if line.status == "unreadable":
            if line.legacy:
                out.append(
                    _warning(
                        "LEGACY_LINE_CODE",
                        "warning",
                        f"Трёхзначный код «{line.code_text}» (формы до 2011 г.) не проверяется",
                        line_refs=[line.ref],
                    )
                )
            else:
                out.append(
                    _warning(
                        "LINE_CODE_UNREADABLE",
                        "warning",
                        f"Код строки не читается: «{line.code_text}»",
                        line_refs=[line.ref],
                    )
                )
        elif line.status == "missing":
            hint = f"; по наименованию — {line.suggested_code}" if line.suggested_code else ""
            out.append(
                _warning(
                    "LINE_CODE_MISSING",
                    "warning",
                    f"У строки «{line.name or ''}» нет кода{hint}",
                    line_refs=[line.ref],
                )
            )
        if line.ref in duplicates:
            out.append(
                _warning(
                    "DUPLICATE_LINE_CODE",
                    "warning",
                    f"Код {line.code} уже встречался выше",
                    line_refs=[line.ref],
                )
            )
        if line.name_footnote_stripped:
            out.append(
                _warning(
                    "NAME_FOOTNOTE_REMOVED",
                    "info",
                    f"Из наименования убрана сноска: «{line.name_raw}»",
                    line_refs=[line.ref],
                )
            )
        for value in line.values:
            index = part.column_map.get(value.column.index, value.column.index)
            if value.issue == "unreadable":
                out.append(
                    _warning(
                        "VALUE_UNREADABLE",
                        "warning",
                        f"Значение не читается как сумма: «{value.text}»",
                        line_refs=[line.ref],
                        column_index=index,
                    )
                )
            elif value.issue == "formula":
                out.append(
                    _warning(
                        "FORMULA_WITHOUT_VALUE",
                        "warning",
                        "Формула без сохранённого значения",
                        line_refs=[line.ref],
                        column_index=index,
                    )
                )
            elif value.issue == "footnote":
                out.append(
                    _warning(
                        "VALUE_FOOTNOTE_REMOVED",
                        "info",
                        f"Из значения убрана сноска: «{value.text}»",
                        line_refs=[line.ref],
                        column_index=index,
                    )
                )
    return out


def _check_warnings(checks: Checks, refs: dict[str, str]) -> list[Json]:
    out: list[Json] = []
    for failures, code, severity, what in (
        (checks.relations_failed, "RELATION_FAILED", "error", "Соотношение"),
        (checks.soft_relations_failed, "SOFT_RELATION_FAILED", "warning", "Мягкое соотношение"),
    ):
        for f in failures:
            line_refs = [refs[c] for c in f.codes if c in refs]
            out.append(
                _warning(
                    code,
                    severity,
                    f"{what} {f.relation} не выполняется: сумма {f.expected}, в отчёте {f.actual}",
                    line_refs=line_refs or None,
                    column_index=f.column_index,
                )
            )
    return out


def build_document(
    kind: DocumentKind,
    parts: list[Part],
    fallback_header: HeaderRead | None = None,
    extra_warnings: list[Json] | None = None,
) -> Json:
    """The statementDocument of ``kind`` spread over ``parts`` (two for a split balance)."""
    header = _merge_header(parts, fallback_header)
    warnings: list[Json] = list(extra_warnings or [])
    report = header["report_date"]
    report_date = dt.date.fromisoformat(report.value) if report.value else None

    all_lines = [(line, part) for part in parts for line in part.lines]
    columns: list[Json] = []
    if all_lines:
        columns, _ = _columns(parts, report_date)
        if report_date is None:
            absolute = [c["period_date"] for c in columns if c["period_kind"] == "absolute"]
            if absolute:
                header["report_date"] = HeaderField(absolute[0], None, FROM_COLUMNS)
                report_date = dt.date.fromisoformat(absolute[0])
                columns, _ = _columns(parts, report_date)
        if any(
            part.column_map and any(k != v for k, v in part.column_map.items()) for part in parts
        ):
            warnings.append(
                _warning(
                    "COLUMNS_ALIGNED",
                    "info",
                    "Колонки второго листа сопоставлены с колонками первого по порядку",
                )
            )
        for column in columns:
            if column["period_kind"] == "none":
                warnings.append(
                    _warning(
                        "COLUMN_PERIOD_UNKNOWN",
                        "info",
                        f"Период колонки не распознан: «{column['label'] or ''}»",
                        column_index=column["column_index"],
                    )
                )

    seen: dict[str, str] = {}
    duplicates: set[str] = set()
    for line, _part in all_lines:
        if line.status == "ok" and line.code is not None:
            if line.code in seen:
                duplicates.add(line.ref)
            else:
                seen[line.code] = line.ref
    lines_json = [_line_json(line, part, line.ref in duplicates) for line, part in all_lines]

    form_variant = None
    checks: Checks | None = None
    if kind in ("BALANCE", "INCOME"):
        codes = [line.code for line, _ in all_lines if line.status == "ok" and line.code]
        names = [line.name for line, _ in all_lines]
        form_variant = detect_form_variant(kind, codes, names)
        if all_lines:
            values: dict[str, dict[int, Decimal | None]] = {}
            for line, part in all_lines:
                if line.status != "ok" or line.code is None or line.ref in duplicates:
                    continue
                values[line.code] = {
                    part.column_map.get(v.column.index, v.column.index): v.amount
                    for v in line.values
                }
            checks = check_lines(kind, form_variant, values)
            warnings.extend(_check_warnings(checks, seen))
        else:
            warnings.append(
                _warning("NO_LINES", "warning", "В таблице формы не найдено ни одной строки")
            )
        if form_variant is None and all_lines:
            warnings.append(
                _warning(
                    "FORM_VARIANT_UNKNOWN",
                    "info",
                    "Не удалось определить, полная это форма или упрощённая",
                )
            )
    warnings.extend(_line_warnings(all_lines, duplicates))
    for part in parts:
        if part.layout is not None and part.layout.additional_row is not None:
            warnings.append(
                _warning(
                    "ADDITIONAL_LINES_SKIPPED",
                    "info",
                    f"Таблица «Дополнительные строки» (лист «{part.sheet.name}», строка "
                    f"{part.layout.additional_row + 1}) не включена: её коды означают другое",
                )
            )

    review_fields = [n for n in HEADER_FIELDS if header[n].review and n in _REVIEW_MATTERS]
    for name in review_fields:
        warnings.append(
            _warning(
                "HEADER_FIELD_INVALID",
                "warning",
                f"Поле шапки не распознано: «{header[name].text or ''}»",
                field=name,
            )
        )
    for name in ("inn", "report_date"):
        if header[name].value is None and name not in review_fields:
            warnings.append(
                _warning("HEADER_FIELD_MISSING", "info", "Поле шапки не найдено", field=name)
            )

    needs_check = bool(
        (checks is not None and checks.relations_failed)
        or any(item["needs_review"] for item in lines_json)
        or any(v["needs_review"] for item in lines_json for v in item["values"])
        or review_fields
        or (kind in ("BALANCE", "INCOME") and not all_lines)
    )
    document: Json = {
        "document_type": kind,
        "form_variant": form_variant,
        "status": "needs_check" if needs_check else "done",
        "warnings": warnings,
        "locator": [{"sheet": p.sheet.name, "range": _range(p)} for p in parts],
        "header": _header_json(header, review_fields),
        "columns": columns if lines_json else [],
        "lines": lines_json,
    }
    if checks is not None:
        document["checks"] = checks.to_dict()
    return document


def _header_json(header: dict[str, HeaderField], review_fields: list[str]) -> Json:
    out: Json = {}
    for name in HEADER_FIELDS:
        f = header[name]
        out[name] = f.value
        out[f"{name}_text"] = f.text
        out[f"{name}_confidence"] = f.confidence
    out["needs_review_fields"] = review_fields
    return out
