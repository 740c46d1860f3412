"""Result sets built in code, in the item format of docs/scanning-system-protocol.md."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

Words = Sequence[tuple[str, float]]


def text_line(*words: tuple[str, float]) -> dict[str, Any]:
    return {
        "text": " ".join(w for w, _ in words),
        "words": [{"text": w, "confidence": c} for w, c in words],
    }


def plain_line(text: str, confidence: float = 99) -> dict[str, Any]:
    return text_line(*((w, confidence) for w in text.split()))


def table(
    page: int,
    index: int,
    headers: Sequence[tuple[str, float]],
    rows: Sequence[Sequence[tuple[str, float] | None]],
    *,
    title: str | None = None,
) -> dict[str, Any]:
    """A table with one header row (grid row 0) and body rows numbered from 1."""
    return {
        "table_id": f"p{page}-t{index}",
        "page": page,
        "index": index,
        "title": title,
        "columns": [{"index": i, "header": h, "confidence": c} for i, (h, c) in enumerate(headers)],
        "rows": [
            {
                "index": r + 1,
                "cells": [
                    {"column": i, "text": cell[0], "confidence": cell[1]}
                    for i, cell in enumerate(row)
                    if cell is not None
                ],
            }
            for r, row in enumerate(rows)
        ],
    }


def item(page: int, lines: list[dict[str, Any]], tables: list[dict[str, Any]]) -> dict[str, Any]:
    return {"format": "scan-result-item/1", "page": page, "lines": lines, "tables": tables}


def encode(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, ensure_ascii=False).encode("utf-8")


BALANCE_HEADER_LINES = [
    plain_line("Бухгалтерский баланс на 31 декабря 2024 г."),
    text_line(("Форма", 99), ("по", 99), ("ОКУД", 99), ("0710001", 98)),
    text_line(("Дата", 99), ("(число,", 99), ("месяц,", 99), ("год)", 99), ("31.12.2024", 95)),
    text_line(
        ("Организация", 99),
        ("ООО", 93),
        ("«Ромашка-Сервис»", 93),
        ("по", 99),
        ("ОКПО", 99),
        ("7654З210", 58),
    ),
    text_line(
        ("Идентификационный", 99),
        ("номер", 99),
        ("налогоплательщика", 99),
        ("ИНН", 99),
        ("7812345675", 97),
    ),
    text_line(
        ("Организационно-правовая", 99),
        ("форма", 99),
        ("/", 99),
        ("форма", 99),
        ("собственности", 99),
        ("по", 99),
        ("ОКОПФ", 99),
        ("/", 99),
        ("ОКФС", 99),
        ("12300", 94),
        ("/", 99),
        ("16", 94),
    ),
    text_line(
        ("Единица", 99),
        ("измерения:", 99),
        ("в", 96),
        ("тыс.", 96),
        ("рублей", 96),
        ("по", 99),
        ("ОКЕИ", 99),
        ("384", 97),
    ),
]

# (name, name conf, code text, code conf, [(value text, conf)] * 3)
MINIMAL_BALANCE_ROWS: list[tuple[str, float, str, float, list[tuple[str, float]]]] = [
    (
        "Материальные внеоборотные активы",
        95,
        "1150",
        99,
        [("3 420", 96), ("3 610", 98), ("3 800", 97)],
    ),
    (
        "Нематериальные, финансовые и другие внеоборотные активы",
        95,
        "1170",
        99,
        [("-", 98), ("-", 97), ("-", 96)],
    ),
    ("Запасы", 95, "1210", 99, [("1 180", 97), ("960", 96), ("870", 98)]),
    (
        "Денежные средства и денежные эквиваленты",
        95,
        "1250",
        99,
        [("640", 96), ("515", 98), ("402", 97)],
    ),
    (
        "Финансовые и другие оборотные активы",
        95,
        "1230",
        99,
        [("1 2З0", 61), ("1 105", 97), ("980", 96)],
    ),
    ("БАЛАНС", 95, "1600", 99, [("6 470", 97), ("6 190", 96), ("6 052", 98)]),
    ("Капитал и резервы", 95, "1300", 99, [("2 950", 96), ("2 700", 98), ("2 512", 97)]),
    (
        "Долгосрочные заемные средства",
        95,
        "1410",
        99,
        [("1 500", 98), ("1 800", 97), ("2 000", 96)],
    ),
    ("Другие долгосрочные обязательства", 95, "1450", 99, [("-", 97), ("-", 96), ("-", 98)]),
    ("Краткосрочные заемные средства", 71, "I5IO", 38, [("-", 96), ("-", 98), ("-", 97)]),
    ("Кредиторская задолженность", 95, "1520", 99, [("1 870", 98), ("1 540", 97), ("1 390", 96)]),
    ("Другие краткосрочные обязательства", 95, "1550", 99, [("150", 97), ("150", 96), ("150", 98)]),
    ("БАЛАНС", 95, "1700", 99, [("6 470", 96), ("6 190", 98), ("6 052", 97)]),
]

BALANCE_COLUMN_HEADERS = [
    ("Наименование показателя", 97),
    ("Код", 98),
    ("На 31 декабря 2024 г.", 94),
    ("На 31 декабря 2023 г.", 94),
    ("На 31 декабря 2022 г.", 94),
]


def minimal_balance_item() -> dict[str, Any]:
    """The page behind contracts/examples/result-statement-minimal.json."""
    rows = [
        [(name, nc), (code, cc), *values] for name, nc, code, cc, values in MINIMAL_BALANCE_ROWS
    ]
    return item(1, list(BALANCE_HEADER_LINES), [table(1, 0, BALANCE_COLUMN_HEADERS, rows)])
