"""glibc malloc settings for worker processes that build and drop very large structures.

Two glibc defaults make a parsing worker's peak RSS grow past what is live. The mmap threshold
is dynamic: once a large mmapped block is freed (a decompressed XML block, calamine's grid of
a sheet), blocks up to that size come from the heap from then on, and freed heap blocks with
live data above them stay resident. And every thread gets an arena of its own, whose free
pages the main thread never reuses. For a 100k-row ОСВ the two cost 20–35 MB of the 300 MB
budget of a worker (issue 4). A fixed threshold (`MMAP_THRESHOLD`: blocks of 4 MiB and more
are always mmapped and unmapped on free; decision 0004) and two arenas (the main thread's and
one for helper threads) keep the peak at what is live; the price is an mmap call per large
block, which a parse of hundreds of MB pays a few thousand times.
"""

from __future__ import annotations

import ctypes

__all__ = ["ARENA_MAX", "MMAP_THRESHOLD", "tune_worker_malloc"]

MMAP_THRESHOLD = 4 * 1024 * 1024
ARENA_MAX = 2
_M_MMAP_THRESHOLD = -3  # <malloc.h>
_M_ARENA_MAX = -8


def tune_worker_malloc() -> bool:
    """Apply both settings to this process; False where the C library is not glibc.

    `mallopt` is looked up among the symbols the process has loaded (the interpreter links
    the C library), not by `ctypes.util.find_library`, which runs `ldconfig -p` in a
    subprocess: a worker's start would pay for it.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (no mallopt)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(_M_ARENA_MAX, ARENA_MAX))
