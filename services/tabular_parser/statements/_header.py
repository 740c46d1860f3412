"""The form's title block and «Коды» block: organisation, ИНН, date, units and the codes.

Each field is read from the cell right of its printed label (confidence 100). Since order 61n
the form also prints the AUDITOR's name, ИНН and ОГРН above the table: a row that mentions
«аудитор» (or follows one that does) never gives the organisation's fields.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from services.arm_statements import (
    HEADER_FIELDS,
    INN_LENGTHS,
    HeaderField,
    code_digits,
    date_in_text,
    fold,
    inn_checksum_ok,
    normalize_units,
    okei_for_units,
    report_date_in_texts,
    units_for_okei,
)
from services.excel.model import CellValue, Sheet
from services.excel.text import cell_text

__all__ = ["SheetHeader", "read_header"]

LABELLED = 100.0
FROM_TITLE = 95.0
DERIVED = 90.0

_ORGANIZATION = re.compile(
    r"^(?:(?:полное\s+|сокращенное\s+)?наименование\s+)?организаци[яи](?![а-я])"
    r"|^(?:полное|сокращенное)\s+наименование(?![а-я])"
)
_INN_LABEL = re.compile(r"^инн(?![а-я])|идентификационный номер налогоплательщика")
# Units printed on their own: «(руб.)», «тыс. руб.», «в миллионах рублей», «(в тыс. рублей)».
_UNITS_CELL = re.compile(r"^\(?\s*(в\s+)?(тыс\w*\.?|млн\.?|миллион\w*)?\s*(руб\w*\.?)?\s*\)?$")
# The caption printed under the organisation's name in forms 0420002/0420003 and others:
# «(полное фирменное наименование и сокращенное фирменное наименование)».
_NAME_CAPTION = re.compile(r"^\(\s*(полное|сокращенное|фирменное)?[^)]*наименовани")
_PERIOD_SPAN = re.compile(r"\bс\s+\S.*?\bпо\s+(\S.*)$")
_INN_DIGITS = re.compile(r"(?<!\d)(\d{12}|\d{10})(?!\d)")
_BELOW = 2  # a code printed under its label (a grid of «по ОКПО | ОГРН | …» headers)


@dataclass(slots=True)
class SheetHeader:
    """What the block above a table says; ``knd`` is kept for classification only."""

    fields: dict[str, HeaderField] = field(default_factory=dict)
    knd: str | None = None

    def get(self, name: str) -> HeaderField:
        return self.fields.setdefault(name, HeaderField())


def _is_label(s: str) -> bool:
    return bool(
        "по окуд" in s
        or s in ("окуд", "окпо", "океи")
        or "по кнд" in s
        or "по окпо" in s
        or "по оквэд" in s
        or "окопф" in s
        or "окфс" in s
        or "по океи" in s
        or s.startswith("дата (число")
        or s == "коды"
        or _INN_LABEL.search(s)
        or s.startswith("единица измерения")
        or s.startswith(("местонахождение", "адрес", "почтовый адрес"))
        or _ORGANIZATION.match(s)
        or s.startswith("вид экономической")
        or s.startswith("организационно-правовая")
    )


def _right(sheet: Sheet, row: int, col: int) -> list[tuple[int, str]]:
    """Non-empty texts right of ``col`` in ``row``, up to the next label."""
    found: list[tuple[int, str]] = []
    line = sheet.rows[row] if row < len(sheet.rows) else []
    for c in range(col + 1, len(line)):
        text = cell_text(line[c])
        if not text:
            continue
        if _is_label(fold(text)):
            break
        found.append((c, text))
    return found


def _below(sheet: Sheet, row: int, col: int) -> str:
    """The text printed under a label in its column, within the next rows."""
    for r in range(row + 1, min(row + 1 + _BELOW, len(sheet.rows))):
        text = cell_text(sheet.cell(r, col))
        if text:
            return text
    return ""


def _code_text(sheet: Sheet, row: int, col: int, first: str) -> str:
    """The text a code label points at: right of it, or, where the right-hand cell is the
    next column header of a grid («по ОКПО | основной государственный …»), under it."""
    if any(ch.isdigit() for ch in first):
        return first
    below = _below(sheet, row, col)
    return below if any(ch.isdigit() for ch in below) else first


def _units_cell(text: str) -> str | None:
    """Units printed alone in a cell («(руб.)», «в миллионах рублей»), normalised."""
    s = fold(text)
    if len(s) > 40 or not _UNITS_CELL.match(s) or not any(ch.isalpha() for ch in s):
        return None
    return normalize_units(s)


def _caption_name(sheet: Sheet, row: int, col: int) -> str | None:
    """The organisation's name printed above its caption «(полное … наименование)»."""
    for r in range(row - 1, max(-1, row - 1 - _BELOW), -1):
        for c, value in enumerate(sheet.rows[r]):
            text = cell_text(value)
            if text and abs(c - col) <= 1 and any(ch.isalpha() for ch in text):
                s = fold(text)
                dated = s.startswith(("на ", "за ")) or date_in_text(text) is not None
                return None if _is_label(s) or dated else text
    return None


