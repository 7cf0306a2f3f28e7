"""Cloud GPU rental offers in the warehouse (schema v11): the load, and the reads the comparison needs.

Offers go to ``rental_offers`` by the date of their data, so a later capture adds a date and a re-load
of a date replaces that date's rows of the source (the disposition ``RentalOffer`` declares); ``rental_prices_daily`` is then rebuilt from all
stored offers. Offers come matched and, in another currency, converted at the rate of their own day
by the enrich stage (flows/enrich.py); offers whose prices cannot be real (``validate_prices``) are
dropped before the load and counted; offers whose GPU name settles no catalog model are kept with ``model`` NULL and counted, so a
matcher improvement can be judged against them later.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any

import duckdb

from gpuvalue.models.rent_vs_buy import Assumptions, compare

if TYPE_CHECKING:  # the offers' model (pydantic) is what a load needs; `gpuvalue rent` only reads
    from gpuvalue.models.rental import ProviderScore, RentalOffer
from gpuvalue.warehouse import sql_files

# A rental price within this many days of the newest one is comparable ('recent'); older ones rank
# after every recent one (migration 017, whose note on existing rows holds the same number).
RENT_COMPARABLE_DAYS = 90
DROPPED_SHOWN = 5  # reasons named in the warning; the rest are counted


def _naive_utc(value: datetime) -> datetime:
    return value.astimezone(timezone.utc).replace(tzinfo=None) if value.tzinfo is not None else value


def offer_rows(offers: Iterable[RentalOffer], loaded_at: datetime) -> list[dict[str, Any]]:
    """Offers as ``rental_offers`` rows, each with its ``offer_key``. Pure.

    An offer repeated verbatim (the same file read twice for a date) is stored once; two different
    offers with the same name (FSDL lists a cloud's configurations without instance names) are
    numbered in file order, so no row overwrites another."""
    from gpuvalue.models.rental import OfferLoad, offer_row_columns

    stamp = _naive_utc(loaded_at)
    load_fields = set(OfferLoad.model_fields)
    stored = [c for c in offer_row_columns() if c.name not in load_fields]
    seen: set[RentalOffer] = set()  # frozen models: equal fields, equal hash
    used: Counter[tuple[str, str, str, date]] = Counter()
    rows = []
    for offer in offers:
        if offer in seen:
            continue
        seen.add(offer)
        key = offer.instance_type or f"{offer.gpu_name} x{offer.gpu_count}"
        if offer.region:
            key += f" @{offer.region}"
        used[(offer.source, offer.provider, key, offer.as_of)] += 1
        n = used[(offer.source, offer.provider, key, offer.as_of)]
        fields = offer.__dict__
        row = {c.name: _stored(fields.get(c.name), c.json) for c in stored}
        row.update(OfferLoad(offer_key=key if n == 1 else f"{key} #{n}", loaded_at=stamp).__dict__)
        rows.append(row)
    return rows


def _stored(value: Any, is_json: bool) -> Any:
    """A field's value as its column holds it: a bag of source-only fields as JSON text, None when empty."""
    if is_json:
        return json.dumps(value, sort_keys=True, allow_nan=False) if value else None
    return value


def load_warning(unmatched: int, dropped: list[tuple[RentalOffer, str]]) -> str:
    """The one line a run summary shows for a rental load: offers kept unmatched, offers dropped and why."""
    text = f"{unmatched} offers with an unknown GPU name kept unmatched; "
    if not dropped:
        return text + "0 dropped"
    named = [f"{o.provider} {o.gpu_name} ({o.as_of}): {reason}" for o, reason in dropped[:DROPPED_SHOWN]]
    more = f"; and {len(dropped) - DROPPED_SHOWN} more" if len(dropped) > DROPPED_SHOWN else ""
    return text + f"{len(dropped)} dropped: " + "; ".join(named) + more


def load_rental_offers(con: duckdb.DuckDBPyConnection, offers: Iterable[RentalOffer], loaded_at: datetime, *,
                       source: str, score: ProviderScore | None = None,
                       notes: Iterable[str] = ()) -> tuple[int, str]:
    """Store one source's offers, matched and converted by the enrich stage (flows/enrich.py): (rows
    written, the warning line for the run summary, ``notes`` from the enrichment at its end).

    An offer whose prices cannot be real (``validate_prices``, a currency left unconverted among them)
    is dropped and counted. Each date the batch holds replaces that date's rows of ``source``; other
    dates stay (history). Then ``rental_prices_daily`` is rebuilt. Offers of another source are refused.
    ``score``: the source's declaration of its provider's own score, which its offers carry in
    ``extras`` (stored in ``provider_scores`` for `gpuvalue rent`). The caller owns the transaction."""
    offers = list(offers)
    others = sorted({o.source for o in offers} - {source})
    if others:
        raise ValueError(f"offers of {', '.join(others)} passed as {source}'s")
    from gpuvalue.models.rental import validate_prices

    kept, dropped = validate_prices(offers)
    unmatched = sum(1 for o in kept if o.model is None)
    rows = offer_rows(kept, loaded_at)
    # Every date the batch holds is replaced, even one whose offers were all dropped as impossible prices.
    days = sorted({o.as_of for o in offers})
    if days:
        import pyarrow as pa

        from gpuvalue.models.record_columns import arrow_schema
        from gpuvalue.models.rental import RentalOffer, offer_row_columns
        from gpuvalue.warehouse.record_tables import replace

        incoming = pa.Table.from_pylist(rows, schema=arrow_schema(offer_row_columns())) if rows else None
        replace(con, RentalOffer.stored_as, incoming, source=source, partitions=days)
    if score is not None:
        sql_files.run(con, "provider_score_declare", {
            "provider": score.provider, "extra": score.extra, "field": score.field, "header": score.header,
            "meaning": score.meaning, "caveat": score.caveat, "source": source})
    rebuild_rental_prices(con)
    return len(rows), "; ".join([load_warning(unmatched, dropped), *notes])


def rebuild_rental_prices(con: duckdb.DuckDBPyConnection) -> int:
    sql_files.build(con, "rental_prices_daily", {"comparable_days": RENT_COMPARABLE_DAYS})
    return sql_files.scalar(con, "rental_prices_daily_count")


# --- reads ------------------------------------------------------------------------------------


def rent_ranking_rows(con: duckdb.DuckDBPyConnection, *, spot: bool = False, provider: str | None = None,
                      min_memory: float | None = None, top: int | None = None, min_reliability: float | None = None,
                      verified: bool = False) -> list[dict[str, Any]]:
    """The rental ranking of the newest rental date (``rent_ranking_latest``), best first.

    ``spot`` orders by the spot ranking and keeps models with a spot price; ``provider`` ranks that
    provider's prices alone (its cheapest offer per model); ``min_memory`` in GB. ``min_reliability``
    and ``verified`` rank only offers whose host states a reliability at least that high, and is
    verified (a provider that states neither is left out). With any of those terms the ranking is the
    same rule over the offers that meet them (``rent_ranked``, ``rent_ranking_terms.sql``). Each row
    carries, for every provider score a rental source declared (``provider_scores``), that provider's own
    score for the card (None where it scores none) under the JSON names the declaration gives."""
    params: dict[str, Any] = {"spot": spot, "min_memory": min_memory, "top": top}
    if provider is not None or min_reliability is not None or verified:
        name = "rent_ranking_terms"
        params.update(provider=None if provider is None else provider.casefold(), comparable_days=RENT_COMPARABLE_DAYS,
                      min_reliability=min_reliability, verified=verified)
    else:
        name = "rent_ranking"
    rows = sql_files.dicts(con, name, params)
    declared = provider_scores(con) if rows else []
    scores = [(d, vendor_scores(con, d)) for d in declared]
    ranked = sql_files.scalar(con, "ranking_latest_day") if rows else None
    for row in rows:
        ages_from_ranking_day(row, ranked)
        for d, by_model in scores:
            score = by_model.get(row["model"])
            value, relative, as_of = score_fields(d)
            row[value] = None if score is None else score["score"]
            row[relative] = None if score is None else score["score_relative"]
            row[as_of] = None if score is None else score["score_as_of"]
    return rows


def ages_from_ranking_day(row: dict[str, Any], ranked: date | None) -> None:
    """A rental price's age (``price_age_days``, ``spot_age_days``) counted from the used ranking's day,
    the day every other price in an answer is aged from, and named (``ages_as_of``); the rental date
    (the newest rental price's own) would call a price of that date 0 days old however long ago it was.
    Without a ranking, or with one older than the rental date, the rental date is the day counted from:
    no price is younger than 0 days."""
    rental_day = row.get("as_of")
    day = max((d for d in (ranked, rental_day) if isinstance(d, date)), default=None)
    row["ages_as_of"] = day
    if not isinstance(day, date):
        return
    for dated, age in (("price_as_of", "price_age_days"), ("spot_as_of", "spot_age_days")):
        if isinstance(row.get(dated), date):
            row[age] = (day - row[dated]).days


def provider_scores(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The provider scores the rental sources declared (``provider_scores``: provider, extra, field,
    header, meaning, caveat, source), in the order their columns are shown."""
    return sql_files.dicts(con, "provider_scores_declared")


def score_fields(declared: dict[str, Any]) -> tuple[str, str, str]:
    """A declared score's JSON names in a rental row: the score, its ratio to the reference card's, its date."""
    field = declared["field"]
    return field, f"{field}_relative", f"{field}_as_of"


def vendor_scores(con: duckdb.DuckDBPyConnection, declared: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per model, a provider's own score per GPU (the median of its newest offers that score it), relative
    to its score for the reference card too: shown beside gpuvalue's figure, never used as one."""
    return {r["model"]: r for r in sql_files.dicts(con, "rent_vendor_scores",
                                                   {"provider": declared["provider"], "extra": declared["extra"]})}


def host_terms_providers(con: duckdb.DuckDBPyConnection) -> tuple[list[str], list[str]]:
    """(providers whose offers state host reliability and verification, providers whose offers state neither)."""
    stating: list[str] = []
    silent: list[str] = []
    for provider, reliability, verification in sql_files.rows(con, "rental_host_providers"):
        (stating if reliability or verification else silent).append(provider)
    return stating, silent


def rental_providers(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [p for (p,) in sql_files.rows(con, "rental_providers")]


def rent_vs_buy_inputs(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    return sql_files.dicts(con, "rent_vs_buy")


def rent_vs_buy_rows(con: duckdb.DuckDBPyConnection, assumptions: Assumptions) -> list[dict[str, Any]]:
    """Per rental card: the cost of one reference-card hour rented and (with a used price) bought, and
    the hours a week from which buying is the cheaper, under ``assumptions`` (stated in every row)."""
    return [compare(row, assumptions) for row in rent_vs_buy_inputs(con)]
