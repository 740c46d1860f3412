"""Spec 001, «Набор тестового окружения»: the three services on subjects of their own, with
JWT + seed, on a nats-server in operator mode, and the default subjects carry nothing.

Everything real: a nats-server trusting an operator made in code (`tests/runtime/nats_auth`),
moto S3, the module's database, and arm-core, tabular-parser and scan-gateway as processes
given only the contract's environment names. A listener with the same user's credentials
records every subject (`>`) the system uses while a workbook and a PDF go through it.
"""

from __future__ import annotations

import asyncio
import io
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import nats
import nats.errors
import pypdfium2
import pytest
from nats.aio.msg import Msg
from pydantic import SecretStr

from services.devstack import LocalStack
from services.devstack.embedded import NatsServer
from services.runtime.settings import NatsSettings
from tests.e2e import _files
from tests.e2e._system import Core, service_log, stack_env, start_stack, stop_stack
from tests.runtime.nats_auth import OperatorChain, make_operator_chain, operator_mode_server
from tests.support.nats_wire import round_trip

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DEFAULT_SUBJECTS = frozenset(
    {
        NatsSettings.model_fields[name].default
        for name in (
            "nats_tabular_request_subject",
            "nats_image_request_subject",
            "nats_result_subject",
        )
    }
)
_RUN = uuid.uuid4().hex[:8]
SUBJECTS = {
    "OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT": f"bank.test-{_RUN}.statements.tabular",
    "OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT": f"bank.test-{_RUN}.statements.scans",
    "OPENBAO__NATS__NATS_RESULT_SUBJECT": f"bank.test-{_RUN}.statements.results",
}


@pytest.fixture(scope="module")
def chain() -> OperatorChain:
    return make_operator_chain()


@pytest.fixture(scope="module")
def secured_nats(
    chain: OperatorChain, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NatsServer]:
    """nats-server in operator mode: only users of the chain's account get in."""
    with operator_mode_server(chain, tmp_path_factory.mktemp("op")) as server:
        yield server


def _credentials(chain: OperatorChain, url: str) -> NatsSettings:
    return NatsSettings(
        nats_url=url, nats_jwt=SecretStr(chain.user_jwt), nats_seed=SecretStr(chain.user_seed)
    )


class _Everything:
    """Every message on the server, by subject (a `>` subscription of an admitted user)."""

    def __init__(self) -> None:
        self.subjects: list[str] = []

    async def record(self, msg: Msg) -> None:
        self.subjects.append(msg.subject)


@pytest.fixture(scope="module")
async def wire(chain: OperatorChain, secured_nats: NatsServer) -> AsyncIterator[_Everything]:
    seen = _Everything()
    client = await nats.connect(**_credentials(chain, secured_nats.url).connect_kwargs())
    await client.subscribe(">", cb=seen.record)
    await round_trip(client)
    try:
        yield seen
    finally:
        await client.drain()