def _remainder(text: str, label: re.Pattern[str]) -> str:
    """What a cell prints after its label («Организация: ООО Ромашка» → «ООО Ромашка»)."""
    m = label.search(text)
    rest = text[m.end() :] if m else ""
    return rest.strip(" :.-–—")


def _row_text(sheet: Sheet, row: int) -> str:
    if row < 0 or row >= len(sheet.rows):
        return ""
    return fold(" ".join(cell_text(v) for v in sheet.rows[row]))


def _is_auditor_row(sheet: Sheet, row: int) -> bool:
    if "аудитор" in _row_text(sheet, row):
        return True
    previous = row - 1
    while previous >= 0 and not _row_text(sheet, previous):
        previous -= 1
    return "аудитор" in _row_text(sheet, previous) and "организаци" not in _row_text(sheet, row)


def _code_field(text: str, *, length: int | None = None) -> HeaderField:
    digits = code_digits(text, length=length)
    if not digits:
        return HeaderField(None, text, 0.0, review=True)
    return HeaderField(digits, text, LABELLED)


def _inn_part(text: str) -> str:
    """The ИНН of a text that prints more numbers («ИНН/КПП 7728168971/772801001»)."""
    if len(code_digits(text)) in INN_LENGTHS:
        return text
    found = _INN_DIGITS.search(text)
    return found.group(1) if found else text


def _inn_field(text: str) -> HeaderField:
    digits = code_digits(text)
    if len(digits) not in INN_LENGTHS:
        return HeaderField(None, text, 0.0, review=True)
    if not inn_checksum_ok(digits):
        return HeaderField(digits, text, 50.0, review=True)
    return HeaderField(digits, text, LABELLED)


def _set(read: SheetHeader, name: str, value: HeaderField) -> None:
    if read.get(name).text is None:
        read.fields[name] = value


def _read_cell(read: SheetHeader, sheet: Sheet, row: int, col: int, text: str) -> None:
    s = fold(text)
    right = _right(sheet, row, col)
    first = right[0][1] if right else ""
    if "по окуд" in s or s == "окуд":
        own = code_digits(s.split("окуд", 1)[1])
        if own or first:
            _set(read, "okud", _code_field(own or first, length=7))
    elif "по кнд" in s:
        read.knd = code_digits(s.split("кнд", 1)[1]) or code_digits(first) or None
    elif s.startswith("дата (число") or s == "дата":
        line = sheet.rows[row]
        value, raw = _date_from_cells([line[c] for c, _ in right])
        if raw is not None:
            iso = value.isoformat() if value else None
            _set(
                read,
                "report_date",
                HeaderField(iso, raw, LABELLED if value else 0.0, value is None),
            )
    elif "по окпо" in s or s == "окпо":
        own = code_digits(s.split("окпо", 1)[1])
        shown = own or _code_text(sheet, row, col, first)
        if shown:
            _set(read, "okpo", _code_field(shown))
    elif _INN_LABEL.search(s) and not _is_auditor_row(sheet, row):
        own = code_digits(_inn_part(s))
        candidate = own if len(own) in INN_LENGTHS else _inn_part(first)
        if candidate:
            _set(read, "inn", _inn_field(candidate))
    elif "окопф" in s or "окфс" in s:
        codes = [t for _, t in right if code_digits(t)]
        if "окопф" in s and "окфс" in s:
            if codes:
                _set(read, "okopf", _code_field(codes[0]))
            if len(codes) > 1:
                _set(read, "okfs", _code_field(codes[1]))
        elif codes:
            _set(read, "okopf" if "окопф" in s else "okfs", _code_field(codes[0]))
    elif "по океи" in s or s == "океи":
        own = code_digits(s.split("океи", 1)[1])
        if own or first:
            _set(read, "okei", _code_field(own or first, length=3))
        _units_before_okei(read, text)
    elif s.startswith("единица измерения"):
        raw = _remainder(text, re.compile(r"единица измерения", re.IGNORECASE)) or first
        if raw:
            units = normalize_units(raw)
            _set(read, "units", HeaderField(units, raw, LABELLED if units else 0.0, units is None))
    elif s.startswith(("местонахождение", "адрес", "почтовый адрес")):
        raw = _remainder(text, re.compile(r"(местонахождение\s*)?(\(адрес\)|адрес)", re.IGNORECASE))
        if not raw:
            raw = first or next(iter(t for _, t in _right(sheet, row + 1, -1)), "")
        if raw:
            _set(read, "address", HeaderField(raw, raw, LABELLED))
    elif _ORGANIZATION.match(s) and not _is_auditor_row(sheet, row):
        raw = _remainder(text, re.compile(_ORGANIZATION.pattern, re.IGNORECASE))
        if not raw:
            raw = first
        if raw:
            _set(read, "organization_name", HeaderField(raw, raw, LABELLED))


