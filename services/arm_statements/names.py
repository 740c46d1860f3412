"""Recognising a line by its printed name, for forms without a «Код» column.

The 157n simplified sample forms print no codes at all, and real sheets glue footnote digits to
names («Выручка7»), abbreviate («в т.ч.», «ден. средства») and vary the brackets, so matching
works on a normalised key, with and without the bracketed parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cache
from types import MappingProxyType

from services.arm_statements.catalogue import LINES, TARGET_USE_LINES, print_order
from services.arm_statements.line import FormVariant

__all__ = ["match_line_name", "match_target_use_name", "name_candidates", "normalize_name"]

_VARIANTS: tuple[FormVariant, ...] = ("full", "simplified")
_ROMAN = {"1": "i", "2": "ii", "3": "iii", "4": "iv", "5": "v"}
_ABBREVIATIONS = {
    "ден": "денежные",
    "экв": "эквиваленты",
    "обяз": "обязательства",
    "обяз-ва": "обязательства",
    "задолж": "задолженность",
    "краткоср": "краткосрочные",
    "долгоср": "долгосрочные",
    "фин": "финансовые",
    "кап": "капитал",
    "вл": "вложения",
    "нераспр": "нераспределенная",
}
_PREFIXES = ("в том числе ", "из них ", "включая ")
_SUPERSCRIPTS = str.maketrans("", "", "¹²³⁴⁵⁶⁷⁸⁹⁰*")


def _base(text: str) -> str:
    s = text.replace("\u00a0", " ").lower().replace("ё", "е").translate(_SUPERSCRIPTS)
    s = re.sub(r"(?<![а-яa-z])т\.\s*ч\.?", " том числе ", s)
    s = re.sub(r"по\s+разделу\s+([1-5])(?!\d)", lambda m: "по разделу " + _ROMAN[m.group(1)], s)
    # footnote digits glued to a word or a bracket («Выручка7», «активы)5») or trailing («активы 5»)
    s = re.sub(r"(?<=[а-яa-z)\]])\d{1,2}(?![\d.,])", " ", s)
    s = re.sub(r"\s\d{1,2}\s*$", " ", s)
    for short, full in _ABBREVIATIONS.items():
        s = re.sub(rf"(?<![а-яa-z-]){re.escape(short)}\.", f" {full} ", s)
    return s


def _words(s: str) -> str:
    s = re.sub(r"[^0-9a-zа-я()]+", " ", s)
    s = s.replace("(", " ").replace(")", " ")
    s = re.sub(r"(?<![а-я])в т ч(?![а-я])", "в том числе", s)
    return " ".join(s.split())


def normalize_name(text: str) -> str:
    """The comparison key of a printed name: case, ё, punctuation, footnotes, abbreviations."""
    return _words(_base(text))


def _strip_brackets(text: str) -> str:
    s = _base(text)
    previous = None
    while previous != s:
        previous = s
        s = re.sub(r"\([^()]*\)", " ", s)
    return _words(s)


def _keys(text: str) -> tuple[str, str]:
    return normalize_name(text), _strip_brackets(text)


def _drop_prefix(key: str) -> str | None:
    for prefix in _PREFIXES:
        if key.startswith(prefix):
            return key[len(prefix) :]
    return None


_Index = Mapping[str, tuple[str, ...]]


@cache
def _indexes(document_type: str, variant: FormVariant) -> tuple[_Index, _Index]:
    exact: dict[str, list[str]] = {}
    stripped: dict[str, list[str]] = {}
    for line in LINES.values():
        if line.document_type != document_type:
            continue
        for name in line.names(variant):
            key, bare = _keys(name)
            for index, k in ((exact, key), (stripped, bare)):
                codes = index.setdefault(k, [])
                if line.code not in codes:
                    codes.append(line.code)
    return (
        MappingProxyType({k: tuple(v) for k, v in exact.items()}),
        MappingProxyType({k: tuple(v) for k, v in stripped.items()}),
    )


def _ordered(codes: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(codes), key=lambda c: print_order(c) or 0))


def _stages(
    text: str, document_type: str, variants: tuple[FormVariant, ...]
) -> list[tuple[str, ...]]:
    key, bare = _keys(text)
    lookups = [(0, key), (1, bare)]
    key2, bare2 = _drop_prefix(key), _drop_prefix(bare)
    if key2:
        lookups.append((0, key2))
    if bare2:
        lookups.append((1, bare2))
    stages: list[tuple[str, ...]] = []
    for which, k in lookups:
        found: list[str] = []
        for variant in variants:
            found.extend(_indexes(document_type, variant)[which].get(k, ()))
        stages.append(_ordered(found))
    return stages


def _variants(variant: FormVariant | None) -> tuple[FormVariant, ...]:
    return _VARIANTS if variant is None else (variant,)


def name_candidates(
    text: str, document_type: str, variant: FormVariant | None = None
) -> tuple[str, ...]:
    """Every code a printed name may stand for (ambiguous names such as «БАЛАНС» give two)."""
    if document_type not in ("BALANCE", "INCOME"):
        return ()
    return _ordered(c for stage in _stages(text, document_type, _variants(variant)) for c in stage)


def match_line_name(
    text: str,
    document_type: str,
    variant: FormVariant | None = None,
    *,
    after: str | None = None,
) -> str | None:
    """The code of the line printed under ``text``, or None when unknown or ambiguous.

    A name printed twice on the form («Заемные средства» in sections IV and V, «БАЛАНС»,
    «Финансовые вложения») is resolved by ``after``: the code of the nearest line recognised
    above it, the answer being the first candidate printed after that line. Without ``after``
    such a name gives None. Section headers («III. КАПИТАЛ И РЕЗЕРВЫ») are not lines: None, except
    that «Капитал и резервы» alone is line 1300 of the simplified form.
    """
    if document_type not in ("BALANCE", "INCOME"):
        return None
    stages = _stages(text, document_type, _variants(variant))
    primary = next((stage for stage in stages if stage), ())
    if not primary:
        return None
    after_order = print_order(after) if after is not None else None
    if after_order is not None:
        everything = _ordered(c for stage in stages for c in stage)
        for pool in (primary, everything):
            later = [c for c in pool if (print_order(c) or 0) > after_order]
            if later:
                return later[0]
    return primary[0] if len(primary) == 1 else None


@cache
def _target_use_index() -> Mapping[str, tuple[str, ...]]:
    index: dict[str, list[str]] = {}
    for line in TARGET_USE_LINES.values():
        for name in line.names("full"):
            for key in _keys(name):
                codes = index.setdefault(key, [])
                if line.code not in codes:
                    codes.append(line.code)
    return MappingProxyType({k: tuple(v) for k, v in index.items()})


_TARGET_USE_ORDER: Mapping[str, int] = MappingProxyType(
    {code: i for i, code in enumerate(TARGET_USE_LINES)}
)


def match_target_use_name(text: str, *, after: str | None = None) -> str | None:
    """The line of «Отчет о целевом использовании средств» printed under ``text`` (a form
    without a «Код» column), or None. «Прочие» is printed three times (6250, 6326, 6350): it
    is the first of them after ``after``, the line recognised above it; without one, None."""
    found: list[str] = []
    for key in _keys(text):
        for k in (key, _drop_prefix(key)):
            if k:
                found.extend(c for c in _target_use_index().get(k, ()) if c not in found)
    found.sort(key=lambda c: _TARGET_USE_ORDER[c])
    if len(found) == 1:
        return found[0]
    above = _TARGET_USE_ORDER.get(after) if after is not None else None
    if not found or above is None:
        return None
    later = [c for c in found if _TARGET_USE_ORDER[c] > above]
    return later[0] if later else None
