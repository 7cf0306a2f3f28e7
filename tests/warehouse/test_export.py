import csv
import json
import os
from datetime import date, datetime, timezone
from pathlib import Path

import jsonschema
import pyarrow.parquet as pq
import pytest
from conftest_exports import LATEST_DAY, RANKING_DAYS, REFERENCE_GPU, make_ranking_database, open_test_database
from gpuvalue.warehouse.outputs import export
from gpuvalue.warehouse.outputs.export import (
    RANKING_CSV_COLUMNS,
    RANKING_JSON_FIELDS,
    SCHEMA_PATH,
    ExportError,
    export_all,
    export_parquet,
    export_ranking_csv,
    export_ranking_json,
    ranking_rows,
    sources_from_db,
)

INTEGER = {"rank", "price_n", "tdp_w", "price_age_days"}
FLOAT = {"memory_gb", "bandwidth_gb_s", "price_usd", "price_q1", "price_q3", "relative_perf", "perf_per_dollar"}
BOOLEAN = {"stale", "framework_supported", "desktop_usable", "passive"}
DATE = {"price_as_of", "as_of"}


@pytest.fixture(scope="module")
def con():
    connection = make_ranking_database()
    yield connection
    connection.close()


def typed(column: str, text: str):
    """Read a CSV cell back the way the export documents it."""
    if text == "":
        return None
    if column in INTEGER:
        return int(text)
    if column in FLOAT:
        return float(text)
    if column in BOOLEAN:
        return {"true": True, "false": False}[text]
    if column in DATE:
        return date.fromisoformat(text)
    return text


def expected(con, day, fields):
    return [{field: row[field] for field in fields} for row in ranking_rows(con, day)]


def test_csv_has_documented_columns_and_loads_back_with_the_same_rows(con, tmp_path):
    path = tmp_path / "ranking.csv"
    assert export_ranking_csv(con, path) == 15
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        loaded = [{column: typed(column, cell) for column, cell in zip(header, line)} for line in reader]
    assert header == list(RANKING_CSV_COLUMNS)
    # Columns added since schema 1.0 come after the first ones, which keep their places.
    assert header[0] == "rank" and header.index("as_of") == 20 and header[-3] == "price_tier" and header[-2:] == ["perf_low", "perf_high"]
    assert loaded == expected(con, LATEST_DAY, RANKING_CSV_COLUMNS)
    # The awkward rows survive whole: unknown architecture/bandwidth, no support, launch price.
    k80 = next(row for row in loaded if row["model"] == "Tesla K80")
    assert k80 == {
        "rank": 1, "model": "Tesla K80", "vendor": "NVIDIA", "architecture": None, "segment": "datacenter",
        "memory_gb": 24.0, "bandwidth_gb_s": None, "price_usd": 60.0, "price_kind": "sold", "price_n": 3,
        "price_q1": 55.2, "price_q3": 64.2, "price_as_of": date(2024, 5, 8), "stale": False,
        "relative_perf": 0.15, "perf_source": "estimate", "perf_per_dollar": 2.5, "framework_supported": False,
        "desktop_usable": True, "reference_gpu": REFERENCE_GPU, "as_of": LATEST_DAY,
        "framework_support": "none", "passive": False, "price_source": None, "price_age_days": None,
        "price_tier": None, "perf_low": None, "perf_high": None,  # a hand-written row without an interval
    }
    launch = next(row for row in loaded if row["model"] == "GeForce GTX 1660 SUPER")
    assert (launch["price_kind"], launch["price_n"], launch["price_q1"], launch["stale"], launch["price_as_of"]) == (
        "launch", 0, None, True, date(2019, 10, 29))


def test_csv_for_an_earlier_day_and_for_days_without_a_ranking(con, tmp_path):
    path = tmp_path / "ranking.csv"
    export_ranking_csv(con, path, as_of=RANKING_DAYS[0])
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["as_of"] for row in rows} == {"2024-05-01"}
    assert next(row for row in rows if row["model"] == "GeForce RTX 3090")["price_usd"] == "800.0"
    with pytest.raises(ExportError, match="no ranking for 2024-05-02"):
        export_ranking_csv(con, path, as_of=date(2024, 5, 2))
    empty = open_test_database()
    with pytest.raises(ExportError, match="ranking_daily is empty"):
        export_ranking_csv(empty, tmp_path / "empty.csv")
    assert not (tmp_path / "empty.csv").exists()


