"""Exchange rates by day in the warehouse: the ECB's daily rates stored in ``fx_rates``, and read back
(``daily_rates``) for every conversion, so a price converts at the rate of its own day wherever it is
converted. The rule (nearest earlier published day, the shipped monthly table as the offline seed) is
``models/fx.py``'s ``DailyRates`` (``to_usd``).
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb
import pyarrow as pa

from gpuvalue.models.fx import DailyRate, DailyRates, monthly_reference, plausible_rates
from gpuvalue.warehouse import sql_files

_SCHEMA = pa.schema([("rate_date", pa.date32()), ("currency", pa.string()), ("usd_per_unit", pa.float64()),
                     ("source", pa.string())])


def load_fx_rates(con: duckdb.DuckDBPyConnection, rates: Iterable[DailyRate], *, source: str) -> int:
    """Store one source's daily rates (a day and currency stored again is replaced); rows written.
    The caller owns the transaction."""
    rows = [{"rate_date": r.rate_date, "currency": r.currency.upper(), "usd_per_unit": r.usd_per_unit,
             "source": source} for r in rates]
    if not rows:
        return 0
    sql_files.run_on_batch(con, "incoming_fx_rates", pa.Table.from_pylist(rows, schema=_SCHEMA), "fx_rates_upsert")
    return len(rows)


def plausible_new_rates(con: duckdb.DuckDBPyConnection, rates: Iterable[DailyRate]) -> tuple[list[DailyRate], list[str]]:
    """The rates fit to store and a line for each refused (``models/fx.py``'s ``plausible_rates``),
    each checked against the previous plausible day: the one before it among ``rates``, else the
    stored day before it, else the shipped monthly table."""
    stored = daily_rates(con)

    def reference(code: str, day):
        return stored.previous(code, day) or monthly_reference(code, day)

    return plausible_rates(rates, reference)


def daily_rates(con: duckdb.DuckDBPyConnection, currency: str | None = None) -> DailyRates:
    """The stored daily rates (of one currency, or all), ready for lookups by day, each named by its
    source's label (the ``sources`` table every run writes from the registry)."""
    code = None if currency is None else currency.strip().upper()
    return DailyRates(sql_files.rows(con, "fx_rates_all", {"currency": code}))  # rows sorted by currency and day

