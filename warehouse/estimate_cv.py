"""Stored cross-validated errors of the spec estimate (table ``perf_estimate_cv``)."""

from __future__ import annotations

from datetime import datetime

import duckdb

SELECT_CV_ERROR = "SELECT cv_median_abs_error FROM perf_estimate_cv WHERE inputs_digest = ?"
INSERT_CV_ERROR = (
    "INSERT INTO perf_estimate_cv (inputs_digest, precision, model_version, trained_cards, cv_median_abs_error, "
    "computed_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)


def stored_cv_error(con: duckdb.DuckDBPyConnection, digest: str) -> float | None:
    rows = con.execute(SELECT_CV_ERROR, [digest]).fetchall()
    return float(rows[0][0]) if rows else None


def store_cv_error(
    con: duckdb.DuckDBPyConnection,
    digest: str,
    precision: str,
    model_version: str,
    trained_cards: int,
    error: float,
    computed_at: datetime,
) -> None:
    con.execute(INSERT_CV_ERROR, [digest, precision, model_version, trained_cards, error, computed_at])
