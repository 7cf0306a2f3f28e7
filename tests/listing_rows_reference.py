"""The listing rows as the flow built them before they became Arrow columns: one dict per listing,
every title matched, every price converted, one at a time. The reference the column-wise
``models.listing_enrichment.listing_rows`` is held to (tests/warehouse/test_listing_rows.py), and the
"before" of the load benchmark (bench/bench_load.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from gpuvalue.models.conditions import classify_condition
from gpuvalue.models.fx import to_usd
from gpuvalue.models.plausible_price import ANY_CARD, card_price_range
from gpuvalue.models.records import Listing
from gpuvalue.models.text_safety import clean_text
from gpuvalue.warehouse.load import _naive_utc


def listing_rows_one_by_one(listings: Sequence[Listing], matcher,
                            condition_words: Mapping[str, str] | None = None) -> list[dict]:
    rows = []
    for li in listings:
        # What sellers wrote loses its terminal escapes and controls first (models/text_safety.py).
        li = li.model_copy(update={name: clean_text(value) for name in ("title", "subtitle", "condition", "url",
                                                                        "listing_id")
                                   if isinstance(value := getattr(li, name), str)})
        result = matcher.match(li.title, li.subtitle, li.condition)
        total_usd = fx_source = None
        if li.price is not None and li.currency:
            on = (li.sold_at or li.seen_at).date()
            conv = to_usd(li.price + (li.shipping or 0.0), li.currency, on)
            if conv is not None and math.isfinite(conv.usd):
                amount = li.price + (li.shipping or 0.0)
                entry = matcher.card(result.model) if result.model else None
                bounds = ANY_CARD if entry is None else card_price_range(entry.launch_price_usd, entry.memory_gb, entry.segment)
                if conv.usd > bounds.high or 0 < conv.usd < bounds.low:  # held out, with its reason
                    fx_source = bounds.held_out_reason(amount, li.currency, conv.usd, conv.source, result.model)
                else:
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
