"""The demo's sample files are what they claim: each recognised in process, no failed check."""

from __future__ import annotations

import pytest

from services.devstack._samples import font_path, samples
from services.tabular_parser.recognizer import recognize_bytes

_EXPECTED = {
    "osv-january-2025.xlsx": ["OSV"],
    "statements-2024.xlsx": ["BALANCE", "INCOME"],
    "balance-2024.xls": ["BALANCE"],
    "income-2024.xlsb": ["INCOME"],
}


@pytest.mark.parametrize("name", sorted(_EXPECTED))
def test_excel_sample_is_recognised_done(name: str) -> None:
    """Each Excel sample gives its documents, all done, with every relation holding."""
    sample = next(s for s in samples() if s.name == name)
    recognition = recognize_bytes(sample.data)
    assert [d["document_type"] for d in recognition.documents] == _EXPECTED[name]
    assert recognition.status == "done"
    for document in recognition.documents:
        failed = [item for items in document["checks"].values() for item in items]
        assert failed == []


def test_the_pdf_sample_is_there_when_a_font_is() -> None:
    """A Cyrillic font installed → the set has the PDF balance; otherwise it is left out."""
    names = {sample.name for sample in samples()}
    assert ("balance-2024.pdf" in names) is (font_path() is not None)
    pdf = next((s for s in samples() if s.name.endswith(".pdf")), None)
    if pdf is not None:
        assert pdf.data.startswith(b"%PDF-")
