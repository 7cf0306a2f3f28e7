"""Read-side queries the CLI and exports share."""

from __future__ import annotations

from datetime import date

import duckdb

from gpuvalue.warehouse import sql_files


def ranking_rows(
    con: duckdb.DuckDBPyConnection,
    *,
    as_of: date | None = None,
    top: int | None = 20,
    min_memory: float | None = None,
    max_price: float | None = None,
    vendor: str | None = None,
    segment: str | None = None,
    supported_only: bool = False,
    desktop_only: bool = True,
    view=None,
) -> list[dict]:
    """One day's ranking with the user's filters, best rank first (``top`` None: every row).

    With ``view`` (a ``models.buyer_view.BuyerView``) only the rows it shows are returned, each with
    ``rank_shown``, its position among them; ``rank`` stays the card's place in the full ranking."""
    rows = sql_files.dicts(
        con,
        "ranking_filtered",
        {
            "as_of": as_of,
            "min_memory": min_memory,
            "max_price": max_price,
            "vendor": vendor,
            "segment": segment,
            "supported_only": supported_only,
            "desktop_only": desktop_only and view is None,
            "top": top if top is not None and view is None else None,
        },
    )
    if view is not None:
        from gpuvalue.models.buyer_view import shown_rows

        rows = shown_rows(rows, view)
        if top is not None:
            rows = rows[:top]
    return rows


