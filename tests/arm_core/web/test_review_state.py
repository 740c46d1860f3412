"""After the analyst: the corrected document's flags and status are those of the corrected
values, `review` says what changed, by whom, and whether it was checked; the recognised
document (`GET /documents/{id}`, `/normalized`) stays the service's message."""

from __future__ import annotations

import copy
import re
from typing import Any, cast

import httpx
import pytest

from services.arm_core.db.models import Correction
from services.arm_core.documents.corrections import apply_corrections
from services.arm_core.documents.review import review_of
from services.contract.models.result_v2_dicts import StatementDocument
from tests.arm_core.web._doubtful import RIGHT_AMOUNT, RIGHT_VALUE
from tests.arm_core.web._recognition import Recognised

DOUBTFUL_LINE, COLUMN = 1, 3

_STATEMENT = cast(
    StatementDocument,
    {
        "document_type": "INCOME",
        "form_variant": "full",
        "status": "needs_check",
        "header": {"needs_review_fields": []},
        "columns": [{"column_index": 3, "label": "2024"}],
        "lines": [
            {
                "ref": f"'ОФР'!A{row}",
                "line_status": "ok",
                "line_code": code,
                "needs_review": flagged,
                "values": [
                    {
                        "column_index": 3,
                        "amount": amount,
                        "is_recognized": True,
                        "needs_review": False,
                    }
                ],
            }
            for row, code, amount, flagged in (
                (3, "2110", "100", False),
                (4, "2120", "-40", False),
                (5, "2100", "60", True),  # flagged for its code (say, an uncertain reading)
            )
        ],
        "checks": {"relations_failed": [], "soft_relations_failed": []},
    },
)


def _correction(kind: str, **where: Any) -> Correction:
    return Correction(kind=kind, author="analyst-1", **where)


def test_a_line_doubted_for_its_code_stays_flagged_until_its_code_is_corrected() -> None:
    """Confirming the value of a line flagged for its code does not clear the line (nor the
    status); correcting its code does, and the status becomes done."""
    confirm = _correction("confirm", line=2, column_index=3, old_value="60", new_value="60")
    after_confirm = apply_corrections(copy.deepcopy(_STATEMENT), [confirm])
    assert after_confirm.document["lines"][2]["needs_review"] is True
    assert after_confirm.document["status"] == "needs_check"
    assert review_of(after_confirm).doubts_left == 1
    code = _correction("line_code", line=2, old_value="2100", new_value="2100")
    after_code = apply_corrections(copy.deepcopy(_STATEMENT), [confirm, code])
    assert after_code.document["lines"][2]["needs_review"] is False
    assert after_code.document["status"] == "done"
    assert after_code.recognised_status == "needs_check"
    assert review_of(after_code).doubts_left == 0


def test_a_hard_relation_that_still_fails_keeps_the_status_needs_check() -> None:
    """Every flag cleared, but the corrected 2120 breaks 2100 = 2110 − 2120: needs_check."""
    code = _correction("line_code", line=2, old_value="2100", new_value="2100")
    wrong = _correction("value", line=1, column_index=3, old_value="-40", new_value="-50")
    corrected = apply_corrections(copy.deepcopy(_STATEMENT), [code, wrong])
    assert corrected.document["checks"]["relations_failed"] != []
    assert corrected.document["status"] == "needs_check"


def test_a_review_mark_alone_changes_nothing_and_a_1x_error_status_is_kept() -> None:
    """Only a review mark: the document reads as recognised; a 1.x document's `error` is the
    producer's and stays whatever is corrected."""
    marked = apply_corrections(copy.deepcopy(_STATEMENT), [_correction("reviewed")])
    assert marked.document == _STATEMENT
    assert review_of(marked).state == "reviewed"
    legacy = cast(StatementDocument, {**copy.deepcopy(_STATEMENT), "status": "error"})
    code = _correction("line_code", line=2, old_value="2100", new_value="2100")
    # a 1.x document may say error, which the 2.0 shape's status does not hold
    assert apply_corrections(legacy, [code]).document["status"] == "error"  # type: ignore[comparison-overlap]


