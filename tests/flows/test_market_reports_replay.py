"""The replay reaches 2026: GPU Poet's monthly reports price the cards they name at their newest
month, with the month, the kind and n (3), in `rank`, `recommend` and `coverage`."""

from __future__ import annotations

import json
from datetime import date

import duckdb
import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.scrapers.sources import gpupoet_market_reports as reports

pytestmark = pytest.mark.e2e
runner = CliRunner()


def _lines(replay_db, *args) -> list[dict]:
    res = runner.invoke(app, [*args, "--json", "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_rank_shows_the_rtx_3090_and_5090_at_their_2026_report_prices(replay_db):
    rows = {r["model"]: r for r in _lines(replay_db, "rank", "--all")}
    for model, usd in (("GeForce RTX 3090", 1207.0), ("GeForce RTX 5090", 4795.0)):
        row = rows[model]
        assert (row["price_usd"], row["price_as_of"], row["price_kind"], row["price_n"]) == (usd, "2026-09-01", "index", 3)
        assert row["price_source"] == reports.NAME and row["price_source_label"] == "GPU Poet market report"
        assert row["price_source_statistic"] == "mean of the {n} cheapest asking prices"
    shown = runner.invoke(app, ["rank", "--all", "--db", str(replay_db)], terminal_width=250).output
    assert "2026-09 (month)" in shown
    assert "GPU Poet market report: mean of the 3 cheapest asking prices" in " ".join(shown.split())


def test_every_card_the_reports_name_is_ranked_at_its_newest_2026_price(replay_db):
    con = duckdb.connect(str(replay_db), read_only=True)
    try:
        newest = dict(con.execute(
            "SELECT model, max(month) FROM price_index_monthly WHERE source = ? AND model IS NOT NULL GROUP BY model",
            [reports.NAME]).fetchall())
        ranked = {m: (s, d) for m, s, d in con.execute(
            "SELECT model, price_source, price_as_of FROM ranking_daily WHERE as_of = DATE '2026-11-30'").fetchall()}
        performed = {m for (m,) in con.execute("SELECT DISTINCT model FROM perf_best").fetchall()}
    finally:
        con.close()
    assert len(newest) >= 35
    rankable = [m for m in newest if m in performed]
    assert rankable and all(m in ranked for m in rankable), sorted(set(rankable) - set(ranked))
    for model in rankable:
        assert ranked[model] == (reports.NAME, newest[model]) and newest[model] >= date(2026, 1, 1), model


def test_recommend_prices_rtx_5090_setups_at_their_2026_price(replay_db):
    res = runner.invoke(app, ["recommend", "--budget", "10000", "--use-case", "research", "--gpus", "2", "--json",
                              "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    fastest = json.loads(res.stdout)["fastest"]
    assert (fastest["model"], fastest["gpus"], fastest["cards_usd"]) == ("GeForce RTX 5090", 2, 9590.0)
    assert fastest["cost_usd"] == 9590.0 + fastest["platform_usd"]  # the two-card machine counted
    shown = runner.invoke(app, ["recommend", "--budget", "10000", "--use-case", "research", "--gpus", "2",
                                "--db", str(replay_db)], terminal_width=250).output
    assert ("price $4,795 a card" in shown
            and "index price of 2026-09 (GPU Poet market report, mean of the 3 cheapest asking prices)" in shown)


def test_coverage_says_which_cards_still_lack_a_2026_price(replay_db):
    rows = {r["model"]: r for r in _lines(replay_db, "coverage")}
    assert rows["GeForce RTX 3090"]["price_of_ranking_year"] is True
    assert rows["GeForce RTX 3090"]["price_as_of"] == "2026-09-01"
    assert rows["GeForce RTX 3090 Ti"]["price_of_ranking_year"] is False  # Tom's Hardware's 2023-10 only
    shown = " ".join(runner.invoke(app, ["coverage", "--db", str(replay_db)], terminal_width=250).output.split())
    lacking = sum(1 for r in rows.values() if not r["price_of_ranking_year"])
    assert f"{lacking} of the {len(rows)} cards have no price of 2026:" in shown


def test_every_export_credits_the_reports_with_their_licence(replay_db):
    import pyarrow.parquet as pq

    exports = replay_db.parent / "exports"
    credit = "GPU Poet monthly GPU market reports"
    feed = json.loads((exports / "feed.json").read_text(encoding="utf-8"))
    ranking = json.loads((exports / "ranking.json").read_text(encoding="utf-8"))
    parquet = json.loads(pq.read_schema(exports / "ranking.parquet").metadata[b"gpuvalue.attribution"])
    page = (exports / "index.html").read_text(encoding="utf-8")
    for lines in (feed["_gpuvalue"]["attribution"], ranking["attribution"], parquet):
        [line] = [line for line in lines if line.startswith(credit)]
        assert "CC BY-SA 4.0" in line
    assert credit in page and "CC BY-SA 4.0" in page
