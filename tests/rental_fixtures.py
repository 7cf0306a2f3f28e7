"""A small warehouse with used and rental prices, for the rental warehouse, output and CLI tests.

Built on conftest_exports' ranking warehouse (used prices and a ranking relative to the RTX 3090 in
fp16), plus a catalog row and fp16/fp32 performance figures for each of its cards, and rental offers
written by hand so every number below can be checked by reading it:

- 2025-01-10, source "cloud-a": aws (RTX 4090 $0.80/GPU-h, A100 PCIe 40 GB 8 GPUs $16/h with $6 spot),
  lambda (RTX 4090 $0.60, RTX A6000 $0.50), one unknown name ("Mystery X1") and one absurd price;
- 2025-02-01, source "cloud-a": aws only (RTX 4090 $0.70) -- lambda keeps its January prices;
- 2025-01-20, source "cloud-b": vast (RTX 3090 $0.20, RTX 4090 $0.45 with $0.30 spot, Tesla V100
  PCIe 16 GB spot only at $0.25) and lambda (RTX A6000 $0.55).
"""

from __future__ import annotations

from datetime import date, datetime, timezone

import duckdb

from conftest_exports import CARDS, REFERENCE_GPU, from_template, insert_dicts, make_ranking_database
from gpuvalue.models.rental import ProviderScore, RentalOffer
from gpuvalue.warehouse import load
from gpuvalue.warehouse.rental import load_rental_offers

LOADED = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
JAN, FEB, JAN_B = date(2025, 1, 10), date(2025, 2, 1), date(2025, 1, 20)
# Raw perf figures are stored relative to a different base (x2) so that a reader must rescale them
# by the reference card's own figure, as warehouse/models/marts/ranking_daily.sql does.
PERF_SCALE = 2.0


def offer(source: str, provider: str, gpu_name: str, model: str | None, day: date, *, per_hour: float | None,
          count: int = 1, spot: float | None = None, instance: str | None = None, region: str | None = None,
          currency: str = "USD") -> RentalOffer:
    return RentalOffer(
        source=source, provider=provider, instance_type=instance, gpu_name=gpu_name, model=model,
        match_reason="test" if model else "unknown GPU name", gpu_count=count, usd_per_hour=per_hour,
        usd_per_gpu_hour=None if per_hour is None else per_hour / count, spot_usd_per_hour=spot,
        spot_usd_per_gpu_hour=None if spot is None else spot / count, region=region, currency=currency, as_of=day,
    )


def cloud_a_january() -> list[RentalOffer]:
    return [
        offer("cloud-a", "aws", "RTX 4090", "GeForce RTX 4090", JAN, per_hour=0.80, instance="g-4090"),
        offer("cloud-a", "aws", "A100 (40 GB)", "A100 PCIe 40 GB", JAN, per_hour=16.0, count=8, spot=6.0),
        offer("cloud-a", "lambda", "RTX 4090", "GeForce RTX 4090", JAN, per_hour=0.60),
        offer("cloud-a", "lambda", "RTX A6000", "RTX A6000", JAN, per_hour=0.50),
        offer("cloud-a", "lambda", "Mystery X1", None, JAN, per_hour=1.00),
        offer("cloud-a", "aws", "RTX 3090", "GeForce RTX 3090", JAN, per_hour=0.0001),  # absurd: dropped
    ]


def cloud_a_february() -> list[RentalOffer]:
    return [offer("cloud-a", "aws", "RTX 4090", "GeForce RTX 4090", FEB, per_hour=0.70, instance="g-4090")]


def cloud_b() -> list[RentalOffer]:
    return [
        offer("cloud-b", "vast", "RTX 3090", "GeForce RTX 3090", JAN_B, per_hour=0.20, instance="1x-3090", region="us"),
        offer("cloud-b", "vast", "RTX 4090", "GeForce RTX 4090", JAN_B, per_hour=0.45, spot=0.30, instance="1x-4090",
              region="us"),
        offer("cloud-b", "vast", "V100", "Tesla V100 PCIe 16 GB", JAN_B, per_hour=None, spot=0.25, instance="1x-v100"),
        offer("cloud-b", "lambda", "RTX A6000", "RTX A6000", JAN_B, per_hour=0.55, instance="gpu_1x_a6000"),
    ]


def fill_catalog_and_perf(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("DELETE FROM perf")
    gpus, perf = [], []
    for model, (vendor, arch, segment, memory, bandwidth, rel, source, framework, desktop, tdp, *_r) in CARDS.items():
        gpus.append({"model": model, "vendor": vendor, "architecture": arch, "segment": segment, "memory_gb": memory,
                     "bandwidth_gb_s": bandwidth, "tdp_w": tdp, "framework_supported": framework,
                     "desktop_usable": desktop, "released": True})
        for precision, factor in (("fp16", 1.0), ("fp32", 0.5 if model != REFERENCE_GPU else 1.0)):
            perf.append({"model": model, "precision": precision, "source": source, "relative_perf": rel * factor * PERF_SCALE,
                         "method": "test figure", "reference": "base", "measured": source != "estimate",
                         "workloads": 3, "as_of": date(2024, 1, 1), "loaded_at": datetime(2024, 5, 9, 6, 5)})
    insert_dicts(con, "gpus", gpus)
    insert_dicts(con, "perf", perf)


def load_offers(con: duckdb.DuckDBPyConnection, offers: list[RentalOffer], source: str,
                score: ProviderScore | None = None, notes: list[str] | None = None) -> tuple[int, str]:
    """``notes``: what the enrich step noted of the offers (``flows.enrich.rental_offers``)."""
    with load.transaction(con):
        return load_rental_offers(con, offers, LOADED, source=source, score=score, notes=notes or [])


def make_rental_database(path: str = ":memory:") -> duckdb.DuckDBPyConnection:
    return from_template("rental", _build_rental_database, path)


def _build_rental_database(path: str) -> duckdb.DuckDBPyConnection:
    con = make_ranking_database(path)
    fill_catalog_and_perf(con)
    load_offers(con, cloud_a_january(), "cloud-a")
    load_offers(con, cloud_a_february(), "cloud-a")
    load_offers(con, cloud_b(), "cloud-b")
    return con


def rent_rows(db, *args: str) -> list[dict]:
    """`gpuvalue rent --json` on ``db``: one row a line, the command having succeeded."""
    import json

    from typer.testing import CliRunner

    from gpuvalue.flows.cli import app

    res = CliRunner().invoke(app, ["rent", "--json", "--db", str(db), *args])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.stdout.splitlines()]
