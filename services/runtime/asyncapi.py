"""Helpers for services that take requests raw but still document their payloads in AsyncAPI.

The request protocol parses bytes itself (so a bad request gets the contract's answer instead
of FastStream's validation error); `raw_body` is the decoder that hands those bytes over, and
`inlined_schema` turns a generated model's JSON Schema into the self-contained form
`pydantic.WithJsonSchema` needs to show the real payload.
"""

from __future__ import annotations

from typing import Any

from faststream.nats import NatsMessage

__all__ = ["inlined_schema", "raw_body"]


async def raw_body(msg: NatsMessage) -> bytes:
    """Decoder that hands the handler the bytes as received."""
    return bytes(msg.body)


def inlined_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema with its local `$defs` inlined (the contract has no recursion)."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return walk(dict(defs[ref.removeprefix("#/$defs/")]))
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    result: dict[str, Any] = walk(schema)
    return result
