"""A worker process ends with the service that started it, even when that one is SIGKILLed.

Without this, SIGKILL of a service's main process leaves its workers running for ever (each
holds the write end of its own task queue, so it never reads an end of file), and they keep
the fork server (they hold its "alive" pipe) and the resource tracker (they hold its pipe)
alive with them. `die_with(service_pid)` in each worker's initializer closes both holes:

- `PR_SET_PDEATHSIG` (SIGKILL): the kernel ends the worker when its parent ends; under
  "forkserver" that parent is the fork server, under "fork" / "spawn" the service.
- a watch of the service itself (a pidfd, polled by a daemon thread; `os.kill(pid, 0)` every
  second where there is no pidfd): the worker SIGKILLs itself once the service is gone. The
  fork server then reads the end of its alive pipe and exits, and the resource tracker, its
  last writer gone, exits after them. A worker busy in native code that holds the GIL is
  ended by its CPU-time limit (`SandboxSettings.cpu_seconds`) if not by the watch.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable

__all__ = ["die_with"]

_PR_SET_PDEATHSIG = 1


def die_with(service_pid: int) -> None:
    """End this process (SIGKILL) when its parent or process `service_pid` ends."""
    _die_with_parent()
    if service_pid == os.getpid():
        return
    try:
        watched = os.pidfd_open(service_pid)
    except ProcessLookupError:
        _die()  # the service ended before this worker got here
    except (AttributeError, OSError):  # no pidfd on this system: poll
        _start(_poll, service_pid)
    else:
        _start(_wait, watched)


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        _die()


def _start(target: Callable[[int], None], arg: int) -> None:
    threading.Thread(target=target, args=(arg,), name="lifeline", daemon=True).start()


def _wait(pidfd: int) -> None:
    select.select([pidfd], [], [])  # readable once the process has ended
    _die()


def _poll(pid: int) -> None:
    while True:
        time.sleep(1.0)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            _die()
        except PermissionError:
            continue


def _die() -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(os.getpid(), signal.SIGKILL)
