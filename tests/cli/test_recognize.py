"""`arm-ka recognize` and `arm-ka job` against a real core: the local stack (nats-server, S3,
arm-core, tabular-parser, scan-gateway as processes), and against no core at all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.devstack import LocalStack
from services.devstack.embedded import free_port
from tests.builders import write_xlsx
from tests.cli._run import arm_ka
from tests.tabular_parser.statements._forms import onec_workbook


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    with LocalStack(data_dir=tmp_path_factory.mktemp("stack")) as running:
        yield running


@pytest.mark.e2e
@pytest.mark.slow
def test_recognize_follows_the_job_and_prints_its_documents(
    stack: LocalStack, tmp_path: Path
) -> None:
    """Upload, status transitions on stderr up to done, then the documents from the core's
    read API on stdout; the core's URL comes from ARM_KA_CORE_URL."""
    path = tmp_path / "statements.xlsx"
    path.write_bytes(write_xlsx(onec_workbook()))
    run = arm_ka("recognize", str(path), "--timeout", "60", env={"ARM_KA_CORE_URL": stack.core_url})
    assert run.returncode == 0, run.stderr
    assert "uploaded statements.xlsx as XLSX" in run.stderr
    statuses = [line.split()[-1] for line in run.stderr.splitlines() if line.startswith("  ")]
    assert statuses[-1] == "done"
    assert set(statuses) <= {"queued", "published", "processing", "done"}
    assert run.stdout.startswith("statements.xlsx — done")
    assert "1. BALANCE (full) — done, 25 lines" in run.stdout
    assert "2. INCOME (full) — done" in run.stdout
    assert "service: tabular-parser" in run.stdout


@pytest.mark.e2e
@pytest.mark.slow
def test_job_command_shows_a_finished_job_as_json(stack: LocalStack, tmp_path: Path) -> None:
    """`arm-ka job JOB_ID --json` gives the job and its full documents (lines included)."""
    path = tmp_path / "income.xlsx"
    path.write_bytes(write_xlsx(onec_workbook()[1:2]))
    upload = arm_ka("recognize", str(path), "--core", stack.core_url, "--json", "--timeout", "60")
    assert upload.returncode == 0, upload.stderr
    job_id = json.loads(upload.stdout)["job"]["job_id"]
    run = arm_ka("job", job_id, "--core", stack.core_url, "--json")
    assert run.returncode == 0, run.stderr
    body = json.loads(run.stdout)
    assert body["job"]["status"] == "done"
    (document,) = body["documents"]
    assert document["document_type"] == "INCOME"
    assert len(document["lines"]) > 10


def test_an_unreachable_core_is_a_clear_error(tmp_path: Path) -> None:
    """No core on the port: one line naming the URL, exit 69, no traceback."""
    path = tmp_path / "statements.xlsx"
    path.write_bytes(write_xlsx(onec_workbook()))
    url = f"http://127.0.0.1:{free_port()}"
    run = arm_ka("recognize", str(path), "--core", url)
    assert run.returncode == 69
    assert f"cannot reach arm-core at {url}" in run.stderr
    assert "Traceback" not in run.stderr


def test_recognize_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    """The file is checked before the core is contacted: exit 64 even with no core."""
    run = arm_ka("recognize", str(tmp_path / "nope.pdf"), "--core", "http://127.0.0.1:9")
    assert run.returncode == 64
    assert "file not found" in run.stderr
