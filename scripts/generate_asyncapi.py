"""Generate the AsyncAPI documents and the offline site of the three services from their code.

    python scripts/generate_asyncapi.py            write asyncapi/<service>.json|.yaml|.html, index
    python scripts/generate_asyncapi.py --check    exit 1 when a committed file differs
    python scripts/generate_asyncapi.py --vendor   also copy the viewer bundle from
                                                   asyncapi/tools/node_modules (after
                                                   `npm ci --prefix asyncapi/tools`)

Each app is built by its own factory on default settings (the OPENBAO__* environment is
ignored), and its FastStream specification (`app.schema.to_specification()`) is completed
with what FastStream 0.7 cannot declare:
- every channel's description names the setting of its subject and the default, and its queue
  group;
- every message gets a headers schema with `Nats-Msg-Id` (required on what the app sends);
- a payload FastStream shows as EmptyPayload (a raw handler without `WithJsonSchema`) is
  replaced by the contract schema of its subject's role; a remaining EmptyPayload is an error.
Output is deterministic: no timestamps, stable key order, LF line ends.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from services.runtime.ids import MSG_ID_HEADER, PATTERNS, msg_id  # noqa: E402

OUT = ROOT / "asyncapi"
SITE = OUT / "site"
VENDOR = SITE / "vendor"
NODE_COMPONENT = OUT / "tools" / "node_modules" / "@asyncapi" / "react-component"
VENDOR_FILES = {
    "asyncapi-standalone.js": NODE_COMPONENT / "browser" / "standalone" / "index.js",
    "asyncapi-standalone.js.LICENSE.txt": NODE_COMPONENT
    / "browser"
    / "standalone"
    / "index.js.LICENSE.txt",
    "asyncapi-default.min.css": NODE_COMPONENT / "styles" / "default.min.css",
    "LICENSE": NODE_COMPONENT / "LICENSE",
}
SERVICES = ("arm-core", "tabular-parser", "scan-gateway")

# The id formats come from the code that builds and reads them (services.runtime.ids).
_MSG_IDS: dict[str, tuple[str, str]] = {
    "request": (
        PATTERNS["request"],
        "<job_id>:<attempt>, set by arm-core on every request; a service reads the attempt "
        "from it when the body has none and tolerates its absence.",
    ),
    "result": (
        PATTERNS["answer"],
        "ack:<job_id>:<attempt> on the ack (status processing), result:<job_id>:<attempt> on "
        "the final envelope; a publish retry keeps the same id.",
    ),
}
_EXAMPLE_JOB = "3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e6f"
_MSG_ID_EXAMPLES = {
    "request": msg_id("request", _EXAMPLE_JOB, 1),
    "result": msg_id("result", _EXAMPLE_JOB, 1),
}
# The contract's name of each kind of message, instead of FastStream's `<title>:Message`.
_CONTRACT_MESSAGES = {"request": "RecognitionRequest", "result": "RecognitionResultMessage"}
# A placeholder such as <job_id>, with what is glued to it (`ack:<job_id>:<attempt>`).
_PLACEHOLDER = re.compile(r"(?<![`\w:])(?:\w+:)?<\w+>(?::<\w+>)*")


# -- building the apps -------------------------------------------------------------------------


def _clean_environment() -> None:
    """Defaults only: the documents must not depend on who runs the script."""
    for key in list(os.environ):
        if key.upper().startswith("OPENBAO__"):
            del os.environ[key]


def _core() -> Any:
    from services.arm_core.app import create_app
    from services.arm_core.settings import CoreSettings

    return create_app(CoreSettings(), run_background=False)


def _tabular() -> Any:
    from services.tabular_parser.app import create_app
    from services.tabular_parser.settings import TabularParserSettings

    return create_app(TabularParserSettings())


def _scan_gateway() -> Any:
    from services.scan_gateway.app import create_app
    from services.scan_gateway.settings import ScanGatewaySettings

    return create_app(ScanGatewaySettings())


FACTORIES: dict[str, Callable[[], Any]] = {
    "arm-core": _core,
    "tabular-parser": _tabular,
    "scan-gateway": _scan_gateway,
}


# -- completing the specification ------------------------------------------------------------


def _subject_roles() -> dict[str, tuple[str, str, str]]:
    """Default subject → (role, setting name, default)."""
    from services.runtime.settings import SUBJECT_KEYS, NatsSettings

    roles: dict[str, tuple[str, str, str]] = {}
    for role, key in SUBJECT_KEYS.items():
        field = key.removeprefix("OPENBAO__NATS__").lower()
        default = str(NatsSettings.model_fields[field].default)
        roles[default] = (role, key, default)
    return roles


def _contract_payloads() -> dict[str, dict[str, Any]]:
    """Component schemas by kind: the request (1.x) and the result message (2.0, 1.x)."""
    from services.contract.models.request_v1 import RecognitionRequest
    from services.contract.models.result_message_v1 import (
        RecognitionResultMessage as ResultMessageV1,
    )
    from services.contract.models.result_message_v2 import (
        RecognitionResultMessage as ResultMessageV2,
    )
    from services.runtime.asyncapi import inlined_schema

    return {
        "RecognitionRequest": inlined_schema(RecognitionRequest.model_json_schema()),
        "RecognitionResultMessageV2": inlined_schema(ResultMessageV2.model_json_schema()),
        "RecognitionResultMessageV1": inlined_schema(ResultMessageV1.model_json_schema()),
    }


def complete(spec: dict[str, Any]) -> dict[str, Any]:
    """Add subjects' settings, queue groups, headers; replace EmptyPayload by the contract;
    name messages as the contract does; escape placeholders; sort for a stable output."""
    roles = _subject_roles()
    components = spec.setdefault("components", {})
    schemas: dict[str, Any] = components.setdefault("schemas", {})
    messages: dict[str, Any] = components.setdefault("messages", {})
    actions = {
        op["channel"]["$ref"].removeprefix("#/channels/"): op["action"]
        for op in spec.get("operations", {}).values()
    }
    kinds: dict[str, str] = {}
    for name, channel in spec.get("channels", {}).items():
        address = channel.get("address")
        known = roles.get(address)
        if known is None:
            msg = f"channel {name}: subject {address!r} is not a default subject of the contract"
            raise SystemExit(msg)
        role, key, default = known
        kind = "result" if role == "result" else "request"
        kinds[name] = kind
        notes = [f"Subject: setting {key} (default {default})."]
        queue = channel.get("bindings", {}).get("nats", {}).get("queue")
        if queue:
            notes.append(f"Queue group: {queue}.")
        channel["description"] = " ".join(
            _sentence(part) for part in (channel.get("description", ""), *notes) if part.strip()
        )
        sends = actions.get(name) == "send"
        for ref in channel.get("messages", {}).values():
            message = messages[ref["$ref"].removeprefix("#/components/messages/")]
            message["headers"] = _headers(kind, required=sends)
            message["correlationId"] = {
                "description": "The Nats-Msg-Id header: the job and the attempt it answers.",
                "location": f"$message.header#/{MSG_ID_HEADER}",
            }
            _fill_payload(message, kind, schemas)
    _check_no_empty_payload(spec)
    _contract_names(spec, kinds)
    _escape_placeholders(spec)
    for section in ("channels", "operations"):
        if section in spec:
            spec[section] = dict(sorted(spec[section].items()))
    components = spec["components"]
    components["messages"] = dict(sorted(components["messages"].items()))
    components["schemas"] = dict(sorted(components["schemas"].items()))
    return spec


def _sentence(text: str) -> str:
    """A description part as a sentence, so that the next one does not run on."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _contract_names(spec: dict[str, Any], kinds: dict[str, str]) -> None:
    """Messages and their payload schemas named as in the contract (RecognitionRequest,
    RecognitionResultMessage), not FastStream's `<title>:Message[:Payload]`; channels of one
    kind share one message component, which must then be identical."""
    components = spec["components"]
    old_messages: dict[str, Any] = components["messages"]
    schemas: dict[str, Any] = components["schemas"]
    renamed_schemas: dict[str, str] = {}
    new_messages: dict[str, Any] = {}
    renamed_keys: dict[str, dict[str, str]] = {}
    for name, channel in spec.get("channels", {}).items():
        contract = _CONTRACT_MESSAGES[kinds[name]]
        refs: dict[str, Any] = channel.get("messages", {})
        renamed_keys[name] = {}
        for key, ref in list(refs.items()):
            message = old_messages[ref["$ref"].removeprefix("#/components/messages/")]
            payload_ref = message.get("payload", {}).get("$ref", "")
            old_schema = payload_ref.removeprefix("#/components/schemas/")
            if ":" in old_schema:
                renamed_schemas[old_schema] = contract
            message["name"] = contract
            message["title"] = contract
            previous = new_messages.setdefault(contract, message)
            if previous != message:
                msg = f"channel {name}: two different {contract} messages in one document"
                raise SystemExit(msg)
            renamed_keys[name][key] = contract
        channel["messages"] = {
            renamed_keys[name][key]: {"$ref": f"#/components/messages/{renamed_keys[name][key]}"}
            for key in refs
        }
    for operation in spec.get("operations", {}).values():
        channel_name = operation["channel"]["$ref"].removeprefix("#/channels/")
        prefix = f"#/channels/{channel_name}/messages/"
        operation["messages"] = [
            {"$ref": prefix + renamed_keys[channel_name][ref["$ref"].removeprefix(prefix)]}
            for ref in operation.get("messages", [])
        ]
    for old, new in renamed_schemas.items():
        schema = schemas.pop(old)
        if new in schemas and schemas[new] != schema:
            msg = f"schema {old} would replace a different {new}"
            raise SystemExit(msg)
        schemas[new] = schema
    components["messages"] = new_messages
    text = json.dumps(spec)
    for old, new in renamed_schemas.items():
        text = text.replace(f'"#/components/schemas/{old}"', f'"#/components/schemas/{new}"')
    spec.clear()
    spec.update(json.loads(text))
    leftovers = [n for n in (*schemas, *new_messages) if ":" in n]
    if leftovers:
        msg = f"FastStream's automatic names left in the document: {leftovers}"
        raise SystemExit(msg)