def catalog_entries(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """(model, vendor, segment, memory_gb, release_date, launch_price_usd) per catalog card."""
    return sql_files.rows(con, "catalog_entries")


def coverage_catalog(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Every catalog model with the columns the coverage rule reads."""
    return sql_files.dicts(con, "coverage_catalog")


def catalog_model_names(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {m for (m,) in sql_files.rows(con, "catalog_model_names")}


def catalog_features(con: duckdb.DuckDBPyConnection) -> dict[str, dict]:
    return {r["model"]: r for r in sql_files.dicts(con, "catalog_features")}


def measured_perf_for_fit(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return sql_files.rows(con, "measured_perf_for_fit")


def perf_workload_ratios(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return sql_files.rows(con, "perf_workload_ratios")


def ranked_days(con: duckdb.DuckDBPyConnection) -> list[date]:
    return [d for (d,) in sql_files.rows(con, "ranked_days")]


def ranking_top(con: duckdb.DuckDBPyConnection, as_of: date, limit: int) -> list[dict]:
    return sql_files.dicts(con, "ranking_top", {"as_of": as_of, "limit": limit})


def delete_source_rows(con: duckdb.DuckDBPyConnection, kind: str, source: str) -> None:
    """A spec or listing source's rows, before reparse rebuilds them from the raw archive."""
    name = {"spec": "delete_spec_rows", "listing": "delete_listing_rows"}[kind]
    sql_files.run(con, name, {"source": source})


def listings_to_rematch(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return sql_files.rows(con, "listings_to_rematch")


def apply_rematch(con: duckdb.DuckDBPyConnection, rematched) -> None:
    """``rematched``: an Arrow table (source, listing_id, model, match_reason)."""
    sql_files.run_on_batch(con, "rematched", rematched, "apply_rematch")


def upsert_source_catalog(con: duckdb.DuckDBPyConnection, rows: list[dict]) -> None:
    (stmt,) = sql_files.statements("upsert_source_catalog")
    for r in rows:
        con.execute(stmt, {"label": None, "statistic": None, **r})  # both optional: a source may declare neither


def source_catalog(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, str, str]]:
    """name -> (export kind, attribution, licence), as the last run described its sources."""
    return {n: (k, a, lic) for n, k, a, lic in sql_files.rows(con, "source_catalog")}


def gpu_rows(con: duckdb.DuckDBPyConnection, *, query: str | None = None, model: str | None = None) -> list[dict]:
    return sql_files.dicts(con, "gpu_rows", {"query": query, "model": model})


def perf_relative(con: duckdb.DuckDBPyConnection, *, precision: str, reference: str, estimate: bool = False,
                  query: str | None = None, model: str | None = None, everything: bool = False) -> list[dict]:
    """`gpuvalue perf`'s rows (see perf_relative.sql for the default filter)."""
    return sql_files.dicts(con, "perf_relative", {"p": precision, "ref": reference, "estimate": estimate,
                                                  "query": query, "model": model, "everything": everything})


def perf_reference_present(con: duckdb.DuckDBPyConnection, *, precision: str, reference: str,
                           estimate: bool = False) -> tuple[bool, bool]:
    """(the reference card has a figure, the precision has any figure)."""
    ((has_reference, has_any),) = sql_files.rows(con, "perf_reference_present",
                                                 {"p": precision, "ref": reference, "estimate": estimate})
    return bool(has_reference), bool(has_any)


def scaling_efficiency(con: duckdb.DuckDBPyConnection, precision: str | None = None,
                       exclude_sources: tuple[str, ...] = ()) -> dict[str, dict[int, float]]:
    """Measured multi-GPU scaling per card: GPU count -> median efficiency (of ``precision``, or of
    all), over the sources but ``exclude_sources``."""
    scaling: dict[str, dict[int, float]] = {}
    params = {"precision": precision, "exclude": list(exclude_sources)}
    for model, n, eff, _sources in sql_files.rows(con, "scaling_efficiency", params):
        scaling.setdefault(model, {})[int(n)] = float(eff)
    return scaling


def scaling_spread(con: duckdb.DuckDBPyConnection, precision: str | None = None,
                   exclude_sources: tuple[str, ...] = ()) -> dict[str, dict[int, tuple[float, float]]]:
    """The lowest and highest measured per-card efficiency, per card and GPU count (``scaling_efficiency``'s rows)."""
    spread: dict[str, dict[int, tuple[float, float]]] = {}
    params = {"precision": precision, "exclude": list(exclude_sources)}
    for model, n, low, high in sql_files.rows(con, "scaling_spread", params):
        spread.setdefault(model, {})[int(n)] = (float(low), float(high))
    return spread


def perf_card_sources(con: duckdb.DuckDBPyConnection, model: str, precision: str, reference: str) -> list[dict]:
    """Every source's figure of one card relative to ``reference``, the ranked one first (`gpuvalue perf MODEL`)."""
    return sql_files.dicts(con, "perf_card_sources", {"model": model, "precision": precision, "reference": reference})


def perf_card_harness_runs(con: duckdb.DuckDBPyConnection, model: str, precision: str) -> list[dict]:
    """The harness runs of one card that give it no figure, with why (none in a warehouse from
    before harness figures were stored)."""
    try:
        return sql_files.dicts(con, "perf_card_harness_runs", {"model": model, "precision": precision})
    except duckdb.CatalogException:
        return []


def listings_stored(con: duckdb.DuckDBPyConnection, source: str) -> int:
    """How many listings ``source`` has in the warehouse."""
    return int(sql_files.scalar(con, "listings_stored_count", {"source": source}) or 0)


def listings_by_condition(con: duckdb.DuckDBPyConnection, source: str) -> dict[str, int]:
    """Of ``source``'s listings: how many are matched, count toward used prices, have no condition."""
    return sql_files.dicts(con, "listings_condition_counts", {"source": source})[0]


def listings_imported_elsewhere(con: duckdb.DuckDBPyConnection, source: str, listing_ids: list[str]) -> dict[str, str]:
    """Which of ``listing_ids`` another import than ``source`` already holds, and which one."""
    rows = sql_files.rows(con, "listings_imported_elsewhere", {"source": source, "listing_ids": list(listing_ids)})
    return {listing_id: other for listing_id, other in rows}


def card_build_facts(con: duckdb.DuckDBPyConnection, models: list[str]) -> dict[str, dict]:
    """Model -> its catalog ``segment``, ``slot_width`` and ``compute_capability`` (recommend's builds)."""
    return {row["model"]: row for row in sql_files.dicts(con, "card_build_facts", {"models": sorted(set(models))})}
