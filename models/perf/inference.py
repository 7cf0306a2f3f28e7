"""LLM inference figures: llama.cpp table names to catalog models, cells to InferenceFigure.

The benchmark names its GPUs loosely ("3080 10GB", "A100 SXM 80GB"). Each name is mapped by an
explicit table, checked against the catalog, rather than by pattern: a wrong guess would pin one
card's speed on another (the 3080 10 GB and 12 GB are different cards), and a table of sixteen
names is easy to check by eye. A name not in the table (Apple M-series chips, which the catalog
does not hold) is dropped with a warning.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from gpuvalue.models.records import InferenceFigure, LlamaCppCell

# Lower-cased table name (memory included, as the benchmark gives it) -> catalog model.
LLAMACPP_MODELS: dict[str, str] = {
    "3070 8gb": "GeForce RTX 3070",
    "3080 10gb": "GeForce RTX 3080",
    "3080 ti 12gb": "GeForce RTX 3080 Ti",
    "4070 ti 12gb": "GeForce RTX 4070 Ti",
    "4080 16gb": "GeForce RTX 4080",
    "3090 24gb": "GeForce RTX 3090",
    "4090 24gb": "GeForce RTX 4090",
    "rtx 4000 ada 20gb": "RTX 4000 Ada Generation",
    "rtx 5000 ada 32gb": "RTX 5000 Ada Generation",
    "rtx a6000 48gb": "RTX A6000",
    "rtx 6000 ada 48gb": "RTX 6000 Ada Generation",
    "a40 48gb": "A40 PCIe",
    "l40s 48gb": "L40S",
    "a100 pcie 80gb": "A100 PCIe 80 GB",
    "a100 sxm 80gb": "A100 SXM4 80 GB",  # every A100 SXM board is SXM4
    "h100 pcie 80gb": "H100 PCIe 80 GB",
}


def llamacpp_name_to_model(name: str) -> str | None:
    """The catalog model of a benchmark GPU name (without its "* N"), or None when unknown."""
    return LLAMACPP_MODELS.get(" ".join(name.lower().split()))


def inference_figures(cells: Iterable[LlamaCppCell], *, source: str, as_of: date) -> tuple[list[InferenceFigure], list[str]]:
    """Figures for the cells whose GPU maps to a catalog model, and one warning naming the rest."""
    figures: list[InferenceFigure] = []
    unmapped: set[str] = set()
    for c in cells:
        model = llamacpp_name_to_model(c.gpu)
        if model is None:
            unmapped.add(c.gpu)
            continue
        figures.append(InferenceFigure(model=model, source=source, workload=c.workload, phase=c.phase,
                                       tokens_per_s=c.tokens_per_s, gpu_count=c.gpu_count, as_of=as_of))
    warnings = []
    if unmapped:
        warnings.append(f"llamacpp: no catalog model for {', '.join(sorted(unmapped))}; their figures were dropped")
    return figures, warnings
