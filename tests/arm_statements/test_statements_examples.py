"""recompute agrees with the contract's own statement examples (contracts/examples)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from services.arm_statements import recompute

_EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"
_FILES = ("result-statement-excel.json", "result-statement-minimal.json")


def _documents() -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    for name in _FILES:
        path = _EXAMPLES / name
        if path.exists():
            body = json.loads(path.read_text(encoding="utf-8"))
            found += [(f"{name}:{i}", doc) for i, doc in enumerate(body["documents"])]
    return found


_DOCUMENTS = _documents()


@pytest.mark.skipif(not _DOCUMENTS, reason="contract examples not present")
@pytest.mark.parametrize(("where", "document"), _DOCUMENTS, ids=[w for w, _ in _DOCUMENTS])
def test_recompute_reproduces_the_example(where: str, document: dict[str, Any]) -> None:
    """The example's form_variant and checks are what recompute computes; every value read
    from dirty text whose needs_review is false is covered by a holding relation."""
    result = recompute(document)
    assert result.form_variant == document["form_variant"], where
    expected_checks = document.get("checks")
    assert (result.checks.to_dict() if result.checks else None) == expected_checks, where
    for line in document["lines"]:
        for value in line["values"]:
            if value.get("is_recognized") is False and value.get("needs_review") is False:
                assert result.is_covered(line["ref"], value["column_index"]), where
