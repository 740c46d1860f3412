"""Scoring the local recogniser against the values a person reads off real scans.

`../shared/samples/public/real-scans/truth.json` holds, per file, the header (org, ИНН, report
date, units) and per document type the line codes with their values by column position (a
balance: report date, previous year, the year before; an ОФР: current, previous; `null` where
the form prints nothing or «-»). `score_file` runs a file through the real path — the local
recogniser, the result-set parser and the mapper, i.e. what scan-gateway runs — and counts per
value: right, wrong and not flagged (the failure that matters), wrong but flagged, missing; an
amount under a line code the page does not print (an invented line) is a wrong value too.

The folder is found beside the repository (`../shared/samples/public`) or at
`$ARM_SHARED_SAMPLES`; callers skip when it is absent.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import uuid
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from services.runtime.recognizer import Job, Recognition
from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer

__all__ = ["FileScore", "real_scans", "scan_job", "score_file", "truth"]

_REPO = Path(__file__).resolve().parents[2]


# truth.json names a form the contract files as a DISCLOSURE by its own name
_CONTRACT_TYPES = {"TARGET_USE_0710003": "DISCLOSURE"}


def real_scans() -> Path:
    """The real-scans folder (it may not exist)."""
    base = os.environ.get("ARM_SHARED_SAMPLES")
    root = Path(base) if base else _REPO.parent / "shared" / "samples" / "public"
    return root / "real-scans"


def truth() -> dict[str, Any]:
    """truth.json of the real-scans folder."""
    loaded: dict[str, Any] = json.loads((real_scans() / "truth.json").read_text("utf-8"))
    return loaded


@dataclass
class FileScore:
    """Counts of one file; `details` name each value that is not right. `right_flagged`: the
    right values among `right` that are up for review all the same (caution, not an error)."""

    name: str
    right: int = 0
    right_flagged: int = 0
    wrong_unflagged: int = 0
    wrong_flagged: int = 0
    missing: int = 0
    report_date: str | None = None
    expected_date: str | None = None
    details: list[str] = field(default_factory=list)
    form_variants: dict[str, str | None] = field(default_factory=dict)
    """document type → the form_variant the recogniser gave it."""
    headers: dict[str, dict[str, Any]] = field(default_factory=dict)
    """document type → the document's header as the recogniser gave it."""

    @property
    def total(self) -> int:
        return self.right + self.wrong_unflagged + self.wrong_flagged + self.missing


class _Inline:
    async def run(self, fn: Any, /, *args: object) -> object:
        return fn(*args)


def scan_job(name: str) -> Job:
    """A job for a real-scans file (its type from its suffix), for the tests and the bench."""
    suffix = name.rsplit(".", 1)[-1].upper()
    return Job(
        job_id=uuid.uuid4(),
        file_id=uuid.uuid4(),
        attempt=1,
        file_type="JPG" if suffix == "JPEG" else suffix,
        original_name=name,
        bucket="b",
        key="k",
        reply_deadline=dt.datetime.now(dt.UTC) + dt.timedelta(minutes=30),
    )


def recognize(path: Path) -> Recognition:
    """The file through scan-gateway's local recogniser and mapper, in this process."""
    recognizer = ScanGatewayRecognizer(LocalSource(_Inline()))
    return asyncio.run(recognizer.recognize(path.read_bytes(), scan_job(path.name)))


def _number(amount: object) -> Decimal | None:
    if amount is None:
        return None
    try:
        return Decimal(str(amount))
    except InvalidOperation:
        return None


def _read(document: dict[str, Any]) -> dict[tuple[str, int], tuple[Decimal | None, bool]]:
    """(code, column position) → (amount, needs_review) of a statementDocument."""
    columns = sorted(c["column_index"] for c in document["columns"])
    out: dict[tuple[str, int], tuple[Decimal | None, bool]] = {}
    for line in document["lines"]:
        code = line.get("line_code")
        if not code:
            continue
        for value in line["values"]:
            if value["column_index"] not in columns:
                continue
            key = (str(code), columns.index(value["column_index"]))
            flagged = bool(value.get("needs_review") or line.get("needs_review"))
            out.setdefault(key, (_number(value.get("amount")), flagged))
    return out


def score_file(
    path: Path, expected: dict[str, Any], recognition: Recognition | None = None
) -> FileScore:
    """Per value of truth.json: right / wrong unflagged / wrong flagged / missing.

    A value the truth leaves empty (`null`) counts only when the recogniser reports a non-zero
    amount there without flagging it (a wrong value); a zero or empty reading of it is fine.
    """
    recognition = recognition or recognize(path)
    score = FileScore(path.name, expected_date=expected.get("meta", {}).get("date"))
    documents = {d["document_type"]: d for d in reversed(recognition.documents)}
    dates = [d["header"].get("report_date") for d in recognition.documents]
    score.report_date = next((d for d in dates if d), None)
    score.form_variants = {d: doc.get("form_variant") for d, doc in documents.items()}
    score.headers = {d: doc["header"] for d, doc in documents.items()}
    for kind, lines in expected.items():
        if kind == "meta":
            continue
        document = documents.get(_CONTRACT_TYPES.get(kind, kind))
        got = _read(document) if document is not None else {}
        for code, values in lines.items():
            for position, want in enumerate(values):
                amount, flagged = got.get((code, position), (None, False))
                where = f"{kind} {code}[{position}]"
                if want is None:
                    if amount not in (None, 0) and not flagged:
                        score.wrong_unflagged += 1
                        score.details.append(f"{where}: read {amount}, empty on the page")
                    continue
                if amount is not None and amount == Decimal(str(want)):
                    score.right += 1
                    score.right_flagged += flagged
                elif amount is None:
                    score.missing += 1
                    score.details.append(f"{where}: missing (page: {want})")
                elif flagged:
                    score.wrong_flagged += 1
                    score.details.append(f"{where}: read {amount} (flagged), page: {want}")
                else:
                    score.wrong_unflagged += 1
                    score.details.append(f"{where}: read {amount} UNFLAGGED, page: {want}")
        _score_invented(score, kind, lines, got)
    return score


def _score_invented(
    score: FileScore,
    kind: str,
    lines: dict[str, Any],
    got: dict[tuple[str, int], tuple[Decimal | None, bool]],
) -> None:
    """An amount under a line code the page does not print (an invented line: a stamp or an
    e-signature block read as a row) is a wrong value, flagged or not (issue 26, class 8)."""
    for (code, position), (amount, flagged) in sorted(got.items()):
        if code in lines or amount in (None, 0):
            continue
        where = f"{kind} {code}[{position}]"
        if flagged:
            score.wrong_flagged += 1
            score.details.append(f"{where}: read {amount} (flagged), no such line on the page")
        else:
            score.wrong_unflagged += 1
            score.details.append(f"{where}: read {amount} UNFLAGGED, no such line on the page")
