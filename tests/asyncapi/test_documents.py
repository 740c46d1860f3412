"""The committed AsyncAPI documents: current, truthful payloads and headers, offline site."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ASYNCAPI = ROOT / "asyncapi"
SERVICES = ("arm-core", "tabular-parser", "scan-gateway")


def _document(service: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads((ASYNCAPI / f"{service}.json").read_text(encoding="utf-8"))
    return body


def _resolve(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref is None:
        return node
    target: Any = document
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    return _resolve(document, target)


def _messages(document: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(channel, message) for every message of every channel."""
    out = []
    for channel in document["channels"].values():
        for ref in channel["messages"].values():
            out.append((channel, _resolve(document, ref)))
    return out


@pytest.mark.slow
def test_committed_documents_are_what_the_code_generates() -> None:
    """`scripts/generate_asyncapi.py --check` passes: no committed file differs from a fresh
    generation (so the generation is deterministic, too)."""
    run = subprocess.run(
        [sys.executable, "scripts/generate_asyncapi.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("service", SERVICES)
def test_payloads_are_the_contract_not_empty(service: str) -> None:
    """No EmptyPayload; a request channel carries the request schema (job_id, s3, pipeline), a
    result channel the result message (status, service)."""
    document = _document(service)
    assert "EmptyPayload" not in json.dumps(document)
    for channel, message in _messages(document):
        payload = _resolve(document, message["payload"])
        variants = [_resolve(document, v) for v in payload.get("oneOf", [payload])]
        for schema in variants:
            if channel["address"] == "files.tabular_parsed":
                assert {"job_id", "status", "service"} <= set(schema["properties"])
            else:
                assert {"job_id", "file_id", "s3", "pipeline"} <= set(schema["properties"])


@pytest.mark.parametrize("service", SERVICES)
def test_every_message_declares_the_nats_msg_id_header(service: str) -> None:
    """Each message has a headers schema naming Nats-Msg-Id; required on what the app sends."""
    document = _document(service)
    sent = {
        op["channel"]["$ref"].removeprefix("#/channels/")
        for op in document["operations"].values()
        if op["action"] == "send"
    }
    for name, channel in document["channels"].items():
        for ref in channel["messages"].values():
            headers = _resolve(document, ref)["headers"]
            assert "Nats-Msg-Id" in headers["properties"]
            assert ("Nats-Msg-Id" in headers.get("required", [])) is (name in sent)


@pytest.mark.parametrize("service", SERVICES)
def test_channels_name_their_subject_setting_default_and_queue(service: str) -> None:
    """A channel's description names the OPENBAO__NATS__ setting of its subject with the
    default (the address), and the queue group when the app subscribes in one."""
    for channel in _document(service)["channels"].values():
        description = channel["description"]
        assert re.search(
            rf"setting OPENBAO__NATS__NATS_\w+_SUBJECT \(default {re.escape(channel['address'])}\)",
            description,
        )
        queue = channel["bindings"]["nats"].get("queue")
        if queue:
            assert f"Queue group: {queue}." in description


def test_the_site_works_offline() -> None:
    """index.html and each service page reference no http(s) URL, and every local file they
    load or link exists."""
    pages = [ASYNCAPI / "index.html", *(ASYNCAPI / "site" / f"{s}.html" for s in SERVICES)]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text, page
        for target in re.findall(r'(?:src|href)="([^"#]+)"', text):
            assert (page.parent / target).resolve().is_file(), (page, target)


@pytest.mark.slow
def test_the_official_parser_accepts_every_document() -> None:
    """@asyncapi/parser (asyncapi/tools/validate.js) finds no error in the JSON and YAML files."""
    node = shutil.which("node")
    if node is None or not (ASYNCAPI / "tools" / "node_modules" / "@asyncapi" / "parser").exists():
        pytest.skip("node or asyncapi/tools/node_modules missing (npm ci --prefix asyncapi/tools)")
    files = [str(ASYNCAPI / f"{s}.{ext}") for s in SERVICES for ext in ("json", "yaml")]
    run = subprocess.run(
        [node, str(ASYNCAPI / "tools" / "validate.js"), *files],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("ok ") == len(files)
