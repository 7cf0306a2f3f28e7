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

from gpuvalue.models.perf.label import is_low_confidence
from gpuvalue.models.speed_evidence import speed_evidence
from gpuvalue.models.price_age import index_price_words, is_index_price


@dataclass(frozen=True)
class UseCase:
    min_memory_gb: float
    precision: str  # the precision the ranking's relative_perf should be measured in
    why: str


# Memory minimums are where the work a use case names stops running out of memory at useful batch
# sizes in bf16 mixed precision (what modern training uses), each with its source; they exist so that a
# card that cannot hold the work never comes out on top. ``--min-memory`` raises them.
DETTMERS_2023 = "Dettmers, \"Which GPU(s) to Get for Deep Learning\" (2023)"
USE_CASES: dict[str, UseCase] = {
    "beginner": UseCase(8, "fp16", "course notebooks and small CNNs fit in 8 GB with mixed precision; "
                        "3-6 GB cards run out of memory on common tutorials"),
    "kaggle": UseCase(12, "fp16", "competition baselines (EfficientNet, DeBERTa-base) need 12 GB at useful batch "
                      "sizes; 8 GB cards must shrink batches or models below the public notebooks'"),
    "research": UseCase(24, "fp16", "research today trains transformers in bf16 and is bound by memory: "
                        f"{DETTMERS_2023} advises 24 GB or more for work with transformers"),
    "cv": UseCase(12, "fp16", "detection and segmentation models at 512-1024 px need 12 GB for batches larger "
                  f"than a few images; {DETTMERS_2023} advises 12 GB or more for image generation"),
    "nlp": UseCase(12, "fp16", "fine-tuning BERT-base or DeBERTa-base at 512 tokens in bf16 fits 12 GB at a useful "
                   "batch; larger transformers want the llm or research floor of 24 GB"),
    "llm": UseCase(24, "fp16", "LoRA fine-tuning of 7-8B models in 16-bit, or QLoRA of models up to 33B, needs "
                   "24 GB (Dettmers et al., \"QLoRA\", 2023: a 33B model on one 24 GB card)"),
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
    present an estimate (let alone a low-confidence one) as if it were measured. "Measured" only
    where benchmarks carry most of the figure's weight (``models/perf/label.py``, ``speed_evidence``);
    a weighted figure mostly of the estimate is an estimate checked against its benchmarks."""
    method = str(row.get("perf_method") or "")
    evidence = speed_evidence(row)
    if evidence is None:
        return ""
    if evidence.measured or evidence.benchmarks:
        return f"speed {evidence.label()}"
    if not is_low_confidence(row):
        return "speed estimated from specs"
    if "likely low" in method:
        return "speed estimated from specs, low confidence (likely too low)"
    if "likely high" in method:
        return "speed estimated from specs, low confidence (likely too high)"
    return "speed estimated from specs, low confidence"
