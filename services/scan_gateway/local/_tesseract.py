"""Tesseract, run in the worker's own process through its C API when the library is there.

Why: the command line pays a process start and a model load for every image (about 0.25 s
for rus+eng here) and a page is read in many images — the page, then each comb and each
doubtful cell again — so the re-reads, not the reading, were most of a page's time (decision
0040). `tesseract` itself is a thin shell over the same library: given the same pixels, page
segmentation mode and variables, the library returns the command's words, boxes and
confidences (a test holds the two equal), once the model is loaded, in milliseconds.

The command line stays for an operator who names their own Tesseract (`tesseract_cmd` other
than the default `tesseract`) and for a machine without the shared library.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import os
import threading
from dataclasses import dataclass
from typing import Any

from services.scan_gateway.exceptions import OcrUnavailable
from services.scan_gateway.local._layout import PlacedWord

__all__ = ["read_words"]

_DEFAULT_CMD = "tesseract"
# The variables a reading may set, with the value they go back to for the next one (the engine
# outlives a reading: a whitelist left behind would cripple the next page).
_VARIABLE_DEFAULTS = {"tessedit_char_whitelist": "", "preserve_interword_spaces": "0"}
_OEM_DEFAULT = 3  # TessOcrEngineMode OEM_DEFAULT, as the command line's own default


@dataclass(frozen=True, slots=True)
class _Config:
    psm: int
    variables: tuple[tuple[str, str], ...]


def read_words(image: Any, tesseract_cmd: str, languages: str, config: str) -> list[PlacedWord]:
    """The words Tesseract reads in the PIL image (`config`: «--psm N [-c name=value]…»)."""
    # Tesseract's OpenMP threads only fight the pages read side by side in the sandbox's
    # workers (and each other) on a few cores: a 300-dpi page took 15.8 s with them and 1.9 s
    # with one thread on a 2-core machine (decision 0040). An operator's own limit stands.
    # (Set before the library loads: OpenMP reads it once.)
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    if image.width == 0 or image.height == 0:  # a cell cut to nothing: no words, no error
        return []
    engine = _library(languages) if tesseract_cmd == _DEFAULT_CMD else None
    if engine is not None:
        return engine.read(image, _parsed(config))
    return _command(image, tesseract_cmd, languages, config)


def _parsed(config: str) -> _Config:
    tokens = config.split()
    psm: int | None = None
    variables: list[tuple[str, str]] = []
    i = 0
    while i < len(tokens):
        if tokens[i] == "--psm" and i + 1 < len(tokens):
            psm = int(tokens[i + 1])
        elif tokens[i] == "-c" and i + 1 < len(tokens) and "=" in tokens[i + 1]:
            name, value = tokens[i + 1].split("=", 1)
            if name not in _VARIABLE_DEFAULTS:
                raise ValueError(f"Tesseract variable {name!r} has no known default to restore")
            variables.append((name, value))
        else:
            raise ValueError(f"unsupported Tesseract option {tokens[i]!r} in {config!r}")
        i += 2
    if psm is None:
        raise ValueError(f"no --psm in {config!r}")
    return _Config(psm, tuple(variables))


def _command(image: Any, tesseract_cmd: str, languages: str, config: str) -> list[PlacedWord]:
    import pytesseract

    pytesseract.pytesseract.tesseract_cmd = tesseract_cmd
    try:
        data = pytesseract.image_to_data(image, lang=languages, config=config)
    except pytesseract.TesseractError as exc:
        raise OcrUnavailable(f"Tesseract failed: {str(exc)[:200]}") from None
    return _words(data)


def _words(tsv: str) -> list[PlacedWord]:
    """Words of Tesseract's TSV (level … left top width height conf text), the header skipped."""
    words: list[PlacedWord] = []
    for line in tsv.splitlines():
        fields = line.split("\t")
        if len(fields) < 12 or not fields[0].isdigit():
            continue
        text = fields[11].strip()
        confidence = float(fields[10])
        if not text or confidence < 0:
            continue
        left, top = float(fields[6]), float(fields[7])
        words.append(
            PlacedWord(
                text=text,
                x0=left,
                x1=left + float(fields[8]),
                top=top,
                bottom=top + float(fields[9]),
                confidence=round(confidence, 1),
            )
        )
    return words


