"""`rank` and `recommend` show cards a buyer can use unless asked; JSON keeps the full ranking's rank."""

from __future__ import annotations

import json

import duckdb
import pytest
from conftest_exports import LATEST_DAY, make_ranking_database, ranking_for
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("view") / "gpuvalue.duckdb"
    con = make_ranking_database(path)
    try:
        levels = {"GeForce GTX 1080 Ti": "legacy", "Tesla V100 PCIe 16 GB": "legacy", "Tesla K80": "none"}
        con.execute("UPDATE ranking_daily SET framework_support = CASE WHEN framework_supported THEN 'current' "
                    "ELSE 'none' END, passive = false")
        for model, level in levels.items():
            con.execute("UPDATE ranking_daily SET framework_support = ?, framework_supported = ? WHERE model = ?",
                        [level, level == "current", model])
        con.execute("UPDATE ranking_daily SET passive = true WHERE model IN ('Tesla V100 PCIe 16 GB', 'A100 PCIe 40 GB')")
        # A 3 GB card that would be the best value of the day, and an SXM module cheap enough to recommend.
        tiny = dict(ranking_for(LATEST_DAY)[0], model="GeForce GTX 1060 3 GB", memory_gb=3.0, price_usd=60.0,
                    relative_perf=0.2, perf_per_dollar=3.3333, rank=16, framework_supported=True)
        con.execute("INSERT INTO ranking_daily BY NAME SELECT * FROM (SELECT " + ", ".join(
            f"? AS {k}" for k in tiny) + ")", list(tiny.values()))
        con.execute("UPDATE ranking_daily SET framework_support = 'current', passive = false "
                    "WHERE model = 'GeForce GTX 1060 3 GB'")
        con.execute("UPDATE ranking_daily SET price_usd = 1000, framework_support = 'current' "
                    "WHERE model = 'H100 SXM5 80 GB' AND as_of = ?", [LATEST_DAY])
    finally:
        con.close()
    return path


def _json(result) -> list[dict]:
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_rank_shows_usable_cards_by_default_numbered_among_themselves(db):
    rows = _json(runner.invoke(app, ["rank", "--json", "--db", str(db)]))
    names = [r["model"] for r in rows]
    for hidden in ("Tesla K80", "H100 SXM5 80 GB", "GeForce GTX 1080 Ti", "Tesla V100 PCIe 16 GB", "A100 PCIe 40 GB",
                   "GeForce GTX 1060 3 GB"):
        assert hidden not in names
    assert all(r["memory_gb"] >= 6 and r["framework_support"] == "current" for r in rows)
    assert [r["rank_shown"] for r in rows] == list(range(1, len(rows) + 1))
    assert rows[0]["rank"] == 2 and rows[0]["rank_shown"] == 1  # #1 overall is the K80, which no build runs
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)


def test_the_flags_show_more_and_the_table_says_what_each_needs(db):
    legacy = _json(runner.invoke(app, ["rank", "--json", "--include-legacy", "--db", str(db)]))
    assert "GeForce GTX 1080 Ti" in [r["model"] for r in legacy]
    assert "Tesla V100 PCIe 16 GB" not in [r["model"] for r in legacy]  # passive as well
    both = _json(runner.invoke(app, ["rank", "--json", "--include-legacy", "--include-passive", "--db", str(db)]))
    assert {"Tesla V100 PCIe 16 GB", "A100 PCIe 40 GB"} <= {r["model"] for r in both}
    assert [r["model"] for r in _json(runner.invoke(app, ["rank", "--json", "--min-memory", "2", "--db", str(db)]))
            ].count("GeForce GTX 1060 3 GB") == 1
    everything = _json(runner.invoke(app, ["rank", "--json", "--all", "--db", str(db)]))
    assert [r["rank"] for r in everything] == [r["rank_shown"] for r in everything] == list(range(1, 17))
    assert len(_json(runner.invoke(app, ["rank", "--json", "--top", "3", "--db", str(db)]))) == 3

    table = runner.invoke(app, ["rank", "--include-legacy", "--include-passive", "--db", str(db)])
    assert table.exit_code == 0, table.output
    assert "GeForce GTX 1080 Ti †" in table.stdout and "(passive)" in table.stdout
    assert "† legacy PyTorch builds only" in table.stdout and "needs a fan kit" in table.stdout
    assert "hidden: 3 ranked card(s)" in table.stdout  # the K80, the module and the 3 GB card


