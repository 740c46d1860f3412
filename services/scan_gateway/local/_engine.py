"""The local recogniser: a file → a result set in the scanning system's item format.

Runs in a worker process (services.runtime.sandbox): PDF pages with a text layer are read
directly by pdfplumber (confidence 100); pages without one, and PNG / JPG files, go through
Tesseract (rus + eng) via pytesseract's `image_to_data`, which gives words with boxes and
confidences. Raster PDF pages are rendered with pypdfium2. Without the tesseract binary such
files raise `OcrUnavailable` saying what is missing.
"""

from __future__ import annotations

import io
import json
import shutil
from typing import Any

from services.scan_gateway.errors import OcrUnavailable
from services.scan_gateway.local._layout import PlacedWord, layout_page
from services.scan_gateway.resultset import Item, item_to_json

__all__ = ["OCR_LANGUAGES", "recognise_to_items"]

OCR_LANGUAGES = "rus+eng"
_MAX_PAGES = 50
# Tesseract: one uniform block of text keeps table rows as lines.
_TESSERACT_CONFIG = "--psm 6 -c preserve_interword_spaces=1"


def recognise_to_items(
    data: bytes, file_type: str, tesseract_cmd: str = "tesseract", dpi: int = 300
) -> dict[str, bytes]:
    """Item name → item JSON bytes for every page of the file."""
    if file_type == "PDF":
        items = _pdf(data, tesseract_cmd, dpi)
    elif file_type in ("PNG", "JPG"):
        from PIL import Image

        image = Image.open(io.BytesIO(data))
        items = [_ocr(image, 1, tesseract_cmd)]
    else:
        raise OcrUnavailable(f"the local recogniser does not read {file_type} files")
    return {
        item.name: json.dumps(item_to_json(item), ensure_ascii=False).encode("utf-8")
        for item in items
    }


def _pdf(data: bytes, tesseract_cmd: str, dpi: int) -> list[Item]:
    import pdfplumber

    items: list[Item] = []
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        raster: list[int] = []
        for number, page in enumerate(pdf.pages[:_MAX_PAGES], start=1):
            words = page.extract_words(keep_blank_chars=False, use_text_flow=False)
            if words:
                items.append(layout_page([_pdf_word(w) for w in words], number))
            else:
                raster.append(number)
    if raster:
        import pypdfium2

        document = pypdfium2.PdfDocument(data)
        try:
            for number in raster:
                image = document[number - 1].render(scale=dpi / 72).to_pil()
                items.append(_ocr(image, number, tesseract_cmd))
        finally:
            document.close()
    return sorted(items, key=lambda i: i.page)


def _pdf_word(word: dict[str, Any]) -> PlacedWord:
    return PlacedWord(
        text=str(word["text"]),
        x0=float(word["x0"]),
        x1=float(word["x1"]),
        top=float(word["top"]),
        bottom=float(word["bottom"]),
        confidence=100.0,
    )


def _ocr(image: Any, page: int, tesseract_cmd: str) -> Item:
    import pytesseract

    if shutil.which(tesseract_cmd) is None:
        raise OcrUnavailable(
            f"Tesseract OCR is not installed (no {tesseract_cmd!r} on PATH): raster PDF pages, "
            "PNG and JPG files need it (install tesseract-ocr with the rus and eng languages, "
            "or configure OPENBAO__SCAN__SCAN_URL)"
        )
    pytesseract.pytesseract.tesseract_cmd = tesseract_cmd
    try:
        data = pytesseract.image_to_data(
            image.convert("L"),
            lang=OCR_LANGUAGES,
            config=_TESSERACT_CONFIG,
            output_type=pytesseract.Output.DICT,
        )
    except pytesseract.TesseractError as exc:
        raise OcrUnavailable(f"Tesseract failed: {str(exc)[:200]}") from None
    words: list[PlacedWord] = []
    for i, text in enumerate(data["text"]):
        confidence = float(data["conf"][i])
        if not str(text).strip() or confidence < 0:
            continue
        left, top = float(data["left"][i]), float(data["top"][i])
        words.append(
            PlacedWord(
                text=str(text).strip(),
                x0=left,
                x1=left + float(data["width"][i]),
                top=top,
                bottom=top + float(data["height"][i]),
                confidence=round(confidence, 1),
            )
        )
    return layout_page(words, page)
