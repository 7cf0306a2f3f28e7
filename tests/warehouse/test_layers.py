"""The warehouse as named layers: every table, view and macro is one model file under
warehouse/models/<layer>/, a warehouse is built from those files (and upgraded with the migrations'
changes to stored tables), and `gpuvalue check` compares a live warehouse with them."""

from __future__ import annotations

import re
from contextlib import closing
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from conftest_exports import schema_history, warehouse_at_version
from gpuvalue.flows.cli import app
from gpuvalue.warehouse import layers
from gpuvalue.warehouse.db import migrate, migrations, open_database

ROOT = Path(__file__).resolve().parents[2]
WAREHOUSE = ROOT / "warehouse"
DEFINES = re.compile(r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?!TEMP)(TABLE|VIEW|MACRO)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)",
                     re.IGNORECASE | re.MULTILINE)


def _definitions() -> dict[str, list[str]]:
    """Per name, the files under warehouse/ that create it as a stored table, a view or a macro."""
    found: dict[str, list[str]] = {}
    for path in sorted(WAREHOUSE.rglob("*.sql")):
        text = re.sub(r"--[^\n]*", "", path.read_text(encoding="utf-8"))
        for _kind, name in DEFINES.findall(text):
            found.setdefault(name.lower(), []).append(str(path.relative_to(ROOT)))
    return found


def test_no_table_view_or_macro_is_defined_in_more_than_one_file():
    twice = {name: files for name, files in _definitions().items() if len(files) > 1}
    assert not twice, twice


def test_each_model_is_defined_only_in_its_own_file_and_migrations_define_no_view():
    definitions = _definitions()
    for model in layers.models():
        if model.path.endswith(".sql"):
            assert definitions[model.name] == [model.path], model.name
        else:  # a table its record declares (warehouse/record_tables.py): no SQL file defines it
            assert model.name not in definitions, model.name
            assert (ROOT / model.path).is_file(), model.path
    for _version, name, text in migrations():
        code = re.sub(r"--[^\n]*", "", text)
        assert not re.search(r"\bCREATE\s+(OR\s+REPLACE\s+)?(VIEW|MACRO)\b", code, re.I), name
        # A column an older warehouse gains may already be there: its table was made from its model file.
        for statement in re.findall(r"ALTER\s+TABLE[^;]*ADD\s+COLUMN[^;]*;", code, re.I):
            assert re.search(r"ADD\s+COLUMN\s+IF\s+NOT\s+EXISTS", statement, re.I), (name, statement)


def test_models_are_in_layers_and_read_only_models_of_their_layer_or_below():
    order = {layer: i for i, layer in enumerate(layers.LAYERS)}
    known = layers.by_name()
    assert {m.layer for m in layers.models()} == set(layers.LAYERS)
    for model in layers.models():
        if model.layer == "ops":
            continue
        for name in model.inputs:
            source = known[name]
            assert source.layer == "ops" or order[source.layer] <= order[model.layer], (model.name, name)
    assert layers.by_name()["stg_price_observations"].inputs == (
        "asking_price_observation", "listing_snapshots", "listings", "sold_price_observation", "used_market_listing")
    assert layers.by_name()["ranking_daily"].inputs == ("gpus", "perf_best", "price_index_monthly", "prices_daily")


def test_a_new_warehouse_is_its_model_files_and_nothing_else():
    with closing(open_database(":memory:")) as con:
        assert layers.drift(con) == []
        assert layers.undeclared(con) == []
        kinds = {kind: set(names) for kind, names in layers.catalog(con).items()}
    assert kinds["table"] == {m.name for m in layers.models() if m.kind == "table"} | {layers.LEDGER}
    assert kinds["view"] == {m.name for m in layers.models() if m.kind == "view"}


@pytest.mark.e2e  # about 2.5 s: eighteen older warehouses built and upgraded
def test_every_older_warehouse_upgrades_to_what_a_new_one_is(tmp_path):
    """A warehouse each earlier release left (its own migrations, tests/fixtures/schema_history)
    ends, upgraded, with the tables, keys, views and macros of one built from the model files."""
    with closing(open_database(":memory:")) as con:
        expected = layers.catalog(con)
    versions = [v for v, _, _ in schema_history()]
    assert versions == [v for v, _, _ in migrations()]
    for version in versions[:-1]:
        with closing(warehouse_at_version(tmp_path / f"v{version}.duckdb", version)) as con:
            migrate(con)
            assert layers.catalog(con) == expected, version


def test_the_price_observation_rules_are_stated_once():
    """The incremental refresh applies stg_price_observations' rules through its macros."""
    refresh = (WAREHOUSE / "sql" / "refresh_price_observations.sql").read_text(encoding="utf-8")
    code = re.sub(r"--[^\n]*", "", refresh)
    assert "'refurbished'" not in code and "AUCTION" not in code and "quantity, 1" not in code
    for macro in ("used_market_listing", "sold_price_observation", "asking_price_observation"):
        assert macro in code


@pytest.mark.parametrize("change, reported", [
    ("CREATE OR REPLACE VIEW perf_best AS SELECT * FROM perf", "model perf_best: its stored SQL differs"),
    ("ALTER TABLE runs ADD COLUMN extra INTEGER", "model runs: its columns or keys differ"),
    ("DROP VIEW rent_vs_buy_inputs", "model rent_vs_buy_inputs: the warehouse has no view"),
    ("CREATE OR REPLACE MACRO used_market_listing(model, quantity, condition_class) AS model IS NOT NULL",
     "model used_market_listing: its stored SQL differs"),
])
def test_the_check_names_a_model_that_differs_from_its_file(tmp_path, change, reported):
    db = tmp_path / "w.duckdb"
    open_database(db).close()
    with closing(duckdb.connect(str(db))) as con:  # a change made outside gpuvalue
        con.execute(change)
    result = CliRunner().invoke(app, ["check", "--db", str(db)])
    assert result.exit_code == 1, result.output
    assert "FAILED models match their files: 1 models; " + reported in result.output
    open_database(db).close()  # the next write recreates views and macros from their files
    result = CliRunner().invoke(app, ["check", "--db", str(db)])
    assert (result.exit_code == 0) == (not change.startswith("ALTER")), result.output


def test_the_docs_show_the_lineage_as_the_files_give_it():
    doc = (ROOT / "docs" / "warehouse.md").read_text(encoding="utf-8")
    assert layers.lineage_markdown() in doc, "docs/warehouse.md: paste `uv run python -m gpuvalue.warehouse.layers`"


def test_a_model_file_defines_the_model_its_name_says(tmp_path):
    with pytest.raises(layers.ModelFileError, match="does not create"):
        layers._parsed("raw", "listings", "CREATE TABLE IF NOT EXISTS offers (x INTEGER);")
    with pytest.raises(layers.ModelFileError, match="2 statements"):
        layers._parsed("raw", "a", "CREATE TABLE a (x INTEGER);\nCREATE TABLE b (y INTEGER);")
