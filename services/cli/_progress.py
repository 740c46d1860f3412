"""A progress line on stderr while local work runs: the stage, file n of m, pages, seconds,
in Russian (the analyst reads it).

One line, redrawn in place (`\\r`, cleared with an ANSI erase) a few times a second, and erased
when the work ends so the summary starts on a clean line. Only when stderr is a terminal: a
pipe, a file or a CI log gets nothing from here.
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TextIO

from services.cli._local import Planned
from services.cli._words import seconds

__all__ = ["ProgressLine", "page_count"]

_REDRAW_SECONDS = 0.25


def page_count(data: bytes | None, file_type: str | None) -> int | None:
    """The pages a PDF has (a PNG / JPG is one), read in the parent; None for a workbook, a
    PDF not read yet or one that does not open (the recogniser says why)."""
    if file_type in ("PNG", "JPG"):
        return 1
    if file_type != "PDF" or data is None:
        return None
    try:
        import pypdfium2

        document = pypdfium2.PdfDocument(io.BytesIO(data))
    except Exception:
        return None
    try:
        return len(document)
    finally:
        document.close()


class ProgressLine:
    """`with ProgressLine(stream, files): …` shows the line while the block runs.

    `start(file)` / `done(file)` are called from the work (any thread); the line names the files
    being read now, with their stage («чтение книги XLSX», «OCR, страниц: 3»: a PDF's pages
    are counted when it starts, its bytes read by then), and how many of all are done. Output
    printed while it runs goes through `above()`, so the two never share a line.
    """

    def __init__(self, stream: TextIO, files: Sequence[Planned]) -> None:
        self._stream = stream
        self._enabled = _is_terminal(stream)
        self._total = len(files)
        self._done = 0
        self._running: dict[Path, float] = {}
        self._stages: dict[Path, str] = {}
        self._lock = threading.Lock()
        self._drawing = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = time.monotonic()

    @property
    def enabled(self) -> bool:
        return self._enabled

    def __call__(self, event: str, file: Planned | None) -> None:
        if not self._enabled or file is None:
            return
        stage = _stage(file, page_count(file.data, file.file_type)) if event == "start" else ""
        with self._lock:
            if event == "start":
                self._running[file.path] = time.monotonic()
                self._stages[file.path] = stage
            elif event == "done":
                self._running.pop(file.path, None)
                self._done += 1

    def __enter__(self) -> ProgressLine:
        if self._enabled:
            self._thread = threading.Thread(target=self._redraw, name="progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @contextmanager
    def above(self) -> Iterator[None]:
        """`with line.above(): print(…)`: the line is erased while the block prints, and
        redrawn at its next tick below what was printed."""
        if self._thread is None:
            yield
            return
        with self._drawing:
            self._write("\r\x1b[2K")
            yield

    def stop(self) -> None:
        """Erase the line and stop redrawing it (idempotent), before the output is printed."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
            self._write("\r\x1b[2K")

    def _redraw(self) -> None:
        while not self._stop.wait(_REDRAW_SECONDS):
            with self._drawing:
                self._write("\r\x1b[2K" + self.text())

    def text(self) -> str:
        """The line as it is now, in the analyst's Russian: «[готово 1 из 3] big.xlsx: чтение
        книги XLSX, 4,2 с»."""
        now = time.monotonic()
        with self._lock:
            running = [
                f"{path.name}: {self._stages.get(path, 'распознаётся')}, {seconds(now - since)}"
                for path, since in self._running.items()
            ]
            done = self._done
        head = f"[готово {done} из {self._total}] " if self._total > 1 else ""
        body = "; ".join(running) if running else f"ожидание, {seconds(now - self._started)}"
        return head + body

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):
            self._stop.set()


def _stage(file: Planned, pages: int | None) -> str:
    if file.service == "tabular-parser":
        return f"чтение книги {file.file_type}"
    if file.file_type == "PDF" and pages is not None:
        return f"текстовый слой / OCR, страниц: {pages}"
    return "OCR, страниц: 1"


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
