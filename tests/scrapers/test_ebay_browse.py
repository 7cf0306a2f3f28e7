from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples

from gpuvalue.models.records import Listing
from gpuvalue.scrapers.sources.ebay_browse import (
    BROWSE_SEARCH_ENDPOINT,
    OAUTH_SCOPE,
    OAUTH_TOKEN_URL,
    browse_headers,
    browse_search_url,
    next_page_url,
    parse_browse_search,
    parse_token_response,
    token_request,
)
from gpuvalue.scrapers.errors import ParseError

FIXTURES = Path(__file__).parents[1] / "fixtures" / "listings"
SEEN = datetime(2025, 11, 25, 12, 0, tzinfo=UTC)
URL = "https://api.ebay.com/buy/browse/v1/item_summary/search?q=x&category_ids=27386&limit=200&offset=0"

BARE_ARRAY_FILES = [
    "search-listings-nvidia-geforce-rtx-4080.json",
    "search-listings-amd-radeon-rx-7600-xt.json",
    "search-listings-amd-radeon-rx-7800-xt.json",
    "search-listings-nvidia-tesla-v100-32gb.json",
]


def envelope(name: str) -> bytes:
    """The saved files hold only itemSummaries; the API wraps them like this."""
    items = json.loads((FIXTURES / name).read_bytes())
    return json.dumps(
        {"href": URL, "total": len(items), "limit": 200, "offset": 0, "itemSummaries": items}
    ).encode()


def by_id(listings: list[Listing]) -> dict[str, Listing]:
    return {listing.listing_id: listing for listing in listings}


def browse_listing(**fields) -> Listing:
    base = dict(source="ebay-browse", sold=False, seen_at=SEEN, marketplace="EBAY_US")
    base.update(fields)
    return Listing(**base)


def test_search_url_is_deterministic_and_encodes_query():
    assert browse_search_url("NVIDIA RTX 3090 24GB/FE", limit=50, offset=100) == (
        f"{BROWSE_SEARCH_ENDPOINT}?q=NVIDIA%20RTX%203090%2024GB%2FFE&category_ids=27386&limit=50&offset=100"
    )
    assert browse_search_url("a&b=c").startswith(f"{BROWSE_SEARCH_ENDPOINT}?q=a%26b%3Dc&category_ids=27386")


def test_headers_carry_marketplace_and_token():
    assert browse_headers("tok", "EBAY_GB") == {
        "Authorization": "Bearer tok",
        "X-EBAY-C-MARKETPLACE-ID": "EBAY_GB",
        "Accept": "application/json",
    }


def test_token_request_uses_basic_auth_and_client_credentials():
    url, headers, form = token_request("my-id", "my-secret")
    assert url == OAUTH_TOKEN_URL
    assert headers["Authorization"] == "Basic " + base64.b64encode(b"my-id:my-secret").decode()
    assert headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert form == {"grant_type": "client_credentials", "scope": OAUTH_SCOPE}


def test_token_response():
    body = b'{"access_token":"v^1.1#abc","expires_in":7200,"token_type":"Application Access Token"}'
    assert parse_token_response(body) == ("v^1.1#abc", 7200)


@pytest.mark.parametrize(
    "body",
    [
        b'{"error":"invalid_client","error_description":"client authentication failed"}',
        b'{"access_token":"x"}',
        b"[]",
        b"<html>",
        b"\xff\xfe",
    ],
)
def test_bad_token_responses_raise_parse_error(body):
    with pytest.raises(ParseError):
        parse_token_response(body)


def test_envelope_with_paging():
    body = (FIXTURES / "browse_search_envelope_rtx-a5000_limit3.json").read_bytes()
    page = parse_browse_search(body, URL, SEEN)
    assert (page.total, page.offset, page.limit) == (5619, 0, 3)
    assert page.next_url == (
        "https://api.ebay.com/buy/browse/v1/item_summary/search?q=NVIDIA+RTX+A5000&limit=3&offset=3"
    )
    assert [listing.listing_id for listing in page.listings] == ["296057072805", "176033835717", "353853667734"]
    first = page.listings[0]
    assert first == browse_listing(
        listing_id="296057072805",
        title="NVIDIA RTX A5000 24GB GDDR6 Graphics Card",
        price=1500.0,
        currency="USD",
        shipping=0.0,
        condition="Used",
        buying_option="FIXED_PRICE,BEST_OFFER",
        url="https://www.ebay.com/itm/296057072805",
    )
    # CALCULATED shipping with a cost worked out for some address is not the listing's cost.
    assert page.listings[1].shipping is None


