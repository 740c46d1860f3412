"""Tesseract in the worker's process (its library) against the command line: the same words,
nothing left behind from one reading to the next, one OpenMP thread, the command for an
operator's own Tesseract."""

from __future__ import annotations

import ctypes.util
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from services.scan_gateway.local import _tesseract
from services.scan_gateway.local._raster import prepare_page
from services.scan_gateway.local._tesseract import read_words

from ._forms import font_path, render_pdf, render_png

pytestmark = [
    pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with"),
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract"),
]
needs_library = pytest.mark.skipif(
    ctypes.util.find_library("tesseract") is None, reason="no libtesseract"
)
_REPO = Path(__file__).resolve().parents[2]
_PAGE = "--psm 6 -c preserve_interword_spaces=1"
_AMOUNT = "--psm 7 -c tessedit_char_whitelist=0123456789()-,."
_CODE = "--psm 13 -c tessedit_char_whitelist=0123456789"


def _page(dpi: int) -> Any:
    from PIL import Image

    return prepare_page(Image.open(io.BytesIO(render_png(render_pdf(), 0, dpi=dpi)))).image


@needs_library
@pytest.mark.parametrize("dpi", [300, 150])
def test_the_library_reads_what_the_command_reads(dpi: int) -> None:
    """The page, a row of figures, a row of words and a code cell, each in its own mode and
    whitelist: the library's words, boxes and confidences are the command's."""
    page = _page(dpi)
    width, height = page.size
    readings = [
        (page, _PAGE),
        (page.crop((width * 2 // 5, height // 6, width * 3 // 5, height // 6 + 120)), _AMOUNT),
        (page.crop((width // 20, height // 6, width * 2 // 5, height // 6 + 120)), "--psm 7"),
        (page.crop((width // 3, height // 4, width // 2, height // 4 + 100)), _CODE),
    ]
    for image, config in readings:
        assert _tesseract._library("rus+eng") is not None
        from_library = read_words(image, "tesseract", "rus+eng", config)
        from_command = _tesseract._command(image, "tesseract", "rus+eng", config)
        assert from_library == from_command, config
    assert len(read_words(page, "tesseract", "rus+eng", _PAGE)) > 100


@needs_library
def test_a_reading_leaves_no_whitelist_behind() -> None:
    """A digits-only reading, then a plain one of words: the words come back with their
    letters, as the command (a fresh process) reads them."""
    page = _page(150)
    width, height = page.size
    words = page.crop((width // 20, height // 6, width * 2 // 5, height // 6 + 120))
    digits_only = read_words(words, "tesseract", "rus+eng", _AMOUNT)
    plain = read_words(words, "tesseract", "rus+eng", "--psm 7")
    assert plain == _tesseract._command(words, "tesseract", "rus+eng", "--psm 7")
    assert any(ch.isalpha() for w in plain for ch in w.text)
    assert not any(ch.isalpha() for w in digits_only for ch in w.text)


@needs_library
def test_the_default_command_reads_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the default `tesseract` no process is started for a reading."""

    def no_command(*args: object) -> object:
        raise AssertionError("the command line was run")

    monkeypatch.setattr(_tesseract, "_command", no_command)
    assert read_words(_page(150).crop((0, 0, 900, 300)), "tesseract", "rus+eng", _PAGE)


def test_an_operators_own_tesseract_is_run_as_a_command(tmp_path: Path) -> None:
    """`tesseract_cmd` naming another binary: that binary reads (here a wrapper that counts)."""
    seen = tmp_path / "runs"
    wrapper = tmp_path / "tesseract"
    wrapper.write_text(f'#!/bin/sh\necho run >> {seen}\nexec {shutil.which("tesseract")} "$@"\n')
    wrapper.chmod(0o755)
    found = read_words(_page(150).crop((0, 0, 900, 300)), str(wrapper), "rus+eng", _PAGE)
    assert found and seen.read_text().split() == ["run"]


@needs_library
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: OpenMP starts no thread anyway")
@pytest.mark.parametrize(("given", "threads"), [(None, 1), ("2", 2)], ids=["default", "own"])
def test_the_library_runs_one_openmp_thread_unless_the_operator_says(
    given: str | None, threads: int
) -> None:
    """A fresh process reads a page through the library: its only thread is its own (the
    pages run side by side in the sandbox's workers); an operator's OMP_THREAD_LIMIT stands."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_THREAD_LIMIT"}
    if given is not None:
        env["OMP_THREAD_LIMIT"] = given
    script = (
        "import io, os\n"
        "from PIL import Image\n"
        "from tests.scan_gateway._forms import render_pdf, render_png\n"
        "from services.scan_gateway.local._tesseract import read_words\n"
        "page = Image.open(io.BytesIO(render_png(render_pdf(), 0, dpi=100))).convert('L')\n"
        "assert read_words(page, 'tesseract', 'rus+eng', '--psm 6')\n"
        "print(len(os.listdir('/proc/self/task')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=_REPO, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) == threads


@pytest.mark.parametrize(
    "config",
    ["--psm 7 -c tessedit_write_images=1", "--oem 0 --psm 6", "-c preserve_interword_spaces=1"],
)
def test_an_option_the_engine_cannot_reset_is_refused(config: str) -> None:
    """The engine outlives a reading: a variable it cannot put back, another option or no
    page segmentation mode is a programming error, said at once."""
    with pytest.raises(ValueError):
        _tesseract._parsed(config)


@needs_library
def test_the_librarys_diagnostics_stay_out_of_the_service_log(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A one-line strip of a page's corner makes the library print its baseline statistics
    («Bottom=0, top=50…»); they were the command's, on a pipe nobody read, and are not the
    worker's log lines."""
    from PIL import Image

    corner = Image.open(io.BytesIO(render_png(render_pdf(), 0, dpi=100))).convert("L")
    capfd.readouterr()
    read_words(corner.crop((0, 0, 300, 50)), "tesseract", "rus+eng", "--psm 7")
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("size", [(0, 40), (120, 0)])
@pytest.mark.parametrize("command", ["tesseract", "own"])
def test_an_image_without_pixels_has_no_words(size: tuple[int, int], command: str) -> None:
    """A cell cut to nothing (a box at the page's edge) reads as no words, by either engine."""
    from PIL import Image

    tesseract = "tesseract" if command == "tesseract" else shutil.which("tesseract") or "x"
    assert read_words(Image.new("L", size, 255), tesseract, "rus+eng", _AMOUNT) == []
