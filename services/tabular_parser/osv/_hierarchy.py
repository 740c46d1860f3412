"""Parent and depth of every ОСВ entry, from Excel outline levels or else from the codes.

1C keeps the hierarchy as row outline levels (summary rows above their details). Without
them (HTML, some .xls) an account's parent is the nearest account above whose code prefixes
it (62 → 62.01), and a subconto row belongs to the nearest account above; a bank's group
code printed under its accounts («10» after «1010», «1011») is their parent, and a heading
in the code column («КЛАСС 1 …», «ПО КЛАССУ») stands outside the hierarchy. With more than one
subconto kind and no outline levels the nesting of subconto rows cannot be known: they stay
siblings and their parent is reported so that its children's sum is not checked.
"""

from __future__ import annotations

from ._body import Entry

__all__ = ["assign_levels"]


def assign_levels(entries: list[Entry], subconto_kinds: int) -> tuple[bool, set[int]]:
    """Set `level` and `parent` in place; return (outlined, parents whose nesting is unknown)."""
    outlines = [e.outline for e in entries if e.kind != "total"]
    if max(outlines, default=0) > 0:
        _by_outline(entries, min(outlines))
        return True, set()
    return False, _by_codes(entries, subconto_kinds)


def _by_outline(entries: list[Entry], base: int) -> None:
    stack: list[int] = []
    for i, entry in enumerate(entries):
        if entry.kind == "total":
            continue
        entry.level = max(entry.outline - base, 0)
        while stack and entries[stack[-1]].level >= entry.level:
            stack.pop()
        entry.parent = stack[-1] if stack else -1
        stack.append(i)


def _by_codes(entries: list[Entry], subconto_kinds: int) -> set[int]:
    stack: list[int] = []
    unknown: set[int] = set()
    for i, entry in enumerate(entries):
        if entry.kind == "total":
            continue
        if entry.heading:  # a section heading or total: no subconto of the account above
            stack = []
            continue
        code = entry.account
        if code is not None:
            while stack and not _is_prefix(entries[stack[-1]].account, code):
                stack.pop()
        else:
            while stack and entries[stack[-1]].account is None:
                stack.pop()
            if stack and subconto_kinds > 1:
                unknown.add(stack[-1])
        entry.parent = stack[-1] if stack else -1
        entry.level = len(stack)
        stack.append(i)
    _summaries_below(entries)
    return unknown


def _summaries_below(entries: list[Entry]) -> None:
    """A bank's ведомость prints a group («10») under its accounts («1010», «1011» …): a
    top-level all-digit code takes the top-level rows right above it whose all-digit codes
    are longer and start with it as its children."""
    changed = False
    for i, entry in enumerate(entries):
        code = entry.account
        if code is None or entry.parent >= 0 or not code.isdigit():
            continue
        j = i - 1
        while j >= 0 and _digit_child(entries[j], code):
            j -= 1
        for child in range(j + 1, i):
            if entries[child].parent < 0:
                entries[child].parent = i
                changed = True
    if not changed:
        return
    for entry in entries:
        level, parent = 0, entry.parent
        while parent >= 0:
            level, parent = level + 1, entries[parent].parent
        entry.level = level


def _digit_child(entry: Entry, code: str) -> bool:
    """A row that may sit under the group `code` printed below it (a deeper account of it,
    or one of those accounts' own rows)."""
    if entry.parent >= 0:
        return True
    child = entry.account
    return (
        child is not None and child.isdigit() and len(child) > len(code) and child.startswith(code)
    )


def _is_prefix(parent: str | None, code: str) -> bool:
    return parent is not None and code.startswith(parent + ".")
