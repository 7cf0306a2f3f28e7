"""Convert listing prices to USD with the rate of the day (or, offline, the month) the price was seen.

Used-market prices span ten years and several currencies; converting at today's rate
would move old prices with the exchange rate instead of the market. Monthly means are
fine-grained enough for a ranking that compares medians.

The table ``data/fx_usd_monthly.csv`` holds USD per unit of each currency, the monthly
mean of the European Central Bank's daily euro reference rates (cross rates through
the euro: USD per EUR divided by the currency per EUR, averaged over the month's
business days). Months after the last published rate repeat the last known month and
say so in the ``source`` column ("carried_forward from YYYY-MM").

That table is the offline seed. The ECB's daily files (the ``ecb`` source) fill the warehouse's
``fx_rates`` table by day; ``DailyRates`` converts at the rate of a price's own day from them, the
nearest earlier published day where the day has none (weekends, holidays), and falls back to the
monthly table only where no daily rate covers the day.
"""

from __future__ import annotations

import csv
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
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
    rate_date: date | None = None  # the published day of a daily rate; None for a monthly mean


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


# ---------------------------------------------------------------------------- rates by day

# A stored daily rate older than this gives way to a nearer month of the shipped table: the ECB publishes
# every business day, so a longer gap means the daily rates stop (a warehouse whose last fetch was months
# ago), and a monthly mean nearer the price's day is the better figure.
DAILY_GAP_DAYS = 7



@dataclass(frozen=True)
class DailyRate:
    """One currency's rate on one published day: USD per unit, as the ``fx_rates`` table stores it."""

    rate_date: date
    currency: str
    usd_per_unit: float
    source: str


def ecb_cross_rates(day: date, per_euro: dict[str, float], source: str) -> list[DailyRate]:
    """The ECB's euro reference rates of one day (units of each currency per euro) as USD per unit.

    The ECB quotes every currency against the euro, so USD per unit of X is (USD per EUR) / (X per EUR),
    and USD per EUR is the USD quote itself. A day without a USD quote gives nothing: no cross rate
    can be formed from it."""
    usd = per_euro.get("USD")
    if usd is None or not usd > 0:
        return []
    rates = [DailyRate(day, "EUR", usd, source)]
    for code, rate in sorted(per_euro.items()):
        if code in ("USD", "EUR") or not rate > 0:
            continue
        rates.append(DailyRate(day, code, usd / rate, source))
    return rates


# ---------------------------------------------------------------------------- plausible rates

# A rate outside these bounds is no currency's: the weakest the ECB ever quoted (the Turkish lira
# before its 2005 redenomination) was worth about 6e-7 USD, the strongest (the pound) under 3 USD.
# A rate of 1e-320 per euro (USD per unit: infinite) or 0.000001 Canadian dollars per euro is refused.
MIN_USD_PER_UNIT = 1e-7
MAX_USD_PER_UNIT = 100.0
# A rate moves less than this ratio (either way) from the previous published day; against a reference
# more than FAR_DAYS away (a gap in the stored days, the shipped monthly table) a wider one holds.
MAX_DAY_RATIO = 1.5
MAX_FAR_RATIO = 3.0
FAR_DAYS = 31
# Reference days: the euro's first reference rates, and at most this many days past the fetch.
EARLIEST_RATE_DAY = date(1999, 1, 4)
FUTURE_DAYS = 1


def rate_day_problem(day: date, fetched_on: date) -> str | None:
    """Why a reference-rate day cannot be one, or None: before the euro's first rates, or in the future
    (past the day it was fetched, one day of time zones allowed)."""
    if day < EARLIEST_RATE_DAY:
        return f"{day} is before the euro's first reference rates ({EARLIEST_RATE_DAY})"
    if (day - fetched_on).days > FUTURE_DAYS:
        return f"{day} is in the future (fetched on {fetched_on})"
    return None


def plausible_rates(rates: Iterable[DailyRate], reference: Callable[[str, date], tuple[date, float] | None]
                    ) -> tuple[list[DailyRate], list[str]]:
    """The rates to store, and one line per rate refused: outside the bounds of any currency, or a jump
    beyond ``MAX_DAY_RATIO`` from the previous plausible rate (the one before it in ``rates``, else
    ``reference(currency, day)``: the stored day before it, or the shipped monthly table). A refused
    day stores nothing, so it keeps its last plausible rate."""
    kept: list[DailyRate] = []
    refused: list[str] = []
    last: dict[str, tuple[date, float]] = {}
    for rate in sorted(rates, key=lambda r: (r.currency, r.rate_date)):
        code, day, usd = rate.currency.upper(), rate.rate_date, rate.usd_per_unit
        if not (MIN_USD_PER_UNIT <= usd <= MAX_USD_PER_UNIT):  # NaN and infinities fail both
            refused.append(f"{code} on {day}: {usd:.6g} USD per unit is no currency's rate "
                           f"({MIN_USD_PER_UNIT:g} to {MAX_USD_PER_UNIT:g}); refused, the day keeps its last plausible rate")
            continue
        before = last.get(code) or reference(code, day)
        if before is not None:
            ref_day, ref_usd = before
            ratio = max(usd / ref_usd, ref_usd / usd)
            limit = MAX_DAY_RATIO if abs((day - ref_day).days) <= FAR_DAYS else MAX_FAR_RATIO
            if ratio > limit:
                refused.append(f"{code} on {day}: {usd:.6g} USD per unit is {ratio:,.3g}x the rate of {ref_day} "
                               f"({ref_usd:.6g}), beyond the {limit:g}x a rate may move; refused, the day keeps "
                               "its last plausible rate")
                continue
        last[code] = (day, usd)
        kept.append(rate)
    return kept, refused


