"""A published CSV table read by its header, for the parsers of sources that publish one.

Tables kept in a repository (by hand or by a script) move columns, gain ones and repeat their
header, so a parser finds each cell by its column's name, never by its place. What is the same for
every such table lives here, so that each source's module holds only what its rows mean: the file
must be UTF-8 text (a BOM allowed), hold no NUL byte and be CSV throughout; its header must name
every column the source requires; a blank row means nothing; a row of another width than the header
is refused, as the cells could not be told apart. Every refusal is the project's ParseError,
naming the source and the row's line in the file.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.money import parse_price
from gpuvalue.scrapers.page_text import page_text


@dataclass(frozen=True)
class CsvRow:
    """One row of a table: its line in the file (the header is line 1) and its cells by column name."""

    source: str
    url: str
    line: int
    cells: Sequence[str]
    columns: Mapping[str, int]  # column name -> its place, for the columns the header has

    def cell(self, name: str) -> str:
        """The cell of column ``name``, stripped; blank where the header has no such column."""
        return self.cells[self.columns[name]].strip() if name in self.columns else ""

    def error(self, what: str) -> ParseError:
        """The error refusing the file for what is wrong with this row."""
        return ParseError(self.source, self.url, f"line {self.line}: {what}")

    def not_a_number(self, name: str) -> ParseError:
        return self.error(f"{name} {self.cell(name)!r} is not a number")

    def number(self, name: str, text: str | None = None) -> float:
        """Column ``name`` as a finite number: ``text``, the source's cleaned form of the cell, where
        given, else the cell. A cell that is not one (``nan`` and ``inf`` included) refuses the file,
        as a price or count read wrongly would mislead."""
        try:
            number = float(self.cell(name) if text is None else text)
        except ValueError:
            raise self.not_a_number(name) from None
        if not math.isfinite(number):
            raise self.not_a_number(name)
        return number

    def usd(self, name: str) -> float | None:
        """Column ``name`` as a US dollar amount ("$1.10", "0.125"), read by the one money parser with a
        decimal point; None when blank. A cell that is not a dollar price refuses the file."""
        text = self.cell(name)
        if not text:
            return None
        money = parse_price(text, default="USD", decimal=".")
        if money is None or money.currency != "USD":
            raise self.error(f"{name} {text!r} is not a price")
        return money.amount


@dataclass(frozen=True)
class CsvTable:
    """A table whose file and header were accepted; its rows are checked as they are read, so that a
    row's error is raised in file order among the source's own."""

    source: str
    url: str
    header: Sequence[str]
    body_rows: Sequence[Sequence[str]]
    columns: Mapping[str, int]

    def __iter__(self) -> Iterator[CsvRow]:
        for line, cells in enumerate(self.body_rows, start=2):
            if not any(cell.strip() for cell in cells):
                continue
            row = CsvRow(self.source, self.url, line, cells, self.columns)
            if len(cells) != len(self.header):
                raise row.error(f"{len(cells)} cells for {len(self.header)} columns")
            yield row


def read_csv_table(body: bytes, *, source: str, url: str, required: Sequence[str], optional: Sequence[str] = (),
                   header_first: bool = False) -> CsvTable:
    """The table in ``body``, its columns found by the header's names (``required`` and ``optional``);
    ParseError when it is not UTF-8 CSV, is empty or its header lacks a required column. The whole file
    is read as CSV before the header is judged, unless ``header_first``: then a header lacking a column
    is refused before the rows are read."""
    text = page_text(body, source, url, kind="a CSV file")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        first = next(reader, None)
        rows = [] if first is None or header_first else list(reader)
    except csv.Error as exc:
        raise ParseError(source, url, f"not CSV: {exc}") from None
    if first is None:
        raise ParseError(source, url, "empty file")
    header = [h.strip() for h in first]
    for column in required:
        if column not in header:
            raise ParseError(source, url, f"column {column!r} missing from the header (has {', '.join(header)})")
    if header_first:
        try:
            rows = list(reader)
        except csv.Error as exc:
            raise ParseError(source, url, f"not CSV: {exc}") from None
    columns = {name: header.index(name) for name in (*required, *optional) if name in header}
    return CsvTable(source, url, header, rows, columns)


def lines_said(lines: Sequence[int], most: int = 10) -> str:
    """The first ``most`` line numbers of a warning about several rows, ``...`` after them if there are more."""
    return f"{', '.join(map(str, lines[:most]))}{', ...' if len(lines) > most else ''}"