@pytest.fixture(scope="module")
async def stack(
    e2e_db: str,
    chain: OperatorChain,
    secured_nats: NatsServer,
    wire: _Everything,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[LocalStack]:
    env = stack_env(
        e2e_db,
        **SUBJECTS,
        OPENBAO__NATS__NATS_JWT=chain.user_jwt,
        OPENBAO__NATS__NATS_SEED=chain.user_seed,
    )
    data_dir: Path = tmp_path_factory.mktemp("e2e-operator")
    local = LocalStack(data_dir=data_dir, extra_env=env, nats=secured_nats)
    await start_stack(local)
    try:
        yield local
    finally:
        await stop_stack(local)


@pytest.fixture(scope="module")
async def core(stack: LocalStack) -> AsyncIterator[Core]:
    client = Core(stack.core_url)
    try:
        yield client
    finally:
        await client.aclose()


async def test_the_server_admits_no_one_without_credentials(secured_nats: NatsServer) -> None:
    """Operator mode is really on: a client without a user JWT is refused."""
    with pytest.raises((nats.errors.Error, OSError)):
        await nats.connect(
            secured_nats.url, allow_reconnect=False, connect_timeout=2, max_reconnect_attempts=0
        )


async def test_custom_subjects_with_jwt_and_seed_carry_everything_and_defaults_nothing(
    stack: LocalStack, core: Core, wire: _Everything
) -> None:
    """With custom subjects and JWT + seed on every service, a workbook (tabular-parser) and a
    text PDF (scan-gateway) both end done through the core; every message on the server went
    over the three custom subjects (requests on their pipeline's, acks and results on the
    result subject) and not one over a default subject. Each service reports the custom
    subjects on /healthcheck and logs neither the JWT nor the seed."""
    workbook = await core.upload("osv.xlsx", _files.osv_xlsx())
    scan = await core.upload("statements.pdf", _files.statements_pdf())
    jobs = await core.wait_all_final([workbook["job_id"], scan["job_id"]], within=180)
    logs = {
        name: service_log(stack, name, size=200_000)
        for name in ("arm-core", "tabular-parser", "scan-gateway")
    }
    for job in jobs.values():
        assert job["status"] in {"done", "needs_check"}, (job, logs)
    assert jobs[workbook["job_id"]]["service_name"] == "tabular-parser"
    assert jobs[scan["job_id"]]["service_name"] == "scan-gateway"

    await asyncio.sleep(0.5)  # the last results reach the listener too
    used = set(wire.subjects)
    tabular, image, result = SUBJECTS.values()
    assert not used & DEFAULT_SUBJECTS, sorted(used)
    assert {tabular, image, result} <= used
    assert wire.subjects.count(tabular) >= 1 and wire.subjects.count(image) >= 1
    # acks and results of both jobs: at least two messages each on the result subject
    assert wire.subjects.count(result) >= 4
    stray = {s for s in used if s not in SUBJECTS.values() and not s.startswith("_INBOX.")}
    assert stray == set()

    for name in ("arm-core", "tabular-parser", "scan-gateway"):
        async with httpx.AsyncClient(timeout=5) as http:
            health = (await http.get(f"{stack.process(name).url}/healthcheck")).json()
        assert set(SUBJECTS.values()) & set(_strings(health)), (name, health)
        chain_secrets = (
            stack.env()["OPENBAO__NATS__NATS_JWT"],
            stack.env()["OPENBAO__NATS__NATS_SEED"],
        )
        for secret in chain_secrets:
            assert secret not in logs[name], f"{name} logged a credential"


def _strings(value: object) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _tiff_of(pdf: bytes, dpi: int = 200) -> bytes:
    """The pages of `pdf` rendered (grey) and saved as one multi-page LZW TIFF, as a scanner
    would hand them over."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        pages = [page.render(scale=dpi / 72).to_pil().convert("L") for page in document]
    finally:
        document.close()
    out = io.BytesIO()
    pages[0].save(
        out, "TIFF", save_all=True, append_images=pages[1:], compression="tiff_lzw", dpi=(dpi, dpi)
    )
    return out.getvalue()


async def test_a_tiff_scan_goes_through_as_a_pdf_on_the_custom_subjects(
    stack: LocalStack, core: Core, wire: _Everything
) -> None:
    """A TIFF scan uploaded to the core is stored as a PDF, requested on the custom image
    subject, recognised by the scan-gateway (OCR of the raster pages) and ends done."""
    before = wire.subjects.count(SUBJECTS["OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT"])
    upload = await core.upload("скан.tiff", _tiff_of(_files.statements_pdf()))
    assert (upload["file_type"], upload["pipeline"]) == ("PDF", "image")
    job = await core.wait_final(upload["job_id"], within=240)
    assert job["status"] in {"done", "needs_check"}, (job, service_log(stack, "scan-gateway"))
    assert job["service_name"] == "scan-gateway"
    documents = await core.documents(upload["file_id"])
    assert documents, "the scan gave no document"
    after = wire.subjects.count(SUBJECTS["OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT"])
    assert after == before + 1
    assert not set(wire.subjects) & DEFAULT_SUBJECTS
