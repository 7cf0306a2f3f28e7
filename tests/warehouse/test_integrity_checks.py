"""The integrity checks are SQL files; they run after every load and on demand (`gpuvalue check`)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse import checks
from gpuvalue.warehouse.db import open_database


@pytest.fixture()
def db(tmp_path):
    path = tmp_path / "w.duckdb"
    open_database(path).close()
    return path


def test_every_check_file_runs_on_an_empty_warehouse(db):
    con = open_database(db)
    try:
        results = checks.run_checks(con)
    finally:
        con.close()
    assert {r.name for r in results} == {*checks.check_files(), "models_match_their_files"} and len(results) >= 9
    assert all(r.ok for r in results)


def test_a_failed_check_names_itself_and_stops(db):
    con = open_database(db)
    try:
        con.execute("INSERT INTO perf (model, precision, source, relative_perf, method, reference, measured, loaded_at) "
                    "VALUES ('No Such Card', 'fp16', 'x', 1.0, 'm', 'r', true, now())")
        with pytest.raises(checks.IntegrityError, match="perf models missing from catalog: 1"):
            checks.raise_on_failure(con)
    finally:
        con.close()


def test_check_command_exits_1_on_failure_and_0_when_healthy(db):
    runner = CliRunner()
    ok = runner.invoke(app, ["check", "--db", str(db)])
    assert ok.exit_code == 0, ok.output
    assert "integrity checks passed" in ok.output
    con = open_database(db)
    con.execute("INSERT INTO perf (model, precision, source, relative_perf, method, reference, measured, loaded_at) "
                    "VALUES ('No Such Card', 'fp16', 'x', 1.0, 'm', 'r', true, now())")
    con.close()
    bad = runner.invoke(app, ["check", "--db", str(db)])
    assert bad.exit_code == 1
    assert "FAILED perf models missing from catalog: 1 rows" in bad.output


@pytest.mark.parametrize("corruption, check", [
    ("UPDATE ranking_daily SET rank = 1 WHERE rank = 2", "ranking_days_with_gaps_in_rank"),
    ("UPDATE ranking_daily SET perf_per_dollar = perf_per_dollar * 10 WHERE rank = 1", "ranking_rows_out_of_step"),
    ("UPDATE ranking_daily SET price_usd = -5 WHERE rank = 1", "ranking_rows_out_of_step"),
    ("UPDATE prices_daily SET price_usd = 0 WHERE model = (SELECT min(model) FROM prices_daily)", "prices_not_positive"),
    ("INSERT INTO gpus (model) SELECT DISTINCT model FROM listings WHERE model IS NOT NULL; "
     "UPDATE listings SET model = 'No Such GPU' WHERE listing_id = (SELECT min(listing_id) FROM listings)",
     "listed_models_missing_from_catalog"),
])
def test_each_check_catches_what_it_names(tmp_path, corruption, check):
    from conftest_exports import make_ranking_database

    con = make_ranking_database(str(tmp_path / "seeded.duckdb"))
    try:
        *setup, corruption = corruption.split("; ")
        for statement in setup:  # a catalog for the seed where the check needs one
            con.execute(statement)
        before = {r.name: r.offending for r in checks.run_checks(con)}
        con.execute(corruption)
        after = {r.name: r.offending for r in checks.run_checks(con)}
    finally:
        con.close()
    assert after[check] > before[check], (before[check], after[check])
