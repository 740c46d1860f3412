"""One precision invariant over every real Excel export: what we emit is what the cell holds.

For each statement line, each value's amount equals the numeric value of the source cell at
the line's row (its `ref`) and the value's `column_index`, read by xlrd / openpyxl, not by our
reader; a value left empty where that cell holds a number other than 0 is lost, and counts as
a violation too. For each ОСВ row, each sum equals a numeric cell of its source row (the
contract carries no column per sum). Files that break the invariant today are listed with
strict xfail and the reason, so the day one is fixed the layer fails and the list is updated.
"""

from __future__ import annotations

import pytest

from ._recognised import FILES, case, precision_violations
from ._sources import SAMPLES

pytestmark = [
    pytest.mark.shared,
    pytest.mark.slow,
    pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"{SAMPLES} is absent"),
]

_BROKEN: dict[str, str] = {}  # every real export holds the invariant today


@pytest.mark.parametrize("name", [case(name, _BROKEN) for name in FILES])
def test_every_emitted_amount_is_its_source_cell(name: str) -> None:
    violations = precision_violations(name)
    assert not violations, f"{len(violations)} values differ from their cells: {violations[:10]}"
