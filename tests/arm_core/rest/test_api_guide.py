"""docs/api.md stays true: its curl walkthrough runs against a real local stack, and its table
of problem types is the catalogue the code answers with."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.arm_core.rest.problem_types import PROBLEM_TYPES
from services.devstack import LocalStack
from services.devstack._samples import samples

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs" / "api.md"
SAMPLE = "osv-january-2025.xlsx"


def _snippets() -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", GUIDE.read_text(encoding="utf-8"), re.S | re.M)


def test_the_guide_lists_every_problem_type_with_its_status_and_meaning() -> None:
    """Each catalogued type is a row `| uri | status | meaning |`, and no other type is listed."""
    text = GUIDE.read_text(encoding="utf-8")
    for problem in PROBLEM_TYPES:
        row = f"| `{problem.uri}` | {problem.status} | {problem.meaning} |"
        assert row in text, row
    listed = set(re.findall(r"^\| `(urn:arm-ka:problem:[a-z-]+)`", text, re.M))
    assert listed == {p.uri for p in PROBLEM_TYPES}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    with LocalStack(data_dir=tmp_path_factory.mktemp("guide-stack")) as running:
        yield running


@pytest.mark.e2e
@pytest.mark.slow
def test_the_curl_walkthrough_runs_as_written(stack: LocalStack, tmp_path: Path) -> None:
    """Every ```sh block of docs/api.md, in order in one bash (errexit, pipefail), against the
    stack: upload → poll → documents → rows → re-run → content → a problem → delete; each
    step's answer is what the guide says it is."""
    if shutil.which("curl") is None or shutil.which("jq") is None:
        pytest.skip("the walkthrough needs curl and jq")
    sample = next(s for s in samples() if s.name == SAMPLE)
    (tmp_path / SAMPLE).write_bytes(sample.data)
    script = "set -euo pipefail\n" + "\n".join(_snippets())
    run = subprocess.run(
        ["bash", "-c", script],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "CORE": stack.core_url, "FILE": SAMPLE},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = run.stdout
    assert run.returncode == 0, out[-3000:] + run.stderr[-3000:]
    upload = json.loads(out.split("\n", 1)[1].split("}\n", 1)[0] + "}")
    assert (upload["status"], upload["pipeline"], upload["file_type"]) == (
        "queued",
        "tabular",
        "XLSX",
    )
    assert re.search(rf"^location: /api/v1/files/{upload['file_id']}\s*$", out, re.M | re.I)
    assert f"job {upload['job_id']}: done" in out
    assert re.search(r"^OSV done /api/v1/documents/[0-9a-f-]{36}$", out, re.M)
    assert re.search(r"^location: /api/v1/jobs/[0-9a-f-]{36}\s*$", out, re.M | re.I)
    assert '"attempts": [\n    2,\n    1\n  ]' in out
    assert "same bytes" in out
    assert "as sent" in out
    assert '"type": "urn:arm-ka:problem:invalid-request"' in out
    assert re.search(r'"jobs": 2,\n  "documents": 2,\n  "objects": 3\n}\n404$', out, re.M)
