"""The enrich stage's rules for listings: each source's ``Listing`` records become the rows the
warehouse stores (``models/listing_row.py``), as one Arrow table.

Each listing is matched to one catalog model, its condition classified and its price converted to
USD at the rate of the day it was seen or sold; the record's other fields are carried as they are,
whatever fields its kind declares (a source's own subclass of ``Listing`` included).

The rows are built as Arrow columns, which the warehouse's load reads without a copy. Titles,
conditions, currencies and days repeat heavily (a listing is seen again every day, a search page
repeats the same card), so every rule runs once per distinct input and its result is spread over
the rows with an Arrow ``take``: the matcher once per distinct (title, subtitle, condition), the
condition rules once per distinct (condition, title when no condition is stated), the exchange rate
once per distinct (currency, day). Built one dict per listing, each rule run for every listing, the
same million records took 34 times as long to load and twice the memory (docs/benchmarks.md,
section 2).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gpuvalue.models.conditions import classify_condition
from gpuvalue.models.fx import DailyRates, to_usd
from gpuvalue.models.listing_row import ListingEnrichment, row_columns, row_schema
from gpuvalue.models.plausible_price import ANY_CARD, PriceRange, card_price_range
from gpuvalue.models.record_columns import Column
from gpuvalue.models.records import Listing
from gpuvalue.models.text_safety import ARROW_CONTROL, ARROW_ESCAPE_SEQUENCE, WHITESPACE_CONTROL

# Timestamps as the warehouse stores them, in UTC without a zone (Arrow converts an aware value to
# UTC, as the warehouse does).
_TIMESTAMP = pa.timestamp("us")
_TIMESTAMP_NAME = str(_TIMESTAMP)

# What sellers wrote never carries a terminal escape into the warehouse.
_THIRD_PARTY_TEXT = ("title", "subtitle", "condition", "url", "listing_id")


def _without_controls(column: pa.Array) -> pa.Array:
    """``clean_text`` over a column, in Arrow: only columns holding a control are rewritten."""
    if not pc.any(pc.match_substring_regex(column, ARROW_CONTROL)).as_py():
        return column
    column = pc.replace_substring_regex(column, ARROW_ESCAPE_SEQUENCE, "")
    column = pc.replace_substring_regex(column, WHITESPACE_CONTROL, " ")
    return pc.replace_substring_regex(column, ARROW_CONTROL, "")


def listing_rows(listings: Sequence[Listing], matcher: Any, condition_words: Mapping[str, str] | None = None,
                 rates: DailyRates | None = None) -> pa.Table:
    """Match, classify and convert listings into warehouse rows, as one Arrow table
    (``condition_words``: the source's own condition phrases; its junk phrases come with the matcher;
    ``rates``: the warehouse's daily rates, else the shipped monthly table alone)."""
    kinds = list(dict.fromkeys(map(type, listings)))
    if not kinds:
        return row_schema().empty_table()
    # Every field any record of the batch declares (one kind, almost always), in declaration order.
    fields: dict[str, Column] = {}
    for kind in kinds:
        fields.update({c.name: c for c in row_columns(kind)})
    schema = pa.schema([c.field() for c in fields.values()])
    # A pydantic record keeps its fields in its __dict__: each column is one C-level pass of dict
    # lookups (measured: a quarter less CPU than attribute access), converted and dropped at once.
    records = list(map(attrgetter("__dict__"), listings))
    take = itemgetter if len(kinds) == 1 else _get_or_none
    c: dict[str, pa.Array] = {}
    days: dict[str, pa.Array] = {}
    for name, col in fields.items():
        if name in _ENRICHED:
            continue
        if col.json:
            c[name] = _json(records, name)
        elif col.arrow == _TIMESTAMP_NAME:
            c[name], days[name] = _timestamps(records, take(name))
        else:
            c[name] = pa.array(list(map(take(name), records)), pa.type_for_alias(col.arrow))
    for name in _THIRD_PARTY_TEXT:
        c[name] = _without_controls(c[name])
    seen_at, seen_on = _timestamps(records, take("seen_at"))
    sold = c["sold"]
    ended = pa.array(list(map(take("ended"), records)), pa.bool_())

    title, title_of = _encode(c["title"])
    subtitle, subtitle_of = _encode(c["subtitle"])
    condition, condition_of = _encode(c["condition"])
    match_of, one = _combine(title_of, subtitle_of, condition_of)
    distinct = zip(title.take(title_of[one]).to_pylist(), subtitle.take(subtitle_of[one]).to_pylist(),
                   condition.take(condition_of[one]).to_pylist())
    results = [matcher.match(t, s, cond) for t, s, cond in distinct]
    model = pa.array([r.model for r in results], pa.string()).take(match_of)
    reason = pa.array([r.reason for r in results], pa.string()).take(match_of)

    # A stated condition decides alone; only without one do the title's words count.
    stated = np.array([bool(v is not None and v.strip()) for v in condition.to_pylist()])
    hint_of = np.where(stated[condition_of], -1, title_of)
    class_of, one = _combine(condition_of, hint_of)
    hints = [None if code < 0 else title[int(code)].as_py() for code in hint_of[one]]
    classes = [classify_condition(cond, hint or "", condition_words)
               for cond, hint in zip(condition.take(condition_of[one]).to_pylist(), hints)]
    condition_class = pa.array(classes, pa.string()).take(class_of)

    # The rate is the day's where the listing was sold, else seen (the stamp's own calendar day).
    total_usd, fx_source = _usd(c["price"], c["shipping"], c["currency"], pc.coalesce(days["sold_at"], seen_on), rates,
                                model, _price_ranges(matcher))
    status = pc.if_else(sold, "sold", pc.if_else(ended, "ended", "active"))
    c.update({"total_usd": total_usd, "fx_source": fx_source, "condition_class": condition_class,
              "first_seen": seen_at, "last_seen": seen_at, "status": status, "model": model,
              "match_reason": reason})
    return pa.table([c[f.name] for f in schema], schema=schema)


def matched_rows(rows: pa.Table) -> int:
    """How many of ``listing_rows``' rows name a model."""
    return pc.sum(pc.fill_null(pc.not_equal(rows.column("model"), ""), False)).as_py() or 0


# What the rules above derive: not read from the records.
_ENRICHED = frozenset(ListingEnrichment.model_fields)


def _get_or_none(name: str) -> Callable[[Mapping[str, Any]], Any]:
    """A field's value where the record declares it, else None (a batch of several record kinds)."""
    return lambda record: record.get(name)


def _json(records: Sequence[Mapping], name: str) -> pa.Array:
    """A bag of source-only fields as JSON text, None where it is empty."""
    return pa.array([json.dumps(e, sort_keys=True, allow_nan=False) if e else None
                     for e in map(_get_or_none(name), records)], pa.string())


def _encode(array: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """The array's distinct values (None among them) and, per row, the index of its value."""
    encoded = array.dictionary_encode(null_encoding="encode")
    return encoded.dictionary, encoded.indices.to_numpy().astype(np.int64)


def _combine(*codes: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """Per row, the index of its distinct combination of codes (each code >= -1), and one row
    holding each combination (any of its rows: they hold the same codes)."""
    key = codes[0]
    for more in codes[1:]:
        # Pairs of codes, numbered densely again so the next product stays far from overflowing.
        paired = pa.array(key * (int(more.max()) + 2) + (more + 1)).dictionary_encode()
        key = paired.indices.to_numpy().astype(np.int64)
    one = np.zeros(int(key.max()) + 1, np.int64)
    one[key] = np.arange(len(key))
    return pa.array(key), one


def _price_ranges(matcher) -> Callable[[str | None], PriceRange]:
    """Each matched model's plausible price (models/plausible_price.py), from the catalog entry the
    matcher holds; a listing with no model, or a matcher that knows no entries, gets the outer bounds."""
    card = getattr(matcher, "card", None)

    def price_range(model: str | None) -> PriceRange:
        entry = card(model) if card is not None and model is not None else None
        if entry is None:
            return ANY_CARD
        return card_price_range(entry.launch_price_usd, entry.memory_gb, entry.segment)

    return price_range


def _usd(price: pa.Array, shipping: pa.Array, currency: pa.Array, on: pa.Array,
         rates: DailyRates | None = None, model: pa.Array | None = None,
         price_range: Callable[[str | None], PriceRange] = lambda model: ANY_CARD) -> tuple[pa.Array, pa.Array]:
    """Price plus shipping in USD at the rate of the day ``on`` (date32), rounded to the cent,
    and where that rate came from; null where there is no price, no currency, no rate for it, or
    the result is not finite, and null, with the reason where the rate's source would be, where it
    falls outside the plausible price of the row's ``model`` (``price_range``, models/plausible_price.py)."""
    currencies, currency_of = _encode(currency)
    days, day_of = _encode(on)
    pair_of, one = _combine(currency_of, day_of)
    pairs = zip(currencies.take(currency_of[one]).to_pylist(), days.take(day_of[one]).to_pylist())
    rate = np.full(len(one) + 1, np.nan)  # the last: no rate
    sources: list[str | None] = [None] * (len(one) + 1)
    for i, (code, day) in enumerate(pairs):
        conv = (to_usd(1.0, code, day) if rates is None else rates.to_usd(1.0, code, day)) if code else None
        if conv is not None:  # to_usd's amount in USD is the amount times conv.rate
            rate[i], sources[i] = conv.rate, conv.source
    priced = price.is_valid().to_numpy(zero_copy_only=False)
    which = np.where(priced, pair_of.to_numpy(), len(one))
    p = price.to_numpy(zero_copy_only=False)
    s = shipping.fill_null(0.0).to_numpy(zero_copy_only=False)
    amount = p + np.where(s != 0, s, 0.0)  # as price + (shipping or 0.0): a -0.0 shipping adds 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        usd = amount * rate[which]
    finite = np.isfinite(usd)
    # Each distinct model's range, once, spread over its rows.
    models, model_of = _encode(pa.nulls(len(price), pa.string()) if model is None else model)
    ranges = [price_range(m) for m in models.to_pylist()]
    low = np.array([r.low for r in ranges])[model_of]
    high = np.array([r.high for r in ranges])[model_of]
    # A price converted outside its card's plausible range is no price (a wrong rate, amount or match):
    # held out of every price, its reason where the rate's source would be.
    # (Zero and below are no price either way: the price rules never count them.)
    held = finite & ((usd > high) | ((usd > 0) & (usd < low)))
    ok = finite & ~held
    total = pa.array(round_cents(np.where(ok, usd, 0.0)), pa.float64(), mask=~ok)
    source = pa.array(sources, pa.string()).take(pa.array(np.where(ok, which, len(one))))
    if held.any():
        reasons = source.to_pylist()
        codes = currency.to_pylist()
        names = models.to_pylist()
        for row in map(int, np.flatnonzero(held)):
            name = names[int(model_of[row])]
            reasons[row] = ranges[int(model_of[row])].held_out_reason(
                float(amount[row]), codes[row], float(usd[row]), sources[int(which[row])], name)
        source = pa.array(reasons, pa.string())
    return total, source


def _timestamps(records: list[dict], get: Callable[[Mapping[str, Any]], Any]) -> tuple[pa.Array, pa.Array]:
    """A datetime field (``get`` reads it) as the warehouse stores it (UTC, no zone) and each value's
    calendar day where it was stamped (``datetime.date()``, in its own zone), null where there is none.

    Each distinct object is converted once: the listings of one page share one capture time
    (pydantic keeps the object it is given), so a day's listings hold a handful of objects."""
    values = list(map(get, records))
    ids = list(map(id, values))
    by_id = dict(zip(ids, values))
    position = {object_id: i for i, object_id in enumerate(by_id)}
    rows = pa.array(list(map(position.__getitem__, ids)), pa.int64())
    distinct = list(by_id.values())
    days = [None if v is None else v.date() for v in distinct]
    return pa.array(distinct, _TIMESTAMP).take(rows), pa.array(days, pa.date32()).take(rows)


# Below this, a hundredfold value's rounding error is far under the margin round_cents checks.
_VECTOR_ROUND_LIMIT = 1e9


def round_cents(values: np.ndarray) -> np.ndarray:
    """``round(v, 2)`` of each finite value, exactly as Python rounds (the exact binary value,
    half to even), without a Python call per value.

    ``rint(v * 100) / 100`` gives the same float except where the product ``v * 100``, rounded to
    a float, lands on a half (the exact product may lie on either side of it, which ``rint``
    cannot see) or is large; values near a half, with a wide margin, go through ``round`` itself.
    Dividing the exact integer by 100 is correctly rounded, as is the conversion of Python's decimal
    result, so every other value agrees bit for bit."""
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # what overflows is redone below
        scaled = values * 100.0
        out = np.rint(scaled) / 100.0
        close = (np.abs(scaled - np.floor(scaled) - 0.5) < 1e-4) | ~(np.abs(values) < _VECTOR_ROUND_LIMIT)
    for i in np.flatnonzero(close):
        v = float(values[i])
        out[i] = round(v, 2) if math.isfinite(v) else v
    return out
