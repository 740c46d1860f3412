"""A fake of the ГИР БО public API on loopback, serving filings given as data.

It answers the two calls the client makes, in the real API's shapes: the search marks the
matched ИНН up (`<strong>…</strong>`) and finds every organisation whose ИНН contains the
query, and `/nbo/organizations/{id}/bfo/` lists an organisation's filings. Tests script its
faults (`delay_seconds`: answer that late; `status`: answer every request with that status)
and read what it was asked (`requests`). `make run` starts it on request (`--girbo`).

    with FakeGirboServer(FakeGirbo([filing("7707083893", 2024, balance={"1600": (10, 9, 8)})])) as s:
        ... GirboClient(s.url) ...
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from services.runtime.threaded_server import ThreadedServer

__all__ = ["FakeGirbo", "FakeGirboServer", "filing", "load_filings"]

Amounts = Sequence[int | float | None]


def _columns(prefixes: Sequence[str], lines: Mapping[str, Amounts]) -> dict[str, Any]:
    form: dict[str, Any] = {}
    for code, amounts in lines.items():
        for prefix, amount in zip(prefixes, amounts, strict=False):
            form[f"{prefix}{code}"] = amount
    return form


def filing(
    inn: str,
    year: int,
    *,
    balance: Mapping[str, Amounts] | None = None,
    income: Mapping[str, Amounts] | None = None,
    knd: str = "0710099",
    name: str = "ООО «Организация»",
    filing_id: int | None = None,
) -> dict[str, Any]:
    """A filing in the API's shape, amounts as ГИР БО stores them (thousands; deductions
    positive): `balance` code → (31.12 of the year, of the year before, of the one before),
    `income` code → (the year, the year before)."""
    identity = filing_id if filing_id is not None else int(inn[-6:]) * 100 + year % 100
    correction: dict[str, Any] = {
        "id": identity,
        "correctionVersion": 0,
        "knd": knd,
        "periodType": 12,
        "balance": {"id": identity, "okud": "0710001"}
        | _columns(("current", "previous", "beforePrevious"), balance or {}),
        "financialResult": {"id": identity, "okud": "0710002"}
        | _columns(("current", "previous"), income or {}),
    }
    return {
        "id": identity,
        "period": str(year),
        "knd": knd,
        "isCb": False,
        "published": True,
        "organizationInfo": {"fullName": name, "inn": inn},
        "typeCorrections": [{"type": 12, "correction": correction}],
    }


def load_filings(path: Path) -> list[dict[str, Any]]:
    """Filings from a JSON array in the API's shape (`.json`, or brotli `.json.br` when the
    `brotli` package is installed)."""
    data = path.read_bytes()
    if path.suffix == ".br":
        import brotli  # type: ignore[import-not-found,unused-ignore]  # dev extra only

        data = brotli.decompress(data)
    loaded = json.loads(data)
    if not isinstance(loaded, list):
        msg = f"{path}: not a JSON array of filings"
        raise ValueError(msg)
    return [f for f in loaded if isinstance(f, dict)]


class FakeGirbo:
    """The API's answers over `filings` (organisation ids numbered by ИНН)."""

    def __init__(
        self,
        filings: Iterable[Mapping[str, Any]] = (),
        *,
        bfo_paths: Sequence[str] = ("/bfo/", "/bfo"),
    ) -> None:
        """`bfo_paths`: the endings of the filings path it answers (both by default; one of
        them to test a client against a server that knows only that one)."""
        self.delay_seconds = 0.0
        self.status: int | None = None
        self.requests: list[str] = []
        self._by_inn: dict[str, list[Mapping[str, Any]]] = {}
        self.serve(filings)
        self.app = Starlette(
            routes=[
                Route("/advanced-search/organizations", self._search),
                *(Route(f"/nbo/organizations/{{org_id:int}}{end}", self._bfo) for end in bfo_paths),
            ]
        )
        self.app.router.redirect_slashes = False

    def serve(self, filings: Iterable[Mapping[str, Any]]) -> None:
        """Serve `filings` instead of the ones before."""
        by_inn: dict[str, list[Mapping[str, Any]]] = {}
        for one in filings:
            by_inn.setdefault(str(one["organizationInfo"]["inn"]), []).append(one)
        self._by_inn = by_inn

    def organization_id(self, inn: str) -> int:
        """The id the search answers for `inn`."""
        return sorted(self._by_inn).index(inn) + 1

    async def _fault(self, request: Request) -> Response | None:
        self.requests.append(request.url.path)
        if self.delay_seconds:
            await asyncio.sleep(self.delay_seconds)
        if self.status is not None:
            return JSONResponse({"error": "scripted"}, status_code=self.status)
        return None

    async def _search(self, request: Request) -> Response:
        fault = await self._fault(request)
        if fault is not None:
            return fault
        query = request.query_params.get("inn", "")
        content = [
            {
                "id": self.organization_id(inn),
                "inn": inn.replace(query, f"<strong>{query}</strong>") if query else inn,
                "shortName": filings[-1]["organizationInfo"].get("fullName"),
                "bfo": {"period": max(str(f["period"]) for f in filings)},
            }
            for inn, filings in sorted(self._by_inn.items())
            if query and query in inn
        ]
        return JSONResponse(
            {"content": content, "totalElements": len(content), "number": 0, "empty": not content}
        )

    async def _bfo(self, request: Request) -> Response:
        fault = await self._fault(request)
        if fault is not None:
            return fault
        inns = sorted(self._by_inn)
        index = int(request.path_params["org_id"]) - 1
        if not 0 <= index < len(inns):
            return JSONResponse({"error": "not found"}, status_code=404)
        return JSONResponse(list(self._by_inn[inns[index]]))


class FakeGirboServer(ThreadedServer):
    """A `FakeGirbo` under uvicorn, in a thread, on a loopback port (free unless given);
    `url` is the base URL for `OPENBAO__GIRBO__GIRBO_URL`."""

    def __init__(self, fake: FakeGirbo | None = None, *, port: int = 0) -> None:
        self.fake = fake or FakeGirbo()
        super().__init__(self.fake.app, port=port, name="fake ГИР БО")
