"""What `gpuvalue recommend` (and the buyer's page) reads beside the ranking: each ranked card's build
facts, the measured multi-GPU scaling and its class medians, new-card prices and the unpriced covered cards."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

import duckdb

from gpuvalue.models.multi_gpu import DATA_PARALLEL_SOURCES, DEFAULT_MULTI_GPU_EFFICIENCY, ScalingFacts, class_scaling
from gpuvalue.warehouse import sql_files
from gpuvalue.warehouse.queries import card_build_facts, ranking_rows, scaling_efficiency, scaling_spread


def candidate_rows(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """The latest ranking, every row, each with its catalog ``slot_width`` and ``compute_capability``:
    what the candidate setups are built from."""
    rows = ranking_rows(con, top=None, desktop_only=False)
    facts = card_build_facts(con, [r["model"] for r in rows])
    for row in rows:
        known = facts.get(row["model"], {})
        row["slot_width"] = known.get("slot_width")
        row["compute_capability"] = known.get("compute_capability")
    return rows


def scaling_facts(con: duckdb.DuckDBPyConnection, precision: str | None,
                  assumed: float = DEFAULT_MULTI_GPU_EFFICIENCY) -> ScalingFacts:
    """The measured multi-GPU scaling of ``precision``, its spread over the sources, and each class's median
    and quartiles of it."""
    measured = scaling_efficiency(con, precision, exclude_sources=DATA_PARALLEL_SOURCES)
    segments = {m: f.get("segment") for m, f in card_build_facts(con, list(measured)).items()}
    return ScalingFacts(measured=measured, assumed_efficiency=assumed, precision=precision,
                        classes=class_scaling(measured, segments),
                        spread=scaling_spread(con, precision, exclude_sources=DATA_PARALLEL_SOURCES))


def new_card_prices(con: duckdb.DuckDBPyConnection) -> dict[str, dict]:
    """Model -> its new-card price: the sold one where both exist (what buyers paid), else the asking one."""
    prices: dict[str, dict] = {}
    for row in sql_files.dicts(con, "new_card_prices_by_model"):
        prices.setdefault(row["model"], row)
    return prices


def unpriced_catalog(con: duckdb.DuckDBPyConnection, models: Iterable[str], *, as_of: date, precision: str,
                     reference: str) -> list[dict]:
    """The catalog rows of ``models`` that the ranking of ``as_of`` does not hold, with their speed."""
    return sql_files.dicts(con, "recommend_unpriced", {"models": sorted(set(models)), "as_of": as_of,
                                                       "precision": precision, "reference": reference})
