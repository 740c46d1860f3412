"""One line of a coded form (the balance, the ОФР, the НКО target-use report): its code, section
and every official name it carries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DocumentType = Literal["BALANCE", "INCOME"]
LineForm = Literal["BALANCE", "INCOME", "DISCLOSURE"]
"""The form a line belongs to: DISCLOSURE only for the target-use report (6100 … 6400)."""
FormVariant = Literal["full", "simplified"]
Standard = Literal["66n", "157n", "legacy"]

__all__ = ["DocumentType", "FormVariant", "Line", "LineForm", "Standard"]


@dataclass(frozen=True, slots=True)
class Line:
    """A catalogue line.

    The same code carries different names in the full and the simplified form (1150 is
    «Основные средства» in the full form, «Материальные внеоборотные активы» in the simplified
    one), in the 157n wording and in the NKO variant of section III, so all of them live here.
    ``standard`` says which order introduced the line (``legacy``: only in forms up to 2019).
    ``bracketed``: printed in parentheses (an expense or a contra line).
    """

    code: str
    document_type: LineForm
    section: str
    name: str
    name_157n: str | None = None
    name_nko: str | None = None
    simplified_name: str | None = None
    simplified_name_157n: str | None = None
    simplified_name_nko: str | None = None
    standard: Standard = "66n"
    is_total: bool = False
    bracketed: bool = False
    aliases: tuple[str, ...] = ()
    simplified_aliases: tuple[str, ...] = ()

    @property
    def in_simplified(self) -> bool:
        """Whether the simplified form has this code (with its aggregated meaning)."""
        return self.simplified_name is not None or self.simplified_name_nko is not None

    def name_for(
        self, variant: FormVariant = "full", *, standard: Standard = "66n", nko: bool = False
    ) -> str | None:
        """The official name in one wording, or None when that form has no such line."""
        if variant == "simplified":
            if nko:
                return self.simplified_name_nko
            if standard == "157n" and self.simplified_name_157n is not None:
                return self.simplified_name_157n
            return self.simplified_name
        if nko and self.name_nko is not None:
            return self.name_nko
        if standard == "157n" and self.name_157n is not None:
            return self.name_157n
        return self.name

    def names(self, variant: FormVariant) -> tuple[str, ...]:
        """Every name (official wordings and aliases) the line is printed under in a variant."""
        if variant == "simplified":
            found = (
                self.simplified_name,
                self.simplified_name_157n,
                self.simplified_name_nko,
                *self.simplified_aliases,
            )
            return tuple(n for n in found if n is not None)
        full = (self.name, self.name_157n, self.name_nko, *self.aliases)
        return tuple(n for n in full if n is not None)
