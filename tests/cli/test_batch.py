"""`arm-ka parse` on several files or a folder, `--export`, `--json` bytes and the summaries
(issue 17 items 8, 10, 11), through the installed `arm-ka` as a subprocess."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from openpyxl import load_workbook

from services.cli._export import HEADINGS, INDEX_COLUMNS, INDEX_SHEET, OSV_COLUMNS
from services.cli._summary import summarise_result
from services.contract import Kind, validate
from tests.builders import SheetSpec, spec_of, write_xlsx
from tests.cli._run import arm_ka
from tests.tabular_parser.osv._builder import R, osv_sheet
from tests.tabular_parser.statements._forms import (
    ORG_INN,
    find_cell,
    onec_balance,
    onec_income,
    onec_workbook,
    with_cell,
)


def _osv() -> SheetSpec:
    built = osv_sheet(
        [
            R("51", "Расчетные счета", ("1000", None, "500", "300", "1200", None)),
            R("60", "Расчеты с поставщиками", (None, "1000", "300", "500", None, "1200")),
        ],
        ("1000", "1000", "800", "800", "1200", "1200"),
    )
    return spec_of(built.sheet)


def _without_inn(spec: SheetSpec) -> SheetSpec:
    while True:
        try:
            row, col = find_cell(spec, ORG_INN)
        except (LookupError, ValueError, AssertionError):
            return spec
        spec = with_cell(spec, row, col, None)


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "a-statements.xlsx").write_bytes(write_xlsx(onec_workbook()))
    (folder / "sub" / "b-osv.xlsx").write_bytes(write_xlsx([_osv()]))
    (folder / "notes.txt").write_text("not ours")  # not a supported extension: not taken
    return folder


def _json_lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_a_folder_gives_a_line_per_file_and_a_total(tmp_path: Path) -> None:
    """A folder stands for its supported files (recursively, sorted); each gets one line with
    its status and documents, then a total; two worker processes."""
    run = arm_ka("parse", str(_folder(tmp_path)), "--jobs", "2")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("done") and "a-statements.xlsx (XLSX): Баланс, ОФР" in lines[0]
    assert (
        lines[1].startswith("done")
        and "b-osv.xlsx (XLSX): ОСВ; не выполнено проверок: 0" in lines[1]
    )
    assert lines[2] == "итого файлов: 2 — готово: 2"


def test_a_bad_file_in_a_batch_is_skipped_and_fails_the_exit_code(tmp_path: Path) -> None:
    """An empty file says «пустой файл» (the API's «empty file»); the others are still
    recognised, and the exit code is 2 since not every file was recognised."""
    good = tmp_path / "income.xlsx"
    good.write_bytes(write_xlsx([onec_income()]))
    empty = tmp_path / "empty.xlsx"
    empty.write_bytes(b"")
    run = arm_ka("parse", str(good), str(empty))
    assert run.returncode == 2
    assert "skipped      empty.xlsx: пустой файл (0 байт)" in run.stdout
    assert run.stdout.splitlines()[-1] == "итого файлов: 1 — готово: 1; пропущено: 1"


def test_parse_of_an_empty_file_says_empty_file(tmp_path: Path) -> None:
    """One empty file: a usage error (64) saying «пустой файл», as the core refuses its upload."""
    empty = tmp_path / "empty.xlsx"
    empty.write_bytes(b"")
    run = arm_ka("parse", str(empty))
    assert run.returncode == 64
    assert "empty.xlsx: пустой файл" in run.stderr
    assert "Traceback" not in run.stderr


def test_json_prints_the_result_file_compact_and_indents_only_when_asked(tmp_path: Path) -> None:
    """`--json` writes the result file as built (compact, one line, Cyrillic as is);
    `--indent` gives the same document indented; several files: one JSON document a line."""
    path = tmp_path / "osv.xlsx"
    path.write_bytes(write_xlsx([_osv()]))
    compact = arm_ka("parse", "--json", str(path))
    assert compact.returncode == 0, compact.stderr
    assert compact.stdout.count("\n") == 1
    assert "Расчетные счета" in compact.stdout
    body = json.loads(compact.stdout)
    assert validate(Kind.RESULT, body) == []
    indented = arm_ka("parse", "--json", "--indent", str(path))
    assert indented.stdout.startswith('{\n  "schema_version"')
    again = json.loads(indented.stdout)
    assert again["documents"] == body["documents"]
    several = arm_ka("parse", "--json", str(path), str(path))
    assert [b["documents"] for b in _json_lines(several.stdout)] == [body["documents"]] * 2


def test_summary_names_the_missing_field_and_shows_the_header(tmp_path: Path) -> None:
    """A statement whose ИНН is nowhere: the header line says so and the warning names the
    field (`HEADER_FIELD_MISSING: inn`); organisation, date and units are shown."""
    path = tmp_path / "income.xlsx"
    path.write_bytes(write_xlsx([_without_inn(onec_income())]))
    run = arm_ka("parse", str(path))
    assert run.returncode == 0, run.stderr
    assert "HEADER_FIELD_MISSING: inn (сведения)" in run.stdout
    header = next(line for line in run.stdout.splitlines() if "ИНН не найден" in line)
    assert "«Северный ветер»" in header
    assert "31.12.2024" in header
    assert "тыс. руб." in header
    full = tmp_path / "full.xlsx"
    full.write_bytes(write_xlsx([onec_balance()]))
    assert f"ИНН {ORG_INN}" in arm_ka("parse", str(full)).stdout


def test_repeated_warnings_are_folded_with_their_count(tmp_path: Path) -> None:
    """212 warnings of one code are one line «CODE ×212»; other codes keep their own line."""
    path = tmp_path / "osv.xlsx"
    path.write_bytes(write_xlsx([_osv()]))
    body = json.loads(arm_ka("parse", "--json", str(path)).stdout)
    same = {"code": "COLUMN_PERIOD_UNKNOWN", "severity": "info", "message": "Период не указан"}
    body["documents"][0]["warnings"] = [same] * 212 + [
        {"code": "CODES_INFERRED", "severity": "warning", "message": "коды выведены"}
    ]
    text = summarise_result(body, name="osv.xlsx", file_type="XLSX")
    assert "замечания: 213" in text
    assert "- COLUMN_PERIOD_UNKNOWN ×212 (сведения): Период не указан" in text
    assert "- CODES_INFERRED (предупреждение): коды выведены" in text
    assert text.count("COLUMN_PERIOD_UNKNOWN") == 1


_OSV_KINDS = {"account": "счёт", "subaccount": "субсчёт", "subconto": "субконто", "total": "итог"}


def test_export_writes_an_index_and_a_sheet_per_document(tmp_path: Path) -> None:
    """`--export out.xlsx`: the summary sheet has a row per document (file, type, status,
    failed checks) and a row for a file with none; the ОСВ sheet is a flat table whose cells
    are the document's rows (amounts as numbers); a statement sheet has a row per line. What
    the analyst reads is Russian: headings, sheet names, types, variants, statuses."""
    folder = _folder(tmp_path)
    balance = onec_balance()
    row, col = find_cell(balance, "1210")
    (folder / "c-broken.xlsx").write_bytes(write_xlsx([with_cell(balance, row, col + 1, 16400)]))
    (folder / "d-junk.xlsx").write_bytes(b"no workbook at all" * 4)
    out = tmp_path / "out.xlsx"
    run = arm_ka("parse", str(folder), "--export", str(out))
    assert run.returncode == 2  # d-junk.xlsx ended in error
    book = load_workbook(out)
    assert book.sheetnames == [INDEX_SHEET, "1 Баланс", "2 ОФР", "3 Баланс", "4 ОСВ"]
    index = [list(r) for r in book[INDEX_SHEET].iter_rows(values_only=True)]
    assert index[0] == [
        "Файл",
        "Тип файла",
        "Статус файла",
        "Документ №",
        "Тип документа",
        "Форма",
        "Статус документа",
        "Источник",
        "Не выполнено проверок",
        "Невыполненные проверки",
        "Лист выгрузки",
    ]
    rows = [dict(zip(INDEX_COLUMNS, r, strict=True)) for r in index[1:]]
    assert [(Path(r["file"]).name, r["document_type"], r["document_status"]) for r in rows] == [
        ("a-statements.xlsx", "Баланс", "готово"),
        ("a-statements.xlsx", "ОФР", "готово"),
        ("c-broken.xlsx", "Баланс", "нужна проверка"),
        ("d-junk.xlsx", None, None),
        ("b-osv.xlsx", "ОСВ", "готово"),
    ]
    assert rows[0]["form_variant"] == "полная"
    broken = next(r for r in rows if r["file"].endswith("c-broken.xlsx"))
    assert broken["failed_checks"] >= 1 and "соотношение 1200=" in broken["failed_check_list"]
    junk = next(r for r in rows if r["file"].endswith("d-junk.xlsx"))
    assert junk["file_status"] == "ошибка" and junk["source"].startswith("UNSUPPORTED_FORMAT")

    osv_body = json.loads(arm_ka("parse", "--json", str(folder / "sub" / "b-osv.xlsx")).stdout)
    (osv,) = osv_body["documents"]
    sheet = [list(r) for r in book["4 ОСВ"].iter_rows(values_only=True)]
    assert sheet[0] == [HEADINGS[column] for column in OSV_COLUMNS]
    assert sheet[0][:3] == ["Файл", "Строка листа", "Уровень"]
    assert len(sheet) - 1 == len(osv["rows"])
    for cells, source in zip(sheet[1:], osv["rows"], strict=True):
        for column, cell in zip(OSV_COLUMNS, cells, strict=True):
            if column == "file":
                assert cell.endswith("b-osv.xlsx")
            elif column in OSV_COLUMNS[7:]:
                expected = source[column]
                assert (
                    (cell is None) if expected is None else Decimal(str(cell)) == Decimal(expected)
                )
            elif column == "kind":
                assert cell == _OSV_KINDS[source[column]]
            else:
                assert cell == source[column]

    statements = json.loads(arm_ka("parse", "--json", str(folder / "a-statements.xlsx")).stdout)
    balance_doc = statements["documents"][0]
    table = [list(r) for r in book["1 Баланс"].iter_rows(values_only=True)]
    labels = [c["label"] for c in balance_doc["columns"]]
    assert table[0] == ["Код", "Наименование", *labels, "Нужна проверка"]
    assert len(table) - 1 == len(balance_doc["lines"])
    for cells, line in zip(table[1:], balance_doc["lines"], strict=True):
        assert cells[0] == line["line_code"] and cells[1] == line["line_name"]
        amounts = {v["column_index"]: v["amount"] for v in line["values"]}
        for cell, column in zip(cells[2:-1], balance_doc["columns"], strict=True):
            expected = amounts.get(column["column_index"])
            assert (cell is None) if expected is None else Decimal(str(cell)) == Decimal(expected)
