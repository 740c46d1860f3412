"""A 1C HTML export → `Sheet`: every <tr> of every <table> is one sheet row, COLSPAN merges."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from services.excel.model import CellRange, CellValue, Sheet


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[CellValue]] = []
        self.merged: list[CellRange] = []
        self._row: list[CellValue] | None = None
        self._cell: list[str] | None = None
        self._span = 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
            span = dict(attrs).get("colspan") or "1"
            self._span = int(span) if span.isdigit() else 1
        elif tag == "br" and self._cell is not None:
            self._cell.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            text = "".join(self._cell).strip()
            col = len(self._row)
            self._row.append(text or None)
            if self._span > 1:
                self._row.extend([None] * (self._span - 1))
                row = len(self.rows)
                self.merged.append(CellRange(row, col, row, col + self._span - 1))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def html_sheet(path: Path, name: str = "TDSheet") -> Sheet:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("cp1251")
    parser = _Tables()
    parser.feed(text)
    parser.close()
    return Sheet(name=name, rows=parser.rows, merged=parser.merged)
