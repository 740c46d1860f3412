"""The ГИР БО client against the fake API on loopback: the search's markup, the printed-form
signs, the cache, and failures (timeouts, 5xx, no server) answered as `unavailable`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from services.devstack.embedded import free_port
from services.girbo import FakeGirbo, FakeGirboServer, GirboClient, filing, plain_inn

INN = "7707083893"
# A 12-digit ИНН that contains INN: the search finds it too, and first.
DECOY = "177070838931"


class Clock:
    """A hand-driven monotonic clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def girbo() -> Iterator[FakeGirboServer]:
    filings = [
        filing(INN, 2024, balance={"1250": (6140, 4150, 3870)}, income={"2120": (118450, 107300)}),
        filing(INN, 2023, balance={"1250": (4150, 3870, None)}),
        filing(DECOY, 2024, balance={"1250": (1, 1, 1)}),
    ]
    with FakeGirboServer(FakeGirbo(filings)) as server:
        yield server


def test_plain_inn_strips_the_search_markup() -> None:
    assert plain_inn(f"<strong>{INN}</strong>") == INN
    assert plain_inn(f"1<strong>{INN}</strong>1") == DECOY
    assert plain_inn("<strong>77</strong>") is None
    assert plain_inn(None) is None


async def test_the_exact_inn_is_found_behind_its_markup_and_its_figures_read(
    girbo: FakeGirboServer,
) -> None:
    """The search answers the decoy first, both marked up; the client takes the organisation
    whose ИНН is the one asked, and its figures are in thousands with 2120 negative."""
    client = GirboClient(girbo.url)
    found = await client.lookup(INN, [2024])
    assert found.state == "compared"
    assert found.filings == (f"girbo:{INN}:2024",)
    amounts = {(f.line_code, f.period_date.isoformat()): f.amount for f in found.figures}
    assert amounts == {
        ("1250", "2024-12-31"): 6140,
        ("1250", "2023-12-31"): 4150,
        ("1250", "2022-12-31"): 3870,
        ("2120", "2024-12-31"): -118450,
        ("2120", "2023-12-31"): -107300,
    }
    assert {f.units for f in found.figures} == {"тыс. руб."}
    assert girbo.fake.requests == [
        "/advanced-search/organizations",
        f"/nbo/organizations/{girbo.fake.organization_id(INN)}/bfo/",
    ]


async def test_answers_are_cached_per_inn_until_they_expire(girbo: FakeGirboServer) -> None:
    clock = Clock()
    client = GirboClient(girbo.url, cache_seconds=600, clock=clock)
    first = await client.lookup(INN, [2024])
    again = await client.lookup(INN, [2023])  # another year of the same answer
    assert (first.state, again.state) == ("compared", "compared")
    assert again.filings == (f"girbo:{INN}:2023", f"girbo:{INN}:2024")
    assert client.requests == 2
    clock.now += 601
    assert (await client.lookup(INN, [2024])).state == "compared"
    assert client.requests == 4


async def test_an_unknown_inn_or_year_is_not_found_and_remembered(girbo: FakeGirboServer) -> None:
    client = GirboClient(girbo.url)
    assert (await client.lookup("7700000000", [2024])).state == "not_found"
    assert (await client.lookup("7700000000", [2024])).state == "not_found"
    assert client.requests == 1
    assert (await client.lookup(INN, [2019])).state == "not_found"
    assert (await client.lookup("not an inn", [2024])).state == "not_found"


async def test_a_slow_service_times_out_and_is_left_alone_for_the_retry_pause(
    girbo: FakeGirboServer,
) -> None:
    """The fake answers after 2 s, the client waits 0.3 s: no figures, quickly; the next
    lookups send nothing until the retry pause is over, then the service is asked again."""
    clock = Clock()
    client = GirboClient(girbo.url, timeout_seconds=0.3, retry_seconds=60, clock=clock)
    girbo.fake.delay_seconds = 2.0
    started = time.monotonic()
    answer = await client.lookup(INN, [2024])
    assert time.monotonic() - started < 1.5
    assert (answer.state, answer.figures) == ("unavailable", ())
    assert (await client.lookup(INN, [2024])).state == "unavailable"
    assert client.requests == 1
    girbo.fake.delay_seconds = 0.0
    clock.now += 61
    assert (await client.lookup(INN, [2024])).state == "compared"


async def test_a_server_error_is_unavailable_and_not_cached(girbo: FakeGirboServer) -> None:
    client = GirboClient(girbo.url, retry_seconds=0)
    girbo.fake.status = 503
    assert (await client.lookup(INN, [2024])).state == "unavailable"
    girbo.fake.status = None
    assert (await client.lookup(INN, [2024])).state == "compared"


async def test_an_unreadable_answer_is_unavailable(girbo: FakeGirboServer) -> None:
    client = GirboClient(girbo.url)
    girbo.fake.status = 400
    assert (await client.lookup(INN, [2024])).state == "unavailable"


async def test_no_server_is_unavailable() -> None:
    client = GirboClient(f"http://127.0.0.1:{free_port()}", timeout_seconds=1)
    answer = await client.lookup(INN, [2024])
    assert (answer.state, answer.figures, answer.filings) == ("unavailable", (), ())


async def test_filings_are_also_asked_without_the_trailing_slash() -> None:
    """A server that knows only `/bfo` (as the public client asks) answers the second try."""
    fake = FakeGirbo([filing(INN, 2024, balance={"1600": (1, 1, 1)})], bfo_paths=("/bfo",))
    with FakeGirboServer(fake) as server:
        client = GirboClient(server.url)
        answer = await client.lookup(INN, [2024])
    assert answer.state == "compared"
    assert client.requests == 3  # the search, `/bfo/` (404), `/bfo`
    assert fake.requests == [
        "/advanced-search/organizations",
        f"/nbo/organizations/{fake.organization_id(INN)}/bfo",
    ]


async def test_lookups_at_once_ask_once_per_inn_and_not_at_all_behind_a_failure(
    girbo: FakeGirboServer,
) -> None:
    """Three lookups of one ИНН at once ask the service once; five of other ИНН queued behind
    a dead service's first failure ask nothing (a dossier list does not wait once per ИНН)."""
    client = GirboClient(girbo.url)
    answers = await asyncio.gather(*(client.lookup(INN, [2024]) for _ in range(3)))
    assert [a.state for a in answers] == ["compared"] * 3
    assert client.requests == 2  # the search and the filings, once

    dead = GirboClient(f"http://127.0.0.1:{free_port()}", timeout_seconds=1, concurrency=1)
    inns = [f"77070838{n:02d}" for n in range(5)]
    failed = await asyncio.gather(*(dead.lookup(inn, [2024]) for inn in inns))
    assert {a.state for a in failed} == {"unavailable"}
    assert dead.requests == 1
