"""What `arm-ka parse` costs before and after the recognition: the modules it loads, the
identity it stamps without loading the services' apps (issue 17.8: `parse --json` within
1.3× of the recognition)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from services.cli._local import Service, _identity
from services.runtime.version import package_version
from tests.builders import write_xlsx
from tests.cli._run import ROOT
from tests.tabular_parser.statements._forms import onec_workbook

_PROBE = """
import sys
from services.cli import main
code = main(sys.argv[1:])
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})), file=sys.stderr)
sys.exit(code)
"""
_SERVER_CLIENTS = frozenset({"faststream", "nats", "botocore", "aiobotocore", "boto3", "httpx"})


def test_a_local_parse_loads_no_messaging_storage_or_http_client(tmp_path: Path) -> None:
    """`arm-ka parse --json` recognises and prints a workbook without importing FastStream,
    NATS, the S3 clients or httpx: they are the servers' and the core commands' cost."""
    path = tmp_path / "onec.xlsx"
    path.write_bytes(write_xlsx(onec_workbook()))
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "parse", "--json", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["group_schema"] == "rsbu"
    loaded = set(done.stderr.strip().splitlines()[-1].split())
    assert "services" in loaded  # the probe's line, not some other stderr text
    assert loaded & _SERVER_CLIENTS == set()


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
