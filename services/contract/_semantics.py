"""Rules of the result file that JSON Schema cannot express (docs/decisions/0002).

Within one document: `ref` is unique; a warning's `line_refs` name refs of its `lines[]`
(`rows[]` for an osvDocument); a detail line's `parent_ref` names a line of the same document.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["document_reference_problems"]


def document_reference_problems(body: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(path, message) for each broken reference; expects a schema-valid 2.x result file."""
    documents = body.get("documents")
    if not isinstance(documents, list):
        return
    for d, doc in enumerate(documents):
        if not isinstance(doc, Mapping):
            continue
        items_key = "rows" if doc.get("document_type") == "OSV" else "lines"
        items = doc.get(items_key)
        if not isinstance(items, list):
            continue
        refs: set[str] = set()
        for i, item in enumerate(items):
            ref = item.get("ref") if isinstance(item, Mapping) else None
            if not isinstance(ref, str):
                continue
            if ref in refs:
                yield (
                    f"documents/{d}/{items_key}/{i}/ref",
                    f"ref {ref!r} is not unique in the document",
                )
            refs.add(ref)
        for i, item in enumerate(items):
            parent = item.get("parent_ref") if isinstance(item, Mapping) else None
            if isinstance(parent, str) and parent not in refs:
                yield (
                    f"documents/{d}/{items_key}/{i}/parent_ref",
                    f"parent_ref {parent!r} names no line of the document",
                )
        warnings = doc.get("warnings")
        for w, warning in enumerate(warnings if isinstance(warnings, list) else []):
            line_refs = warning.get("line_refs") if isinstance(warning, Mapping) else None
            for r, ref in enumerate(line_refs if isinstance(line_refs, list) else []):
                if ref not in refs:
                    yield (
                        f"documents/{d}/warnings/{w}/line_refs/{r}",
                        f"line_refs names {ref!r}, which is no line of the document",
                    )
