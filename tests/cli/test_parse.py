"""Local parsing through the real entry points: `arm-ka parse` and `python -m services.<svc>`.

Each test writes a real workbook or PDF, runs the command as a subprocess and checks what it
printed and its exit code: the result file must satisfy the 2.0 contract (the same document
the service writes), the summary must name documents and failed checks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.contract import Kind, validate
from tests.builders import SheetSpec, spec_of, write_xls, write_xlsb, write_xlsx
from tests.builders.ledger import account_analysis
from tests.cli._run import arm_ka, python_m
from tests.scan_gateway._forms import font_path, render_pdf
from tests.tabular_parser.osv._builder import R, osv_sheet
from tests.tabular_parser.statements._forms import (
    find_cell,
    onec_balance,
    onec_income,
    onec_workbook,
    with_cell,
)


def _osv_spec() -> SheetSpec:
    """A 1C ОСВ laid out by the ОСВ tests' builder, as a spec the writers take."""
    built = osv_sheet(
        [
            R("51", "Расчетные счета", ("1000", None, "500", "300", "1200", None)),
            R("60", "Расчеты с поставщиками", (None, "1000", "300", "500", None, "1200")),
        ],
        ("1000", "1000", "800", "800", "1200", "1200"),
    )
    return spec_of(built.sheet)


def _json(stdout: str) -> dict[str, object]:
    body = json.loads(stdout)
    assert isinstance(body, dict)
    return body


def test_tabular_parser_module_prints_a_contract_valid_result_file(tmp_path: Path) -> None:
    """`python -m services.tabular_parser FILE` prints the 2.0 result file of a statements
    workbook (valid against the contract), exit 0."""
    path = tmp_path / "onec.xlsx"
    path.write_bytes(write_xlsx(onec_workbook()))
    run = python_m("services.tabular_parser", str(path))
    assert run.returncode == 0, run.stderr
    body = _json(run.stdout)
    assert validate(Kind.RESULT, body) == []
    assert body["status"] == "done"
    assert body["service"]["name"] == "tabular-parser"  # type: ignore[index]
    types = [doc["document_type"] for doc in body["documents"]]  # type: ignore[attr-defined]
    assert types == ["BALANCE", "INCOME"]


def test_tabular_parser_module_reads_an_osv(tmp_path: Path) -> None:
    """An ОСВ workbook becomes one OSV document with its account rows (group_schema osv)."""
    path = tmp_path / "osv.xlsx"
    path.write_bytes(write_xlsx([_osv_spec()]))
    run = python_m("services.tabular_parser", str(path))
    assert run.returncode == 0, run.stderr
    body = _json(run.stdout)
    assert validate(Kind.RESULT, body) == []
    assert body["group_schema"] == "osv"
    documents = body["documents"]
    assert isinstance(documents, list)
    (document,) = documents
    assert document["document_type"] == "OSV"
    accounts = [row["account"] for row in document["rows"] if row["kind"] == "account"]
    assert accounts == ["51", "60"]


@pytest.mark.parametrize(("suffix", "write"), [("xls", write_xls), ("xlsb", write_xlsb)])
def test_arm_ka_parse_summary_of_xls_and_xlsb(tmp_path: Path, suffix: str, write: object) -> None:
    """`arm-ka parse FILE` (summary by default) names each document with its variant, status
    and size, for XLS and XLSB alike."""
    path = tmp_path / f"income.{suffix}"
    path.write_bytes(write([onec_income()]))  # type: ignore[operator]
    run = arm_ka("parse", str(path))
    assert run.returncode == 0, run.stderr
    assert f"income.{suffix} ({suffix.upper()}) — готово" in run.stdout
    assert "1. ОФР (полная) — готово, " in run.stdout
    assert "проверки: все выполнены" in run.stdout


def test_arm_ka_parse_summary_lists_a_failed_relation(tmp_path: Path) -> None:
    """A balance whose section total does not add up is needs_check (exit 0) and the summary
    names the failed relation and its warning."""
    balance = onec_balance()
    row, col = find_cell(balance, "1210")  # «Запасы»: 15400 → 16400 breaks 1200 = Σ
    path = tmp_path / "broken.xlsx"
    path.write_bytes(write_xlsx([with_cell(balance, row, col + 1, 16400)]))
    run = arm_ka("parse", "--summary", str(path))
    assert run.returncode == 0, run.stderr
    assert "— нужна проверка" in run.stdout
    assert "не выполнено проверок: " in run.stdout
    assert "соотношение 1200=" in run.stdout
    assert "RELATION_FAILED (ошибка)" in run.stdout


