"""Convert listing prices to USD with the rate of the month the price was seen.

Used-market prices span ten years and several currencies; converting at today's rate
would move old prices with the exchange rate instead of the market. Monthly means are
fine-grained enough for a ranking that compares medians.

The table ``data/fx_usd_monthly.csv`` holds USD per unit of each currency, the monthly
mean of the European Central Bank's daily euro reference rates (cross rates through
the euro: USD per EUR divided by the currency per EUR, averaged over the month's
business days). Months after the last published rate repeat the last known month and
say so in the ``source`` column ("carried_forward from YYYY-MM").
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

FX_TABLE_PATH = Path(__file__).parent / "data" / "fx_usd_monthly.csv"


@dataclass(frozen=True)
class FxConversion:
    usd: float
    rate: float  # USD per unit of the source currency
    source: str
    rate_month: str  # "YYYY-MM" of the rate used


@dataclass(frozen=True)
class FxRate:
    month: str
    currency: str
    usd_per_unit: float
    source: str


def parse_fx_table(text: str) -> dict[tuple[str, str], FxRate]:
    """Rates keyed by (month, currency) from the shipped CSV's text."""
    rates: dict[tuple[str, str], FxRate] = {}
    for row in csv.DictReader(text.splitlines()):
        rate = FxRate(
            month=row["month"],
            currency=row["currency"].upper(),
            usd_per_unit=float(row["usd_per_unit"]),
            source=row["source"],
        )
        rates[(rate.month, rate.currency)] = rate
    return rates


@lru_cache(maxsize=1)
def fx_table() -> dict[tuple[str, str], FxRate]:
    return parse_fx_table(FX_TABLE_PATH.read_text(encoding="utf-8"))


def known_currencies() -> frozenset[str]:
    return frozenset(currency for _, currency in fx_table()) | {"USD"}


@lru_cache(maxsize=1)
def _month_range() -> tuple[str, str]:
    """The table's first and last month: every conversion asks, and the table never changes."""
    months = sorted({month for month, _ in fx_table()})
    return months[0], months[-1]


def to_usd(amount: float, currency: str, on: date) -> FxConversion | None:
    """``amount`` of ``currency`` in USD at the monthly rate for ``on``.

    None for a currency the table does not hold. Dates before the table's first month
    use the first month and dates after its last use the last month; the returned
    ``rate_month`` and ``source`` show which rate was used, so a caller can tell.
    """
    code = currency.strip().upper()
    month = f"{on.year:04d}-{on.month:02d}"
    if code == "USD":
        return FxConversion(usd=float(amount), rate=1.0, source="identity", rate_month=month)
    table = fx_table()
    first, last = _month_range()
    lookup_month = min(max(month, first), last)
    rate = table.get((lookup_month, code))
    if rate is None:
        return None
    source = rate.source
    if month != lookup_month:
        source = f"{source}; {month} outside table, used {lookup_month}"
    return FxConversion(
        usd=float(amount) * rate.usd_per_unit,
        rate=rate.usd_per_unit,
        source=source,
        rate_month=lookup_month,
    )
