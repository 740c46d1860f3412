"""Validate the contract: schemas, examples and negative cases (spec 001 names this script).

- every ``contracts/*.schema.json`` is valid draft 2020-12 (checked against the meta-schema);
- every example passes the schema of its kind (by file-name prefix: ``request-``,
  ``result-message-``, ``result-``) and MAJOR: ``examples/`` holds the current MAJOR of each kind,
  ``examples/v<N>/`` MAJOR N; the body's own schema_version must name that MAJOR;
- every negative case FAILS. A negative file is named ``<kind>-v<MAJOR>-<what it breaks>.json``
  and is checked against that MAJOR of its kind; a MAJOR no schema knows must fail every known
  MAJOR of its kind and be rejected by the registry.

Format checking (date-time, date, uuid) is on. Exits 1 and names the files on any failure.

    .venv/bin/python scripts/validate_contracts.py [--contracts DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # runnable as a plain script from the repository
    sys.path.insert(0, str(ROOT))

from jsonschema import Draft202012Validator  # noqa: E402
from jsonschema.exceptions import SchemaError  # noqa: E402

from services.contract import ContractSetupError, Kind, Registry, kind_of_file  # noqa: E402
from services.contract import parse_version as _parse_version  # noqa: E402

CONTRACTS = ROOT / "contracts"
_NEGATIVE_NAME = re.compile(
    r"^(?P<kind>request|result-message|result)-v(?P<major>[0-9]+)-[a-z0-9-]+\.json$"
)
_VERSIONED_DIR = re.compile(r"^v([0-9]+)$")


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the contract files."""

    file: Path
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


@dataclass(frozen=True, slots=True)
class Report:
    problems: list[Problem]
    schemas: int
    examples: int
    negatives: int

    @property
    def ok(self) -> bool:
        return not self.problems


def negative_target(name: str) -> tuple[Kind, int] | None:
    """``result-v2-other-document.json`` → (Kind.RESULT, 2); None when the name breaks the rule."""
    match = _NEGATIVE_NAME.match(name)
    if match is None:
        return None
    return Kind(match.group("kind")), int(match.group("major"))


def _load(path: Path) -> tuple[Any, Problem | None]:
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, ValueError) as exc:
        return None, Problem(path, f"not readable JSON ({exc})")


def check_schemas(contracts: Path) -> tuple[list[Problem], int]:
    """Every schema file against the draft 2020-12 meta-schema."""
    problems: list[Problem] = []
    files = sorted(contracts.glob("*.schema.json"))
    for path in files:
        schema, problem = _load(path)
        if problem is not None:
            problems.append(problem)
            continue
        if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            problems.append(Problem(path, "$schema is not draft 2020-12"))
        try:
            Draft202012Validator.check_schema(
                schema, format_checker=Draft202012Validator.FORMAT_CHECKER
            )
        except SchemaError as exc:
            problems.append(Problem(path, f"not a valid draft 2020-12 schema: {exc.message}"))
    if not files:
        problems.append(Problem(contracts, "no *.schema.json"))
    return problems, len(files)


def example_files(contracts: Path) -> list[tuple[Path, int | None]]:
    """Each example with the MAJOR it must pass (None: the current MAJOR of its kind)."""
    folder = contracts / "examples"
    out: list[tuple[Path, int | None]] = [(p, None) for p in sorted(folder.glob("*.json"))]
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []:
        match = _VERSIONED_DIR.match(sub.name)
        if match is None:
            continue
        out += [(p, int(match.group(1))) for p in sorted(sub.glob("*.json"))]
    return out


def check_examples(registry: Registry) -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    files = example_files(registry.contracts_dir)
    for path, wanted in files:
        kind = kind_of_file(path.name)
        if kind is None:
            problems.append(
                Problem(path, "name starts with none of request-, result-message-, result-")
            )
            continue
        body, problem = _load(path)
        if problem is not None:
            problems.append(problem)
            continue
        major = registry.current_major(kind) if wanted is None else wanted
        if major not in registry.known_majors(kind):
            problems.append(Problem(path, f"no schema for {kind.value} MAJOR {major}"))
            continue
        version = _parse_version(body.get("schema_version") if isinstance(body, dict) else None)
        if version is None or version[0] != major:
            problems.append(Problem(path, f"schema_version is not {major}.x"))
        for error in registry.validate_as(kind, major, body):
            problems.append(Problem(path, f"fails {kind.value} v{major}: {error}"))
    if not files:
        problems.append(Problem(registry.contracts_dir / "examples", "no examples"))
    return problems, len(files)


def check_negatives(registry: Registry) -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    files = sorted((registry.contracts_dir / "negative").glob("*.json"))
    for path in files:
        target = negative_target(path.name)
        if target is None:
            problems.append(Problem(path, "name is not <kind>-v<MAJOR>-<what>.json"))
            continue
        kind, major = target
        body, problem = _load(path)
        if problem is not None:
            problems.append(problem)
            continue
        known = registry.known_majors(kind)
        majors = [major] if major in known else list(known)
        for checked in majors:
            if not registry.validate_as(kind, checked, body):
                problems.append(Problem(path, f"passes {kind.value} v{checked} but must fail"))
        if major not in known and registry.is_valid(kind, body):
            problems.append(Problem(path, f"accepted by the registry as {kind.value}"))
    return problems, len(files)


def run(contracts: Path = CONTRACTS) -> Report:
    """Everything the script checks, as data (the tests call this)."""
    problems, schemas = check_schemas(contracts)
    try:
        registry = Registry(contracts)
    except ContractSetupError as exc:
        return Report([*problems, Problem(exc.path or contracts, str(exc))], schemas, 0, 0)
    example_problems, examples = check_examples(registry)
    negative_problems, negatives = check_negatives(registry)
    return Report([*problems, *example_problems, *negative_problems], schemas, examples, negatives)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Validate contract schemas, examples, negatives.")
    parser.add_argument("--contracts", type=Path, default=CONTRACTS, help="the contracts folder")
    args = parser.parse_args(argv)
    report = run(args.contracts)
    for problem in report.problems:
        print(f"FAIL {problem}", file=sys.stderr)
    summary = (
        f"contracts: {report.schemas} schemas, {report.examples} examples, "
        f"{report.negatives} negative cases"
    )
    if not report.ok:
        print(f"{summary}: {len(report.problems)} problems", file=sys.stderr)
        return 1
    print(f"{summary}: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
