"""`arm-ka parse` of a batch, in process, with a fake recogniser driven by events: each file's
bytes are read at its turn (about `jobs` files held at once, not the folder), a file gone or
changed by then is a failure line of its own, and each line is out as soon as it and every file
before it are done, in the files' order. The planning, reading, ordering and printing are the
command's own; only the recogniser (a worker pool elsewhere) is replaced."""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from PIL import Image

from services.cli import _local, _main
from services.cli._local import Planned, Recognisers
from services.runtime.recognizer import Job, Recognition
from services.runtime.worker_pool import BuiltRecognizer

_SIZE = 4 * 1024 * 1024
"""Each file's size: the batch's files, together, are far above what `jobs` + 1 of them hold."""

OnCall = Callable[[str], Awaitable[None]]


class _Fake:
    """A recogniser that runs `on_call(file name)` and then recognises one BALANCE; it
    remembers the first bytes it was given of each file."""

    def __init__(self, on_call: OnCall) -> None:
        self._on_call = on_call
        self.heads: dict[str, bytes] = {}

    async def recognize(self, data: bytes, job: Job) -> Recognition:
        self.heads[job.original_name] = data[:5]
        await self._on_call(job.original_name)
        return Recognition(documents=[{"document_type": "BALANCE", "status": "done"}])


def _with_fake(monkeypatch: pytest.MonkeyPatch, on_call: OnCall) -> _Fake:
    fake = _Fake(on_call)

    def prepare(files: list[Planned], *, jobs: int = 1) -> Recognisers:
        built = BuiltRecognizer(fake, ())
        return Recognisers({"tabular-parser": (built, 60.0), "scan-gateway": (built, 60.0)})

    monkeypatch.setattr(_main, "prepare", prepare)
    return fake


