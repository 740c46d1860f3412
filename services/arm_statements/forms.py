"""Which statement a printed form is: its title, its ОКУД, the codes and the names it prints.

One rule for Excel sheets and scanned tables, strongest evidence first:
1. a title printed on the form («Бухгалтерский баланс», «Отчёт о финансовых результатах» or
   «… о прибылях и убытках», «Пояснения к …», the other annual forms) or its ОКУД;
2. the catalogue codes it prints: at least ``MIN_CODES`` of one form and more than of any
   other (one is enough when the codes come from the form's «Код» column, or when a weak
   hint such as the sheet's name agrees); the lines of the НКО target-use report (6100 …
   6400) make a DISCLOSURE, whatever ОКУД its edition prints (0710003 or 0710006);
3. a title printed near the form but not on it (the page of a scanned table);
4. its line names: at least ``MIN_NAMES`` catalogue lines of one form matched by name, and
   more than of the other (a whole sheet, whose every cell is a candidate, asks for more).
Nothing of these: no form (``None``). Bare «Баланс» is never a title: it is the name of the
balance's total line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from services.arm_statements.catalogue import LINES, classify_code, parent_code, target_use_line
from services.arm_statements.names import match_line_name
from services.arm_statements.text import fold

__all__ = [
    "MIN_CODES",
    "MIN_NAMES",
    "OWN_NUMBERING_OKUD",
    "FormEvidence",
    "FormKind",
    "code_form",
    "codes_kind",
    "codes_said",
    "form_kind",
    "names_kind",
    "names_said",
    "okud_in_cells",
    "okud_kind",
    "title_kind",
]

FormKind = Literal["BALANCE", "INCOME", "DISCLOSURE"]

MIN_CODES = 3
MIN_NAMES = 2
_CODE = re.compile(r"^\d{4,5}$")
_TITLES: tuple[tuple[re.Pattern[str], FormKind], ...] = (
    (re.compile(r"^(упрощенн\w*\s+)?бухгалтерск\w*\s+баланс"), "BALANCE"),
    (
        re.compile(
            r"^(упрощенн\w*\s+)?отчет\w*\s+о\s+(финансовых\s+результатах|прибылях\s+и\s+убытках)"
        ),
        "INCOME",
    ),
    (re.compile(r"^пояснени\w*\s+к\s+(?!строк)"), "DISCLOSURE"),
    (
        re.compile(
            r"^отчет\s+об?\s+(изменени\w*\s+капитала|движении\s+денежных|целевом\s+использ)"
        ),
        "DISCLOSURE",
    ),
)
_MAX_TITLE = 200
_LEADING_NOISE = re.compile(r"^[^a-zа-я0-9]+")
_OKUD: dict[str, FormKind] = {
    "0710001": "BALANCE",
    "0710002": "INCOME",
    "0710003": "DISCLOSURE",
    "0710004": "DISCLOSURE",
    "0710005": "DISCLOSURE",
    "0710006": "DISCLOSURE",
    "0420002": "BALANCE",
    "0420003": "INCOME",
}
OWN_NUMBERING_OKUD = frozenset({"0420002", "0420003"})
"""ОКУД of forms with their own line numbering (balance and ОФР of non-credit financial
organisations): BALANCE / INCOME, but their numbers are no catalogue codes and the form is
neither the full nor the simplified one."""


def title_kind(text: str) -> FormKind | None:
    """The form a title names, or None; the title starts the text (after stray marks)."""
    s = _LEADING_NOISE.sub("", fold(text))
    if len(s) >= _MAX_TITLE:
        return None
    return next((kind for pattern, kind in _TITLES if pattern.match(s)), None)


def okud_kind(okud: str | None) -> FormKind | None:
    """The form of an ОКУД code (0710001 balance, 0710002 ОФР, 0710003–6 disclosures, and the
    non-credit financial organisations' 0420002 balance / 0420003 ОФР)."""
    return None if okud is None else _OKUD.get(okud)


def okud_in_cells(cells: list[str]) -> str | None:
    """The ОКУД a row of folded cell texts prints after «ОКУД» (in its cell or the next)."""
    for i, s in enumerate(cells):
        if "окуд" in s:
            digits = re.sub(r"\D", "", s.split("окуд", 1)[1])
            if not digits:
                digits = next(
                    (re.sub(r"\D", "", t) for t in cells[i + 1 :] if re.sub(r"\D", "", t)), ""
                )
            if digits:
                return digits.zfill(7) if len(digits) == 6 else digits
    return None


def code_form(code: str) -> str | None:
    """BALANCE / INCOME for a catalogue code or an organisation's sub-code of one; else None."""
    if not _CODE.match(code) or classify_code(code) not in ("catalogue", "org_added"):
        return None
    own = code if code in LINES else parent_code(code)
    return None if own is None else LINES[own].document_type


def codes_kind(
    codes: Iterable[str], *, hinted: FormKind | None = None, code_column: bool = False
) -> FormKind | None:
    """The form most of ``codes`` belong to, when enough of them do (rule 2); a tie goes to
    the balance, then the ОФР."""
    counts = _code_counts(codes)
    kinds: tuple[FormKind, ...] = ("BALANCE", "INCOME", "DISCLOSURE")
    best = max(kinds, key=lambda kind: (counts[kind], -kinds.index(kind)))
    threshold = 1 if code_column or hinted == best else MIN_CODES
    if counts[best] >= threshold and all(counts[best] > counts[k] for k in kinds if k != best):
        return best
    return None


def names_kind(names: Iterable[str | None], *, minimum: int = MIN_NAMES) -> FormKind | None:
    """The form whose catalogue lines the names match, when enough do (rule 4).

    Counts distinct catalogue lines: ``minimum`` of one form, and more than of the other.
    """
    matched: dict[str, set[str]] = {"BALANCE": set(), "INCOME": set()}
    for name in names:
        if not name:
            continue
        for kind, codes in matched.items():
            code = match_line_name(name, kind)
            if code is not None:
                codes.add(code)
    votes = {kind: len(codes) for kind, codes in matched.items()}
    best: FormKind = "BALANCE" if votes["BALANCE"] >= votes["INCOME"] else "INCOME"
    other = "INCOME" if best == "BALANCE" else "BALANCE"
    if votes[best] >= minimum and votes[best] > votes[other]:
        return best
    return None


@dataclass(frozen=True, slots=True)
class FormEvidence:
    """What a form prints: ``titles`` on it, ``nearby`` titles, its ОКУД, codes and names.

    ``hint``: a weak guess (a sheet named «Баланс») that lets one code of that form decide;
    ``code_column``: the codes were read from the form's «Код» column, so one decides.
    """

    titles: tuple[str, ...] = ()
    okud: str | None = None
    codes: tuple[str, ...] = ()
    names: tuple[str | None, ...] = ()
    nearby: tuple[str, ...] = ()
    hint: FormKind | None = None
    code_column: bool = False
    value_columns: int | None = None

    def describe(self) -> str:
        """What the form shows, in words for an analyst: titles, ОКУД, codes, names, a table."""
        seen: list[str] = []
        title = next((t for t in self.titles if title_kind(t) is not None), None)
        if title is not None:
            seen.append(f"заголовок «{_short(title)}»")
        if self.okud:
            seen.append(f"ОКУД {self.okud}")
        codes = codes_said(self.codes)
        if codes is not None:
            seen.append(codes)
        if self.value_columns is not None:
            coded = "с кодами строк" if codes is not None else "без кодов строк"
            seen.append(f"таблица из {self.value_columns} колонок значений {coded}")
        if (names := names_said(self.names)) is not None:
            seen.append(names)
        return "; ".join(seen) if seen else "ни заголовка формы, ни ОКУД, ни кодов строк"


def codes_said(codes: Iterable[str]) -> str | None:
    """«кодов строк баланса N, отчёта о финансовых результатах M»; None without such codes."""
    counts = _code_counts(codes)
    if not any(counts.values()):
        return None
    said = (
        f"кодов строк баланса {counts['BALANCE']}, отчёта о финансовых результатах "
        f"{counts['INCOME']}"
    )
    if counts["DISCLOSURE"]:
        said += f", отчёта о целевом использовании средств {counts['DISCLOSURE']}"
    return said


def names_said(names: Iterable[str | None]) -> str | None:
    """«наименований строк из справочника форм: N»; None when no name is a catalogue line."""
    named = sum(
        1
        for name in names
        if name and any(match_line_name(name, kind) for kind in ("BALANCE", "INCOME"))
    )
    return f"наименований строк из справочника форм: {named}" if named else None


def _short(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _code_counts(codes: Iterable[str]) -> dict[str, int]:
    """Codes of the balance, of the ОФР and of the target-use report (under DISCLOSURE)."""
    counts = {"BALANCE": 0, "INCOME": 0, "DISCLOSURE": 0}
    for code in codes:
        kind = code_form(code) or ("DISCLOSURE" if target_use_line(code) is not None else None)
        if kind in counts:
            counts[kind] += 1
    return counts


def _first_title(texts: Iterable[str]) -> FormKind | None:
    return next((kind for text in texts if (kind := title_kind(text)) is not None), None)


def form_kind(evidence: FormEvidence) -> FormKind | None:
    """The form ``evidence`` shows, by the rules of this module; None when it shows none."""
    return (
        _first_title(evidence.titles)
        or okud_kind(evidence.okud)
        or codes_kind(evidence.codes, hinted=evidence.hint, code_column=evidence.code_column)
        or _first_title(evidence.nearby)
        or names_kind(evidence.names)
    )
