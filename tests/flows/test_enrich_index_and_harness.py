"""The enrich stage's match of the price indexes' names and the harnesses' devices: a parser returns
what its page says, the enrich step (flows/enrich.py) matches it with what the source declares, and
the warehouse refuses what was never matched. Real DuckDB, no Prefect."""

from __future__ import annotations

from contextlib import closing
from datetime import date, datetime, timezone

import pytest

from gpuvalue.flows.enrich import harness_figures, index_points
from gpuvalue.models.harness import HarnessFigure
from gpuvalue.models.price_index import PriceIndexPoint
from gpuvalue.scrapers.sources import gpupoet_market_reports as reports
from gpuvalue.scrapers.sources import mlperf_training as mlperf
from gpuvalue.scrapers.sources import tomshardware_ebay_index as index
from gpuvalue.warehouse.db import open_database
from gpuvalue.warehouse.harness import replace_harness_figures
from gpuvalue.warehouse.price_index import load_price_index

LOADED = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
MONTH = date(2023, 10, 1)


def _point(source: str, name: str, **extra) -> PriceIndexPoint:
    return PriceIndexPoint(source=source, gpu_name=name, month=MONTH, avg_sold_usd=300.0, published=MONTH,
                           table="t.csv", **extra)


def _figure(harness: str, device: str, **extra) -> HarnessFigure:
    return HarnessFigure(harness=harness, device=device, resolve_as=device, workload="bert", mode="train",
                         precision="fp16", metric="minutes_to_train", value=20.0, framework="vendor stack",
                         run=f"{device} run", **extra)


def test_an_index_is_matched_with_its_declared_naming():
    beside = ("Radeon RX 6700", "Radeon RX 6700 10GB")
    bare, stated = index_points(index.NAME, [_point(index.NAME, name, listed_beside=beside) for name in beside])
    assert (stated.model, stated.match_reason) == ("Radeon RX 6700", "matched: 6700")
    assert bare.model is None and bare.match_reason.startswith("ambiguous")  # its article lists the 10 GB apart
    (card,) = index_points(reports.NAME, [_point(reports.NAME, "RTX 3090", match_title="NVIDIA GeForce RTX 3090")])
    assert card.model == "GeForce RTX 3090" and card.match_reason.endswith("(as NVIDIA GeForce RTX 3090)")
    (plain,) = index_points("an-index-no-module-declares", [_point("an-index-no-module-declares", "RTX 3090")])
    assert plain.model == "GeForce RTX 3090"


def test_a_harness_device_is_resolved_with_its_declared_aliases_and_titles():
    titled, aliased, laptop = harness_figures(mlperf.NAME, [
        _figure(mlperf.NAME, "NVIDIA H200-SXM5-141GB"),  # a title the matcher reads right
        _figure(mlperf.NAME, "Habana Gaudi2"),  # kept out by the alias table
        _figure(mlperf.NAME, "GeForce RTX 4070 Laptop GPU", excluded="a reason of the parser"),
    ])
    assert (titled.model, titled.excluded, titled.resolve_as) == ("H200 SXM 141 GB", None, None)
    assert aliased.model is None and aliased.excluded.startswith("not a GPU")
    assert laptop.excluded == "laptop part"  # the resolution's reason wins over the parser's
    (noted,) = harness_figures("a-harness-no-module-declares", [_figure("x", "GeForce RTX 3080", memory_gb=20.0)])
    assert noted.model == "GeForce RTX 3080" and "memory 20 GB as published" in noted.note


def test_the_warehouse_refuses_what_the_enrich_stage_never_matched(tmp_path):
    with closing(open_database(tmp_path / "w.duckdb")) as con:
        with pytest.raises(ValueError, match="not matched yet"):
            load_price_index(con, [_point(index.NAME, "GeForce RTX 3090")], LOADED)
        with pytest.raises(ValueError, match="not resolved yet"):
            replace_harness_figures(con, mlperf.NAME, [_figure(mlperf.NAME, "NVIDIA H100 80GB HBM3")], LOADED)