def test_envelope_with_refinements():
    body = (FIXTURES / "browse_search_envelope_t4_aspect_refinements.json").read_bytes()
    page = parse_browse_search(body, URL, SEEN)
    assert page.total == 83
    listings = by_id(page.listings)
    assert listings["314845741432"] == browse_listing(
        listing_id="314845741432",
        title="Dell NVIDIA Tesla T4 16GB 70W HHHL SW FH PCIe GPU v2 (490-BEYM-OSTK)",
        price=1499.0,
        currency="USD",
        shipping=0.0,
        condition="Certified - Refurbished",
        buying_option="FIXED_PRICE,BEST_OFFER",
        url="https://www.ebay.com/itm/314845741432",
    )
    assert listings["266484131909"].shipping == 12.0
    assert listings["266484131909"].buying_option == "FIXED_PRICE"


@pytest.mark.parametrize("name", BARE_ARRAY_FILES)
def test_every_item_parses(name):
    items = json.loads((FIXTURES / name).read_bytes())
    page = parse_browse_search(envelope(name), URL, SEEN)
    assert len(page.listings) == len(items)
    for item, listing in zip(items, page.listings, strict=True):
        assert listing.listing_id == item["legacyItemId"]
        assert listing.title
        assert listing.price is not None and listing.price >= 0
        assert listing.currency == "USD"
        assert listing.url is not None and "?" not in listing.url


def test_awkward_items_amd():
    listings = by_id(parse_browse_search(envelope("search-listings-amd-radeon-rx-7800-xt.json"), URL, SEEN).listings)
    # Auction with bids beside a Buy It Now: the current bid is the recorded price.
    assert listings["176185808710"] == browse_listing(
        listing_id="176185808710",
        title="Sapphire NITRO Radeon RX 7800 XT 16GB GDDR6 11330-01-20G PCIe4.0 x16 Video Card",
        price=455.0,
        currency="USD",
        shipping=None,
        condition="New",
        buying_option="AUCTION,FIXED_PRICE",
        bid_count=9,
        url="https://www.ebay.com/itm/176185808710",
    )
    # Australian seller: eBay converted AUD 999 to USD 659.19; shipping converted too.
    assert listings["126172563867"] == browse_listing(
        listing_id="126172563867",
        title="Gigabyte AMD Radeon RX 7800 XT Gaming OC 16G Video card, PCI-E 4.0, GDDR6, 2x DP",
        price=659.19,
        currency="USD",
        shipping=79.18,
        condition="Brand New",
        buying_option="FIXED_PRICE",
        url="https://www.ebay.com/itm/126172563867",
        marketplace="EBAY_AU",
    )


def test_awkward_items_amd_7600():
    listings = by_id(parse_browse_search(envelope("search-listings-amd-radeon-rx-7600-xt.json"), URL, SEEN).listings)
    assert listings["196612225921"] == browse_listing(
        listing_id="196612225921",
        title="PowerColor Hellhound Radeon RX 7600 XT AMD 16GB GDDR6",
        price=535.9,
        currency="USD",
        shipping=None,  # no shippingOptions at all
        condition="Nuovo",
        buying_option="FIXED_PRICE",
        url="https://www.ebay.com/itm/196612225921",
        marketplace="EBAY_IT",
    )
    assert listings["126706886673"] == browse_listing(
        listing_id="126706886673",
        title="PowerColor Radeon RX 7600 XT 16GB Fighter GDDR6 Video Graphics Card GPU",
        price=299.99,
        currency="USD",
        shipping=0.0,
        condition="Excellent - Refurbished",
        buying_option="FIXED_PRICE",
        url="https://www.ebay.com/itm/126706886673",
    )
    assert listings["406290243650"].buying_option == "AUCTION,FIXED_PRICE"
    assert (listings["406290243650"].price, listings["406290243650"].bid_count) == (189.0, 0)


