"""eBay's search pages as served in 2026: a sign-in wall on sold searches, bot challenges, five sites.

The result pages are the recorded ones (tests/fixtures/listings/PROVENANCE.md). No sign-in or
challenge page was recorded; the ones here carry the markers such pages have (a sign-in form, a
challenge script) and nothing of a result list, which is what tells them apart.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest

from gpuvalue.flows.settings import Settings
from gpuvalue.scrapers.ebay_markets import EBAY_MARKETS, market
from gpuvalue.scrapers.errors import AccessRefused
from gpuvalue.scrapers.http import PoliteClient
from gpuvalue.scrapers.source import FetchContext
from gpuvalue.scrapers.sources import ebay_html as eh

LISTINGS = Path(__file__).resolve().parents[1] / "fixtures" / "listings"
ACTIVE = gzip.decompress((LISTINGS / "ebay_srp_scard_active_2026-07_pokemon_auctionetl.html.gz").read_bytes())
SOLD = gzip.decompress((LISTINGS / "ebay_srp_scard_sold_2026-07_seller_auctionetl.html.gz").read_bytes())
GERMAN = gzip.decompress((LISTINGS / "ebay_srp_sitem_2022-11_apple_ebayde_parsy.html.gz").read_bytes())
UK = gzip.decompress((LISTINGS / "ebay_srp_sitem_uk_warhammer_iliadinsight.html.gz").read_bytes())

SIGN_IN = b"""<!DOCTYPE html><html lang="en"><head><title>Sign in or Register | eBay</title></head><body>
<h1>Hello</h1><p>Sign in to eBay or create an account</p>
<form id="signin-form" method="post" action="https://signin.ebay.com/signin/s">
<input name="userid" id="userid" type="text"><button id="signin-continue-btn">Continue</button></form></body></html>"""
CHALLENGE = b"""<html><head><title>Security Measure</title><script src="/splashui/challenge/captcha.js"></script></head>
<body><p>Checking your browser before you access eBay.</p><a href="https://signin.ebay.com/">Sign in</a></body></html>"""


@pytest.mark.parametrize("body", [ACTIVE, SOLD, GERMAN, UK,
                                  b'<html><h1 class="srp-controls__count-heading">0 results for x</h1></html>'])
def test_result_pages_are_no_refusal(body):
    assert eh.page_refusal(body) is None


def test_refusals_say_what_ebay_did():
    assert eh.page_refusal(SIGN_IN) == "a sign-in page"
    assert eh.page_refusal(CHALLENGE) == "a bot challenge"
    assert eh.page_refusal(b"<html><body>Hello</body></html>") == "a page that is not a result list"
    assert eh.page_refusal(b"<html>x</html>", "https://signin.ebay.com/ws/eBayISAPI.dll?SignIn") == "a sign-in page"
    assert eh.page_refusal(b"<html>x</html>", "https://www.ebay.com/splashui/challenge?ap=1") == "a bot challenge"


def test_markets_and_their_currencies():
    assert [(m.label, m.site, m.currency) for m in EBAY_MARKETS.values()] == [
        ("eBay US", "www.ebay.com", "USD"), ("eBay UK", "www.ebay.co.uk", "GBP"), ("eBay DE", "www.ebay.de", "EUR"),
        ("eBay CA", "www.ebay.ca", "CAD"), ("eBay AU", "www.ebay.com.au", "AUD")]
    assert market("uk").code == "EBAY_GB" and market("EBAY_AU").currency == "AUD"
    with pytest.raises(ValueError, match="unknown eBay market 'FR'"):
        market("FR")


@pytest.mark.parametrize(("url", "dollar"), [
    ("https://www.ebay.com/sch/i.html?_nkw=rtx", "USD"), ("https://ebay.com/sch/i.html", "USD"),
    ("https://www.ebay.ca/sch/i.html", "CAD"), ("https://www.ebay.com.au/sch/i.html", "AUD"),
    ("https://www.ebay.co.uk/sch/i.html", None), ("https://www.ebay.de/sch/i.html", None),
    ("https://www.ebay.fr/sch/i.html", None),
])
def test_a_bare_dollar_is_the_site_s_own_dollar(url, dollar):
    assert eh._site_currency(url) == dollar


class Web:
    """eBay sites: ``answer(site, sold)`` gives each search's body; every request is kept."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.requests: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(str(request.url))
        if request.url.path == "/robots.txt":
            if request.url.host.startswith("signin."):
                return httpx.Response(200, text="User-agent: *\nDisallow: /\n")
            return httpx.Response(404)
        sold = "LH_Sold=1" in str(request.url)
        answer = self.answer(request.url.host, sold)
        if isinstance(answer, httpx.Response):
            return answer
        return httpx.Response(200, content=answer, headers={"content-type": "text/html"})

    def fetch(self, markets=("US",), queries=("NVIDIA GeForce RTX 4090", "NVIDIA RTX A5000")):
        client = PoliteClient(transport=httpx.MockTransport(self), min_interval_s=0.0, sleep=lambda s: None,
                              redirect_hosts=eh.SOURCE.hosts)  # as the flow builds it (flows/pipeline.py)
        settings = Settings(ebay_html_markets=markets, ebay_queries=queries)
        try:
            return eh.SOURCE.fetch(FetchContext(client=client, settings=settings, replay=False))
        finally:
            client.close()


