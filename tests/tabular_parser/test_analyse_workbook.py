"""A whole workbook through the tabular recogniser's child-process entry point: trial balances
and statements side by side, other sheets as SHEET_OTHER, group_schema by what was found."""

from __future__ import annotations

import pytest

from services.contract import Kind, validate
from services.runtime.recognizer import ErrorCode, Recognition, RecognitionFailed
from services.tabular_parser.recognizer import recognize_bytes
from tests.builders import SheetSpec, spec_of, write_xls, write_xlsb, write_xlsx
from tests.tabular_parser.osv._builder import osv_sheet
from tests.tabular_parser.osv._fixtures import GENERAL_ROWS, GENERAL_TOTAL
from tests.tabular_parser.statements._forms import onec_balance, onec_income, other_sheet

WRITERS = {"XLSX": write_xlsx, "XLS": write_xls, "XLSB": write_xlsb}


def _osv_spec(name: str = "ОСВ") -> SheetSpec:
    return spec_of(osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, sheet_name=name).sheet)


def _result_file(recognition: Recognition) -> dict[str, object]:
    """The result file the protocol would write, to check the recognition against the schema."""
    service: dict[str, object] = {"name": "tabular-parser", "version": "test"}
    if recognition.statements_version is not None:
        service["statements_version"] = recognition.statements_version
    return {
        "schema_version": "2.0",
        "job_id": "6f1c1f3e-0000-4000-8000-000000000001",
        "file_id": "6f1c1f3e-0000-4000-8000-000000000002",
        "status": recognition.status,
        "service": service,
        "group_schema": recognition.group_schema,
        "documents": recognition.documents,
        "metrics": {"duration_ms": 0, "warnings": recognition.warnings},
    }


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_trial_balance_and_statements_in_one_workbook_are_mixed(fmt: str) -> None:
    """ОСВ + balance + ОФР + a reference sheet: three documents in sheet order, "mixed",
    the statements version set, the reference sheet a SHEET_OTHER warning with its locator."""
    data = WRITERS[fmt]([_osv_spec(), onec_balance(), onec_income(), other_sheet("Справка")])

    recognition = recognize_bytes(data)

    assert [d["document_type"] for d in recognition.documents] == ["OSV", "BALANCE", "INCOME"]
    assert recognition.group_schema == "mixed"
    assert recognition.statements_version is not None
    assert recognition.statements_version.startswith("arm_statements-")
    assert [(w["code"], w["severity"], w["locator"]) for w in recognition.warnings] == [
        ("SHEET_OTHER", "info", {"sheet": "Справка"})
    ]
    assert validate(Kind.RESULT, _result_file(recognition)) == []


def test_trial_balances_only_are_osv_without_statements_version() -> None:
    """Two ОСВ sheets: two osvDocuments, group_schema "osv", no statements version."""
    data = write_xlsx([_osv_spec("Январь"), _osv_spec("Февраль")])

    recognition = recognize_bytes(data)

    assert [d["locator"]["sheet"] for d in recognition.documents] == ["Январь", "Февраль"]
    assert recognition.group_schema == "osv"
    assert recognition.statements_version is None
    assert recognition.status == "done"
    assert validate(Kind.RESULT, _result_file(recognition)) == []


def test_statements_only_are_rsbu() -> None:
    """Balance and ОФР without an ОСВ: group_schema "rsbu"."""
    recognition = recognize_bytes(write_xlsx([onec_balance(), onec_income()]))

    assert {d["document_type"] for d in recognition.documents} == {"BALANCE", "INCOME"}
    assert recognition.group_schema == "rsbu"
    assert validate(Kind.RESULT, _result_file(recognition)) == []


def test_a_workbook_without_any_known_document_is_recognition_failed() -> None:
    """Only reference sheets: nothing to produce, so the job is an error naming the sheets."""
    with pytest.raises(RecognitionFailed) as caught:
        recognize_bytes(write_xlsx([other_sheet("Справка"), other_sheet("Реестр")]))

    assert caught.value.code == ErrorCode.RECOGNITION_FAILED
    assert "«Справка»" in caught.value.message and "«Реестр»" in caught.value.message


def test_not_a_workbook_is_unsupported_and_a_damaged_one_unreadable() -> None:
    """The signature decides UNSUPPORTED_FORMAT; an Excel signature that cannot be opened is
    UNREADABLE."""
    with pytest.raises(RecognitionFailed) as not_excel:
        recognize_bytes(b"%PDF-1.7 not a workbook")
    whole = write_xlsx([_osv_spec()])
    damaged = whole[: len(whole) // 2]  # local headers name the workbook; the directory is gone
    with pytest.raises(RecognitionFailed) as broken:
        recognize_bytes(damaged)

    assert not_excel.value.code == ErrorCode.UNSUPPORTED_FORMAT
    assert broken.value.code == ErrorCode.UNREADABLE