def _escape_placeholders(node: Any) -> None:
    """Descriptions are CommonMark: `<job_id>` would be read as an HTML tag and vanish from
    the page, so each placeholder goes into a code span."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                node[key] = _PLACEHOLDER.sub(lambda m: f"`{m.group(0)}`", value)
            else:
                _escape_placeholders(value)
    elif isinstance(node, list):
        for item in node:
            _escape_placeholders(item)


def _headers(kind: str, *, required: bool) -> dict[str, Any]:
    pattern, description = _MSG_IDS[kind]
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            MSG_ID_HEADER: {"type": "string", "pattern": pattern, "description": description}
        },
    }
    if required:
        schema["required"] = [MSG_ID_HEADER]
    example = _MSG_ID_EXAMPLES[kind]
    schema["examples"] = [{MSG_ID_HEADER: example}]
    if kind == "result":
        schema["examples"].insert(0, {MSG_ID_HEADER: example.replace("result:", "ack:", 1)})
    return schema


def _fill_payload(message: dict[str, Any], kind: str, schemas: dict[str, Any]) -> None:
    payload = message.get("payload", {})
    ref = payload.get("$ref", "")
    target = schemas.get(ref.removeprefix("#/components/schemas/")) if ref else payload
    if not _is_empty(target):
        return
    contract = _contract_payloads()
    if ref:
        schemas.pop(ref.removeprefix("#/components/schemas/"), None)
    if kind == "request":
        schemas["RecognitionRequest"] = contract["RecognitionRequest"]
        message["payload"] = {"$ref": "#/components/schemas/RecognitionRequest"}
        return
    # arm-core reads every MAJOR it supports: 2.0 and, during the migration, 1.x.
    for name in ("RecognitionResultMessageV2", "RecognitionResultMessageV1"):
        schemas[name] = contract[name]
    message["payload"] = {
        "oneOf": [
            {"$ref": "#/components/schemas/RecognitionResultMessageV2"},
            {"$ref": "#/components/schemas/RecognitionResultMessageV1"},
        ]
    }


def _is_empty(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("title") == "EmptyPayload"


def _check_no_empty_payload(spec: dict[str, Any]) -> None:
    text = json.dumps(spec)
    if '"EmptyPayload"' in text:
        msg = "a message still shows EmptyPayload: declare its schema in the service"
        raise SystemExit(msg)


# -- rendering ----------------------------------------------------------------------------------


def render_json(spec: dict[str, Any]) -> str:
    return json.dumps(spec, ensure_ascii=False, indent=2) + "\n"


def render_yaml(spec: dict[str, Any]) -> str:
    text: str = yaml.safe_dump(spec, allow_unicode=True, sort_keys=False, width=100)
    return text


def render_page(service: str, spec: dict[str, Any]) -> str:
    """A viewer page with the document inline (file:// pages cannot fetch JSON)."""
    document = json.dumps(json.dumps(spec, ensure_ascii=False), ensure_ascii=False)
    document = document.replace("</", "<\\/")
    config = json.dumps(
        {
            "show": {
                "sidebar": True,
                "info": True,
                "servers": True,
                "operations": True,
                "messages": True,
                "schemas": True,
                "errors": True,
            },
            "sidebar": {"showServers": "byDefault", "showOperations": "byDefault"},
        }
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{service} — AsyncAPI</title>
  <link rel="stylesheet" href="vendor/asyncapi-default.min.css">
</head>
<body>
  <p style="margin:8px 16px;font-family:sans-serif"><a href="../index.html">← all services</a>
    · <a href="../{service}.json">{service}.json</a> · <a href="../{service}.yaml">{service}.yaml</a></p>
  <div id="asyncapi"></div>
  <script src="vendor/asyncapi-standalone.js"></script>
  <script>
    window.AsyncApiStandalone.render(
      {{ schema: {document}, config: {config} }},
      document.getElementById("asyncapi")
    );
  </script>
</body>
</html>
"""


def render_index(specs: dict[str, dict[str, Any]]) -> str:
    items = []
    for service, spec in specs.items():
        channels = ", ".join(
            f"{channel['address']}" for channel in spec.get("channels", {}).values()
        )
        items.append(
            f'    <li><a href="site/{service}.html">{service}</a> '
            f"{spec['info'].get('version', '')} — {channels} "
            f'(<a href="{service}.json">JSON</a>, <a href="{service}.yaml">YAML</a>)</li>'
        )
    body = "\n".join(items)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>АРМ КА recognition — AsyncAPI</title>
  <style>body {{ font-family: sans-serif; margin: 2em; max-width: 60em; }}</style>
</head>
<body>
  <h1>АРМ КА recognition — AsyncAPI documents</h1>
  <p>One document per service, generated from the code by
    <code>scripts/generate_asyncapi.py</code>; subjects are shown with their default values
    (each channel's description names its setting). Works offline: the viewer is in
    <code>site/vendor/</code>.</p>
  <ul>
{body}
  </ul>
</body>
</html>
"""


def generate() -> dict[Path, str]:
    """Every generated text file, by path."""
    _clean_environment()
    specs: dict[str, dict[str, Any]] = {}
    for service in SERVICES:
        app = FACTORIES[service]()
        spec = json.loads(app.schema.to_specification().to_json())
        specs[service] = complete(spec)
    files: dict[Path, str] = {}
    for service, spec in specs.items():
        files[OUT / f"{service}.json"] = render_json(spec)
        files[OUT / f"{service}.yaml"] = render_yaml(spec)
        files[SITE / f"{service}.html"] = render_page(service, spec)
    files[OUT / "index.html"] = render_index(specs)
    return files


# -- the command ----------------------------------------------------------------------------------


def _check(files: dict[Path, str]) -> int:
    stale = 0
    for path, text in files.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            stale += 1
            print(f"stale: {path.relative_to(ROOT)}", file=sys.stderr)
            if current is not None:
                diff = difflib.unified_diff(
                    current.splitlines(), text.splitlines(), "committed", "generated", lineterm=""
                )
                for line in list(diff)[:20]:
                    print(f"  {line}", file=sys.stderr)
    for name in VENDOR_FILES:
        if not (VENDOR / name).exists():
            stale += 1
            print(
                f"missing: {(VENDOR / name).relative_to(ROOT)} (run with --vendor)", file=sys.stderr
            )
    if stale:
        print("run: python scripts/generate_asyncapi.py", file=sys.stderr)
        return 1
    print(f"asyncapi: {len(files)} generated files are current")
    return 0


def _vendor() -> None:
    missing = [str(src) for src in VENDOR_FILES.values() if not src.exists()]
    if missing:
        msg = "viewer bundle not installed: run `npm ci --prefix asyncapi/tools` first"
        raise SystemExit(msg)
    VENDOR.mkdir(parents=True, exist_ok=True)
    for name, src in VENDOR_FILES.items():
        shutil.copyfile(src, VENDOR / name)
        print(f"copied {(VENDOR / name).relative_to(ROOT)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when a file is not current")
    parser.add_argument(
        "--vendor", action="store_true", help="copy the viewer bundle from asyncapi/tools"
    )
    args = parser.parse_args(argv)
    files = generate()
    if args.check:
        return _check(files)
    if args.vendor:
        _vendor()
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
