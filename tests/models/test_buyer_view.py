"""What rank, recommend, the report and the feed show by default, and the flags that show more."""

from __future__ import annotations

from datetime import date

from gpuvalue.models.buyer_view import (
    BuyerView,
    hidden_because,
    hidden_summary,
    row_notes,
    shown_rows,
    support_level,
)
from gpuvalue.models.price_age import age_words, index_price_words, price_basis, tier_title, tiers_note


def row(rank, model, memory=24.0, support="current", desktop=True, passive=False, **extra):
    return {"rank": rank, "model": model, "memory_gb": memory, "framework_support": support,
            "framework_supported": None if support is None else support == "current", "desktop_usable": desktop, "passive": passive, **extra}


ROWS = [
    row(1, "Tesla P100 SXM2", 16.0, "legacy", desktop=False),
    row(2, "Tesla P40", 24.0, "legacy", passive=True),
    row(3, "GeForce GTX 1060 3 GB", 3.0, "legacy"),
    row(4, "GeForce RTX 3060 12 GB", 12.0),
    row(5, "Tesla T4", 16.0, passive=True),
    row(6, "Radeon RX 6700 XT", 12.0, "none"),
    row(7, "GeForce GTX 1650", 4.0),
    row(8, "GeForce RTX 3090", 24.0),
    row(9, "Mystery card", 8.0, None),
]


def test_by_default_only_cards_a_buyer_can_use_numbered_among_themselves():
    shown = shown_rows(ROWS, BuyerView())
    assert [(r["rank_shown"], r["rank"], r["model"]) for r in shown] == [
        (1, 4, "GeForce RTX 3060 12 GB"), (2, 8, "GeForce RTX 3090")]
    why = {r["model"]: hidden_because(r, BuyerView()) for r in ROWS}
    assert why["Tesla P40"] == "legacy PyTorch builds only (--include-legacy)"
    assert why["Tesla T4"] == "passive: needs a fan kit (--include-passive)"
    assert why["GeForce GTX 1650"] == "under 6 GB (--min-memory)"
    assert why["Radeon RX 6700 XT"] == "no PyTorch build runs it (--all)"
    assert why["Mystery card"] == "PyTorch support unknown (--all)"
    assert why["Tesla P100 SXM2"] == "legacy PyTorch builds only (--include-legacy)"
    assert hidden_summary(ROWS, BuyerView()) == (
        # Each card counts under its first reason: the P100 SXM2 is a module too, the P40 passive, the
        # GTX 1060 under 6 GB, so --include-legacy alone shows none of them, and the line says so.
        "hidden: 7 ranked card(s): 3 legacy PyTorch builds only (--include-legacy; 3 of them need another flag too), "
        "1 PyTorch support unknown (--all), 1 no PyTorch build runs it (--all), "
        "1 passive: needs a fan kit (--include-passive), 1 under 6 GB (--min-memory)")
    # `recommend` has no --all: its line never suggests it.
    assert hidden_summary(ROWS, BuyerView(), unavailable=("--all",)) == (
        "hidden: 7 ranked card(s): 3 legacy PyTorch builds only (--include-legacy; 3 of them need another flag too), "
        "1 PyTorch support unknown, "
        "1 no PyTorch build runs it, 1 passive: needs a fan kit (--include-passive), 1 under 6 GB (--min-memory)")


def test_each_flag_shows_its_cards_and_they_say_what_they_need():
    legacy = shown_rows(ROWS, BuyerView(include_legacy=True))
    assert [r["model"] for r in legacy] == ["GeForce RTX 3060 12 GB", "GeForce RTX 3090"]  # P40 passive, P100 module
    both = shown_rows(ROWS, BuyerView(include_legacy=True, include_passive=True))
    assert [r["model"] for r in both] == ["Tesla P40", "GeForce RTX 3060 12 GB", "Tesla T4", "GeForce RTX 3090"]
    assert row_notes(both[0]) == ["legacy PyTorch builds only", "passive: needs a fan kit"]
    modules = shown_rows(ROWS, BuyerView(include_legacy=True, include_modules=True, min_memory_gb=None))
    assert [r["model"] for r in modules][:2] == ["Tesla P100 SXM2", "GeForce GTX 1060 3 GB"]
    everything = shown_rows(ROWS, BuyerView.everything())
    assert [r["rank_shown"] for r in everything] == list(range(1, 10))
    assert hidden_summary(ROWS, BuyerView.everything()) is None


def test_rows_from_before_the_level_use_the_former_flag():
    assert support_level({"framework_supported": True}) == "current"
    assert support_level({"framework_supported": False}) == "none"
    assert support_level({}) is None
    assert support_level({"framework_support": "legacy", "framework_supported": False}) == "legacy"
    assert hidden_because({"rank": 1, "model": "x", "memory_gb": 8.0, "framework_supported": True,
                           "form_factor": "PCIe passive"}, BuyerView()) == "passive: needs a fan kit (--include-passive)"


def test_price_ages_and_index_prices_are_named():
    assert [age_words(d) for d in (None, -1, 0, 59, 60, 370, 1156)] == [
        "-", "future", "0 d", "59 d", "2 mo", "12 mo", "3 y 2 mo"]
    index = {"price_kind": "index", "price_n": 765, "price_as_of": date(2023, 10, 1),
             "price_source": "tomshardware-ebay-index", "price_source_label": "Tom's Hardware eBay index"}
    assert index_price_words(index) == "index price of 2023-10 (Tom's Hardware eBay index, average of 765 sold)"
    # Any index is named as its source labels itself; without a label (an old warehouse), by its name.
    assert index_price_words({**index, "price_source": "other-index", "price_source_label": "Other index"}) == (
        "index price of 2023-10 (Other index, average of 765 sold)")
    assert index_price_words({**index, "price_n": 0, "price_source": "other-index", "price_source_label": None}) == (
        "index price of 2023-10 (other-index, monthly average of sold cards)")
    assert [price_basis({"price_kind": k, "price_n": 7}) for k in ("sold", "asking", "launch")] == [
        "median of 7 sold", "lower quartile of 7 asking", "launch price"]
    assert price_basis(index) == index_price_words(index)
    recent = [{"price_as_of": date(2025, 11, 25), "price_tier": "recent", "price_age_days": 370}]
    older = [{"price_as_of": date(2023, 10, 1), "price_tier": "older", "price_age_days": 1156},
             {"price_as_of": date(2024, 1, 17), "price_tier": "older", "price_age_days": 1048}]
    assert tier_title("recent", recent, 90) == "Priced within 90 days of the newest price (all on 2025-11-25)"
    assert tier_title("older", older).startswith("Older prices (2023-10-01 to 2024-01-17): ranked after")
    assert tiers_note(recent) is None
    assert tiers_note(recent + older).startswith("2 card(s) have older prices, up to 3 y 2 mo old")


def test_a_part_a_desktop_cannot_take_says_so_when_shown():
    from gpuvalue.models.buyer_view import NOT_DESKTOP_NOTE, is_not_desktop, row_notes

    module = {"model": "Tesla V100 SXM2 16 GB", "desktop_usable": False, "framework_support": "current"}
    assert is_not_desktop(module) and NOT_DESKTOP_NOTE in row_notes(module)
    card = {"model": "GeForce RTX 3090", "desktop_usable": True, "framework_support": "current"}
    assert not is_not_desktop(card) and row_notes(card) == []
