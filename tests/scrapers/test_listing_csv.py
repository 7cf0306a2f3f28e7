from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples

from gpuvalue.models.records import Listing
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.listing_csv import parse_listing_csv

FIXTURES = Path(__file__).parents[1] / "fixtures" / "listings"
IMPORTED = datetime(2021, 6, 1, 9, 0, tzinfo=UTC)  # after every sale in the test data
SOURCE = "import:driscoll42"
HEADER = "title,subtitle,price,shipping,total_price,sold_date,link\n"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def sold(**fields) -> Listing:
    base = dict(source=SOURCE, currency="USD", sold=True, ended=True, seen_at=IMPORTED, marketplace="EBAY_US")
    base.update(fields)
    return Listing(**base)


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.mark.parametrize(
    "name",
    ["ebay_sold_2020_rtx3070_driscoll42_excerpt200.csv", "ebay_sold_2020_rtx3090_driscoll42_excerpt200.csv"],
)
def test_every_row_is_a_sold_listing(name):
    listings = parse_listing_csv(read(name), SOURCE, IMPORTED)
    assert len(listings) == 200
    assert len({listing.listing_id for listing in listings}) == 200
    for listing in listings:
        assert listing.sold and listing.sold_at is not None
        assert listing.listing_id.isdigit()
        assert listing.price is not None and listing.price > 0
        assert not listing.title.startswith("New Listing")
        assert "\u200e" not in listing.title


def test_rtx3070_awkward_rows():
    listings = parse_listing_csv(read("ebay_sold_2020_rtx3070_driscoll42_excerpt200.csv"), SOURCE, IMPORTED)
    # Glued "New Listing" badge and a U+200E mark inside "8GB" are removed.
    assert listings[0] == sold(
        listing_id="203208929698",
        title="GIGABYTE AORUS GeForce RTX 3070 MASTER 8GB GDDR6 Graphics Card jpg",
        subtitle="Brand New · GIGABYTE · 8 GB",
        price=600.0,
        shipping=10.9,
        condition="Brand New",
        sold_at=day(2020, 12, 5),
        url="https://www.ebay.com/itm/GIGABYTE-AORUS-GeForce-RTX-3070-MASTER-8-GB-GDDR6-Graphics-Card-jpg/203208929698",
    )
    # A subtitle naming another card is kept as the source says it.
    assert listings[3] == sold(
        listing_id="373375780291",
        title="NVIDIA GeForce RTX 3070 8GB (IMAGE ONLY) (just picture)",
        subtitle="Brand New · NVIDIA · GIGABYTE GeForce RTX 2070 GAMING OC · 8 GB",
        price=564.0,
        shipping=0.0,
        condition="Brand New",
        sold_at=day(2020, 12, 5),
        url="https://www.ebay.com/itm/NVIDIA-GeForce-RTX-3070-8GB-IMAGE-ONLY-just-picture/373375780291",
    )
    assert listings[27] == sold(
        listing_id="333803753065",
        title="GIGABYTE AORUS RTX 3070 MASTER (New/Open box)",
        subtitle="Open Box · GIGABYTE · 8 GB",
        price=620.0,
        shipping=15.0,
        condition="Open Box",
        sold_at=day(2020, 11, 26),
        url="https://www.ebay.com/itm/GIGABYTE-AORUS-RTX-3070-MASTER-New-Open-box/333803753065",
    )


