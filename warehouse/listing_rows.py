"""Parsed listings as ``listings`` rows: the warehouse row's shape lives beside its schema.

Each listing is matched to one catalog model, its condition classified and its price converted to
USD at the rate of the day it was seen or sold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from gpuvalue.models.records import Listing
from gpuvalue.warehouse.load import _naive_utc


def listing_rows(listings: Sequence[Listing], matcher, condition_words: Mapping[str, str] | None = None) -> list[dict]:
    """Match, classify and convert each listing into a warehouse row (``condition_words``: the
    source's own condition phrases; its junk phrases come with the matcher)."""
    from gpuvalue.models.conditions import classify_condition
    from gpuvalue.models.fx import to_usd

    rows = []
    for li in listings:
        result = matcher.match(li.title, li.subtitle, li.condition)
        total_usd = fx_source = None
        if li.price is not None and li.currency:
            on = (li.sold_at or li.seen_at).date()
            conv = to_usd(li.price + (li.shipping or 0.0), li.currency, on)
            if conv is not None and math.isfinite(conv.usd):
                total_usd, fx_source = round(conv.usd, 2), conv.source
        seen = _naive_utc(li.seen_at)
        rows.append(
            {
                "source": li.source,
                "listing_id": li.listing_id,
                "title": li.title,
                "subtitle": li.subtitle,
                "price": li.price,
                "shipping": li.shipping,
                "currency": li.currency,
                "total_usd": total_usd,
                "fx_source": fx_source,
                "condition": li.condition,
                "condition_class": classify_condition(li.condition, li.title, condition_words),
                "buying_option": li.buying_option,
                "bid_count": li.bid_count,
                "quantity": li.quantity,
                "sold": li.sold,
                "sold_at": _naive_utc(li.sold_at),
                "first_seen": seen,
                "last_seen": seen,
                "status": "sold" if li.sold else ("ended" if li.ended else "active"),
                "url": li.url,
                "marketplace": li.marketplace,
                "model": result.model,
                "match_reason": result.reason,
            }
        )
    return rows
