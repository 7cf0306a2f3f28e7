"""eBay item links: the short path for plain links gives exactly what Python's URL parser gives."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gpuvalue.scrapers.ebay_links import _plain_link, item_id_from_link, link_without_query, marketplace_of


def by_the_parser(link: str) -> tuple[str | None, str | None]:
    """What link_without_query and marketplace_of gave when each link went through urlsplit."""
    from gpuvalue.scrapers.ebay_links import MARKETPLACE_BY_HOST

    try:
        parts = urlsplit(link)
    except ValueError:
        return None, None
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), MARKETPLACE_BY_HOST.get(parts.netloc.lower())


REAL_FORMS = [
    "https://www.ebay.com/itm/ZOTAC-GAMING-GeForce-RTX-3090-Trinity-24GB/254799557263?epid=1&hash=item3b:g:sNo",
    "https://www.ebay.com/itm/224264485792",
    "https://www.ebay.co.uk/itm/123456789012#vi-desc",
    "https://www.ebay.de/itm/Grafikkarte-%C3%9Cbertakt/123456789012?_trkparms=a%3Db",
    "http://EBAY.com/itm/1?x",
    "https://www.ebay.com",
    "https://www.ebay.com?x=1",
    "https://www.ebay.com:443/itm/123456789012",  # a port: the parser's path
    "HTTPS://www.ebay.com/itm/1",  # an upper-case scheme: the parser's path
    "https:////www.ebay.com/itm/1",  # an empty host: the parser's path
    " https://www.ebay.com/itm/1",  # leading space: the parser's path
    "https://www.ebay.com/it m/1",
    "https://www.ebay.com/itm/1\t2?x",
    "https://[bad/itm/123456789012",
    "https://www.ebay.com/itm/1?q=[x",
    "/itm/123456789012",
    "",
]


@pytest.mark.parametrize("link", REAL_FORMS)
def test_the_short_path_agrees_with_the_url_parser(link):
    assert (link_without_query(link), marketplace_of(link)) == by_the_parser(link)


def test_the_short_path_takes_the_links_ebay_writes():
    assert _plain_link(REAL_FORMS[0]) is not None and _plain_link(REAL_FORMS[3]) is not None
    assert _plain_link(REAL_FORMS[7]) is None and _plain_link(REAL_FORMS[8]) is None


URL_CHARACTERS = st.sampled_from(list("aZ09.-/:;?#[]%@!$&'()*+,=_~ \t\n\\^`{|}\"<>\u00e9"))
links = st.builds(
    lambda scheme, host, rest: f"{scheme}{host}{rest}",
    st.sampled_from(["https://", "http://", "HTTP://", "https:", "https:///", "ftp://", ""]),
    st.text(alphabet=st.sampled_from(list("wW.ebay-c0m:[]")), max_size=16),
    st.text(alphabet=URL_CHARACTERS, max_size=40),
)


@settings(max_examples=examples(300), deadline=None)
@given(links)
def test_any_link_gives_what_the_url_parser_gives(link):
    assert (link_without_query(link), marketplace_of(link)) == by_the_parser(link)


def test_item_ids():
    assert item_id_from_link(REAL_FORMS[0]) == "254799557263"
    assert item_id_from_link("https://www.ebay.com/sch/i.html?_nkw=x") is None
