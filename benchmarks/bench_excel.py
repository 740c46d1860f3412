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

The figures are medians of RUNS runs; the ratios recognise/calamine are the comparable ones.
Targets (issue 4) for XLSX: ≤ 2.5× calamine's time, ≤ 300 MB peak RSS of the worker process;
(issue 17.8) `parse --json` within 1.3× of the recognition itself (`recognise`).
Run: `python -m benchmarks excel` (or `python benchmarks/bench_excel.py`); the `parse --json`
case alone (XLSX, interleaved with the recognition it is compared to):
`python benchmarks/bench_excel.py parse-json`.
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
    return "\n".join([*lines, "", *verdicts])


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
    print(parse_json_case() if sys.argv[1:] == ["parse-json"] else main())
