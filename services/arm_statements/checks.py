"""Checking the relations of one form, column by column.

Rules (documented in the package README as well):
- A relation is checked in a column when its target line has an amount there and at least one
  of its terms does; a missing target or all terms missing is "not checked", never a failure.
  Terms that are missing while the target is present count as 0 (the form leaves zero lines
  empty or prints «-»).
- It holds when |expected − actual| ≤ tolerance. The tolerance is absolute, in the document's
  own units (thousands stay thousands, never rescaled); the default 4 is what one public checker
  uses for statements in thousands, whose lines are each rounded.
- Lines the document does not have count as 0 only when its lines are *complete* (every code
  printed by the form itself). When a code was inferred from a name, or a line's code could not
  be read, an absent line may be one the recogniser failed to map: then a relation is checked
  only when all its lines are present (``complete=False``), so no RELATION_FAILED names lines
  that were never mapped. An optional term (a line organisations add, such as 2115) is never
  required: it counts when printed.
- Organisation-added five-digit codes (11501) and codes outside the catalogue never take part
  (they break down a four-digit line that is checked on its own), except a relation's optional
  term (2115 in 2100 = 2110 + 2115 − 2120).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from itertools import product
from typing import Final, TypedDict, Unpack

from services.arm_statements.exceptions import InvalidToleranceError
from services.arm_statements.line import FormVariant
from services.arm_statements.money import format_money
from services.arm_statements.relations import Relation, Term, relations_for

__all__ = [
    "DEFAULT_TOLERANCE",
    "Checks",
    "LineValues",
    "RelationFailure",
    "RelationOptions",
    "RelationOutcome",
    "check_lines",
    "evaluate_relations",
]

DEFAULT_TOLERANCE: Final = Decimal(4)

LineValues = Mapping[str, Mapping[int, Decimal | None]]
"""``{line_code: {column_index: amount}}``."""


@dataclass(frozen=True, slots=True)
class RelationFailure:
    """One failed relation in one column, in the contract's shape (money as strings)."""

    column_index: int
    relation: str
    codes: tuple[str, ...]
    expected: str
    actual: str

    def to_dict(self) -> dict[str, object]:
        """The contract item ``{column_index, relation, codes[], expected, actual}``."""
        return {
            "column_index": self.column_index,
            "relation": self.relation,
            "codes": list(self.codes),
            "expected": self.expected,
            "actual": self.actual,
        }


@dataclass(frozen=True, slots=True)
class Checks:
    """``checks`` of a statementDocument: hard and soft failures."""

    relations_failed: tuple[RelationFailure, ...] = ()
    soft_relations_failed: tuple[RelationFailure, ...] = ()

    @classmethod
    def of(cls, outcomes: Iterable[RelationOutcome]) -> Checks:
        """The failed outcomes, hard and soft apart, in their order."""
        failed = [o for o in outcomes if not o.holds]
        return cls(
            relations_failed=tuple(o.failure() for o in failed if o.relation.kind == "hard"),
            soft_relations_failed=tuple(o.failure() for o in failed if o.relation.kind == "soft"),
        )

    @property
    def hard_ok(self) -> bool:
        """No hard relation failed (soft failures do not count)."""
        return not self.relations_failed

    def to_dict(self) -> dict[str, list[dict[str, object]]]:
        """The contract object ``{relations_failed: [...], soft_relations_failed: [...]}``."""
        return {
            "relations_failed": [f.to_dict() for f in self.relations_failed],
            "soft_relations_failed": [f.to_dict() for f in self.soft_relations_failed],
        }


@dataclass(frozen=True, slots=True)
class RelationOutcome:
    """A relation checked in one column; ``present``: its codes that have an amount there.

    ``expected`` is the sum of the terms under the reading closest to ``actual`` (the target
    as printed).
    """

    relation: Relation
    column_index: int
    holds: bool
    expected: Decimal
    actual: Decimal
    present: tuple[str, ...]

    def failure(self) -> RelationFailure:
        """This outcome as a contract failure item."""
        return RelationFailure(
            column_index=self.column_index,
            relation=self.relation.name,
            codes=self.relation.codes,
            expected=format_money(self.expected),
            actual=format_money(self.actual),
        )


def _amount(values: LineValues, code: str, column: int) -> Decimal | None:
    by_column = values.get(code)
    return None if by_column is None else by_column.get(column)


def _readings(term: Term, amount: Decimal) -> tuple[Decimal, ...]:
    if term.reading == "absolute":
        return (term.sign * abs(amount),)
    if term.reading == "either":
        return (term.sign * amount, -term.sign * amount)
    return (term.sign * amount,)


def _evaluate(
    relation: Relation, values: LineValues, column: int, tolerance: Decimal, complete: bool
) -> RelationOutcome | None:
    actual = _amount(values, relation.target, column)
    if actual is None:
        return None
    if not complete and any(
        term.code not in values for term in relation.terms if not term.optional
    ):
        return None
    present = [relation.target]
    choices: list[tuple[Decimal, ...]] = []
    for term in relation.terms:
        amount = _amount(values, term.code, column)
        if amount is not None:
            present.append(term.code)
            choices.append(_readings(term, amount))
    if len(present) == 1:
        return None
    sums = [sum(combo, Decimal(0)) for combo in product(*choices)]
    if relation.target_reading == "either":
        sums += [-s for s in sums]
    expected = min(sums, key=lambda s: abs(actual - s))  # min keeps the first of equals
    return RelationOutcome(
        relation=relation,
        column_index=column,
        holds=abs(actual - expected) <= tolerance,
        expected=expected,
        actual=actual,
        present=tuple(present),
    )


def evaluate_relations(
    document_type: str,
    form_variant: FormVariant | None,
    values: LineValues,
    *,
    tolerance: Decimal = DEFAULT_TOLERANCE,
    complete: bool = True,
) -> tuple[RelationOutcome, ...]:
    """Every relation of the form checked in every column its target has, held or failed.

    Ordered by column, then by the relation table's order. With ``form_variant`` None only the
    relations common to both variants are checked (1600 = 1700). ``complete=False``: only
    relations all of whose lines are in ``values`` (see the module's rules).
    """
    if tolerance < 0:
        raise InvalidToleranceError(tolerance)
    outcomes: list[RelationOutcome] = []
    for relation in relations_for(document_type, form_variant):
        target = values.get(relation.target) or {}
        for column in target:
            outcome = _evaluate(relation, values, column, tolerance, complete)
            if outcome is not None:
                outcomes.append(outcome)
    order = {r.name: i for i, r in enumerate(relations_for(document_type, form_variant))}
    outcomes.sort(key=lambda o: (o.column_index, order[o.relation.name]))
    return tuple(outcomes)


class RelationOptions(TypedDict, total=False):
    """How ``evaluate_relations`` checks: ``tolerance`` (default ``DEFAULT_TOLERANCE``) and
    ``complete`` (default True; see the module's rules)."""

    tolerance: Decimal
    complete: bool


def check_lines(
    document_type: str,
    form_variant: FormVariant | None,
    values: LineValues,
    **options: Unpack[RelationOptions],
) -> Checks:
    """The failed hard and soft relations of one form, in the contract's ``checks`` shape."""
    return Checks.of(evaluate_relations(document_type, form_variant, values, **options))
