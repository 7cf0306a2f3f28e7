"""One money parser for every source and the import (scrapers/money.py): the rules on the cells
users' files carry, then every source's recorded pages read through it.

price-parser 0.5.1 was measured on the same cells (the CELLS table): it read "0.125" as 125 (a
rental's price per hour), "1_000" as 1000, Arabic-Indic digits as a number and "4,9999" as 4.9999,
and names currencies by their symbols, not ISO codes; the rules here read all of them right.
"""

from __future__ import annotations

import csv
import gzip
import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpuvalue.scrapers.listing_csv import parse_listing_csv
from gpuvalue.scrapers.money import (
    Money,
    currency_of,
    find_price,
    iter_prices,
    parse_amount,
    parse_price,
)
from gpuvalue.scrapers.sources import ebay_browse as eb
from gpuvalue.scrapers.sources import ebay_html as eh
from gpuvalue.scrapers.sources import fsdl_cloud_gpus as fsdl
from gpuvalue.scrapers.sources import hardwareswap as hs
from gpuvalue.scrapers.sources import tomshardware_ebay_index as th
from gpuvalue.scrapers.sources import wikipedia as wiki

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LISTINGS = FIXTURES / "listings"
NOW = datetime(2026, 7, 22, tzinfo=UTC)

# (cell, default currency, (amount, ISO currency)) or None where no price may be read.
CELLS = [
    ("$72.00", None, (72.0, "USD")),
    ("EUR 1.234,56", None, (1234.56, "EUR")),
    ("1.234 €", None, (1234.0, "EUR")),
    ("1 234,56 zł", None, (1234.56, "PLN")),
    ("1\u00a0234,56\u00a0zł", None, (1234.56, "PLN")),
    ("12 000 Ft", None, (12000.0, "HUF")),
    ("2 499 kr", "SEK", (2499.0, "SEK")),
    ("kr 1.234,50", "NOK", (1234.5, "NOK")),
    ("CA$ 1,200", None, (1200.0, "CAD")),
    ("C $450.00", None, (450.0, "CAD")),
    ("A$950", None, (950.0, "AUD")),
    ("AU $1,299.00", None, (1299.0, "AUD")),
    ("US $1,200.00", None, (1200.0, "USD")),
    ("£3.95", None, (3.95, "GBP")),
    ("499,99", "EUR", (499.99, "EUR")),
    ("9,999", "USD", (9999.0, "USD")),
    ("0.125", "USD", (0.125, "USD")),
    ("CHF 1'234.50", None, (1234.5, "CHF")),
    ("$450", "CAD", (450.0, "CAD")),
    ("1.234.567,89 €", None, (1234567.89, "EUR")),
    ("12,345.67", "USD", (12345.67, "USD")),
    ("2.500 Kč", None, (2500.0, "CZK")),
    ("8.449999999999999", "USD", (8.449999999999999, "USD")),
    ("1_000", None, None),
    ("\u0661\u0662\u0663", None, None),  # Arabic-Indic digits
    ("\u0967\u0968\u0969", None, None),  # Devanagari digits
    ("4,9999", None, None),
    ("1,2,3", None, None),
    ("12,34,567", None, None),  # lakh grouping: not a grouping the rules know
    ("EUR 5 USD", None, None),
    ("abc", None, None),
    ("", None, None),
]


@pytest.mark.parametrize(("cell", "default", "expected"), CELLS)
def test_cells_as_users_files_write_them(cell, default, expected):
    money = parse_price(cell, default=default)
    assert (None if money is None else (money.amount, money.currency)) == expected


def test_digits_are_ascii_and_never_carry_underscores():
    """float() reads both; a price must not."""
    assert float("1_000") == 1000 and float("\u0661\u0662\u0663") == 123
    for text in ("1_000", "1_000.50", "\u0661\u0662\u0663", "$\u0661\u0662\u0663", "\uff11\uff12\uff13"):
        assert parse_price(text) is None, text
        assert parse_amount(text) is None, text
        assert list(iter_prices(f"RTX 3080 for {text} USD")) == [], text


def test_a_bare_dollar_or_krone_is_the_default_s_kind():
    assert currency_of("$", "CAD") == "CAD" and currency_of("$", "AUD") == "AUD"
    assert currency_of("$", None) == "USD"
    assert currency_of("$", "EUR") is None  # a dollar sign on a euro site: no one dollar
    assert currency_of("kr", "DKK") == "DKK" and currency_of("kr", None) is None
    assert currency_of("zł") == "PLN" and currency_of("Ft") == "HUF" and currency_of("CA$") == "CAD"


def test_a_known_decimal_mark_decides_what_the_rules_cannot():
    assert parse_amount("1,234", decimal=",") == 1.234
    assert parse_amount("1.234", decimal=",") == 1234.0
    assert parse_amount("1.234", decimal=".") == 1.234


def test_free_text_yields_the_amounts_beside_a_currency():
    text = "RTX 3080 - $450 shipped, 3070: 380 CAD, 1080 for 200 bucks, a 2080 Ti retail 1 200 €"
    found = [(m.amount, m.currency) for m in iter_prices(text, default="CAD")]
    assert found == [(450.0, "CAD"), (380.0, "CAD"), (200.0, "CAD"), (1200.0, "EUR")]
    assert find_price("+EUR 4,99 Versand") == Money(4.99, "EUR", "EUR")
    assert find_price("RTX 3080 450 CAD").amount == 450.0  # the model number is no part of the price
    assert [(m.amount, m.currency) for m in iter_prices("6 ft DisplayPort cable, $10")] == [(10.0, "USD")]
    assert parse_price("12 000 FT") is None and parse_price("12 000 Ft").currency == "HUF"
    assert list(iter_prices("would try 300 for it")) == [] and parse_price("TRY 300").currency == "TRY"


