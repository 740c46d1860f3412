"""Reading the bo.nalog (ГИР БО) export used by the dev reports in scripts/.

The export is a brotli-compressed JSON list of filings; each filing's
``typeCorrections[0].correction`` holds ``balance`` and ``financialResult`` with fields
``current1600``, ``previous1600``, ``beforePrevious1600`` … and ``expl1600`` (the explanation
reference printed in the «Пояснения» column). See shared/notes/domain.md «ГИР БО machine formats».
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

__all__ = ["DEFAULT_EXPORT", "girbo_explanations", "girbo_values", "load"]

DEFAULT_EXPORT = (
    Path(__file__).resolve().parents[2]
    / "shared/samples/public/grind-t_bo-nalog__exports_bfo.json.br"
)
_COLUMNS = {"current": 0, "previous": 1, "beforePrevious": 2}
# ГИР БО stores the NKO variant of section III under five-digit codes (13001 for 1300 …).
_NKO_FIVE_DIGIT = {f"13{d}01": f"13{d}0" for d in range(10)}


def girbo_values(
    form: dict[str, object], *, fold_nko: bool = True
) -> dict[str, dict[int, Decimal | None]]:
    """``{code: {column: amount}}`` from one ГИР БО form (balance or financialResult).

    With ``fold_nko`` the NKO five-digit codes of section III are read as their four-digit
    lines (what the relations check); without it they stay as the filing prints them.
    """
    values: dict[str, dict[int, Decimal | None]] = {}
    for key, raw in form.items():
        for prefix, column in _COLUMNS.items():
            code = key[len(prefix) :]
            if key.startswith(prefix) and code.isdigit() and isinstance(raw, int | float):
                values.setdefault(code, {})[column] = Decimal(str(raw))
    if fold_nko:
        for five, four in _NKO_FIVE_DIGIT.items():
            if five in values and four not in values:
                values[four] = values.pop(five)
    return values


def girbo_explanations(form: dict[str, object]) -> dict[str, str]:
    """``{code: "п.3"}``: what the filing prints in the «Пояснения» column of each line."""
    return {
        key[len("expl") :]: raw
        for key, raw in form.items()
        if key.startswith("expl") and key[len("expl") :].isdigit() and isinstance(raw, str) and raw
    }


def load(path: Path) -> list[dict[str, object]]:
    """The filings of the export."""
    import brotli  # dev extra: only the reports and the shared-data tests need it

    data: list[dict[str, object]] = json.loads(brotli.decompress(path.read_bytes()))
    return data