def validator():
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def test_json_validates_against_the_published_schema_and_loads_back(con, tmp_path):
    path = tmp_path / "ranking.json"
    generated = datetime(2024, 5, 9, 7, 30, tzinfo=timezone.utc)
    count = export_ranking_json(
        con, path, reference_gpu=REFERENCE_GPU, sources=sources_from_db(con), generated_at=generated
    )
    document = json.loads(path.read_text())
    validator().validate(document)
    assert count == len(document["rows"]) == 15
    assert (document["generated_at"], document["as_of"], document["reference_gpu"], document["schema_version"]) == (
        "2024-05-09T07:30:00+00:00", "2024-05-09", REFERENCE_GPU, "1.2")
    assert document["replay"] is False and "note" not in document  # the fixture's runs were live
    reloaded = [
        {field: date.fromisoformat(value) if field in DATE else value for field, value in row.items()}
        for row in document["rows"]
    ]
    assert reloaded == expected(con, LATEST_DAY, RANKING_JSON_FIELDS)
    assert "Launch prices and specifications: Wikipedia contributors, CC BY-SA 4.0" in document["attribution"]
    assert any("TechPowerUp" in line for line in document["attribution"])
    assert any("eBay" in line for line in document["attribution"])
    assert any("Lambda" in line for line in document["attribution"])
    # The schema travels with the file, byte for byte the published one.
    assert (tmp_path / "ranking.schema.json").read_bytes() == SCHEMA_PATH.read_bytes()


def test_schema_rejects_a_broken_row(con, tmp_path):
    path = tmp_path / "ranking.json"
    export_ranking_json(con, path, reference_gpu=REFERENCE_GPU, sources=[{"name": "wikipedia", "status": "ok"}])
    document = json.loads(path.read_text())
    document["rows"][0]["price_kind"] = "guess"
    with pytest.raises(jsonschema.ValidationError):
        validator().validate(document)


def test_json_refuses_a_reference_the_ranking_was_not_computed_against(con, tmp_path):
    with pytest.raises(ExportError, match="relative to"):
        export_ranking_json(con, tmp_path / "ranking.json", reference_gpu="GeForce RTX 4090", sources=[])
    assert not (tmp_path / "ranking.json").exists()


def test_sources_are_derived_from_runs_and_data(con):
    assert sources_from_db(con) == [
        {"name": "ebay-browse", "kind": "listings", "status": "ok", "fetched_at": "2024-05-09T06:03:00",
         "as_of": "2024-05-09", "attribution": "Used-market prices: eBay listings (eBay Inc. and its sellers)",
         "licence": "eBay content; prices cited as facts"},
        {"name": "hardwareswap", "kind": "listings", "status": "unknown", "fetched_at": "2024-05-03T18:00:00",
         "as_of": "2024-05-03", "attribution": "Used-market prices: r/hardwareswap posts (Reddit and its users)",
         "licence": "Reddit content; prices cited as facts"},
        {"name": "lambda-pytorch-2024", "kind": "perf", "status": "unknown", "fetched_at": "2024-05-09T06:05:00",
         "as_of": "2024-01-15", "attribution": "Training benchmarks: Lambda (lambdalabs.com GPU benchmarks)",
         "licence": "Lambda benchmark data; figures cited with attribution"},
        # The latest run failed: the status says so, and freshness is the last good fetch. No spec rows of
        # its own in this fixture: no date of data (the day a run was for is not the date of any data).
        {"name": "techpowerup", "kind": "specs", "status": "failed", "fetched_at": "2024-05-08T06:03:00",
         "as_of": None, "attribution": "GPU specifications: TechPowerUp GPU Database (techpowerup.com)",
         "licence": "TechPowerUp content; facts cited with attribution"},
        {"name": "wikipedia", "kind": "specs", "status": "ok", "fetched_at": "2024-05-09T06:03:00",
         "as_of": None, "attribution": "Launch prices and specifications: Wikipedia contributors, CC BY-SA 4.0",
         "licence": "CC BY-SA 4.0"},
    ]


def test_unknown_and_imported_sources_are_still_named():
    assert export.normalize_source({"name": "import:shop-export"})["attribution"] == "Imported listings: shop-export"
    from gpuvalue.scrapers import registry

    assert export.normalize_source({"name": "nvidia-cuda"}, registry.catalog())["kind"] == "specs"
    combined = export.normalize_source({"name": "combined"}, registry.catalog())
    assert combined["kind"] == "perf" and "combined by gpuvalue" in combined["attribution"]
    odd = export.normalize_source({"name": "mystery", "status": "ok"})
    assert (odd["kind"], odd["attribution"], odd["licence"]) == ("other", "Data source: mystery", "unknown")


