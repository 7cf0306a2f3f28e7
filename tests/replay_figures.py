"""The figures a replayed warehouse shows: every card's perf_best row, read once per test module."""

from __future__ import annotations

from pathlib import Path

import duckdb


def shown_figures(db: Path) -> dict[tuple[str, str], dict]:
    """(model, precision) -> the shown figure: source, value, low, high, method ('' where none); the
    figure of a card measured on this machine (source 'local') left out."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT model, precision, source, relative_perf, perf_low, perf_high, coalesce(method, '') "
                           "FROM perf_best WHERE source <> 'local'").fetchall()
    finally:
        con.close()
    return {(m, p): {"source": s, "value": v, "low": lo, "high": hi, "method": method}
            for m, p, s, v, lo, hi, method in rows}
