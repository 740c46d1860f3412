"""The real 1C:УПП exports (capital-S SharedStrings.xml) open with their outline levels."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.excel import load_workbook

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "public"

pytestmark = [
    pytest.mark.shared,
    pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples/public is absent"),
]


@pytest.mark.parametrize(
    ("name", "rows"),
    [
        ("kaetosh_LedgerFlattener__RZK_11.xlsx", 81),
        ("kaetosh_LedgerFlattener__UPP_valuta1.xlsx", 7143),
    ],
)
def test_1c_upp_exports_open_with_outline_levels(name: str, rows: int) -> None:
    """Each file opens, reaches its last used row, and carries levelled rows."""
    book = load_workbook((SAMPLES / name).read_bytes())
    sheet = book.sheets[0]
    assert book.format == "XLSX"
    assert len(sheet.rows) == rows
    assert sheet.outline_levels and set(sheet.outline_levels.values()) <= set(range(1, 8))
    assert any(isinstance(value, str) and value.strip() for row in sheet.rows for value in row)