# ---- every source's recorded pages, read through the one parser ---------------------------------

EBAY_PAGES = [
    # (file, the site it was served on, listings, priced, currency, sum of prices)
    ("ebay_srp_scard_sold_2026-07_seller_auctionetl.html.gz", "www.ebay.com", 60, 28, "USD", 460.25),
    ("ebay_srp_scard_active_2026-07_pokemon_auctionetl.html.gz", "www.ebay.com", 60, 54, "USD", 1515.21),
    ("ebay_srp_sitem_2022-11_apple_ebayde_parsy.html.gz", "www.ebay.de", 68, 65, "EUR", 20603.06),
    ("ebay_srp_sitem_uk_warhammer_iliadinsight.html.gz", "www.ebay.co.uk", 61, 48, "GBP", 453.73),
]


@pytest.mark.parametrize(("name", "site", "listed", "priced", "currency", "total"), EBAY_PAGES)
def test_ebay_pages(name, site, listed, priced, currency, total):
    page = eh.parse_ebay_results(gzip.decompress((LISTINGS / name).read_bytes()), f"https://{site}/sch/i.html?_nkw=x",
                                 NOW)
    prices = [item.price for item in page.listings if item.price is not None]
    assert (len(page.listings), len(prices)) == (listed, priced)
    assert {item.currency for item in page.listings if item.price is not None} == {currency}
    assert sum(prices) == pytest.approx(total)


@pytest.mark.parametrize(("name", "url", "priced", "currency", "total"), [
    ("reddit_canadianhardwareswap_new_2026-02-23.json", "https://www.reddit.com/r/CanadianHardwareSwap/new.json", 19,
     "CAD", 3655.0),
    ("reddit_hardwareswap_new_2017-10-18.atom.xml", "https://www.reddit.com/r/hardwareswap/new/.rss", 11, "USD", 2700.0),
])
def test_reddit_posts(name, url, priced, currency, total):
    listings = hs.parse_hardwareswap_page((LISTINGS / name).read_bytes(), url, NOW)
    prices = [item for item in listings if item.price is not None]
    assert len(prices) == priced and {item.currency for item in prices} == {currency}
    assert sum(item.price for item in prices) == pytest.approx(total)


@pytest.mark.parametrize(("name", "total"), [("ebay_sold_2020_rtx3070_driscoll42_excerpt200.csv", 143100.88),
                                              ("ebay_sold_2020_rtx3090_driscoll42_excerpt200.csv", 385780.77)])
def test_csv_exports(name, total):
    listings = parse_listing_csv((LISTINGS / name).read_text(), "import:test", NOW)
    assert len(listings) == 200 and {item.currency for item in listings} == {"USD"}
    assert sum(item.price for item in listings) == pytest.approx(total)


def test_fsdl_cloud_gpus_prices_per_hour():
    """Every price cell of the newest table is read, including those below a dollar ("0.125")."""
    body = (FIXTURES / "cloud" / "fsdl_cloud-gpus" / "cloud-gpus_HEAD_2025-03-07.csv").read_bytes()
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8"))))
    cells = [row[column] for row in rows for column in ("On-demand", "Per-GPU", "Spot") if (row.get(column) or "").strip()]
    assert cells and all(parse_price(cell, default="USD", decimal=".") is not None for cell in cells)
    offers, _ = fsdl.read_fsdl_cloud_gpus(body, fsdl.SOURCE.sample_url or "https://example.invalid/x.csv", NOW.date())
    assert offers and all(offer.usd_per_gpu_hour > 0 for offer in offers if offer.usd_per_gpu_hour is not None)


def test_tomshardware_index_dollars():
    body = (FIXTURES / "prices" / "tomshardware_ebay_monthly" / th.TIME_SERIES).read_bytes()
    points = th.parse_time_series(body, th.TIME_SERIES_URL)
    assert len(points) > 100 and all(0 < p.avg_sold_usd < 100_000 for p in points)


def test_browse_api_amounts():
    """The API writes amounts as strings ("2299.90"); every one of the recorded responses reads."""
    body = (LISTINGS / "search-listings-nvidia-geforce-rtx-4080.json").read_bytes()
    envelope = b'{"total": 101, "limit": 100, "offset": 0, "itemSummaries": ' + body + b"}"
    page = eb.parse_browse_search(envelope, eb.browse_search_url("NVIDIA GeForce RTX 4080"), NOW)
    assert len(page.listings) == 101 and all(item.price and item.price > 0 for item in page.listings)
    for bad in ("1_000.00", "\u0661\u0662\u0663"):
        broken = envelope.replace(b'"value": "', f'"value": "{bad}'.encode(), 1)
        with pytest.raises(Exception, match="is not a number"):
            eb.parse_browse_search(broken, eb.browse_search_url("NVIDIA GeForce RTX 4080"), NOW)


def test_wikipedia_launch_prices():
    assert wiki.usd_price("$699 (dropped to $499)", False) == 699.0
    assert wiki.usd_price("$1,199", False) == 1199.0
    assert wiki.usd_price("1,499", True) == 1499.0 and wiki.usd_price("1,499", False) is None
    assert wiki.usd_price("$\u0667\u0669\u0669", False) is None  # Arabic-Indic digits are no price
    parsed = wiki.SOURCE.load_embedded()
    assert sum(1 for spec in parsed.specs if spec.launch_price_usd) == 190  # every launch price of the extract
