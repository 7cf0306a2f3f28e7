"""What every recommendation shares: the use cases and their needs, and how far a pick's price and
speed can be trusted, in words.

The answers themselves (the fastest setup a budget buys, the best value, the cheapest) are
``models/budget_answers.py``'s; rent or buy (``models/rent_vs_buy.py``) says its picks' speed the same way.
Pure: ranking rows (dicts with the ``ranking_daily`` columns) in, words out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from gpuvalue.models.perf.label import is_low_confidence, perf_source_label
from gpuvalue.models.price_age import index_price_words, is_index_price


@dataclass(frozen=True)
class UseCase:
    min_memory_gb: float
    precision: str  # the precision the ranking's relative_perf should be measured in
    why: str


# Memory minimums are where common work stops running out of memory, not where it is
# comfortable; they exist so that a cheap 3-4 GB card never comes out on top.
USE_CASES: dict[str, UseCase] = {
    "beginner": UseCase(8, "fp16", "course notebooks and small CNNs fit in 8 GB with mixed precision; 3-6 GB cards run out of memory on common tutorials"),
    "kaggle": UseCase(12, "fp16", "competition baselines (EfficientNet, DeBERTa-base) need 12 GB at useful batch sizes"),
    "research": UseCase(12, "fp32", "reproducing papers often needs full or TF32 precision and 12 GB for reference batch sizes"),
    "cv": UseCase(12, "fp16", "detection and segmentation models at 512-1024 px need 12 GB for batches larger than a few images"),
    "nlp": UseCase(16, "fp16", "fine-tuning BERT-large or 1B-parameter transformers at 512 tokens needs 16 GB"),
    "llm": UseCase(24, "fp16", "LoRA fine-tuning of 7B models in 16-bit, or QLoRA of 13B models, needs 24 GB"),
}


def use_case_floor_words(use_case: str) -> str:
    """Why a use case asks for its memory: every answer for a use case says it."""
    preset = USE_CASES[use_case]
    return f"{use_case}: at least {preset.min_memory_gb:g} GB because {preset.why}"


def use_case_precision_words(use_case: str, precisions: Iterable[str | None]) -> str | None:
    """A use case's preferred precision, said where the figures at hand are of another only."""
    preset = USE_CASES[use_case]
    held = {p for p in precisions if p}
    if not held or preset.precision in held:
        return None
    return f"{use_case} prefers {preset.precision} performance, but the ranking has {', '.join(sorted(held))}; using that"


STRETCH_BUDGET = 1.25  # "a bit more money": up to 25% over budget
MEANINGFULLY_FASTER = 1.15  # at least 15% more throughput, or it is not worth mentioning


def price_confidence(row: Mapping[str, Any]) -> tuple[str, str]:
    """(level, words): how far a price can be trusted, from its kind, sample size and age."""
    kind, n, dated = row.get("price_kind"), int(row.get("price_n") or 0), row.get("price_as_of")
    when = f" as of {dated.isoformat()}" if isinstance(dated, date) else ""
    if is_index_price(row):  # somebody else's monthly average, never an own median
        return "low", index_price_words(row)
    if row.get("stale"):
        return "low", f"stale {kind} price{when}"
    if kind == "launch":
        return "low", f"launch price{when}, no market data"
    if kind == "sold" and n >= 10:
        return "high", f"median of {n} sold listings{when}"
    if kind == "sold" and n >= 3:
        return "medium", f"median of only {n} sold listings{when}"
    if kind == "asking":
        return "medium" if n >= 10 else "low", f"asking prices ({n} listings){when}; sold prices are usually lower"
    return "low", f"{n} {kind} price{'s' if n != 1 else ''}{when}"


def perf_provenance(row: Mapping[str, Any]) -> str:
    """Where a card's speed figure comes from, in a few words: a recommendation must not
    present an estimate (let alone a low-confidence one) as if it were measured."""
    source, method = row.get("perf_source"), str(row.get("perf_method") or "")
    if not source:
        return ""
    if source == "local":
        return "speed measured on this machine"
    if source != "estimate":
        return f"speed measured ({perf_source_label(row)})"
    if not is_low_confidence(row):
        return "speed estimated from specs"
    if "likely low" in method:
        return "speed estimated from specs, low confidence (likely too low)"
    if "likely high" in method:
        return "speed estimated from specs, low confidence (likely too high)"
    return "speed estimated from specs, low confidence"
