"""Recognition of a large ОСВ in XLSX, XLS and XLSB against python-calamine merely reading it.

The workbook is a realistic 1C trial balance (benchmarks._osv_workbook): title block, two-row
merged header, accounts → subaccounts → counterparties with ИНН / КПП / contract columns,
outline levels, numbers as numbers. XLSX and XLSB hold 100,000 body rows; XLS cannot hold more
than 65,536 rows a sheet, so its workbook is the largest that fits (65,000 body rows).

For each format, each measurement runs in a fresh process (benchmarks._measure) so that its
peak RSS is its own:

- calamine: `CalamineWorkbook.from_filelike` + iterating every row of every sheet (the floor
  any reader pays);
- recognise: `services.tabular_parser.recognizer.recognize_bytes` (signature, guards, reader,
  ОСВ / statements recognition, i.e. what a worker process runs) + the UTF-8 JSON of the result.

- parse --json (XLSX only): `arm-ka parse --json FILE > out.json`, the whole command as a user
  runs it (interpreter start, imports, the sandboxed worker — forked from the command for one
  file —, the 40 MB result back through the memory file it shares with the command and written to a file, the
  process's exit). The project's modules are compiled to bytecode first, as installing the
  package does: with PYTHONDONTWRITEBYTECODE set (as in some CI and sandboxes) an editable
  checkout would otherwise compile them again on every run (~70 ms of CPU here), a cost no
  installed `arm-ka` pays.

- whole process (issue 29, first in the report): `arm-ka parse --json FILE` and a process that
  only iterates the file with python-calamine (`_FLOOR`), both fresh, in alternating pairs after
  one warm-up pair; wall and CPU seconds and peak RSS (the largest process of the tree, from
  `wait4`), each ratio taken pair by pair and its median printed beside the target (XLSX ≤ 2.5×,
  XLS and XLSB ≤ 4×, peak RSS ≤ 3×). On a shared machine the CPU ratio is the steadier one.

The figures are medians of RUNS runs; the ratios recognise/calamine are the comparable ones.
Targets (issue 4) for XLSX: ≤ 2.5× calamine's time, ≤ 300 MB peak RSS of the worker process;
(issue 17.8) `parse --json` within 1.3× of the recognition itself (`recognise`).
Run: `python -m benchmarks excel` (or `python benchmarks/bench_excel.py`); the `parse --json`
case alone (XLSX, interleaved with the recognition it is compared to):
`python benchmarks/bench_excel.py parse-json`; the whole-process case alone:
`python benchmarks/bench_excel.py whole`.
"""

from __future__ import annotations

import compileall
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._osv_workbook import osv_spec
from tests.builders import SheetSpec, write_xls, write_xlsb, write_xlsx

__all__ = ["main"]

ROWS = 100_000
XLS_ROWS = 65_000  # + header, total and footer stays under the 65,536 rows of a BIFF8 sheet
RUNS = 5
TARGET_RATIO = 2.5
TARGET_RSS_MB = 300.0
TARGET_PARSE_RATIO = 1.3
# Issue 29: `arm-ka parse --json FILE` as a fresh process against a process that only iterates
# the file with python-calamine, in the same run, alternating; time and peak RSS.
WHOLE_TARGETS = {"XLSX": 2.5, "XLS": 4.0, "XLSB": 4.0}
WHOLE_TARGET_RSS = 3.0
_FLOOR = (
    "import sys, python_calamine\n"
    "with python_calamine.CalamineWorkbook.from_path(sys.argv[1]) as book:\n"
    "    for name in book.sheet_names:\n"
    "        for row in book.get_sheet_by_name(name).iter_rows():\n"
    "            pass\n"
)
_REPO = Path(__file__).resolve().parents[1]
_WRITERS: dict[str, tuple[Callable[[Sequence[SheetSpec]], bytes], int]] = {
    "XLSX": (write_xlsx, ROWS),
    "XLS": (write_xls, XLS_ROWS),
    "XLSB": (write_xlsb, ROWS),
}


@dataclass(frozen=True, slots=True)
class Sample:
    seconds: float
    peak_mb: float
    base_mb: float


def _measure(what: str, path: Path) -> Sample:
    """One fresh process measuring `what` on the file at `path`."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks._measure", what, str(path)],
        cwd=_REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    if done.returncode != 0:
        msg = f"{what} {path.name} failed: {done.stderr.strip()[-2000:]}"
        raise RuntimeError(msg)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return Sample(found["seconds"], found["peak_rss_kb"] / 1024, found["base_rss_kb"] / 1024)


def _compile_project() -> None:
    """The project's bytecode, written once as an install writes it (see the docstring)."""
    compileall.compile_dir(_REPO / "services", quiet=1)


