from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples

from gpuvalue.models.records import Listing
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources.hardwareswap import (
    hardwareswap_new_url,
    have_part,
    parse_hardwareswap_atom,
    parse_reddit_listing,
    price_items,
    split_items,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "listings"
CANADA = FIXTURES / "reddit_canadianhardwareswap_new_2026-02-23.json"
ATOM = FIXTURES / "reddit_hardwareswap_new_2017-10-18.atom.xml"
CANADA_URL = "https://oauth.reddit.com/r/CanadianHardwareSwap/new?limit=25&raw_json=1"
ATOM_URL = "https://www.reddit.com/r/hardwareswap/new.xml?sort=new"
SEEN = datetime(2026, 2, 23, 18, 0, tzinfo=UTC)
ATOM_SEEN = datetime(2017, 10, 18, 19, 2, tzinfo=UTC)


def canada() -> dict[str, Listing]:
    page = parse_reddit_listing(CANADA.read_bytes(), CANADA_URL, SEEN)
    return {listing.listing_id: listing for listing in page.listings}


def post(listing_id: str, title: str, price: float | None, *, permalink: str, currency: str = "CAD", seen=SEEN, market="r/CanadianHardwareSwap", **extra) -> Listing:
    return Listing(
        source="hardwareswap",
        listing_id=listing_id,
        title=title,
        price=price,
        currency=currency,
        condition="used",
        seen_at=seen,
        url="https://www.reddit.com" + permalink,
        marketplace=market,
        **extra,
    )


def test_urls():
    assert hardwareswap_new_url() == "https://oauth.reddit.com/r/hardwareswap/new?limit=100&raw_json=1"
    assert hardwareswap_new_url("CanadianHardwareSwap", 25, "t3_abc", authenticated=False) == (
        "https://www.reddit.com/r/CanadianHardwareSwap/new.json?limit=25&raw_json=1&after=t3_abc"
    )


def test_page_paging_and_skips():
    page = parse_reddit_listing(CANADA.read_bytes(), CANADA_URL, SEEN)
    assert (page.after, page.posts_seen) == ("t3_1rb7wrl", 25)
    post_ids = {listing.listing_id.split("#")[0] for listing in page.listings}
    # 9 Selling + 1 Sold posts; 13 Buying and the 2 stickied mod threads are skipped.
    assert len(post_ids) == 10
    assert "1r4zyeg" not in post_ids and "1qsilcl" not in post_ids


def test_single_gpu_post():
    assert canada()["1rbzn5k#1"] == post(
        "1rbzn5k#1",
        "RTX 3080 12 GB EVGA FTW3 Ultra",
        500.0,
        permalink="/r/CanadianHardwareSwap/comments/1rbzn5k/london_on_h_rtx_3080_12_gb_evga_ftw3_ultra_w/",
    )


def test_multi_item_post_prices_each_item_from_its_line():
    listings = canada()
    link = "/r/CanadianHardwareSwap/comments/1rba0ub/vancouver_bc_h_itx_build_or_parts_4070_ti_msi_mpg/"
    assert listings["1rba0ub#1"] == post("1rba0ub#1", "ITX Build or parts 4070 Ti", 700.0, permalink=link)
    assert listings["1rba0ub#2"] == post("1rba0ub#2", "MSI MPG B650I EDGE WIFI", 100.0, permalink=link)
    assert listings["1rba0ub#4"] == post("1rba0ub#4", "AMD Ryzen 7 7700X", 200.0, permalink=link)
    # "If bought as whole - 1000 CAD" is a bundle price, never an item's.
    assert all(listings[f"1rba0ub#{n}"].price != 1000.0 for n in range(1, 5))


def test_table_rows_and_unpriced_items():
    listings = canada()
    link = "/r/CanadianHardwareSwap/comments/1rb81wy/richmond_hill_on_h_coral_usb_tpu_64gb_8x_8gb_ddr4/"
    assert listings["1rb81wy#1"] == post("1rb81wy#1", "Coral USB TPU", 150.0, permalink=link)
    assert listings["1rb81wy#3"] == post("1rb81wy#3", "X99 Mobo + Xeon E5 2680 v3", 125.0, permalink=link)
    assert listings["1rb81wy#10"] == post("1rb81wy#10", "Case", None, permalink=link)
    brampton = "/r/CanadianHardwareSwap/comments/1rc889d/brampton_on_h_am4_cpus_motherboards_arc_a380_w/"
    assert listings["1rc889d#1"] == post("1rc889d#1", "AM4 CPUs", None, permalink=brampton)
    assert listings["1rc889d#3"] == post("1rc889d#3", "ARC A380", 140.0, permalink=brampton)


def test_sold_flair_marks_sold_at_post_time():
    assert canada()["1rbxba7#1"] == post(
        "1rbxba7#1",
        "2x HP Prodesk 400 G5 Mini PCs",
        None,
        permalink="/r/CanadianHardwareSwap/comments/1rbxba7/carmanmbh2x_hp_prodesk_400_g5_mini_pcs_w_paypal/",
        sold=True,
        ended=True,
        sold_at=datetime.fromtimestamp(1771793592.0, tz=UTC),
    )


def test_atom_feed():
    listings = {l.listing_id: l for l in parse_hardwareswap_atom(ATOM.read_bytes(), ATOM_URL, ATOM_SEEN)}
    link = "/r/hardwareswap/comments/778l4s/usaca_h_r9_390_8gb_omen_32_1440p_w_localtrades/"
    common = dict(permalink=link, currency="USD", seen=ATOM_SEEN, market="r/hardwareswap")
    assert listings["778l4s#1"] == post("778l4s#1", "R9 390 8gb", 245.0, **common)
    assert listings["778l4s#2"] == post("778l4s#2", 'Omen 32" 1440p', 275.0, **common)
    # "Retail on this is $299. Asking $140 shipped": the asking price.
    assert listings["7788b3#1"].price == 140.0
    assert listings["778e3y#1"].title == "Nvidia 1080Ti"
    # "[H] Paypal [W] ..." posts are buying posts.
    assert not any(key.startswith("778r53") for key in listings)
    assert {l.sold for l in listings.values()} == {False}


@pytest.mark.parametrize(
    ("title", "have"),
    [
        ("[USA-IL][H]LOCAL cash, Paypal[W]GPU, SSD", "LOCAL cash, Paypal"),
        ("[USA-CA]-[H] PayPal [W] EVGA GTX 780Ti", "PayPal"),
        ("[London, ON] [H] RTX 3080 12 GB [W] Paypal", "RTX 3080 12 GB"),
        ("[USA-TX] [W] RTX 3090 [H] PayPal", "PayPal"),
        ("Price check thread", None),
    ],
)
def test_have_part(title, have):
    assert have_part(title) == have


def test_split_items_keeps_parentheses_and_bundles():
    assert split_items("Coral USB TPU, 64GB (8x 8GB, DDR4) UDIMM, X99 Mobo + Xeon E5 2680 v3 & Fans") == [
        "Coral USB TPU",
        "64GB (8x 8GB, DDR4) UDIMM",
        "X99 Mobo + Xeon E5 2680 v3",
        "Fans",
    ]


def test_price_forms():
    body = "RTX 3080 - $450 shipped\n| 3070 | $380 |\n3080 12GB: 500 CAD\nRX 6800 XT 1,200$ firm"
    assert price_items(["RTX 3080", "RTX 3070", "3080 12GB", "RX 6800 XT"], body, "USD") == [
        (450.0, "USD"),
        (380.0, "USD"),
        (500.0, "CAD"),
        (1200.0, "USD"),
    ]


@pytest.mark.parametrize(
    "body",
    [
        b"{}",
        b"[]",
        b'{"kind":"Listing","data":{"children":{}}}',
        b'{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"id":"x"}}]}}',
        b'{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"id":"x","title":"[H] a","created_utc":"now","permalink":"/r/x"}}]}}',
        b'{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"id":"x","title":"[H] a","created_utc":1e300,"permalink":"/r/x/"}}]}}',
        b"<html>",
        b"\x89PNG\r\n",
    ],
)
def test_wrong_json_raises(body):
    with pytest.raises(ParseError):
        parse_reddit_listing(body, CANADA_URL, SEEN)


@pytest.mark.parametrize(
    "body",
    [b"", b"<feed>", b"<rss></rss>", b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><feed/>', b"\xff\xfe\x00"],
)
def test_bad_atom_raises(body):
    with pytest.raises(ParseError):
        parse_hardwareswap_atom(body, ATOM_URL, ATOM_SEEN)


def test_a_feed_declaring_entities_is_refused_though_it_reads_otherwise():
    body = ATOM.read_bytes().replace(b"?><feed ", b'?><!DOCTYPE feed [<!ENTITY a "b">]><feed ', 1)
    assert body != ATOM.read_bytes()
    with pytest.raises(ParseError, match="declares a DOCTYPE or entities"):
        parse_hardwareswap_atom(body, ATOM_URL, ATOM_SEEN)


def test_an_atom_entry_whose_link_no_url_parser_reads_raises():
    body = re.sub(rb'<link href="[^"]+"', b'<link href="https://[bad/r/hardwareswap/x"', ATOM.read_bytes(), count=1)
    with pytest.raises(ParseError, match="bad link"):
        parse_hardwareswap_atom(body, ATOM_URL, ATOM_SEEN)


FUZZ = settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes(body):
    for parse in (parse_reddit_listing, parse_hardwareswap_atom):
        try:
            parse(body, CANADA_URL, SEEN)
        except ParseError:
            pass


@FUZZ
@given(st.integers(min_value=1, max_value=98_000))
def test_truncated_real_pages(cut):
    for path, parse in ((CANADA, parse_reddit_listing), (ATOM, parse_hardwareswap_atom)):
        body = path.read_bytes()
        with pytest.raises(ParseError):
            parse(body[: min(cut, len(body) - 2)], CANADA_URL, SEEN)


@FUZZ
@given(st.text(max_size=120), st.text(max_size=300), st.one_of(st.none(), st.text(max_size=10)))
def test_posts_with_any_text_parse(title, selftext, flair):
    child = {"kind": "t3", "data": {"id": "abc", "title": title, "selftext": selftext, "link_flair_text": flair, "created_utc": 1.7e9, "permalink": "/r/hardwareswap/comments/abc/x/"}}
    body = json.dumps({"kind": "Listing", "data": {"after": None, "children": [child]}}).encode()
    try:
        page = parse_reddit_listing(body, CANADA_URL, SEEN)
    except ParseError:
        return
    assert all(listing.title for listing in page.listings)


def test_huge_page():
    data = json.loads(CANADA.read_bytes())
    data["data"]["children"] = data["data"]["children"] * 40
    page = parse_reddit_listing(json.dumps(data).encode(), CANADA_URL, SEEN)
    assert page.posts_seen == 1000 and len(page.listings) == 40 * 29
