"""What the source view read from a stored file, kept for the next click on the same file.

Without it every click downloads the upload from S3 and parses the workbook (or renders the
PDF page) again. Entries are keyed by the file id and what was read (`"workbook"`, the stored
bytes of a workbook; `("window", ref, …)`, a window of its cells; `("page", n)`): a file id names immutable content — an upload gets a new id, a re-upload too,
and no route rewrites the object under an id — so an entry is never stale. A deleted file is
refused by the pages before the cache is asked (its row is gone), and its entries age out.

The cache is bounded twice, least recently used first out: by entries, and by bytes as the
loader weighs them (stored bytes and a PNG by their length, a window by its cells). Something
heavier than the whole byte bound is returned but not kept. One load per key at a time: a
second click while the first still reads waits for it instead of reading again.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_ENTRIES", "SourceCache"]

DEFAULT_MAX_ENTRIES = 32
DEFAULT_MAX_BYTES = 128 * 1024 * 1024

T = TypeVar("T")
_Key = tuple[uuid.UUID, Hashable]


@dataclass(slots=True)
class _Entry:
    value: Any
    weight: int


class SourceCache:
    """A per-file LRU of what the source view read, bounded by entries and by bytes."""

    def __init__(
        self, *, max_entries: int = DEFAULT_MAX_ENTRIES, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        if max_entries < 1 or max_bytes < 1:
            raise ValueError("the source cache needs room for at least one entry and one byte")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: OrderedDict[_Key, _Entry] = OrderedDict()
        self._loading: dict[_Key, asyncio.Lock] = {}
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        """The weight of what is kept now."""
        return self._bytes

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    async def get(
        self,
        file_id: uuid.UUID,
        what: Hashable,
        load: Callable[[], Awaitable[tuple[T, int]]],
    ) -> T:
        """The cached value of `(file_id, what)`, or `load()`'s (a value and its weight in
        bytes), kept within the bounds. A load that raises keeps nothing."""
        key: _Key = (file_id, what)
        lock = self._loading.setdefault(key, asyncio.Lock())
        try:
            async with lock:
                entry = self._entries.get(key)
                if entry is not None:
                    self._entries.move_to_end(key)
                    value: T = entry.value
                    return value
                value, weight = await load()
                self._keep(key, value, weight)
                return value
        finally:
            if not lock.locked() and self._loading.get(key) is lock:
                del self._loading[key]

    def _keep(self, key: _Key, value: object, weight: int) -> None:
        if weight > self.max_bytes:
            return
        self._entries[key] = _Entry(value, weight)
        self._bytes += weight
        while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
            _old, dropped = self._entries.popitem(last=False)
            self._bytes -= dropped.weight
