"""What `arm-ka parse` costs before and after the recognition: the modules it loads, the
worker it forks for one file instead of starting a fork server, the identity it stamps
without loading the services' apps (issue 17.8: `parse --json` within 1.3× of the
recognition)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.cli._local import Service, _identity
from services.runtime.version import package_version
from tests.builders import write_xlsx
from tests.cli._run import python_c
from tests.tabular_parser.statements._forms import onec_workbook

_PROBE = """
import json, sys
from multiprocessing import forkserver
from services.cli import main
code = main(sys.argv[1:])
seen = {
    "modules": sorted({name.split(".")[0] for name in sys.modules}),
    "jsonschema": "jsonschema" in sys.modules,
    "fork_server": forkserver._forkserver._forkserver_pid is not None,
}
print(json.dumps(seen), file=sys.stderr)
sys.exit(code)
"""
_SERVER_CLIENTS = frozenset({"faststream", "nats", "botocore", "aiobotocore", "boto3", "httpx"})


def _probe(*args: str) -> tuple[str, dict[str, object]]:
    """`arm-ka ARGS` in a process that then says what it loaded and started."""
    done = python_c(_PROBE, *args)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stderr.strip().splitlines()[-1])
    assert isinstance(seen, dict)
    return done.stdout, seen


def test_a_local_parse_loads_no_messaging_storage_or_http_client(tmp_path: Path) -> None:
    """`arm-ka parse --json` recognises and prints a workbook without importing FastStream,
    NATS, the S3 clients or httpx (the servers' and the core commands' cost), arm-core (only
    a TIFF needs its conversion), or jsonschema (no schema is validated)."""
    path = tmp_path / "onec.xlsx"
    path.write_bytes(write_xlsx(onec_workbook()))
    stdout, seen = _probe("parse", "--json", str(path))
    assert json.loads(stdout)["group_schema"] == "rsbu"
    loaded = set(seen["modules"])  # type: ignore[call-overload]
    assert "services" in loaded
    assert loaded & (_SERVER_CLIENTS | {"sqlalchemy", "fastapi"}) == set()
    assert seen["jsonschema"] is False


def test_one_file_is_read_by_a_forked_worker_and_several_by_the_fork_server(
    tmp_path: Path,
) -> None:
    """One file: its worker is forked from the command, which starts no fork server (an
    interpreter importing the recogniser again). Several: the fork server starts their
    workers, as before."""
    first, second = tmp_path / "a.xlsx", tmp_path / "b.xlsx"
    for path in (first, second):
        path.write_bytes(write_xlsx(onec_workbook()))
    _, one = _probe("parse", "--json", str(first))
    _, two = _probe("parse", "--json", str(first), str(second))
    assert one["fork_server"] is False
    assert two["fork_server"] is True


@pytest.mark.parametrize("service", ["tabular-parser", "scan-gateway"])
def test_the_local_identity_is_the_services_own(service: Service) -> None:
    """The name and version a local result carries are those the service's app reports,
    though the CLI takes them without importing the app."""
    if service == "tabular-parser":
        from services.tabular_parser import app
    else:
        from services.scan_gateway import app  # type: ignore[no-redef]
    info = _identity(service)
    assert (info.name, info.version) == (app.SERVICE_NAME, app.service_version())
    assert info.version == package_version()
