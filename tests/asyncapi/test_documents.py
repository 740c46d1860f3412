"""The committed AsyncAPI documents: current, truthful payloads and headers, offline site."""

from __future__ import annotations

import copy
import importlib.util
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


def _generator() -> Any:
    """scripts/generate_asyncapi.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "generate_asyncapi", ROOT / "scripts" / "generate_asyncapi.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reversed_sections(raw: dict[str, Any]) -> dict[str, Any]:
    """The same FastStream specification with channels and operations in the other order, as
    FastStream's WeakSet of publishers can give it on another clone."""
    flipped = copy.deepcopy(raw)
    for section in ("channels", "operations"):
        flipped[section] = dict(reversed(list(flipped[section].items())))
    flipped["components"]["messages"] = dict(
        reversed(list(flipped["components"]["messages"].items()))
    )
    return flipped


def test_the_generation_does_not_depend_on_faststreams_channel_order() -> None:
    """arm-core's two request channels in either order give the same document, byte for byte
    (channels, operations and components come out sorted)."""
    generator = _generator()
    raw = json.loads(generator.FACTORIES["arm-core"]().schema.to_specification().to_json())
    assert len(raw["channels"]) == 3
    first = generator.render_json(generator.complete(copy.deepcopy(raw)))
    second = generator.render_json(generator.complete(_reversed_sections(raw)))
    assert first == second
    document = json.loads(first)
    for section in (
        document["channels"],
        document["operations"],
        document["components"]["messages"],
    ):
        assert list(section) == sorted(section)


def _descriptions(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [v for k, v in node.items() if k == "description" and isinstance(v, str)]
        return found + [d for v in node.values() for d in _descriptions(v)]
    if isinstance(node, list):
        return [d for item in node for d in _descriptions(item)]
    return []


@pytest.mark.parametrize("service", SERVICES)
def test_placeholders_are_code_spans_and_no_internal_references(service: str) -> None:
    """A description is CommonMark: every `<job_id>`-style placeholder sits in a code span (the
    viewer would swallow it as an HTML tag otherwise), and no internal OQ-NN reference is left."""
    descriptions = _descriptions(_document(service))
    assert any("`<job_id>:<attempt>`" in text for text in descriptions)
    for text in descriptions:
        outside_code = re.sub(r"`[^`]*`", "", text)
        assert "<" not in outside_code, text
        assert not re.search(r"\bOQ-\d+", text), text


@pytest.mark.parametrize("service", SERVICES)
def test_messages_carry_contract_names_and_the_msg_id_correlation(service: str) -> None:
    """Messages and payload schemas have the contract's names (no FastStream `x:Message:Payload`),
    the correlation id is the Nats-Msg-Id header, and each header example matches its pattern."""
    document = _document(service)
    components = document["components"]
    for name in (*components["messages"], *components["schemas"]):
        assert ":" not in name, name
    assert set(components["messages"]) <= {"RecognitionRequest", "RecognitionResultMessage"}
    for _channel, message in _messages(document):
        assert message["correlationId"]["location"] == "$message.header#/Nats-Msg-Id"
        header = message["headers"]["properties"]["Nats-Msg-Id"]
        examples = message["headers"]["examples"]
        assert examples
        for example in examples:
            assert re.fullmatch(header["pattern"], example["Nats-Msg-Id"])


def test_arm_core_document_describes_the_service() -> None:
    """arm-core's info has a description, as the recognition services' documents do."""
    assert "recognition request" in _document("arm-core")["info"]["description"]
