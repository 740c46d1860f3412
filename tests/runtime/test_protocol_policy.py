"""The OQ-71 attempt policies of a SCHEMA_MISMATCH answer."""

from __future__ import annotations

import uuid

import pytest

from services.runtime.protocol import attempt_from_body_or_header, attempt_from_body_or_one

JOB = uuid.UUID("0b7f3c52-8c3e-4b53-9d54-2f1d3a6a9c11")


@pytest.mark.parametrize("policy", [attempt_from_body_or_header, attempt_from_body_or_one])
def test_body_attempt_wins(policy: object) -> None:
    """A usable attempt in the body is taken by both services, whatever the header says."""
    assert policy(4, f"{JOB}:9", JOB) == 4  # type: ignore[operator]


@pytest.mark.parametrize("bad", [None, 0, -1, "2", 1.5, True])
def test_tabular_falls_back_to_the_request_msg_id(bad: object) -> None:
    """tabular-parser: no usable body attempt → the attempt of `<job_id>:<attempt>`."""
    assert attempt_from_body_or_header(bad, f"{JOB}:7", JOB) == 7


@pytest.mark.parametrize(
    "header",
    [None, "", "garbage", f"{JOB}", f"{JOB}:0", f"{JOB}:x", f"{uuid.uuid4()}:2", f"ack:{JOB}:2"],
)
def test_tabular_gives_no_answer_without_a_matching_header(header: str | None) -> None:
    """tabular-parser: no body attempt and no request id naming this job → None (no answer)."""
    assert attempt_from_body_or_header(None, header, JOB) is None


def test_scan_gateway_falls_back_to_one() -> None:
    """scan-gateway: no usable body attempt → 1, the header is not consulted."""
    assert attempt_from_body_or_one("x", f"{JOB}:7", JOB) == 1
