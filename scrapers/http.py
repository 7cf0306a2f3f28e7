"""The one HTTP client every source fetches through, so politeness is decided in one place.

A daily scraper meets 429s, 503s, timeouts, cut-off bodies and robots.txt rules. Every
source gets the same answers to them here: robots.txt is read once per origin and obeyed,
requests to one origin are spaced out and never overlap, transient failures are retried
with capped exponential backoff and full jitter (or exactly as long as ``Retry-After``
asks, capped), permanent ones fail at once, and a run that finds a page unchanged since
the last run (ETag / Last-Modified) gets it from the local cache at the cost of a 304, and one
the server declared fresh (max-age, Expires) at no request at all, for a day at most (RFC 9111,
scrapers/http_cache.py). Whatever a server does, a request ends by its deadline and a body within its
size, every content-encoding layer counted (scrapers/fetch_bounds.py), and a redirect is followed only
where the source's own sites are (scrapers/redirects.py).

Credentials never leave the request: log lines and errors carry redacted URLs only, and
header and form values are masked by :func:`redact_headers` / :func:`redact_form` before
anything about them is logged. Token responses fetched with :meth:`PoliteClient.post_form`
do contain the token in their body; callers must not archive those pages.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import random
import re
import socket
import threading
import time
import urllib.parse
import zlib
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from types import TracebackType

import httpx
from pydantic import Field

from gpuvalue import __version__
from gpuvalue.models.records import FetchedPage
from gpuvalue.scrapers.bounded import DEFAULT_CACHE_MAX_AGE_H, DEFAULT_MAX_RESPONSE_MB, TooLarge, limit_bytes
from gpuvalue.scrapers.errors import AccessRefused, FetchError, HostUnreachable, RobotsDisallowed  # noqa: F401  (re-exported)
from gpuvalue.scrapers.fetch_bounds import (
    ACCEPTED_ENCODINGS,
    DEFAULT_REQUEST_DEADLINE_S,
    UnsupportedEncoding,
    content_encodings,
    deadline_passed,
    decoded_chunks,
    install_deadlines,
    request_deadline,
)
from gpuvalue.scrapers.http_cache import FETCHED_AT_EXTENSION, FROM_CACHE_EXTENSION, HttpCache
from gpuvalue.scrapers.redirects import RedirectRefused, home_domains, redirect_refusal
from gpuvalue.scrapers.robots import RobotsPolicy, origin_of, policy_from_response, robots_url_for

DEFAULT_USER_AGENT = (
    f"gpuvalue/{__version__} (+https://github.com/gpuvalue/gpuvalue; deep-learning GPU price/performance tracker)"
)

# Hosts whose use is governed by API terms (rate limits, keys), where robots.txt does not apply
# (api.github.com: GitHub's REST API, its keyless use limited to 60 requests an hour per address).
DEFAULT_ROBOTS_EXEMPT_HOSTS = frozenset({"api.ebay.com", "api.sandbox.ebay.com", "oauth.reddit.com", "api.github.com"})

RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})
# Failures of the connection rather than of the request: worth another try.
RETRYABLE_EXCEPTIONS: tuple[type[Exception], ...] = (
    httpx.TimeoutException,
    httpx.NetworkError,
    httpx.RemoteProtocolError,
    httpx.DecodingError,
)
# A connection that could not even be opened because the host cannot be reached (no DNS, no route, or
# nothing listening): asking again seconds later gets the same answer, so it fails at once and is not
# retried in this run (the next run tries again). A timeout or a reset connection stays transient.
_UNREACHABLE_ERRNOS = frozenset({errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN, errno.ECONNREFUSED})
_UNREACHABLE_WORDS = (
    "name or service not known", "temporary failure in name resolution", "nodename nor servname",
    "no address associated with hostname", "getaddrinfo failed", "network is unreachable", "no route to host",
    "connection refused",
)
UNREACHABLE_SUFFIX = "host unreachable (not retried)"
MAX_REDIRECTS = 5
REDACTED = "[REDACTED]"

_SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token"}
)
_SECRET_FIELD = re.compile(r"secret|passw|token|assertion|api[_-]?key|credential|^code$|^auth$|signature", re.I)


def is_unreachable(exc: BaseException) -> bool:
    """A connect error saying the host cannot be reached at all (see _UNREACHABLE_ERRNOS)."""
    if not isinstance(exc, httpx.ConnectError):
        return False
    seen: BaseException | None = exc
    for _ in range(8):  # httpx wraps httpcore's error, which wraps the socket's
        if seen is None:
            break
        if isinstance(seen, socket.gaierror):
            return True
        if isinstance(seen, OSError) and seen.errno in _UNREACHABLE_ERRNOS:
            return True
        seen = seen.__cause__ or seen.__context__
    text = str(exc).lower()
    return any(words in text for words in _UNREACHABLE_WORDS)


class RobotsUnavailable(FetchError):
    """robots.txt could not be read (5xx, 429, timeout), so the site is off limits for now: every URL
    of the site gets the same answer."""


class HttpPage(FetchedPage):
    """A FetchedPage that also tells whether the body was served from the conditional cache.

    ``url`` is the URL asked for; ``final_url`` is where redirects ended, when they did.
    ``response_headers`` are the final response's headers (lower-case names) without any
    that can carry credentials or cookies, for archiving validators and dates.
    """

    from_cache: bool = False
    final_url: str | None = None
    response_headers: dict[str, str] = Field(default_factory=dict)


def redact_headers(headers: Mapping[str, str] | httpx.Headers | None) -> dict[str, str]:
    """Headers safe to log: credential values are masked, an auth scheme name is kept."""
    redacted: dict[str, str] = {}
    for name, value in (headers or {}).items():
        if name.lower() in _SECRET_HEADERS or _SECRET_FIELD.search(name):
            scheme = value.split(" ", 1)[0] if name.lower().endswith("authorization") and " " in value else ""
            redacted[name] = f"{scheme} {REDACTED}".strip()
        else:
            redacted[name] = value
    return redacted


# Set by the replay transport on a response's extensions (a server cannot set those, as it could a
# header): when the recorded response was originally captured.
RECORDED_AT_EXTENSION = "gpuvalue_recorded_at"


def safe_response_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Response headers fit to keep: lower-case names, anything credential- or cookie-like dropped."""
    return {
        name.lower(): value
        for name, value in headers.items()
        if name.lower() not in _SECRET_HEADERS and not _SECRET_FIELD.search(name)
    }


