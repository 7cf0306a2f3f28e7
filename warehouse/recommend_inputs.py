"""What `gpuvalue recommend` reads beside the ranking: new-card prices and the unpriced covered cards."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

import duckdb

from gpuvalue.warehouse import sql_files


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
