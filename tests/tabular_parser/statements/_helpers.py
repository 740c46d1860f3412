"""Looking things up in recognised documents, and the result-file schema check."""

from __future__ import annotations

import json
import uuid
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

from services.tabular_parser.statements import StatementsResult

SCHEMA = Path(__file__).resolve().parents[3] / "contracts" / "recognition-result.schema.json"

Json = dict[str, Any]


def only(result: StatementsResult, document_type: str) -> Json:
    """The one document of ``document_type``."""
    found = [d for d in result.documents if d["document_type"] == document_type]
    assert len(found) == 1, [d["document_type"] for d in result.documents]
    return found[0]


def line(document: Json, code: str) -> Json:
    """The first line with ``code``."""
    return next(item for item in document["lines"] if item["line_code"] == code)


def amounts(document: Json, code: str) -> list[str | None]:
    return [v["amount"] for v in line(document, code)["values"]]


def codes(document: Json) -> list[str | None]:
    return [item["line_code"] for item in document["lines"]]


@cache
def _validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return Draft202012Validator(schema, format_checker=FormatChecker())


def result_file(result: StatementsResult) -> Json:
    """A minimal result file 2.0 around the recognised documents."""
    warnings = result.file_warnings()
    needs_check = any(d["status"] == "needs_check" for d in result.documents) or any(
        w["severity"] == "error" for w in warnings
    )
    return {
        "schema_version": "2.0",
        "job_id": str(uuid.uuid4()),
        "file_id": str(uuid.uuid4()),
        "status": "needs_check" if needs_check else "done",
        "service": {
            "name": "tabular-parser",
            "version": "0.1.0",
            "statements_version": result.statements_version,
        },
        "group_schema": "rsbu",
        "documents": result.documents,
        "metrics": {"duration_ms": 0, "warnings": warnings},
    }


def schema_errors(result: StatementsResult) -> list[str]:
    """Every schema violation of the wrapped result (empty when valid)."""
    body = json.loads(json.dumps(result_file(result), ensure_ascii=False))
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in _validator().iter_errors(body)
    ]
