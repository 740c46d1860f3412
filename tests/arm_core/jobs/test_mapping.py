"""The result-file mappers as pure functions: the 1.x defaults, statuses, metrics."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest

from services.arm_core.exceptions import MappingError
from services.arm_core.jobs.mapping import (
    LEGACY_WARNING,
    MAPPING_WARNING,
    map_result,
    map_v1,
    map_v2,
    structured_warnings,
    value_is_clean,
)
from services.arm_core.jobs.mapping._common import job_status, merged_metrics
from tests.support.core import example


def _plain(body: Mapping[str, object]) -> dict[str, Any]:
    """A mapped document read as plain JSON: keys beyond the typed 2.0 shape included."""
    return dict(body)


def v1_pair(name: str = "result-statement-excel.json") -> tuple[dict[str, Any], dict[str, Any]]:
    return example(name, major=1), example("result-message-done.json", major=1)


@pytest.mark.parametrize(
    ("value", "clean"),
    [
        ({"confidence": 100, "is_recognized": True}, True),
        ({"confidence": None, "is_recognized": True}, True),
        ({"confidence": 100.0, "is_recognized": True}, True),
        ({"confidence": 60, "is_recognized": True}, False),
        ({"confidence": 99.9, "is_recognized": True}, False),
        ({"confidence": 100, "is_recognized": False}, False),
    ],
)
def test_values_ok_of_spec_001(value: dict[str, Any], clean: bool) -> None:
    """values_ok: is_recognized not false and confidence 100 or empty."""
    assert value_is_clean(value) is clean


def test_v1_value_and_line_defaults() -> None:
    """text = string_value, needs_review = not values_ok; a line: ok, ref null, not for review."""
    result, envelope = v1_pair("result-statement-minimal.json")
    mapped = map_v1(result, envelope)
    source = result["documents"][0]["lines"]
    lines = _plain(mapped.documents[0].body)["lines"]
    assert [line["row_index"] for line in lines] == list(range(len(source)))
    for line, original in zip(lines, source, strict=True):
        assert (line["ref"], line["line_status"], line["needs_review"]) == (None, "ok", False)
        assert "parent_ref" not in line
        for value, raw in zip(line["values"], original["values"], strict=True):
            assert value["text"] == raw["string_value"]
            assert value["needs_review"] is not value_is_clean(raw)
            assert {k: value[k] for k in raw} == raw


def test_v1_osv_status_follows_its_control_sums() -> None:
    """A 1.x ОСВ gets status done when checks.failed is empty, needs_check otherwise."""
    result, envelope = v1_pair("result-osv.json")
    assert map_v1(result, envelope).documents[0].body["status"] == "done"
    failing = copy.deepcopy(result)
    failing["documents"][0]["checks"]["failed"] = [
        {
            "check": "ROW_BALANCE",
            "ref": "TDSheet!A9",
            "column": "closing",
            "expected": "1",
            "actual": "2",
        }
    ]
    mapped = map_v1(failing, envelope)
    assert (mapped.documents[0].body["status"], mapped.documents[0].body["warnings"]) == (
        "needs_check",
        [],
    )
    assert mapped.status == "needs_check"


def test_v1_repeated_code_keeps_the_first_line() -> None:
    """Of two lines with one code the first is kept; the MAPPING_WARNING names both rows."""
    result, envelope = v1_pair()
    document = map_v1(result, envelope).documents[0]
    codes = [line["line_code"] for line in result["documents"][0]["lines"]]
    first = codes.index("1230")
    second = codes.index("1230", first + 1)
    lines = _plain(document.body)["lines"]
    kept = [line["row_index"] for line in lines if line["line_code"] == "1230"]
    assert kept == [first]
    [warning] = [i for i in document.core_issues if i.code == MAPPING_WARNING]
    assert warning.details == {"line_code": "1230", "row_index": second, "kept_row_index": first}
    assert "duplicate_line_codes" not in document.body["checks"]


def test_v1_keeps_keys_of_a_newer_minor() -> None:
    """Keys a 1.3 might add (document, line, value, column) are carried over untouched."""
    result, envelope = v1_pair()
    result["schema_version"] = "1.3"
    doc = result["documents"][0]
    doc["sheet_title"] = "Баланс"
    doc["lines"][0]["indent"] = 2
    doc["lines"][0]["values"][0]["cell"] = "C12"
    doc["columns"][0]["note"] = "на отчётную дату"
    body = _plain(map_v1(result, envelope).documents[0].body)
    assert body["sheet_title"] == "Баланс"
    assert body["lines"][0]["indent"] == 2
    assert body["lines"][0]["values"][0]["cell"] == "C12"
    assert body["columns"][0]["note"] == "на отчётную дату"


def test_v2_is_taken_as_it_is() -> None:
    """The 2.0 mapper stores the documents as sent and the service's statements_version."""
    result = example("result-statement-excel.json")
    mapped = map_v2(result, example("result-message-done.json"))
    assert [d.body for d in mapped.documents] == result["documents"]
    assert mapped.statements_version == result["service"]["statements_version"]
    assert all(d.core_issues == () for d in mapped.documents)


def test_an_unmapped_major_is_a_mapping_error() -> None:
    """A MAJOR without a mapper (3) is refused even if some schema accepted it."""
    result = example("result-osv.json")
    result["schema_version"] = "3.0"
    with pytest.raises(MappingError, match="no mapper"):
        map_result(result, example("result-message-done.json"))


def test_string_warnings_become_legacy_structures() -> None:
    """1.x strings → {code: LEGACY_WARNING, severity: info, message}; structures stay."""
    structured = {
        "code": "SHEET_OTHER",
        "severity": "info",
        "message": "m",
        "locator": {"sheet": "A"},
    }
    assert structured_warnings(["лист", structured]) == [
        {"code": LEGACY_WARNING, "severity": "info", "message": "лист"},
        structured,
    ]


def test_metrics_take_the_file_then_what_only_the_envelope_says() -> None:
    """The file's metrics win; the envelope adds its own keys and warnings the file lacks."""
    merged = merged_metrics(
        {"duration_ms": 5, "warnings": ["a"]},
        {"duration_ms": 7, "pages": 2, "warnings": ["a", "b"]},
    )
    assert merged == {
        "duration_ms": 5,
        "pages": 2,
        "warnings": [
            {"code": LEGACY_WARNING, "severity": "info", "message": "a"},
            {"code": LEGACY_WARNING, "severity": "info", "message": "b"},
        ],
    }


@pytest.mark.parametrize(
    ("envelope", "file", "documents", "expected"),
    [
        ("done", "done", ["done", "done"], "done"),
        ("done", "done", ["done", "needs_check"], "needs_check"),
        ("needs_check", "done", [], "needs_check"),
        ("done", "needs_check", ["done"], "needs_check"),
    ],
)
def test_job_status_is_the_strictest(
    envelope: str, file: str, documents: list[str], expected: str
) -> None:
    """needs_check when the envelope, the file or any document says so."""
    assert job_status(envelope, file, documents) == expected


def test_a_file_saying_error_under_a_done_envelope_is_refused() -> None:
    """The file contradicts the envelope: MappingError."""
    with pytest.raises(MappingError, match="status 'error'"):
        job_status("done", "error", [])
