"""Conversion at the rate of a price's own day (models/fx.py: DailyRates), the monthly table as the seed."""

from __future__ import annotations

from datetime import date

import pytest

from gpuvalue.models.fx import DailyRate, DailyRates, ecb_cross_rates, to_usd

JULY_6 = date(2026, 7, 6)
# Named as the warehouse hands them: by their source's label (warehouse/sql/fx_rates_all.sql).
RATES = DailyRates([
    *ecb_cross_rates(date(2026, 7, 2), {"USD": 1.13, "GBP": 0.85}, "ECB euro reference rate"),
    *ecb_cross_rates(JULY_6, {"USD": 1.1415, "GBP": 0.85538}, "ECB euro reference rate"),
])


def test_a_day_with_a_rate_uses_it_and_names_its_date():
    conv = RATES.to_usd(100.0, "GBP", JULY_6)
    assert conv.usd == pytest.approx(100 * 1.1415 / 0.85538)
    assert conv.rate_date == JULY_6 and conv.source == "ECB euro reference rate of 2026-07-06"


@pytest.mark.parametrize(("day", "published"), [
    (date(2026, 7, 3), date(2026, 7, 2)),   # a Friday without a file here: the Thursday's
    (date(2026, 7, 5), date(2026, 7, 2)),   # a Sunday
    (date(2026, 7, 10), JULY_6),            # four days on: still the nearest earlier published day
])
def test_a_day_without_a_rate_uses_the_nearest_earlier_published_day(day, published):
    assert RATES.to_usd(1.0, "EUR", day).rate_date == published


def test_never_a_later_day():
    """A price of 2026-07-01 is not converted at a rate published after it: the monthly table answers."""
    conv = RATES.to_usd(1.0, "GBP", date(2026, 7, 1))
    assert conv.rate_date is None and "(monthly table)" in conv.source
    assert conv.rate == pytest.approx(to_usd(1.0, "GBP", date(2026, 7, 1)).rate)


def test_stored_rates_that_stop_give_way_to_a_nearer_month_of_the_table():
    later = RATES.to_usd(1.0, "GBP", date(2026, 8, 20))  # six weeks after the last stored day
    assert later.rate_date is None and later.rate_month == "2026-08"
    # Past the table's own months the stored day is the nearer: the table only repeats 2026-10 there.
    assert RATES.to_usd(1.0, "GBP", date(2026, 7, 12)).rate_date == JULY_6


def test_usd_is_itself_and_an_unknown_currency_is_none():
    assert RATES.to_usd(12.5, "usd", JULY_6).usd == 12.5
    assert RATES.to_usd(1.0, "XYZ", JULY_6) is None
    assert DailyRates([DailyRate(JULY_6, "ABC", 0.5, "ecb")]).to_usd(2.0, "abc", JULY_6).usd == 1.0


def test_a_day_without_a_usd_quote_gives_no_cross_rates():
    assert ecb_cross_rates(JULY_6, {"GBP": 0.85}, "ecb") == []
