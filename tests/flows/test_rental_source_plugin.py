"""A new rental source of the existing kind is one module: written into a folder of its own (a temporary
tree beside scrapers/sources/), found by the registry, parsed, stored by the rental loader with the
provider score it declares, and ranked by `gpuvalue rent`, with no edit of shared code.

The module's page is a JSON list of offers; its provider ("acme") publishes its own speed score per
offer, which travels in the offers' ``extras`` and shows as the JSON fields and the column the module
declares (``acme_speed``, "acme score"), as vast.ai's DLPerf does (scrapers/sources/vastai.py).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.flows.loaders import loader_for
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.source import page_from_file
from source_plugin import installed_source
from rental_fixtures import rent_rows as rent, FEB, LOADED, make_rental_database

runner = CliRunner()
NAME = "acme-cloud-test"

MODULE = '''
"""Acme Cloud's offer list (a test-only rental source): one JSON list of offers, each with Acme's own speed score."""

from __future__ import annotations

import json
from datetime import date

from gpuvalue.models.records import FetchedPage
from gpuvalue.models.rental import ProviderScore, RentalOffer
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.source import Source

NAME = "acme-cloud-test"
PROVIDER = "acme"
SCORE = ProviderScore(provider=PROVIDER, extra="speed", field="acme_speed", header="acme score",
                      meaning="Acme's own speed score per GPU for the card", caveat="a figure Acme computes")
MODELS = {"RTX 3090": "GeForce RTX 3090", "RTX 4090": "GeForce RTX 4090", "RTX A6000": "RTX A6000"}


def _parse(page: FetchedPage) -> ParsedSource:
    offers = []
    for row in json.loads(page.body):
        count = row["gpus"]
        offers.append(RentalOffer(
            source=NAME, provider=PROVIDER, instance_type=row["id"], gpu_name=row["gpu"], model=MODELS.get(row["gpu"]),
            match_reason="Acme's own name", gpu_count=count, usd_per_hour=row["usd"],
            usd_per_gpu_hour=round(row["usd"] / count, 6), as_of=date.fromisoformat(row["day"]),
            extras={SCORE.extra: row["speed"]}))
    return ParsedSource(NAME, "rental", records=offers)


def _fetch(ctx) -> SourceFetch:
    return SourceFetch(NAME)


SOURCE = Source(name=NAME, kind="rental", attribution="Acme Cloud's offers (test)", licence="test data",
                fetch=_fetch, parse=_parse, default=False, provider_score=SCORE)
'''

PAGE = [
    {"id": "a-3090", "gpu": "RTX 3090", "gpus": 1, "usd": 0.15, "speed": 10.0, "day": FEB.isoformat()},
    {"id": "a-4090x2", "gpu": "RTX 4090", "gpus": 2, "usd": 0.70, "speed": 36.0, "day": FEB.isoformat()},
    {"id": "a-a6000", "gpu": "RTX A6000", "gpus": 1, "usd": 0.40, "speed": 11.0, "day": FEB.isoformat()},
]


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """The module in a folder of its own, on the sources package's path, and a registry that reads it."""
    with installed_source(tmp_path / "more_sources", monkeypatch, "acme_cloud_test", MODULE, NAME) as source:
        yield source


@pytest.fixture
def db(tmp_path, plugin):
    path = tmp_path / "g.duckdb"
    con = make_rental_database(str(path))
    page = page_from_file(NAME, json.dumps(PAGE).encode(), "https://acme.example/offers.json",
                          datetime(2025, 2, 1, tzinfo=timezone.utc), "application/json")
    parsed = plugin.parse(page)
    context = SimpleNamespace(con=con, settings=None, loaded_at=LOADED)
    stored = loader_for(plugin.kind).store(context, NAME, [parsed], SimpleNamespace(matched={}))
    assert stored == 3
    con.close()
    return path


def test_the_registry_finds_the_new_module(plugin):
    assert NAME in registry.names(kind="rental") and plugin.provider_score is not None


def test_rent_ranks_the_new_sources_offers(db):
    rows = {r["model"]: r for r in rent(db)}
    assert (rows["GeForce RTX 3090"]["provider"], rows["GeForce RTX 3090"]["usd_per_gpu_hour"]) == ("acme", 0.15)
    assert (rows["GeForce RTX 4090"]["provider"], rows["GeForce RTX 4090"]["usd_per_gpu_hour"]) == ("acme", 0.35)
    assert "acme" in rows["RTX A6000"]["providers"]
    only = rent(db, "--provider", "acme")
    assert {r["model"] for r in only} == {"GeForce RTX 3090", "GeForce RTX 4090", "RTX A6000"}
    assert [r["rank_shown"] for r in only] == [1, 2, 3]


def test_rent_shows_the_score_the_new_source_declares(db):
    rows = {r["model"]: r for r in rent(db)}
    assert rows["GeForce RTX 4090"]["acme_speed"] == pytest.approx(18.0)  # 36 for two GPUs
    assert rows["GeForce RTX 4090"]["acme_speed_relative"] == pytest.approx(1.8)  # to the RTX 3090's 10
    assert rows["GeForce RTX 4090"]["acme_speed_as_of"] == FEB.isoformat()
    spot = {r["model"]: r for r in rent(db, "--spot")}
    assert spot["Tesla V100 PCIe 16 GB"]["acme_speed"] is None  # a card Acme does not rent
    assert not any(key.startswith("vast_") for key in rows["GeForce RTX 3090"])  # no vast offer here scores
    res = runner.invoke(app, ["rent", "--db", str(db)], terminal_width=250)
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "acme score" in text
    assert "acme score: Acme's own speed score per GPU for the card (the median of its offers of 2025-02-01)" in text
    assert "a figure Acme computes, shown beside gpuvalue's figure, never used as a measurement" in text
