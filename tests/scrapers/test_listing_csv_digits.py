"""A price is read as a person writes it: ASCII digits only, and a refusal shows the figures that matter."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.listing_csv import read_listing_csv

IMPORTED = datetime(2021, 6, 1, 9, 0, tzinfo=UTC)
HEADER = "title,subtitle,price,shipping,total_price,sold_date,link\n"


def _row(price: str, shipping: str = "0") -> str:
    return HEADER + f"RTX 3090,,{price},{shipping},0,2020-12-02,https://www.ebay.com/itm/1234567891\n"


@pytest.mark.parametrize("price", ["1_000", "\u0661\u0660\u0660\u0660", "\u06f1\u06f0\u06f0", "\uff11\uff10\uff10"])
def test_underscores_and_other_digits_are_not_a_number(price):
    # float() reads all four as 1000 or 100: an import accepted them as prices.
    with pytest.raises(ParseError, match="row 2: bad price"):
        read_listing_csv(_row(price), "import:t", IMPORTED)


def test_other_digits_in_shipping_are_refused_too():
    with pytest.raises(ParseError, match="row 2: bad shipping"):
        read_listing_csv(_row("700", "1_0"), "import:t", IMPORTED)


def test_a_huge_price_is_refused_with_a_short_figure():
    got = read_listing_csv(_row("1e308"), "import:t", IMPORTED)
    (reason,) = [why for _, why in got.rejected]
    assert reason == "price $1e+308 is above $100,000"  # it printed all 309 digits


def test_a_price_just_above_the_cap_prints_its_cents():
    got = read_listing_csv(_row("100000.01"), "import:t", IMPORTED)
    # It said "price $100,000 is above $100,000".
    assert [why for _, why in got.rejected] == ["price $100,000.01 is above $100,000"]


def test_ascii_prices_still_read():
    got = read_listing_csv(_row("\"US $1,200.50\""), "import:t", IMPORTED)
    assert [x.price for x in got.listings] == [1200.5]
