"""What a site's robots.txt lets us fetch, and how slowly.

Parsing and matching are delegated to ``urllib.robotparser`` so that our reading of a
file is the one the standard library documents. Two of its gaps are closed here, both
in the polite direction:

- it ignores a fractional ``Crawl-delay`` (``0.5``); such values are rounded *up* to whole
  seconds before parsing, so a site asking for a delay always gets at least that;
- it matches rule paths literally, so ``Disallow: /*?_nkw=`` never matches anything. After
  the standard parser allows a URL, the Disallow rules of the group that applies to us
  that use ``*`` or ``$`` are matched as patterns as well, and any match disallows.
  Allow rules are not given the same treatment, so a wildcard Allow never lifts a
  Disallow: when in doubt, we stay out.

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

import math
import re
import urllib.parse
from dataclasses import dataclass
from urllib.robotparser import RobotFileParser

import httpx

_CRAWL_DELAY_LINE = re.compile(r"^(\s*crawl-delay\s*:\s*)([0-9]*\.[0-9]+)(.*)$", re.IGNORECASE)


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
    rules: RobotFileParser | None = None

    def allows(self, url: str, user_agent: str) -> bool:
        if self.disallow_all:
            return False
        if self.allow_all or self.rules is None:
            return True
        token = product_token(user_agent)
        if not self.rules.can_fetch(token, url):
            return False
        return not _wildcard_disallows(self.rules, token, url)

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
        rules = RobotFileParser()
        rules.parse(_polite_lines(body.decode("utf-8", errors="replace")))
        return RobotsPolicy(origin=origin, reason=f"robots.txt rules (HTTP {status})", rules=rules)
    if status in (401, 403):
        return RobotsPolicy(
            origin=origin, reason=f"robots.txt refused with HTTP {status}: whole site off limits", disallow_all=True
        )
    if 400 <= status < 500 and status != 429:
        return RobotsPolicy(origin=origin, reason=f"no robots.txt (HTTP {status}): everything allowed", allow_all=True)
    return None


def _polite_lines(text: str) -> list[str]:
    lines = []
    for line in text.splitlines():
        match = _CRAWL_DELAY_LINE.match(line)
        if match:
            line = f"{match.group(1)}{math.ceil(float(match.group(2)))}{match.group(3)}"
        lines.append(line)
    return lines


def _group_for(rules: RobotFileParser, token: str):  # noqa: ANN202 - robotparser's Entry is private
    for entry in rules.entries:
        if entry.applies_to(token):
            return entry
    return rules.default_entry


def _wildcard_disallows(rules: RobotFileParser, token: str, url: str) -> bool:
    entry = _group_for(rules, token)
    if entry is None:
        return False
    parsed = urllib.parse.urlsplit(url)
    target = urllib.parse.unquote(parsed.path or "/") + (f"?{urllib.parse.unquote(parsed.query)}" if parsed.query else "")
    for rule in entry.rulelines:
        pattern = urllib.parse.unquote(rule.path)
        if rule.allowance or ("*" not in pattern and not pattern.endswith("$")):
            continue
        anchored = pattern.endswith("$")
        body = pattern[:-1] if anchored else pattern
        regex = "".join(".*" if ch == "*" else re.escape(ch) for ch in body) + ("$" if anchored else "")
        if re.match(regex, target):
            return True
    return False
