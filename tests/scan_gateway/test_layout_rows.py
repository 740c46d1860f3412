"""The table layout on the failure classes of the shared real scans, built from placed words
and rules (what OCR and the page's ruling give the layout): a ruled ОФР whose first rows' codes
the page-wide OCR misread (they were taken as header lines), a clean code no form prints
(«2219»), a right-aligned amount whose word boxes differ in height («117 750» read as
«750 117»), footnotes and stamps under the last row, and the 6xxx lines of a target-use
report."""

from __future__ import annotations

from services.scan_gateway.local import PlacedWord, layout_page
from services.scan_gateway.local._raster import HRule, Rule
from services.scan_gateway.resultset import Item

_LINE = 20.0  # one text line's height


def _word(text: str, x0: float, top: float, height: float = 14.0) -> PlacedWord:
    return PlacedWord(text, x0, x0 + 9.0 * len(text), top, top + height, 96.0)


def _ruled_ofr(first_code: str) -> tuple[list[PlacedWord], list[Rule], list[HRule]]:
    """A ruled ОФР fragment like the КАМАЗ page: «Код строки» header, each row's code at the
    top of its cell and its amounts at the foot, rules between the rows."""
    words = [
        _word("Наименование", 10, 20),
        _word("Код", 300, 20),
        _word("строки", 340, 20),
        _word("За", 420, 20),
        _word("2025", 445, 20),
        _word("г.", 490, 20),
        _word("За", 560, 20),
        _word("2024", 585, 20),
        _word("г.", 630, 20),
    ]
    rows = [
        ("Выручка", first_code, ("315", "209", "726"), ("323", "383", "185")),
        ("Прочие", "2115", ("864", "854"), ("117", "750")),
        ("Себестоимость", "2120", ("(315", "317", "485)"), ("(299", "343", "014)")),
        ("Валовая", "2100", ("757", "095"), ("24", "157", "921")),
    ]
    hrules = [HRule(10.0, 0, 700), HRule(50.0, 0, 700)]
    for n, (name, code, current, previous) in enumerate(rows):
        top = 55 + n * 2 * _LINE
        words += [_word(name, 10, top), _word(code, 300, top)]
        for column, parts in ((420, current), (560, previous)):
            x = float(column)
            for part in parts:
                words.append(_word(part, x, top + _LINE))
                x += 9.0 * len(part) + 8
        hrules.append(HRule(top + 2 * _LINE - 3, 0, 700))
    rules = [Rule(x, 10, 55 + len(rows) * 2 * _LINE) for x in (0.0, 290.0, 410.0, 550.0, 700.0)]
    return words, rules, hrules


def _cells(item: Item) -> dict[str, list[str]]:
    """Code cell text → the texts of the cells right of it (the table's rows)."""
    [table] = item.tables
    code_at = next(c.index for c in table.columns if c.header.startswith("Код"))
    out: dict[str, list[str]] = {}
    for row in table.rows:
        cells = {c.column: c.text for c in row.cells}
        if code_at in cells:
            out[cells[code_at]] = [cells.get(i, "") for i in range(code_at + 1, code_at + 3)]
    return out


def test_first_rows_under_a_ruled_header_are_rows_even_with_a_misread_code() -> None:
    """The rows under the rule that closes the header are body rows: the misread first code
    is read again from its own box (2110), and no amount of them leaks into a column label."""
    words, rules, hrules = _ruled_ofr("ania")
    asked: list[bool] = []

    def reread(
        x0: float, x1: float, top: float, bottom: float, code: bool
    ) -> tuple[str, float] | None:
        asked.append(code)
        if not code:
            return None
        return ("2110", 90.0) if top < 80 else ("2115", 90.0)  # the first row, or 2115

    item = layout_page(words, 1, rules, hrules, reread)
    cells = _cells(item)
    assert cells["2110"] == ["315 209 726", "323 383 185"]
    assert cells["2115"] == ["864 854", "117 750"]
    assert cells["2120"] == ["(315 317 485)", "(299 343 014)"]
    headers = [c.header for c in item.tables[0].columns]
    assert "За 2025 г." in headers and "За 2024 г." in headers, headers
    assert True in asked


def test_a_clean_code_no_form_prints_is_read_again() -> None:
    """«2219» is four clean digits but no form's code: its box is read again, and 2210 (a
    catalogue code) replaces it; an unknown code the re-read confirms («2115») stays."""
    words, rules, hrules = _ruled_ofr("2219")

    def reread(
        x0: float, x1: float, top: float, bottom: float, code: bool
    ) -> tuple[str, float] | None:
        if not code:
            return None
        return ("2210", 88.0) if top < 80 else ("2115", 90.0)

    cells = _cells(layout_page(words, 1, rules, hrules, reread))
    assert "2210" in cells and "2219" not in cells
    assert cells["2210"] == ["315 209 726", "323 383 185"]
    assert "2115" in cells


def test_words_of_one_printed_line_keep_their_order_whatever_their_box_heights() -> None:
    """«117» with a short box and «750» with a tall one print on one line: the cell reads
    «117 750», never «750 117» (an amount's digit groups must not swap). The boxes' centres
    lie more than half a line apart, so the page's lines (by centre) put «750» on a line of
    its own above «117»; only reading the cell by printed line (boxes that overlap), then
    left to right, puts them back in order."""
    words, rules, hrules = _ruled_ofr("2110")
    words = [
        PlacedWord(w.text, w.x0, w.x1, w.top + 6, w.top + 14, w.confidence)
        if w.text == "117"
        else PlacedWord(w.text, w.x0, w.x1, w.top - 20, w.top + 14, w.confidence)
        if w.text == "750"
        else w
        for w in words
    ]
    centre = {w.text: (w.top + w.bottom) / 2 for w in words if w.text in {"117", "750"}}
    assert centre["117"] - centre["750"] > _LINE / 2  # apart as the page's lines see them
    assert _cells(layout_page(words, 1, rules, hrules))["2115"][1] == "117 750"


def test_footnotes_and_stamps_below_the_last_code_are_no_rows() -> None:
    """Lines under the last coded row (footnotes, a stamp's letters read as «1», «О») do not
    become rows of the table."""
    words, rules, hrules = _ruled_ofr("2110")
    bottom = 55 + 4 * 2 * _LINE
    words += [
        _word("Примечания", 10, bottom + 40),
        _word("1", 300, bottom + 60),
        _word("О", 430, bottom + 60),
        _word("5", 580, bottom + 80),
    ]
    [table] = layout_page(words, 1, rules, hrules).tables
    texts = [c.text for row in table.rows for c in row.cells]
    assert "Примечания" not in texts and "О" not in texts
    assert len(table.rows) == 4


def test_target_use_report_codes_start_the_table() -> None:
    """The 6xxx lines of «Отчет о целевом использовании средств» (0710003) are codes: the
    table is laid out by them, each amount in its column."""
    words = [
        _word("Наименование", 10, 20),
        _word("Код", 300, 20),
        _word("За", 420, 20),
        _word("отчетный", 445, 20),
        _word("год", 530, 20),
    ]
    for n, (code, amount) in enumerate((("6100", "2518"), ("6200", "302802"), ("6400", "1356"))):
        words += [_word("Строка", 10, 60 + 30 * n), _word(code, 300, 60 + 30 * n)]
        words.append(_word(amount, 440, 60 + 30 * n))
    [table] = layout_page(words, 1).tables
    rows = {r.cells[1].text: r.cells[2].text for r in table.rows}
    assert rows == {"6100": "2518", "6200": "302802", "6400": "1356"}
