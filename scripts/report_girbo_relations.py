"""Report how often each arm_statements relation holds on real ГИР БО filings.

Reads the bo.nalog export (a JSON list of filings, brotli-compressed; fields ``current1600``,
``previous1600``, ``beforePrevious1600`` …) and prints, for every relation, the share of
(filing, column) pairs where it holds among those where it is checked, next to the share
measured in shared/notes/domain.md. Also prints how detect_form_variant agrees with the
filing's КНД (0710096 = simplified). Not a test: a calibration aid.

    .venv/bin/python scripts/report_girbo_relations.py [path/to/exports_bfo.json.br]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path

from services.arm_statements import FormVariant, detect_form_variant, evaluate_relations

_DEFAULT = (
    Path(__file__).resolve().parents[2]
    / "shared/samples/public/grind-t_bo-nalog__exports_bfo.json.br"
)
_COLUMNS = {"current": 0, "previous": 1, "beforePrevious": 2}
# ГИР БО stores the NKO variant of section III under five-digit codes (13001 for 1300 …).
_NKO_FIVE_DIGIT = {f"13{d}01": f"13{d}0" for d in range(10)}


def girbo_values(form: dict[str, object]) -> dict[str, dict[int, Decimal | None]]:
    """``{code: {column: amount}}`` from one ГИР БО form (balance or financialResult)."""
    values: dict[str, dict[int, Decimal | None]] = {}
    for key, raw in form.items():
        for prefix, column in _COLUMNS.items():
            code = key[len(prefix) :]
            if key.startswith(prefix) and code.isdigit() and isinstance(raw, int | float):
                values.setdefault(code, {})[column] = Decimal(str(raw))
    for five, four in _NKO_FIVE_DIGIT.items():
        if five in values and four not in values:
            values[four] = values.pop(five)
    return values


def load(path: Path) -> list[dict[str, object]]:
    """The filings of the export."""
    import brotli  # dev extra: only this script and the shared-data test need it

    data: list[dict[str, object]] = json.loads(brotli.decompress(path.read_bytes()))
    return data


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else _DEFAULT
    if not path.exists():
        print(f"no export at {path}", file=sys.stderr)
        return 1
    filings = load(path)
    checked: Counter[str] = Counter()
    held: Counter[str] = Counter()
    kinds: dict[str, str] = {}
    variants: Counter[tuple[str, str | None]] = Counter()
    for filing in filings:
        simplified = str(filing.get("knd", "")).startswith("0710096")
        corrections = filing.get("typeCorrections")
        if not isinstance(corrections, list):
            continue
        for correction in corrections[:1]:
            body = correction["correction"]
            for part, document_type in (("balance", "BALANCE"), ("financialResult", "INCOME")):
                form = body.get(part)
                if not form:
                    continue
                values = girbo_values(form)
                variant: FormVariant = "simplified" if simplified else "full"
                detected = detect_form_variant(document_type, list(values))
                variants[(variant, detected)] += 1
                for outcome in evaluate_relations(document_type, variant, values):
                    name = f"{variant}: {outcome.relation.name}"
                    kinds[name] = outcome.relation.kind
                    checked[name] += 1
                    held[name] += outcome.holds
    print(f"{len(filings)} filings; (filing, column) pairs where each relation was checked")
    print(f"{'relation':<62} {'kind':<5} {'checked':>8} {'holds':>8}")
    for name in sorted(checked):
        share = 100 * held[name] / checked[name]
        print(f"{name:<62} {kinds[name]:<5} {checked[name]:>8} {share:>7.2f}%")
    print("\nform variant by КНД → detected from codes:")
    for (by_knd, found), count in sorted(variants.items(), key=str):
        print(f"  {by_knd:<10} → {found!s:<10} {count}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
