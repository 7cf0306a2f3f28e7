"""Where a redirect may lead: home, never elsewhere.

A source reads a few sites it names. A redirect that leaves them (to another site, an internal
address, another port) or steps down from https to http would have the source store whatever answers
there as its own data: a redirect to ``internal.example:8500/v1/kv/secret`` once landed a key-value
store's answer in the ECB's rates. So a redirect is followed only to the host that was asked, its
``www.`` twin (``techpowerup.com`` and ``www.techpowerup.com``), or a domain the source declares
(``Source.hosts``, with its subdomains: ``ebay.com`` covers ``signin.ebay.com``), on the scheme's own
port, and never from https to http. Anything else fails the request in one line.
"""

from __future__ import annotations

from collections.abc import Iterable

import httpx

from gpuvalue.scrapers.errors import FetchError

_DEFAULT_PORTS = {"http": 80, "https": 443}


class RedirectRefused(FetchError):
    """A redirect that would leave the source's sites, or step down to http: not followed, not retried."""

    retryable_by_default = False


def home_domains(hosts: Iterable[str]) -> frozenset[str]:
    """Declared hosts as bare lower-case domains ("https://www.Example.org/" -> "www.example.org")."""
    domains = set()
    for host in hosts:
        text = host.strip().lower()
        if "://" in text:
            text = httpx.URL(text).host or ""
        text = text.strip("./")
        if text:
            domains.add(text)
    return frozenset(domains)


def _port(url: httpx.URL) -> int | None:
    return url.port if url.port is not None else _DEFAULT_PORTS.get(url.scheme)


def _twins(host: str) -> set[str]:
    return {host, host.removeprefix("www.") if host.startswith("www.") else f"www.{host}"}


def redirect_refusal(asked: str, current: str, target: str, home: frozenset[str]) -> str | None:
    """Why a redirect from ``current`` to ``target`` is not followed, for a request that asked ``asked``;
    None when it may be."""
    here, there, first = httpx.URL(current), httpx.URL(target), httpx.URL(asked)
    if there.scheme not in _DEFAULT_PORTS:
        return f"a redirect to a {there.scheme or 'schemeless'} URL"
    if here.scheme == "https" and there.scheme == "http":
        return "a redirect from https to http"
    host = (there.host or "").lower()
    asked_host = (first.host or "").lower()
    if not (host in _twins(asked_host) or any(host == domain or host.endswith("." + domain) for domain in home)):
        shown = f"{host}:{there.port}" if there.port is not None else host
        return f"a redirect to another site ({shown})"
    if host == asked_host and _port(there) == _port(first):
        return None
    if there.port is not None and there.port != _DEFAULT_PORTS[there.scheme]:
        return f"a redirect to another port ({host}:{there.port})"
    return None
