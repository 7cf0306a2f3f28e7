"""A fetched body as text, or a ParseError saying why it is not: one rule for every text source.

A source's file is UTF-8 (a byte-order mark allowed and dropped); a body that is not, or that holds a
NUL (a binary file served under a text name), is refused whole, in one line, before any parser reads it.
"""

from __future__ import annotations

from gpuvalue.scrapers.errors import ParseError


def page_text(body: bytes, source: str, url: str | None, *, kind: str = "a text file") -> str:
    """``body`` decoded as UTF-8; ``kind`` names what the source expected ("a CSV file") in the refusal
    of binary content."""
    if not isinstance(body, bytes | bytearray):
        raise ParseError(source, url, "body must be bytes")
    try:
        text = bytes(body).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ParseError(source, url, "not UTF-8 text") from None
    if "\x00" in text:
        raise ParseError(source, url, f"binary content, not {kind}")
    return text
