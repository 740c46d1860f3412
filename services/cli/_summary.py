"""Readable summaries of results, in the analyst's Russian: documents with type, form variant,
status, size, failed checks and warnings. One document formatter serves both the result file of
a local parse and the core's documents read API (both use the contract's field names). A batch
line keeps the status code first (`done`, `needs_check`, `error`) so it can still be grepped.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from services.arm_statements.money import show_amount
from services.contract.words import DOCUMENT_TYPES, FORM_VARIANTS, SEVERITIES, STATUS_NAMES

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
_CHECKS = {
    "relations_failed": "соотношение",
    "soft_relations_failed": "мягкое соотношение",
    "failed": "проверка ОСВ",
}


def _status(status: object) -> str:
    return STATUS_NAMES.get(str(status), str(status))


def _kind(document_type: object) -> str:
    return DOCUMENT_TYPES.get(str(document_type), str(document_type))


def _date(value: object) -> str:
    try:
        return dt.date.fromisoformat(str(value)).strftime("%d.%m.%Y")
    except ValueError:
        return str(value)


def summarise_result(result: Mapping[str, Any], *, name: str, file_type: str) -> str:
    """A result file (or the error body of a local parse) as text."""
    service = result.get("service") or {}
    head = f"{name} ({file_type}) — {_status(result.get('status', '?'))}"
    out = [head, f"  сервис: {service.get('name', '?')} {service.get('version', '')}".rstrip()]
    metrics = result.get("metrics") or {}
    if isinstance(metrics.get("duration_ms"), int):
        out[-1] += f", {metrics['duration_ms']} мс"
    if service.get("statements_version"):
        out.append(f"  правила отчётности: {service['statements_version']}")
    error = result.get("error")
    if isinstance(error, Mapping):
        out.append(f"  ошибка {error.get('code', '?')}: {error.get('message', '')}")
    if result.get("group_schema"):
        out.append(f"  схема группы: {result['group_schema']}")
    out += _documents(result.get("documents") or [])
    out += _warnings("замечания к файлу", metrics.get("warnings") or [], indent="  ")
    return "\n".join(out)


def summarise_job(
    job: Mapping[str, Any],
    documents: Sequence[Mapping[str, Any]] | None,
    *,
    name: str | None = None,
) -> str:
    """A job of the core and, when the read API gave them, its documents."""
    title = name or str(job.get("job_id", "?"))
    out = [f"{title} — {_status(job.get('status', '?'))}"]
    out.append(
        f"  задание {job.get('job_id')}  файл {job.get('file_id')}  попытка {job.get('attempt')}"
        f"  конвейер {job.get('pipeline')}"
    )
    if job.get("service_name"):
        line = f"  сервис: {job['service_name']} {job.get('service_version') or ''}".rstrip()
        metrics = job.get("metrics") or {}
        if isinstance(metrics, Mapping) and isinstance(metrics.get("duration_ms"), int):
            line += f", {metrics['duration_ms']} мс"
        out.append(line)
    if job.get("error_code"):
        out.append(f"  ошибка {job['error_code']}: {job.get('error_message') or ''}".rstrip())
    if job.get("group_schema"):
        out.append(f"  схема группы: {job['group_schema']}")
    if documents is None:
        out.append("  документы: это ядро их не отдаёт (нет API чтения документов)")
    else:
        out += _documents(documents)
    metrics = job.get("metrics") or {}
    if isinstance(metrics, Mapping):
        out += _warnings("замечания к файлу", metrics.get("warnings") or [], indent="  ")
    return "\n".join(out)


def _documents(documents: Sequence[Mapping[str, Any]]) -> list[str]:
    if not documents:
        return ["  документов нет"]
    out = [f"  документов: {len(documents)}"]
    for index, document in enumerate(documents, start=1):
        out += summarise_document(document, number=index, indent="    ")
    return out


def summarise_document(document: Mapping[str, Any], *, number: int, indent: str) -> list[str]:
    """Lines about one document: «1. Баланс (полная) — готово, строк: 29, лист «…»» and below it
    the failed checks and the warnings."""
    kind = _kind(document.get("document_type", "?"))
    variant = document.get("form_variant")
    named = f"{kind} ({FORM_VARIANTS.get(str(variant), variant)})" if variant else kind
    parts = [named, "—", _status(document.get("status"))]
    size = _size(document)
    where = _where(document.get("locator"))
    head = f"{indent}{number}. {' '.join(parts)}"
    head += "".join(f", {part}" for part in (size, where) if part)
    out = [head]
    header = _header(document.get("header"))
    if header:
        out.append(f"{indent}   {header}")
    failed = list(failed_checks(document.get("checks"), document.get("columns")))
    if failed:
        out.append(f"{indent}   не выполнено проверок: {len(failed)}")
        out += [f"{indent}     - {text}" for text in failed[:_LISTED]]
        if len(failed) > _LISTED:
            out.append(f"{indent}     … и ещё {len(failed) - _LISTED}")
    else:
        out.append(f"{indent}   проверки: все выполнены")
    out += _warnings("замечания", document.get("warnings") or [], indent=f"{indent}   ")
    return out


def _header(header: Any) -> str | None:
    """«ООО «Ромашка» · ИНН 7728168971 · 31.12.2024 · тыс. руб.»: a field the document has but
    did not find says so («ИНН не найден»), a field to review is marked."""
    if not isinstance(header, Mapping):
        return None
    review = set(header.get("needs_review_fields") or [])
    start, end = header.get("period_start"), header.get("period_end")
    date = header.get("report_date")
    fields = [
        ("organization_name", "организация не найдена", header.get("organization_name"), "{}"),
        ("inn", "ИНН не найден", header.get("inn"), "ИНН {}"),
        ("report_date", "отчётная дата не найдена", _date(date) if date else None, "{}"),
        (
            "period",
            "период не найден",
            f"{_date(start)} – {_date(end)}" if start and end else None,
            "{}",
        ),
        ("units", "единицы не найдены", header.get("units"), "{}"),
    ]
    shown = []
    for name, missing, value, template in fields:
        if value:
            mark = " (нужна проверка)" if name in review else ""
            shown.append(template.format(value) + mark)
        elif name in header:
            shown.append(missing)
    return " · ".join(shown) if shown else None


def _size(document: Mapping[str, Any]) -> str | None:
    lines = document.get("lines")
    if isinstance(lines, list):
        return f"строк: {len(lines)}"
    rows = document.get("rows")
    if isinstance(rows, list):
        return f"строк: {len(rows)}"
    total = document.get("rows_total")
    if isinstance(total, int):
        return f"строк: {total}"
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
        return ("лист " if len(sheets) == 1 else "листы ") + ", ".join(f"«{s}»" for s in sheets)
    if first.get("page") is not None:
        return f"страница {first['page']}"
    return None


def failed_checks(checks: Any, columns: Any = None) -> Iterable[str]:
    """Every failed check in Russian: statement relations (hard, soft), each in its column by
    the column's label when `columns` are given, and ОСВ checks at their row."""
    if not isinstance(checks, Mapping):
        return
    labels = {
        c.get("column_index"): c.get("label")
        for c in (columns if isinstance(columns, list) else [])
        if isinstance(c, Mapping) and c.get("label")
    }
    for key in sorted(checks):
        items = checks[key]
        if not isinstance(items, list):
            continue
        label = _CHECKS.get(key, key.removesuffix("_failed").replace("_", " "))
        for item in items:
            if isinstance(item, Mapping):
                yield f"{label} {_check_text(item, labels)}"