def test_supported_only_wins_over_include_legacy(db):
    rows = _json(runner.invoke(app, ["rank", "--json", "--include-legacy", "--supported-only", "--db", str(db)]))
    assert all(r["framework_support"] == "current" for r in rows)


def test_recommend_never_offers_a_3_gb_card_by_default_and_can_offer_a_module(db):
    res = runner.invoke(app, ["recommend", "--budget", "300", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "GTX 1060 3 GB" not in res.stdout and "at least 6 GB" in res.stdout
    # The Tesla K80 (no PyTorch build runs it) is left out without a hint at --all, which recommend lacks.
    left_out = " ".join(res.stdout.split())
    assert "left out" in left_out and "1 no PyTorch build runs it" in left_out and "--all" not in left_out
    assert "H100 SXM5" not in runner.invoke(app, ["recommend", "--budget", "3000", "--db", str(db)]).stdout
    modules = runner.invoke(app, ["recommend", "--budget", "3000", "--include-modules", "--db", str(db)])
    assert modules.exit_code == 0, modules.output
    # Two 700 W modules fit no two-card desktop's 1,200 W supply even power-limited: one is fastest and best value.
    assert "Fastest and best value: H100 SXM5 80 GB, $1,000" in modules.stdout and "not a desktop card: an SXM/OAM module" in " ".join(modules.stdout.split())
    ranked = runner.invoke(app, ["rank", "--include-modules", "--db", str(db)], terminal_width=250).stdout
    assert "H100 SXM5 80 GB (module)" in ranked and "(module): not a desktop card" in ranked
    legacy = runner.invoke(app, ["recommend", "--budget", "200", "--include-legacy", "--db", str(db)])
    assert "GeForce GTX 1080 Ti" in legacy.stdout and "legacy PyTorch builds only" in legacy.stdout


def test_a_day_without_a_ranking_or_an_empty_warehouse_says_so_not_that_filters_matched_nothing(db, tmp_path):
    from gpuvalue.warehouse.db import open_database

    for args in (["rank", "--date", "2020-01-01"], ["rank", "--date", "2020-01-01", "--json"]):
        res = runner.invoke(app, [*args, "--db", str(db)])
        assert res.exit_code == 2
        assert "error: no ranking for 2020-01-01: the ranked days run from " in res.output
        assert "match those filters" not in res.output
    filtered = runner.invoke(app, ["rank", "--vendor", "Intel", "--db", str(db)])
    assert filtered.exit_code == 0 and "No ranked GPUs match those filters." in filtered.output
    # A vendor the day ranks nothing under is told apart, with the values it has.
    assert "--vendor 'Intel' is none of the ranked vendors: AMD, NVIDIA" in filtered.output
    typo = runner.invoke(app, ["rank", "--segment", "laptop", "--db", str(db)])
    assert typo.exit_code == 0 and "--segment 'laptop' is none of the ranked segments: " in typo.output
    priced_out = runner.invoke(app, ["rank", "--vendor", "nvidia", "--max-price", "1", "--db", str(db)])
    assert "No ranked GPUs match those filters." in priced_out.output and "is none of" not in priced_out.output
    empty = tmp_path / "empty.duckdb"
    open_database(empty).close()
    res = runner.invoke(app, ["rank", "--db", str(empty)])
    assert res.exit_code == 2 and "error: nothing is ranked yet: `gpuvalue run` ranks today" in res.output


def test_recommend_perf_and_gpus_on_a_warehouse_with_nothing_yet_say_how_to_fill_it(tmp_path):
    from gpuvalue.warehouse.db import open_database

    empty = tmp_path / "empty.duckdb"
    open_database(empty).close()
    res = runner.invoke(app, ["recommend", "--budget", "500", "--db", str(empty)])
    assert res.exit_code == 2 and "error: nothing is ranked yet: `gpuvalue run` ranks today" in res.output
    res = runner.invoke(app, ["perf", "--db", str(empty)])
    assert res.exit_code == 2 and "error: no fp16 performance figures yet: `gpuvalue run` loads" in res.output
    res = runner.invoke(app, ["gpus", "--db", str(empty)])
    assert res.exit_code == 2 and "error: the catalog is empty: `gpuvalue run` loads the specs" in res.output


def test_an_empty_ranking_prints_no_table_and_no_note_about_older_prices(monkeypatch):
    """`gpuvalue run` prints the day's ranking even when nothing was priced: then nothing at all."""
    import io

    from rich.console import Console

    from gpuvalue.flows.cli import rank_cli

    screen = io.StringIO()
    monkeypatch.setattr(rank_cli, "out", Console(file=screen, width=200))
    rank_cli.print_ranking([], "Performance per $1000")
    assert screen.getvalue() == ""


def test_a_replayed_day_says_so_in_the_rank_title_as_the_run_did(tmp_path):
    """`gpuvalue run --replay` titled the day "(replay of recorded pages)"; `gpuvalue rank` afterwards
    showed the same day as plain "as of", its prices as old as their recordings."""
    path = tmp_path / "g.duckdb"
    make_ranking_database(path).close()

    def title() -> str:
        res = runner.invoke(app, ["rank", "--db", str(path)], terminal_width=250)
        assert res.exit_code == 0, res.output
        return [line for line in res.stdout.splitlines() if not line.startswith("Note: this ranking is of")][0].strip()

    assert title().endswith(f"as of {LATEST_DAY}")
    con = duckdb.connect(str(path))
    con.execute("INSERT INTO runs (run_id, source, stage, as_of, replay, started_at, status) "
                "VALUES ('r1', 'lambda', 'fetch', ?, true, TIMESTAMP '2026-11-30 06:00', 'ok')", [LATEST_DAY])
    con.close()
    assert title().endswith(f"as of {LATEST_DAY} (replay of recorded pages)")
    con = duckdb.connect(str(path))  # a live run of the same day later: its prices are of that day again
    con.execute("INSERT INTO runs (run_id, source, stage, as_of, replay, started_at, status) "
                "VALUES ('r2', 'lambda', 'fetch', ?, false, TIMESTAMP '2026-11-30 07:00', 'ok')", [LATEST_DAY])
    con.close()
    assert title().endswith(f"as of {LATEST_DAY}")


def test_the_latest_ranking_of_long_ago_says_so_before_its_table(tmp_path, monkeypatch):
    """A ranking backfilled or left by a stopped schedule read as fresh: ages and 'stale' are counted
    on its own day ("6 d", "no") a year later."""
    from datetime import timedelta

    from gpuvalue.flows.cli import cli_app

    path = tmp_path / "g.duckdb"
    make_ranking_database(path).close()
    monkeypatch.setattr(cli_app, "utc_today", lambda: LATEST_DAY + timedelta(days=400))
    note = (f"Note: this ranking is of {LATEST_DAY}, 13 mo before today ({LATEST_DAY + timedelta(days=400)}); "
            f"its prices' ages and 'stale' are counted on {LATEST_DAY}.")
    rank = runner.invoke(app, ["rank", "--db", str(path)], terminal_width=250)
    assert rank.stdout.startswith(note)
    recommend = runner.invoke(app, ["recommend", "--budget", "900", "--db", str(path)], terminal_width=250)
    assert recommend.stdout.startswith(note)
    # Asked for by its date, a past ranking is what was asked for; JSON lines stay JSON lines.
    assert "Note:" not in runner.invoke(app, ["rank", "--date", str(LATEST_DAY), "--db", str(path)]).stdout
    assert "Note:" not in runner.invoke(app, ["rank", "--json", "--db", str(path)]).stdout
    monkeypatch.setattr(cli_app, "utc_today", lambda: LATEST_DAY + timedelta(days=1))
    assert "Note:" not in runner.invoke(app, ["rank", "--db", str(path)]).stdout  # yesterday's is today's
