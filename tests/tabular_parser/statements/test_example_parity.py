"""contracts/examples/result-statement-excel.json is exactly what the recogniser produces.

The example's workbook is built here (a balance split over 'Баланс (актив)' / 'Баланс (пассив)'
with section V off by 120 in the current column, an ОФР with a detail line under 2110, a
disclosure sheet and a sheet that is no statement), written as a real XLSX, read by
`excel.load_workbook` and recognised; the result file is assembled the way the service writes
it. Fields that differ from run to run (ids, timings, versions) are compared as placeholders.

When the recogniser changes on purpose, regenerate the example (and the services' byte copies
of it) instead of editing it by hand:

    ARM_REGENERATE_EXAMPLES=1 .venv/bin/pytest tests/tabular_parser/statements/test_example_parity.py
"""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path
from typing import Any

from services import contract
from services.arm_statements import statements_version
from services.contract import Kind
from services.contract.copies import SERVICE_COPIES
from services.excel import load_workbook
from services.runtime.recognizer import Recognition
from services.tabular_parser.statements import StatementsResult, recognize_statements
from tests.builders import CellInput, SheetSpec, write_xlsx

from . import _forms as f

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE_NAME = "examples/result-statement-excel.json"
EXAMPLE = ROOT / "contracts" / EXAMPLE_NAME
REGENERATE_ENV = "ARM_REGENERATE_EXAMPLES"

Json = dict[str, Any]
Lines = list[tuple[str | None, str, tuple[CellInput, ...]]]

# What varies from run to run, as the example prints it.
PLACEHOLDERS: Json = {
    "job_id": "3f6c2a1e-8b4d-4c8e-9a51-2d7e0b6f4c11",
    "file_id": "9a2e4b7c-1d3f-4e5a-8b6c-0f1e2d3c4b5a",
    "version": "0.1.0",
    "statements_version": "arm_statements-0123456789ab",
    "duration_ms": 1840,
}
_STATEMENTS_VERSION = re.compile(r"^arm_statements-[0-9a-f]{12}$")

ACTIVE: Lines = [
    ("1110", "Нематериальные активы", (120, 150, 180)),
    ("1150", "Основные средства", (45300, 41200, 33900)),
    ("1170", "Финансовые вложения", (2000, 2000, 1500)),
    ("1180", "Отложенные налоговые активы", (310, 280, 250)),
    ("1100", "Итого по разделу I", (47730, 43630, 35830)),
    ("1210", "Запасы", (12450, 11300, 10100)),
    ("1220", "Налог на добавленную стоимость по приобретенным ценностям", (230, 190, 160)),
    ("1230", "Дебиторская задолженность", (18920, 14200, 10800)),
    ("1240", "Финансовые вложения (за исключением денежных эквивалентов)", (3000, 2500, "-")),
    ("1250", "Денежные средства и денежные эквиваленты", (9380, 3960, 3120)),
    ("1260", "Прочие оборотные активы", (150, 120, 90)),
    ("1200", "Итого по разделу II", (44130, 32270, 24270)),
    ("1600", "БАЛАНС", (91860, 75900, 60100)),
]
PASSIVE: Lines = [
    (
        "1310",
        "Уставный капитал (складочный капитал, уставный фонд, вклады товарищей)",
        (10000, 10000, 10000),
    ),
    ("1320", "Собственные акции, выкупленные у акционеров", ("(-)", "(-)", "(-)")),
    ("1350", "Добавочный капитал (без переоценки)", (5000, 5000, 5000)),
    ("1360", "Резервный капитал", (500, 500, 500)),
    ("1370", "Нераспределенная прибыль (непокрытый убыток)", (30160, 18720, 8000)),
    ("1300", "Итого по разделу III", (45660, 34220, 23500)),
    ("1410", "Заемные средства", (20000, 18000, 16000)),
    ("1420", "Отложенные налоговые обязательства", (1100, 950, 800)),
    ("1400", "Итого по разделу IV", (21100, 18950, 16800)),
    ("1510", "Заемные средства", (6000, 5500, 5000)),
    ("1520", "Кредиторская задолженность", (17430, 15880, 13600)),
    ("1540", "Оценочные обязательства", (1210, 1050, 920)),
    ("1550", "Прочие обязательства", (340, 300, 280)),
    # 6000 + 17430 + 1210 + 340 = 24980: the soft relation of section V fails in column D.
    ("1500", "Итого по разделу V", (25100, 22730, 19800)),
    ("1700", "БАЛАНС", (91860, 75900, 60100)),
]
INCOME: Lines = [
    ("2110", "Выручка", (152340, 138900)),
    (None, "в том числе от продажи продукции собственного производства", (120100, 110500)),
    ("2120", "Себестоимость продаж", ("(118 450)", "(107 300)")),
    ("2100", "Валовая прибыль (убыток)", (33890, 31600)),
    ("2210", "Коммерческие расходы", ("(6 120)", "(5 480)")),
    ("2220", "Управленческие расходы", ("(9 870)", "(9 110)")),
    ("2200", "Прибыль (убыток) от продаж", (17900, 17010)),
    ("2310", "Доходы от участия в других организациях", ("-", "-")),
    ("2320", "Проценты к получению", (410, 260)),
    ("2330", "Проценты к уплате", ("(2 150)", "(1 980)")),
    ("2340", "Прочие доходы", (1230, 870)),
    ("2350", "Прочие расходы", ("(3 090)", "(2 760)")),
    ("2300", "Прибыль (убыток) до налогообложения", (14300, 13400)),
    ("2410", "Налог на прибыль", ("(2 860)", "(2 680)")),
    ("2411", "в т.ч. текущий налог на прибыль", ("(2 720)", "(2 590)")),
    ("2412", "отложенный налог на прибыль", ("(140)", "(90)")),
    ("2460", "Прочее", ("-", "-")),
    ("2400", "Чистая прибыль (убыток)", (11440, 10720)),
    ("2500", "Совокупный финансовый результат периода", (11440, 10720)),
]
_SECTIONS = {
    "1110": "I. ВНЕОБОРОТНЫЕ АКТИВЫ",
    "1210": "II. ОБОРОТНЫЕ АКТИВЫ",
    "1310": "III. КАПИТАЛ И РЕЗЕРВЫ",
    "1410": "IV. ДОЛГОСРОЧНЫЕ ОБЯЗАТЕЛЬСТВА",
    "1510": "V. КРАТКОСРОЧНЫЕ ОБЯЗАТЕЛЬСТВА",
}
_WIDTH = 7


