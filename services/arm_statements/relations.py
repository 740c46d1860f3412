"""The arithmetic relations between lines of the balance, the ОФР (shared/notes/domain.md) and the
НКО target-use report (a DISCLOSURE: 6400 = 6100 + 6200 − 6300 and its two section sums).

How a term is read matters as much as which lines it sums:
- ``signed``: the amount as printed (a printed minus or brackets make it negative);
- ``absolute``: expense and contra lines (2120, 2210, 2220, 2330, 2350) are printed in brackets,
  but 3–4 % of filers type a plain number or a minus instead; reading them by absolute value
  and subtracting makes every habit check the same;
- ``either``: the line's sign differs by source, so both +v and −v are tried and the relation
  holds when either reading does. 2410: signed in ГИР БО full forms (tax expense negative, tax
  income positive), positive and subtracted in simplified forms and older XML. 1320: own shares
  (subtracted) in a company, «Целевой капитал» (added) in the NKO variant of section III.
The target-use report's «Использовано» lines (6300, 63xx) follow the ОФР's expense lines: printed
in brackets, read by absolute value and subtracted, so 6300 written positive checks the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from services.arm_statements.line import FormVariant

__all__ = ["Reading", "Relation", "RelationKind", "Term", "relations_for"]

Reading = Literal["signed", "absolute", "either"]
RelationKind = Literal["hard", "soft"]


@dataclass(frozen=True, slots=True)
class Term:
    """One summand: ``sign`` × the line's amount read by ``reading``.

    ``optional``: a line no official form prints but organisations add where the form leaves
    room (2115 «Прочие поступления» between 2110 and 2120); it counts when printed, and its
    absence never keeps the relation from being checked (``complete=False`` in checks).
    """

    code: str
    sign: Literal[1, -1] = 1
    reading: Reading = "signed"
    optional: bool = False


@dataclass(frozen=True, slots=True)
class Relation:
    """``target`` = Σ ``terms``; ``name`` is stable and is what checks report.

    ``target_reading`` is ``either`` when the target's own sign differs by source (2410).
    """

    name: str
    kind: RelationKind
    document_type: Literal["BALANCE", "INCOME", "DISCLOSURE"]
    target: str
    terms: tuple[Term, ...]
    target_reading: Literal["signed", "either"] = "signed"

    @property
    def codes(self) -> tuple[str, ...]:
        """The target, then the terms, as reported in ``codes[]``."""
        return (self.target, *(t.code for t in self.terms))


def _t(spec: str) -> tuple[Term, ...]:
    """Terms from a compact spec: ``+1310 -|1320| ±2410 +2115?`` (|x| absolute, ± either,
    a trailing ? optional)."""
    terms: list[Term] = []
    for token in spec.split():
        sign: Literal[1, -1] = -1 if token[0] == "-" else 1
        optional = token.endswith("?")
        body = token.lstrip("+-±").rstrip("?")
        if token[0] == "±":
            terms.append(Term(body, sign, "either", optional))
        elif body.startswith("|"):
            terms.append(Term(body.strip("|"), sign, "absolute", optional))
        else:
            terms.append(Term(body, sign, optional=optional))
    return tuple(terms)


_B: Final = "BALANCE"
_I: Final = "INCOME"

_BALANCE_COMMON = (Relation("1600=1700", "hard", _B, "1600", _t("+1700")),)

_BALANCE_FULL = (
    Relation("1600=1100+1200", "hard", _B, "1600", _t("+1100 +1200")),
    *_BALANCE_COMMON,
    Relation(
        "1100=1105+1110+1120+1130+1140+1150+1160+1170+1180+1190",
        "hard",
        _B,
        "1100",
        _t("+1105 +1110 +1120 +1130 +1140 +1150 +1160 +1170 +1180 +1190"),
    ),
    Relation(
        "1200=1210+1215+1220+1230+1240+1250+1260",
        "hard",
        _B,
        "1200",
        _t("+1210 +1215 +1220 +1230 +1240 +1250 +1260"),
    ),
    Relation(
        "1300=1310-1320+1340+1350+1360+1370",
        "hard",
        _B,
        "1300",
        _t("+1310 ±1320 +1340 +1350 +1360 +1370"),
    ),
    Relation("1400=1410+1420+1430+1450", "hard", _B, "1400", _t("+1410 +1420 +1430 +1450")),
    # Soft, not hard: organisations add their own lines to section V (4.5 % of real filings
    # break the sum), while a misread 1500 itself is still caught by the hard 1700 relation.
    Relation(
        "1500=1510+1520+1530+1540+1550",
        "soft",
        _B,
        "1500",
        _t("+1510 +1520 +1530 +1540 +1550"),
    ),
    Relation("1700=1300+1400+1500", "hard", _B, "1700", _t("+1300 +1400 +1500")),
)

_BALANCE_SIMPLIFIED = (
    Relation(
        "1600=1150+1170+1210+1230+1250", "hard", _B, "1600", _t("+1150 +1170 +1210 +1230 +1250")
    ),
    *_BALANCE_COMMON,
    # The NKO simplified form prints 1350 + 1360 where a company prints 1300; one relation
    # covers both because the lines of the other kind are simply absent (missing = 0).
    Relation(
        "1700=1300+1350+1360+1410+1450+1510+1520+1550",
        "hard",
        _B,
        "1700",
        _t("+1300 +1350 +1360 +1410 +1450 +1510 +1520 +1550"),
    ),
)

_INCOME_FULL = (
    # 2115: no official line, but printed between 2110 and 2120 by organisations that add one
    # («Прочие поступления», ПАО «КАМАЗ» 2025: 2100 = 2110 + 2115 − 2120 in both years).
    Relation("2100=2110+2115-2120", "hard", _I, "2100", _t("+2110 +2115? -|2120|")),
    Relation("2200=2100-2210-2220", "hard", _I, "2200", _t("+2100 -|2210| -|2220|")),
    Relation(
        "2300=2200+2310+2320-2330+2340-2350",
        "hard",
        _I,
        "2300",
        _t("+2200 +2310 +2320 -|2330| +2340 -|2350|"),
    ),
    # 2430 / 2450 only exist in the layout used up to 2019; absent lines count as 0.
    Relation(
        "2400=2300+2410+2420+2430+2450+2460",
        "hard",
        _I,
        "2400",
        _t("+2300 ±2410 +2420 +2430 +2450 +2460"),
    ),
    Relation("2410=-2411+2412", "soft", _I, "2410", _t("-|2411| +2412"), target_reading="either"),
    Relation("2500=2400+2510+2520+2530", "hard", _I, "2500", _t("+2400 +2510 +2520 +2530")),
)

_INCOME_SIMPLIFIED = (
    Relation(
        "2400=2110-2120-2330+2340-2350-2410",
        "hard",
        _I,
        "2400",
        _t("+2110 -|2120| -|2330| +2340 -|2350| ±2410"),
    ),
)

_D: Final = "DISCLOSURE"

# Only relations whose target line is printed are checked, so these touch no other disclosure.
# The section sums are hard: the form has its own «Прочие» line in each section. The «в том
# числе» break-downs of 6310 / 6320 are soft: filers often fill only some of them.
_TARGET_USE = (
    Relation(
        "6200=6210+6215+6220+6230+6240+6250",
        "hard",
        _D,
        "6200",
        _t("+6210 +6215 +6220 +6230 +6240 +6250"),
    ),
    Relation(
        "6300=6310+6320+6330+6350",
        "hard",
        _D,
        "6300",
        _t("+|6310| +|6320| +|6330| +|6350|"),
        target_reading="either",
    ),
    Relation(
        "6310=6311+6312+6313",
        "soft",
        _D,
        "6310",
        _t("+|6311| +|6312| +|6313|"),
        target_reading="either",
    ),
    Relation(
        "6320=6321+6322+6323+6324+6325+6326",
        "soft",
        _D,
        "6320",
        _t("+|6321| +|6322| +|6323| +|6324| +|6325| +|6326|"),
        target_reading="either",
    ),
    Relation("6400=6100+6200-6300", "hard", _D, "6400", _t("+6100 +6200 -|6300|")),
)

_TABLE: dict[tuple[str, str | None], tuple[Relation, ...]] = {
    (_B, "full"): _BALANCE_FULL,
    (_B, "simplified"): _BALANCE_SIMPLIFIED,
    (_B, None): _BALANCE_COMMON,
    (_I, "full"): _INCOME_FULL,
    (_I, "simplified"): _INCOME_SIMPLIFIED,
    (_I, None): (),
    (_D, None): _TARGET_USE,
}


def relations_for(document_type: str, form_variant: FormVariant | None) -> tuple[Relation, ...]:
    """The relations checked for a form; with no known variant only those common to both.

    DISCLOSURE: the target-use report's (no other disclosure prints their lines)."""
    return _TABLE.get((document_type, form_variant), ())
