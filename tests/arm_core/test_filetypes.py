"""File type detection: the signature and the extension must agree."""

from __future__ import annotations

import io
import zipfile

import pytest

from services.arm_core.exceptions import UploadRejected
from services.arm_core.filetypes import detect_type, sniff, type_from_name

EXTENSIONS = {
    "XLSX": "xlsx",
    "XLS": "xls",
    "XLSB": "xlsb",
    "PDF": "pdf",
    "PNG": "png",
    "JPG": "jpg",
}


@pytest.mark.parametrize("file_type", list(EXTENSIONS))
def test_each_supported_type_is_recognised_by_its_content(
    sample_files: dict[str, bytes], file_type: str
) -> None:
    """A real file of each supported type is sniffed as that type."""
    assert sniff(sample_files[file_type]) == file_type


@pytest.mark.parametrize(
    ("file_type", "pipeline"),
    [
        ("XLSX", "tabular"),
        ("XLS", "tabular"),
        ("XLSB", "tabular"),
        ("PDF", "image"),
        ("PNG", "image"),
        ("JPG", "image"),
    ],
)
def test_type_decides_the_pipeline(
    sample_files: dict[str, bytes], file_type: str, pipeline: str
) -> None:
    """Excel goes to the tabular pipeline, PDF and images to the image pipeline."""
    detected = detect_type(f"report.{EXTENSIONS[file_type]}", sample_files[file_type])
    assert (detected.file_type, detected.pipeline) == (file_type, pipeline)


def test_jpeg_extension_and_upper_case_are_accepted(sample_files: dict[str, bytes]) -> None:
    """`.jpeg` and `.JPG` both name JPG."""
    assert detect_type("scan.jpeg", sample_files["JPG"]).file_type == "JPG"
    assert detect_type("SCAN.JPG", sample_files["JPG"]).file_type == "JPG"


def test_a_lying_extension_is_a_mismatch(sample_files: dict[str, bytes]) -> None:
    """A PDF named .xlsx is refused with 422, naming both types."""
    with pytest.raises(UploadRejected) as info:
        detect_type("balance.xlsx", sample_files["PDF"])
    assert info.value.status == 422
    assert "XLSX" in info.value.detail and "PDF" in info.value.detail


def test_xlsx_named_xlsb_is_a_mismatch(sample_files: dict[str, bytes]) -> None:
    """Two ZIP-based workbooks are told apart by their workbook part."""
    with pytest.raises(UploadRejected) as info:
        detect_type("balance.xlsb", sample_files["XLSX"])
    assert info.value.status == 422


@pytest.mark.parametrize("name", ["notes.txt", "archive.zip", "noextension", ".xlsx"])
def test_unsupported_extension_is_415(sample_files: dict[str, bytes], name: str) -> None:
    """An extension outside the supported list is refused with 415."""
    with pytest.raises(UploadRejected) as info:
        detect_type(name, sample_files["XLSX"])
    assert info.value.status == 415


def test_unknown_content_with_a_good_extension_is_415() -> None:
    """Text named .pdf is not a PDF."""
    with pytest.raises(UploadRejected) as info:
        detect_type("report.pdf", b"just some text, not a document")
    assert info.value.status == 415


def test_a_zip_without_a_workbook_is_not_excel() -> None:
    """A plain ZIP (e.g. a .docx) named .xlsx is refused."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("word/document.xml", "<w/>")
    assert sniff(out.getvalue()) is None


def test_a_truncated_zip_is_not_excel(sample_files: dict[str, bytes]) -> None:
    """A ZIP cut in half (no central directory) is not taken for a workbook."""
    assert sniff(sample_files["XLSX"][:200]) is None


def test_type_from_name_reads_only_the_last_extension() -> None:
    """`a.pdf.xlsx` claims XLSX; a name without a stem claims nothing."""
    assert type_from_name("a.pdf.xlsx") == "XLSX"
    assert type_from_name(".pdf") is None
