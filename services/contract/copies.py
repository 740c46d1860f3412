"""Each service's copy of the contract is byte-identical to the source (spec 001).

Every service that reads or writes the contract keeps a byte copy of the files it speaks in
``services/<service>/api/contracts/``; ``scripts/check_contract_copies.py`` (in ``make check``)
compares them with the source ``docs/contracts/``. In this monorepo the source is the repository's
own ``contracts/``; in the multi-repo layout it is ``../docs/contracts`` or ``$ARM_KA_DOCS``.

A copy file is paired with a source file by one rule, the same for the core and the services
and true before, during and after a transition window between MAJORs:

1. a schema ``<name>.schema.json``: M is the number its ``$id`` ends with (``…/v<M>``); the pair
   is ``<name>.v<M>.schema.json`` when the source has it, else ``<name>.schema.json``;
2. an example ``examples/<name>.json``: its kind by the name prefix (``request-``,
   ``result-message-``, ``result-``), M the MAJOR of the copy's schema of that kind; the pair is
   ``examples/v<M>/<name>.json`` when the source has it, else ``examples/<name>.json``;
3. any other file (``<name>.v<N>.schema.json``, ``examples/v<N>/*.json``: the core keeps them on
   the window) pairs with the same-named source file; none in the source is a mismatch;
4. the set: every top-level source schema (``*.schema.json`` without ``.v<N>``) and every
   top-level source example must have a copy file. The versioned source files of MAJOR N
   (``*.v<N>.schema.json``, ``examples/v<N>/``) are required only when the copy holds MAJOR N in
   that form (it has any ``*.v<N>.schema.json`` or ``examples/v<N>/`` file: the core on the
   window). Files of another MAJOR are not checked for a service: a copy whose schema of a kind
   is on MAJOR M while the source's main schema of that kind moved on is held to the source's
   ``examples/v<M>/`` examples of that kind instead of the top-level ones.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .exceptions import ContractSetupError
from .registry import Kind, kind_of_file

__all__ = [
    "DOCS_ENV",
    "SERVICE_COPIES",
    "CopyMismatch",
    "CopyReport",
    "check_copies",
    "check_copy",
    "pair_of",
    "resolve_source",
    "source_available",
]

DOCS_ENV = "ARM_KA_DOCS"

_REPO_ROOT = Path(__file__).resolve().parents[2]

SERVICE_COPIES: Mapping[str, Path] = {
    "arm-core": Path("services/arm_core/api/contracts"),
    "tabular-parser": Path("services/tabular_parser/api/contracts"),
    "scan-gateway": Path("services/scan_gateway/api/contracts"),
}
"""Each service and the folder of its copy, relative to the repository root."""

_ID_MAJOR = re.compile(r"/v([0-9]+)$")
_VERSIONED_SCHEMA = re.compile(r"^(?P<name>[^/]+)\.v(?P<major>[0-9]+)\.schema\.json$")
_VERSIONED_DIR = re.compile(r"^v([0-9]+)$")
_EXAMPLES = "examples"
_SCHEMA_SUFFIX = ".schema.json"


@dataclass(frozen=True, slots=True)
class CopyMismatch:
    """One copy file (or one missing copy file) that breaks the rule; ``file`` names it."""

    service: str
    file: Path
    message: str

    def __str__(self) -> str:
        return f"{self.service}: {self.file}: {self.message}"


@dataclass(slots=True)
class CopyReport:
    """What a check found: the mismatches, and how many copy files were compared."""

    mismatches: list[CopyMismatch] = field(default_factory=list)
    compared: int = 0

    @property
    def ok(self) -> bool:
        return not self.mismatches


def resolve_source(
    docs: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    repo_root: Path = _REPO_ROOT,
) -> Path:
    """The source contracts folder: ``docs`` (an argument), else ``$ARM_KA_DOCS``, else the
    repository's own ``contracts/``.

    ``docs`` and the variable may name the docs repository (its ``contracts/`` is used) or the
    contracts folder itself. The path is returned even when absent: the caller skips then.
    """
    environ = os.environ if env is None else env
    chosen = docs if docs is not None else environ.get(DOCS_ENV) or None
    if chosen is None:
        return repo_root / "contracts"
    path = Path(chosen)
    nested = path / "contracts"
    return nested if nested.is_dir() else path


def source_available(source: Path) -> bool:
    """Whether ``source`` holds a contract (at least one schema); otherwise the check is skipped."""
    return source.is_dir() and any(source.glob("*.schema.json"))


def check_copies(
    source: Path,
    *,
    repo_root: Path = _REPO_ROOT,
    services: Mapping[str, Path] = SERVICE_COPIES,
) -> CopyReport:
    """Check the copy of every service in ``services`` (folders relative to ``repo_root``)."""
    report = CopyReport()
    for service, folder in services.items():
        copy_dir = folder if folder.is_absolute() else repo_root / folder
        one = check_copy(copy_dir, source, service=service, display_root=repo_root)
        report.mismatches.extend(one.mismatches)
        report.compared += one.compared
    return report


def check_copy(
    copy_dir: Path, source: Path, *, service: str = "", display_root: Path | None = None
) -> CopyReport:
    """Compare one copy folder with the source by the pairing rule and the set rule."""
    report = CopyReport()
    name = service or copy_dir.name

    def shown(path: Path) -> Path:
        if display_root is not None and path.is_relative_to(display_root):
            return path.relative_to(display_root)
        return path

    def fail(path: Path, message: str) -> None:
        report.mismatches.append(CopyMismatch(name, shown(path), message))

    if not copy_dir.is_dir():
        fail(copy_dir, "the service has no contract copy folder")
        return report

    copy_files = sorted(_relative_files(copy_dir))
    copy_majors = _majors_of(copy_dir)
    for rel in copy_files:
        try:
            pair = _pair(rel, copy_dir, source, copy_majors)
        except ContractSetupError as exc:
            fail(copy_dir / rel, str(exc))
            continue
        report.compared += 1
        if not (source / pair).is_file():
            fail(copy_dir / rel, f"no {pair.as_posix()} in the source {shown(source)}")
        elif (copy_dir / rel).read_bytes() != (source / pair).read_bytes():
            fail(copy_dir / rel, f"differs from {shown(source / pair)}")

    present = set(copy_files)
    for required in sorted(_required(source, copy_files, copy_majors)):
        if required not in present:
            fail(copy_dir / required, f"missing: the source has {shown(source / required)}")
    return report


def pair_of(rel: Path | str, copy_dir: Path, source: Path) -> Path:
    """The source file (relative to ``source``) that the copy file ``rel`` is compared with.

    Raises ``ContractSetupError`` when the rule cannot pair it (its ``$id`` names no MAJOR, or
    the copy has no schema of the example's kind).
    """
    return _pair(Path(rel), copy_dir, source, _majors_of(copy_dir))


def _pair(rel: Path, copy_dir: Path, source: Path, copy_majors: Mapping[Kind, int | None]) -> Path:
    parts = rel.parts
    if len(parts) == 1 and _is_main_schema(parts[0]):
        major = _id_major(copy_dir / rel)
        if major is None:
            msg = "cannot pair: its $id does not end with /v<MAJOR>"
            raise ContractSetupError(msg)
        versioned = Path(parts[0].removesuffix(_SCHEMA_SUFFIX) + f".v{major}{_SCHEMA_SUFFIX}")
        return versioned if (source / versioned).is_file() else rel
    if len(parts) == 2 and parts[0] == _EXAMPLES:
        kind = kind_of_file(parts[1])
        if kind is None:
            return rel
        major = copy_majors.get(kind)
        if major is None:
            msg = f"cannot pair: the copy has no {kind.schema_stem}{_SCHEMA_SUFFIX} with a /v<MAJOR> $id"
            raise ContractSetupError(msg)
        versioned = Path(_EXAMPLES, f"v{major}", parts[1])
        return versioned if (source / versioned).is_file() else rel
    return rel


def _is_main_schema(name: str) -> bool:
    """``<name>.schema.json`` that is not ``<name>.v<N>.schema.json``."""
    return name.endswith(_SCHEMA_SUFFIX) and _VERSIONED_SCHEMA.match(name) is None


def _required(
    source: Path, copy_files: Iterable[Path], copy_majors: Mapping[Kind, int | None]
) -> set[Path]:
    """The source files that must have a copy file of the same name (rule 4)."""
    required: set[Path] = set()
    for path in source.glob("*" + _SCHEMA_SUFFIX):
        if _is_main_schema(path.name):
            required.add(Path(path.name))

    source_majors = _majors_of(source)
    examples = source / _EXAMPLES
    for path in examples.glob("*.json"):
        kind = kind_of_file(path.name)
        copy_major = copy_majors.get(kind) if kind is not None else None
        if (
            kind is not None
            and copy_major is not None
            and copy_major != source_majors.get(kind)
            and (examples / f"v{copy_major}").is_dir()
        ):
            continue  # the source's current MAJOR of this kind: not this copy's (see below)
        required.add(Path(_EXAMPLES, path.name))
    for kind, copy_major in copy_majors.items():
        if copy_major is None or copy_major == source_majors.get(kind):
            continue
        for path in (examples / f"v{copy_major}").glob("*.json"):
            if kind_of_file(path.name) is kind:
                required.add(Path(_EXAMPLES, path.name))

    for major in _window_majors(copy_files):
        for path in source.glob(f"*.v{major}.schema.json"):
            required.add(Path(path.name))
        for path in (examples / f"v{major}").glob("*.json"):
            required.add(Path(_EXAMPLES, f"v{major}", path.name))
    return required


def _window_majors(copy_files: Iterable[Path]) -> set[int]:
    """The MAJORs a copy holds as versioned files (the core on a transition window)."""
    majors: set[int] = set()
    for rel in copy_files:
        parts = rel.parts
        if len(parts) == 1 and (match := _VERSIONED_SCHEMA.match(parts[0])) is not None:
            majors.add(int(match["major"]))
        elif (
            len(parts) == 3
            and parts[0] == _EXAMPLES
            and (match := _VERSIONED_DIR.match(parts[1])) is not None
        ):
            majors.add(int(match[1]))
    return majors


def _majors_of(folder: Path) -> dict[Kind, int | None]:
    """The MAJOR of each kind's main schema (``recognition-<kind>.schema.json``) in ``folder``."""
    majors: dict[Kind, int | None] = {}
    for kind in Kind:
        path = folder / f"{kind.schema_stem}.schema.json"
        if path.is_file():
            majors[kind] = _id_major(path)
    return majors


def _id_major(path: Path) -> int | None:
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    schema_id = document.get("$id") if isinstance(document, dict) else None
    if not isinstance(schema_id, str):
        return None
    match = _ID_MAJOR.search(schema_id)
    return int(match[1]) if match else None


def _relative_files(folder: Path) -> Iterable[Path]:
    for path in folder.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            yield path.relative_to(folder)