def _units_before_okei(read: SheetHeader, text: str) -> None:
    """Units printed in the codes column before their code («в тыс. рублей по ОКЕИ 384»,
    «Единица измерения: в тыс. руб. по ОКЕИ»): the words before «по ОКЕИ» are the units."""
    before = re.split(r"(?i)\bпо\s+океи", text, maxsplit=1)[0]
    raw = _remainder(before, re.compile(r"единица измерения", re.IGNORECASE)) or before
    raw = raw.strip(" :,;")
    if raw and (units := normalize_units(raw)) is not None:
        _set(read, "units", HeaderField(units, raw, LABELLED))


def _read_unlabelled(read: SheetHeader, sheet: Sheet, row: int, col: int, text: str) -> None:
    """Fields a form prints without a label: units alone in a cell, a name over its caption."""
    alone = len(_right(sheet, row, -1)) <= 2  # not one of a table's column headers «руб. | вал.»
    if alone and (units := _units_cell(text)) is not None:
        _set(read, "units", HeaderField(units, text, LABELLED))
    elif (
        _NAME_CAPTION.match(fold(text))
        and "аудитор" not in fold(text)
        and (name := _caption_name(sheet, row, col)) is not None
    ):
        _set(read, "organization_name", HeaderField(name, name, FROM_TITLE))


def _date_from_cells(values: list[CellValue]) -> tuple[dt.date | None, str | None]:
    """The date printed in the cells right of «Дата (число, месяц, год)», and its raw text.

    1C prints one date cell (a real date or "31.12.2024"); paper-like layouts print day, month
    and year in three cells.
    """
    first = next((v for v in values if cell_text(v)), None)
    if isinstance(first, dt.datetime):
        return first.date(), cell_text(first)
    if isinstance(first, dt.date):
        return first, cell_text(first)
    return report_date_in_texts([t for v in values if (t := cell_text(v))])


def _title_date(sheet: Sheet, first_row: int, last_row: int) -> tuple[dt.date, str] | None:
    """«на 31 декабря 2024 г.» / «за Январь - Декабрь 2024 г.» printed under the title."""
    for row in range(first_row, min(last_row, len(sheet.rows))):
        for value in sheet.rows[row]:
            text = cell_text(value)
            s = fold(text)
            if not (s.startswith(("на ", "за ")) or "баланс на" in s or "результатах за" in s):
                continue
            span = _PERIOD_SPAN.search(s)  # «за период с 01.01.2016 по 31.12.2016»: its end
            found = date_in_text(span.group(1)) if span else date_in_text(text)
            if found is not None:
                return found, text
    return None


def read_header(sheet: Sheet, first_row: int, last_row: int) -> SheetHeader:
    """The header fields printed in rows ``first_row`` ≤ row < ``last_row`` of ``sheet``."""
    read = SheetHeader()
    for row in range(first_row, min(last_row, len(sheet.rows))):
        for col, value in enumerate(sheet.rows[row]):
            text = cell_text(value)
            if not text:
                continue
            if _is_label(fold(text)):
                _read_cell(read, sheet, row, col, text)
            else:
                _read_unlabelled(read, sheet, row, col, text)
    if read.get("report_date").value is None and (title := _title_date(sheet, first_row, last_row)):
        found, raw = title
        read.fields["report_date"] = HeaderField(found.isoformat(), raw, FROM_TITLE)
    units, okei = read.get("units"), read.get("okei")
    if units.value is None and units.text is None and (derived := units_for_okei(okei.value)):
        read.fields["units"] = HeaderField(derived, None, DERIVED)
    if okei.text is None and (okei_code := okei_for_units(units.value)):
        read.fields["okei"] = HeaderField(okei_code, None, DERIVED)
    for name in HEADER_FIELDS:
        read.get(name)
    return read
