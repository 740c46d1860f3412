"""Parent and depth of every ОСВ entry, from Excel outline levels or else from the codes.

1C keeps the hierarchy as row outline levels (summary rows above their details). Without
them (HTML, some .xls) an account's parent is the nearest account above whose code prefixes
it (62 → 62.01), and a subconto row belongs to the nearest account above. With more than one
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
    return unknown


def _is_prefix(parent: str | None, code: str) -> bool:
    return parent is not None and code.startswith(parent + ".")
