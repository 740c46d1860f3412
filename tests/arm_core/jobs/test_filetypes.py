"""File type detection: the signature and the extension must agree."""

from __future__ import annotations

import io
import zipfile

import pytest

from services.arm_core.exceptions import (
    FileTypeMismatch,
    UnsupportedFileContent,
    UnsupportedFileType,
    UploadRejected,
)
from services.arm_core.jobs.filetypes import detect_type
from services.contract.filetypes import sniff, type_from_name

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
    assert isinstance(info.value, FileTypeMismatch)  # 422 in the API
    assert "XLSX" in info.value.detail and "PDF" in info.value.detail


def test_xlsx_named_xlsb_is_a_mismatch(sample_files: dict[str, bytes]) -> None:
    """Two ZIP-based workbooks are told apart by their workbook part."""
    with pytest.raises(UploadRejected) as info:
        detect_type("balance.xlsb", sample_files["XLSX"])
    assert isinstance(info.value, FileTypeMismatch)  # 422 in the API


@pytest.mark.parametrize("name", ["notes.txt", "archive.zip", "noextension", ".xlsx"])
def test_unsupported_extension_is_415(sample_files: dict[str, bytes], name: str) -> None:
    """An extension outside the supported list is refused with 415."""
    with pytest.raises(UploadRejected) as info:
        detect_type(name, sample_files["XLSX"])
    assert isinstance(info.value, UnsupportedFileType)  # 415 in the API


def test_unknown_content_with_a_good_extension_is_415() -> None:
    """Text named .pdf is not a PDF."""
    with pytest.raises(UploadRejected) as info:
        detect_type("report.pdf", b"just some text, not a document")
    assert isinstance(info.value, UnsupportedFileContent)  # 415 in the API


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


def _zip(parts: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
    return out.getvalue()


def _agreement_corpus(sample_files: dict[str, bytes]) -> dict[str, bytes]:
    """The supported files plus the edge cases the three sniffers used to disagree on."""
    xlsx = sample_files["XLSX"]
    central = xlsx.rfind(b"PK\x01\x02")
    return {
        **sample_files,
        "workbook part without [Content_Types].xml": _zip({"xl/workbook.xml": "<workbook/>"}),
        "upper-case part names": _zip(
            {"[CONTENT_TYPES].XML": "<Types/>", "XL/WORKBOOK.XML": "<workbook/>"}
        ),
        "central directory destroyed": xlsx[:central] + b"\0" * (len(xlsx) - central),
        "truncated zip": xlsx[:200],
        "plain zip": _zip({"word/document.xml": "<w/>"}),
        "OLE2 without a workbook stream": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600,
        "text": b"just some text",
    }


def test_core_parser_and_cli_agree_on_every_file(sample_files: dict[str, bytes]) -> None:
    """One sniffer: for each file the core accepts it as type T at upload (named .t) exactly
    when tabular-parser's `detect_format` (for workbooks) and the CLI's `file_type` say T, and
    it refuses it exactly when they find no workbook or image in it."""
    from services.cli._filetype import file_type
    from services.excel import detect_format

    seen = {}
    for label, data in _agreement_corpus(sample_files).items():
        found = sniff(data)
        seen[label] = found
        assert file_type("unnamed", data) == found, label
        excel = detect_format(data)
        assert excel == (found if found in {"XLS", "XLSX", "XLSB"} else None), label
        for claimed in ("xlsx", "xls", "xlsb", "pdf", "png", "jpg"):
            try:
                accepted = detect_type(f"f.{claimed}", data).file_type
            except UploadRejected:
                accepted = None
            assert accepted == (found if found is not None and found.lower() == claimed else None)
    # The cases themselves: an OPC package needs its content types; a damaged container that
    # names its workbook part goes on (the reader then says UNREADABLE and why).
    assert seen["workbook part without [Content_Types].xml"] is None
    assert seen["upper-case part names"] == "XLSX"
    assert seen["central directory destroyed"] == "XLSX"
    assert seen["truncated zip"] is None
    assert seen["OLE2 without a workbook stream"] is None
