"""Rental prices in the warehouse (schema v11): the migration, the load (history, re-loads, drops and
unmatched names), rental_prices_daily, the views the comparison reads, the integrity checks and the
flow's rental stage. Real DuckDB, no Prefect; offers from tests/rental_fixtures.py and the fixtures."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from gpuvalue.models.offer_matching import match_offers
from gpuvalue.flows import stages as S
from gpuvalue.flows.settings import Settings
from gpuvalue.models.rent_vs_buy import Assumptions
from gpuvalue.models.source_batches import ParsedSource
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.source import page_from_file
from gpuvalue.scrapers.sources import fsdl_cloud_gpus as fsdl
from gpuvalue.scrapers.sources import skypilot_catalog as sky
from gpuvalue.warehouse import load
from gpuvalue.warehouse.checks import run_checks
from gpuvalue.warehouse.db import current_version, migrations, open_database
from gpuvalue.warehouse.rental import load_warning, offer_rows, rent_ranking_rows, rent_vs_buy_rows
from conftest_exports import warehouse_at_version
from rental_fixtures import (
    FEB, JAN, JAN_B, LOADED, cloud_b, load_offers, make_rental_database, offer,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def con():
    c = make_rental_database()
    yield c
    c.close()


def daily(con, day, model):
    cur = con.execute("SELECT * FROM rental_prices_daily WHERE as_of = ? AND model = ?", [day, model])
    names = [d[0] for d in cur.description]
    row = cur.fetchone()
    return dict(zip(names, row)) if row else None


# --------------------------------------------------------------------------- migration

def test_migration_11_adds_the_rental_tables_and_views():
    c = open_database(":memory:")
    assert (11, "011_rental.sql") in [(v, n) for v, n, _ in migrations()]
    assert current_version(c) >= 11
    kinds = dict(c.execute("SELECT table_name, table_type FROM information_schema.tables WHERE table_name LIKE 'rent%'").fetchall())
    assert kinds == {"rental_offers": "BASE TABLE", "rental_prices_daily": "BASE TABLE", "rental_provider_prices": "VIEW",
                     "rent_perf": "VIEW", "rent_ranking_latest": "VIEW", "rent_vs_buy_inputs": "VIEW"}
    # Empty, every view answers (before any rental load or ranking).
    for view in ("rental_provider_prices", "rent_perf", "rent_ranking_latest", "rent_vs_buy_inputs"):
        c.execute(f"SELECT * FROM {view}").fetchall()


def test_an_existing_version_10_database_is_migrated_in_place(tmp_path):
    path = tmp_path / "old.duckdb"
    c = warehouse_at_version(path, 10)
    c.close()
    c = open_database(path)
    assert current_version(c) >= 11 and c.execute("SELECT count(*) FROM rental_offers").fetchone() == (0,)
    c.close()


# --------------------------------------------------------------------------- the load

def test_one_row_per_offer_with_its_date_and_the_history_of_later_captures(con):
    rows = con.execute("SELECT source, as_of, count(*) FROM rental_offers GROUP BY ALL ORDER BY ALL").fetchall()
    # cloud-a January: 6 offers less the absurd one; February: 1; cloud-b: 4.
    assert rows == [("cloud-a", JAN, 5), ("cloud-a", FEB, 1), ("cloud-b", JAN_B, 4)]
    row = con.execute("SELECT provider, offer_key, instance_type, region, gpu_name, model, gpu_count, usd_per_hour, "
                      "usd_per_gpu_hour, spot_usd_per_gpu_hour, loaded_at FROM rental_offers "
                      "WHERE source = 'cloud-a' AND model = 'A100 PCIe 40 GB'").fetchone()
    assert row == ("aws", "A100 (40 GB) x8", None, None, "A100 (40 GB)", "A100 PCIe 40 GB", 8, 16.0, 2.0, 0.75,
                   datetime(2026, 11, 30, 6, 0))


def test_a_reload_of_a_date_replaces_that_dates_rows_of_that_source_only(con):
    before = con.execute("SELECT count(*) FROM rental_offers").fetchone()[0]
    changed = [offer("cloud-a", "aws", "RTX 4090", "GeForce RTX 4090", JAN, per_hour=0.75, instance="g-4090")]
    assert load_offers(con, changed, "cloud-a")[0] == 1
    january = con.execute("SELECT provider, usd_per_gpu_hour FROM rental_offers WHERE source = 'cloud-a' AND as_of = ?",
                          [JAN]).fetchall()
    assert january == [("aws", 0.75)]  # the date is the source's new truth: lambda's January rows went
    assert con.execute("SELECT count(*) FROM rental_offers WHERE as_of <> ? OR source <> 'cloud-a'", [JAN]).fetchone()[0] \
        == before - 5  # February and cloud-b untouched
    # Loading the same batch again changes nothing.
    load_offers(con, changed, "cloud-a")
    assert con.execute("SELECT count(*) FROM rental_offers").fetchone()[0] == before - 5 + 1


def test_offers_without_an_instance_name_are_numbered_not_overwritten_and_verbatim_repeats_kept_once():
    twin = offer("cloud-a", "gcp", "T4", "Tesla T4", JAN, per_hour=0.35)
    other = offer("cloud-a", "gcp", "T4", "Tesla T4", JAN, per_hour=0.40)
    rows = offer_rows([twin, other, twin], LOADED)
    assert [r["offer_key"] for r in rows] == ["T4 x1", "T4 x1 #2"]


def test_fsdl_rows_all_fit_the_key(con):
    body = (FIXTURES / fsdl._HEAD_FIXTURE).read_bytes()
    offers = match_offers(fsdl.parse_fsdl_cloud_gpus(body, fsdl.LIVE_URL, date(2025, 3, 7)))  # as the enrich stage does
    written, warning = load_offers(con, offers, "fsdl-cloud-gpus")
    assert len(offers) == 257 and written == len({o for o in offers}) == 255  # two rows repeat verbatim
    assert con.execute("SELECT count(*) FROM rental_offers WHERE source = 'fsdl-cloud-gpus'").fetchone() == (255,)
    assert warning.startswith(f"{sum(o.model is None for o in offers)} offers with an unknown GPU name kept unmatched; 0 dropped")


def test_dropped_and_unmatched_offers_are_counted_in_one_warning_line():
    c = make_rental_database()
    unknown = offer("cloud-c", "ovh", "RTX 4090", "GeForce RTX 4090", JAN, per_hour=0.5, currency="XYZ")
    free = offer("cloud-c", "ovh", "L4", "L4", JAN, per_hour=0.0)
    odd = offer("cloud-c", "ovh", "Mystery", None, JAN, per_hour=1.0)
    written, warning = load_offers(c, [unknown, free, odd], "cloud-c")
    assert written == 1 and c.execute("SELECT model FROM rental_offers WHERE source = 'cloud-c'").fetchall() == [(None,)]
    assert warning == ("1 offers with an unknown GPU name kept unmatched; 2 dropped: ovh RTX 4090 (2025-01-10): currency XYZ: "
                       "only USD is handled; convert first; ovh L4 (2025-01-10): usd_per_hour 0 is not a price")
    # Many drops: five named, the rest counted.
    many = [(offer("s", "p", f"G{i}", None, JAN, per_hour=500.0), "r") for i in range(8)]
    assert load_warning(0, many).endswith("; and 3 more")


def test_offers_of_another_source_are_refused(con):
    with pytest.raises(ValueError, match="offers of cloud-b passed as cloud-a's"):
        load_offers(con, cloud_b(), "cloud-a")


# --------------------------------------------------------------------------- rental_prices_daily

def test_each_date_takes_each_providers_newest_capture_and_aggregates_across_providers(con):
    assert [d for (d,) in con.execute("SELECT DISTINCT as_of FROM rental_prices_daily ORDER BY 1").fetchall()] == [JAN, JAN_B, FEB]
    jan = daily(con, JAN, "GeForce RTX 4090")
    assert (jan["cheapest_usd_per_gpu_hour"], jan["provider"], jan["median_usd_per_gpu_hour"], jan["provider_count"]) == \
        (0.60, "lambda", pytest.approx(0.70), 2)
    latest = daily(con, FEB, "GeForce RTX 4090")  # aws at its February price, lambda still January's, vast January's
    assert latest["cheapest_usd_per_gpu_hour"] == 0.45 and latest["provider"] == "vast"
    assert latest["instance_type"] == "1x-4090" and latest["gpu_count"] == 1 and latest["price_as_of"] == JAN_B
    assert latest["median_usd_per_gpu_hour"] == pytest.approx(0.60)  # of aws 0.70, lambda 0.60, vast 0.45
    assert (latest["spot_usd_per_gpu_hour"], latest["spot_provider"], latest["spot_as_of"]) == (0.30, "vast", JAN_B)
    assert (latest["provider_count"], latest["providers"], latest["offers"]) == (3, "aws, lambda, vast", 3)


def test_a_provider_listed_by_two_sources_counts_once_at_its_newer_price(con):
    """cloud-a priced lambda's A6000 at $0.50 on JAN, cloud-b at $0.55 on JAN_B: the newer price is
    lambda's, however cheap the older one (a year-old table once stood for a provider's card)."""
    a6000 = daily(con, FEB, "RTX A6000")
    assert (a6000["cheapest_usd_per_gpu_hour"], a6000["provider_count"], a6000["price_as_of"]) == (0.55, 1, JAN_B)
    assert daily(con, JAN, "RTX A6000")["cheapest_usd_per_gpu_hour"] == 0.50  # before cloud-b's capture


def test_a_provider_listed_by_two_sources_on_one_date_counts_at_the_cheaper_price(con):
    load_offers(con, [offer("cloud-c", "lambda", "RTX A6000", "RTX A6000", JAN_B, per_hour=0.52)], "cloud-c")
    a6000 = daily(con, FEB, "RTX A6000")
    assert (a6000["cheapest_usd_per_gpu_hour"], a6000["provider_count"], a6000["price_as_of"]) == (0.52, 1, JAN_B)
    assert {r.name: r.offending for r in run_checks(con)}["rental_prices_daily_out_of_step"] == 0


def test_a_model_the_providers_newest_capture_no_longer_lists_is_not_priced_then(con):
    assert daily(con, JAN_B, "A100 PCIe 40 GB")["cheapest_usd_per_gpu_hour"] == 2.0
    assert daily(con, FEB, "A100 PCIe 40 GB") is None  # aws's February capture lists no A100


def test_spot_only_models_have_a_spot_price_and_no_on_demand_one(con):
    v100 = daily(con, FEB, "Tesla V100 PCIe 16 GB")
    assert v100["cheapest_usd_per_gpu_hour"] is None and v100["spot_usd_per_gpu_hour"] == 0.25
    assert v100["price_as_of"] == JAN_B and v100["provider"] is None


# --------------------------------------------------------------------------- views

def test_rent_ranking_ranks_perf_per_on_demand_dollar_and_spot_apart(con):
    rows = rent_ranking_rows(con)
    assert [(r["rank"], r["model"]) for r in rows] == [(1, "GeForce RTX 3090"), (2, "GeForce RTX 4090"), (3, "RTX A6000")]
    top = rows[0]
    # perf_best's figures are stored x2; rescaled by the reference's own figure as warehouse/models/marts/ranking_daily.sql does.
    assert top["relative_perf"] == pytest.approx(1.0) and top["perf_precision"] == "fp16"
    assert top["perf_per_usd_hour"] == pytest.approx(5.0) and top["usd_per_reference_hour"] == pytest.approx(0.20)
    assert rows[1]["relative_perf"] == pytest.approx(1.85) and rows[1]["memory_gb"] == 24.0
    spot = rent_ranking_rows(con, spot=True)
    assert [(r["spot_rank"], r["model"]) for r in spot] == [(1, "GeForce RTX 4090"), (2, "Tesla V100 PCIe 16 GB")]
    assert spot[1]["rank"] is None  # spot only: not in the on-demand ranking


OLD = date(2024, 6, 1)  # 245 days before the newest rental date (FEB): outside the 90-day window


def with_an_old_table(con) -> None:
    """A provider whose only published prices are eight months older than everyone else's, and cheaper
    than any: an A6000 (which recent offers also price on demand, but not on spot) and an RX 7900 XTX
    (which nobody else prices)."""
    load_offers(con, [
        offer("cloud-c", "oldcloud", "RTX A6000", "RTX A6000", OLD, per_hour=0.05, spot=0.03),
        offer("cloud-c", "oldcloud", "RX 7900 XTX", "Radeon RX 7900 XTX", OLD, per_hour=0.01),
    ], "cloud-c")


def test_an_old_price_never_stands_for_a_card_a_recent_one_prices_and_alone_it_ranks_last(con):
    with_an_old_table(con)
    rows = rent_ranking_rows(con)
    # The RX 7900 XTX, at a price of 8 months before, would lead by far: it ranks after every recent card.
    assert [(r["rank"], r["model"], r["price_tier"]) for r in rows] == [
        (1, "GeForce RTX 3090", "recent"), (2, "GeForce RTX 4090", "recent"), (3, "RTX A6000", "recent"),
        (4, "Radeon RX 7900 XTX", "older")]
    xtx, a6000 = rows[3], rows[2]
    assert (xtx["usd_per_gpu_hour"], xtx["provider"], xtx["price_as_of"], xtx["price_age_days"]) == (0.01, "oldcloud", OLD, 245)
    # The A6000 keeps lambda's recent $0.55 on demand, though the old table is cheaper ...
    assert (a6000["usd_per_gpu_hour"], a6000["provider"], a6000["price_as_of"]) == (0.55, "lambda", JAN_B)
    # Its median is of the recent prices too: lambda's alone, not halfway to a price eight months older.
    assert a6000["providers"] == "lambda, oldcloud" and a6000["median_usd_per_gpu_hour"] == pytest.approx(0.55)
    # ... and only the old table prices it on spot: that price is kept, and ranked after the recent ones.
    spot = rent_ranking_rows(con, spot=True)
    assert [(r["spot_rank"], r["model"], r["spot_tier"]) for r in spot] == [
        (1, "GeForce RTX 4090", "recent"), (2, "Tesla V100 PCIe 16 GB", "recent"), (3, "RTX A6000", "older")]
    assert (spot[2]["spot_usd_per_gpu_hour"], spot[2]["spot_provider"], spot[2]["spot_age_days"]) == (0.03, "oldcloud", 245)
    # Without recent prices around it, the old table's own date is the newest: its prices are recent there.
    assert daily(con, OLD, "RTX A6000")["price_tier"] == "recent"


def test_a_version_16_warehouses_rental_prices_get_their_tiers_in_the_upgrade(tmp_path):
    """The upgrade dates the stored rows at once; the next rental load rebuilds them whole."""
    path = tmp_path / "v16.duckdb"
    c = warehouse_at_version(path, 16)
    c.execute("INSERT INTO rental_prices_daily (as_of, model, cheapest_usd_per_gpu_hour, provider, provider_count, "
              "providers, offers, price_as_of, spot_usd_per_gpu_hour, spot_as_of) VALUES "
              "('2025-02-01', 'A', 0.5, 'x', 1, 'x', 1, '2025-01-20', NULL, NULL), "
              "('2025-02-01', 'B', 0.1, 'y', 1, 'y', 1, '2024-06-01', 0.05, '2024-06-01'), "
              "('2025-02-01', 'C', NULL, NULL, 1, 'z', 1, '2025-02-01', 0.2, '2025-02-01')")
    (upgrade,) = [sql for number, _, sql in migrations() if number == 17]
    c.execute(upgrade)  # version 17 alone: 18 rebuilds the table from the offers, which this one lacks
    assert c.execute("SELECT model, price_tier, spot_tier FROM rental_prices_daily ORDER BY model").fetchall() == [
        ("A", "recent", None), ("B", "older", "older"), ("C", None, "recent")]
    c.close()


def test_a_version_17_warehouse_rebuilds_its_rental_prices_with_each_providers_newest_price(tmp_path):
    """Version 17 let a provider's year-old price from one source undercut its newer price from
    another (Lambda's Quadro RTX 6000: $0.69 in a 2024-03 file, $4.40 in 2025-03); the upgrade
    rebuilds the stored rows at once, so the integrity checks pass on them before any rental load."""
    path = tmp_path / "v17.duckdb"
    c = warehouse_at_version(path, 17)
    c.execute("INSERT INTO rental_offers (source, provider, offer_key, as_of, gpu_name, model, match_reason, gpu_count, "
              "usd_per_gpu_hour, loaded_at) VALUES "
              "('sky', 'lambda', 'gpu_1x_rtx6000', '2024-03-18', 'RTX6000', 'Quadro RTX 6000', 'test', 1, 0.69, now()), "
              "('fsdl', 'lambda', 'RTX 6000 x1', '2025-03-07', 'RTX 6000', 'Quadro RTX 6000', 'test', 1, 4.40, now()), "
              "('fsdl', 'aws', 'p5', '2025-03-18', 'H100', 'H100 SXM5 80 GB', 'test', 1, 3.00, now())")
    c.execute("INSERT INTO rental_prices_daily (as_of, model, cheapest_usd_per_gpu_hour, provider, provider_count, "
              "providers, offers, price_as_of, price_tier) VALUES "
              "('2025-03-18', 'Quadro RTX 6000', 0.69, 'lambda', 1, 'lambda', 2, '2024-03-18', 'older'), "
              "('2025-03-18', 'H100 SXM5 80 GB', 3.00, 'aws', 1, 'aws', 1, '2025-03-18', 'recent')")
    c.close()
    c = open_database(path)
    try:
        assert current_version(c) >= 18
        row = daily(c, date(2025, 3, 18), "Quadro RTX 6000")
        assert (row["cheapest_usd_per_gpu_hour"], row["price_as_of"], row["price_tier"]) == (4.40, date(2025, 3, 7), "recent")
        assert {r.name: r.offending for r in run_checks(c)}["rental_prices_daily_out_of_step"] == 0
    finally:
        c.close()


def test_rent_ranking_follows_the_precision_the_ranking_used(con):
    con.execute("UPDATE ranking_daily SET perf_precision = 'fp32'")
    rows = {r["model"]: r for r in rent_ranking_rows(con)}
    assert rows["GeForce RTX 4090"]["relative_perf"] == pytest.approx(1.85 * 0.5)  # fp32 figures, same reference
    assert rows["GeForce RTX 4090"]["perf_precision"] == "fp32"


def test_rent_ranking_filters(con):
    assert [r["model"] for r in rent_ranking_rows(con, min_memory=30)] == ["RTX A6000"]
    assert [r["model"] for r in rent_ranking_rows(con, top=1)] == ["GeForce RTX 3090"]
    aws = rent_ranking_rows(con, provider="AWS")
    assert [(r["rank"], r["model"], r["usd_per_gpu_hour"], r["providers"]) for r in aws] == \
        [(1, "GeForce RTX 4090", 0.70, "aws")]
    lam = rent_ranking_rows(con, provider="lambda")
    assert [(r["model"], r["usd_per_gpu_hour"], r["price_as_of"]) for r in lam] == \
        [("GeForce RTX 4090", 0.60, JAN), ("RTX A6000", 0.55, JAN_B)]


def test_rent_vs_buy_pairs_each_rental_card_with_the_latest_used_price(con):
    rows = {r["model"]: r for r in rent_vs_buy_rows(con, Assumptions())}
    assert set(rows) == {"GeForce RTX 3090", "GeForce RTX 4090", "RTX A6000", "Tesla V100 PCIe 16 GB"}
    r3090 = rows["GeForce RTX 3090"]
    assert (r3090["used_price_usd"], r3090["used_price_kind"], r3090["ranking_as_of"]) == (690.0, "sold", date(2024, 5, 9))
    hours = Assumptions().hours_used
    assert r3090["buy_usd_per_reference_hour"] == pytest.approx(345 / hours + 0.35 * 0.15)
    assert r3090["rent_usd_per_reference_hour"] == pytest.approx(0.20)
    assert r3090["break_even_hours_per_week"] == pytest.approx(345 / (Assumptions().weeks_held * (0.20 - 0.0525)))
    assert r3090["cheaper"] == "rent" and r3090["hours_per_week"] == 10.0
    v100 = rows["Tesla V100 PCIe 16 GB"]  # spot only: a used price, but no on-demand rent to compare with
    assert v100["used_price_usd"] == 450.0 and v100["rent_usd_per_reference_hour"] is None
    assert v100["spot_usd_per_reference_hour"] == pytest.approx(0.25 / 0.85) and v100["cheaper"] is None


# --------------------------------------------------------------------------- integrity checks

def test_the_rental_checks_pass_on_a_sound_warehouse(con):
    results = {r.name: r.offending for r in run_checks(con)}
    assert results["rental_prices_not_positive"] == 0
    assert results["rental_models_missing_from_catalog"] == 0
    assert results["rental_prices_daily_out_of_step"] == 0


def test_the_rental_checks_catch_what_they_name(con):
    con.execute("UPDATE rental_offers SET usd_per_gpu_hour = 0 WHERE model = 'RTX A6000' AND source = 'cloud-b'")
    con.execute("DELETE FROM gpus WHERE model = 'RTX A6000'")
    results = {r.name: r.offending for r in run_checks(con)}
    assert results["rental_prices_not_positive"] == 1
    assert results["rental_models_missing_from_catalog"] == 1
    # A price changed behind the loader's back: out of step on both dates that capture counts on.
    assert results["rental_prices_daily_out_of_step"] == 2


# --------------------------------------------------------------------------- the flow's stage

def test_the_default_rental_sources_are_those_docs_rental_md_tabulates_and_all_have_a_loader():
    """The table of docs/rental.md names the rental sources a default run reads; an opt-in one is named in
    docs/sources.md alone."""
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "rental.md").read_text(encoding="utf-8")
    table = doc.split("\n\n| Source |", 1)[1].split("\n\n", 1)[0]
    tabulated = set(re.findall(r"^\| `([a-z0-9-]+)` \|", table, flags=re.M))
    rental = set(registry.names(kind="rental"))
    assert tabulated and tabulated == {n for n in rental if registry.get(n).default}
    assert S.L.LOADERS["rental"].stage == "load" and "rental" in S.STAGE_KINDS["load"]


def test_the_load_stage_stores_rental_batches_and_puts_the_counts_first_in_their_warnings():
    c = make_rental_database()
    ctx = S.StageContext(con=c, settings=Settings(), loaded_at=LOADED)
    pages = [page_from_file(sky.NAME, (FIXTURES / f.fixture).read_bytes(), f.url,
                            datetime(f.as_of.year, f.as_of.month, f.as_of.day, tzinfo=timezone.utc)) for f in sky.CATALOG_FILES]
    parsed = registry.get(sky.NAME).parse_pages(pages)
    parsed.warnings.append("a parse warning")
    result = S.StageResult()
    S._store_kinds(ctx, "load", {sky.NAME: [parsed]}, result)
    assert result.rows[sky.NAME] == 921 and sky.NAME not in result.failed
    assert result.warnings[sky.NAME] == ["60 offers with an unknown GPU name kept unmatched; 0 dropped", "a parse warning"]
    assert c.execute("SELECT count(DISTINCT provider) FROM rental_offers WHERE source = ?", [sky.NAME]).fetchone() == (3,)


def test_a_failing_rental_load_is_recorded_and_keeps_what_was_stored():
    c = make_rental_database()
    before = c.execute("SELECT count(*), sum(usd_per_gpu_hour) FROM rental_offers").fetchone()
    prices = c.execute("SELECT * FROM rental_prices_daily ORDER BY ALL").fetchall()
    ctx = S.StageContext(con=c, settings=Settings(), loaded_at=LOADED)
    bad = ParsedSource(sky.NAME, "rental", records=cloud_b())  # another source's offers under this name
    result = S.StageResult()
    S._store_kinds(ctx, "load", {sky.NAME: [bad]}, result)
    assert result.failed[sky.NAME] == "ValueError: offers of cloud-b passed as skypilot-catalog's"
    assert c.execute("SELECT count(*), sum(usd_per_gpu_hour) FROM rental_offers").fetchone() == before
    assert c.execute("SELECT * FROM rental_prices_daily ORDER BY ALL").fetchall() == prices


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("source, fixture, url, column", [
    (sky.NAME, "cloud/skypilot-catalog/v8_vast_vms.csv", sky.CATALOG_FILES[0].url, "Price"),
    (fsdl.NAME, fsdl._HEAD_FIXTURE, fsdl.LIVE_URL, "Per-GPU"),
])
def test_a_renamed_column_is_a_parse_error_naming_source_file_and_column(source, fixture, url, column):
    body = (FIXTURES / fixture).read_bytes()
    header, rest = body.split(b"\n", 1)
    renamed = header.replace(column.encode(), b"Cost", 1) + b"\n" + rest
    with pytest.raises(ParseError) as caught:
        registry.get(source).parse_pages([page_from_file(source, renamed, url)])
    text = str(caught.value)
    assert source in text and url in text and f"'{column}'" in text


def test_an_offer_in_another_currency_is_converted_at_its_own_days_rate():
    """EUR 0.50 an hour on 2025-01-10: at the stored ECB rate of the nearest earlier published day
    (2025-01-09 here), and the run summary says so; without a stored rate, the shipped monthly table."""
    from gpuvalue.models.fx import ecb_cross_rates
    from gpuvalue.warehouse.fx import load_fx_rates

    from gpuvalue.flows.enrich import rental_offers
    from gpuvalue.flows.stages import register_sources

    c = make_rental_database()
    register_sources(c)  # as every run does before its load: the ECB's label names its rates
    with load.transaction(c):
        load_fx_rates(c, ecb_cross_rates(date(2025, 1, 9), {"USD": 1.0305}, "ecb"), source="ecb")
    eur = offer("cloud-c", "ovh", "RTX 4090", "GeForce RTX 4090", JAN, per_hour=0.5, count=2, spot=0.2, currency="EUR")
    converted, notes = rental_offers(c, "cloud-c", [eur])  # as the enrich stage converts them
    written, warning = load_offers(c, converted, "cloud-c", notes=notes)
    stored = c.execute("SELECT usd_per_hour, usd_per_gpu_hour, spot_usd_per_gpu_hour FROM rental_offers "
                       "WHERE source = 'cloud-c'").fetchone()
    assert written == 1 and stored == pytest.approx((0.5 * 1.0305, 0.25 * 1.0305, 0.1 * 1.0305))
    assert warning.endswith("1 offers converted from EUR to USD at the ECB euro reference rate of 2025-01-09")
    gbp = offer("cloud-d", "ovh", "L4", "L4", JAN, per_hour=1.0, currency="GBP")
    converted, notes = rental_offers(c, "cloud-d", [gbp])
    _, seeded = load_offers(c, converted, "cloud-d", notes=notes)
    assert "converted from GBP to USD at the ECB reference rates, monthly mean" in seeded


def test_a_version_21_warehouses_vast_scores_move_into_extras_with_their_declaration(tmp_path):
    """Schema 23: the stored vendor_score column becomes each offer's extras "dlperf", the declaration
    the vast.ai source makes is stored beside it, and `rent` shows the same scores under the same names."""
    from gpuvalue.scrapers.sources.vastai import SCORE
    from gpuvalue.warehouse.rental import provider_scores

    path = tmp_path / "v21.duckdb"
    c = warehouse_at_version(path, 21)
    c.execute("INSERT INTO rental_offers (source, provider, offer_key, as_of, gpu_name, model, match_reason, gpu_count, "
              "usd_per_gpu_hour, loaded_at, reliability, verified, vendor_score) VALUES "
              "('vastai', 'vast', 'o1', '2025-02-01', 'RTX 3090', 'GeForce RTX 3090', 'test', 1, 0.2, now(), 0.99, true, 20.0), "
              "('vastai', 'vast', 'o2', '2025-02-01', 'RTX 4090', 'GeForce RTX 4090', 'test', 2, 0.3, now(), 0.98, false, 80.0), "
              "('fsdl', 'aws', 'p5', '2025-02-01', 'H100', 'H100 SXM5 80 GB', 'test', 1, 3.00, now(), NULL, NULL, NULL)")
    c.close()
    c = open_database(path)
    try:
        assert current_version(c) >= 23
        columns = {name for (name,) in c.execute("SELECT column_name FROM duckdb_columns() "
                                                 "WHERE table_name = 'rental_offers'").fetchall()}
        assert "extras" in columns and "vendor_score" not in columns
        assert c.execute("SELECT offer_key, extras->>'dlperf' FROM rental_offers ORDER BY offer_key").fetchall() == [
            ("o1", "20.0"), ("o2", "80.0"), ("p5", None)]
        (declared,) = provider_scores(c)
        assert {k: declared[k] for k in ("provider", "extra", "field", "header", "meaning", "caveat")} == {
            "provider": SCORE.provider, "extra": SCORE.extra, "field": SCORE.field, "header": SCORE.header,
            "meaning": SCORE.meaning, "caveat": SCORE.caveat}
    finally:
        c.close()