def redact_form(data: Mapping[str, str] | None) -> dict[str, str]:
    """Form fields safe to log: ``client_secret``, ``password``, ``refresh_token``... masked."""
    return {key: (REDACTED if _SECRET_FIELD.search(key) else value) for key, value in (data or {}).items()}


def redact_url(url: str) -> str:
    """The URL with user:password and credential-like query values masked."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        if any(_SECRET_FIELD.search(key) for key, _ in pairs):
            query = urllib.parse.urlencode(
                [(key, REDACTED if _SECRET_FIELD.search(key) else value) for key, value in pairs], safe="[]"
            )
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def retry_after_seconds(value: str | None, *, now: datetime) -> float | None:
    """``Retry-After`` as seconds from ``now``: delta-seconds or an HTTP date; None if unusable."""
    if value is None:
        return None
    value = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


class PoliteClient:
    """Thread-safe: one request in flight per origin, different origins in parallel."""

    def __init__(
        self,
        *,
        transport: httpx.BaseTransport | None = None,
        user_agent: str = DEFAULT_USER_AGENT,
        min_interval_s: float = 1.0,
        connect_timeout_s: float = 10.0,
        read_timeout_s: float = 30.0,
        max_retries: int = 4,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 60.0,
        obey_robots: bool = True,
        robots_exempt_hosts: Iterable[str] = DEFAULT_ROBOTS_EXEMPT_HOSTS,
        cache_dir: Path | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        rng: random.Random | None = None,
        log: logging.Logger | None = None,
        max_body_bytes: int = limit_bytes(DEFAULT_MAX_RESPONSE_MB),
        redirect_hosts: Iterable[str] = (),
        request_deadline_s: float | None = DEFAULT_REQUEST_DEADLINE_S,
        cache_max_age_s: float = DEFAULT_CACHE_MAX_AGE_H * 3600,
    ) -> None:
        self.user_agent = user_agent
        self.request_deadline_s = request_deadline_s  # headers and body of one request together (None: none)
        # Besides the host asked (and its www. twin), the domains a redirect may lead into.
        self.redirect_hosts = home_domains(redirect_hosts)
        self.max_body_bytes = max_body_bytes
        self.min_interval_s = min_interval_s
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.obey_robots = obey_robots
        self.robots_exempt_hosts = frozenset(host.lower() for host in robots_exempt_hosts)
        self._cache = (HttpCache(cache_dir, keep_headers=safe_response_headers, max_age_s=cache_max_age_s, now=now)
                       if cache_dir is not None else None)
        self._sleep = sleep
        self._clock = clock
        self._now = now
        self._rng = rng or random.Random()
        self._log = log or logging.getLogger(__name__)
        self._http = httpx.Client(
            transport=transport,
            headers={"User-Agent": user_agent, "Accept-Encoding": ACCEPTED_ENCODINGS},
            timeout=httpx.Timeout(
                connect=connect_timeout_s, read=read_timeout_s, write=read_timeout_s, pool=connect_timeout_s
            ),
            follow_redirects=False,
        )
        install_deadlines(self._http)
        self._registry_lock = threading.Lock()
        self._origin_locks: dict[str, threading.RLock] = {}
        self._last_start: dict[str, float] = {}
        self._robots: dict[str, RobotsPolicy] = {}
        self._stats_lock = threading.Lock()
        self._stats: dict = {"requests": 0, "retries": 0, "robots_skips": 0, "cache_hits": 0, "failures": 0, "per_host": {}}

    # -- public ---------------------------------------------------------------------------

    @property
    def stats(self) -> dict:
        """A snapshot of the counters: requests made (robots.txt included), retries, robots skips,
        cache hits and failures, overall and under ``per_host``."""
        with self._stats_lock:
            snapshot = dict(self._stats)
            snapshot["per_host"] = {host: dict(counts) for host, counts in self._stats["per_host"].items()}
            return snapshot

    def get(self, url: str, *, source: str, headers: Mapping[str, str] | None = None) -> HttpPage:
        """Follows up to five redirects that stay home (scrapers/redirects.py), each hop checked against
        its own site's robots.txt."""
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            outcome = self._fetch_hop("GET", current, headers=headers, data=None, check_robots=True)
            if outcome.is_redirect and "location" in outcome.headers:
                target = self._redirect_target(url, current, outcome)
                if origin_of(target) != origin_of(current):
                    headers = _without_credentials(headers)  # never hand our credentials to another site
                current = target
                continue
            return self._page(
                source,
                url,
                current,
                outcome.status_code,
                outcome.content,
                outcome.headers.get("content-type"),
                safe_response_headers(outcome.headers),
                from_cache=FROM_CACHE_EXTENSION in outcome.extensions,
                fetched_at=_fetched_at(outcome.extensions),
            )
        self._count(url, "failures")
        raise FetchError(redact_url(url), f"more than {MAX_REDIRECTS} redirects", retryable=False)

    def _redirect_target(self, asked: str, current: str, response: httpx.Response) -> str:
        """Where a redirect leads, or RedirectRefused (counted as a failure) where it would leave home."""
        try:
            target = str(response.url.join(response.headers["location"]))
        except (httpx.InvalidURL, ValueError) as exc:
            self._count(asked, "failures")
            raise RedirectRefused(redact_url(asked), f"a redirect to an unreadable location ({exc}) (not retried)") from None
        why = redirect_refusal(asked, current, target, self.redirect_hosts)
        if why is not None:
            self._count(asked, "failures")
            self._log.warning("%s: %s, not followed", redact_url(current), why)
            raise RedirectRefused(redact_url(asked), f"{why} refused: {redact_url(target)} (not retried)")
        return target

    def post_form(
        self, url: str, *, source: str, data: Mapping[str, str], headers: Mapping[str, str] | None = None
    ) -> HttpPage:
        """A form POST (OAuth token exchange): not subject to robots.txt, never cached, no redirects."""
        response = self._fetch_hop("POST", url, headers=headers, data=dict(data), check_robots=False)
        if response.is_redirect:
            self._count(url, "failures")
            raise FetchError(redact_url(url), f"unexpected redirect (HTTP {response.status_code}) answering a POST",
                             retryable=False)
        return self._page(
            source,
            url,
            url,
            response.status_code,
            response.content,
            response.headers.get("content-type"),
            safe_response_headers(response.headers),
        )

    def close(self) -> None:
        self._http.close()
        if self._cache is not None:
            self._cache.close()

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- one hop: robots, cache, rate limit, retries -------------------------------------------

    def _fetch_hop(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None,
        data: dict[str, str] | None,
        check_robots: bool,
    ) -> httpx.Response:
        origin = origin_of(url)
        with self._origin_lock(origin):
            if check_robots and self._robots_apply(url):
                policy = self._robots_policy(origin)
                if not policy.allows(url, self.user_agent):
                    self._count(url, "robots_skips")
                    self._log.warning("robots.txt forbids %s (%s)", redact_url(url), policy.reason)
                    raise RobotsDisallowed(redact_url(url), f"disallowed by {origin}/robots.txt ({policy.reason})")
            send_headers = dict(headers or {})
            if self._cache is not None and method == "GET":
                response = self._cache.answer(
                    url, send_headers, lambda conditional: self._send_logged(method, url, origin, conditional, data)
                )
                served = response.extensions.get(FROM_CACHE_EXTENSION)
                if served is not None:
                    self._count(url, "cache_hits")
                    self._log.info("%s %s", redact_url(url),
                                   "unchanged (304), served from cache" if served == "revalidated"
                                   else "fresh in the cache (its max-age or Expires), not asked")
            else:
                response = self._send_logged(method, url, origin, send_headers, data)
            if response.status_code == 304:
                self._count(url, "failures")
                raise FetchError(redact_url(url), "HTTP 304 Not Modified without a cached copy to serve", retryable=False)
            return response

    def _send_logged(self, method: str, url: str, origin: str, headers: dict[str, str],
                     data: dict[str, str] | None) -> httpx.Response:
        self._log.debug("%s %s headers=%s form=%s", method, redact_url(url), redact_headers(headers), redact_form(data))
        return self._exchange(method, url, origin, headers=headers, data=data)

    def _exchange(
        self,
        method: str,
        url: str,
        origin: str,
        *,
        headers: Mapping[str, str],
        data: dict[str, str] | None,
        accept_client_errors: bool = False,
    ) -> httpx.Response:
        """Sends until an answer that is not transient, or the retries are spent. Caller holds the origin lock."""
        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            self._wait_turn(origin)
            self._count(url, "requests")
            retry_after: float | None = None
            try:
                response = self._send_bounded(method, url, headers=headers, data=data)
            except RETRYABLE_EXCEPTIONS as exc:
                problem = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                if is_unreachable(exc):
                    self._count(url, "failures")
                    # The caller reports it (one line per source); a warning here would say it twice.
                    self._log.info("%s: %s, %s", redact_url(url), problem, UNREACHABLE_SUFFIX)
                    raise HostUnreachable(redact_url(url), f"{problem}: {UNREACHABLE_SUFFIX}")
            else:
                shortfall = _truncation(response)
                if shortfall is not None:
                    problem = shortfall
                elif response.status_code in RETRYABLE_STATUSES:
                    problem = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
                    retry_after = retry_after_seconds(
                        response.headers.get("retry-after"), now=_server_now(response) or self._now()
                    )
                elif response.status_code >= 400 and not accept_client_errors:
                    self._count(url, "failures")
                    what = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
                    self._log.warning("%s failed: %s (not retried)", redact_url(url), what)
                    refused = AccessRefused if response.status_code in (401, 403) else FetchError
                    raise refused(redact_url(url), f"{what} (not retried)", retryable=False)
                else:
                    return response
            if attempt == attempts:
                self._count(url, "failures")
                self._log.warning("%s failed: %s after %d attempts", redact_url(url), problem, attempts)
                raise FetchError(redact_url(url), f"{problem} after {attempts} attempts", retryable=True)
            delay = self._backoff_s(attempt, retry_after)
            self._count(url, "retries")
            self._log.warning(
                "%s: %s (attempt %d of %d), retrying in %.1f s", redact_url(url), problem, attempt, attempts, delay
            )
            self._sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _send_bounded(self, method: str, url: str, *, headers: Mapping[str, str],
                      data: dict[str, str] | None) -> httpx.Response:
        """The response read whole within the request's deadline (headers and body together), unless its
        body (as declared, or as it arrives, decoded layer by layer) passes ``max_body_bytes``: then a
        FetchError, not retried, before more of it is kept."""
        request = self._http.build_request(method, url, headers=headers, data=data)
        with request_deadline(self.request_deadline_s):
            try:
                response = self._http.send(request, stream=True)
            except httpx.TimeoutException:
                if deadline_passed():
                    self._too_slow(url)
                raise
            try:
                declared = response.headers.get("content-length", "").strip()
                if declared.isdigit() and int(declared) > self.max_body_bytes:
                    self._too_large(url)
                if response.is_stream_consumed:  # an in-memory transport handed it over whole and decoded
                    wire: Iterable[bytes] = [response.content]
                    encodings: list[str] = []
                else:
                    wire, encodings = response.iter_raw(), content_encodings(response.headers)
                chunks = []
                for chunk in decoded_chunks(wire, encodings, self.max_body_bytes):
                    chunks.append(chunk)
                    if deadline_passed():
                        self._too_slow(url)
                response._content = b"".join(chunks)  # as Response.read() sets it, once the size is known
            except TooLarge:
                self._too_large(url)
            except httpx.TimeoutException:
                if deadline_passed():
                    self._too_slow(url)
                raise
            except UnsupportedEncoding as exc:
                self._count(url, "failures")
                raise FetchError(redact_url(url), f"{exc} (not retried)", retryable=False) from None
            except zlib.error as exc:
                raise httpx.DecodingError(f"the body does not decode: {exc}", request=request) from None
            finally:
                response.close()
        return response

    def _too_slow(self, url: str) -> None:
        self._count(url, "failures")
        raise FetchError(redact_url(url), f"no whole answer within {self.request_deadline_s:g} s "
                                          "(GPUVALUE_REQUEST_DEADLINE_S) (not retried)", retryable=False)

    def _too_large(self, url: str) -> None:
        self._count(url, "failures")
        raise FetchError(redact_url(url), f"response body larger than {self.max_body_bytes / (1024 * 1024):g} MB "
                                          "(GPUVALUE_MAX_RESPONSE_MB) (not retried)", retryable=False)

    def _backoff_s(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.backoff_max_s)
        ceiling = min(self.backoff_max_s, self.backoff_base_s * 2 ** (attempt - 1))
        return self._rng.uniform(0.0, ceiling)

    def _wait_turn(self, origin: str) -> None:
        """Spaces request starts to one origin; caller holds the origin lock.

        The interval is worked out at each start, so a Crawl-delay learnt from robots.txt
        already spaces the first page request after it."""
        last = self._last_start.get(origin)
        if last is not None:
            wait = last + self._interval_s(origin) - self._clock()
            if wait > 0:
                self._sleep(wait)
        self._last_start[origin] = self._clock()

    def _interval_s(self, origin: str) -> float:
        policy = self._robots.get(origin)
        asked = policy.min_interval_s(self.user_agent) if policy is not None else None
        return max(self.min_interval_s, asked or 0.0)

    # -- robots.txt -----------------------------------------------------------------------------

    def _robots_apply(self, url: str) -> bool:
        host = (httpx.URL(url).host or "").lower()
        return self.obey_robots and host not in self.robots_exempt_hosts

    def _robots_policy(self, origin: str) -> RobotsPolicy:
        """Fetched once per origin through this same client (so a replay transport answers it too)."""
        policy = self._robots.get(origin)
        if policy is not None:
            return policy
        robots_url = robots_url_for(origin)
        try:
            response = self._robots_response(robots_url, origin)
        except FetchError as exc:
            raise RobotsUnavailable(exc.url, f"robots.txt unavailable, site off limits for now: {exc.what}",
                                    retryable=exc.retryable) from exc
        policy = policy_from_response(origin, response.status_code, response.content)
        if policy is None:
            self._count(robots_url, "failures")
            raise RobotsUnavailable(
                robots_url, f"robots.txt unavailable (HTTP {response.status_code}), site off limits for now"
            )
        self._robots[origin] = policy
        self._log.info("%s: %s", origin, policy.reason)
        return policy

    def _robots_response(self, robots_url: str, origin: str) -> httpx.Response:
        """robots.txt, following redirects that stay home as a page's do (a robots.txt sent elsewhere
        leaves the site off limits: RedirectRefused, a FetchError)."""
        current = robots_url
        for _ in range(MAX_REDIRECTS + 1):
            response = self._exchange(
                "GET", current, origin, headers={"Accept": "text/plain"}, data=None, accept_client_errors=True
            )
            if not (response.is_redirect and "location" in response.headers):
                return response
            current = self._redirect_target(robots_url, current, response)
        return httpx.Response(404, request=response.request)  # RFC 9309: too many redirects, treat as absent

    # -- bookkeeping ------------------------------------------------------------------------------

    def _origin_lock(self, origin: str) -> threading.RLock:
        with self._registry_lock:
            lock = self._origin_locks.get(origin)
            if lock is None:
                lock = self._origin_locks[origin] = threading.RLock()
            return lock

    def _count(self, url: str, counter: str) -> None:
        host = httpx.URL(url).host or "?"
        with self._stats_lock:
            self._stats[counter] += 1
            per_host = self._stats["per_host"].setdefault(
                host, {"requests": 0, "retries": 0, "robots_skips": 0, "cache_hits": 0, "failures": 0}
            )
            per_host[counter] += 1

    def _page(
        self,
        source: str,
        url: str,
        final_url: str,
        status: int,
        body: bytes,
        content_type: str | None,
        response_headers: dict[str, str],
        *,
        from_cache: bool = False,
        fetched_at: datetime | None = None,
    ) -> HttpPage:
        return HttpPage(
            source=source,
            url=redact_url(url),
            status=status,
            fetched_at=fetched_at or self._now(),
            sha256=hashlib.sha256(body).hexdigest(),
            body=body,
            content_type=content_type,
            from_cache=from_cache,
            final_url=redact_url(final_url) if final_url != url else None,
            response_headers=response_headers,
        )


