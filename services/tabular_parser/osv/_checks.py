"""The control sums of an ОСВ (shared/notes/domain.md), exact to the kopeck.

1. ROW_BALANCE: (СНД − СНК) + ОбД − ОбК = СКД − СКК on every row;
2. CHILDREN_SUM: Σ children = parent, column by column (Dr and Cr separately), only for
   parents that have children. A parent whose balance 1C prints netted (one side only) is
   accepted when the netted balance of its children equals it;
3. TOTAL_SUM: Итого = Σ top-level rows (or Σ top-level balance accounts, when the sheet's
   Итого leaves the off-balance accounts out); with «Итого по активу» / «Итого по пассиву»
   each sums the top-level rows of its own section;
4. DEBIT_EQUALS_CREDIT (full ОСВ only): Σ top-level balance accounts has СНД = СНК, ОбД = ОбК,
   СКД = СКК; off-balance accounts are single-entry and left out. It needs no «Итого» row: a
   flat export without one (issue 26) is still checked, the failure pointing at the last
   top-level row.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._accounts import is_off_balance
from ._body import Entry
from ._columns import SUM_FIELDS

__all__ = ["Failure", "run_checks"]

_ZERO = 0
_WIDTH = len(SUM_FIELDS)
_PAIRS = (("opening", 0), ("turnover", 2), ("closing", 4))
_BALANCE_PAIRS = (0, 4)


@dataclass(frozen=True, slots=True)
class Failure:
    check: str
    entry: int  # index into the entries
    column: str
    expected: int  # kopecks, as Entry.values
    actual: int


def run_checks(
    entries: list[Entry],
    total: int | None,
    *,
    full: bool,
    skip_children: set[int],
    subtotals: frozenset[int] = frozenset(),
) -> list[Failure]:
    """Every check over the entries. `subtotals` are «Итого по активу»-like rows before the
    final `total`: each sums the top-level rows since the previous one (TOTAL_SUM), and the
    final total those since the last subtotal; DEBIT_EQUALS_CREDIT takes all top-level rows."""
    failures: list[Failure] = []
    sums: dict[int, list[int]] = {}  # parent index → Σ children (parents only: few)
    top_all = [_ZERO] * _WIDTH
    top_balance = [_ZERO] * _WIDTH
    segment_all = [_ZERO] * _WIDTH if subtotals else top_all
    segment_balance = [_ZERO] * _WIDTH if subtotals else top_balance
    for i, entry in enumerate(entries):
        # The loop runs once per row of a large sheet: kopecks unpacked, None → 0, inlined.
        od, oc, td, tc, cd, cc = entry.values
        od, oc, td, tc, cd, cc = od or 0, oc or 0, td or 0, tc or 0, cd or 0, cc or 0
        expected = od - oc + td - tc  # ROW_BALANCE
        if expected != cd - cc:
            failures.append(Failure("ROW_BALANCE", i, "closing_balance", expected, cd - cc))
        if entry.kind == "total":
            if i in subtotals:
                _total_sum(i, entry, segment_all, segment_balance if full else None, failures)
                segment_all, segment_balance = [_ZERO] * _WIDTH, [_ZERO] * _WIDTH
            continue
        if entry.parent >= 0:
            into = sums.get(entry.parent)
            if into is None:
                sums[entry.parent] = [od, oc, td, tc, cd, cc]  # summed into in place below
            else:
                into[0] += od
                into[1] += oc
                into[2] += td
                into[3] += tc
                into[4] += cd
                into[5] += cc
        else:
            values = [od, oc, td, tc, cd, cc]
            _add(top_all, values)
            balance = entry.account is None or not is_off_balance(entry.account)
            if balance:
                _add(top_balance, values)
            if subtotals:
                _add(segment_all, values)
                if balance:
                    _add(segment_balance, values)
    for i in sorted(sums):
        if i not in skip_children:
            _children_sum(i, entries[i], sums[i], failures)
    if total is not None:
        segment = segment_balance if full else None
        _total_sum(total, entries[total], segment_all, segment, failures)
    anchor = total if total is not None else _last_top(entries)
    if full and anchor is not None:
        for column, d in _PAIRS:
            if top_balance[d] != top_balance[d + 1]:
                failures.append(
                    Failure(
                        "DEBIT_EQUALS_CREDIT", anchor, column, top_balance[d], top_balance[d + 1]
                    )
                )
    if any(entry.rounded for entry in entries):
        failures = _beyond_rounding(failures, entries)
    failures.sort(key=lambda f: f.entry)
    return failures


def _last_top(entries: list[Entry]) -> int | None:
    """The last top-level row: where a debit-equals-credit failure points without a total."""
    return next((i for i in range(len(entries) - 1, -1, -1) if entries[i].parent < 0), None)


def _beyond_rounding(failures: list[Failure], entries: list[Entry]) -> list[Failure]:
    """The failures a rounding cannot explain: sums rounded from fractions of a kopeck may
    each be half a kopeck off, so a difference of up to n/2 kopecks over n rounded values is
    no failure of the sheet (`_body`: OSV_VALUE_ROUNDED says which sums were rounded)."""
    top = [e for e in entries if e.parent < 0 and e.kind != "total"]
    kept = []
    for failure in failures:
        entry = entries[failure.entry]
        if failure.check == "ROW_BALANCE":
            bits = [entry.rounded]
        elif failure.check == "CHILDREN_SUM":
            bits = [entry.rounded] + [e.rounded for e in entries if e.parent == failure.entry]
        else:  # TOTAL_SUM, DEBIT_EQUALS_CREDIT: over the top-level rows
            bits = [entry.rounded] + [e.rounded for e in top]
        mask = _columns_mask(failure)
        slack = sum((b & mask).bit_count() for b in bits)
        if 2 * abs(failure.expected - failure.actual) > slack:
            kept.append(failure)
    return kept


def _columns_mask(failure: Failure) -> int:
    """The sums a failure compares, as bits of SUM_FIELDS."""
    if failure.column in SUM_FIELDS:
        return 1 << SUM_FIELDS.index(failure.column)
    pair = dict(_PAIRS).get(failure.column)  # DEBIT_EQUALS_CREDIT: its debit and credit
    return 0b11 << pair if pair is not None else (1 << _WIDTH) - 1  # ROW_BALANCE: all six


def _values(entry: Entry) -> list[int]:
    return [v if v is not None else _ZERO for v in entry.values]


def _add(into: list[int], values: list[int]) -> None:
    for k in range(_WIDTH):
        into[k] += values[k]


def _children_sum(i: int, entry: Entry, children: list[int], failures: list[Failure]) -> None:
    parent = _values(entry)
    for k in range(_WIDTH):
        if children[k] == parent[k]:
            continue
        pair = k - k % 2
        if pair in _BALANCE_PAIRS and _netted(parent[pair : pair + 2], children[pair : pair + 2]):
            continue
        failures.append(Failure("CHILDREN_SUM", i, SUM_FIELDS[k], children[k], parent[k]))


def _netted(parent: list[int], children: list[int]) -> bool:
    one_sided = parent[0] == _ZERO or parent[1] == _ZERO
    return one_sided and parent[0] - parent[1] == children[0] - children[1]


def _total_sum(
    i: int,
    entry: Entry,
    top_all: list[int],
    top_balance: list[int] | None,
    failures: list[Failure],
) -> None:
    total = _values(entry)
    if total == top_all or (top_balance is not None and total == top_balance):
        return
    for k in range(_WIDTH):
        if total[k] != top_all[k]:
            failures.append(Failure("TOTAL_SUM", i, SUM_FIELDS[k], top_all[k], total[k]))
