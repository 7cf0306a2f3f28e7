"""`gpuvalue gpus QUERY` and `gpuvalue perf QUERY` take a part of a name; a number the query ends
with is not the start of a longer one where the query stands whole in some name. Real DuckDB."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gpuvalue.models.records import PerfFigure
from gpuvalue.warehouse import load, queries
from gpuvalue.warehouse.db import open_database

MODELS = ("A100 PCIe 40 GB", "A100 SXM4 80 GB", "RTX A1000", "RTX A1000 Mobile", "GeForce RTX 3060 12 GB",
          "GeForce RTX 3070", "GeForce RTX 3090")


@pytest.fixture
def con():
    c = open_database(":memory:")
    for model in MODELS:
        c.execute("INSERT INTO gpus (model, vendor) VALUES (?, 'NVIDIA')", [model])
    with load.transaction(c):
        load.replace_perf(c, "estimate", [
            PerfFigure(model=m, precision="fp16", relative_perf=1.0, source="estimate", method="estimate: x",
                       reference="GeForce RTX 3090", measured=False) for m in MODELS],
            datetime(2026, 12, 1, tzinfo=UTC))
    yield c
    c.close()


@pytest.mark.parametrize(("query", "expected"), [
    ("A100", {"A100 PCIe 40 GB", "A100 SXM4 80 GB"}),  # not the RTX A1000s
    ("a1000", {"RTX A1000", "RTX A1000 Mobile"}),
    ("RTX 30", {"GeForce RTX 3060 12 GB", "GeForce RTX 3070", "GeForce RTX 3090"}),  # whole nowhere: every part
    ("3060", {"GeForce RTX 3060 12 GB"}),
])
def test_a_query_that_stands_whole_in_a_name_leaves_out_longer_numbers(con, query, expected):
    assert {r["model"] for r in queries.gpu_rows(con, query=query)} == expected
    assert {r["model"] for r in queries.perf_relative(con, precision="fp16", reference="GeForce RTX 3090",
                                                       query=query)} == expected
