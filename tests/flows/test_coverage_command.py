"""`gpuvalue coverage` prints the cards the run shops for, their searches, the count and the eBay call budget."""

from __future__ import annotations

import json
from datetime import date

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse.db import open_database

runner = CliRunner()

ROWS = [
    ("GeForce RTX 3090", "NVIDIA", "desktop", "PCIe triple-slot", 24.0, date(2020, 9, 1), "current"),
    ("GeForce RTX 3060 12 GB", "NVIDIA", "desktop", "PCIe dual-slot", 12.0, date(2021, 1, 12), "current"),
    ("GeForce RTX 3060 8 GB", "NVIDIA", "desktop", "PCIe dual-slot", 8.0, date(2022, 10, 12), "current"),
    ("Tesla P40", "NVIDIA", "datacenter", "PCIe passive", 24.0, date(2016, 9, 13), "legacy"),
    ("GeForce GTX 1650", "NVIDIA", "desktop", "PCIe dual-slot", 4.0, date(2019, 4, 23), "current"),
    ("H100 SXM5 80 GB", "NVIDIA", "datacenter", "SXM module", 80.0, date(2023, 3, 21), "current"),
]


def _catalog(con) -> None:
    for model, vendor, segment, form, memory, released, level in ROWS:
        con.execute("INSERT INTO gpus (model, vendor, segment, form_factor, memory_gb, release_date, released, "
                    "framework_support) VALUES (?, ?, ?, ?, ?, ?, true, ?)",
                    [model, vendor, segment, form, memory, released, level])


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("coverage") / "gpuvalue.duckdb"
    con = open_database(path)
    try:
        _catalog(con)
    finally:
        con.close()
    return path


def test_it_lists_the_covered_models_with_their_searches_and_the_call_budget(db):
    res = runner.invoke(app, ["coverage", "--db", str(db)])
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "4 models in 3 searches; a run makes up to 4 eBay Browse API calls (1 token + 3 searches x 1 page(s))" in text
    assert "default limit of 5,000 Browse API calls a day" in text
    assert "NVIDIA Tesla P40" in res.stdout and "GTX 1650" not in res.stdout and "H100" not in res.stdout


def test_json_and_the_settings_that_add_and_remove(db, monkeypatch):
    monkeypatch.setenv("GPUVALUE_COVERAGE_ADD", "GeForce GTX 1650")
    monkeypatch.setenv("GPUVALUE_COVERAGE_REMOVE", "Tesla P40,No Such Card")
    monkeypatch.setenv("GPUVALUE_EBAY_MAX_PAGES", "2")
    res = runner.invoke(app, ["coverage", "--json", "--db", str(db)])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert {r["model"]: (r["query"], r["why"]) for r in rows} == {
        "GeForce GTX 1650": ("NVIDIA GeForce GTX 1650", "added in settings"),
        "GeForce RTX 3060 12 GB": ("NVIDIA GeForce RTX 3060", "rule"),
        "GeForce RTX 3060 8 GB": ("NVIDIA GeForce RTX 3060", "rule"),
        "GeForce RTX 3090": ("NVIDIA GeForce RTX 3090", "rule"),
    }
    assert "not catalog models, ignored: No Such Card" in res.stderr
    table = runner.invoke(app, ["coverage", "--db", str(db)])
    assert "up to 7 eBay Browse API calls (1 token + 3 searches x 2 page(s))" in " ".join(table.stdout.split())


def test_a_page_count_the_ebay_sources_refuse_is_refused_as_they_refuse_it(db, monkeypatch):
    """Without an eBay setting coverage counts the sources' default pages without importing them; with
    one it reads the sources' own settings, and a value they refuse is said in one line."""
    monkeypatch.setenv("GPUVALUE_EBAY_MAX_PAGES", "0")
    res = runner.invoke(app, ["coverage", "--db", str(db)])
    assert res.exit_code == 2
    assert res.stderr.strip() == ("error: invalid settings: GPUVALUE_EBAY_MAX_PAGES='0': Input should be greater than "
                                  "or equal to 1")


def test_an_empty_catalog_says_what_to_run(tmp_path):
    path = tmp_path / "empty.duckdb"
    open_database(path).close()
    res = runner.invoke(app, ["coverage", "--db", str(path)])
    assert res.exit_code == 1 and "gpuvalue run" in res.stderr


def test_it_says_which_covered_cards_the_ranking_prices_and_rank_counts_the_others(tmp_path):
    """A buyer looking for a card `rank` does not show had nothing to say why: no price."""
    from conftest_exports import LATEST_DAY, insert_dicts, ranking_for

    path = tmp_path / "gpuvalue.duckdb"
    con = open_database(path)
    try:
        _catalog(con)
        insert_dicts(con, "ranking_daily", [r for r in ranking_for(LATEST_DAY) if r["model"] == "GeForce RTX 3090"])
    finally:
        con.close()
    rows = {r["model"]: r for r in map(json.loads, runner.invoke(app, ["coverage", "--json", "--db", str(path)]).stdout.splitlines())}
    assert rows["GeForce RTX 3090"]["rank"] is not None and rows["Tesla P40"]["rank"] is None
    text = " ".join(runner.invoke(app, ["coverage", "--db", str(path)], terminal_width=200).stdout.split())
    assert f"3 of them have no price in the ranking of {LATEST_DAY}" in text and "no price" in text
    ranked = " ".join(runner.invoke(app, ["rank", "--db", str(path)], terminal_width=200).stdout.split())
    assert f"not ranked: 3 of the 4 cards gpuvalue shops for have no price on {LATEST_DAY}" in ranked
    assert "not ranked" not in runner.invoke(app, ["rank", "--json", "--db", str(path)]).stdout
