"""Which number formats hide a stored number behind literal text, so calamine's date guess is wrong.

1C writes per-cell formats such as `[=-6690045.68]"(6 690 045,68)"` (a condition, then quoted
text) and `[=0]""` (an empty text for zero), numbered from 50. For XLS and XLSB,
python-calamine 0.9.1 (the latest release, with no option to turn the guess off) takes every
format id that Excel's built-in table reserves for dates (14-22, 27-36, 45-47, 50-58) as a
date whatever code the file writes for it, and reads such cells as `datetime.time`, losing the
number (−6690045.68 becomes 07:40:48); for XLSX it judges the code. A format is a date only if a date/time token (d m y h s, AM/PM,
an elapsed `[h]`) stands outside quotes, escapes (`\\x`, `_x`, `*x`) and bracketed conditions or
colours. The streaming scans keep the raw number of every cell whose format is a *trap* — not a
date by that rule, yet holding a character calamine's guess may take for one — and the reader
puts it back where calamine returned a date or a time. Only a format written in the file is
judged: a built-in date format (no code in the file) stays a date.
"""

from __future__ import annotations

__all__ = ["CALAMINE_DATE_IDS", "is_date_format", "is_date_trap"]

# The format ids python-calamine reads as dates in XLS and XLSB, whatever their written code
# (measured on 0.9.1 over ids 5-163).
CALAMINE_DATE_IDS = frozenset((*range(14, 23), *range(27, 37), 45, 46, 47, *range(50, 59)))

_DATE_LETTERS = frozenset("dmyhsDMYHS")
_ELAPSED = frozenset("hmsHMS")
# A date letter or a bracket anywhere (quoted, escaped, conditional): what a guess can misread.
_TRAP_CHARS = frozenset("dmyhsDMYHSaApP[")


def is_date_format(code: str) -> bool:
    """True when the first section of `code` shows its number as a date, a time or a duration."""
    section = _first_section(code).replace("General", "").replace("general", "")
    index, end = 0, len(section)
    while index < end:
        ch = section[index]
        if ch in "\\_*":
            index += 2
            continue
        if ch == '"':
            closing = section.find('"', index + 1)
            index = end if closing < 0 else closing + 1
            continue
        if ch == "[":
            closing = section.find("]", index + 1)
            inside = section[index + 1 : end if closing < 0 else closing]
            if inside and set(inside) <= _ELAPSED:  # [h], [mm], [ss]: a duration
                return True
            index = end if closing < 0 else closing + 1
            continue
        if ch in _DATE_LETTERS or section.startswith(("AM/PM", "am/pm", "A/P", "a/p"), index):
            return True
        index += 1
    return False


def is_date_trap(code: str, format_id: int | None = None) -> bool:
    """True for a written format that is not a date but that a date guess may misread: its id
    is one calamine takes for a date (`format_id`, XLS and XLSB), or it holds a date letter or
    a bracket anywhere."""
    plain = code.replace("General", "").replace("general", "")
    if is_date_format(plain):
        return False
    return format_id in CALAMINE_DATE_IDS or not _TRAP_CHARS.isdisjoint(plain)


def _first_section(code: str) -> str:
    """The part before the first `;` that is not quoted or escaped (the positive section)."""
    quoted = escaped = False
    for index, ch in enumerate(code):
        if escaped:
            escaped = False
        elif ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch == "\\":
            escaped = True
        elif ch == ";":
            return code[:index]
    return code
