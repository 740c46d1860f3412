"""The 1.x mapper: a 1.2 result file in the 2.0 shape, with the defaults of spec 001.

«Переход на контракт v2.0»: line_status ok; row_index = the line's position in the result
(from 0); ref null; line_code_original_value = line_code (set when stored); text =
string_value; a value's needs_review = not values_ok (values_ok: is_recognized not false and
confidence 100 or empty); a line's needs_review false; period_kind absolute with a
period_date, else none; form_variant from the structure of the codes; string warnings become
LEGACY_WARNING structures; statements_version null. Of two lines with one code the first is
kept and the second is not stored (a MAPPING_WARNING, info, says so). The document status
follows rule D-6 — done when the core's own checks (arm_statements, the full set) hold and
every value is clean — and each failed relation becomes a core issue. An ОСВ document is done
when its control sums hold, as in 2.0. The 1.x `checks` are kept as the producer's checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from services.arm_core.documents.mapped import CoreIssue, MappedDocument, MappedResult
from services.arm_core.exceptions import MappingError
from services.arm_core.jobs.mapping._common import job_status, merged_metrics
from services.arm_statements import ArmStatementsError, RelationFailure, recompute
from services.contract.models.result_v2_dicts import (
    OsvDocument,
    StatementColumn,
    StatementDocument,
    StatementLine,
    StatementValue,
)

__all__ = ["MAPPING_WARNING", "RELATION_FAILED", "SOFT_RELATION_FAILED", "map_v1", "value_is_clean"]

MAPPING_WARNING = "MAPPING_WARNING"
RELATION_FAILED = "RELATION_FAILED"
SOFT_RELATION_FAILED = "SOFT_RELATION_FAILED"

_STATEMENT_KEYS = ("document_type", "locator", "header", "columns", "lines", "checks")
_LINE_KEYS = (
    "line_code",
    "line_code_text",
    "line_code_confidence",
    "line_name",
    "line_name_confidence",
    "values",
)


def value_is_clean(value: Mapping[str, Any]) -> bool:
    """values_ok of spec 001: is_recognized is not false and confidence is 100 or empty."""
    return value.get("is_recognized") is not False and value.get("confidence") in (None, 100)


def _rest(item: Mapping[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    """Keys a newer 1.x MINOR added: carried over as they are."""
    return {k: v for k, v in item.items() if k not in known}


def _value(value: Mapping[str, Any]) -> StatementValue:
    known = ("column_index", "amount", "string_value", "confidence", "is_recognized")
    mapped: dict[str, object] = {
        "column_index": value["column_index"],
        "amount": value.get("amount"),
        "string_value": value.get("string_value"),
        "text": value.get("string_value"),
        "confidence": value.get("confidence"),
        "is_recognized": value.get("is_recognized"),
        "needs_review": not value_is_clean(value),
        **_rest(value, known),
    }
    return cast(StatementValue, mapped)


def _line(index: int, line: Mapping[str, Any]) -> StatementLine:
    mapped: dict[str, object] = {
        "row_index": index,
        "ref": None,
        "line_status": "ok",
        "line_code": line["line_code"],
        "line_code_text": line.get("line_code_text"),
        "line_code_confidence": line.get("line_code_confidence"),
        "line_name": line.get("line_name"),
        "line_name_confidence": line.get("line_name_confidence"),
        "needs_review": False,
        "values": [_value(v) for v in line.get("values") or []],
        **_rest(line, _LINE_KEYS),
    }
    return cast(StatementLine, mapped)


def _column(column: Mapping[str, Any]) -> StatementColumn:
    mapped = {**column, "period_kind": "absolute" if column.get("period_date") else "none"}
    return cast(StatementColumn, mapped)


def _relation_issue(failure: RelationFailure, *, soft: bool) -> CoreIssue:
    details = failure.to_dict()
    details.pop("column_index")
    return CoreIssue(
        code=SOFT_RELATION_FAILED if soft else RELATION_FAILED,
        severity="info" if soft else "warning",
        message=(
            f"Соотношение {failure.relation} не выполняется в колонке {failure.column_index}: "
            f"ожидалось {failure.expected}, указано {failure.actual}"
        ),
        column_index=failure.column_index,
        details=details,
    )


def _statement(document: Mapping[str, Any]) -> MappedDocument:
    try:
        found = recompute(document)
    except ArmStatementsError as exc:
        msg = f"the core could not check a {document.get('document_type')} document: {exc}"
        raise MappingError(msg) from exc
    source_lines = list(document.get("lines") or [])
    dropped = set(found.duplicate_lines)
    first_of: dict[str, int] = {}
    issues: list[CoreIssue] = []
    lines: list[StatementLine] = []
    for index, line in enumerate(source_lines):
        code = str(line["line_code"])
        if index in dropped:
            issues.append(
                CoreIssue(
                    code=MAPPING_WARNING,
                    severity="info",
                    message=(
                        f"Код строки {code} повторяется (строка {index}); сохранена первая "
                        f"строка с этим кодом (строка {first_of.get(code.strip())}), "
                        "повтор не сохранён"
                    ),
                    details={
                        "line_code": code,
                        "row_index": index,
                        "kept_row_index": first_of.get(code.strip()),
                    },
                )
            )
            continue
        first_of.setdefault(code.strip(), index)
        lines.append(_line(index, line))
    checks = found.checks
    if checks is not None:
        issues.extend(_relation_issue(f, soft=False) for f in checks.relations_failed)
        issues.extend(_relation_issue(f, soft=True) for f in checks.soft_relations_failed)
    clean = all(v["needs_review"] is False for line in lines for v in line["values"])
    holds = checks is None or checks.hard_ok
    body: dict[str, object] = {
        "document_type": document["document_type"],
        "form_variant": found.form_variant,
        "status": "done" if holds and clean else "needs_check",
        "warnings": [],
        "locator": document.get("locator"),
        "header": document.get("header"),
        "columns": [_column(c) for c in document.get("columns") or []],
        "lines": lines,
        **_rest(document, _STATEMENT_KEYS),
    }
    if checks is not None:
        body["checks"] = checks.to_dict()
    producer_checks = document.get("checks")
    return MappedDocument(
        body=cast(StatementDocument, body),  # the 2.0 shape, with the 1.x keys it kept
        core_issues=tuple(issues),
        producer_checks=dict(producer_checks) if isinstance(producer_checks, Mapping) else None,
    )


def _osv(document: Mapping[str, Any]) -> MappedDocument:
    checks = document.get("checks")
    failed = checks.get("failed") if isinstance(checks, Mapping) else None
    body = {
        "document_type": document["document_type"],
        "status": "needs_check" if failed else "done",
        "warnings": [],
        **{k: v for k, v in document.items() if k != "document_type"},
    }
    return MappedDocument(body=cast(OsvDocument, body))


def map_v1(result: Mapping[str, Any], envelope: Mapping[str, Any]) -> MappedResult:
    """Map a schema-valid 1.x result file (any MINOR) received under `envelope`."""
    documents = tuple(
        _osv(d) if d.get("document_type") == "OSV" else _statement(d) for d in result["documents"]
    )
    return MappedResult(
        schema_version=str(result["schema_version"]),
        status=job_status(
            str(envelope["status"]),
            result.get("status"),
            [str(d.body["status"]) for d in documents],
        ),
        group_schema=result.get("group_schema"),
        statements_version=None,
        metrics=merged_metrics(result.get("metrics"), envelope.get("metrics")),
        documents=documents,
    )