def _files(folder: Path, count: int) -> list[Path]:
    folder.mkdir()
    paths = [folder / f"{chr(ord('a') + i)}.xlsx" for i in range(count)]
    for path in paths:
        path.write_bytes(b"not a zip, an .xlsx by name " * (_SIZE // 28))
    return paths


async def _until(condition: Callable[[], bool], what: str) -> None:
    """Wait, yielding to the loop, until `condition` holds; fail (not hang) if it never does."""
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


def _run(monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, io.StringIO]:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    return _main.main(["parse", *argv]), out


def test_a_batch_holds_at_most_jobs_plus_one_files_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight 4 MB files, two jobs: every buffer the file reader returns is counted while it is
    alive (freed buffers uncount themselves), and never more than three are alive at once,
    neither while planning nor while the recognisers run — the folder is not held."""
    live: list[int] = [0]
    peak: list[int] = [0]

    class Counted(bytes):
        def __del__(self) -> None:
            live[0] -= 1

    real = _local.read_file

    def counted_read(path: Path) -> bytes:
        data = Counted(real(path))
        live[0] += 1
        peak[0] = max(peak[0], live[0])
        return data

    called: set[str] = set()

    async def on_call(name: str) -> None:
        """Each file ends only once the next one is in work: two always run together."""
        called.add(name)
        peak[0] = max(peak[0], live[0])
        following = f"{chr(ord(name[0]) + 1)}.xlsx"
        await _until(lambda: following in called or name == "h.xlsx", f"{following} in work")

    monkeypatch.setattr(_local, "read_file", counted_read)
    _with_fake(monkeypatch, on_call)
    paths = _files(tmp_path / "in", 8)
    code, out = _run(monkeypatch, str(tmp_path / "in"), "--jobs", "2")
    assert code == 0, out.getvalue()
    lines = out.getvalue().splitlines()
    assert [line.split()[1] for line in lines[:-1]] == [str(path) for path in paths]
    assert lines[-1] == "итого файлов: 8 — готово: 8"
    assert 2 <= peak[0] <= 3, peak[0]


def test_a_file_removed_or_changed_mid_batch_is_a_failure_line_and_the_rest_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the first file is recognised, the third is deleted and the fourth becomes a PDF:
    each ends as an `error` line saying why (FILE_READ_ERROR), in its place, no traceback;
    the second and fifth are recognised; the exit code is 2."""
    paths = _files(tmp_path / "in", 5)

    async def on_call(name: str) -> None:
        if name == "a.xlsx":
            paths[2].unlink()
            paths[3].write_bytes(b"%PDF-1.4\n%%EOF\n")

    _with_fake(monkeypatch, on_call)
    code, out = _run(monkeypatch, *map(str, paths))
    assert code == 2
    lines = out.getvalue().splitlines()
    assert len(lines) == 6
    assert lines[0].startswith("done") and "a.xlsx" in lines[0]
    assert lines[1].startswith("done") and "b.xlsx" in lines[1]
    assert (
        lines[2].startswith("error")
        and f"c.xlsx (XLSX): FILE_READ_ERROR: файл не найден: {paths[2]}" in lines[2]
    )
    assert lines[3].startswith("error") and "d.xlsx (XLSX): FILE_READ_ERROR:" in lines[3]
    assert "теперь PDF, а в начале работы был XLSX" in lines[3]
    assert lines[4].startswith("done") and "e.xlsx" in lines[4]
    assert lines[5] == "итого файлов: 5 — готово: 3, ошибка: 2"


def test_lines_come_in_input_order_while_later_files_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two jobs over a, b, c: b waits on a gate until a's line is printed and c, started
    after a, is recognised; only then does b end. a's line is out while b runs, and c's,
    though c was done first, comes after b's."""
    paths = _files(tmp_path / "in", 3)
    out = io.StringIO()
    c_called = asyncio.Event()
    seen_while_b_ran: list[str] = []

    async def on_call(name: str) -> None:
        if name == "b.xlsx":
            await _until(lambda: "a.xlsx" in out.getvalue(), "a's line printed while b runs")
            await c_called.wait()
            await asyncio.sleep(0.05)  # c's recognition returns and is digested meanwhile
            seen_while_b_ran.append(out.getvalue())
        if name == "c.xlsx":
            c_called.set()

    _with_fake(monkeypatch, on_call)
    monkeypatch.setattr(sys, "stdout", out)
    code = _main.main(["parse", *map(str, paths), "--jobs", "2"])
    assert code == 0
    (early,) = seen_while_b_ran
    assert "a.xlsx" in early and "b.xlsx" not in early and "c.xlsx" not in early
    lines = out.getvalue().splitlines()
    assert [Path(line.split()[1]).name for line in lines[:-1]] == ["a.xlsx", "b.xlsx", "c.xlsx"]


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data")  # Pillow on the broken one
def test_a_tiff_of_a_batch_is_converted_at_its_turn_and_a_broken_one_fails_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TIFF in a folder is planned as one and converted when its turn comes: its recogniser
    gets the PDF arm-core makes of it; a TIFF that cannot be decoded (found only by the
    conversion) is an `error` line with the core's reason, and the batch goes on."""
    folder = tmp_path / "in"
    folder.mkdir()
    good = io.BytesIO()
    Image.new("L", (200, 100), 255).save(good, format="TIFF")
    (folder / "a-scan.tif").write_bytes(good.getvalue())
    (folder / "b-broken.tif").write_bytes(b"II*\x00" + b"\xff" * 64)
    (folder / "c.xlsx").write_bytes(b"an .xlsx by its name")

    async def on_call(name: str) -> None:
        return None

    fake = _with_fake(monkeypatch, on_call)
    code, out = _run(monkeypatch, str(folder))
    assert code == 2
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("done") and "a-scan.tif (TIFF): Баланс" in lines[0]
    assert fake.heads["a-scan.tif"] == b"%PDF-"
    assert lines[1].startswith("error")
    assert (
        "b-broken.tif (TIFF): FILE_READ_ERROR: b-broken.tif: the TIFF could not be read"
        in (lines[1])
    )
    assert "b-broken.tif" not in fake.heads
    assert lines[2].startswith("done") and "c.xlsx (XLSX)" in lines[2]
    assert lines[3] == "итого файлов: 3 — готово: 2, ошибка: 1"
