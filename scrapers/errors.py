"""Typed errors: a parser raises only ParseError, whatever garbage it is given."""

from __future__ import annotations


class ParseError(ValueError):
    """A page could not be parsed: layout changed, truncated, wrong shape or not the expected page."""

    def __init__(self, source: str, url: str | None, what: str) -> None:
        self.source = source
        self.url = url
        self.what = what
        super().__init__(f"{source}: cannot parse {url or '<unknown url>'}: {what}")


class FetchError(RuntimeError):
    """A request failed after its retries were spent, or was not allowed (robots.txt, not recorded)."""

    def __init__(self, url: str, what: str) -> None:
        self.url = url
        self.what = what
        super().__init__(f"{url}: {what}")


class RobotsDisallowed(FetchError):
    """robots.txt of the URL's site does not let us fetch it; not retried."""


class NotRecordedError(FetchError):
    """Replay was asked for a URL that the archive holds no recording of."""


def _rebuild(cls, args):  # pragma: no cover - exercised through pickle
    return cls(*args)


def _reduce_parse(self: ParseError):
    return (_rebuild, (type(self), (self.source, self.url, self.what)))


def _reduce_fetch(self: FetchError):
    return (_rebuild, (type(self), (self.url, self.what)))


# Tasks may run on Dask workers in other processes: errors must survive pickling intact.
ParseError.__reduce__ = _reduce_parse  # type: ignore[method-assign]
FetchError.__reduce__ = _reduce_fetch  # type: ignore[method-assign]
