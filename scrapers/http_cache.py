"""Earlier responses, reused as RFC 9111 allows, so a daily run asks "changed since?" or not at all.

What may be stored, when a stored response answers without asking, when it must be revalidated
(ETag / Last-Modified) and which stored response a request's ``Vary`` headers select are decided
by hishel's RFC 9111 state machine; this module only feeds it and keeps its entries in one SQLite
file (``responses.sqlite``), whose transactions leave either the old entry or the new one after a
crash. A private cache: ``no-store`` responses are never kept, ``private`` ones may be.

No credential reaches disk: the request stored beside a response keeps only the headers the caller
deems safe (never Authorization or cookies), and so do the stored response headers. A cache file
that cannot be read is set aside and started afresh, so a damaged cache costs one full fetch, never
a run.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from hishel import (
    CacheMiss,
    CacheOptions,
    CouldNotBeStored,
    FromCache,
    Headers,
    IdleClient,
    InvalidateEntries,
    NeedRevalidation,
    NeedToBeUpdated,
    Request,
    Response,
    SqliteStorage,
    StoreAndUse,
)

from gpuvalue.scrapers.bounded import DEFAULT_CACHE_MAX_AGE_H

CACHE_FILE = "responses.sqlite"
# Set on a response the cache answered with: "fresh" (no request made) or "revalidated" (a 304).
FROM_CACHE_EXTENSION = "gpuvalue_from_cache"
# Set on a response served fresh (unasked): when it was fetched (a datetime), which a page keeps.
FETCHED_AT_EXTENSION = "gpuvalue_fetched_at"
# Written by the cache on every response it stores (a server's own header of the name is replaced):
# when the answer came, or was last confirmed by a 304.
STORED_AT_HEADER = "x-gpuvalue-stored-at"
NO_CACHE = ("cache-control", "no-cache")
_LEGACY_ENTRY_SUFFIXES = (".json", ".body")  # the former one-pair-of-files-per-URL layout

log = logging.getLogger(__name__)

SendConditional = Callable[[dict[str, str]], httpx.Response]
KeepHeaders = Callable[[Mapping[str, str]], dict[str, str]]


class HttpCache:
    """One SQLite file of responses, shared by the threads of one client."""

    def __init__(self, directory: Path, *, keep_headers: KeepHeaders, max_age_s: float = DEFAULT_CACHE_MAX_AGE_H * 3600,
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._keep = keep_headers
        # However long a server says a page stays fresh, it is served unasked for at most this long: a
        # max-age of 999999999999 must not pin a price for ever.
        self.max_age_s = max_age_s
        self._now = now
        self._options = CacheOptions(shared=False)
        self._lock = threading.RLock()
        _drop_legacy_entries(self.directory)
        self._storage = self._open()

    def answer(self, url: str, headers: Mapping[str, str], send: SendConditional) -> httpx.Response:
        """The response to a GET of ``url``: stored, revalidated through ``send``, or fetched and stored.

        ``send`` is called with the request's headers plus any conditional ones and returns a response
        read whole; its exceptions pass through untouched.
        """
        request = Request(method="GET", url=url, headers=Headers(dict(headers)))
        key = hashlib.sha256(url.encode("utf-8")).hexdigest()
        with self._lock:
            entries = self._entries(key)
            deciding = request
            if not any(self._fresh_enough(entry.response) for entry in entries):
                # Only the server's own freshness lets a stored page answer unasked: RFC 9111's heuristic
                # (10% of the time since Last-Modified, up to a week) would show last week's listings as
                # today's. A request's no-cache makes the state machine revalidate; it is not sent.
                deciding = Request(method="GET", url=url, headers=Headers({**dict(headers), NO_CACHE[0]: NO_CACHE[1]}))
            state = IdleClient(options=self._options).next(deciding, entries)
        upstream: httpx.Response | None = None
        superseded: list = []
        while True:
            if isinstance(state, NeedRevalidation):
                superseded = [entry for entry in state.revalidating_entries if _same_variant(entry, request)]
            if isinstance(state, (CacheMiss, NeedRevalidation)):
                asked = {name.lower() for name in headers}
                conditions = {name: state.request.headers[name] for name in state.request.headers
                              if name not in asked and name != NO_CACHE[0]}
                upstream = send({**headers, **conditions})
                state = state.next(_internal(upstream, self._keep, self._now()))  # type: ignore[assignment]  # hishel's next states
                continue
            with self._lock:
                if isinstance(state, NeedToBeUpdated):
                    for entry in state.updating_entries:
                        self._storage.update_headers(entry.id, entry.response.headers)
                    state = state.next()
                elif isinstance(state, InvalidateEntries):
                    for entry_id in state.entry_ids:
                        self._storage.remove_entry(entry_id)
                    state = state.next()
                elif isinstance(state, StoreAndUse):
                    kept = Request(method="GET", url=url, headers=Headers(self._keep(headers)))
                    self._store(kept, state.response, key)
                    for entry in superseded:  # a full answer replaces the variant it revalidated
                        self._storage.remove_entry(entry.id)
                    assert upstream is not None
                    return upstream
                elif isinstance(state, CouldNotBeStored):
                    assert upstream is not None
                    return upstream
                elif isinstance(state, FromCache):
                    revalidated = upstream is not None
                    body = b"".join(state.entry.response.stream or ())  # type: ignore[arg-type]
                    stored = state.entry.response.headers
                    extensions: dict[str, object] = {FROM_CACHE_EXTENSION: "revalidated" if revalidated else "fresh"}
                    fetched = _stored_at(stored)
                    if not revalidated and fetched is not None:  # a 304 confirmed it today; unasked, it is as old as it is
                        extensions[FETCHED_AT_EXTENSION] = fetched
                    return httpx.Response(
                        state.entry.response.status_code,
                        headers=[(name, value) for name in stored if name.lower() != STORED_AT_HEADER
                                 for value in stored.get_list(name) or []],
                        content=body,
                        request=httpx.Request("GET", url),
                        extensions=extensions,
                    )
                else:  # pragma: no cover - hishel's states are exhausted above
                    raise AssertionError(f"unexpected cache state {type(state).__name__}")

    def close(self) -> None:
        with self._lock:
            self._storage.close()

    # -- storage ------------------------------------------------------------------------------

    def _open(self) -> SqliteStorage:
        """The storage on the cache file; a file SQLite cannot read is set aside first."""
        path = self.directory / CACHE_FILE
        try:
            probe = sqlite3.connect(str(path))
            try:
                probe.execute("PRAGMA schema_version").fetchone()
            finally:
                probe.close()
        except sqlite3.DatabaseError as exc:
            log.warning("HTTP cache %s unreadable (%s): set aside, starting empty", path.name, exc)
            for suffix in ("", "-wal", "-shm"):
                damaged = path.with_name(path.name + suffix)
                if damaged.exists():
                    damaged.replace(damaged.with_name(damaged.name + ".damaged"))
        connection = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        return SqliteStorage(connection=connection)

    def _entries(self, key: str) -> list:
        return self._storage.get_entries(key)

    def _store(self, request: Request, response: Response, key: str) -> None:
        entry = self._storage.create_entry(request, response, key)
        for _ in entry.response.stream or ():  # type: ignore[union-attr]  # a sync client's stream; the body is written as its stream is read
            pass



    def _fresh_enough(self, response: Response) -> bool:
        """Whether a stored response may answer unasked: the server gave it a lifetime of its own (max-age
        or Expires), which hishel then checks, and it was fetched (or confirmed) within ``max_age_s``."""
        if not _explicitly_fresh(response):
            return False
        stored = _stored_at(response.headers)
        if stored is None:
            return False  # stored before the cache dated its entries: asked again once
        return timedelta(0) <= self._now() - stored <= timedelta(seconds=self.max_age_s)


def _internal(response: httpx.Response, keep: KeepHeaders, now: datetime) -> Response:
    """hishel's view of a response read whole: its body already decoded, so no Content-Encoding; dated
    with when it came (``STORED_AT_HEADER``, whatever the server sent under that name)."""
    headers = {name: value for name, value in keep(response.headers).items()
               if name not in ("content-encoding", STORED_AT_HEADER)}
    headers[STORED_AT_HEADER] = now.astimezone(UTC).isoformat()
    if response.status_code != 304:
        headers["content-length"] = str(len(response.content))
    return Response(status_code=response.status_code, headers=Headers(headers), stream=iter([response.content]))


def _stored_at(headers: Headers) -> datetime | None:
    value = headers.get(STORED_AT_HEADER)
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _same_variant(entry, request: Request) -> bool:  # noqa: ANN001 - hishel's Entry
    """Whether the stored response answered a request like this one, by the headers its Vary names."""
    named = [name.strip().lower() for name in (entry.response.headers.get("vary") or "").split(",") if name.strip()]
    if "*" in named:
        return False
    return all(entry.request.headers.get(name) == request.headers.get(name) for name in named)


def _explicitly_fresh(response: Response) -> bool:
    """Whether the server gave the response a lifetime of its own (max-age or Expires)."""
    directives = (response.headers.get("cache-control") or "").lower()
    return "max-age" in directives or response.headers.get("expires") is not None


def _drop_legacy_entries(directory: Path) -> None:
    for path in directory.iterdir():
        stem, suffix = path.stem, path.suffix
        if suffix in _LEGACY_ENTRY_SUFFIXES and len(stem) == 64 and all(ch in "0123456789abcdef" for ch in stem):
            path.unlink(missing_ok=True)
