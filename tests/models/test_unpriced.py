"""recommend names the likely candidates it could not price, instead of skipping them unsaid."""

from datetime import date

from gpuvalue.models.buyer_view import BuyerView
from gpuvalue.models.unpriced import likely_unpriced, unpriced_words

DAY = date(2026, 11, 30)
PRICED = [
    {"model": "GeForce RTX 4070", "price_usd": 429.0, "relative_perf": 0.71, "memory_gb": 12.0,
     "framework_support": "current", "desktop_usable": True, "passive": False},
    {"model": "GeForce RTX 5090", "price_usd": 2621.0, "relative_perf": 2.36, "memory_gb": 32.0,
     "framework_support": "current", "desktop_usable": True, "passive": False},
]


def card(model, perf, *, launch=None, released=date(2025, 3, 4), segment="desktop", memory=12.0, support="current",
         passive=False):
    return {"model": model, "relative_perf": perf, "launch_price_usd": launch, "release_date": released,
            "segment": segment, "memory_gb": memory, "framework_support": support, "desktop_usable": True,
            "passive": passive, "perf_source": "estimate"}


CATALOG = [
    card("GeForce RTX 5070", 0.76, launch=549.0),
    card("Radeon RX 9070 XT", 0.71, memory=16.0, released=date(2025, 3, 6)),  # no launch price: a 4070 as fast costs $429
    card("GeForce RTX 4070 AD103", 0.71),  # shares the priced 4070's search: its listings went to the 4070
    card("GeForce RTX 5090 D", 2.35, memory=32.0, released=date(2025, 1, 30)),  # as fast as a $2,621 card: not for $600
    card("Radeon AI PRO R9700", 0.74, segment="workstation", memory=32.0),  # no launch price, not a desktop card
    card("RTX A6000", 1.16, launch=4649.0, released=date(2020, 10, 5), segment="workstation", memory=48.0),
    card("Radeon VII", 0.29, released=date(2019, 2, 7), memory=16.0),  # old, no launch price
    card("Tesla P40", 0.38, released=date(2016, 9, 13), memory=24.0, support="legacy", passive=True),
    card("GeForce RTX 5060 Ti 8 GB", 0.50, launch=379.0, memory=8.0),  # under the floor
]
SEARCHES = {c["model"]: c["model"] for c in CATALOG} | {"GeForce RTX 4070": "NVIDIA GeForce RTX 4070",
                                                         "GeForce RTX 4070 AD103": "NVIDIA GeForce RTX 4070"}


def names(budget, view=BuyerView(min_memory_gb=12), priced=PRICED):
    found = likely_unpriced(CATALOG, priced, searches=SEARCHES, view=view, budget_usd=budget, as_of=DAY,
                            new_prices={"GeForce RTX 5070": {"price_usd": 700.0, "price_kind": "asking", "price_n": 9}})
    return [u.model for u in found], found


def test_the_likely_candidates_for_a_budget_are_named_newest_first():
    models, found = names(600)
    assert models == ["Radeon RX 9070 XT", "GeForce RTX 5070"]
    assert found[1].new_price_usd == 700.0 and "new $700 (asking, 9 listing(s))" in found[1].why
    assert names(10_000)[0] == ["Radeon RX 9070 XT", "GeForce RTX 5070", "GeForce RTX 5090 D", "RTX A6000"]


def test_cards_the_answer_would_not_consider_are_not_named():
    wide = BuyerView(min_memory_gb=12, include_legacy=True, include_passive=True)
    assert "Tesla P40" not in names(10_000)[0]  # legacy builds, passive: the default view hides it
    assert "Tesla P40" in names(600, view=wide)[0]  # a passive server card asked for: a $429 card is as fast
    assert "Tesla P40" not in names(400, view=wide)[0]  # no priced card as fast within $400
    assert "GeForce RTX 5060 Ti 8 GB" in names(600, view=BuyerView(min_memory_gb=8))[0]


def test_one_line_names_the_first_few_and_counts_the_rest():
    _, found = names(10_000)
    line = unpriced_words(found, shown=2)
    assert line.startswith("not priced, so not compared: Radeon RX 9070 XT (16 GB, 0.71x estimated), "
                           "GeForce RTX 5070 (12 GB, 0.76x estimated, launched at $549, new $700) and 2 more")
    assert unpriced_words([]) is None
