"""The lines above an ОСВ table: organisation, title, period, units, filters."""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.excel.model import Sheet

from ._cells import cell_text

__all__ = ["TITLE_RE", "TitleBlock", "read_title_block"]

TITLE_RE = re.compile(
    r"оборотно\s*-?\s*сальдов\w*\s+ведомост\w*|оборотн\w*\s+ведомост\w*|обороты\s+сч[её]та",
    re.IGNORECASE,
)
_ACCOUNT_RE = re.compile(
    r"(?:\bпо\s+сч[её]т\w*|\bобороты\s+сч[её]та)\s+(?P<code>[0-9A-Za-zА-Яа-яЁё.]+)", re.IGNORECASE
)
_PERIOD_LINE_RE = re.compile(r"^за\s+(?:период\s+)?(?P<period>\S.*)$", re.IGNORECASE)
_FOR_RE = re.compile(r"(?:^|\s)за\s+(?P<period>\S.*)$", re.IGNORECASE)
_LABEL_RE = re.compile(r"^(?P<label>[А-Яа-яЁё][А-Яа-яЁё ]{1,40}?)\s*:\s*(?P<rest>.*)$")
_UNITS_RE = re.compile(
    r"\bв\s+(?P<scale>тыс|млн|млрд)?\.?\s*руб\w*\.?|\bединица\s+измерения\s*:?\s*(?P<stated>\S.*)",
    re.IGNORECASE,
)
_IGNORED_LABELS = (
    "выводимые данные",
    "параметры",
    "детализация",
    "показатели",
    "дополнительные поля",
    "сортировка",
    "группировка",
)


@dataclass(slots=True)
class TitleBlock:
    organization_name: str | None = None
    title: str | None = None
    account: str | None = None
    period_text: str | None = None
    units: str | None = None
    filtered: bool = False


def read_title_block(
    sheet: Sheet, stop_row: int, start_row: int = 0, first_col: int = 0
) -> TitleBlock:
    """Read rows [start_row, stop_row): each row's non-empty cells joined in column order.

    A number left of the table's `first_col` is not title text (1C's flat exports print a
    row-level column there: «0 ООО "Ромашка"» must read «ООО "Ромашка"»)."""
    block = TitleBlock()
    first_plain_line: str | None = None
    for row in range(start_row, min(stop_row, len(sheet.rows))):
        cells = sheet.rows[row]
        texts = (cell_text(v) for c, v in enumerate(cells) if c >= first_col or isinstance(v, str))
        line = " ".join(t for t in texts if t)
        if not line:
            continue
        if block.title is None and (title := TITLE_RE.search(line)) is not None:
            _read_title(block, line, title.end())
            continue
        if _read_labelled(block, line):
            continue
        if block.units is None and (units := _units(line)) is not None:
            block.units = units
            continue
        if (
            block.title is not None
            and block.period_text is None
            and (period := _PERIOD_LINE_RE.match(line)) is not None
        ):  # «за период с 01.01.2016 по 31.12.2016» on the line under the title
            block.period_text = period["period"].strip()
            continue
        if first_plain_line is None and block.title is None:
            first_plain_line = line
    if block.organization_name is None:
        block.organization_name = first_plain_line
    return block


def _read_title(block: TitleBlock, line: str, title_end: int) -> None:
    block.title = line
    if (account := _ACCOUNT_RE.search(line)) is not None:
        block.account = account["code"].rstrip(".")
    if (period := _FOR_RE.search(line[title_end:])) is not None:
        block.period_text = period["period"].strip()


def _read_labelled(block: TitleBlock, line: str) -> bool:
    match = _LABEL_RE.match(line)
    if match is None:
        return False
    label = match["label"].strip().lower()
    rest = match["rest"].strip() or None
    if label == "организация":
        block.organization_name = block.organization_name or rest
    elif label in ("период", "за период"):
        block.period_text = block.period_text or rest
    elif label == "единица измерения":
        block.units = block.units or _units(line) or rest
    elif label == "отбор":
        block.filtered = True
    elif not label.startswith(_IGNORED_LABELS):
        return False
    return True


def _units(line: str) -> str | None:
    match = _UNITS_RE.search(line)
    if match is None:
        return None
    if match["stated"] is not None:
        stated = match["stated"].strip()
        inner = _UNITS_RE.search(stated)
        return _units(stated) if inner is not None and inner["stated"] is None else stated
    scale = (match["scale"] or "").lower()
    return f"{scale}. руб." if scale else "руб."