def _pages_of(site):
    return {"www.ebay.com": ACTIVE, "www.ebay.de": GERMAN, "www.ebay.co.uk": UK}.get(site, ACTIVE)


def test_a_sign_in_wall_on_sold_searches_reads_active_listings_as_asking_prices():
    web = Web(lambda site, sold: SIGN_IN if sold else _pages_of(site))
    fetched = web.fetch(markets=("US", "DE"))
    # Per market (the markets are read at once): one sold search, then every search as active listings.
    for site in ("www.ebay.com", "www.ebay.de"):
        searches = [u for u in web.requests if "/sch/" in u and u.split("/")[2] == site]
        assert ["LH_Sold=1" in u for u in searches] == [True, False, False], searches
    assert [p.url.split("/")[2] for p in fetched.pages] == ["www.ebay.com"] * 2 + ["www.ebay.de"] * 2  # market order
    [us, de] = fetched.warnings
    assert us.startswith("ebay-html: eBay US answered the sold search with a sign-in page")
    assert "reading its active listings instead: asking prices, never counted as sold" in us
    assert "EBAY_CLIENT_ID" in us and de.startswith("ebay-html: eBay DE answered")
    parsed = eh.SOURCE.parse_pages(fetched.pages)
    assert parsed.listings and not any(item.sold for item in parsed.listings)
    assert {item.currency for item in parsed.listings if item.price is not None} == {"USD", "EUR"}


def test_every_search_refused_fails_the_source_in_one_line_that_is_not_retried():
    web = Web(lambda site, sold: SIGN_IN)
    with pytest.raises(AccessRefused) as err:
        web.fetch(markets=("US", "UK", "CA"))
    line = str(err.value.what)
    assert "\n" not in line and err.value.retryable is False
    assert line.startswith("eBay US, eBay UK, eBay CA answered every search with a sign-in page, not a result list")
    assert "EBAY_CLIENT_ID and EBAY_CLIENT_SECRET" in line
    # Two requests per market (sold, then active), no more: the wall covers every search of a site.
    assert len([u for u in web.requests if "/sch/" in u]) == 6


def test_a_challenge_on_one_market_leaves_the_others():
    web = Web(lambda site, sold: CHALLENGE if site == "www.ebay.ca" else _pages_of(site))
    fetched = web.fetch(markets=("US", "CA"))
    assert [p.url.split("/")[2] for p in fetched.pages] == ["www.ebay.com"] * 2  # eBay US answered both searches
    assert any("eBay CA answered every search with a bot challenge" in w for w in fetched.warnings)


def test_a_redirect_to_the_sign_in_site_is_a_sign_in_wall():
    def answer(site, sold):
        if sold:
            return httpx.Response(302, headers={"location": "https://signin.ebay.com/ws/eBayISAPI.dll?SignIn"})
        return ACTIVE

    fetched = Web(answer).fetch()
    assert fetched.warnings[0].startswith("ebay-html: eBay US answered the sold search with a sign-in page")
    assert len(fetched.pages) == 2


def test_a_403_is_a_refusal_too():
    web = Web(lambda site, sold: httpx.Response(403))
    with pytest.raises(AccessRefused, match=r"eBay US answered every search with a refusal \(HTTP 403"):
        web.fetch()


def test_a_market_that_fails_leaves_the_others():
    def answer(site, sold):
        return httpx.Response(404) if site == "www.ebay.de" else ACTIVE

    fetched = Web(answer).fetch(markets=("US", "DE"))
    assert [p.url.split("/")[2] for p in fetched.pages] == ["www.ebay.com"] * 2
    assert fetched.warnings == ["ebay-html: eBay DE failed: HTTP 404 Not Found (not retried)"]
