"""What the benchmark-harness sources share: pinned GitHub URLs, fetching a fixed list of pages,
replay recordings of the saved files, and reading markdown tables. A harness parser resolves no
device: the enrich stage does (``models/harness.py``'s ``resolve_figures``, with the alias table and
titles the source declares).

The harness files are read at a pinned commit, so a figure always traces back to the bytes behind
it, and a replay recording can be stored under the exact URL the live fetch requests.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable
from datetime import date
from pathlib import Path

from pydantic import ValidationError

from gpuvalue.models.source_batches import SourceFetch
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.page_text import page_text
from gpuvalue.scrapers.source import FetchContext, Recording, at_midnight_utc, page_from_file


def raw_github_url(repo: str, commit: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def fetch_pages(ctx: FetchContext, source: str, urls: Iterable[str]) -> SourceFetch:
    """Every URL, in order; a page that cannot be fetched fails the source (the client retries)."""
    out = SourceFetch(source)
    urls = list(urls)
    for number, url in enumerate(urls, start=1):
        out.pages.append(ctx.client.get(url, source=source))
        if len(urls) > 1:
            ctx.step(f"{source}: page {number}/{len(urls)}", number, len(urls))
    return out


def recording(
    source: str, url: str, file: Path, commit_date: date, provenance: str, content_type: str
) -> Recording:
    """A saved file as the replay archive stores it: under the live URL, dated by its commit."""
    page = page_from_file(source, file.read_bytes(), url, at_midnight_utc(commit_date), content_type)
    return Recording(page=page, provenance=provenance)


def contract_errors_as_parse_errors(source: str) -> Callable:
    """A page parser (``body, url, ...``) whose records break the data contract (a value the
    models refuse) raises ParseError like any other garbage, never pydantic's ValidationError."""

    def wrap(parse: Callable) -> Callable:
        @functools.wraps(parse)
        def checked(body: bytes, url: str, *args, **kwargs):
            try:
                return parse(body, url, *args, **kwargs)
            except ValidationError as exc:
                first = exc.errors()[0]
                raise ParseError(source, url, f"a record breaks the data contract: {first['msg']}") from None

        return checked

    return wrap


def decode_text(body: bytes, source: str, url: str) -> str:
    """A harness page's body as text (scrapers/page_text.py)."""
    return page_text(body, source, url, kind="a benchmark page")


def positive_number(text: str, what: str, source: str, url: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ParseError(source, url, f"{what}: not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise ParseError(source, url, f"{what}: not a positive number: {text!r}")
    return value


# --- markdown tables ----------------------------------------------------------------------------

_SEPARATOR_CELL = re.compile(r"^:?-+:?$")


def table_cells(line: str) -> list[str]:
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    return [c.strip() for c in text.split("|")]


def is_table_line(line: str) -> bool:
    return line.lstrip().startswith("|")


def is_separator(line: str) -> bool:
    cells = table_cells(line)
    return bool(cells) and all(_SEPARATOR_CELL.match(c) for c in cells)


def markdown_tables(text: str) -> list[tuple[int, list[str], list[list[str]]]]:
    """Every pipe table: (line index of its header, header cells, body rows), in page order.

    A table is a header line, a separator line, then rows up to the first line that is not a row."""
    lines = text.splitlines()
    tables = []
    i = 0
    while i + 1 < len(lines):
        if is_table_line(lines[i]) and is_table_line(lines[i + 1]) and is_separator(lines[i + 1]):
            header = table_cells(lines[i])
            rows = []
            j = i + 2
            while j < len(lines) and is_table_line(lines[j]):
                rows.append(table_cells(lines[j]))
                j += 1
            tables.append((i, header, rows))
            i = j
        else:
            i += 1
    return tables
