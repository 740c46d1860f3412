"""Run every benchmark (`make bench`) or the ones named: `python -m benchmarks ack_latency`.

Each `benchmarks/bench_<name>.py` exposes `main() -> str` returning its report as text. Reports
are printed and kept under `benchmarks/results/<name>.txt` with the machine and the date, so a
reader can compare runs; the figures that matter are ratios against a baseline measured in the
same run, which makes them comparable across machines.
"""

from __future__ import annotations

import datetime as dt
import importlib
import os
import platform
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        model = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
        cpu = model
    except (OSError, StopIteration):
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}"


def main(argv: list[str]) -> int:
    names = argv or sorted(p.stem.removeprefix("bench_") for p in _HERE.glob("bench_*.py"))
    out_dir = _HERE / "results"
    out_dir.mkdir(exist_ok=True)
    header = (
        f"date: {dt.datetime.now(dt.UTC).isoformat(timespec='seconds')}\nmachine: {_machine()}\n"
    )
    failed = 0
    for name in names:
        module = importlib.import_module(f"benchmarks.bench_{name}")
        print(f"== {name}", flush=True)
        try:
            report = module.main()
        except Exception as exc:  # a broken benchmark must not hide the others' figures
            failed += 1
            report = f"FAILED: {exc!r}"
        text = f"{header}benchmark: {name}\n\n{report}\n"
        (out_dir / f"{name}.txt").write_text(text, encoding="utf-8")
        print(text, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
