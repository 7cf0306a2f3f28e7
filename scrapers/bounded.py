"""Bytes within bounds: decompression that stops at a size, before the output is kept.

A gzip file of 1.5 MB can expand to 1.5 GB; `gzip.decompress` builds all of it in memory before
anything can look at its size. ``gunzip_bounded`` inflates the stream a chunk at a time, in one pass,
and refuses it as soon as the output passes the limit: a bomb costs the CPU and memory of reading up
to the limit, never more. An XML body's entities can expand the same way (``declares_dtd``).
"""

from __future__ import annotations

import re
import zlib
from typing import Any

MB = 1024 * 1024
DEFAULT_MAX_DECOMPRESSED_MB = 100.0  # the largest recorded page is 0.3 MB
DEFAULT_MAX_RESPONSE_MB = 64.0
DEFAULT_REQUEST_DEADLINE_S = 120.0  # one request, headers and body together (scrapers/fetch_bounds.py)
DEFAULT_CACHE_MAX_AGE_H = 24.0  # the longest a cached page is served unasked (scrapers/http_cache.py)
_CHUNK = 1 * MB
_DOCTYPE = re.compile(rb"<!DOCTYPE", re.IGNORECASE)
_ENTITY = re.compile(rb"<!ENTITY", re.IGNORECASE)


class TooLarge(ValueError):
    """More bytes than the limit allows; ``limit`` in bytes."""

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(f"{what} is larger than the {limit / MB:g} MB limit")
        self.limit = limit


def limit_bytes(mb: float) -> int:
    return int(mb * MB)


def _inflated(data: bytes, limit: int) -> list[bytes]:
    """The chunks a gzip stream (members one after another, as gzip writes them) expands to, read in one
    pass; TooLarge past ``limit`` bytes, as soon as the count passes it. zlib.error or EOFError for a
    damaged stream."""
    chunks: list[bytes] = []
    total = 0
    rest = data
    while rest:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending = rest
        while pending:
            chunk = inflater.decompress(pending, _CHUNK)
            total += len(chunk)
            if total > limit:
                raise TooLarge("the decompressed data", limit)
            chunks.append(chunk)
            pending = inflater.unconsumed_tail
        tail = inflater.flush()
        total += len(tail)
        if total > limit:
            raise TooLarge("the decompressed data", limit)
        chunks.append(tail)
        if not inflater.eof:
            raise EOFError("compressed data ended before the end-of-stream marker")
        rest = inflater.unused_data.lstrip(b"\x00")  # gzip pads between members with zeros at times
    return chunks


def expanded_size(data: bytes, limit: int) -> int:
    """What a gzip stream expands to (``_inflated``'s rules)."""
    return sum(map(len, _inflated(data, limit)))


def gunzip_bounded(data: bytes, limit: int) -> bytes:
    """``gzip.decompress`` that refuses (TooLarge) a stream expanding past ``limit`` bytes, in one pass."""
    return b"".join(_inflated(data, limit))


def declares_dtd(body: bytes) -> bool:
    """Whether an XML body declares a document type (in its first 2,000 bytes, where a prologue has
    one) or an entity (anywhere): a few bytes of entities can expand to gigabytes (the "billion
    laughs"), and no feed or file a source reads declares either, so its parser refuses such a body
    before an XML parser sees it. A UTF-16 or UTF-32 body is looked at without its zero bytes, so
    ``<\0!\0E\0N\0T\0I\0T\0Y\0`` is seen too; ``xml_root`` refuses what any other encoding hides."""
    if b"\x00" in body[:4096]:
        body = body.replace(b"\x00", b"")
    return bool(_DOCTYPE.search(body, 0, 2000) or _ENTITY.search(body))


class DtdRefused(ValueError):
    """An XML document declaring a document type or an entity, refused as the parser met it."""


def xml_root(body: bytes) -> Any:
    """The root element of an XML document, built by expat with a guard on the parser itself: a
    document type or entity declaration raises DtdRefused as expat reads it, in whatever encoding the
    document is written (UTF-16, or one a declaration names), so no entity is ever expanded.
    ElementTree.ParseError for a document that is not well-formed."""
    from xml.etree import ElementTree
    from xml.parsers import expat

    builder = ElementTree.TreeBuilder()
    parser = expat.ParserCreate(namespace_separator="}")
    parser.buffer_text = True

    def name(raw: str) -> str:
        return "{" + raw if "}" in raw else raw

    def refuse(*_args: object) -> None:
        raise DtdRefused("the document declares a document type or entities")

    parser.StartElementHandler = lambda tag, attrs: builder.start(name(tag), {name(k): v for k, v in attrs.items()})
    parser.EndElementHandler = lambda tag: builder.end(name(tag))
    parser.CharacterDataHandler = builder.data
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    try:
        parser.Parse(body, True)
        return builder.close()
    except expat.ExpatError as exc:
        raise ElementTree.ParseError(str(exc)) from None


class TooDeep(ValueError):
    """A document nested deeper than a parser follows (a JSON answer of 100,000 brackets)."""


def json_document(text: str | bytes) -> Any:
    """``json.loads`` whose nesting is bounded: a document nested past Python's recursion limit is a
    ValueError (TooDeep) like any other unreadable JSON, never a RecursionError that escapes the
    parser's error handling."""
    import json

    try:
        return json.loads(text)
    except RecursionError:
        raise TooDeep("the JSON is nested deeper than it may be (a hostile or broken answer)") from None
