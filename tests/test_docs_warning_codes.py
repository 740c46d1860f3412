"""docs/warning-codes.md stays truthful: its «Statements» table is the StatementWarning enum."""

from __future__ import annotations

import re
from pathlib import Path

from services.arm_statements import StatementWarning

DOC = Path(__file__).resolve().parents[1] / "docs" / "warning-codes.md"
_ROW = re.compile(r"^\| `([A-Z_]+)` \| (info|warning|error) \|", re.MULTILINE)


def _statements_table() -> dict[str, str]:
    """``{code: severity}`` of the table in the «## Statements» section (up to its first ###)."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Statements\n", 1)[1].split("\n### ", 1)[0]
    return dict(_ROW.findall(section))


def test_every_statement_warning_is_documented_with_its_severity() -> None:
    """A code added to the enum, or a severity changed, without the doc's table fails here."""
    documented = _statements_table()
    assert {str(code): code.severity for code in StatementWarning} == documented
