from __future__ import annotations

import csv
from datetime import date

import pytest

from gpuvalue.models.fx import FX_TABLE_PATH, fx_table, to_usd

CURRENCIES = {"EUR", "GBP", "CAD", "AUD", "JPY", "CHF", "SEK", "NOK", "PLN", "HUF"}


def months() -> list[str]:
    return [f"{y:04d}-{m:02d}" for y in range(2016, 2027) for m in range(1, 13) if (y, m) <= (2026, 11)]


def test_table_covers_every_month_and_currency():
    rows = list(csv.DictReader(FX_TABLE_PATH.read_text(encoding="utf-8").splitlines()))
    assert {(row["month"], row["currency"]) for row in rows} == {(m, c) for m in months() for c in CURRENCIES}
    assert all(float(row["usd_per_unit"]) > 0 for row in rows)


def test_only_months_after_the_data_are_carried_forward():
    table = fx_table()
    carried = sorted({month for (month, _), rate in table.items() if rate.source.startswith("carried_forward")})
    assert carried == ["2026-11"]
    assert table[("2026-11", "EUR")].usd_per_unit == table[("2026-10", "EUR")].usd_per_unit


@pytest.mark.parametrize(
    ("currency", "month", "low", "high"),
    [
        ("EUR", "2016-01", 1.08, 1.09),  # ECB monthly mean 1.0860
        ("EUR", "2022-09", 0.98, 1.00),  # parity autumn 2022
        ("GBP", "2022-09", 1.12, 1.15),
        ("CAD", "2020-03", 0.70, 0.73),
        ("AUD", "2020-03", 0.60, 0.64),
        ("JPY", "2024-07", 0.0062, 0.0065),
    ],
)
def test_known_rates(currency, month, low, high):
    assert low < fx_table()[(month, currency)].usd_per_unit < high


def test_to_usd():
    conversion = to_usd(100.0, "eur", date(2016, 1, 20))
    assert conversion is not None
    assert conversion.rate_month == "2016-01"
    assert conversion.usd == pytest.approx(100 * conversion.rate)
    assert "ECB" in conversion.source


def test_usd_is_identity_and_unknown_is_none():
    conversion = to_usd(499.99, "USD", date(2020, 5, 5))
    assert (conversion.usd, conversion.rate, conversion.source) == (499.99, 1.0, "identity")
    assert to_usd(10.0, "XYZ", date(2020, 5, 5)) is None


def test_dates_outside_the_table_say_so():
    after = to_usd(1.0, "GBP", date(2027, 3, 1))
    assert after.rate_month == "2026-11" and "outside table" in after.source
    before = to_usd(1.0, "GBP", date(2010, 3, 1))
    assert before.rate_month == "2016-01" and "outside table" in before.source
