"""eBay searches follow the shopping list; on the replay archive the unrecorded ones are skipped, said once."""

from __future__ import annotations

from gpuvalue.flows.pipeline import fetch_source
from gpuvalue.flows.settings import Settings
from gpuvalue.scrapers.sources.ebay_browse import DEFAULT_EBAY_QUERIES


def test_replay_searches_the_shopping_list_and_skips_what_was_never_recorded():
    shopping = ("NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 3090", "NVIDIA A40", "NVIDIA GeForce RTX 3070",
                "AMD Radeon RX 6800")
    fetched = fetch_source("ebay-browse", Settings(), replay=True, shopping_list=shopping)
    searched = [p.url.split("?q=")[1].split("&")[0] for p in fetched.pages]
    # The shopping list first; then the archive's other recorded searches (worded before the rule).
    assert searched[:2] == ["NVIDIA%20GeForce%20RTX%204090", "NVIDIA%20A40"]
    assert len(searched) == len(DEFAULT_EBAY_QUERIES) and len(set(searched)) == len(searched)
    total = len(shopping) + len(DEFAULT_EBAY_QUERIES) - 2
    assert fetched.warnings == [f"ebay-browse: 3 of {total} searches have no recording in the replay archive; skipped"]


def test_without_a_shopping_list_the_settings_searches_are_made():
    fetched = fetch_source("ebay-browse", Settings(), replay=True)
    assert len(fetched.pages) == len(DEFAULT_EBAY_QUERIES) == 29
    assert fetched.warnings == []
