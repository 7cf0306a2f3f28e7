"""Each record kind has one loader, registered in flows/loaders.py; the stages store kinds by it."""

from __future__ import annotations

from gpuvalue.flows import loaders, stages
from gpuvalue.scrapers.source import KNOWN_KINDS


def test_every_kind_a_source_may_declare_has_exactly_one_loader():
    assert set(loaders.LOADERS) == set(KNOWN_KINDS)
    assert all(kind == loader.kind for kind, loader in loaders.LOADERS.items())


def test_each_loader_names_a_warehouse_stage_and_the_stages_store_kinds_in_registration_order():
    assert {loader.stage for loader in loaders.LOADERS.values()} <= set(stages.STAGE_ORDER)
    assert stages.STAGE_KINDS == {"load": ("spec", "price_index", "rental", "fx"), "match": ("listing",),
                                  "perf": ("benchmark", "inference")}


def test_a_kind_without_a_loader_fails_its_source_by_name():
    try:
        loaders.loader_for("telemetry")
    except RuntimeError as exc:
        assert "no loader for records of kind 'telemetry'" in str(exc)
    else:
        raise AssertionError("a kind without a loader was accepted")
