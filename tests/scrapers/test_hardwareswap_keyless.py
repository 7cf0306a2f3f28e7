"""Reddit without app credentials, as Reddit serves it since 2026-05: anonymous .json is answered
403, the Atom feeds still answer, with 429s. The feed recorded in 2017 stands for every feed."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from gpuvalue.flows.settings import Settings
from gpuvalue.scrapers.errors import FetchError
from gpuvalue.scrapers.http import PoliteClient
from gpuvalue.scrapers.source import FetchContext
from gpuvalue.scrapers.sources import hardwareswap as hs

LISTINGS = Path(__file__).resolve().parents[1] / "fixtures" / "listings"
ATOM = (LISTINGS / "reddit_hardwareswap_new_2017-10-18.atom.xml").read_bytes()


class Reddit:
    def __init__(self, feed_answers: dict[str, list] | None = None) -> None:
        self.feed_answers = feed_answers or {}
        self.requests: list[str] = []
        self.sleeps: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(str(request.url))
        path = request.url.path
        if path == "/robots.txt":
            return httpx.Response(200, text="User-agent: *\nAllow: /\n")
        if path.endswith(".json"):
            return httpx.Response(403, text="Blocked")
        if path.endswith("/new/.rss"):
            sub = path.split("/")[2]
            answers = self.feed_answers.get(sub)
            if answers:
                return answers.pop(0)
            return httpx.Response(200, content=ATOM, headers={"content-type": "application/atom+xml"})
        return httpx.Response(404)

    def fetch(self, **settings):
        client = PoliteClient(transport=httpx.MockTransport(self), min_interval_s=0.0, sleep=self.sleeps.append)
        try:
            return hs.SOURCE.fetch(FetchContext(client=client, settings=Settings(**settings), replay=False))
        finally:
            client.close()


def test_without_keys_every_default_subreddit_is_read_from_its_feed():
    reddit = Reddit()
    fetched = reddit.fetch()
    feeds = [u for u in reddit.requests if "/r/" in u]
    assert feeds == [hs.hardwareswap_feed_url(sub) for sub in hs.DEFAULT_SUBREDDITS]
    assert not any(".json" in u for u in reddit.requests)  # the 403 is never asked for
    assert len(fetched.pages) == 4 and fetched.warnings == []


def test_a_429_is_waited_out_as_retry_after_asks():
    reddit = Reddit({"hardwareswap": [httpx.Response(429, headers={"Retry-After": "12"})]})
    fetched = reddit.fetch(hardwareswap_subreddits=("hardwareswap",))
    assert reddit.sleeps == [12.0] and len(fetched.pages) == 1


def test_a_subreddit_that_keeps_refusing_leaves_the_others():
    reddit = Reddit({"hardwareswapuk": [httpx.Response(403)] * 2})
    fetched = reddit.fetch(hardwareswap_subreddits=("hardwareswap", "hardwareswapuk"))
    assert len(fetched.pages) == 1
    assert fetched.warnings == ["hardwareswap: r/hardwareswapuk failed: HTTP 403 Forbidden (not retried)"]


def test_every_subreddit_refusing_fails_the_source_not_retryable():
    reddit = Reddit({"hardwareswap": [httpx.Response(403)], "CanadianHardwareSwap": [httpx.Response(403)]})
    with pytest.raises(FetchError) as err:
        reddit.fetch(hardwareswap_subreddits=("hardwareswap", "CanadianHardwareSwap"))
    assert err.value.retryable is False
    assert err.value.what == "r/hardwareswap, r/CanadianHardwareSwap: HTTP 403 Forbidden (not retried)"


def test_posts_from_the_feed_are_asking_prices_in_the_subreddit_s_currency():
    listings = hs.parse_hardwareswap_page(ATOM, hs.hardwareswap_feed_url("hardwareswap"), hs.datetime.now(hs.UTC))
    priced = [item for item in listings if item.price is not None]
    assert priced and not any(item.sold for item in listings) and {item.currency for item in priced} == {"USD"}
    # The same post in r/hardwareswapuk: a bare "$" there is no US dollar unless the sub says so.
    uk = ATOM.replace(b'term="hardwareswap"', b'term="hardwareswapuk"')
    assert {i.currency for i in hs.parse_hardwareswap_page(uk, hs.hardwareswap_feed_url("hardwareswapuk"),
                                                            hs.datetime.now(hs.UTC)) if i.price} == {"GBP"}


def test_subreddits_setting():
    assert Settings().hardwareswap_subreddits == hs.DEFAULT_SUBREDDITS
    assert Settings(hardwareswap_subreddits="r/hardwareswap, hardwareswapuk").hardwareswap_subreddits == (
        "hardwareswap", "hardwareswapuk")
    with pytest.raises(ValueError, match="not a subreddit name"):
        Settings(hardwareswap_subreddits="hardware swap")


def test_the_2026_canadian_recording_is_in_the_replay_under_the_url_the_fetch_requests():
    from gpuvalue.scrapers.archive import Archive
    from gpuvalue.scrapers.replay import packaged_replay_dir

    recorded = Archive(packaged_replay_dir()).latest_by_url()
    entry = recorded[hs.hardwareswap_new_url("CanadianHardwareSwap")]
    assert entry.source == "hardwareswap" and entry.fetched_at.date().isoformat() == "2026-02-23"
    assert "pauljones0/betterHardwareSwap@45fc297fb2f0c68df035fb46fe24d941c6b3f0c9" in entry.note


def test_refused_app_credentials_fall_back_to_the_feeds():
    class Refusing(Reddit):
        def __call__(self, request):
            if request.url.path == "/api/v1/access_token":
                self.requests.append(str(request.url))
                return httpx.Response(401, text="unauthorized")
            return super().__call__(request)

    reddit = Refusing()
    fetched = reddit.fetch(reddit_client_id="app", reddit_client_secret="wrong", hardwareswap_subreddits=("hardwareswap",))
    assert len(fetched.pages) == 1 and fetched.pages[0].url == hs.hardwareswap_feed_url("hardwareswap")
    assert fetched.warnings == ["hardwareswap: Reddit refused the app credentials (HTTP 401 Unauthorized); reading the "
                                "Atom feeds instead (no flair: asking prices only)"]


def test_an_unreachable_host_fails_every_subreddit_at_the_first():
    reddit = Reddit()
    asked: list[str] = []

    def down(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        raise httpx.ConnectError("[Errno -2] Name or service not known", request=request)

    client = PoliteClient(transport=httpx.MockTransport(down), min_interval_s=0.0, sleep=reddit.sleeps.append)
    subs = ("hardwareswap", "hardwareswapuk", "CanadianHardwareSwap")
    try:
        with pytest.raises(FetchError) as err:
            hs.SOURCE.fetch(FetchContext(client=client, settings=Settings(hardwareswap_subreddits=subs), replay=False))
    finally:
        client.close()
    assert len(asked) == 1  # the site, not the subreddit: the others are not asked
    assert err.value.retryable is False
    assert err.value.what.startswith("r/hardwareswap, r/hardwareswapuk, r/CanadianHardwareSwap: ")


def test_unreadable_robots_txt_fails_every_subreddit_at_the_first():
    asked: list[str] = []

    def robots_down(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        return httpx.Response(404 if request.url.path != "/robots.txt" else 503)

    client = PoliteClient(transport=httpx.MockTransport(robots_down), min_interval_s=0.0, max_retries=0,
                          sleep=lambda _s: None)
    subs = ("hardwareswap", "hardwareswapuk")
    try:
        with pytest.raises(FetchError) as err:
            hs.SOURCE.fetch(FetchContext(client=client, settings=Settings(hardwareswap_subreddits=subs), replay=False))
    finally:
        client.close()
    assert asked == ["/robots.txt"]
    assert err.value.what.startswith("r/hardwareswap, r/hardwareswapuk: robots.txt unavailable")
