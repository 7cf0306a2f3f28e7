"""The shared CSV table reader: each refusal names the source and says why, a row's with its line."""

from __future__ import annotations

import pytest

from gpuvalue.scrapers.csv_table import lines_said, read_csv_table
from gpuvalue.scrapers.errors import ParseError

URL = "https://example.com/table.csv"


def table(body: bytes, **kw):
    return read_csv_table(body, source="a-source", url=URL, required=("A", "B"), optional=("C",), **kw)


def refusal(body: bytes, **kw) -> str:
    with pytest.raises(ParseError) as caught:
        list(table(body, **kw))
    assert (caught.value.source, caught.value.url) == ("a-source", URL)
    return caught.value.what


def test_rows_by_header_name_with_their_lines():
    rows = list(table(b"\xef\xbb\xbf B , A\n2, 1 \n\n , \n4,3\n"))
    assert [(r.line, r.cell("A"), r.cell("B"), r.cell("C")) for r in rows] == [(2, "1", "2", ""), (5, "3", "4", "")]


@pytest.mark.parametrize(("body", "what"), [
    (b"\xff\xfeA,B\n", "not UTF-8 text"),
    (b"A,B\n1,\x00\n", "binary content, not a CSV file"),
    (b"", "empty file"),
    (b"A,C\n1,2\n", "column 'B' missing from the header (has A, C)"),
    (b"A,B\n1\n", "line 2: 1 cells for 2 columns"),
    (b'A,B\n1,"' + b"x" * 200_000 + b'"\n', "not CSV: field larger than field limit (131072)"),
])
def test_refusals(body, what):
    assert refusal(body) == what


def test_header_first_refuses_the_header_before_reading_the_rows():
    body = b'A,C\n1,"' + b"x" * 200_000 + b'"\n'
    assert refusal(body).startswith("not CSV")
    assert refusal(body, header_first=True) == "column 'B' missing from the header (has A, C)"


def test_a_row_error_comes_in_file_order():
    rows = iter(table(b"A,B\n1,2\n3\n"))
    assert next(rows).line == 2
    with pytest.raises(ParseError, match="line 3: 1 cells for 2 columns"):
        next(rows)


@pytest.mark.parametrize("cell", ["abc", "nan", "inf", "-inf", "1e999"])
def test_number_refuses_what_is_not_a_finite_number(cell):
    row = next(iter(table(f"A,B\n{cell},1\n".encode())))
    with pytest.raises(ParseError) as caught:
        row.number("A")
    assert caught.value.what == f"line 2: A {cell!r} is not a number"


def test_number_and_usd():
    row = next(iter(table(b"A,B,C\n\" 1,5 \",$2.50,EUR 3\n")))
    assert row.number("A", row.cell("A").replace(",", "")) == 15.0
    assert row.usd("B") == 2.5
    assert row.usd("Z") is None
    with pytest.raises(ParseError, match=r"line 2: C 'EUR 3' is not a price"):
        row.usd("C")


def test_lines_said():
    assert lines_said([2, 3]) == "2, 3"
    assert lines_said(list(range(2, 14))) == "2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ..."