async def _json(client: httpx.AsyncClient, url: str) -> dict[str, Any]:
    response = await client.get(url)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.db
async def test_correcting_every_doubt_makes_the_corrected_document_done_and_says_by_whom(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """The ОФР's one doubtful value corrected: `/corrected` is done with nothing flagged and
    names the change (recognised null, now −118450, by `local`); `GET /documents/{id}` and
    `/normalized` still say needs_check, as the parser sent it; the page says both."""
    api = f"/api/v1/documents/{income.document_id}"
    before = await _json(client, f"{api}/corrected")
    assert before["review"] == {
        "state": "recognised",
        "recognised_status": "needs_check",
        "status": "needs_check",
        "doubts_left": 1,
        "changes": [],
        "confirmed_doubts": None,
    }
    saved = await client.post(
        f"{income.page}/corrections",
        data={"kind": "auto", "line": DOUBTFUL_LINE, "column": COLUMN, "value": RIGHT_AMOUNT},
    )
    assert saved.status_code == 200, saved.text
    after = await _json(client, f"{api}/corrected")
    document, review = after["document"], after["review"]
    assert document["status"] == "done"
    assert not any(line["needs_review"] for line in document["lines"])
    assert (review["state"], review["status"], review["doubts_left"]) == ("corrected", "done", 0)
    assert after["reviewed"] is False
    [change] = review["changes"]
    assert change["kind"] == "value"
    assert (change["line"], change["column_index"]) == (DOUBTFUL_LINE, COLUMN)
    assert change["ref"] == document["lines"][DOUBTFUL_LINE]["ref"]
    assert (change["recognised"], change["value"], change["author"]) == (None, RIGHT_VALUE, "local")
    assert (await _json(client, api))["status"] == "needs_check"
    assert (await _json(client, f"{api}/normalized"))["status"] == "needs_check"
    page = (await client.get(income.page)).text
    assert 'data-review="corrected"' in page
    assert re.search(r'id="doc-status">[^<]*<span[^>]*data-status="done"', page)
    assert "при распознавании — нужна проверка" in page
    assert re.search(rf'id="v-{DOUBTFUL_LINE}-{COLUMN}"[^>]*title="исправил\(а\) local, ', page)
    listing = (await client.get(f"/ui/files/{income.file_id}")).text
    item = next(li for li in listing.split("<li>") if str(income.document_id) in li)
    assert 'data-status="done"' in item and 'data-review="corrected"' in item
    assert "при распознавании — нужна проверка" in item


@pytest.mark.db
async def test_the_review_mark_counts_until_a_later_correction_reopens_it(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """Marked reviewed after the correction: reviewed, by whom; a confirmation made after the
    mark makes it `corrected` again (the mark no longer covers every change)."""
    url = f"/api/v1/documents/{income.document_id}/corrections"
    for body in (
        {"kind": "value", "line": DOUBTFUL_LINE, "column_index": COLUMN, "value": RIGHT_AMOUNT},
        {"kind": "reviewed"},
    ):
        assert (await client.post(url, json=body)).status_code == 201
    reviewed = await _json(client, f"/api/v1/documents/{income.document_id}/corrected")
    assert reviewed["review"]["state"] == "reviewed"
    assert (reviewed["reviewed"], reviewed["reviewed_by"]) == (True, "local")
    assert 'data-review="reviewed"' in (await client.get(income.page)).text
    again = await client.post(url, json={"kind": "confirm", "line": 0, "column_index": COLUMN})
    assert again.status_code == 201
    reopened = again.json()
    assert reopened["review"]["state"] == "corrected"
    assert (reopened["reviewed"], reopened["reviewed_by"]) == (False, None)
    assert [c["kind"] for c in reopened["review"]["changes"]] == ["value", "confirm"]
    assert 'data-review="corrected"' in (await client.get(income.page)).text