def test_rtx3090_awkward_rows():
    listings = parse_listing_csv(read("ebay_sold_2020_rtx3090_driscoll42_excerpt200.csv"), SOURCE, IMPORTED)
    assert listings[5] == sold(
        listing_id="393037959272",
        title='A picture of "ASUS ROG Strix GeForce RTX 3090 OC 24GB GDDR6X Graphics Card"',
        subtitle="Brand New · ASUS · 24 GB",
        price=800.0,
        shipping=11.55,
        condition="Brand New",
        sold_at=day(2020, 12, 1),
        url="https://www.ebay.com/itm/A-picture-of-ASUS-ROG-Strix-GeForce-RTX-3090-OC-24GB-GDDR6X-Graphics-Card/393037959272",
    )
    assert listings[1] == sold(
        listing_id="254799557263",
        title="ZOTAC GAMING GeForce RTX 3090 Trinity 24GB GDDR6X Graphics Card",
        subtitle="Pre-Owned · ZOTAC · 24 GB",
        price=1330.0,
        shipping=21.88,
        condition="Pre-Owned",
        sold_at=day(2020, 12, 5),
        url="https://www.ebay.com/itm/ZOTAC-GAMING-GeForce-RTX-3090-Trinity-24GB-GDDR6X-Graphics-Card/254799557263",
    )
    free_text = [listing for listing in listings if listing.subtitle and listing.subtitle.startswith("Unopened")]
    assert len(free_text) == 1 and free_text[0].condition is None


def test_a_sale_dated_after_the_import_is_refused():
    text = "title,price,sold_date\nRTX 3090 FE,700,2030-01-01\n"
    with pytest.raises(ParseError, match="row 2: sold_date '2030-01-01' is in the future"):
        parse_listing_csv(text, "import:test", IMPORTED)


def test_currency_column_and_missing_link_and_empty_shipping():
    text = (
        "title,price,shipping,sold_date,currency,link\n"
        "RTX 3090 FE,1.234,,2021-03-04,eur,\n"
        "RTX 3090 FE,1.234,,2021-03-04,eur,\n"
        "RTX 3080,700,5,2021-03-05T14:30:00,GBP,https://www.ebay.co.uk/itm/123456789012\n"
    )
    first, again, third = parse_listing_csv(text, "import:test", IMPORTED)
    assert first.listing_id.startswith("sha1:") and first.listing_id == again.listing_id
    # "1.234" euros groups thousands, as "1,234" does: no used card sells for one euro (scrapers/money.py).
    assert (first.currency, first.price, first.shipping, first.url, first.marketplace) == ("EUR", 1234.0, None, None, None)
    assert third == Listing(
        source="import:test",
        listing_id="123456789012",
        title="RTX 3080",
        price=700.0,
        currency="GBP",
        shipping=5.0,
        sold=True,
        ended=True,
        sold_at=datetime(2021, 3, 5, 14, 30, tzinfo=UTC),
        seen_at=IMPORTED,
        url="https://www.ebay.co.uk/itm/123456789012",
        marketplace="EBAY_GB",
    )


@pytest.mark.parametrize(
    ("cell", "price"),
    [("499,99", 499.99), ('"1.234,56"', 1234.56), ("1,5", 1.5), ('"1,200"', 1200.0), ('"12,345.67"', 12345.67),
     ('"1,234.5"', 1234.5), ('"9,999"', 9999.0), ('"US $1,200.00"', 1200.0), ("499.99", 499.99)],
)
def test_a_decimal_comma_is_read_as_one_and_a_thousands_comma_as_one(cell, price):
    """European exports write "499,99": read as a thousands separator it made 49,999, which ranked
    first, under the $100,000 cap."""
    cell = cell if cell.startswith('"') or "," not in cell else f'"{cell}"'
    [listing] = parse_listing_csv(f"title,price,sold_date,currency\nRTX 3080,{cell},2021-03-04,EUR\n", SOURCE, IMPORTED)
    assert listing.price == price


def test_a_comma_that_is_neither_separator_is_refused_naming_its_row():
    with pytest.raises(ParseError) as err:
        parse_listing_csv('title,price,sold_date\nRTX 3080,"4,9999",2021-03-04\n', SOURCE, IMPORTED)
    assert "row 2: bad price '4,9999'" in err.value.what


