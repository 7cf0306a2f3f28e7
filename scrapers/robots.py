"""What a site's robots.txt lets us fetch, and how slowly.

Rules are read and matched by protego, which follows RFC 9309: the most specific (longest)
matching rule wins whatever its order, an Allow wins a tie, ``*`` and ``$`` are patterns in
Allow and Disallow alike, groups naming the same agent merge, and ``Crawl-delay`` keeps its
fraction. The standard library's ``urllib.robotparser`` takes the first matching rule in file
order, treats ``*`` and ``$`` literally and reads only the first group for an agent; the
comparison that chose protego is in tests/scrapers/test_robots.py.

How an unfetchable robots.txt is read (the status of the robots.txt response itself):

- 2xx: the rules in the file apply;
- 401 and 403: the whole site is off limits. RFC 9309 would allow crawling here, but the
  long-standing convention (robotstxt.org, and what most crawlers still do) is that a site
  that refuses to show its robots.txt does not want to be crawled;
- any other 4xx (404, 410, ...): there are no rules, everything is allowed;
- 5xx, 429 after retries, timeouts: unknown, so nothing is fetched for now (the caller
  raises a temporary error and tries again later).
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from protego import Protego


def origin_of(url: str) -> str:
    """``scheme://host[:port]``: the unit robots.txt and rate limits apply to."""
    parsed = httpx.URL(url)
    default_port = {"http": 80, "https": 443}.get(parsed.scheme)
    port = f":{parsed.port}" if parsed.port is not None and parsed.port != default_port else ""
    return f"{parsed.scheme}://{parsed.host}{port}"


def robots_url_for(url: str) -> str:
    return f"{origin_of(url)}/robots.txt"


def product_token(user_agent: str) -> str:
    """The name robots.txt groups are matched against (``gpuvalue`` for ``gpuvalue/0.1 (...)``)."""
    return user_agent.split("/", 1)[0].split(" ", 1)[0].strip().lower()


@dataclass(frozen=True)
class RobotsPolicy:
    """One origin's answer to "may we fetch this URL?", valid for the life of a client."""

    origin: str
    reason: str  # why the policy is what it is, for log lines
    allow_all: bool = False
    disallow_all: bool = False
    rules: Protego | None = None

    def allows(self, url: str, user_agent: str) -> bool:
        if self.disallow_all:
            return False
        if self.allow_all or self.rules is None:
            return True
        return self.rules.can_fetch(url, product_token(user_agent))

    def min_interval_s(self, user_agent: str) -> float | None:
        """The pause between request starts that the site asks of us, if it asks."""
        if self.rules is None:
            return None
        token = product_token(user_agent)
        candidates: list[float] = []
        delay = self.rules.crawl_delay(token)
        if delay is not None:
            candidates.append(float(delay))
        rate = self.rules.request_rate(token)
        if rate is not None and rate.requests > 0:
            candidates.append(rate.seconds / rate.requests)
        return max(candidates) if candidates else None


def policy_from_response(origin: str, status: int, body: bytes) -> RobotsPolicy | None:
    """The policy a robots.txt response implies; None when it says nothing yet (5xx, 429)."""
    if 200 <= status < 300:
        rules = Protego.parse(body.decode("utf-8", errors="replace"))
        return RobotsPolicy(origin=origin, reason=f"robots.txt rules (HTTP {status})", rules=rules)
    if status in (401, 403):
        return RobotsPolicy(
            origin=origin, reason=f"robots.txt refused with HTTP {status}: whole site off limits", disallow_all=True
        )
    if 400 <= status < 500 and status != 429:
        return RobotsPolicy(origin=origin, reason=f"no robots.txt (HTTP {status}): everything allowed", allow_all=True)
    return None
