"""The local recogniser on the shared real scans: pages per minute with one and with two
workers beside one plain Tesseract pass over the same pages, and the values read right against
truth.json.

For each file of `../shared/samples/public/real-scans` (or `$ARM_SHARED_SAMPLES/real-scans`),
alternating in the same run:

- tesseract: every page rendered as the recogniser renders it (300 dpi; images as they are)
  and read once by the `tesseract` command through `pytesseract.image_to_data` (rus+eng,
  psm 6), one OpenMP thread — one plain Tesseract pass, the floor the target is judged by;
- library: the same pages read once by Tesseract's library in this process, the model loaded
  once (`services.scan_gateway.local._tesseract`, as the recogniser reads) — the engine's own
  cost without a process start, printed beside it;
- 1 worker / 2 workers: scan-gateway's `LocalSource` over a real sandbox of the service's pool
  limits (`OcrPool`) with one, then two worker processes (a PDF's pages a task each across
  them), then the mapper; each scored against truth.json (`tests.scan_gateway._real_scans`),
  and the two results must be the same documents.

Targets (issue 29 item 3): the per-page cost of one worker ≤ 1.5× the plain Tesseract pass;
two workers recognise a multi-page PDF's pages in parallel. A one-page file gains nothing from
a second worker (the service runs two files at once for that).
Run: `python -m benchmarks scans` (or `python benchmarks/bench_scans.py`).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.runtime.recognizer import Recognition
from services.runtime.sandbox import Sandbox
from services.scan_gateway.local import OCR_LANGUAGES
from services.scan_gateway.local._tesseract import read_words
from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer
from services.scan_gateway.settings import OcrPool
from tests.scan_gateway._real_scans import real_scans, scan_job, score_file, truth

__all__ = ["main"]

_DPI = 300
_TARGET = 1.5


def _pages(path: Path) -> list[Any]:
    from PIL import Image

    if path.suffix.lower() != ".pdf":
        return [Image.open(path)]
    import pypdfium2

    document = pypdfium2.PdfDocument(path.read_bytes())
    try:
        return [document[i].render(scale=_DPI / 72).to_pil() for i in range(len(document))]
    finally:
        document.close()


def _plain_tesseract(images: list[Any]) -> float:
    import pytesseract

    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # one thread, as the recogniser runs it
    started = time.perf_counter()
    for image in images:
        pytesseract.image_to_data(image.convert("L"), lang=OCR_LANGUAGES, config="--psm 6")
    return time.perf_counter() - started


def _library_tesseract(images: list[Any]) -> float:
    read_words(images[0].convert("L").crop((0, 0, 64, 64)), "tesseract", OCR_LANGUAGES, "--psm 6")
    started = time.perf_counter()  # (the model loaded above: once a process, not a page's)
    for image in images:
        read_words(image.convert("L"), "tesseract", OCR_LANGUAGES, "--psm 6")
    return time.perf_counter() - started


async def _recognised(sandbox: Sandbox, name: str, data: bytes) -> tuple[Recognition, float]:
    source = LocalSource(sandbox, dpi=_DPI, workers=sandbox.settings.workers)
    started = time.perf_counter()
    recognition = await ScanGatewayRecognizer(source).recognize(data, scan_job(name))
    return recognition, time.perf_counter() - started


async def _warm(sandbox: Sandbox) -> None:
    """Every worker started before anything is timed (a fork server's start is no page's)."""
    await asyncio.gather(*(sandbox.run(os.getpid) for _ in range(sandbox.settings.workers)))


async def _run() -> str:
    folder = real_scans()
    if not folder.is_dir():
        return f"skipped: {folder} is absent"
    expected = truth()
    load_before = os.getloadavg()
    rows = [
        f"{'file':52} {'pages':>5} {'tess s':>7} {'lib s':>6} {'1w s':>7} {'2w s':>7} {'1w/tess':>7}"
        f" {'2w gain':>7} {'right':>8} {'wrongU':>6} same"
    ]
    lib_s = 0.0
    pages, tess_s, one_s, two_s, right, values, wrong, differ = 0, 0.0, 0.0, 0.0, 0, 0, 0, 0
    multi_pages, multi_one, multi_two = 0, 0.0, 0.0
    async with (
        Sandbox(OcrPool().sandbox(workers=1)) as one,
        Sandbox(OcrPool().sandbox(workers=2)) as two,
    ):
        await _warm(one)
        await _warm(two)
        for name in sorted(expected):
            path = folder / name
            images = _pages(path)
            tess = _plain_tesseract(images)
            lib = _library_tesseract(images)
            lib_s += lib
            data = path.read_bytes()
            first, one_time = await _recognised(one, name, data)
            second, two_time = await _recognised(two, name, data)
            score = score_file(path, expected[name], first)
            same = first.documents == second.documents
            count = len(images)
            pages += count
            tess_s, one_s, two_s = tess_s + tess, one_s + one_time, two_s + two_time
            if count > 1:
                multi_pages += count
                multi_one, multi_two = multi_one + one_time, multi_two + two_time
            right, values, wrong = (
                right + score.right,
                values + score.total,
                wrong + score.wrong_unflagged,
            )
            differ += not same
            rows.append(
                f"{name[:52]:52} {count:5d} {tess:7.1f} {lib:6.1f} {one_time:7.1f} {two_time:7.1f}"
                f" {one_time / tess:7.2f} {one_time / two_time:6.2f}×"
                f" {score.right:>3}/{score.total:<4} {score.wrong_unflagged:6d} {'yes' if same else 'NO'}"
            )
    load_after = os.getloadavg()
    per_page = one_s / tess_s
    rows += [
        "",
        f"total: {pages} pages; plain Tesseract {pages / tess_s * 60:.1f} pages/min;"
        f" local recogniser, 1 worker {pages / one_s * 60:.1f} pages/min,"
        f" 2 workers {pages / two_s * 60:.1f} pages/min",
        f"per-page cost, 1 worker: {per_page:.2f}× the plain Tesseract pass (target ≤ {_TARGET}×:"
        f" {'met' if per_page <= _TARGET else 'NOT met'}); {one_s / lib_s:.2f}× one pass of"
        f" the library in process ({pages / lib_s * 60:.1f} pages/min)",
        f"multi-page files ({multi_pages} pages): 1 worker {multi_pages / multi_one * 60:.1f}"
        f" pages/min, 2 workers {multi_pages / multi_two * 60:.1f} pages/min"
        f" ({multi_one / multi_two:.2f}× faster)"
        if multi_pages
        else "no multi-page file in the set",
        f"values right {right}/{values} ({right / values:.0%}), wrong and unflagged {wrong};"
        f" 2 workers' documents differ from 1 worker's in {differ} file(s)",
        f"load average (1, 5, 15 min) before {_loads(load_before)}, after {_loads(load_after)}"
        f" on {os.cpu_count()} cores"
        + ("; a loaded machine: read the ratios, not the rates" if load_before[0] >= 1 else ""),
    ]
    return "\n".join(rows)


def _loads(loads: tuple[float, float, float]) -> str:
    return "/".join(f"{value:.1f}" for value in loads)


def main() -> str:
    return asyncio.run(_run())


if __name__ == "__main__":
    print(main())
