"""What a careful accountant reads in each real export: no false document, the real ones found.

`EXPECTED` says, per file, which document types the file holds (a trial balance by any
title is OSV; «Анализ счета» and other ledger reports hold none, issue 15) and which it may
also give without being wrong (`ALLOWED`, e.g. a DISCLOSURE next to a statement). A false
document is one of a type the file does not hold, or a statement / ОСВ with no amount at all
where the file's table has them. Files that fail today are strict xfails with the reason.
"""

from __future__ import annotations

from typing import Any

import pytest

from ._recognised import case, documents
from ._sources import SAMPLES

pytestmark = [
    pytest.mark.shared,
    pytest.mark.slow,
    pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"{SAMPLES} is absent"),
]

EXPECTED: dict[str, frozenset[str]] = {
    "real/Anna-Lisichka_module_11_1__balance_nocodes_2024h1.xls": frozenset({"BALANCE"}),
    "real/easylager_excel_to_sqlite__bank_oborot_vedomost_2016.xls": frozenset({"OSV"}),
    "real/kaetosh_Flat_table_account_analysis__analiz_51_2024.xlsx": frozenset(),
    "real/znak13_XBRL_Buhuchot_Oborot__balans_0420002_2019q2.xls": frozenset({"BALANCE"}),
    "real/znak13_XBRL_Buhuchot_Oborot__ofr_0420003_2019_annual.xls": frozenset({"INCOME"}),
    "real/znak13_XBRL_Buhuchot_Oborot__ofr_0420003_2019q2.xls": frozenset({"INCOME"}),
    "real/znak13_XBRL_Buhuchot_Oborot__osv_eps_2019_07.xlsx": frozenset({"OSV"}),
    "DaniilTiunov_ProjectPythonRepa__balance-is_legacy67n.xlsx": frozenset({"BALANCE", "INCOME"}),
    # Blank templates of the simplified forms: statements with no amounts are no lie.
    "gradosphera_mono__obraztsy_uproshennyh_form_balans_ofr_ocs.xls": frozenset(),
    "kaetosh_FlatTable1C_v2__MZP_10_4kv2024.xlsx": frozenset({"OSV"}),
    # A tool's flat table of account turnovers (and its reconciliation): not a 1C report.
    "kaetosh_FlatTable1C_v2__Pivot_account_turnover.xlsx": frozenset(),
    "kaetosh_LedgerFlattener__RZK_11.xlsx": frozenset({"OSV"}),
    "kaetosh_LedgerFlattener__UPP_valuta1.xlsx": frozenset(),
}
ALLOWED: dict[str, frozenset[str]] = {
    # The legacy 67н workbook also holds a cash-flow and a capital statement: disclosures.
    "DaniilTiunov_ProjectPythonRepa__balance-is_legacy67n.xlsx": frozenset({"DISCLOSURE"}),
    "gradosphera_mono__obraztsy_uproshennyh_form_balans_ofr_ocs.xls": frozenset(
        {"BALANCE", "INCOME", "DISCLOSURE"}
    ),
    "kaetosh_FlatTable1C_v2__Pivot_account_turnover.xlsx": frozenset({"OSV"}),
}
# Files whose table has amounts: a document of theirs without one is false.
_BLANK = frozenset({"gradosphera_mono__obraztsy_uproshennyh_form_balans_ofr_ocs.xls"})

_FALSE_TODAY: dict[str, str] = {}  # no false document on any real export today
_MISSING_TODAY: dict[str, str] = {}  # every document a real export holds is found today


def _has_amount(document: dict[str, Any]) -> bool:
    if "rows" in document:
        return any(
            value is not None
            for row in document["rows"]
            for key, value in row.items()
            if key.startswith(("opening_", "turnover_", "closing_"))
        )
    return any(v["amount"] is not None for line in document["lines"] for v in line["values"])


@pytest.mark.parametrize("name", [case(name, _FALSE_TODAY) for name in EXPECTED])
def test_no_false_document(name: str) -> None:
    allowed = EXPECTED[name] | ALLOWED.get(name, frozenset())
    found = documents(name)
    wrong = [d["document_type"] for d in found if d["document_type"] not in allowed]
    assert not wrong, f"document types the file does not hold: {wrong}"
    if name not in _BLANK:
        empty = [
            d["document_type"]
            for d in found
            if d["document_type"] in EXPECTED[name] and not _has_amount(d)
        ]
        assert not empty, f"documents without a single amount: {empty}"


@pytest.mark.parametrize(
    "name", [case(name, _MISSING_TODAY) for name, kinds in EXPECTED.items() if kinds]
)
def test_the_documents_the_file_holds_are_found(name: str) -> None:
    found = {d["document_type"] for d in documents(name) if _has_amount(d)}
    assert EXPECTED[name] <= found, f"missing: {sorted(EXPECTED[name] - found)}"


def test_units_the_figures_contradict_are_up_for_review() -> None:
    """The 2019 annual 0420003 prints «(тыс.руб.)» over figures with kopecks (1 327 883,67 —
    roubles, as in the same filer's half-year report in «руб.»): the units are not taken on
    trust but listed for review with UNITS_DOUBTFUL."""
    (document,) = documents("real/znak13_XBRL_Buhuchot_Oborot__ofr_0420003_2019_annual.xls")
    assert "units" in document["header"]["needs_review_fields"]
    assert "UNITS_DOUBTFUL" in [w["code"] for w in document["warnings"]]
    assert document["status"] == "needs_check"


def test_the_legacy_income_statement_carries_66n_codes() -> None:
    """The 67н «Отчет о прибылях и убытках»: 010 «Выручка (нетто) …» is 2110 with the cell's
    284 285, 190 is 2400, and the mapping is said (LEGACY_FORM_MAPPED)."""
    name = "DaniilTiunov_ProjectPythonRepa__balance-is_legacy67n.xlsx"
    (income,) = [d for d in documents(name) if d["document_type"] == "INCOME"]
    by_code = {line["line_code"]: line for line in income["lines"] if line["line_code"]}
    assert by_code["2110"]["line_code_text"] == "010"
    assert by_code["2110"]["values"][0]["amount"] == "284285"
    assert by_code["2400"]["line_code_text"] == "190"
    assert "LEGACY_FORM_MAPPED" in [w["code"] for w in income["warnings"]]
