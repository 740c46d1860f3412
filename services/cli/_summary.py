"""Readable summaries of results: documents with type, form variant, status, size, failed
checks and warnings. One document formatter serves both the result file of a local parse and
the core's documents read API (both use the contract's field names)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "failed_checks",
    "file_line",
    "summarise_document",
    "summarise_job",
    "summarise_result",
    "total_line",
]

_LISTED = 8
"""Warnings and failed checks listed per document; the rest are counted."""


def summarise_result(result: Mapping[str, Any], *, name: str, file_type: str) -> str:
    """A result file (or the error body of a local parse) as text."""
    service = result.get("service") or {}
    head = f"{name} ({file_type}) — {result.get('status', '?')}"
    out = [head, f"  service: {service.get('name', '?')} {service.get('version', '')}".rstrip()]
    metrics = result.get("metrics") or {}
    if isinstance(metrics.get("duration_ms"), int):
        out[-1] += f", {metrics['duration_ms']} ms"
    if service.get("statements_version"):
        out.append(f"  statements_version: {service['statements_version']}")
    error = result.get("error")
    if isinstance(error, Mapping):
        out.append(f"  error {error.get('code', '?')}: {error.get('message', '')}")
    if result.get("group_schema"):
        out.append(f"  group_schema: {result['group_schema']}")
    out += _documents(result.get("documents") or [])
    out += _warnings("file warnings", metrics.get("warnings") or [], indent="  ")
    return "\n".join(out)


def summarise_job(
    job: Mapping[str, Any],
    documents: Sequence[Mapping[str, Any]] | None,
    *,
    name: str | None = None,
) -> str:
    """A job of the core and, when the read API gave them, its documents."""
    title = name or str(job.get("job_id", "?"))
    out = [f"{title} — {job.get('status', '?')}"]
    out.append(
        f"  job {job.get('job_id')}  file {job.get('file_id')}  attempt {job.get('attempt')}"
        f"  pipeline {job.get('pipeline')}"
    )
    if job.get("service_name"):
        line = f"  service: {job['service_name']} {job.get('service_version') or ''}".rstrip()
        metrics = job.get("metrics") or {}
        if isinstance(metrics, Mapping) and isinstance(metrics.get("duration_ms"), int):
            line += f", {metrics['duration_ms']} ms"
        out.append(line)
    if job.get("error_code"):
        out.append(f"  error {job['error_code']}: {job.get('error_message') or ''}".rstrip())
    if job.get("group_schema"):
        out.append(f"  group_schema: {job['group_schema']}")
    if documents is None:
        out.append("  documents: not available from this core (no documents read API)")
    else:
        out += _documents(documents)
    metrics = job.get("metrics") or {}
    if isinstance(metrics, Mapping):
        out += _warnings("file warnings", metrics.get("warnings") or [], indent="  ")
    return "\n".join(out)


def _documents(documents: Sequence[Mapping[str, Any]]) -> list[str]:
    if not documents:
        return ["  documents: none"]
    out = [f"  documents: {len(documents)}"]
    for index, document in enumerate(documents, start=1):
        out += summarise_document(document, number=index, indent="    ")
    return out


def summarise_document(document: Mapping[str, Any], *, number: int, indent: str) -> list[str]:
    """Lines about one document: «1. BALANCE (full) — done, 29 lines, sheet «…»» and below it
    the failed checks and the warnings."""
    kind = document.get("document_type", "?")
    variant = document.get("form_variant")
    parts = [f"{kind} ({variant})" if variant else str(kind), "—", str(document.get("status"))]
    size = _size(document)
    where = _where(document.get("locator"))
    head = f"{indent}{number}. {' '.join(parts)}"
    head += "".join(f", {part}" for part in (size, where) if part)
    out = [head]
    header = _header(document.get("header"))
    if header:
        out.append(f"{indent}   {header}")
    failed = list(failed_checks(document.get("checks")))
    if failed:
        out.append(f"{indent}   failed checks: {len(failed)}")
        out += [f"{indent}     - {text}" for text in failed[:_LISTED]]
        if len(failed) > _LISTED:
            out.append(f"{indent}     … and {len(failed) - _LISTED} more")
    else:
        out.append(f"{indent}   failed checks: none")
    out += _warnings("warnings", document.get("warnings") or [], indent=f"{indent}   ")
    return out


def _header(header: Any) -> str | None:
    """«ООО «Ромашка» · ИНН 7728168971 · 2024-12-31 · тыс. руб.»: a field the document has but
    did not find says so, a field to review is marked."""
    if not isinstance(header, Mapping):
        return None
    review = set(header.get("needs_review_fields") or [])
    start, end = header.get("period_start"), header.get("period_end")
    fields = [
        ("organization_name", "organisation", header.get("organization_name"), "{}"),
        ("inn", "ИНН", header.get("inn"), "ИНН {}"),
        ("report_date", "date", header.get("report_date"), "{}"),
        ("period", "period", f"{start} – {end}" if start and end else None, "{}"),
        ("units", "units", header.get("units"), "{}"),
    ]
    shown = []
    for name, label, value, template in fields:
        if value:
            mark = " (needs review)" if name in review else ""
            shown.append(template.format(value) + mark)
        elif name in header:
            shown.append(f"{label} not found")
    return " · ".join(shown) if shown else None


def _size(document: Mapping[str, Any]) -> str | None:
    lines = document.get("lines")
    if isinstance(lines, list):
        return f"{len(lines)} lines"
    rows = document.get("rows")
    if isinstance(rows, list):
        return f"{len(rows)} rows"
    total = document.get("rows_total")
    if isinstance(total, int):
        return f"{total} rows"
    return None


def _where(locator: Any) -> str | None:
    first = locator[0] if isinstance(locator, list) and locator else locator
    if not isinstance(first, Mapping):
        return None
    sheets = [
        str(item["sheet"])
        for item in (locator if isinstance(locator, list) else [locator])
        if isinstance(item, Mapping) and item.get("sheet")
    ]
    if sheets:
        return "sheet " + ", ".join(f"«{sheet}»" for sheet in sheets)
    if first.get("page") is not None:
        return f"page {first['page']}"
    return None


def failed_checks(checks: Any) -> Iterable[str]:
    """Every failed check: statement relations (hard, soft) and ОСВ checks."""
    if not isinstance(checks, Mapping):
        return
    for key in sorted(checks):
        items = checks[key]
        if not isinstance(items, list):
            continue
        label = {"relations_failed": "relation", "soft_relations_failed": "soft relation"}.get(
            key, key.removesuffix("_failed").replace("_", " ")
        )
        for item in items:
            if isinstance(item, Mapping):
                yield f"{label} {_check_text(item)}"


def _check_text(item: Mapping[str, Any]) -> str:
    what = item.get("relation") or item.get("check") or "?"
    where = item.get("ref") or (
        f"column {item['column_index']}" if item.get("column_index") is not None else None
    )
    text = str(what) + (f" at {where}" if where else "")
    if item.get("column") and item.get("check"):
        text += f" ({item['column']})"
    return text + f": expected {item.get('expected')}, got {item.get('actual')}"


def _warnings(title: str, warnings: Sequence[Any], *, indent: str) -> list[str]:
    """The warnings folded by code (and header field): «COLUMN_PERIOD_UNKNOWN ×212 (info): …»,
    «HEADER_FIELD_MISSING: inn (info): …»."""
    items = [w for w in warnings if isinstance(w, Mapping)]
    if not items:
        return []
    folded: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for warning in items:
        key = (
            str(warning.get("code", "?")),
            str(warning.get("field") or ""),
            str(warning.get("severity", "?")),
        )
        folded.setdefault(key, []).append(warning)
    out = [f"{indent}{title}: {len(items)}"]
    for (code, field, severity), same in list(folded.items())[:_LISTED]:
        name = f"{code}: {field}" if field else code
        times = f" ×{len(same)}" if len(same) > 1 else ""
        out.append(f"{indent}  - {name}{times} ({severity}): {same[0].get('message', '')}")
    if len(folded) > _LISTED:
        rest = sum(len(same) for same in list(folded.values())[_LISTED:])
        out.append(f"{indent}  … and {rest} more ({len(folded) - _LISTED} codes)")
    return out


def file_line(result: Mapping[str, Any], *, name: str, file_type: str) -> str:
    """One line of a batch: «a.xlsx  XLSX  needs_check  BALANCE, INCOME  1 failed check»."""
    status = str(result.get("status", "?"))
    documents = [d for d in result.get("documents") or [] if isinstance(d, Mapping)]
    error = result.get("error")
    if isinstance(error, Mapping):
        what = f"{error.get('code', '?')}: {error.get('message', '')}"
    elif documents:
        kinds = ", ".join(str(d.get("document_type", "?")) for d in documents)
        failed = sum(len(list(failed_checks(d.get("checks")))) for d in documents)
        what = f"{kinds}; {failed} failed check{'' if failed == 1 else 's'}"
    else:
        what = "no document"
    return f"{status:<12} {name} ({file_type}): {what}"


def total_line(statuses: Sequence[str], *, skipped: int = 0) -> str:
    """«total: 4 files — 2 done, 1 needs_check, 1 error; 1 skipped»."""
    counts: dict[str, int] = {}
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    order = ["done", "needs_check", "error"]
    parts = [f"{counts[k]} {k}" for k in order + sorted(set(counts) - set(order)) if k in counts]
    text = f"total: {len(statuses)} file{'' if len(statuses) == 1 else 's'}"
    text += " — " + ", ".join(parts) if parts else ""
    return text + (f"; {skipped} skipped" if skipped else "")
