"""One measurement in a fresh process: `python -m benchmarks._measure <what> <file>`.

Prints one JSON line: wall `seconds` of the measured step only (the file is read and the
modules imported before the clock starts), `peak_rss_kb` (VmHWM, else ru_maxrss: the whole
process, interpreter and imports included) and `base_rss_kb` (RSS once everything is
imported, before the step), so the step's own share can be told from the interpreter's.

what:
- `calamine`: python-calamine opening the bytes and iterating every row of every sheet, the
  least any reader of the file has to do;
- `recognise`: what a tabular-parser worker process runs (`recognize_encoded`: the child
  entry `recognize_bytes` — signature, guards, reader, ОСВ / statements recognition — plus the
  UTF-8 JSON of its documents, which the service writes to S3 as they are), with the malloc
  settings the sandbox gives its worker processes (`services.runtime.malloc`).
"""

from __future__ import annotations

import io
import json
import resource
import sys
import time
from pathlib import Path

__all__ = ["main"]


def _status_kb(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _peak_kb() -> int:
    found = _status_kb("VmHWM")
    return found if found is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _calamine(data: bytes) -> int:
    import python_calamine

    cells = 0
    with python_calamine.CalamineWorkbook.from_filelike(io.BytesIO(data)) as book:
        for name in book.sheet_names:
            for row in book.get_sheet_by_name(name).iter_rows():
                cells += len(row)
    return cells


def _recognize(data: bytes) -> int:
    from services.tabular_parser.recognizer import recognize_encoded

    return len(recognize_encoded(data).documents_json)


def main(argv: list[str]) -> int:
    what, path = argv
    if what == "calamine":
        import python_calamine  # noqa: F401  (imported before the clock starts)

        step = _calamine
    elif what == "recognise":
        import services.tabular_parser.recognizer  # noqa: F401
        from services.runtime.malloc import tune_worker_malloc

        tune_worker_malloc()  # as the sandbox's worker processes do
        step = _recognize
    else:
        print(f"unknown measurement {what!r}", file=sys.stderr)
        return 2
    data = Path(path).read_bytes()
    base = _status_kb("VmRSS") or 0
    started = time.perf_counter()
    size = step(data)
    seconds = time.perf_counter() - started
    report = {"seconds": seconds, "peak_rss_kb": _peak_kb(), "base_rss_kb": base, "size": size}
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