def test_awkward_items_datacenter():
    listings = by_id(
        parse_browse_search(envelope("search-listings-nvidia-tesla-v100-32gb.json"), URL, SEEN).listings
    )
    assert listings["296156094954"] == browse_listing(
        listing_id="296156094954",
        title="NVIDIA Tesla V100 32GB PCI-E GPU Computing Accelerator Card 699-2G500-0202-400",
        price=2383.0,
        currency="USD",
        shipping=0.0,
        condition="Open box",
        buying_option="AUCTION,FIXED_PRICE",
        bid_count=0,
        url="https://www.ebay.com/itm/296156094954",
    )
    assert listings["374824491259"] == browse_listing(
        listing_id="374824491259",
        title="Fan + U-turn Shroud for Nvidia Tesla M40 K80 P40 P100 V100 (Fan and Shroud Only)",
        price=40.76,
        currency="USD",
        shipping=11.46,
        condition="New",
        buying_option="FIXED_PRICE,BEST_OFFER",
        url="https://www.ebay.com/itm/374824491259",
        marketplace="EBAY_GB",
    )
    assert listings["335101200566"] == browse_listing(
        listing_id="335101200566",
        title="⚠️PARTS ⚠️NVIDIA Tesla V100 32GB SXM2 GV100-886A-A1 699-2G503-0216-200",
        price=165.0,
        currency="USD",
        shipping=None,
        condition="For parts or not working",
        buying_option="FIXED_PRICE,BEST_OFFER",
        url="https://www.ebay.com/itm/335101200566",
    )


def test_geforce_missing_shipping_options():
    listings = by_id(
        parse_browse_search(envelope("search-listings-nvidia-geforce-rtx-4080.json"), URL, SEEN).listings
    )
    assert listings["297589140381"] == browse_listing(
        listing_id="297589140381",
        title="NVIDIA GeForce RTX 4080 Super | MSI Ventus 3X OC 16GB GDDR6X Video Graphics Card",
        price=800.0,
        currency="USD",
        shipping=None,
        condition="Used",
        buying_option="FIXED_PRICE,BEST_OFFER",
        url="https://www.ebay.com/itm/297589140381",
    )


def test_listing_id_falls_back_to_item_id():
    item = {"itemId": "v1|123456789012|0", "title": "RTX 3090", "price": {"value": "700.00", "currency": "USD"}}
    body = json.dumps({"total": 1, "limit": 1, "offset": 0, "itemSummaries": [item]}).encode()
    assert parse_browse_search(body, URL, SEEN).listings[0].listing_id == "123456789012"


def test_an_item_link_no_url_parser_reads_leaves_the_item_without_its_link():
    item = {"itemId": "v1|123456789012|0", "title": "RTX 3090", "price": {"value": "700.00", "currency": "USD"},
            "itemWebUrl": "https://[bad/itm/123456789012?hash=x"}
    body = json.dumps({"total": 1, "limit": 1, "offset": 0, "itemSummaries": [item]}).encode()
    [listing] = parse_browse_search(body, URL, SEEN).listings
    assert (listing.listing_id, listing.url) == ("123456789012", None)


@pytest.mark.parametrize("link, fragment", [
    ("https://evil.example/buy/browse/v1/item_summary/search?q=x&offset=3", "next leads off api.ebay.com"),
    ("http://api.ebay.com/buy/browse/v1/item_summary/search?q=x&offset=3", "next leads off api.ebay.com"),
    ("https://[api.ebay.com/search", "next is not a link"),
    ("/buy/browse/v1/item_summary/search?q=x&offset=3", "next leads off api.ebay.com"),
])
def test_a_next_link_off_the_api_host_is_refused_not_followed(link, fragment):
    """The fetch sends the API token with the next request: only the API's own host gets it. The page's
    listings still parse (`gpuvalue parse` reads saved pages, whose next nothing follows)."""
    body = json.dumps({"total": 9, "limit": 1, "offset": 0, "next": link, "itemSummaries": []}).encode()
    with pytest.raises(ParseError, match=fragment.replace(".", r"\.")):
        next_page_url(body, URL)
    assert parse_browse_search(body, URL, SEEN).next_url == link
    same_host = json.dumps({"total": 9, "limit": 1, "offset": 0, "itemSummaries": [],
                            "next": "https://API.ebay.com/buy/browse/v1/item_summary/search?q=x&offset=3"}).encode()
    assert next_page_url(same_host, URL) == "https://API.ebay.com/buy/browse/v1/item_summary/search?q=x&offset=3"