class _Library:
    """One initialised TessBaseAPI for the process's life (one reading at a time)."""

    def __init__(self, lib: Any, languages: str) -> None:
        self._lib = lib
        self._lock = threading.Lock()
        self._handle = lib.TessBaseAPICreate()
        if lib.TessBaseAPIInit2(self._handle, None, languages.encode(), _OEM_DEFAULT) != 0:
            lib.TessBaseAPIDelete(self._handle)
            raise OSError(f"Tesseract could not load the {languages} language data")
        # Its diagnostics («Bottom=0, top=50…» for a cell with one line) are no log lines of
        # ours: the command printed them to a pipe nobody read.
        lib.TessBaseAPISetVariable(self._handle, b"debug_file", os.devnull.encode())
        atexit.register(self._close)  # else the library's caches complain of leaks at exit

    def _close(self) -> None:
        with self._lock:
            self._lib.TessBaseAPIEnd(self._handle)
            self._lib.TessBaseAPIDelete(self._handle)

    def read(self, image: Any, config: _Config) -> list[PlacedWord]:
        if "A" in image.getbands():  # as the command line is given it: alpha onto white
            from PIL import Image

            background = Image.new("RGB", image.size, (255, 255, 255))
            background.paste(image, (0, 0), image.getchannel("A"))
            image = background
        if image.mode not in ("L", "RGB"):
            image = image.convert("RGB" if len(image.getbands()) >= 3 else "L")
        depth = 1 if image.mode == "L" else 3
        pixels = image.tobytes()
        lib, handle = self._lib, self._handle
        with self._lock:
            settings = dict(_VARIABLE_DEFAULTS)
            settings.update(config.variables)
            for name, value in settings.items():
                lib.TessBaseAPISetVariable(handle, name.encode(), value.encode())
            lib.TessBaseAPISetPageSegMode(handle, config.psm)
            lib.TessBaseAPISetImage(
                handle, pixels, image.width, image.height, depth, image.width * depth
            )
            if lib.TessBaseAPIRecognize(handle, None) != 0:
                lib.TessBaseAPIClear(handle)
                raise OcrUnavailable("Tesseract failed to recognise the image")
            text = lib.TessBaseAPIGetTsvText(handle, 0)
            try:
                tsv = ctypes.string_at(text).decode("utf-8", "replace") if text else ""
            finally:
                if text:
                    lib.TessDeleteText(text)
                lib.TessBaseAPIClear(handle)
        return _words(tsv)


_engines: dict[str, _Library | None] = {}
_engines_lock = threading.Lock()


def _library(languages: str) -> _Library | None:
    """The process's engine for `languages`, or None when the shared library is not there."""
    with _engines_lock:
        if languages not in _engines:
            _engines[languages] = _load(languages)
        return _engines[languages]


def _load(languages: str) -> _Library | None:
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # OpenMP reads it once, as the library loads
    name = ctypes.util.find_library("tesseract")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return None
    p = ctypes.c_void_p
    signatures: dict[str, tuple[Any, list[Any]]] = {
        "TessBaseAPICreate": (p, []),
        "TessBaseAPIInit2": (ctypes.c_int, [p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]),
        "TessBaseAPISetVariable": (ctypes.c_int, [p, ctypes.c_char_p, ctypes.c_char_p]),
        "TessBaseAPISetPageSegMode": (None, [p, ctypes.c_int]),
        "TessBaseAPISetImage": (
            None,
            [p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int],
        ),
        "TessBaseAPIRecognize": (ctypes.c_int, [p, p]),
        "TessBaseAPIGetTsvText": (p, [p, ctypes.c_int]),
        "TessDeleteText": (None, [p]),
        "TessBaseAPIClear": (None, [p]),
        "TessBaseAPIEnd": (None, [p]),
        "TessBaseAPIDelete": (None, [p]),
    }
    try:
        for function, (restype, argtypes) in signatures.items():
            bound = getattr(lib, function)
            bound.restype = restype
            bound.argtypes = argtypes
        return _Library(lib, languages)
    except (AttributeError, OSError):
        return None
