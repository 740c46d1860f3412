"""The relations on 1,309 real ГИР БО filings (shared/samples/public; skipped when absent).

Pass rates must stay close to those measured in shared/notes/domain.md; the full table is
printed by scripts/report_girbo_relations.py.
"""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from services.arm_statements import FormVariant, detect_form_variant, evaluate_relations

pytestmark = pytest.mark.shared

_EXPORT = (
    Path(__file__).resolve().parents[3]
    / "shared/samples/public/grind-t_bo-nalog__exports_bfo.json.br"
)
_COLUMNS = {"current": 0, "previous": 1, "beforePrevious": 2}
# lowest acceptable share of (filing, column) pairs where a relation holds
_FLOOR = {"1500=1510+1520+1530+1540+1550": 0.94, "2410=-2411+2412": 0.93}
_HARD_FLOOR = 0.985


def _values(form: dict[str, Any]) -> dict[str, dict[int, Decimal | None]]:
    values: dict[str, dict[int, Decimal | None]] = {}
    for key, raw in form.items():
        for prefix, column in _COLUMNS.items():
            code = key[len(prefix) :]
            if key.startswith(prefix) and code.isdigit() and isinstance(raw, int | float):
                values.setdefault(code, {})[column] = Decimal(str(raw))
    for digit in range(10):  # ГИР БО keeps the NKO section III under 13x01
        five, four = f"13{digit}01", f"13{digit}0"
        if five in values and four not in values:
            values[four] = values.pop(five)
    return values


@pytest.fixture(scope="module")
def filings() -> list[dict[str, Any]]:
    if not _EXPORT.exists():
        pytest.skip(f"shared sample absent: {_EXPORT}")
    brotli = pytest.importorskip("brotli")
    data: list[dict[str, Any]] = json.loads(brotli.decompress(_EXPORT.read_bytes()))
    return data


def test_relations_hold_on_real_filings_as_measured(filings: list[dict[str, Any]]) -> None:
    """Every hard relation holds on ≥ 98.5 % of checked (filing, column) pairs; the soft ones
    near their measured rates (1500: 95.5 %, 2410: 94.3 %)."""
    checked: Counter[str] = Counter()
    held: Counter[str] = Counter()
    for filing in filings:
        variant: FormVariant = "simplified" if filing["knd"].startswith("0710096") else "full"
        correction = filing["typeCorrections"][0]["correction"]
        for part, document_type in (("balance", "BALANCE"), ("financialResult", "INCOME")):
            if correction.get(part):
                for outcome in evaluate_relations(
                    document_type, variant, _values(correction[part])
                ):
                    checked[outcome.relation.name] += 1
                    held[outcome.relation.name] += outcome.holds
    assert len(filings) == 1309
    assert len(checked) >= 15
    shares = {name: held[name] / checked[name] for name in checked}
    low = {n: s for n, s in shares.items() if s < _FLOOR.get(n, _HARD_FLOOR)}
    assert low == {}


def test_variant_detected_from_codes_agrees_with_knd(filings: list[dict[str, Any]]) -> None:
    """Simplified filings (КНД 0710096) are detected as simplified, full ones never are."""
    mismatches = Counter[tuple[str, str | None]]()
    for filing in filings:
        expected = "simplified" if filing["knd"].startswith("0710096") else "full"
        correction = filing["typeCorrections"][0]["correction"]
        for part, document_type in (("balance", "BALANCE"), ("financialResult", "INCOME")):
            if correction.get(part):
                detected = detect_form_variant(document_type, list(_values(correction[part])))
                if detected is not None and detected != expected:
                    mismatches[(expected, detected)] += 1
    assert mismatches == Counter()
