"""A recognition encoded in the worker reaches S3 as the same result file the dicts would make."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any

from services.runtime.protocol import ServiceInfo, result_file, result_file_bytes
from services.runtime.recognizer import EncodedRecognition, Job, Recognition, encode_documents

SERVICE = ServiceInfo("tabular-parser", "1.2.3")


def _job() -> Job:
    return Job(
        job_id=uuid.uuid4(),
        file_id=uuid.uuid4(),
        attempt=1,
        file_type="XLSX",
        original_name="ОСВ.xlsx",
        bucket="uploads",
        key="u/ОСВ.xlsx",
        reply_deadline=dt.datetime(2099, 1, 1, tzinfo=dt.UTC),
    )


def _documents(rows: int) -> list[dict[str, Any]]:
    return [
        {
            "document_type": "OSV",
            "status": "needs_check",
            "warnings": [{"code": "OSV_NO_TOTAL", "message": "нет «Итого»"}],
            "rows": [
                {"ref": f"'ОСВ 2024'!A{n}", "name": f"ООО «Ромашка-{n}»"} for n in range(rows)
            ],
            "checks": {"failed": []},
        },
        {"document_type": "BALANCE", "status": "done", "lines": []},
    ]


def test_encode_documents_decodes_to_the_documents_with_cyrillic_unescaped() -> None:
    """Any list length: the bytes are one JSON array equal to the documents, UTF-8 as is."""
    for rows in (0, 3, 2000, 2001, 4500):
        documents = _documents(rows)
        encoded = encode_documents(documents)
        assert json.loads(encoded) == documents, rows
        assert "Ромашка".encode() in encoded or rows == 0
        assert b"\\u04" not in encoded


def test_encode_documents_falls_back_for_what_orjson_refuses() -> None:
    """An int beyond 64 bits still encodes (as json.dumps would), never fails the job."""
    documents = [{"document_type": "OSV", "big": 2**70, "name": "Итого"}]
    assert json.loads(encode_documents(documents)) == documents


def test_encode_documents_writes_non_string_keys_as_json_dumps_does() -> None:
    documents: list[dict[str, Any]] = [{"document_type": "OSV", "extra": {1: "a", 2.5: None}}]
    assert encode_documents(documents) == json.dumps(
        documents, ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")


def test_encoded_recognition_keeps_status_warnings_and_count() -> None:
    warnings = [{"code": "SHEET_OTHER", "severity": "error", "message": "x"}]
    recognition = Recognition(documents=_documents(5), warnings=warnings, group_schema="osv")
    encoded = recognition.encode()
    assert isinstance(encoded, EncodedRecognition)
    assert encoded.status == recognition.status == "needs_check"
    assert encoded.document_count == recognition.document_count == 2
    assert encoded.warnings == warnings
    assert encoded.decoded_documents() == recognition.documents


def test_result_file_of_an_encoded_recognition_decodes_equal_to_the_dict_result_file() -> None:
    """Spliced-in encoded documents give the same JSON document as encoding the dicts."""
    job = _job()
    recognition = Recognition(
        documents=_documents(2500), group_schema="mixed", statements_version="2025.1"
    )
    expected = json.dumps(result_file(job, recognition, SERVICE, 1234), ensure_ascii=False).encode(
        "utf-8"
    )
    assert result_file_bytes(job, recognition, SERVICE, 1234) == expected
    spliced = result_file_bytes(job, recognition.encode(), SERVICE, 1234)
    assert json.loads(spliced) == json.loads(expected)
    assert list(json.loads(spliced)) == list(json.loads(expected))  # field order kept
    assert result_file(job, recognition.encode(), SERVICE, 1234) == json.loads(expected)
