"""A forum post's price is a money amount, never the number in a card's name.

"RTX 3090 $500 shipped" was once read as $3,090: the "$" between the model number and the amount was
taken as the model number's. A currency belongs to the number it is written against, and a number
written after a product family ("RTX 3090") names the card, whatever follows it.
"""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.scrapers.money import iter_prices
from gpuvalue.scrapers.sources.hardwareswap import parse_hardwareswap_atom, parse_reddit_listing, price_items

FIXTURES = Path(__file__).parents[1] / "fixtures" / "listings"
SEEN = datetime(2026, 12, 1, tzinfo=UTC)
FEED_URL = "https://www.reddit.com/r/hardwareswap/new/.rss?limit=100"


@pytest.mark.parametrize(
    ("line", "amount"),
    [
        ("RTX 3090 $500 shipped", 500.0),
        ("4090 $1600 local only", 1600.0),
        ("RTX 3090 $ 500", 500.0),
        ("RTX 3090 USD 700 obo", 700.0),
        ("EVGA 3090 500$ shipped", 500.0),
        ("RTX 3080 450 CAD", 450.0),
        ("RTX 4090 1600 USD firm", 1600.0),
        ("4090 USD 1600 shipped", 1600.0),
        ("200 USD 2080 Ti next", 200.0),
        ("GTX 1080 - 200 bucks", 200.0),
        ("RX 6800 XT 1,200$ firm", 1200.0),
        ("3090 - $500", 500.0),
        ("Ryzen 5 3600 $90", 90.0),
    ],
)
def test_the_amount_beside_the_currency_is_the_price_not_the_model_number(line, amount):
    assert [m.amount for m in iter_prices(line, default="USD")][:1] == [amount]


def test_two_items_on_a_line_keep_their_own_prices():
    found = [m.amount for m in iter_prices("1080 for 200 bucks, 2080 Ti for 300 bucks", default="USD")]
    assert found == [200.0, 300.0]
    assert [m.amount for m in iter_prices("3090 $500 / 4090 $1600", default="USD")] == [500.0, 1600.0]


MODELS = ["RTX 3090", "4090", "RTX 3080 Ti", "GTX 1080", "RX 6800 XT", "RTX A5000", "3070", "Titan RTX", "RTX 4060 8GB"]
WRITTEN = ["${p}", "$ {p}", "{p}$", "{p} USD", "USD {p}", "US$ {p}", "{p} bucks", "${p}.00"]
JOINS = [" ", " - ", ": ", " for ", " -- asking ", " | "]
TAILS = ["", " shipped", " local only", " obo", " firm", " shipped CONUS", " (paypal g&s)"]


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(MODELS), st.integers(min_value=30, max_value=4999), st.sampled_from(WRITTEN),
       st.sampled_from(JOINS), st.sampled_from(TAILS))
def test_any_model_and_any_written_price_keep_the_price(model, amount, written, join, tail):
    line = f"{model}{join}{written.format(p=amount)}{tail}"
    assert [m.amount for m in iter_prices(line, default="USD")] == [float(amount)], line
    assert price_items([model], line, "USD") == [(float(amount), "USD")], line


def _real_prices() -> dict[str, float | None]:
    canada = parse_reddit_listing((FIXTURES / "reddit_canadianhardwareswap_new_2026-02-23.json").read_bytes(),
                                  "https://oauth.reddit.com/r/CanadianHardwareSwap/new", SEEN).listings
    atom = parse_hardwareswap_atom((FIXTURES / "reddit_hardwareswap_new_2017-10-18.atom.xml").read_bytes(),
                                   FEED_URL, SEEN)
    return {listing.listing_id: listing.price for listing in [*canada, *atom]}


def test_the_real_recordings_keep_their_known_prices():
    """Every priced item of both recordings, as read before the rule changed (and checked by hand against
    the posts: no price there equals a model number)."""
    prices = _real_prices()
    priced = {key: value for key, value in prices.items() if value is not None}
    assert len(prices) == 60 and len(priced) == 30
    assert sum(priced.values()) == 6_355.0
    assert (prices["1rbzn5k#1"], prices["1rba0ub#1"], prices["778l4s#1"], prices["7788b3#1"]) == (500.0, 700.0, 245.0,
                                                                                                  140.0)


def _entry(post_id: str, title: str, body: str) -> str:
    content = html.escape(f'<div class="md"><p>{html.escape(body)}</p></div>')
    link = f"https://www.reddit.com/r/hardwareswap/comments/{post_id}/x/"
    return (f"<entry><content type=\"html\">{content}</content><id>t3_{post_id}</id><link href=\"{link}\" />"
            f"<updated>2026-12-01T10:00:00+00:00</updated><title>{html.escape(title)}</title></entry>")


def test_parse_hardwareswap_on_a_feed_gives_the_posted_prices(tmp_path):
    feed = tmp_path / "new.rss"
    feed.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
        '<category term="hardwareswap" label="r/hardwareswap"/>'
        + _entry("aaa111", "[USA-TX] [H] RTX 3090 [W] PayPal", "RTX 3090 $500 shipped")
        + _entry("bbb222", "[USA-CA] [H] 4090 [W] Cash", "4090 $1600 local only")
        + "</feed>", encoding="utf-8")
    res = CliRunner().invoke(app, ["parse", "hardwareswap", str(feed), "--url", FEED_URL])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [(row["title"], row["price"], row["currency"]) for row in rows] == [("RTX 3090", 500.0, "USD"),
                                                                             ("4090", 1600.0, "USD")]
