"""Every request within a deadline, every body within a size, whatever the server does.

httpx bounds each socket operation (connect, one read, one write), not a request: a server that sends
its headers or its body one byte every 20 s never trips a 30 s read timeout and holds a run's fetch
stage for as long as it likes. ``DeadlineBackend`` wraps the network backend of httpx's connection
pool so that every socket operation of a request waits at most until the request's deadline
(``request_deadline``, set around each request by the client): headers and body together, robots.txt
included, fail once it passes.

httpx also decodes a ``Content-Encoding`` of several layers (``gzip, gzip``) whole, chunk by chunk
with no limit on what one chunk inflates to: 3 KB on the wire became gigabytes before any size check
saw them. ``decoded_chunks`` undoes each layer itself, a bounded piece at a time, and counts every
layer's output against the limit, so a bomb costs at most the limit.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

from gpuvalue.scrapers.bounded import DEFAULT_REQUEST_DEADLINE_S, TooLarge

# What the client accepts: the encodings it can undo within bounds (no brotli or zstd decoder here).
ACCEPTED_ENCODINGS = "gzip, deflate"
_PIECE = 256 * 1024  # the most one decompression step may produce

_DEADLINE: ContextVar[float | None] = ContextVar("gpuvalue_request_deadline", default=None)


__all__ = ["ACCEPTED_ENCODINGS", "DEFAULT_REQUEST_DEADLINE_S", "DeadlineBackend", "UnsupportedEncoding",
           "content_encodings", "deadline_passed", "decoded_chunks", "install_deadline", "install_deadlines",
           "request_deadline"]


class UnsupportedEncoding(ValueError):
    """A Content-Encoding the client did not offer and cannot undo within bounds."""


@contextmanager
def request_deadline(seconds: float | None) -> Iterator[None]:
    """Every socket operation inside waits at most until ``seconds`` from now (None: no deadline)."""
    token = _DEADLINE.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def deadline_passed() -> bool:
    deadline = _DEADLINE.get()
    return deadline is not None and time.monotonic() >= deadline


def _within_deadline(timeout: float | None, late: type[Exception]) -> float | None:
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise late("the request's deadline passed")
    return remaining if timeout is None else min(timeout, remaining)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _within_deadline(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _within_deadline(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname,
                                                     _within_deadline(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """A network backend whose streams never wait past the current request's deadline."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _DeadlineStream(self._inner.connect_tcp(host, port, _within_deadline(timeout, httpcore.ConnectTimeout),
                                                       local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _DeadlineStream(self._inner.connect_unix_socket(
            path, _within_deadline(timeout, httpcore.ConnectTimeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def install_deadline(transport: object) -> bool:
    """Puts a DeadlineBackend under an httpx HTTP transport's connection pool; False for a transport
    without one (a test's MockTransport), where the client still checks the deadline between the chunks
    of a body. httpx offers no public way to give its pool a network backend, so this reaches for it."""
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if isinstance(backend, DeadlineBackend):
        return True
    if not isinstance(backend, httpcore.NetworkBackend):
        return False
    pool._network_backend = DeadlineBackend(backend)  # type: ignore[union-attr]
    return True


def install_deadlines(client: httpx.Client) -> int:
    """``install_deadline`` on each of ``client``'s own transports (its proxies' included); how many took it."""
    transports = [getattr(client, "_transport", None), *getattr(client, "_mounts", {}).values()]
    return sum(install_deadline(transport) for transport in transports)


# ---- bounded decoding -------------------------------------------------------------------------


def content_encodings(headers: httpx.Headers) -> list[str]:
    """The encodings applied to a body, in the order they were applied (identity left out)."""
    codings = [part.strip().lower() for value in headers.get_list("content-encoding") for part in value.split(",")]
    return [coding for coding in codings if coding and coding != "identity"]


class _Inflater:
    """One gzip or deflate layer, undone a bounded piece at a time."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._gzip = coding in ("gzip", "x-gzip")
        self._started = False
        self._raw_deflate = False
        self._inflater = self._new()

    def _new(self) -> Any:
        if self._gzip:
            return zlib.decompressobj(zlib.MAX_WBITS | 16)
        return zlib.decompressobj(-zlib.MAX_WBITS if self._raw_deflate else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        while True:
            if self._inflater.eof:
                data = data.lstrip(b"\x00") if self._gzip else b""
                if not data:
                    return
                self._inflater = self._new()  # a gzip body may hold several members, one after another
            try:
                piece = self._inflater.decompress(data, _PIECE)
            except zlib.error:
                if self._gzip or self._started or self._raw_deflate:
                    raise
                self._raw_deflate = True  # "deflate" sent without its zlib wrapper, as some servers do
                self._inflater = self._new()
                piece = self._inflater.decompress(data, _PIECE)
            self._started = True
            data = self._inflater.unconsumed_tail or (self._inflater.unused_data if self._inflater.eof else b"")
            if piece:
                yield piece
            if not data and len(piece) < _PIECE:  # all read, and nothing held back for want of room
                return

    def flush(self) -> Iterator[bytes]:
        tail = self._inflater.flush()
        if tail:
            yield tail


def _layer(coding: str) -> _Inflater:
    if coding in ("gzip", "x-gzip", "deflate"):
        return _Inflater(coding)
    raise UnsupportedEncoding(f"a body in the {coding!r} encoding, which was not asked for")


def _undone(pieces: Iterable[bytes], layer: _Inflater, limit: int) -> Iterator[bytes]:
    made = 0

    def out() -> Iterator[bytes]:
        for piece in pieces:
            yield from layer.feed(piece)
        yield from layer.flush()

    for piece in out():
        made += len(piece)
        if made > limit:
            raise TooLarge("the decoded body", limit)
        yield piece


def decoded_chunks(raw: Iterable[bytes], encodings: list[str], limit: int) -> Iterator[bytes]:
    """The body ``raw`` (as it came over the wire) with each encoding undone, last applied first, in
    pieces; TooLarge as soon as any layer's output passes ``limit`` bytes, UnsupportedEncoding for an
    encoding it cannot undo, zlib.error for a damaged stream."""
    pieces: Iterable[bytes] = raw
    for coding in reversed(encodings):
        pieces = _undone(pieces, _layer(coding), limit)
    total = 0
    for piece in pieces:
        total += len(piece)
        if total > limit:
            raise TooLarge("the body", limit)
        yield piece
