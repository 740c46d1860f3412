"""Statements shaped like real ГИР БО filings, rendered as workbooks, and how exactly the
recogniser gives them back.

A `Filing` holds what a filing stores (amounts per code and column, organisation data, full or
simplified). `render` prints it in one of two layouts the way real files do:

- ``onec``: a 1C export. Title, «Коды» block with ОКУД / ИНН / ОКЕИ, «Пояснения | Наименование
  показателя | Код | periods» with every line of the form (blank amounts as «-»), section
  headings, numbers as number cells and negatives as «(1 234)» text. A simplified filing has
  both forms one under another on one sheet;
- ``girbo``: a ГИР БО export. «Сведения об организации» sheet, codes under «Код строки» far
  right, amounts as text one column right of their header, explanations («п.3») in the
  «Пояснения» column, footnote numbers glued to some names, only the lines the filing has.

Expense and contra lines are stored positive and printed in brackets, so the amount a reader
must give back is `printed_amount`, not the stored one. `compare` lists every difference
between a `StatementsResult` and the filing: values by (document, code, period date), header
fields, form variants. Used by test_girbo_subset and scripts/report_girbo_recognition.py.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final, Literal

from services.arm_statements import LINES, FormVariant, format_money, parent_code, print_order
from services.excel import load_workbook
from services.tabular_parser.statements import StatementsResult, recognize_statements
from tests.builders import CellInput, SheetSpec, write_xls, write_xlsb, write_xlsx

__all__ = [
    "FORMATS",
    "LAYOUTS",
    "Comparison",
    "Filing",
    "Layout",
    "Mismatch",
    "compare",
    "expected_header",
    "printed_amount",
    "recognize",
    "render",
]

Layout = Literal["onec", "girbo"]
LAYOUTS: Final[tuple[Layout, ...]] = ("onec", "girbo")
FORMATS: Final[tuple[str, ...]] = ("XLSX", "XLS")
Amounts = Mapping[str, Mapping[int, Decimal | None]]  # code → column (0 current …) → amount
Row = list[CellInput]

NBSP = "\u00a0"
# Stored positive, printed in brackets (expenses, contra lines); 2410 is stored signed in the
# full form and positive (an expense) in the simplified one.
_BRACKETED_FULL: Final = frozenset({"1320", "2120", "2210", "2220", "2330", "2350", "2411"})
_BRACKETED_SIMPLIFIED: Final = frozenset({"2120", "2330", "2350", "2410"})
_GIRBO_FOOTNOTES: Final = {"1150": "5", "1230": "6", "2110": "7", "2410": "8"}
_SECTIONS: Final = {
    "1": "I. ВНЕОБОРОТНЫЕ АКТИВЫ",
    "2": "II. ОБОРОТНЫЕ АКТИВЫ",
    "3": "III. КАПИТАЛ И РЕЗЕРВЫ",
    "4": "IV. ДОЛГОСРОЧНЫЕ ОБЯЗАТЕЛЬСТВА",
    "5": "V. КРАТКОСРОЧНЫЕ ОБЯЗАТЕЛЬСТВА",
}
_PER_SHARE: Final = frozenset({"2900", "2910"})  # printed only by joint-stock companies
_OKUD: Final = {"BALANCE": "0710001", "INCOME": "0710002"}
_WRITERS: Final = {"XLSX": write_xlsx, "XLS": write_xls, "XLSB": write_xlsb}


@dataclass(frozen=True, slots=True)
class Filing:
    """One filing: the balance (three columns) and ОФР (two) amounts as stored."""

    key: str
    year: int
    simplified: bool
    inn: str
    name: str
    balance: Amounts
    income: Amounts
    address: str | None = None
    okpo: str | None = None
    explanations: Mapping[str, str] = field(default_factory=dict)
    nko: bool = False  # a non-profit: section III prints the NKO wording of 1300–1370

    @property
    def variant(self) -> FormVariant:
        return "simplified" if self.simplified else "full"

    def amounts(self, document_type: str) -> Amounts:
        return self.balance if document_type == "BALANCE" else self.income


# -- amounts -----------------------------------------------------------------------------------


def printed_amount(filing: Filing, code: str, stored: Decimal | None) -> Decimal | None:
    """What the form prints for a stored amount: bracketed lines flip the stored sign."""
    if stored is None:
        return None
    bracketed = _BRACKETED_SIMPLIFIED if filing.simplified else _BRACKETED_FULL
    return -stored if code in bracketed else stored


def _grouped(amount: Decimal, sep: str) -> str:
    sign = "-" if amount < 0 else ""
    whole, _, cents = f"{abs(amount):f}".partition(".")
    groups: list[str] = []
    while whole:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    text = sep.join(groups) or "0"
    cents = cents.rstrip("0")
    return sign + text + ("," + cents if cents else "")


def _onec_cell(amount: Decimal | None) -> CellInput:
    """1C: a number cell; a negative as bracketed text with non-breaking group spaces."""
    if amount is None:
        return "-"
    if amount < 0:
        return f"({_grouped(-amount, NBSP)})"
    return int(amount) if amount == amount.to_integral_value() else float(amount)


def _girbo_cell(amount: Decimal | None) -> CellInput:
    """ГИР БО: text with space-grouped digits, a decimal comma, negatives in brackets."""
    if amount is None:
        return None
    if amount < 0:
        return f"({_grouped(-amount, ' ')})"
    return _grouped(amount, " ")


# -- lines -------------------------------------------------------------------------------------


def _line_name(code: str, filing: Filing) -> str:
    own = LINES.get(code) or LINES.get(parent_code(code) or "")
    if own is None:
        return "Прочие целевые средства"  # 1330 of ГИР БО's NKO keys: no catalogue line
    if code not in LINES:  # an organisation's own five-digit line breaking down its parent
        return f"{own.name} (расшифровка)"
    return own.name_for(filing.variant, nko=filing.nko) or own.name


def _printed_codes(filing: Filing, document_type: str, *, every_form_line: bool) -> list[str]:
    """The codes a form prints: those the filing has, and for 1C every line of the form."""
    stored = filing.amounts(document_type)
    codes = {c for c, by_column in stored.items() if any(v is not None for v in by_column.values())}
    if every_form_line:
        codes |= {
            c
            for c, line in LINES.items()
            if line.document_type == document_type
            and line.standard == "66n"
            # the company wording: 1350 / 1360 of the simplified form are the NKO's lines
            and (line.simplified_name is not None if filing.simplified else c not in _PER_SHARE)
        }
    return sorted(codes, key=lambda c: (print_order(c) if print_order(c) is not None else 999, c))


def _columns(document_type: str) -> range:
    return range(3) if document_type == "BALANCE" else range(2)


def _period_dates(filing: Filing, document_type: str) -> list[dt.date]:
    return [dt.date(filing.year - i, 12, 31) for i in _columns(document_type)]


def _labels(filing: Filing, document_type: str, layout: Layout) -> list[str]:
    years = [filing.year - i for i in _columns(document_type)]
    if document_type == "BALANCE":
        return [f"На 31 декабря {y} г." for y in years]
    if layout == "onec":
        return [f"За Январь - Декабрь {y} г." for y in years]
    return [f"За {y} г." for y in years]


def _title(document_type: str) -> str:
    return (
        "Бухгалтерский баланс" if document_type == "BALANCE" else "Отчет о финансовых результатах"
    )


def _title_date(filing: Filing, document_type: str) -> str:
    if document_type == "BALANCE":
        return f"на 31 декабря {filing.year} г."
    return f"за Январь - Декабрь {filing.year} г."


# -- 1C layout ---------------------------------------------------------------------------------


def _pad(row: Sequence[CellInput], width: int) -> Row:
    return [*row, *([None] * (width - len(row)))]


def _onec_codes(filing: Filing, document_type: str) -> list[Row]:
    rows: list[Row] = [
        [None, None, None, None, None, "Коды"],
        [None, None, None, None, "Форма по ОКУД", _OKUD[document_type]],
        [None, None, None, None, "Дата (число, месяц, год)", f"31.12.{filing.year}"],
        ["Организация", filing.name, None, None, "по ОКПО", filing.okpo or ""],
        ["Идентификационный номер налогоплательщика", None, None, None, "ИНН", filing.inn],
        ["Единица измерения: в тыс. рублей", None, None, None, "по ОКЕИ", "384"],
    ]
    if filing.address:
        rows.append(["Местонахождение (адрес)", filing.address])
    return rows


def _onec_table(filing: Filing, document_type: str) -> list[Row]:
    labels = _labels(filing, document_type, "onec")
    rows: list[Row] = [["Пояснения", "Наименование показателя", "Код", *labels]]
    rows.append([str(i) for i in range(1, 4 + len(labels))])
    stored = filing.amounts(document_type)
    section = ""
    for code in _printed_codes(filing, document_type, every_form_line=True):
        if document_type == "BALANCE" and not filing.simplified and code[1] != section:
            section = code[1]
            if section == "1":
                rows.append([None, "АКТИВ"])
            if section == "3":
                rows.append([None, "ПАССИВ"])
            if section in _SECTIONS:
                rows.append([None, _SECTIONS[section]])
        by_column = stored.get(code, {})
        cells = [
            _onec_cell(printed_amount(filing, code, by_column.get(i)))
            for i in _columns(document_type)
        ]
        rows.append([filing.explanations.get(code), _line_name(code, filing), code, *cells])
    return rows


def _onec_form(filing: Filing, document_type: str) -> list[Row]:
    rows: list[Row] = [[None, _title(document_type)], [None, _title_date(filing, document_type)]]
    return rows + _onec_codes(filing, document_type) + [[]] + _onec_table(filing, document_type)


def _signature() -> list[Row]:
    return [[], ["Руководитель", None, "(подпись)", "Иванов И. И."]]


def _onec(filing: Filing) -> list[SheetSpec]:
    width = 7
    if filing.simplified:
        rows = [*_onec_form(filing, "BALANCE"), [], *_onec_form(filing, "INCOME"), *_signature()]
        return [SheetSpec("Упрощенная отчетность", [_pad(r, width) for r in rows])]
    balance = _onec_form(filing, "BALANCE") + _signature()
    income = _onec_form(filing, "INCOME") + _signature()
    return [
        SheetSpec("Бухгалтерский баланс", [_pad(r, width) for r in balance]),
        SheetSpec("Отчет о финансовых результатах", [_pad(r, width) for r in income]),
    ]


# -- ГИР БО layout -----------------------------------------------------------------------------

_GIRBO_WIDTH = 21
_GIRBO_CODE = 10  # «Код строки» merged K:L, codes printed in L
_GIRBO_HEADER_ROW = 4


def _girbo_form(filing: Filing, document_type: str) -> SheetSpec:
    knd = "0710096" if filing.simplified else "0710099"
    rows: list[Row] = [[None] * _GIRBO_WIDTH for _ in range(_GIRBO_HEADER_ROW + 1)]
    rows[0][14] = f"Форма по КНД {knd}"
    rows[1][0] = _title(document_type)
    rows[2][0] = _title_date(filing, document_type)
    rows[3][0] = "Единица измерения: в тыс. рублей"
    header = rows[_GIRBO_HEADER_ROW]
    header[0], header[8], header[_GIRBO_CODE] = "Наименование показателя", "Пояснения", "Код строки"
    merged: list[tuple[int, int, int, int]] = [
        (_GIRBO_HEADER_ROW, 0, _GIRBO_HEADER_ROW, 7),
        (_GIRBO_HEADER_ROW, 8, _GIRBO_HEADER_ROW, 9),
        (_GIRBO_HEADER_ROW, _GIRBO_CODE, _GIRBO_HEADER_ROW, _GIRBO_CODE + 1),
    ]
    for i, label in enumerate(_labels(filing, document_type, "girbo")):
        header[12 + 3 * i] = label
        merged.append((_GIRBO_HEADER_ROW, 12 + 3 * i, _GIRBO_HEADER_ROW, 14 + 3 * i))
    stored = filing.amounts(document_type)
    for code in _printed_codes(filing, document_type, every_form_line=False):
        row: Row = [None] * _GIRBO_WIDTH
        row[0] = _line_name(code, filing) + _GIRBO_FOOTNOTES.get(code, "")
        row[8] = filing.explanations.get(code)
        row[_GIRBO_CODE + 1] = code
        for i in _columns(document_type):
            row[13 + 3 * i] = _girbo_cell(printed_amount(filing, code, stored[code].get(i)))
        merged += [(len(rows), 0, len(rows), 7), (len(rows), 8, len(rows), 9)]
        rows.append(row)
    return SheetSpec(_title(document_type), rows, merged=merged)


def _girbo(filing: Filing) -> list[SheetSpec]:
    info_rows: list[Row] = [
        ["Сведения об организации"],
        ["Полное наименование", filing.name],
        ["ИНН", filing.inn],
    ]
    if filing.address:
        info_rows.append(["Адрес", filing.address])
    sheets = [SheetSpec("Сведения об организации", info_rows), _girbo_form(filing, "BALANCE")]
    if filing.income:
        sheets.append(_girbo_form(filing, "INCOME"))
    return sheets


def render(filing: Filing, layout: Layout) -> list[SheetSpec]:
    """The sheets of ``filing`` printed in ``layout``."""
    return _onec(filing) if layout == "onec" else _girbo(filing)


def recognize(filing: Filing, layout: Layout, fmt: str) -> StatementsResult:
    """``filing`` in ``layout`` written as a real ``fmt`` workbook, read and recognised."""
    data = _WRITERS[fmt](render(filing, layout))
    return recognize_statements(load_workbook(data).sheets)


# -- comparison --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One difference: ``what`` (value | header | variant | document), where, and why."""

    what: str
    where: str
    reason: str
    expected: str | None
    actual: str | None