def _parse_json(path: Path) -> float:
    """Wall-clock seconds of one `arm-ka parse --json` of `path`, its output to a file."""
    arm_ka = Path(sys.executable).with_name("arm-ka")
    out = path.with_suffix(".json")
    started = time.perf_counter()
    with out.open("wb") as sink:
        done = subprocess.run(
            [str(arm_ka), "parse", "--json", str(path)],
            cwd=_REPO,
            stdout=sink,
            stderr=subprocess.PIPE,
            check=False,
            timeout=900,
        )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        msg = f"arm-ka parse --json {path.name} failed: {done.stderr.decode()[-2000:]}"
        raise RuntimeError(msg)
    return seconds


def _median(samples: list[Sample]) -> Sample:
    return Sample(
        statistics.median(s.seconds for s in samples),
        statistics.median(s.peak_mb for s in samples),
        statistics.median(s.base_mb for s in samples),
    )


def _line(fmt: str, rows: int, size: int, calamine: Sample, recognise: Sample) -> str:
    ratio = recognise.seconds / calamine.seconds
    rss_ratio = recognise.peak_mb / calamine.peak_mb
    return (
        f"{fmt:<5} {rows:>7} {size / 1e6:>6.1f} | {calamine.seconds:>6.2f} s {calamine.peak_mb:>6.0f} MB"
        f" | {recognise.seconds:>6.2f} s {recognise.peak_mb:>6.0f} MB ({recognise.base_mb:.0f} MB"
        f" after imports) | {ratio:>5.2f}x {rss_ratio:>5.2f}x"
    )


def main() -> str:
    """The report (for `python -m benchmarks`)."""
    lines = [
        f"ОСВ of {ROWS:,} body rows (XLS: {XLS_ROWS:,}, the largest that fits a 65,536-row "
        f"BIFF8 sheet); median of {RUNS} fresh processes per figure",
        "format  rows     MB  | calamine iterate     | recognise + JSON                  "
        "             | time   RSS (recognise / calamine)",
    ]
    verdicts: list[str] = []
    _compile_project()
    with tempfile.TemporaryDirectory(prefix="bench-excel-") as tmp:
        for fmt, (write, rows) in _WRITERS.items():
            started = time.perf_counter()
            data = write([osv_spec(rows)])
            written = time.perf_counter() - started
            path = Path(tmp) / f"osv.{fmt.lower()}"
            path.write_bytes(data)
            calamine: list[Sample] = []
            recognise: list[Sample] = []
            parse_json: list[float] = []
            for _ in range(RUNS):  # interleaved, so that a busy moment hits both alike
                calamine.append(_measure("calamine", path))
                recognise.append(_measure("recognise", path))
                if fmt == "XLSX":
                    parse_json.append(_parse_json(path))
            cal, rec = _median(calamine), _median(recognise)
            lines.append(_line(fmt, rows, len(data), cal, rec))
            print(f"  {fmt}: written in {written:.1f} s; {lines[-1]}", file=sys.stderr)
            if fmt == "XLSX":
                ratio = rec.seconds / cal.seconds
                pairs = [r.seconds / c.seconds for c, r in zip(calamine, recognise, strict=True)]
                verdicts.append(
                    f"XLSX target: time {ratio:.2f}x calamine (≤ {TARGET_RATIO}x: "
                    f"{'met' if ratio <= TARGET_RATIO else 'MISSED'}; run by run "
                    f"{min(pairs):.2f}–{max(pairs):.2f}x), peak RSS "
                    f"{rec.peak_mb:.0f} MB (≤ {TARGET_RSS_MB:.0f} MB: "
                    f"{'met' if rec.peak_mb <= TARGET_RSS_MB else 'MISSED'})"
                )
                verdicts.append(_parse_verdict(parse_json, recognise))
    return "\n".join([whole_process_case(), "", *lines, "", *verdicts])


def _parse_verdict(parse_json: list[float], recognise: list[Sample]) -> str:
    """The `parse --json` figure: its median against the recognition's, and run by run."""
    rec = _median(recognise).seconds
    parse_s = statistics.median(parse_json)
    ratio = parse_s / rec
    pairs = [p / r.seconds for p, r in zip(parse_json, recognise, strict=True)]
    return (
        f"XLSX `arm-ka parse --json`: {parse_s:.2f} s, {ratio:.2f}x the recognition "
        f"({rec:.2f} s; ≤ {TARGET_PARSE_RATIO}x: "
        f"{'met' if ratio <= TARGET_PARSE_RATIO else 'MISSED'}; run by run "
        f"{min(pairs):.2f}–{max(pairs):.2f}x)"
    )


@dataclass(frozen=True, slots=True)
class Whole:
    """One finished process: wall and CPU seconds (its own and its reaped children's), peak
    RSS in MB (the largest single process of the tree: what `wait4` reports)."""

    wall: float
    cpu: float
    peak_mb: float