def test_arm_ka_parse_json_is_the_result_file(tmp_path: Path) -> None:
    """`arm-ka parse --json` prints the same contract-valid result file as the service command."""
    path = tmp_path / "onec.xlsx"
    path.write_bytes(write_xlsx(onec_workbook()))
    body = _json(arm_ka("parse", "--json", str(path)).stdout)
    assert validate(Kind.RESULT, body) == []
    assert body["group_schema"] == "rsbu"


def test_a_file_that_is_no_workbook_is_an_error_body_with_exit_2(tmp_path: Path) -> None:
    """Bytes named .xlsx that are no workbook: the error envelope's shape (status error,
    UNSUPPORTED_FORMAT), exit code 2, no traceback."""
    path = tmp_path / "fake.xlsx"
    path.write_bytes(b"just some text, not a spreadsheet\n" * 10)
    run = python_m("services.tabular_parser", str(path))
    assert run.returncode == 2
    body = _json(run.stdout)
    assert body["status"] == "error"
    assert body["error"]["code"] == "UNSUPPORTED_FORMAT"  # type: ignore[index]
    assert "Traceback" not in run.stderr


def test_a_workbook_of_ledger_reports_is_an_error_body_with_its_sheet_warnings(
    tmp_path: Path,
) -> None:
    """An «Анализ счета 51» alone: RECOGNITION_FAILED (exit 2) whose metrics.warnings hold the
    SHEET_OTHER the parser found, as the service's envelope does (issue 17.18)."""
    path = tmp_path / "analysis.xlsx"
    path.write_bytes(write_xlsx([account_analysis("51", "Анализ")]))
    run = arm_ka("parse", "--json", str(path))
    assert run.returncode == 2
    body = _json(run.stdout)
    assert validate(Kind.RESULT_MESSAGE, body) == []
    assert body["error"]["code"] == "RECOGNITION_FAILED"  # type: ignore[index]
    warnings = body["metrics"]["warnings"]  # type: ignore[index]
    assert [(w["code"], w["locator"]) for w in warnings] == [("SHEET_OTHER", {"sheet": "Анализ"})]


def test_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    """A path that does not exist: a one-line message naming it, exit 64, no traceback."""
    missing = tmp_path / "nowhere.xlsx"
    for run in (arm_ka("parse", str(missing)), python_m("services.tabular_parser", str(missing))):
        assert run.returncode == 64
        assert f"файл не найден: {missing}" in run.stderr
        assert "Traceback" not in run.stderr
        assert run.stdout == ""


def test_scan_gateway_module_refuses_an_excel_file(tmp_path: Path) -> None:
    """`python -m services.scan_gateway` handles PDF/PNG/JPG only: an XLSX is a usage error."""
    path = tmp_path / "onec.xlsx"
    path.write_bytes(write_xlsx([onec_income()]))
    run = python_m("services.scan_gateway", str(path))
    assert run.returncode == 64
    assert "scan-gateway handles JPG, PDF, PNG" in run.stderr


@pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to draw the PDF")
def test_scan_gateway_module_reads_a_text_pdf(tmp_path: Path) -> None:
    """A text-layer PDF goes through the scan-gateway's local recogniser with no S3 (no raw
    archive) and gives a contract-valid result with both forms."""
    path = tmp_path / "forms.pdf"
    path.write_bytes(render_pdf())
    run = python_m("services.scan_gateway", str(path))
    assert run.returncode == 0, run.stderr
    body = _json(run.stdout)
    assert validate(Kind.RESULT, body) == []
    assert body["service"]["name"] == "scan-gateway"  # type: ignore[index]
    assert [d["document_type"] for d in body["documents"]] == ["BALANCE", "INCOME"]  # type: ignore[attr-defined]


@pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to draw the PDF")
def test_arm_ka_parse_sends_a_pdf_named_anything_to_the_scan_gateway(tmp_path: Path) -> None:
    """The type comes from the signature first: a PDF with no extension is still a PDF."""
    path = tmp_path / "scan-without-extension"
    path.write_bytes(render_pdf())
    run = arm_ka("parse", str(path))
    assert run.returncode == 0, run.stderr
    assert "scan-without-extension (PDF) — готово" in run.stdout
    assert "сервис: scan-gateway" in run.stdout
    assert "страница 1" in run.stdout


def test_help_is_available_for_every_command() -> None:
    """`--help` works on the CLI and each command and exits 0."""
    for args in ((), ("parse",), ("recognize",), ("job",)):
        run = arm_ka(*args, "--help")
        assert run.returncode == 0
        assert "usage: arm-ka" in run.stdout
    assert (
        "faststream run services.tabular_parser.app:create_app"
        in python_m("services.tabular_parser", "--help").stdout
    )


def test_bad_arguments_exit_with_the_usage_code() -> None:
    """An unknown command is a usage error (64), distinct from a recognition error (2)."""
    run = arm_ka("frobnicate")
    assert run.returncode == 64
    assert "invalid choice" in run.stderr