def monthly_reference(code: str, day: date) -> tuple[date, float] | None:
    """The shipped monthly table's rate for ``day`` (dated the middle of its month): the reference
    of a currency's first stored day."""
    conv = to_usd(1.0, code, day)
    middle = _seed_month_middle(code, day)
    if conv is None or middle is None or conv.rate <= 0:
        return None
    return middle, conv.rate


class DailyRates:
    """Stored daily rates, looked up by currency and day: the rate of the nearest published day on or
    before it. Pure: built from rows a caller read.

    Before the first stored day of a currency, or where the stored rates stop more than
    ``DAILY_GAP_DAYS`` before ``on`` and the shipped monthly table holds a month nearer to it (its
    mean counted at the month's middle), the monthly table (``to_usd``) answers, and says so in the
    conversion's ``source``. A rate's ``source`` is how the conversion names it ("<source> of <day>"):
    the warehouse hands each row with its source's label (``warehouse/fx.py``)."""

    def __init__(self, rates: Iterable[DailyRate | tuple[date, str, float, str]]) -> None:
        by_currency: dict[str, list[tuple[date, float, str]]] = {}
        for r in rates:  # (rate_date, currency, usd_per_unit, source), as DailyRate or as a table row
            day, currency, usd, source = (r.rate_date, r.currency, r.usd_per_unit, r.source) \
                if isinstance(r, DailyRate) else r
            by_currency.setdefault(currency.upper(), []).append((day, usd, source))
        self._days: dict[str, list[date]] = {}
        self._rates: dict[str, list[tuple[float, str]]] = {}
        for code, items in by_currency.items():
            items.sort()
            self._days[code] = [d for d, _, _ in items]
            self._rates[code] = [(u, s) for _, u, s in items]

    def __len__(self) -> int:
        return sum(len(days) for days in self._days.values())

    def currencies(self) -> frozenset[str]:
        return frozenset(self._days)

    def previous(self, currency: str, on: date) -> tuple[date, float] | None:
        """The stored day before ``on`` and its rate (USD per unit), or None."""
        code = currency.strip().upper()
        days = self._days.get(code)
        i = bisect_left(days, on) - 1 if days else -1
        return None if i < 0 else (days[i], self._rates[code][i][0])  # type: ignore[index]

    def to_usd(self, amount: float, currency: str, on: date) -> FxConversion | None:
        """``amount`` of ``currency`` in USD at the rate of ``on``'s nearest published day (see the class)."""
        code = currency.strip().upper()
        if code == "USD":
            return FxConversion(usd=float(amount), rate=1.0, source="identity", rate_month=f"{on:%Y-%m}",
                                rate_date=on)
        days = self._days.get(code)
        i = bisect_right(days, on) - 1 if days else -1
        if i < 0:
            return _seed(amount, code, on)
        day = days[i]  # type: ignore[index]
        if (on - day).days > DAILY_GAP_DAYS:
            seeded = _seed_month_middle(code, on)
            if seeded is not None and day < seeded <= on:
                return _seed(amount, code, on)
        rate, source = self._rates[code][i]
        return FxConversion(usd=float(amount) * rate, rate=rate, source=f"{source} of {day.isoformat()}",
                            rate_month=f"{day:%Y-%m}", rate_date=day)


def _seed_month_middle(code: str, on: date) -> date | None:
    """The middle of the month whose mean the monthly table would use for ``on`` (a carried-forward
    row stands for the month it repeats), or None without one."""
    conv = to_usd(1.0, code, on)
    if conv is None:
        return None
    month = conv.rate_month
    if "carried_forward from " in conv.source:
        month = conv.source.split("carried_forward from ", 1)[1][:7]
    return date(int(month[:4]), int(month[5:7]), 15)


def _seed(amount: float, code: str, on: date) -> FxConversion | None:
    conv = to_usd(amount, code, on)
    if conv is None:
        return None
    return FxConversion(usd=conv.usd, rate=conv.rate, source=f"{conv.source} (monthly table)",
                        rate_month=conv.rate_month, rate_date=None)
