"""Check that each service's contract copy is byte-identical to the source (spec 001).

The copies live in ``services/<service>/api/contracts/``; the rule that pairs a copy file with a
source file is in ``services/contract/copies.py``. The source is ``--docs``, else
``$ARM_KA_DOCS``, else this repository's ``contracts/`` (either may name the docs repository,
whose ``contracts/`` is used, or the contracts folder itself). No source: a warning, exit 0.
Exits 1 and prints each mismatch, naming the file, when any copy differs.

    .venv/bin/python scripts/check_contract_copies.py [--docs PATH] [--service NAME ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # runnable as a plain script from the repository
    sys.path.insert(0, str(ROOT))

from services.contract.copies import (  # noqa: E402
    DOCS_ENV,
    SERVICE_COPIES,
    check_copies,
    resolve_source,
    source_available,
)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--docs",
        help=f"the docs repository or its contracts folder (default: ${DOCS_ENV}, else ./contracts)",
    )
    parser.add_argument(
        "--service",
        action="append",
        choices=sorted(SERVICE_COPIES),
        help="check only this service (repeatable; default: all three)",
    )
    args = parser.parse_args(argv)

    source = resolve_source(args.docs, repo_root=ROOT)
    if not source_available(source):
        print(
            f"warning: contract source {source} is not available; contract copies not checked",
            file=sys.stderr,
        )
        return 0
    services = {name: SERVICE_COPIES[name] for name in args.service or SERVICE_COPIES}
    report = check_copies(source, repo_root=ROOT, services=services)
    for mismatch in report.mismatches:
        print(mismatch)
    if not report.ok:
        print(f"{len(report.mismatches)} contract copy mismatch(es) against {source}")
        return 1
    print(f"contract copies of {', '.join(services)}: {report.compared} files match {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
