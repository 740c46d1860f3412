"""A client of the ГИР БО public API: an organisation's official filings by ИНН.

Two calls: `GET {base}/advanced-search/organizations?inn=…` finds the organisation's id (the
answer marks the matched ИНН up, `<strong>7707083893</strong>`, so the tags are stripped before
comparing), then `GET {base}/nbo/organizations/{id}/bfo/` answers every year's filing at once.
Both answers are cached (`cache_seconds`): the filings answer holds every year, so it is
cached per ИНН and read per year; an unknown ИНН is remembered too.

A bank network may not reach the service, and an outside service must never hold up an
analyst: every request has a timeout, and any failure is logged and answered as
`unavailable` (never raised). After a failure of the service itself (no connection, timeout,
5xx) no request is sent for `retry_seconds`, so a dossier list does not wait on each ИНН.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

import httpx

from services.arm_statements.agreement import Figure
from services.girbo.filing import BRACKETED, filing_year, official_figures

__all__ = ["GirboClient", "Lookup", "LookupState", "plain_inn"]

log = logging.getLogger("services.girbo")

LookupState = Literal["compared", "not_found", "unavailable"]
_TAGS: Final = re.compile(r"<[^>]*>")
_INN: Final = re.compile(r"^\d{10}(\d{2})?$")
_SEARCH: Final = "advanced-search/organizations"


def plain_inn(text: object) -> str | None:
    """An ИНН as the search answers it, without its markup (`<strong>…</strong>`)."""
    if not isinstance(text, str):
        return None
    inn = _TAGS.sub("", text).strip()
    return inn if _INN.match(inn) else None


@dataclass(frozen=True, slots=True)
class Lookup:
    """What ГИР БО holds for an ИНН and years: `compared` (figures found), `not_found` (no
    organisation or no filing of those years) or `unavailable` (the service failed);
    `deductions`: the lines it turned negative (the form's brackets)."""

    state: LookupState
    figures: tuple[Figure, ...] = ()
    filings: tuple[str, ...] = ()
    deductions: frozenset[str] = BRACKETED


class _ServiceDown(Exception):
    """The service did not answer usefully (connection, timeout, 5xx)."""


@dataclass(slots=True)
class _Entry:
    expires: float
    value: Any


class GirboClient:
    """The official filings of an organisation (`lookup`), cached; never raises."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout_seconds: float = 5.0,
        cache_seconds: float = 86400.0,
        retry_seconds: float = 60.0,
        concurrency: int = 4,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base_url = base_url.rstrip("/") + "/"
        self._timeout = httpx.Timeout(timeout_seconds)
        self._cache_seconds = cache_seconds
        self._retry_seconds = retry_seconds
        self._clock = clock
        self._limit = asyncio.Semaphore(concurrency)
        self._locks: dict[str, asyncio.Lock] = {}
        self._orgs: dict[str, _Entry] = {}
        self._filings: dict[str, _Entry] = {}
        self._down_until = 0.0
        self.requests = 0
        """How many HTTP requests were sent (the cache's effect is visible in tests)."""

    def __repr__(self) -> str:
        return f"GirboClient({self.base_url!r})"

    async def lookup(self, inn: str, years: Collection[int]) -> Lookup:
        """The official figures for statements of `years` of the organisation `inn` (the
        filings of those years and of the year after)."""
        wanted = sorted({y for year in years for y in (year, year + 1)})
        if not wanted or plain_inn(inn) != inn:
            return Lookup("not_found")
        try:
            filings = await self._filings_of(inn, wanted)
        except _ServiceDown as exc:
            log.warning("ГИР БО did not answer for ИНН %s: %s", inn, exc)
            return Lookup("unavailable")
        except Exception:
            log.exception("ГИР БО's answer for ИНН %s could not be read", inn)
            return Lookup("unavailable")
        if filings is None:
            return Lookup("not_found")
        figures, used = official_figures(inn, filings, years)
        if not figures:
            return Lookup("not_found")
        return Lookup("compared", tuple(figures), tuple(used))

    def _cached(self, cache: Mapping[Any, _Entry], key: Any) -> _Entry | None:
        entry = cache.get(key)
        return entry if entry is not None and entry.expires > self._clock() else None

    async def _filings_of(self, inn: str, years: list[int]) -> list[Mapping[str, Any]] | None:
        """The filings of `years` (None: no such organisation). One answer holds every year
        of the organisation, so it is cached per ИНН and read per year."""
        cached = self._cached(self._filings, inn)
        if cached is None:
            # One question per ИНН at a time, at most `concurrency` at once; both re-checked
            # when it is this lookup's turn: another may have asked, or failed, meanwhile.
            async with self._locks.setdefault(inn, asyncio.Lock()), self._limit:
                cached = self._cached(self._filings, inn)
                if cached is None:
                    if self._clock() < self._down_until:
                        raise _ServiceDown("not asked again until the retry pause is over")
                    cached = self._remember(self._filings, inn, await self._ask(inn))
        by_year: dict[int, Mapping[str, Any]] | None = cached.value
        if by_year is None:
            return None
        return [by_year[year] for year in years if year in by_year]

    async def _ask(self, inn: str) -> dict[int, Mapping[str, Any]] | None:
        """Every filing of `inn` by year, asked of the service (None: no such organisation)."""
        async with self._client() as http:
            org = self._cached(self._orgs, inn)
            if org is None:
                org = self._remember(self._orgs, inn, await self._organization_id(http, inn))
            if org.value is None:
                return None
            path = f"nbo/organizations/{org.value}/bfo/"
            answer = await self._get(http, path)
            if answer is None:  # the public client asks without the trailing slash too
                answer = await self._get(http, path.rstrip("/"))
        if answer is None:  # 404: the organisation has filed nothing
            answer = []
        if isinstance(answer, Mapping) and isinstance(answer.get("content"), list):
            answer = answer["content"]  # a paged answer, as the search's
        if not isinstance(answer, list):
            msg = f"the filings of organisation {org.value} are not a list"
            raise TypeError(msg)
        by_year: dict[int, Mapping[str, Any]] = {}
        for one in answer:
            year = filing_year(one) if isinstance(one, Mapping) else None
            if year is not None:
                by_year[year] = one
        return by_year

    def _remember(self, cache: dict[Any, _Entry], key: Any, value: Any) -> _Entry:
        entry = _Entry(self._clock() + self._cache_seconds, value)
        cache[key] = entry
        return entry

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.base_url,
            timeout=self._timeout,
            headers={"Accept": "application/json", "User-Agent": "arm-ka-girbo"},
            follow_redirects=False,
        )

    async def _organization_id(self, http: httpx.AsyncClient, inn: str) -> int | None:
        answer = await self._get(
            http, _SEARCH, params={"inn": inn, "allFieldsMatch": "false", "page": 0, "size": 20}
        )
        content = answer.get("content") if isinstance(answer, Mapping) else None
        for organization in content or ():
            if isinstance(organization, Mapping) and plain_inn(organization.get("inn")) == inn:
                found = organization.get("id")
                if isinstance(found, str) and found.isdigit():
                    return int(found)
                if isinstance(found, int) and not isinstance(found, bool):
                    return found
        return None

    async def _get(
        self, http: httpx.AsyncClient, path: str, params: Mapping[str, Any] | None = None
    ) -> Any:
        self.requests += 1
        try:
            response = await http.get(path, params=params)
        except httpx.HTTPError as exc:
            self._down_until = self._clock() + self._retry_seconds
            raise _ServiceDown(f"{type(exc).__name__} on {path}") from exc
        if response.status_code >= 500 or response.status_code == 429:
            self._down_until = self._clock() + self._retry_seconds
            raise _ServiceDown(f"HTTP {response.status_code} on {path}")
        if response.status_code == 404:
            return None
        response.raise_for_status()
        return response.json()