def _check_text(item: Mapping[str, Any], labels: Mapping[Any, Any]) -> str:
    what = item.get("relation") or item.get("check") or "?"
    column = item.get("column_index")
    where = item.get("ref") or (
        (f"«{labels[column]}»" if column in labels else f"колонка {column}")
        if column is not None
        else None
    )
    text = str(what) + (f" в {where}" if where else "")
    if item.get("column") and item.get("check"):
        text += f" ({item['column']})"
    expected, actual = item.get("expected"), item.get("actual")
    shown = [("—" if v is None else show_amount(v)) for v in (expected, actual)]
    return text + f": ожидалось {shown[0]}, получено {shown[1]}"


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
        level = SEVERITIES.get(severity, severity)
        out.append(f"{indent}  - {name}{times} ({level}): {same[0].get('message', '')}")
    if len(folded) > _LISTED:
        rest = sum(len(same) for same in list(folded.values())[_LISTED:])
        out.append(f"{indent}  … и ещё {rest} (кодов: {len(folded) - _LISTED})")
    return out


def file_line(result: Mapping[str, Any], *, name: str, file_type: str) -> str:
    """One line of a batch: «needs_check  a.xlsx (XLSX): Баланс, ОФР; не выполнено проверок:
    1» (the status code first, for grep)."""
    status = str(result.get("status", "?"))
    documents = [d for d in result.get("documents") or [] if isinstance(d, Mapping)]
    error = result.get("error")
    if isinstance(error, Mapping):
        what = f"{error.get('code', '?')}: {error.get('message', '')}"
    elif documents:
        kinds = ", ".join(_kind(d.get("document_type", "?")) for d in documents)
        failed = sum(len(list(failed_checks(d.get("checks")))) for d in documents)
        what = f"{kinds}; не выполнено проверок: {failed}"
    else:
        what = "документов нет"
    return f"{status:<12} {name} ({file_type}): {what}"


def total_line(statuses: Sequence[str], *, skipped: int = 0) -> str:
    """«итого файлов: 4 — готово: 2, нужна проверка: 1, ошибка: 1; пропущено: 1»."""
    counts: dict[str, int] = {}
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    order = ["done", "needs_check", "error"]
    keys = order + sorted(set(counts) - set(order))
    parts = [f"{_status(k)}: {counts[k]}" for k in keys if k in counts]
    text = f"итого файлов: {len(statuses)}"
    text += " — " + ", ".join(parts) if parts else ""
    return text + (f"; пропущено: {skipped}" if skipped else "")