@dataclass(slots=True)
class Comparison:
    """Counts of what was checked and every mismatch found."""

    values: int = 0  # printed amounts (non-blank)
    blanks: int = 0  # printed blanks, which must come back as null
    header_fields: Counter[str] = field(default_factory=Counter)  # field name → times checked
    variants: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    failed_relations: list[str] = field(default_factory=list)

    def count(self, what: str) -> int:
        return sum(m.what == what for m in self.mismatches)


def expected_header(filing: Filing, layout: Layout, document_type: str) -> dict[str, str]:
    """Header fields the rendered form prints (or gives by rule) for ``document_type``."""
    fields = {
        "inn": filing.inn,
        "organization_name": " ".join(filing.name.split()),  # as a reader sees the cell
        "report_date": f"{filing.year}-12-31",
        "units": "тыс. руб.",
        "okei": "384",
    }
    if layout == "onec":
        fields["okud"] = _OKUD[document_type]
    return fields


def _document(result: StatementsResult, document_type: str) -> dict[str, Any] | None:
    return next((d for d in result.documents if d["document_type"] == document_type), None)


def _money(amount: Decimal | None) -> str | None:
    return None if amount is None else format_money(amount)


def compare(filing: Filing, layout: Layout, result: StatementsResult) -> Comparison:
    """Every printed amount, expected header field and form variant against ``result``."""
    out = Comparison()
    for document_type in ("BALANCE", "INCOME"):
        stored = filing.amounts(document_type)
        if not stored:
            continue
        codes = _printed_codes(filing, document_type, every_form_line=layout == "onec")
        expected = {
            (code, i): printed_amount(filing, code, stored.get(code, {}).get(i))
            for code in codes
            for i in _columns(document_type)
        }
        out.values += sum(v is not None for v in expected.values())
        out.blanks += sum(v is None for v in expected.values())
        header = expected_header(filing, layout, document_type)
        out.header_fields.update(list(header))
        out.variants += 1
        doc = _document(result, document_type)
        if doc is None:
            out.mismatches.append(Mismatch("document", document_type, "no document", None, None))
            for (code, i), amount in expected.items():
                if amount is not None:
                    where = f"{document_type} {code} col{i}"
                    out.mismatches.append(
                        Mismatch("value", where, "no document", _money(amount), None)
                    )
            out.mismatches += [
                Mismatch("header", f"{document_type} {k}", "no document", v, None)
                for k, v in header.items()
            ]
            out.mismatches.append(
                Mismatch("variant", document_type, "no document", filing.variant, None)
            )
            continue
        _compare_values(out, filing, document_type, doc, expected)
        for name, value in header.items():
            got = doc["header"].get(name)
            if got != value:
                reason = "missing" if got is None else "differs"
                out.mismatches.append(
                    Mismatch("header", f"{document_type} {name}", reason, value, got)
                )
        if doc["form_variant"] != filing.variant:
            out.mismatches.append(
                Mismatch("variant", document_type, "differs", filing.variant, doc["form_variant"])
            )
        checks = doc.get("checks") or {}
        out.failed_relations += [
            f"{document_type} {x['relation']}" for x in checks.get("relations_failed", [])
        ]
        out.failed_relations += [
            f"{document_type} {x['relation']} (soft)"
            for x in checks.get("soft_relations_failed", [])
        ]
    return out


def _compare_values(
    out: Comparison,
    filing: Filing,
    document_type: str,
    doc: dict[str, Any],
    expected: Mapping[tuple[str, int], Decimal | None],
) -> None:
    index_by_date = {c["period_date"]: c["column_index"] for c in doc["columns"]}
    dates = [d.isoformat() for d in _period_dates(filing, document_type)]
    lines: dict[str, dict[str, Any]] = {}
    for line in doc["lines"]:
        if line["line_code"] is not None:
            lines.setdefault(line["line_code"], line)
    for (code, i), amount in expected.items():
        want = _money(amount)
        where = f"{document_type} {code} col{i}"
        line = lines.get(code)
        index = index_by_date.get(dates[i])
        reason: str | None = None
        got: str | None = None
        if line is None:
            reason = "line not found"
        elif index is None:
            reason = "period column not found"
        else:
            value = next((v for v in line["values"] if v["column_index"] == index), None)
            got = None if value is None else value["amount"]
            if value is None:
                reason = "no value in the column"
            elif got != want:
                reason = "amount differs"
        if reason is not None and (want is not None or got is not None):
            out.mismatches.append(Mismatch("value", where, reason, want, got))
