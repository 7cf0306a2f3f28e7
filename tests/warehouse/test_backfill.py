"""The set-based backfill against the daily SQL run once per day, on small synthetic histories."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from datetime import date, timedelta

import pytest

from gpuvalue.warehouse import backfill as bf
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import open_database
from conftest import REPO

END = date(2026, 3, 31)
START = date(2026, 1, 1)
WINDOW, MIN_COUNT, REF = 30, 3, "Card A"
PRICES = "SELECT * FROM prices_daily ORDER BY as_of, model"
RANKING = "SELECT * FROM ranking_daily ORDER BY as_of, rank"


def _synth_module():
    spec = importlib.util.spec_from_file_location("bench_synth", REPO / "bench" / "synth.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_synth", mod)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def con(tmp_path):
    c = open_database(tmp_path / "g.duckdb")
    yield c
    c.close()


def _crafted_history(con) -> None:
    """Cards whose histories hit every branch: steady sales, gross outliers, a price that goes stale,
    asking-only, too few sales, auctions, parts, multi-card lots, an unreleased card."""
    con.execute(
        """
        INSERT INTO gpus (model, vendor, released, memory_gb, provenance, updated_at)
        VALUES ('Card A', 'NVIDIA', true, 24, '{}', now()), ('Card B', 'AMD', true, 16, '{}', now()),
               ('Card C', 'NVIDIA', true, 12, '{}', now()), ('Card D', 'NVIDIA', true, 8, '{}', now()),
               ('Card E', 'NVIDIA', false, 48, '{}', now())
        """
    )
    con.execute(
        """
        INSERT INTO perf (model, precision, source, relative_perf, method, reference, measured, loaded_at)
        VALUES ('Card A', 'fp16', 'estimate', 1.0, 'e', 'Card A', false, now()),
               ('Card A', 'fp16', 'lambda', 1.1, 'm', 'Card A', true, now()),
               ('Card B', 'fp16', 'estimate', 0.8, 'e', 'Card A', false, now()),
               ('Card C', 'fp16', 'estimate', 0.5, 'e', 'Card A', false, now()),
               ('Card D', 'fp16', 'estimate', 0.3, 'e', 'Card A', false, now()),
               ('Card E', 'fp16', 'estimate', 2.0, 'e', 'Card A', false, now()),
               ('Card A', 'fp32', 'estimate', 9.0, 'e', 'Card A', false, now())
        """
    )
    con.execute(
        """
        CREATE TEMP TABLE raw AS
        WITH base AS (
            SELECT i, DATE '2025-12-01' + CAST(i % 121 AS INTEGER) AS d, (i * 7919) % 1000 / 1000.0 AS u,
                   ((i * 104729) % 997) / 997.0 AS v
            FROM range(2400) AS r(i)
        )
        SELECT i, d, u, v,
            CASE WHEN v < 0.40 THEN 'Card A' WHEN v < 0.62 THEN 'Card B'
                 WHEN v < 0.80 THEN 'Card C' WHEN v < 0.97 THEN 'Card D' ELSE 'Card E' END AS model
        FROM base
        """
    )
    con.execute(
        """
        INSERT INTO listings (source, listing_id, title, price, shipping, currency, total_usd, condition_class,
                              buying_option, quantity, sold, sold_at, first_seen, last_seen, status, model, match_reason)
        SELECT 'test', CAST(i AS VARCHAR), model, usd, 0, 'USD', usd,
               CASE WHEN i % 41 = 0 THEN 'parts' WHEN i % 13 = 0 THEN 'refurbished' ELSE 'used' END,
               CASE WHEN i % 17 = 0 THEN 'AUCTION' ELSE 'FIXED_PRICE' END,
               CASE WHEN i % 53 = 0 THEN 4 ELSE 1 END,
               sold, CASE WHEN sold THEN CAST(d AS TIMESTAMP) + INTERVAL 9 HOUR END,
               CAST(d AS TIMESTAMP), CAST(d AS TIMESTAMP), CASE WHEN sold THEN 'sold' ELSE 'active' END,
               model, 'test'
        FROM (
            SELECT *,
                -- Card B's sales stop in mid-February (stale afterwards); Card C only has asking prices;
                -- Card D sells rarely (mostly under the minimum count).
                CASE model WHEN 'Card B' THEN u < 0.7 AND d < DATE '2026-02-10'
                           WHEN 'Card C' THEN false
                           WHEN 'Card D' THEN u < 0.06
                           ELSE u < 0.7 END AS sold,
                round(CASE model WHEN 'Card A' THEN 1500 WHEN 'Card B' THEN 700 WHEN 'Card C' THEN 400
                                 WHEN 'Card D' THEN 250 ELSE 3000 END
                      * (1 + 0.1 * (u - 0.5)) * (1 - (d - DATE '2025-12-01') / 1000.0)
                      * CASE WHEN i % 29 = 0 THEN 0.1 WHEN i % 31 = 0 THEN 8 ELSE 1 END, 2) AS usd
            FROM raw
            -- Card B's asking snapshots stop as well, so its price goes stale.
            WHERE NOT (model = 'Card B' AND d >= DATE '2026-02-10')
        )
        """
    )
    con.execute(
        """
        INSERT INTO listing_snapshots (source, listing_id, seen_date, price, shipping, currency, total_usd)
        SELECT source, listing_id, CAST(last_seen AS DATE), price, shipping, currency, total_usd
        FROM listings WHERE NOT sold
        """
    )
    load.rebuild_price_observations(con)  # written by hand, not through the load path


def _day_by_day(con, start: date, end: date, precision: str = "fp16", reference: str = REF) -> None:
    d = start
    while d <= end:
        load.materialize_day(con, d, precision=precision, reference=reference, window_days=WINDOW, min_count=MIN_COUNT)
        d += timedelta(days=1)


def _snapshot(con):
    return con.execute(PRICES).fetchall(), con.execute(RANKING).fetchall()


@pytest.fixture(scope="module")
def crafted_day_by_day(tmp_path_factory):
    """The crafted history, priced and ranked by the daily SQL once per day for the quarter (about
    3 s): two tests start from it, each on a copy."""
    path = tmp_path_factory.mktemp("crafted") / "g.duckdb"
    c = open_database(path)
    try:
        _crafted_history(c)
        _day_by_day(c, START, END)
    finally:
        c.close()
    return path


@pytest.fixture
def crafted(crafted_day_by_day, tmp_path):
    shutil.copyfile(crafted_day_by_day, tmp_path / "crafted.duckdb")
    c = open_database(tmp_path / "crafted.duckdb")
    yield c
    c.close()


@pytest.mark.e2e  # about 3 s: the daily SQL run once per day for a quarter
def test_backfill_equals_day_by_day_on_crafted_history(crafted):
    con = crafted
    daily_prices, daily_ranking = _snapshot(con)
    con.execute("DELETE FROM prices_daily")
    con.execute("DELETE FROM ranking_daily")

    n = bf.backfill(con, START, END, precision="fp16", reference=REF, window_days=WINDOW, min_count=MIN_COUNT)
    prices, ranking = _snapshot(con)

    assert prices == daily_prices
    assert ranking == daily_ranking
    assert n == len(ranking)
    # The history really exercises the branches it was built for.
    kinds = {(r[1], r[3]) for r in prices}
    assert ("Card C", "asking") in kinds and ("Card A", "sold") in kinds
    stale_b = [r for r in ranking if r[2] == "Card B" and r[22]]
    assert stale_b and stale_b[-1][0] == END
    assert not [r for r in ranking if r[2] == "Card E"]  # unreleased cards are never ranked


@pytest.mark.e2e  # the daily SQL run once per day for a quarter, shared with the test above
def test_backfill_replaces_only_its_range(crafted):
    con = crafted
    before = con.execute("SELECT * FROM prices_daily WHERE as_of < DATE '2026-03-01' ORDER BY ALL").fetchall()
    con.execute("UPDATE prices_daily SET price_usd = 1 WHERE as_of >= DATE '2026-03-01'")
    with load.transaction(con):
        bf.backfill_prices(con, date(2026, 3, 1), END, WINDOW, MIN_COUNT)
    assert con.execute("SELECT * FROM prices_daily WHERE as_of < DATE '2026-03-01' ORDER BY ALL").fetchall() == before
    assert con.execute("SELECT count(*) FROM prices_daily WHERE price_usd = 1").fetchone()[0] == 0


def test_backfill_rejects_an_empty_range(con):
    with pytest.raises(ValueError, match="empty"):
        bf.backfill_prices(con, END, START, WINDOW, MIN_COUNT)


@pytest.mark.e2e  # about 2 s: 40,000 synthetic listings, priced day by day for 45 days
def test_backfill_equals_day_by_day_on_noisy_history(con):
    """Wide noise and many gross outliers, so many prices sit near the MAD tolerance edge: the
    backfill judges every window afresh, as the daily rule does, and agrees row for row."""
    synth = _synth_module()
    spec = synth.SynthSpec(n_models=12, days=90, n_listings=40_000, end=END)
    synth.generate(con, spec)
    start = END - timedelta(days=44)
    _day_by_day(con, start, END, reference=synth.REFERENCE)
    daily = con.execute(PRICES).fetchall()
    con.execute("DELETE FROM prices_daily")
    with load.transaction(con):
        n = bf.backfill_prices(con, start, END, WINDOW, MIN_COUNT)
    assert con.execute(PRICES).fetchall() == daily
    assert n == len(daily) > 300


@pytest.mark.e2e  # about 2 s: the daily SQL run once per day for a quarter
def test_backfill_counts_a_listing_seen_on_many_days_once_per_window(con):
    """Asking listings re-seen on later days, at changing prices and with gaps: each window holds a
    listing once, at its newest price there, exactly as the daily rule has it."""
    _crafted_history(con)
    con.execute(
        """
        INSERT INTO listing_snapshots (source, listing_id, seen_date, price, shipping, currency, total_usd)
        SELECT s.source, s.listing_id, s.seen_date + k, s.price, s.shipping, s.currency,
               round(s.total_usd * (1 + 0.03 * k - CASE WHEN k = 9 THEN 0.5 ELSE 0 END), 2)
        FROM listing_snapshots AS s, (VALUES (1), (2), (5), (9), (24), (40)) AS r(k)
        WHERE CAST(s.listing_id AS INTEGER) % 3 <> 0
        """
    )
    load.rebuild_price_observations(con)
    _day_by_day(con, START, END)
    daily_prices, daily_ranking = _snapshot(con)
    con.execute("DELETE FROM prices_daily")
    con.execute("DELETE FROM ranking_daily")
    bf.backfill(con, START, END, precision="fp16", reference=REF, window_days=WINDOW, min_count=MIN_COUNT)
    assert _snapshot(con) == (daily_prices, daily_ranking)
    assert any(r[3] == "asking" for r in daily_prices)
