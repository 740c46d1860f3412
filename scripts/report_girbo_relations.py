"""Report how often each arm_statements relation holds on real ГИР БО filings.

Reads the bo.nalog export (a JSON list of filings, brotli-compressed; fields ``current1600``,
``previous1600``, ``beforePrevious1600`` …) and prints, for every relation, the share of
(filing, column) pairs where it holds among those where it is checked, next to the share
measured in shared/notes/domain.md. Also prints how detect_form_variant agrees with the
filing's КНД (0710096 = simplified). Not a test: a calibration aid.

    .venv/bin/python scripts/report_girbo_relations.py [path/to/exports_bfo.json.br]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # runnable as a plain script from the repository
    sys.path.insert(0, str(ROOT))

from scripts._girbo_data import DEFAULT_EXPORT, girbo_values, load  # noqa: E402
from services.arm_statements import (  # noqa: E402
    FormVariant,
    detect_form_variant,
    evaluate_relations,
)


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT_EXPORT
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