_LAUNCHER = (
    "import json, os, sys, time\n"
    "started = time.perf_counter()\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    null = os.open(os.devnull, os.O_WRONLY)\n"
    "    os.dup2(null, 1)\n"
    "    os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "print(json.dumps([time.perf_counter() - started, usage.ru_utime + usage.ru_stime,\n"
    "                  usage.ru_maxrss, os.waitstatus_to_exitcode(status)]))\n"
)
"""Runs a command as its fork, output to /dev/null, and prints its wall and CPU seconds, peak
RSS (KB) and exit code. A small process of its own: a child started straight from this
benchmark (hundreds of MB once the workbooks are built) would report this process's peak RSS
as its own (Linux carries the peak over the fork and the exec)."""


def _whole(argv: list[str]) -> Whole:
    """`argv` run to its end as a fresh process (through `_LAUNCHER`), its output discarded."""
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, *argv],
        cwd=_REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{argv[-1]}: launcher failed: {done.stderr[-2000:]}")
    wall, cpu, peak_kb, code = json.loads(done.stdout)
    if code != 0:
        raise RuntimeError(f"{argv[-1]}: exit {code}: {done.stderr[-2000:]}")
    return Whole(float(wall), float(cpu), float(peak_kb) / 1024)


def _whole_line(fmt: str, floor: list[Whole], parse: list[Whole]) -> str:
    """Medians of each side and the medians of the pair-by-pair ratios, with the targets."""
    wall = [p.wall / f.wall for f, p in zip(floor, parse, strict=True)]
    cpu = [p.cpu / f.cpu for f, p in zip(floor, parse, strict=True)]
    rss = [p.peak_mb / f.peak_mb for f, p in zip(floor, parse, strict=True)]
    target = WHOLE_TARGETS[fmt]
    met = statistics.median(wall) <= target and statistics.median(rss) <= WHOLE_TARGET_RSS

    def med(values: list[Whole], field: str) -> float:
        return float(statistics.median(float(getattr(v, field)) for v in values))

    return (
        f"{fmt:<5} | {med(floor, 'wall'):>5.2f} s {med(floor, 'cpu'):>5.2f} s "
        f"{med(floor, 'peak_mb'):>4.0f} MB | {med(parse, 'wall'):>5.2f} s "
        f"{med(parse, 'cpu'):>5.2f} s {med(parse, 'peak_mb'):>4.0f} MB | wall "
        f"{statistics.median(wall):>5.2f}x ({min(wall):.2f}–{max(wall):.2f}) cpu "
        f"{statistics.median(cpu):>5.2f}x RSS {statistics.median(rss):.2f}x | target "
        f"≤ {target}x, RSS ≤ {WHOLE_TARGET_RSS}x: {'met' if met else 'MISSED'}"
    )


def whole_process_case() -> str:
    """Issue 29's figure: for each format, RUNS pairs of fresh processes, alternating, each
    pair a calamine-iterate process (the floor) then `arm-ka parse --json FILE`; one warm-up
    pair first (the page cache, the bytecode)."""
    _compile_project()
    arm_ka = str(Path(sys.executable).with_name("arm-ka"))
    lines = [
        f"whole process, median of {RUNS} alternating pairs (ratios pair by pair, then median): "
        "calamine-iterate process (floor) | `arm-ka parse --json FILE` | parse / floor",
        "format| floor wall, cpu, peak RSS   | parse wall, cpu, peak RSS    | ratios",
    ]
    with tempfile.TemporaryDirectory(prefix="bench-excel-") as tmp:
        for fmt, (write, rows) in _WRITERS.items():
            path = Path(tmp) / f"osv.{fmt.lower()}"
            path.write_bytes(write([osv_spec(rows)]))
            floor_argv = [sys.executable, "-c", _FLOOR, str(path)]
            parse_argv = [arm_ka, "parse", "--json", str(path)]
            _whole(floor_argv)  # warm-up: the page cache, the bytecode
            _whole(parse_argv)
            floor: list[Whole] = []
            parse: list[Whole] = []
            for _ in range(RUNS):
                floor.append(_whole(floor_argv))
                parse.append(_whole(parse_argv))
            lines.append(_whole_line(fmt, floor, parse))
            print(f"  {lines[-1]}", file=sys.stderr)
            path.unlink()
    return "\n".join(lines)


def parse_json_case() -> str:
    """Only the `parse --json` case: the XLSX workbook, RUNS interleaved pairs."""
    _compile_project()
    with tempfile.TemporaryDirectory(prefix="bench-excel-") as tmp:
        path = Path(tmp) / "osv.xlsx"
        path.write_bytes(write_xlsx([osv_spec(ROWS)]))
        recognise: list[Sample] = []
        parse_json: list[float] = []
        for _ in range(RUNS):
            recognise.append(_measure("recognise", path))
            parse_json.append(_parse_json(path))
    return _parse_verdict(parse_json, recognise)


if __name__ == "__main__":
    if sys.argv[1:] == ["parse-json"]:
        print(parse_json_case())
    elif sys.argv[1:] == ["whole"]:
        print(whole_process_case())
    else:
        print(main())
