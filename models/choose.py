"""The one rule that picks recommend's three answers from the table of candidate setups.

The table (``models/budget_answers.py``, ``candidate_table``) holds every buildable setup of every
priced card, computed once: its cost (cards, machine, risers), its throughput, its memory a card and
what its software stack allows. ``choose`` picks from it for one question (a budget, a memory floor,
a vendor, a use case, a card count):

* a setup is **eligible** when each card has the memory floor, the count is allowed, a legacy-only card
  is asked for, its stack is supported on Linux (with ``--vendor``: that vendor's cards that run at
  all), for a beginner it is an Ampere or newer NVIDIA card, and for fine-tuning a model
  (``--model-params``) its cards have matrix units (tensor cores) and each holds the fine-tuning need
  at that card count (the weights, gradients and optimizer state sharded across the cards: FSDP, ZeRO-3);
* **fastest**: the eligible setup within budget with the most throughput (ties: cheaper, fewer cards,
  name), so more money never buys a slower fastest;
* **best value**: the most throughput per dollar within budget;
* **cheapest**: the eligible setup of least cost, the same at every budget that affords it.

The buyer's page (``warehouse/outputs/page_assets/page.js``, ``choose``) holds the same few lines over the same
table, so the page and ``recommend --json`` answer any input alike. Pure: dicts in, dicts out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Candidate = Mapping[str, Any]
TOLERANCE = 1e-9
BEGINNER_ARCHITECTURE = "Ampere"  # bf16 and FlashAttention-2 need compute capability 8.0 or newer


@dataclass(frozen=True)
class Query:
    budget_usd: float
    min_memory_gb: float | None = None  # the floor at any card count: max of the use case's, --min-memory (or the default)
    vendor: str | None = None
    use_case: str | None = None
    max_gpus: int = 1
    gpus: int | None = None  # exactly this many cards
    include_legacy: bool = False
    memory_by_gpus: tuple[float, ...] = ()  # fine-tuning: the need a card on 1, 2, ... cards (sharded across them)


def setup_floor(q: Query, gpus: int) -> float | None:
    """The memory a card of a setup of ``gpus`` cards must have: the floor and, when fine-tuning, the need at
    that count (the last given for a larger count)."""
    floors = [m for m in (q.min_memory_gb, q.memory_by_gpus[min(gpus, len(q.memory_by_gpus)) - 1]
                          if q.memory_by_gpus else None) if m is not None]
    return max(floors) if floors else None


def eligible(c: Candidate, q: Query) -> bool:
    """Whether the setup answers the question at all, whatever the budget."""
    floor = setup_floor(q, c["gpus"])
    if floor is not None and (c["memory_gb"] is None or c["memory_gb"] < floor - TOLERANCE):
        return False
    if q.memory_by_gpus and not c["matrix_cores"]:
        return False
    if (c["gpus"] != q.gpus) if q.gpus is not None else (c["gpus"] > q.max_gpus):
        return False
    if c["legacy"] and not q.include_legacy:
        return False
    vendor = (q.vendor or "").lower()
    if vendor:
        if str(c["vendor"]).lower() != vendor or not c["runs"]:
            return False
    elif not c["supported"]:
        return False
    return not (q.use_case == "beginner" and vendor in ("", "nvidia") and not c["ampere_cuda"])


def _fastest(c: Candidate) -> tuple:
    return (-c["throughput"], c["cost_usd"], c["gpus"], c["model"])


def _best_value(c: Candidate) -> tuple:
    return (-c["value"], -c["throughput"], c["cost_usd"], c["gpus"], c["model"])


def _cheapest(c: Candidate) -> tuple:
    return (c["cost_usd"], -c["throughput"], c["gpus"], c["model"])


ORDERS: dict[str, Callable[[Candidate], tuple]] = {"fastest": _fastest, "best_value": _best_value, "cheapest": _cheapest}


def choose(table: Sequence[Candidate], q: Query) -> dict[str, Candidate | None]:
    """fastest, best_value and cheapest: each the first eligible setup within budget in its order."""
    fits = [c for c in table if eligible(c, q) and c["cost_usd"] <= q.budget_usd + TOLERANCE]
    return {kind: (min(fits, key=order) if fits else None) for kind, order in ORDERS.items()}