def _fetched_at(extensions: Mapping[str, object]) -> datetime | None:
    """When a response's content was fetched, where that is not now: a replayed response's capture time,
    a cached one's fetch time, so an old price is never presented as today's."""
    for key in (RECORDED_AT_EXTENSION, FETCHED_AT_EXTENSION):
        value = extensions.get(key)
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                continue
        if isinstance(value, datetime):
            return value if value.tzinfo else value.replace(tzinfo=UTC)
    return None


def _without_credentials(headers: Mapping[str, str] | None) -> dict[str, str]:
    return {
        name: value
        for name, value in (headers or {}).items()
        if name.lower() not in _SECRET_HEADERS and not _SECRET_FIELD.search(name)
    }


def _truncation(response: httpx.Response) -> str | None:
    """A body shorter than its Content-Length (compared on the wire, before decoding)."""
    declared = response.headers.get("content-length")
    if declared is None or not declared.strip().isdigit() or response.status_code in (204, 304):
        return None
    expected = int(declared)
    received = response.num_bytes_downloaded
    encoded = response.headers.get("content-encoding", "identity").strip().lower() not in ("", "identity")
    if not encoded:
        received = max(received, len(response.content))
    elif received == 0:
        return None  # handed over already decoded (in-memory transports): the wire size is unknown
    if received < expected:
        return f"truncated body ({received} of {expected} bytes)"
    return None


def _server_now(response: httpx.Response) -> datetime | None:
    """The server's clock, so a Retry-After date is read against the clock that wrote it."""
    value = response.headers.get("date")
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)
