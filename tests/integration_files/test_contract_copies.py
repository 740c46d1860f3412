"""Spec 001 «Копия контракта в сервисе идентична источнику»: every scenario on folders built here.

A docs folder and a service copy are written into tmp_path; the schemas and examples are small
stand-ins whose bytes say which version they are, so a wrong pairing shows as a mismatch.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from services.contract.copies import (
    DOCS_ENV,
    SERVICE_COPIES,
    check_copies,
    check_copy,
    pair_of,
    resolve_source,
    source_available,
)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_contract_copies.py"

REQUEST = "recognition-request"
RESULT = "recognition-result"
MESSAGE = "recognition-result-message"

REQUEST_EXAMPLES = ("request-image.json", "request-tabular.json")
RESULT_EXAMPLES = ("result-osv.json", "result-statement-excel.json")
MESSAGE_EXAMPLES = ("result-message-done.json", "result-message-error.json")


def _schema(stem: str, version: str) -> bytes:
    major = version.split(".")[0]
    body = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://arm-ka.example/contracts/{stem}/v{major}",
        "title": f"{stem} {version}",
    }
    return (json.dumps(body, indent=2) + "\n").encode()


def _example(name: str, version: str) -> bytes:
    return (json.dumps({"schema_version": version, "example": name}, indent=2) + "\n").encode()


def _write(folder: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return folder


def _docs_step0() -> dict[str, bytes]:
    """docs before the v2.0 merge: everything on 1.x, no .v1 files, no examples/v1/."""
    files = {
        f"{REQUEST}.schema.json": _schema(REQUEST, "1.0"),
        f"{RESULT}.schema.json": _schema(RESULT, "1.2"),
        f"{MESSAGE}.schema.json": _schema(MESSAGE, "1.0"),
    }
    files |= {f"examples/{n}": _example(n, "1.0") for n in REQUEST_EXAMPLES}
    files |= {f"examples/{n}": _example(n, "1.2") for n in RESULT_EXAMPLES}
    files |= {f"examples/{n}": _example(n, "1.0") for n in MESSAGE_EXAMPLES}
    return files


def _docs_merged() -> dict[str, bytes]:
    """docs after the v2.0 merge: main files 2.0 (request still 1.0), 1.x kept as .v1 / v1/."""
    files = {
        f"{REQUEST}.schema.json": _schema(REQUEST, "1.0"),
        f"{RESULT}.schema.json": _schema(RESULT, "2.0"),
        f"{MESSAGE}.schema.json": _schema(MESSAGE, "2.0"),
        f"{RESULT}.v1.schema.json": _schema(RESULT, "1.2"),
        f"{MESSAGE}.v1.schema.json": _schema(MESSAGE, "1.0"),
    }
    files |= {f"examples/{n}": _example(n, "1.0") for n in REQUEST_EXAMPLES}
    files |= {f"examples/{n}": _example(n, "2.0") for n in (*RESULT_EXAMPLES, *MESSAGE_EXAMPLES)}
    files |= {f"examples/v1/{n}": _example(n, "1.2") for n in RESULT_EXAMPLES}
    files |= {f"examples/v1/{n}": _example(n, "1.0") for n in MESSAGE_EXAMPLES}
    return files


def _copy_of(docs: dict[str, bytes], pairs: dict[str, str]) -> dict[str, bytes]:
    """A copy whose file `copy name` holds the bytes of docs file `docs name`."""
    return {copy_name: docs[docs_name] for copy_name, docs_name in pairs.items()}


def _same(names: Iterable[str]) -> dict[str, str]:
    return {name: name for name in names}


def _v2_service_pairs() -> dict[str, str]:
    """What a service on 2.0 holds: the main schemas and the top-level examples."""
    return _same(
        [
            f"{REQUEST}.schema.json",
            f"{RESULT}.schema.json",
            f"{MESSAGE}.schema.json",
            *(f"examples/{n}" for n in (*REQUEST_EXAMPLES, *RESULT_EXAMPLES, *MESSAGE_EXAMPLES)),
        ]
    )


def _v1_service_pairs() -> dict[str, str]:
    """What a service still on 1.x holds after the merge: 1.x bytes under the main names."""
    pairs = {
        f"{REQUEST}.schema.json": f"{REQUEST}.schema.json",
        f"{RESULT}.schema.json": f"{RESULT}.v1.schema.json",
        f"{MESSAGE}.schema.json": f"{MESSAGE}.v1.schema.json",
    }
    pairs |= {f"examples/{n}": f"examples/{n}" for n in REQUEST_EXAMPLES}
    pairs |= {f"examples/{n}": f"examples/v1/{n}" for n in (*RESULT_EXAMPLES, *MESSAGE_EXAMPLES)}
    return pairs


def _names(report_files: Iterable[Path]) -> set[str]:
    return {path.as_posix() for path in report_files}


@pytest.fixture
def merged(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    docs = _docs_merged()
    return _write(tmp_path / "docs" / "contracts", docs), docs


def test_stale_copy_fails_naming_the_file(merged: tuple[Path, dict[str, bytes]]) -> None:
    """«Копия устарела»: docs changed a schema, the copy did not → a mismatch naming that file."""
    source, docs = merged
    copy = _write(source.parent.parent / "copy", _copy_of(docs, _v2_service_pairs()))
    assert check_copy(copy, source).ok

    (source / f"{RESULT}.schema.json").write_bytes(_schema(RESULT, "2.1"))
    report = check_copy(copy, source, service="tabular-parser")

    assert [(m.service, m.file.name) for m in report.mismatches] == [
        ("tabular-parser", f"{RESULT}.schema.json")
    ]
    assert f"{RESULT}.schema.json" in str(report.mismatches[0])


def test_service_still_on_1x_after_merge_pairs_with_v1_files(
    merged: tuple[Path, dict[str, bytes]],
) -> None:
    """«Сервис ещё пишет 1.x после слияния v2.0 в docs»: a …/v1 copy of recognition-result is
    compared with recognition-result.v1.schema.json and passes."""
    source, docs = merged
    copy = _write(source.parent.parent / "copy", _copy_of(docs, _v1_service_pairs()))

    assert pair_of(f"{RESULT}.schema.json", copy, source) == Path(f"{RESULT}.v1.schema.json")
    assert pair_of(f"{MESSAGE}.schema.json", copy, source) == Path(f"{MESSAGE}.v1.schema.json")
    report = check_copy(copy, source)
    assert report.mismatches == []
    assert report.compared == len(_v1_service_pairs())


def test_service_moved_to_2_0_pairs_with_main_files_and_ignores_v1(
    merged: tuple[Path, dict[str, bytes]],
) -> None:
    """«Сервис перешёл на 2.0»: schemas pair with the main files (no .v2 exists), result-*
    examples with examples/*.json; docs examples/v1/ and *.v1.schema.json are not compared."""
    source, docs = merged
    copy = _write(source.parent.parent / "copy", _copy_of(docs, _v2_service_pairs()))

    assert pair_of(f"{RESULT}.schema.json", copy, source) == Path(f"{RESULT}.schema.json")
    for name in (*RESULT_EXAMPLES, *MESSAGE_EXAMPLES):
        assert pair_of(f"examples/{name}", copy, source) == Path("examples", name)

    # Whatever the docs' 1.x files hold, a 2.0 service is not held to them.
    (source / f"{RESULT}.v1.schema.json").write_bytes(b"{}\n")
    (source / "examples" / "v1" / "result-osv.json").write_bytes(b"{}\n")
    _write(source, {"examples/v1/result-only-in-v1.json": _example("x", "1.2")})
    assert check_copy(copy, source).mismatches == []


def test_request_v1_after_merge_pairs_with_main_file(
    merged: tuple[Path, dict[str, bytes]],
) -> None:
    """«Запрос v1.0 после слияния v2.0»: there is no recognition-request.v1.schema.json, so the
    …/v1 request copy pairs with the main file and request examples with examples/request-*."""
    source, docs = merged
    assert not (source / f"{REQUEST}.v1.schema.json").exists()
    copy = _write(source.parent.parent / "copy", _copy_of(docs, _v2_service_pairs()))

    assert pair_of(f"{REQUEST}.schema.json", copy, source) == Path(f"{REQUEST}.schema.json")
    for name in REQUEST_EXAMPLES:
        assert pair_of(f"examples/{name}", copy, source) == Path("examples", name)
    assert check_copy(copy, source).ok


def test_previous_major_example_pairs_with_examples_v1(
    merged: tuple[Path, dict[str, bytes]],
) -> None:
    """«Примеры прежнего MAJOR»: a 1.2 result-statement-excel.json in a 1.x copy pairs with
    docs examples/v1/result-statement-excel.json and passes; 2.0 bytes there would not."""
    source, docs = merged
    copy = _write(source.parent.parent / "copy", _copy_of(docs, _v1_service_pairs()))
    name = "examples/result-statement-excel.json"

    assert pair_of(name, copy, source) == Path("examples/v1/result-statement-excel.json")
    assert check_copy(copy, source).ok

    (copy / name).write_bytes(docs[name])  # the docs' top-level (2.0) bytes
    report = check_copy(copy, source)
    assert _names(m.file for m in report.mismatches) == {(copy / name).as_posix()}


def test_step0_before_docs_merge_everything_pairs_with_main_files(tmp_path: Path) -> None:
    """«Шаг 0 до слияния docs»: docs on 1.2 without .v1 files; every copy (core and services)
    pairs with the main files and top-level examples and passes."""
    docs = _docs_step0()
    source = _write(tmp_path / "docs" / "contracts", docs)
    copy = _write(tmp_path / "copy", _copy_of(docs, _same(docs)))

    for rel in docs:
        assert pair_of(rel, copy, source) == Path(rel)
    report = check_copy(copy, source)
    assert report.mismatches == []
    assert report.compared == len(docs)


def test_core_on_the_window_holds_both_majors(merged: tuple[Path, dict[str, bytes]]) -> None:
    """«Ядро на окне перехода»: main 2.0 schemas pair with the main docs files, .v1 and
    examples/v1/ with the same-named docs files; the set matches."""
    source, docs = merged
    copy = _write(source.parent.parent / "core", _copy_of(docs, _same(docs)))

    assert pair_of(f"{RESULT}.v1.schema.json", copy, source) == Path(f"{RESULT}.v1.schema.json")
    assert pair_of("examples/v1/result-osv.json", copy, source) == Path(
        "examples/v1/result-osv.json"
    )
    report = check_copy(copy, source)
    assert report.mismatches == []
    assert report.compared == len(docs)


@pytest.mark.parametrize(
    "missing", [f"{MESSAGE}.v1.schema.json", "examples/v1/result-osv.json"], ids=str
)
def test_core_on_the_window_missing_a_v1_file_fails(
    merged: tuple[Path, dict[str, bytes]], missing: str
) -> None:
    """A core copy that holds MAJOR 1 as versioned files must hold all of them: a missing one
    is a mismatch naming it."""
    source, docs = merged
    copy = _write(source.parent.parent / "core", _copy_of(docs, _same(docs)))
    (copy / missing).unlink()

    report = check_copy(copy, source, service="arm-core")
    assert _names(m.file for m in report.mismatches) == {(copy / missing).as_posix()}
    assert "missing" in report.mismatches[0].message


def test_copy_without_versioned_files_is_not_held_to_them(
    merged: tuple[Path, dict[str, bytes]],
) -> None:
    """After the core drops its .v1 copies (step 6, before docs drops them) the check passes:
    docs *.v1 files are required only while the copy holds MAJOR 1 as versioned files."""
    source, docs = merged
    core = {rel: data for rel, data in docs.items() if ".v1." not in rel and "/v1/" not in rel}
    copy = _write(source.parent.parent / "core", core)
    assert check_copy(copy, source).ok


def test_set_rule_missing_top_level_example_fails(merged: tuple[Path, dict[str, bytes]]) -> None:
    """The set rule: a top-level docs example with no copy file is a mismatch naming it."""
    source, docs = merged
    copy = _write(source.parent.parent / "copy", _copy_of(docs, _v2_service_pairs()))
    _write(source, {"examples/result-message-timeout.json": _example("t", "2.0")})

    report = check_copy(copy, source)
    assert _names(m.file for m in report.mismatches) == {
        (copy / "examples/result-message-timeout.json").as_posix()
    }


def test_set_rule_missing_top_level_schema_fails(merged: tuple[Path, dict[str, bytes]]) -> None:
    """The set rule: a top-level docs schema with no copy file is a mismatch naming it."""
    source, docs = merged
    pairs = _v2_service_pairs()
    del pairs[f"{MESSAGE}.schema.json"]
    pairs = {k: v for k, v in pairs.items() if not k.startswith("examples/result-message-")}
    copy = _write(source.parent.parent / "copy", _copy_of(docs, pairs))

    report = check_copy(copy, source)
    missing = {m.file.name for m in report.mismatches}
    assert f"{MESSAGE}.schema.json" in missing


def test_copy_file_absent_from_docs_fails(merged: tuple[Path, dict[str, bytes]]) -> None:
    """A versioned copy file the docs do not have (rule 3) is a mismatch naming it."""
    source, docs = merged
    files = _copy_of(docs, _same(docs))
    files["examples/v1/result-gone.json"] = _example("gone", "1.2")
    copy = _write(source.parent.parent / "core", files)

    report = check_copy(copy, source)
    assert _names(m.file for m in report.mismatches) == {
        (copy / "examples/v1/result-gone.json").as_posix()
    }
    assert "no examples/v1/result-gone.json in the source" in report.mismatches[0].message


def test_schema_without_major_in_id_cannot_be_paired(
    merged: tuple[Path, dict[str, bytes]],
) -> None:
    """A copy schema whose $id names no MAJOR is reported, naming the file, not skipped."""
    source, docs = merged
    copy = _write(source.parent.parent / "copy", _copy_of(docs, _v2_service_pairs()))
    (copy / f"{RESULT}.schema.json").write_text('{"$id": "urn:no-major"}\n')

    report = check_copy(copy, source)
    named = {m.file.name: m.message for m in report.mismatches}
    assert "$id" in named[f"{RESULT}.schema.json"]
    # Its examples cannot be paired either: the copy's MAJOR of that kind is unknown.
    assert "cannot pair" in named["result-osv.json"]


def test_missing_copy_folder_fails(merged: tuple[Path, dict[str, bytes]]) -> None:
    """A service without an api/contracts folder fails rather than passing vacuously."""
    source, _ = merged
    report = check_copy(source.parent / "nowhere", source, service="scan-gateway")
    assert [m.service for m in report.mismatches] == ["scan-gateway"]


def test_resolve_source_order(tmp_path: Path) -> None:
    """--docs wins over ARM_KA_DOCS, which wins over the repository's contracts/; a docs
    repository is entered at its contracts/ folder, a contracts folder is used as it is."""
    docs_repo = _write(tmp_path / "docs", {"contracts/x.schema.json": b"{}"})
    other = _write(tmp_path / "other", {"y.schema.json": b"{}"})

    assert resolve_source(None, {}, repo_root=tmp_path) == tmp_path / "contracts"
    assert resolve_source(None, {DOCS_ENV: str(docs_repo)}) == docs_repo / "contracts"
    assert resolve_source(str(other), {DOCS_ENV: str(docs_repo)}) == other
    assert source_available(docs_repo / "contracts")
    assert not source_available(tmp_path / "absent")


def _run_script(*args: str, env_docs: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin"}
    if env_docs is not None:
        env[DOCS_ENV] = env_docs
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )


def test_script_reads_arm_ka_docs(tmp_path: Path) -> None:
    """The script takes the source from ARM_KA_DOCS (a docs repository with contracts/): the
    real copies pass against an identical docs, and fail naming the file when docs changed."""
    docs_repo = tmp_path / "docs"
    shutil.copytree(ROOT / "contracts", docs_repo / "contracts")
    passed = _run_script(env_docs=str(docs_repo))
    assert passed.returncode == 0, passed.stdout + passed.stderr

    changed = docs_repo / "contracts" / "examples" / "request-image.json"
    changed.write_bytes(changed.read_bytes() + b"\n")
    failed = _run_script(env_docs=str(docs_repo))
    assert failed.returncode == 1
    lines = [line for line in failed.stdout.splitlines() if "request-image.json" in line]
    # every service holds the request examples
    assert {line.split(":")[0] for line in lines} == set(SERVICE_COPIES)


@pytest.mark.parametrize("how", ["argument", "environment"])
def test_script_skips_with_warning_when_docs_absent(tmp_path: Path, how: str) -> None:
    """No source folder (../docs absent, ARM_KA_DOCS pointing nowhere) → a warning, exit 0."""
    absent = str(tmp_path / "no-docs")
    args = ("--docs", absent) if how == "argument" else ()
    result = _run_script(*args, env_docs=absent if how == "environment" else None)
    assert result.returncode == 0
    assert "warning" in result.stderr
    assert "not checked" in result.stderr


def test_repository_copies_match_the_source() -> None:
    """The copies committed in services/*/api/contracts/ pass against contracts/ right now."""
    source = resolve_source(None, {})
    assert source == ROOT / "contracts"
    report = check_copies(source)
    assert report.mismatches == []
    assert report.compared == sum(
        1 for folder in SERVICE_COPIES.values() for p in (ROOT / folder).rglob("*") if p.is_file()
    )


@pytest.mark.parametrize("service", ["tabular-parser", "scan-gateway"])
def test_recognition_services_hold_only_what_they_speak(service: str) -> None:
    """tabular-parser and scan-gateway hold the main schemas and top-level examples only: no
    .v1 files and no examples/v1/ (only the core keeps the previous MAJOR on the window)."""
    folder = ROOT / SERVICE_COPIES[service]
    names = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert not any(".v1." in n or n.startswith("examples/v1/") for n in names)
    assert {f"{REQUEST}.schema.json", f"{RESULT}.schema.json", f"{MESSAGE}.schema.json"} <= names
