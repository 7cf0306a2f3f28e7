"""The range a single GPU's used price in USD can fall in, whatever the source or the currency it
was written in: one declaration for the import's refusal of a row (scrapers/listing_csv.py), the
conversion that holds a listing out of the prices (warehouse/listing_rows.py) and the integrity
check that fails on a stored price outside it (warehouse/checks/listing_prices_implausible.sql).

A converted price outside it says the rate or the amount is wrong (a rate of 0.000001 Canadian
dollars per euro made a $550,000,000 RTX 3080), not that the card is dear or cheap.
"""

from __future__ import annotations

# No single GPU sells used for more than this (an H100 is about a third of it): a higher price
# is a typo, a placeholder or a whole server, and one such row would move a median for weeks.
MAX_PRICE_USD = 100_000.0
# A cent or nothing: a placeholder or a typo, and it would pull a median down.
MIN_PRICE_USD = 1.0


def held_out_reason(amount: float, currency: str, usd: float, rate_source: str | None) -> str:
    """Why a listing's converted price is kept out of every price: what it converts to, and at what."""
    at = f" at {rate_source}" if rate_source else ""
    return (f"held out: {amount:,.2f} {currency} converts to ${usd:,.2f}{at}, outside "
            f"${MIN_PRICE_USD:,.0f} to ${MAX_PRICE_USD:,.0f}, a single GPU's plausible price")
