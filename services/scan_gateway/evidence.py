"""Where each value of a scan prints: the evidence file `results/{file_id}/{job_id}/evidence.json`.

The contract's result file has no place for coordinates (and must keep passing schema 2.0), so
the boxes the reader gives (the local recogniser from its words, the scanning system where its
items carry `box`) go to a side file next to the result, under the layout the contract fixes
for a job's results. arm-core reads it to crop the page around a value for the analyst.

Shape (`format` "scan-evidence/1"): `lines` maps a line's `ref` to `{page, box, values}`, where
`page` is 1-based, `box` the row's box and `values` maps a value's `column_index` (as a string)
to the cell's box; every box is `[x0, y0, x1, y1]` in fractions of the page as uploaded (origin
top left). A line or value the reader gave no box for is absent: no position, never a guess.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from services.runtime.recognizer import Job
from services.scan_gateway.resultset import Box, Item, Row

__all__ = ["EVIDENCE_FORMAT", "build_evidence", "evidence_key"]

EVIDENCE_FORMAT = "scan-evidence/1"


def evidence_key(job: Job) -> str:
    """The evidence file's key, beside the job's result file."""
    return f"results/{job.file_id}/{job.job_id}/evidence.json"


def _rows(items: Iterable[Item]) -> dict[str, tuple[int, Row]]:
    """Every table row by the ref the mapper gives its line (`p<page>:t<table>:r<row>`)."""
    return {
        f"p{table.page}:t{table.index}:r{row.index}": (table.page, row)
        for item in items
        for table in item.tables
        for row in table.rows
    }


def _json_box(box: Box) -> list[float]:
    return [round(v, 5) for v in box]


def build_evidence(items: Sequence[Item], documents: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The evidence of the documents' lines that the items place on a page."""
    rows = _rows(items)
    lines: dict[str, Any] = {}
    for document in documents:
        for line in document.get("lines") or []:
            found = rows.get(str(line.get("ref")))
            if found is None:
                continue
            page, row = found
            values: dict[str, list[float]] = {}
            for value in line.get("values") or []:
                cell = row.cell(int(value["column_index"]))
                if cell is not None and cell.box is not None:
                    values[str(cell.column)] = _json_box(cell.box)
            if row.box is None and not values:
                continue
            lines[str(line["ref"])] = {
                "page": page,
                "box": _json_box(row.box) if row.box is not None else None,
                "values": values,
            }
    return {"format": EVIDENCE_FORMAT, "lines": lines}