def test_empty_result_is_a_legit_empty_page():
    page = parse_browse_search(b'{"href":"x","total":0,"limit":50,"offset":0}', URL, SEEN)
    assert page.listings == [] and page.total == 0 and page.next_url is None


@pytest.mark.parametrize(
    "body",
    [
        b'{"href":"x","total":12,"limit":50,"offset":0}',  # says results, gives none
        b"[]",  # a bare array is not what the API returns
        b'{"total":"12","itemSummaries":[]}',
        b'{"total":1,"itemSummaries":{"a":1}}',
        b'{"total":1,"itemSummaries":[{"title":"x"}]}',
        b'{"total":1,"itemSummaries":[{"legacyItemId":"1","title":"x","price":{"value":"abc","currency":"USD"}}]}',
        b'{"total":1,"itemSummaries":[{"legacyItemId":"1","title":"x","price":{"value":"-1","currency":"USD"}}]}',
        b'{"total":1,"itemSummaries":[{"legacyItemId":"1","title":"x","price":{"value":"1"}}]}',
        b'{"total":1,"itemSummaries":[{"legacyItemId":"1","title":"x","price":{"value":"1","currency":"USD"},"shippingOptions":"free"}]}',
        b'{"errors":[{"errorId":1001,"message":"Invalid access token"}]}',
        b"{}",
        b"null",
        b"\x1f\x8b\x08\x00garbage",
        b'{"total":5,"itemSummaries":[',  # truncated
    ],
)
def test_wrong_shapes_raise_parse_error(body):
    with pytest.raises(ParseError):
        parse_browse_search(body, URL, SEEN)


FUZZ = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes_raise_only_parse_error(body):
    try:
        parse_browse_search(body, URL, SEEN)
    except ParseError:
        pass


@FUZZ
@given(json_values)
def test_random_json_raises_only_parse_error(value):
    try:
        parse_browse_search(json.dumps(value).encode(), URL, SEEN)
    except ParseError:
        pass


item_fields = st.fixed_dictionaries(
    {},
    optional={
        "legacyItemId": json_values,
        "itemId": json_values,
        "title": json_values,
        "price": json_values | st.fixed_dictionaries({"value": json_values, "currency": json_values}),
        "currentBidPrice": json_values,
        "buyingOptions": json_values | st.lists(st.sampled_from(["AUCTION", "FIXED_PRICE", "BEST_OFFER"])),
        "bidCount": json_values,
        "shippingOptions": json_values,
        "condition": json_values,
        "itemWebUrl": json_values,
        "listingMarketplaceId": json_values,
    },
)


@FUZZ
@given(st.lists(item_fields, max_size=3))
def test_item_shaped_junk_raises_only_parse_error(items):
    body = json.dumps({"total": len(items), "offset": 0, "limit": 3, "itemSummaries": items}).encode()
    try:
        parse_browse_search(body, URL, SEEN)
    except ParseError:
        pass


@FUZZ
@given(st.integers(min_value=1, max_value=20000))
def test_truncated_real_response_raises_parse_error(cut):
    body = (FIXTURES / "browse_search_envelope_t4_aspect_refinements.json").read_bytes()
    cut = min(cut, len(body) - 1)
    with pytest.raises(ParseError):
        parse_browse_search(body[:cut], URL, SEEN)


def test_huge_page_parses():
    items = json.loads((FIXTURES / "search-listings-nvidia-geforce-rtx-4080.json").read_bytes()) * 20
    body = json.dumps({"total": len(items), "offset": 0, "limit": len(items), "itemSummaries": items}).encode()
    assert len(parse_browse_search(body, URL, SEEN).listings) == len(items)