def test_parquet_loads_back_with_the_same_rows(con, tmp_path):
    path = tmp_path / "ranking.parquet"
    assert export_parquet(con, path, as_of=RANKING_DAYS[1]) == 15
    table = pq.read_table(path)
    assert table.column_names == list(RANKING_JSON_FIELDS)
    assert table.to_pylist() == expected(con, RANKING_DAYS[1], RANKING_JSON_FIELDS)


def test_parquet_path_with_quotes_is_just_a_file_name(con, tmp_path):
    path = tmp_path / "it's'; DROP TABLE ranking_daily; --.parquet"
    assert export_parquet(con, path) == 15
    assert pq.read_table(path).num_rows == 15
    assert con.execute("SELECT count(*) FROM ranking_daily").fetchone()[0] == 45


def test_a_failure_mid_write_leaves_the_old_file_intact(con, tmp_path, monkeypatch):
    path = tmp_path / "ranking.csv"
    path.write_text("old,complete,file\n")
    calls = {"n": 0}
    real_cell = export.csv_cell

    def failing_cell(value):
        calls["n"] += 1
        if calls["n"] > 50:  # a couple of rows are already written by then
            raise OSError("disk full")
        return real_cell(value)

    monkeypatch.setattr(export, "csv_cell", failing_cell)
    with pytest.raises(OSError, match="disk full"):
        export_ranking_csv(con, path)
    assert path.read_text() == "old,complete,file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ranking.csv"]  # no temp file left behind


def test_a_failing_parquet_writer_leaves_the_old_file_intact(con, tmp_path, monkeypatch):
    path = tmp_path / "ranking.parquet"
    export_parquet(con, path)
    before = path.read_bytes()

    def half_then_fail(table, handle, **kwargs):
        handle.write(b"PAR1 half a file")
        raise RuntimeError("killed")

    monkeypatch.setattr(pq, "write_table", half_then_fail)
    with pytest.raises(RuntimeError, match="killed"):
        export_parquet(con, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["ranking.parquet"]


def test_bad_export_paths_give_export_error(con, tmp_path):
    with pytest.raises(ExportError, match="does not exist"):
        export_ranking_csv(con, tmp_path / "missing" / "ranking.csv")
    with pytest.raises(ExportError, match="is a directory"):
        export_ranking_csv(con, tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ExportError, match="not a directory"):
        export_parquet(con, blocker / "ranking.parquet")
    with pytest.raises(ExportError, match="not a directory"):
        export_all(con, blocker)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root may write to any directory")
def test_read_only_directory_gives_export_error(con, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(ExportError, match="not writable"):
            export_ranking_csv(con, locked / "ranking.csv")
    finally:
        locked.chmod(0o700)


def test_export_all_writes_every_format_into_a_new_directory(con, tmp_path):
    out = tmp_path / "site" / "data"
    paths = export_all(con, out, generated_at=datetime(2024, 5, 9, 7, 0, tzinfo=timezone.utc))
    assert {key: path.name for key, path in paths.items()} == {
        "csv": "ranking.csv", "json": "ranking.json", "schema": "ranking.schema.json",
        "feed": "feed.json", "parquet": "ranking.parquet",
    }
    assert sorted(p.name for p in out.iterdir()) == sorted(path.name for path in paths.values())
    document = json.loads(paths["json"].read_text())
    validator().validate(document)
    assert document["reference_gpu"] == REFERENCE_GPU
    assert [source["name"] for source in document["sources"]] == [
        "ebay-browse", "hardwareswap", "lambda-pytorch-2024", "techpowerup", "wikipedia"]
    assert json.loads(paths["feed"].read_text())["version"] == "https://jsonfeed.org/version/1.1"
    assert pq.read_table(paths["parquet"]).num_rows == 15
    with pytest.raises(TypeError, match="unknown options"):
        export_all(con, out, refrence_gpu="typo")


def test_exported_files_are_readable_by_others(con, tmp_path):
    path = tmp_path / "ranking.csv"
    export_ranking_csv(con, path)
    assert Path(path).stat().st_mode & 0o044 == 0o044


def test_csv_cells_never_start_a_formula_and_numbers_stay_numbers():
    from gpuvalue.warehouse.export_files import csv_cell

    assert csv_cell('=HYPERLINK("x")') == '\'=HYPERLINK("x")'
    assert [csv_cell(text) for text in ("+1+2", "@SUM(A1)", "-A1", " =1", "\t=1", "\uff1d1")] == [
        "'+1+2", "'@SUM(A1)", "'-A1", "' =1", "'\t=1", "'\uff1d1"]
    assert [csv_cell(value) for value in (-3, -2.5, "-2.5", "1e-3", "RTX 3090", True)] == [
        "-3", "-2.5", "-2.5", "1e-3", "RTX 3090", "true"]
