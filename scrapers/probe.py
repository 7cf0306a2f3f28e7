"""A live probe of each source (``gpuvalue sources --check``): one request to the first URL its own fetch
would ask for, and one line saying why it fails where it does (sign-in wall, bot challenge, 403, 429,
robots.txt, unreachable) or that it answered with a page its parser reads.

The URL is not kept in a second list: the source's fetch runs against a client that records its first
request and stops it there, so the probe asks what a run asks, and a source that needs keys says so
in its own words when they are not set (its fetch skips with that warning before any request).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import httpx

from gpuvalue.models.records import FetchedPage
from gpuvalue.scrapers.errors import BOT_CHALLENGE_WORDS, ParseError
from gpuvalue.scrapers.fetch_bounds import UnsupportedEncoding, content_encodings, decoded_chunks, request_deadline
from gpuvalue.scrapers.http import (
    DEFAULT_ROBOTS_EXEMPT_HOSTS,
    DEFAULT_USER_AGENT,
    MAX_REDIRECTS,
    is_unreachable,
    retry_after_seconds,
)
from gpuvalue.scrapers.redirects import home_domains, redirect_refusal
from gpuvalue.scrapers.robots import origin_of, policy_from_response, robots_url_for
from gpuvalue.scrapers.source import FetchContext, Source

PROBE_TIMEOUT_S = 10.0
PROBE_DEADLINE_S = 30.0  # one probe request, headers and body (where the client's transport keeps deadlines)
_READ_AT_MOST = 8 * 1024 * 1024  # a probe reads no more of an answer than this

_SIGN_IN_URL = re.compile(r"(signin|sign-in|login|log-in)", re.IGNORECASE)
_SIGN_IN_TITLE = re.compile(rb"<title[^>]*>[^<]{0,200}\b(sign in|sign-in|log in|login)\b", re.IGNORECASE)
_CHALLENGE = re.compile(BOT_CHALLENGE_WORDS.encode(), re.IGNORECASE)


class _Stop(BaseException):
    """Raised by the recording client at a source's first request (a BaseException, so a fetch that
    catches its own errors cannot swallow it)."""


class _FirstRequest:
    """Stands in for the HTTP client: notes the first request a fetch makes and stops the fetch."""

    def __init__(self) -> None:
        self.url: str | None = None
        self.method: str | None = None

    def get(self, url: str, *, source: str, headers: Any = None) -> Any:
        self.url, self.method = url, "GET"
        raise _Stop

    def post_form(self, url: str, *args: Any, **kwargs: Any) -> Any:
        self.url, self.method = url, "POST"
        raise _Stop

    def stats(self) -> dict:
        return {}

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class FirstRequest:
    url: str | None
    method: str | None
    note: str | None  # what the fetch said when it made no request (keys not set, nothing to do)


def first_request(src: Source, settings: Any) -> FirstRequest:
    """The first request a live run of ``src`` makes, or what it said instead."""
    client = _FirstRequest()
    assert src.fetch is not None
    try:
        fetched = src.fetch(FetchContext(client=client, settings=settings, replay=False))
    except _Stop:
        return FirstRequest(client.url, client.method, None)
    except Exception as exc:  # a fetch that fails before any request: its own reason
        return FirstRequest(None, None, f"{type(exc).__name__}: {exc}")
    note = "; ".join(fetched.warnings) if fetched.warnings else "makes no request with these settings"
    return FirstRequest(None, None, note)


@dataclass(frozen=True)
class ProbeResult:
    source: str
    ok: bool
    line: str  # one line: what the site did, or that the page reads
    url: str | None = None
    status: int | None = None


def classify_answer(status: int, final_url: str, body: bytes, retry_after: str | None) -> str | None:
    """Why an answer is not the page a source reads (None: nothing says it is not). Pure."""
    head = body[:200_000]
    walled = bool(_SIGN_IN_URL.search(httpx.URL(final_url).path + "?" + str(httpx.URL(final_url).query))
                  or _SIGN_IN_URL.search(httpx.URL(final_url).host) or _SIGN_IN_TITLE.search(head))
    if status == 401:
        return "401: sign-in required"
    if status == 429:
        wait = retry_after_seconds(retry_after, now=datetime.now(timezone.utc)) if retry_after else None
        return "429: rate limited" + (f" (Retry-After {wait:g} s)" if wait is not None else "")
    if status == 403:
        return "403 forbidden" + (": sign-in wall" if walled else ": bot challenge" if _CHALLENGE.search(head) else "")
    if 500 <= status:
        return f"{status}: server error"
    if 400 <= status:
        return f"{status}: the URL does not answer ({'not found' if status == 404 else 'client error'})"
    if walled:
        return f"sign-in wall: {status} answered with a sign-in page ({final_url})"
    if _CHALLENGE.search(head) and b"<html" in head[:5000].lower():
        return f"bot challenge: {status} answered with a challenge page, not results"
    return None


def _get_staying_home(client: httpx.Client, url: str, src: Source,
                      user_agent: str) -> tuple[httpx.Response, bytes] | str:
    """The answer to a GET of ``url`` and at most _READ_AT_MOST bytes of its body (decoded a piece at a
    time), following redirects only as a run does (scrapers/redirects.py); a line saying why not where
    a redirect leaves home."""
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        with client.stream("GET", current, headers={"User-Agent": user_agent}, timeout=PROBE_TIMEOUT_S) as response:
            if response.is_redirect and "location" in response.headers:
                target = str(response.url.join(response.headers["location"]))
                why = redirect_refusal(url, current, target, home_domains(src.hosts))
                if why is not None:
                    return f"{why}: not followed ({target[:120]})"
                current = target
                continue
            if response.is_stream_consumed:  # an in-memory transport handed it over whole
                return response, response.content[:_READ_AT_MOST]
            kept, size = [], 0
            try:
                for piece in decoded_chunks(response.iter_raw(), content_encodings(response.headers), 1 << 62):
                    kept.append(piece)
                    size += len(piece)
                    if size >= _READ_AT_MOST:
                        break
            except (UnsupportedEncoding, zlib.error) as exc:
                return f"answered {response.status_code} in a body it cannot read ({str(exc)[:100]})"
            return response, b"".join(kept)[:_READ_AT_MOST]
    return f"more than {MAX_REDIRECTS} redirects"


def probe(client: httpx.Client, src: Source, settings: Any, *, user_agent: str = DEFAULT_USER_AGENT) -> ProbeResult:
    """One live request for ``src`` through ``client`` (tests give it a MockTransport), and its one line."""
    name = src.name
    if src.reads_embedded(settings):
        return ProbeResult(name, True, "ships with gpuvalue: read from the shipped data, nothing to probe")
    first = first_request(src, settings)
    if first.url is None:
        return ProbeResult(name, False, f"not probed: {first.note}")
    url = first.url
    if first.method != "GET":
        return ProbeResult(name, True, f"not probed: its first request signs in ({first.method} {origin_of(url)}); "
                                       "run it to test the keys", url)
    try:
        host = httpx.URL(url).host
        if host not in DEFAULT_ROBOTS_EXEMPT_HOSTS:
            with request_deadline(PROBE_DEADLINE_S):
                robots = _get_staying_home(client, robots_url_for(url), src, user_agent)
            if isinstance(robots, str):
                return ProbeResult(name, False, f"robots.txt: {robots}", url)
            policy = policy_from_response(origin_of(url), robots[0].status_code, robots[1])
            if policy is None:
                return ProbeResult(name, False, f"robots.txt unreadable ({robots[0].status_code}): the site is off limits for now", url)
            if not policy.allows(url, user_agent):
                return ProbeResult(name, False, f"robots.txt disallows {httpx.URL(url).path}", url)
        with request_deadline(PROBE_DEADLINE_S):
            answered = _get_staying_home(client, url, src, user_agent)
        if isinstance(answered, str):
            return ProbeResult(name, False, answered, url)
        response, body = answered
    except httpx.TimeoutException:
        return ProbeResult(name, False, f"unreachable: {httpx.URL(url).host} gave no answer within {PROBE_TIMEOUT_S:g} s", url)
    except httpx.HTTPError as exc:
        why = "no such host or no network" if is_unreachable(exc) else f"{type(exc).__name__}: {str(exc)[:100]}"
        return ProbeResult(name, False, f"unreachable: {httpx.URL(url).host} ({why})", url)
    refusal = classify_answer(response.status_code, str(response.url), body, response.headers.get("retry-after"))
    if refusal is not None:
        return ProbeResult(name, False, refusal, url, response.status_code)
    if src.parse is not None:
        page = FetchedPage(source=name, url=url, status=response.status_code, fetched_at=datetime.now(timezone.utc),
                           sha256="0" * 64, body=body, content_type=response.headers.get("content-type"))
        try:
            records = src.parse(page)
        except ParseError as exc:
            return ProbeResult(name, False, f"answered {response.status_code}, but not a page it reads: {exc.what}",
                               url, response.status_code)
        except Exception as exc:  # a parser must raise only ParseError: say so rather than fail the listing
            return ProbeResult(name, False, f"answered {response.status_code}; its parser failed: {type(exc).__name__}",
                               url, response.status_code)
        return ProbeResult(name, True, f"ok: {response.status_code}, {len(body):,} bytes, {records.count:,} records read",
                           url, response.status_code)
    return ProbeResult(name, True, f"ok: {response.status_code}, {len(body):,} bytes", url, response.status_code)