def example_workbook() -> list[SheetSpec]:
    """The sheets of the example file, in workbook order."""
    active_rows: list[f.Row] = [[None, "Бухгалтерский баланс"], [None, "на 31 декабря 2024 г."]]
    active_rows += f.codes_block("0710001", "31.12.2024")
    active_rows += f.statement_table(f.BALANCE_LABELS, ACTIVE, sections=_SECTIONS)
    passive_rows: list[f.Row] = [
        [],
        *f.statement_table(f.BALANCE_LABELS, PASSIVE, sections=_SECTIONS),
    ]
    passive_rows += f.signature_rows()
    income_rows: list[f.Row] = [
        [None, "Отчет о финансовых результатах"],
        [None, "за Январь - Декабрь 2024 г."],
    ]
    income_rows += f.codes_block("0710002", "31.12.2024", with_auditor=False)
    income_rows += [[], *f.statement_table(f.INCOME_LABELS, INCOME), *f.signature_rows()]
    disclosure_rows: list[list[CellInput]] = [
        ["Пояснения к бухгалтерскому балансу и отчету о финансовых результатах за 2024 г."],
        [],
        ["1. Нематериальные активы и расходы на научно-исследовательские, опытно-"
         "конструкторские и технологические работы (НИОКР)"],
        ["Наименование показателя", "Код", "Период", "На начало года", "Поступило",
         "Выбыло", "На конец периода"],
        ["Нематериальные активы - всего", "5100", "за 2024 г.", 150, 40, "(70)", 120],
        ["Нематериальные активы - всего", "5110", "за 2023 г.", 180, 20, "(50)", 150],
        [],
        ["2. Основные средства"],
        ["Наименование показателя", "Код", "Период", "На начало года", "Поступило",
         "Выбыло", "На конец периода"],
        ["Основные средства - всего", "5200", "за 2024 г.", 41200, 9600, "(5 500)", 45300],
    ]  # fmt: skip
    return [
        SheetSpec("Баланс (актив)", [f.pad(r, _WIDTH) for r in active_rows]),
        SheetSpec("Баланс (пассив)", [f.pad(r, _WIDTH) for r in passive_rows]),
        SheetSpec("Отчет о фин. результатах", [f.pad(r, _WIDTH) for r in income_rows]),
        SheetSpec("Пояснения", disclosure_rows),
        f.other_sheet("Справка"),
    ]


def recognize_example() -> StatementsResult:
    """The example workbook as real XLSX bytes, read and recognised."""
    return recognize_statements(load_workbook(write_xlsx(example_workbook())).sheets)


def result_file(
    result: StatementsResult,
    *,
    job_id: uuid.UUID,
    file_id: uuid.UUID,
    version: str,
    duration_ms: int,
) -> Json:
    """The result file 2.0 as the service's protocol writes it (services.runtime.protocol):
    file status by the contract's rule (`Recognition.status`), group_schema rsbu."""
    recognition = Recognition(
        documents=result.documents,
        warnings=result.file_warnings(),
        group_schema="rsbu",
        statements_version=result.statements_version,
    )
    service: Json = {"name": "tabular-parser", "version": version}
    service["statements_version"] = recognition.statements_version
    body: Json = {
        "schema_version": "2.0",
        "job_id": str(job_id),
        "file_id": str(file_id),
        "status": recognition.status,
        "service": service,
        "group_schema": recognition.group_schema,
        "documents": recognition.documents,
        "metrics": {"duration_ms": duration_ms, "warnings": recognition.warnings},
    }
    # Through JSON once, as the stored file is: tuples become lists, keys stay in order.
    loaded: Json = json.loads(json.dumps(body, ensure_ascii=False))
    return loaded


