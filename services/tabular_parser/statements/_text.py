"""Line names as statements print them: the footnote number glued to or set after a name.

Cell texts come from ``excel.text.cell_text`` and their comparison form from
``arm_statements.fold``, both shared with the other recognisers.
"""

from __future__ import annotations

import re

__all__ = ["strip_name_footnote"]

# A footnote reference glued to a word or bracket («Выручка7», «активы)5») or set off by a space
# at the end («активы 5»); «по разделу 1» is a section number, not a footnote.
_GLUED_FOOTNOTE = re.compile(r"(?<=[A-Za-zА-Яа-яЁё)\]»\"])\d{1,2}$")
_SPACED_FOOTNOTE = re.compile(r"(?<!разделу)(?<!раздел)\s\d{1,2}$")


def strip_name_footnote(name: str) -> str:
    """A line name without the footnote number printed after it («Выручка7» → «Выручка»)."""
    cleaned = _GLUED_FOOTNOTE.sub("", name)
    if cleaned == name:
        cleaned = _SPACED_FOOTNOTE.sub("", name)
    return cleaned.strip()
