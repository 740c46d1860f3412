"""The real 1C HTML export «ОСВ по счету 62.01 за Июль 2019 г.» from shared/samples/public."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ._html_table import html_sheet
from ._strict import recognize_osv

SAMPLES = Path(__file__).resolve().parents[3].parent / "shared" / "samples" / "public"
SAMPLE = SAMPLES / "dkosinov_osv_parser__osv_62.01_2019-07.htm"

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def sample() -> Path:
    if not SAMPLE.exists():
        pytest.skip(f"{SAMPLES} is absent")
    return SAMPLE


def test_real_osv_by_account_62_01_is_recognised_and_every_sum_holds(sample: Path) -> None:
    """315 counterparties under the 62.01 row plus Итого; all control sums hold; period July 2019."""
    [result] = recognize_osv(html_sheet(sample))
    doc = result.document
    kinds = Counter((row["kind"], row["level"]) for row in doc["rows"])
    assert kinds == {("subconto", 1): 315, ("subaccount", 0): 1, ("total", 0): 1}
    assert doc["rows"][0]["account"] == "62.01"
    assert doc["rows"][0]["opening_debit"] == "456386485.50"
    assert doc["rows"][-1]["closing_debit"] == "439241262.14"
    header = doc["header"]
    assert (header["account"], header["subconto_kinds"]) == ("62.01", ["Контрагенты"])
    assert (header["period_start"], header["period_end"], header["is_from_year_start"]) == (
        "2019-07-01",
        "2019-07-31",
        False,
    )
    assert header["organization_name"] == 'МУП "СЕЗ"'
    assert doc["checks"]["failed"] == []
    assert doc["warnings"] == []
    assert doc["status"] == "done"


@pytest.mark.parametrize("fmt", ["XLSX", "XLS", "XLSB"])
def test_real_osv_turned_into_a_workbook_goes_through_the_whole_path(
    sample: Path, fmt: str
) -> None:
    """The HTML export's table written as a real workbook (cells, merges) and recognised by the
    service's child-process entry point: the same 315 counterparties, every sum holds, done."""
    from services.tabular_parser.recognizer import recognize_bytes
    from tests.builders import spec_of, write_xls, write_xlsb, write_xlsx

    spec = spec_of(html_sheet(sample))
    writer = {"XLSX": write_xlsx, "XLS": write_xls, "XLSB": write_xlsb}[fmt]

    recognition = recognize_bytes(writer([spec]))

    [doc] = recognition.documents
    kinds = Counter(row["kind"] for row in doc["rows"])
    assert kinds == {"subconto": 315, "subaccount": 1, "total": 1}
    assert doc["checks"]["failed"] == []
    assert (doc["header"]["period_start"], doc["header"]["period_end"]) == (
        "2019-07-01",
        "2019-07-31",
    )
    assert (recognition.group_schema, recognition.status) == ("osv", "done")