def with_placeholders(body: Json) -> Json:
    """``body`` with every run-dependent field replaced by the example's placeholder."""
    out = json.loads(json.dumps(body, ensure_ascii=False))
    out["job_id"], out["file_id"] = PLACEHOLDERS["job_id"], PLACEHOLDERS["file_id"]
    out["service"]["version"] = PLACEHOLDERS["version"]
    out["service"]["statements_version"] = PLACEHOLDERS["statements_version"]
    out["metrics"]["duration_ms"] = PLACEHOLDERS["duration_ms"]
    result: Json = out
    return result


def render(body: Json) -> str:
    """The example file's text: two-space indent, Cyrillic as is, a final newline."""
    return json.dumps(body, ensure_ascii=False, indent=2) + "\n"


def regenerate(text: str) -> list[Path]:
    """Write the example and every service's byte copy of it; the paths written."""
    written = [EXAMPLE]
    EXAMPLE.write_text(text, encoding="utf-8")
    for folder in SERVICE_COPIES.values():
        copy = ROOT / folder / EXAMPLE_NAME
        if copy.exists():
            copy.write_text(text, encoding="utf-8")
            written.append(copy)
    return written


def _produced() -> Json:
    return result_file(
        recognize_example(),
        job_id=uuid.uuid4(),
        file_id=uuid.uuid4(),
        version="0.1.0",
        duration_ms=12,
    )


def test_example_file_is_what_the_recogniser_produces() -> None:
    """Apart from ids, timings and versions, the stored example equals the assembled result
    of the example workbook; ARM_REGENERATE_EXAMPLES=1 rewrites it (and the byte copies)."""
    expected = render(with_placeholders(_produced()))
    if os.environ.get(REGENERATE_ENV) == "1":
        regenerate(expected)
    stored = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert stored == json.loads(expected), (
        f"{EXAMPLE_NAME} differs from the recogniser's output; if the change is intended, run "
        f"{REGENERATE_ENV}=1 .venv/bin/pytest {Path(__file__).relative_to(ROOT)}"
    )


def test_placeholders_have_the_shape_of_the_real_values() -> None:
    """The example's stand-ins are well-formed: UUIDs, a version string like the real
    statements_version, a duration in milliseconds."""
    produced = _produced()
    assert _STATEMENTS_VERSION.match(produced["service"]["statements_version"])
    assert produced["service"]["statements_version"] == statements_version
    assert _STATEMENTS_VERSION.match(PLACEHOLDERS["statements_version"])
    assert PLACEHOLDERS["statements_version"] != statements_version
    for key in ("job_id", "file_id"):
        assert str(uuid.UUID(PLACEHOLDERS[key])) == PLACEHOLDERS[key]
    assert isinstance(PLACEHOLDERS["duration_ms"], int) and PLACEHOLDERS["duration_ms"] >= 0


def test_example_workbook_shows_what_the_contract_lists() -> None:
    """CONTRACT.md: BALANCE on two sheets with a soft relation failed, INCOME with a detail line
    under 2110, DISCLOSURE with empty columns/lines and no checks, a SHEET_OTHER warning."""
    body = _produced()
    documents = {d["document_type"]: d for d in body["documents"]}
    assert list(documents) == ["BALANCE", "INCOME", "DISCLOSURE"]
    balance, income, disclosure = documents.values()
    assert [loc["sheet"] for loc in balance["locator"]] == ["Баланс (актив)", "Баланс (пассив)"]
    assert balance["checks"]["relations_failed"] == []
    assert [(x["relation"], x["column_index"], x["expected"], x["actual"])
            for x in balance["checks"]["soft_relations_failed"]] == [
        ("1500=1510+1520+1530+1540+1550", 3, "24980", "25100")
    ]  # fmt: skip
    assert balance["form_variant"] == income["form_variant"] == "full"
    detail = [line for line in income["lines"] if line["line_status"] == "detail"]
    assert len(detail) == 1
    parent = next(line for line in income["lines"] if line["ref"] == detail[0]["parent_ref"])
    assert parent["line_code"] == "2110"
    assert [v["amount"] for v in detail[0]["values"]] == ["120100", "110500"]
    assert income["checks"] == {"relations_failed": [], "soft_relations_failed": []}
    assert (disclosure["columns"], disclosure["lines"], disclosure["form_variant"]) == (
        [],
        [],
        None,
    )
    assert "checks" not in disclosure
    assert body["status"] == "done"  # a soft failure alone leaves every document done
    assert [w["code"] for w in body["metrics"]["warnings"]] == ["SHEET_OTHER"]


def test_example_passes_the_result_schema() -> None:
    """The produced result file (and so the stored example) is a valid result 2.0."""
    assert contract.validate(Kind.RESULT, _produced()) == []
