"""Report how exactly the statement recogniser reads real ГИР БО filings printed as workbooks.

Every filing of the bo.nalog export is printed in two layouts (a 1C export and a ГИР БО
export; full or simplified by the filing's КНД) and two formats (XLSX, XLS), written as a real
workbook, read by `excel.load_workbook` and recognised by `recognize_statements`. The report
gives the share of printed amounts recovered exactly (code + period column + amount), of
header fields (ИНН, ОКУД, ОКЕИ / units, report date, organisation name) and of form variants,
overall and per layout and format, then the most common failure reasons and the relations
that fail most often. Not a test: a calibration aid (target: ≥ 99.5 % of values exact).

    .venv/bin/python scripts/report_girbo_recognition.py [--limit N] [--layout onec|girbo]
        [--format XLSX|XLS] [--export PATH] [--out benchmarks/results/girbo_recognition.txt]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # runnable as a plain script from the repository
    sys.path.insert(0, str(ROOT))

from scripts._girbo_data import DEFAULT_EXPORT, girbo_explanations, girbo_values, load  # noqa: E402
from tests.tabular_parser.statements._filings import (  # noqa: E402
    FORMATS,
    LAYOUTS,
    Comparison,
    Filing,
    Layout,
    compare,
    recognize,
)

DEFAULT_OUT = ROOT / "benchmarks" / "results" / "girbo_recognition.txt"
_EXAMPLES = 12


def to_filing(raw: dict[str, object]) -> Filing | None:
    """A `Filing` from one record of the export (None without a balance)."""
    corrections = raw.get("typeCorrections")
    if not isinstance(corrections, list) or not corrections:
        return None
    body = corrections[0]["correction"]
    balance = body.get("balance")
    if not balance:
        return None
    income = body.get("financialResult") or {}
    org = raw.get("organizationInfo") or body.get("bfoOrganizationInfo") or {}
    assert isinstance(org, dict)
    knd = str(body.get("knd") or raw.get("knd") or "")
    return Filing(
        key=str(raw.get("id")),
        year=int(str(raw["period"])),
        simplified=knd.startswith("0710096"),
        inn=str(org.get("inn") or ""),
        name=str(org.get("fullName") or ""),
        address=org.get("address") or None,
        okpo=org.get("okpo") or None,
        # ГИР БО keeps the NKO section III under 13x01 keys; the NKO form prints 13x0.
        balance=girbo_values(balance),
        income=girbo_values(income),
        explanations={**girbo_explanations(balance), **girbo_explanations(income)},
        nko=any(f"13{d}01" in girbo_values(balance, fold_nko=False) for d in range(10)),
    )


@dataclass
class Tally:
    """Sums of `Comparison`s for one slice (overall, a layout, a format …)."""

    workbooks: int = 0
    values: int = 0
    value_errors: int = 0
    blanks: int = 0
    blank_errors: int = 0
    header_fields: int = 0
    header_errors: int = 0
    variants: int = 0
    variant_errors: int = 0
    failures: int = 0  # sheets whose recognition raised
    header_by_field: Counter[str] = field(default_factory=Counter)
    header_errors_by_field: Counter[str] = field(default_factory=Counter)

    def add(self, c: Comparison, failures: int) -> None:
        self.workbooks += 1
        self.failures += failures
        self.values += c.values
        self.blanks += c.blanks
        self.header_fields += c.header_fields.total()
        self.header_by_field.update(c.header_fields)
        self.variants += c.variants
        for m in c.mismatches:
            if m.what == "value":
                if m.expected is not None:
                    self.value_errors += 1
                else:
                    self.blank_errors += 1
            elif m.what == "header":
                self.header_errors += 1
                self.header_errors_by_field[m.where.split()[-1]] += 1
            elif m.what == "variant":
                self.variant_errors += 1

    def line(self, name: str) -> str:
        return (
            f"{name:<14} {self.workbooks:>6} {_share(self.values, self.value_errors):>9} "
            f"{_share(self.blanks, self.blank_errors):>9} "
            f"{_share(self.header_fields, self.header_errors):>9} "
            f"{_share(self.variants, self.variant_errors):>9} {self.failures:>6}"
        )


def _share(total: int, errors: int) -> str:
    return "—" if total == 0 else f"{100 * (total - errors) / total:.3f}%"


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--export", type=Path, default=DEFAULT_EXPORT)
    parser.add_argument("--limit", type=int, default=None, help="only the first N filings")
    parser.add_argument("--layout", choices=LAYOUTS, action="append", help="repeatable")
    parser.add_argument("--format", choices=FORMATS, action="append", dest="formats")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = _parse(argv)
    if not args.export.exists():
        print(f"no export at {args.export}", file=sys.stderr)
        return 1
    layouts: list[Layout] = args.layout or list(LAYOUTS)
    formats: list[str] = args.formats or list(FORMATS)
    raw = load(args.export)[: args.limit]
    filings = [f for r in raw if (f := to_filing(r)) is not None]
    overall = Tally()
    slices: dict[str, Tally] = {}
    reasons: Counter[str] = Counter()
    relations: Counter[str] = Counter()
    examples: list[str] = []
    started = time.perf_counter()
    for filing in filings:
        for layout in layouts:
            for fmt in formats:
                result = recognize(filing, layout, fmt)
                comparison = compare(filing, layout, result)
                for tally in (
                    overall,
                    slices.setdefault(layout, Tally()),
                    slices.setdefault(fmt, Tally()),
                    slices.setdefault(f"{layout}/{fmt}", Tally()),
                    slices.setdefault(f"{layout}/{filing.variant}", Tally()),
                ):
                    tally.add(comparison, len(result.failures))
                relations.update(set(comparison.failed_relations))
                for m in comparison.mismatches:
                    code = m.where.split()[1] if m.what == "value" else m.where
                    reasons[f"{m.what}: {m.reason} [{code}]"] += 1
                    if len(examples) < _EXAMPLES:
                        examples.append(
                            f"  {filing.key} {layout}/{fmt} {m.what} {m.where}: {m.reason} "
                            f"(expected {m.expected!r}, got {m.actual!r})"
                        )
                for failure in result.failures:
                    reasons[f"sheet failed: {failure.error_type}"] += 1
    elapsed = time.perf_counter() - started
    text = _report(filings, layouts, formats, overall, slices, reasons, relations, examples)
    text += f"\n{overall.workbooks} workbooks in {elapsed:.0f} s\n"
    print(text, end="")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    return 0


def _report(
    filings: list[Filing],
    layouts: list[Layout],
    formats: list[str],
    overall: Tally,
    slices: dict[str, Tally],
    reasons: Counter[str],
    relations: Counter[str],
    examples: list[str],
) -> str:
    simplified = sum(f.simplified for f in filings)
    out = [
        "ГИР БО filings printed as workbooks and recognised (scripts/report_girbo_recognition.py)",
        f"{len(filings)} filings ({simplified} simplified); layouts {', '.join(layouts)}; "
        f"formats {', '.join(formats)}",
        "",
        f"{'slice':<14} {'books':>6} {'values':>9} {'blanks':>9} {'header':>9} "
        f"{'variant':>9} {'failed':>6}",
        overall.line("overall"),
    ]
    out += [slices[name].line(name) for name in sorted(slices)]
    out += [
        "",
        f"values: {overall.values - overall.value_errors} of {overall.values} printed amounts "
        f"exact (code + period column + amount); blanks: printed empty, read as null",
        "",
        "header fields (checked → exact):",
    ]
    out += [
        f"  {name:<18} {total:>7} {_share(total, overall.header_errors_by_field[name]):>9}"
        for name, total in sorted(overall.header_by_field.items())
    ]
    out += ["", "most common failure reasons:"]
    out += [f"  {count:>6}  {reason}" for reason, count in reasons.most_common(20)] or ["  none"]
    out += ["", f"relations failed by the recogniser's checks (of {overall.workbooks} workbooks):"]
    out += [
        f"  {count:>6}  {100 * count / overall.workbooks:6.2f}%  {name}"
        for name, count in relations.most_common(15)
    ] or ["  none"]
    out += ["", "first mismatches:"] + (examples or ["  none"])
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
