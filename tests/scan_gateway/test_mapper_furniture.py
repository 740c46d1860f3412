"""Issue 26 on the scan side: lines only from the table's body (class 3), blank marks are
blank (class 1), built on the contract's minimal balance page."""

from __future__ import annotations

from typing import Any

import pytest

from services.arm_statements import is_page_furniture
from services.scan_gateway.mapper import map_items
from services.scan_gateway.resultset import Item, parse_item

from ._resultsets import encode, minimal_balance_item


def _mapped(page: dict[str, Any]) -> dict[str, Any]:
    items: list[Item] = [parse_item(f"page-{page['page']}.json", encode(page))]
    document: dict[str, Any] = map_items(items).documents[0]
    return document


def _with_row(cells: list[tuple[str, float]]) -> dict[str, Any]:
    """The minimal balance page with one more body row under its table."""
    page = minimal_balance_item()
    rows = page["tables"][0]["rows"]
    rows.append(
        {
            "index": rows[-1]["index"] + 1,
            "cells": [
                {"column": i, "text": text, "confidence": conf}
                for i, (text, conf) in enumerate(cells)
            ],
        }
    )
    return page


@pytest.mark.parametrize(
    "text",
    [
        "Сертификат 06 60 EB 3F 00 01 B2 8C",
        "ДОКУМЕНТ ПОДПИСАН ЭЛЕКТРОННОЙ ПОДПИСЬЮ",
        "Владелец Иванов Иван Иванович",
        "Действителен с 01.02.2024 по 01.05.2025",
        "06 60 eb 3f 00 01",
        "М.П.",
    ],
)
def test_stamp_and_signature_texts_are_page_furniture(text: str) -> None:
    assert is_page_furniture(text)


@pytest.mark.parametrize(
    "text", ["Дебиторская задолженность", "Основные средства", "12 34 56 78", None, ""]
)
def test_line_names_and_plain_digits_are_no_furniture(text: str | None) -> None:
    assert not is_page_furniture(text)


def test_an_e_signature_block_under_the_table_never_becomes_a_line() -> None:
    """«Сертификат 06 60 EB…» read as a row with code 6011 and 209 991 782 759 995: no line;
    the balance reads as it would without it."""
    plain = _mapped(minimal_balance_item())
    signed = _mapped(
        _with_row([("Сертификат 06 60 EB 3F", 60), ("6011", 70), ("209 991 782 759 995", 65)])
    )
    assert [line["line_code_text"] for line in signed["lines"]] == [
        line["line_code_text"] for line in plain["lines"]
    ]
    assert "6011" not in str(signed["lines"])


def test_a_table_row_under_an_e_signature_block_keeps_its_line_the_blocks_cell_unread() -> None:
    """The block over the 2024 column: the row's own name and code stand, the cell its text
    fills is no figure (unread, up for review), the other columns keep their figures."""
    doc = _mapped(
        _with_row(
            [
                ("Прочие оборотные активы", 95),
                ("1260", 97),
                ("Сертификат 06 60 EB 3F", 60),
                ("512", 95),
                ("480", 95),
            ]
        )
    )
    line = next(x for x in doc["lines"] if x["line_code"] == "1260")
    first, *others = line["values"]
    assert first["amount"] is None and first["needs_review"] is True
    assert [v["amount"] for v in others] == ["512", "480"]


def test_a_section_title_reaching_the_codes_and_figures_is_no_line() -> None:
    """«II. ОБОРОТНЫЕ АКТИВЫ» centred over the table: no digit in its code or figure cells, so
    no line (before, an unreadable line with the word «АКТИВЫ» as its value)."""
    plain = _mapped(minimal_balance_item())
    titled = _mapped(_with_row([("II. ОБОРОТНЫЕ", 90), ("II.", 60), ("АКТИВЫ", 80)]))
    assert len(titled["lines"]) == len(plain["lines"])


def test_a_clean_code_the_form_does_not_print_is_flagged_and_warned() -> None:
    """The same digits without the block's words stay a line, up for review and named."""
    doc = _mapped(_with_row([("Прочее", 90), ("6011", 95), ("209 991 782 759 995", 95)]))
    line = next(x for x in doc["lines"] if x["line_code"] == "6011")
    assert line["needs_review"] is True
    warned = [w for w in doc["warnings"] if w["code"] == "LINE_CODE_UNKNOWN"]
    assert [w["line_refs"] for w in warned] == [[line["ref"]]]
    assert doc["status"] == "needs_check"


@pytest.mark.parametrize("mark", ["–", "—", "‒", "―", "( - )", "(-)", "x", "х"])
def test_a_dash_like_mark_in_a_value_cell_is_blank(mark: str) -> None:
    """A blank cell printed with any dash, bracketed dash or cross: no amount, no review."""
    doc = _mapped(_with_row([("Прочие оборотные активы", 95), ("1260", 97), (mark, 90)]))
    line = next(x for x in doc["lines"] if x["line_code"] == "1260")
    assert line["values"][0]["amount"] is None
    assert line["values"][0]["needs_review"] is False
    assert line["needs_review"] is False
