"""The real ledger exports of issue 15 (../shared/samples/public; skipped when absent): trial
balances whatever their title are OSV documents, other ledger reports SHEET_OTHER with a
message that says what to export, never a statement."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.runtime.recognizer import ErrorCode, RecognitionFailed
from services.tabular_parser.recognizer import recognize_bytes

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples" / "public"

pytestmark = [
    pytest.mark.shared,
    pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples/public is absent"),
]


@pytest.mark.parametrize(
    ("name", "status", "rows", "account"),
    [
        ("real/znak13_XBRL_Buhuchot_Oborot__osv_eps_2019_07.xlsx", "done", 33, None),
        ("kaetosh_LedgerFlattener__RZK_11.xlsx", "done", 34, "11"),
        # the file itself does not add up at 10.ДР (see docs/decisions/0009-ledger-reports.md)
        ("kaetosh_FlatTable1C_v2__MZP_10_4kv2024.xlsx", "needs_check", 1370, "10"),
        # a bank's ведомость whose accounts deliberately do not balance
        ("real/easylager_excel_to_sqlite__bank_oborot_vedomost_2016.xls", "needs_check", 618, None),
    ],
)
def test_a_real_trial_balance_is_one_osv(
    name: str, status: str, rows: int, account: str | None
) -> None:
    """One OSV document (no statement), its status as its sums say, every row read."""
    recognition = recognize_bytes((SAMPLES / name).read_bytes())

    assert [d["document_type"] for d in recognition.documents] == ["OSV"]
    document = recognition.documents[0]
    assert document["status"] == status
    assert len(document["rows"]) == rows
    assert document["header"]["account"] == account


def test_the_eps_statement_balances_by_side() -> None:
    """ЕПС: Σ актив = Σ пассив at the opening (35 644 581.82) on the two section totals."""
    recognition = recognize_bytes(
        (SAMPLES / "real/znak13_XBRL_Buhuchot_Oborot__osv_eps_2019_07.xlsx").read_bytes()
    )
    totals = [r for r in recognition.documents[0]["rows"] if r["kind"] == "total"]
    assert [(t["opening_debit"], t["opening_credit"]) for t in totals] == [
        ("35644581.82", None),
        (None, "35644581.82"),
    ]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        (
            "real/kaetosh_Flat_table_account_analysis__analiz_51_2024.xlsx",
            ["Анализ счета 51 — не оборотно-сальдовая ведомость", "выгрузите ОСВ по счету 51"],
        ),
        (
            "kaetosh_LedgerFlattener__UPP_valuta1.xlsx",
            ["Анализ счета 60.31 — не оборотно-сальдовая ведомость", "по счету 60.31"],
        ),
        (
            "kaetosh_FlatTable1C_v2__Pivot_account_turnover.xlsx",
            ["плоская таблица сальдо и оборотов", "выгрузите оборотно-сальдовую ведомость"],
        ),
    ],
)
def test_a_real_ledger_report_is_no_document(name: str, said: list[str]) -> None:
    """RECOGNITION_FAILED, every sheet a SHEET_OTHER carried with the error, the first
    sheet's message saying what it is and what to export."""
    with pytest.raises(RecognitionFailed) as caught:
        recognize_bytes((SAMPLES / name).read_bytes())

    failed = caught.value
    assert failed.code == ErrorCode.RECOGNITION_FAILED
    assert failed.warnings
    assert all(w["code"] == "SHEET_OTHER" for w in failed.warnings)
    for text in said:
        assert text in failed.warnings[0]["message"]
        assert text in failed.message
