"""The likely candidates an answer could not price: said, never silently skipped.

The pipeline shops for every covered card (``models/coverage.py``), but a card no used listing
priced and no price index lists has no row in the ranking, so an answer drawn from the ranking
never names it; a buyer who expected an RTX 5070 reads that as "not worth it". A card without a price
is a likely candidate for an answer when

* the pipeline shops for it (it is covered) and it is not a variant of a priced card that shares its
  search (``GeForce RTX 4070 AD103`` beside a priced ``GeForce RTX 4070``: eBay's titles do not tell
  them apart, and the listings went to the card the buyer knows);
* the answer's view shows it (its memory floor, framework support, desktop slot) and it has a speed
  figure at the ranking's precision;
* the budget plausibly buys one: its launch price is within the budget; or, where the catalog has no
  launch price, a priced card at least as fast costs no more than the budget and the card is a desktop
  card that came out in the last ``RECENT_YEARS`` years, or a passive server card the buyer asked for
  (their used prices follow datacenter retirements, not age). A workstation card costs far more than
  a desktop card as fast, so a desktop card's price says nothing of it.

Pure: catalog rows in, ``Unpriced`` out, the newest first: the cards a buyer expects to find, and
the likeliest to lack a used price.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from gpuvalue.models.buyer_view import BuyerView, hidden_because, is_passive

RECENT_YEARS = 3
SHOWN = 8  # named in the text answer; the JSON carries every one


@dataclass(frozen=True)
class Unpriced:
    model: str
    memory_gb: float | None
    relative_perf: float
    perf_source: str | None
    launch_price_usd: float | None
    release_date: date | None
    why: str
    new_price_usd: float | None = None
    price_hint_usd: float = 0.0  # its launch price, else the price of the cheapest priced card as fast
    perf_method: str | None = None  # how its figure was made: whether benchmarks carry most of it

    def as_dict(self) -> dict[str, Any]:
        return {"model": self.model, "memory_gb": self.memory_gb, "relative_perf": round(self.relative_perf, 4),
                "perf_source": self.perf_source, "launch_price_usd": self.launch_price_usd,
                "release_date": self.release_date, "new_price_usd": self.new_price_usd,
                "price_hint_usd": self.price_hint_usd, "why": self.why}

    def words(self) -> str:
        from gpuvalue.models.speed_evidence import speed_evidence

        evidence = speed_evidence({"perf_source": self.perf_source, "perf_method": self.perf_method})
        source = "measured" if evidence is not None and evidence.measured else "estimated"
        memory = f"{self.memory_gb:g} GB, " if self.memory_gb is not None else ""
        launch = f", launched at ${self.launch_price_usd:,.0f}" if self.launch_price_usd else ""
        new = f", new ${self.new_price_usd:,.0f}" if self.new_price_usd else ""
        return f"{self.model} ({memory}{self.relative_perf:.2f}x {source}{launch}{new})"


def _years_before(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February
        return day.replace(year=day.year - years, day=28)


def likely_unpriced(
    catalog: Iterable[Mapping[str, Any]],
    priced: Iterable[Mapping[str, Any]],
    *,
    searches: Mapping[str, str],
    view: BuyerView,
    budget_usd: float,
    as_of: date | None,
    new_prices: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[Unpriced]:
    """The covered cards without a price that the answer would otherwise consider, newest first.

    ``catalog``: unpriced catalog rows with the ranking's columns that describe a card (``model``,
    ``memory_gb``, ``relative_perf`` on the ranking's scale, ``perf_source``, ``framework_support``,
    ``desktop_usable``, ``passive``) and ``launch_price_usd``, ``release_date``. ``priced``: the ranking
    rows. ``searches``: covered model -> its eBay search (``Coverage.models``)."""
    priced = list(priced)
    new_prices = new_prices or {}
    priced_names = {str(r["model"]) for r in priced}
    priced_searches = {searches[m] for m in priced_names if m in searches}
    shown_priced = [r for r in priced if hidden_because(r, view) is None and r.get("price_usd") and r.get("relative_perf")]
    recent_from = _years_before(as_of, RECENT_YEARS) if isinstance(as_of, date) else None
    found = []
    for row in catalog:
        model = str(row["model"])
        perf = row.get("relative_perf")
        if model in priced_names or model not in searches or searches[model] in priced_searches:
            continue
        if not perf or perf <= 0 or hidden_because(row, view) is not None:
            continue
        launch = row.get("launch_price_usd")
        hint: Any = launch
        if launch:
            if launch > budget_usd:
                continue
        else:  # no launch price: a recent desktop card, and the market sells its speed within the budget
            released = row.get("release_date")
            recent = recent_from is not None and isinstance(released, date) and released >= recent_from
            # A passive server card asked for (--include-passive) is priced by datacenter retirements, not
            # by its age; a workstation card costs far more than a desktop card as fast.
            server = view.include_passive and is_passive(row)
            if not ((recent and row.get("segment") == "desktop") or server):
                continue
            as_fast = [r["price_usd"] for r in shown_priced if r["relative_perf"] >= perf]
            if not as_fast or min(as_fast) > budget_usd:
                continue
            hint = min(as_fast)
        new = new_prices.get(model) or {}
        new_price = new.get("price_usd") if new.get("price_usd") else None
        why = "no used price: too few matched used listings, and no price index lists it"
        if new_price:
            why += f"; new ${new_price:,.0f} ({new.get('price_kind')}, {new.get('price_n')} listing(s))"
        found.append(Unpriced(
            model=model, memory_gb=row.get("memory_gb"), relative_perf=float(perf),
            perf_source=row.get("perf_source"), launch_price_usd=launch, release_date=row.get("release_date"),
            why=why, new_price_usd=new_price, price_hint_usd=hint, perf_method=row.get("perf_method"),
        ))
    # The newest first: the cards a buyer expects to find, and the likeliest to lack a used price.
    return sorted(found, key=lambda u: (-(u.release_date or date.min).toordinal(), -u.relative_perf, u.model))


def unpriced_words(unpriced: list[Unpriced], shown: int = SHOWN) -> str | None:
    """One line naming the likely candidates without a price (the first ``shown``) and why."""
    if not unpriced:
        return None
    names = ", ".join(u.words() for u in unpriced[:shown])
    more = f" and {len(unpriced) - shown} more (`recommend --json` lists them)" if len(unpriced) > shown else ""
    return (f"not priced, so not compared: {names}{more}: no used listing priced them and no price index lists "
            "them (`gpuvalue coverage` shows every card shopped for)")

