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
    """A request failed after its retries were spent, or was not allowed (robots.txt, not recorded).

    ``retryable`` says whether asking again later may succeed: a rate limit (429), a server error
    (5xx) or a timeout may pass; a refusal (a sign-in wall, a bot challenge, a 403, robots.txt) or an
    unreachable host will not within a run. The HTTP client retries the first kind itself, and the
    flow never re-runs a source for the second (``flows/daily.py``)."""

    retryable_by_default = True

    def __init__(self, url: str, what: str, *, retryable: bool | None = None) -> None:
        self.url = url
        self.what = what
        self.retryable = self.retryable_by_default if retryable is None else retryable
        super().__init__(f"{url}: {what}")


class RobotsDisallowed(FetchError):
    """robots.txt of the URL's site does not let us fetch it; not retried."""

    retryable_by_default = False


class NotRecordedError(FetchError):
    """Replay was asked for a URL that the archive holds no recording of."""

    retryable_by_default = False


class HostUnreachable(FetchError):
    """The host could not be reached at all (no DNS, no route, nothing listening): every URL of the
    site gets the same answer within a run; not retried."""

    retryable_by_default = False


# What a bot challenge page says (Cloudflare's, Akamai's, PerimeterX's and the sites' own), wherever it
# is served: the live probe and a source that tells a refusal from an empty page both read it.
BOT_CHALLENGE_WORDS = (
    r"captcha|pardon our interruption|checking your browser|verify (?:that )?you(?:'re| are) (?:a )?human"
    r"|are you a human|security measure|access denied|unusual traffic|bot protection|challenge-platform"
)


class AccessRefused(FetchError):
    """The site answered, but not with what was asked: a sign-in wall, a bot challenge, a 403. Asking
    again gets the same answer; ``what`` says what the site did and what the user can do instead."""

    retryable_by_default = False


def _rebuild(cls, args):  # pragma: no cover - exercised through pickle
    return cls(*args)


def _reduce_parse(self: ParseError):
    return (_rebuild, (type(self), (self.source, self.url, self.what)))


def _rebuild_fetch(cls, args, retryable):  # pragma: no cover - exercised through pickle
    return cls(*args, retryable=retryable)


def _reduce_fetch(self: FetchError):
    return (_rebuild_fetch, (type(self), (self.url, self.what), self.retryable))


# Tasks may run on Dask workers in other processes: errors must survive pickling intact.
ParseError.__reduce__ = _reduce_parse  # type: ignore[method-assign, assignment]
FetchError.__reduce__ = _reduce_fetch  # type: ignore[method-assign, assignment]