def test_a_link_no_url_parser_reads_leaves_the_sale_without_its_link():
    """An unclosed IPv6 host makes Python's URL parser raise: the row is still a sale, with its item
    id and no link, where the import once stopped with a traceback."""
    text = HEADER + "RTX 3090 FE,,700,,700,2021-03-04,http://[bad/itm/123456789012?hash=x\n"
    [listing] = parse_listing_csv(text, "import:test", IMPORTED)
    assert (listing.listing_id, listing.url, listing.marketplace, listing.price) == ("123456789012", None, None, 700.0)


def test_missing_columns_are_named():
    with pytest.raises(ParseError) as err:
        parse_listing_csv("title,subtitle,cost,when\nx,y,1,2020-01-01\n", SOURCE, IMPORTED)
    assert "price" in err.value.what and "sold_date" in err.value.what and "title" not in err.value.what


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ("RTX 3090,,abc,0,0,2020-12-01,https://www.ebay.com/itm/1234567890", "row 3: bad price"),
        ("RTX 3090,,700,0,0,12/01/2020,https://www.ebay.com/itm/1234567890", "row 3: bad sold_date"),
        ("RTX 3090,,700,soon,0,2020-12-01,https://www.ebay.com/itm/1234567890", "row 3: bad shipping"),
        ("RTX 3090,,,0,0,2020-12-01,https://www.ebay.com/itm/1234567890", "row 3: empty price"),
    ],
)
def test_bad_cells_name_their_row(row, fragment):
    good = "RTX 3080,,600,0,600,2020-12-01,https://www.ebay.com/itm/1234567891\n"
    with pytest.raises(ParseError) as err:
        parse_listing_csv(HEADER + good + row + "\n", SOURCE, IMPORTED)
    assert fragment in err.value.what


def test_empty_input_and_binary_raise():
    for text in ["", "\x00\x01\x02", "\ufeff"]:
        with pytest.raises(ParseError):
            parse_listing_csv(text, SOURCE, IMPORTED)


def test_header_only_is_empty():
    assert parse_listing_csv(HEADER, SOURCE, IMPORTED) == []


FUZZ = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.text(max_size=300))
def test_random_text_raises_only_parse_error(text):
    try:
        parse_listing_csv(text, SOURCE, IMPORTED)
    except ParseError:
        pass


@FUZZ
@given(st.lists(st.lists(st.text(max_size=12), min_size=0, max_size=9), max_size=5))
def test_random_rows_raise_only_parse_error(rows):
    import csv
    import io

    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    try:
        parse_listing_csv(HEADER + buffer.getvalue(), SOURCE, IMPORTED)
    except ParseError:
        pass


@FUZZ
@given(st.integers(min_value=1, max_value=52000))
def test_truncated_real_file_raises_only_parse_error(cut):
    text = read("ebay_sold_2020_rtx3070_driscoll42_excerpt200.csv")[:cut]
    try:
        parse_listing_csv(text, SOURCE, IMPORTED)
    except ParseError:
        pass


def test_huge_file_parses():
    text = read("ebay_sold_2020_rtx3090_driscoll42_excerpt200.csv")
    header, body = text.split("\n", 1)
    assert len(parse_listing_csv(header + "\n" + body * 25, SOURCE, IMPORTED)) == 5000


def test_a_spreadsheets_export_reads_as_written():
    """Semicolons with decimal commas, "Sold Date" for sold_date, and eBay's shipping words: each
    refused the whole file ('lacks required column(s)', 'bad shipping')."""
    text = ("Title;Price;Sold Date;Shipping\n"
            "RTX 3080;499,99;2021-03-04;Free shipping\n"
            "RTX 3080;480;2021-03-05;+$9.90 shipping\n")
    first, second = parse_listing_csv(text, SOURCE, IMPORTED)
    assert (first.price, first.shipping, first.sold_at.date().isoformat()) == (499.99, 0.0, "2021-03-04")
    assert (second.price, second.shipping) == (480.0, 9.9)
    tabs = parse_listing_csv("title\tprice\tsold_date\nRTX 3080\t500\t2021-03-04\n", SOURCE, IMPORTED)
    assert [listing.price for listing in tabs] == [500.0]
