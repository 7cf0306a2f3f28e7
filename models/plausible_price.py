"""The range a card's price in USD can fall in, whatever the source or the currency it was written
in: one rule for the conversion that holds a listing out of the prices (models/listing_enrichment.py),
the import's refusal of a row before it is matched (scrapers/listing_csv.py, the outer bounds
alone) and the integrity check that fails on a stored price outside it
(warehouse/checks/listing_prices_implausible.sql, the same rule in SQL).

A converted price outside its card's range says the rate, the amount or the match is wrong (a rate
of 0.000001 Canadian dollars per euro made a $550,000,000 RTX 3080; a box or a backplate sold for
$4 under an RTX 4090's name), not that the card is dear or cheap: the range is wide on purpose.
Any price a source states for a card (a listing, a market report) can be held to it through
``card_price_range``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# The outer bounds, for every card: no single GPU sells for more than this (an H100 is about a
# third of it): a higher price is a typo, a placeholder or a whole server; a cent or nothing is a
# placeholder or a typo. A price not yet matched to a card is held to these alone.
MAX_PRICE_USD = 100_000.0
MIN_PRICE_USD = 1.0

# Around a known launch price (the maker's list price in USD): a used card of ten years sells for a
# tenth of it or more (a GTX 1080 Ti for about a fifth, a GTX 960 for a quarter), and a new card in a
# shortage for a few times it (an RTX 5090 at 2.4 times its list price in 2026). Below a fiftieth of
# it or above five times it, the price is not that card's. A server or workstation card's list price
# carries an enterprise margin and falls further (a $5,000 Tesla K80 sells for $30, a Quadro K6000
# for $100): its floor is a two-hundredth.
LAUNCH_LOW_SHARE = 0.02
PRO_LAUNCH_LOW_SHARE = 0.005
PRO_SEGMENTS = frozenset({"datacenter", "workstation"})
LAUNCH_HIGH_MULTIPLE = 5.0

# Without a launch price, the card's memory bounds its price: (memory below GB, low USD, high USD).
# The lows hold out a box, a bracket or a typo under a big card's name (a 24 GB card for $4); the
# highs sit far over the dearest card of the class (a 16 GB V100 listed at $10,000 new).
MEMORY_BOUNDS: tuple[tuple[float, float, float], ...] = (
    (8.0, 1.0, 5_000.0),
    (12.0, 5.0, 8_000.0),
    (16.5, 10.0, 15_000.0),
    (24.5, 15.0, 25_000.0),
    (math.inf, 20.0, MAX_PRICE_USD),
)


@dataclass(frozen=True)
class PriceRange:
    """The USD prices a card can plausibly sell for, and the basis of the bounds, for a reason."""

    low: float
    high: float
    basis: str  # "2% to 5x its $1,599 launch price", "a 24 GB card with no launch price", or none

    def holds(self, usd: float) -> bool:
        return self.low <= usd <= self.high

    def held_out_reason(self, amount: float, currency: str, usd: float, rate_source: str | None,
                        model: str | None = None) -> str:
        """Why a converted price is kept out of every price: what it converts to, at what, and the range."""
        at = f" at {rate_source}" if rate_source else ""
        whose = f"{model}'s plausible price" if model else "a single GPU's plausible price"
        basis = f" ({self.basis})" if self.basis else ""
        return (f"held out: {amount:,.2f} {currency} converts to ${usd:,.2f}{at}, outside "
                f"${self.low:,.2f} to ${self.high:,.2f}, {whose}{basis}")


ANY_CARD = PriceRange(MIN_PRICE_USD, MAX_PRICE_USD, "")


def card_price_range(launch_price_usd: float | None, memory_gb: float | None,
                     segment: str | None = None) -> PriceRange:
    """A card's plausible price: around its launch price where that is known and itself plausible
    (a lower floor for a datacenter or workstation card), else by its memory, else the outer bounds;
    always within the outer bounds."""
    if launch_price_usd is not None and MIN_PRICE_USD <= launch_price_usd <= MAX_PRICE_USD:
        share = PRO_LAUNCH_LOW_SHARE if segment in PRO_SEGMENTS else LAUNCH_LOW_SHARE
        return PriceRange(max(MIN_PRICE_USD, share * launch_price_usd),
                          min(MAX_PRICE_USD, LAUNCH_HIGH_MULTIPLE * launch_price_usd),
                          f"{share * 100:g}% to {LAUNCH_HIGH_MULTIPLE:g}x its ${launch_price_usd:,.0f} launch price")
    if memory_gb is not None and math.isfinite(memory_gb) and memory_gb > 0:
        for below, low, high in MEMORY_BOUNDS:
            if memory_gb < below:
                return PriceRange(low, high, f"a {memory_gb:g} GB card with no launch price")
    return ANY_CARD


def held_out_reason(amount: float, currency: str, usd: float, rate_source: str | None) -> str:
    """Why a price not matched to a card is kept out: outside the outer bounds."""
    return ANY_CARD.held_out_reason(amount, currency, usd, rate_source)
