"""`arm-ka recognize` and `arm-ka job` against a real core: the local stack (nats-server, S3,
arm-core, tabular-parser, scan-gateway as processes), and against no core at all."""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.devstack import LocalStack
from services.devstack.embedded import free_port
from tests.builders import write_xlsx
from tests.cli._run import ARM_KA, arm_ka
from tests.scan_gateway._forms import BALANCE, INCOME, render_scanned_pdf
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
    """Upload, status transitions on stderr up to done (in Russian, with the seconds waited),
    then the documents from the core's read API on stdout; the core's URL comes from
    ARM_KA_CORE_URL."""
    path = tmp_path / "statements.xlsx"
    path.write_bytes(write_xlsx(onec_workbook()))
    run = arm_ka("recognize", str(path), "--timeout", "60", env={"ARM_KA_CORE_URL": stack.core_url})
    assert run.returncode == 0, run.stderr
    assert "загружен statements.xlsx (XLSX): файл " in run.stderr
    statuses = [
        line.split(" с  ", 1)[1] for line in run.stderr.splitlines() if line.startswith("  ")
    ]
    assert statuses[-1] == "готово"
    assert set(statuses) <= {"в очереди", "отправлен", "распознаётся", "готово"}
    assert run.stdout.startswith("statements.xlsx — готово")
    assert "1. Баланс (полная) — готово, строк: 25" in run.stdout
    assert "2. ОФР (полная) — готово" in run.stdout
    assert "сервис: tabular-parser" in run.stdout


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
    assert f"нет связи с arm-core по адресу {url}" in run.stderr
    assert "Traceback" not in run.stderr


def test_recognize_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    """The file is checked before the core is contacted: exit 64 even with no core."""
    run = arm_ka("recognize", str(tmp_path / "nope.pdf"), "--core", "http://127.0.0.1:9")
    assert run.returncode == 64
    assert "файл не найден" in run.stderr


@pytest.mark.e2e
@pytest.mark.slow
def test_a_failed_job_is_not_exit_0_when_stdout_is_closed(
    stack: LocalStack, tmp_path: Path
) -> None:
    """`arm-ka recognize broken.pdf | head`: the reader is gone before the summary is printed;
    the job ended in error, so the exit code is still 2 (a closed stdout is no success)."""
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\nnot really a pdf\n")
    for extra in ((), ("--json",)):
        process = subprocess.Popen(
            [str(ARM_KA), "recognize", str(path), "--core", stack.core_url, *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdout is not None
        process.stdout.close()  # as `head` does once it has read enough
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == 2, stderr.decode()
        assert b"Traceback" not in stderr


@pytest.mark.e2e
@pytest.mark.slow
def test_an_unknown_job_is_refused(stack: LocalStack) -> None:
    """`arm-ka job <a job id the core does not know>`: the core's 404 is «refused», exit 65."""
    unknown = str(uuid.uuid4())
    run = arm_ka("job", unknown, "--core", stack.core_url)
    assert run.returncode == 65, run.stderr
    assert "404" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    "job_id",
    [
        "not-a-uuid",
        "12345",
        "0f8fad5bd9cb469fa16570867728950e",
        "{0f8fad5b-d9cb-469f-a165-70867728950e}",
    ],
)
def test_a_job_id_that_is_no_uuid_is_refused_before_any_request(job_id: str) -> None:
    """A job id not in the canonical UUID form is a usage error (64) decided locally: the
    core's URL points nowhere, so a request would have been exit 69."""
    run = arm_ka("job", job_id, "--core", f"http://127.0.0.1:{free_port()}")
    assert run.returncode == 64, run.stderr
    assert "not a job id" in run.stderr


@pytest.mark.e2e
@pytest.mark.slow
def test_recognize_shows_the_pages_of_a_scan_while_it_runs(
    stack: LocalStack, tmp_path: Path
) -> None:
    """Two scanned pages: the upload line says «страниц: 2»; each status line while the job
    runs says the pages — done of all once scan-gateway's local recogniser has stored them
    («готово страниц: 1 из 2», never going back, decision 0037), the file's count before —
    and the final status line says none."""
    path = tmp_path / "balance.pdf"
    path.write_bytes(render_scanned_pdf((BALANCE, INCOME), dpi=150))
    run = arm_ka("recognize", str(path), "--timeout", "180", "--core", stack.core_url)
    assert run.returncode in (0, 2), run.stderr
    assert "загружен balance.pdf (PDF, страниц: 2): файл " in run.stderr
    statuses = [
        line.split(" с  ", 1)[1] for line in run.stderr.splitlines() if line.startswith("  ")
    ]
    assert statuses[-1] in ("готово", "нужна проверка"), statuses
    running = statuses[:-1]
    assert all(re.search(r", (страниц: 2|готово страниц: [0-2] из 2)$", s) for s in running)
    done = [int(m.group(1)) for s in running if (m := re.search(r"готово страниц: (\d)", s))]
    assert done and done == sorted(set(done)), statuses
