"""Memory classes: the buckets buyers actually choose between.

Memory decides what fits (batch size, model size) before speed matters, so "best value"
is only meaningful within a class. The feed, the report and recommendations share these.
"""

from __future__ import annotations

# (label, lower bound inclusive, upper bound exclusive) in GB. 11 GB cards (1080 Ti,
# 2080 Ti) sit with 8-10 GB ones; 16 GB is still the "mid" class; 20-24 GB is the
# class that fits LLM fine-tuning; above that are workstation and datacenter parts.
MEMORY_CLASSES: tuple[tuple[str, float, float], ...] = (
    ("<8 GB", 0.0, 8.0),
    ("8-11 GB", 8.0, 12.0),
    ("12-16 GB", 12.0, 16.5),
    ("17-24 GB", 16.5, 24.5),
    (">24 GB", 24.5, float("inf")),
)

MEMORY_CLASS_LABELS: tuple[str, ...] = tuple(label for label, _, _ in MEMORY_CLASSES)


def memory_class(memory_gb: float | None) -> str | None:
    """The class label for a card's memory, or None when the memory is unknown."""
    if memory_gb is None or memory_gb != memory_gb or memory_gb < 0:
        return None
    for label, low, high in MEMORY_CLASSES:
        if low <= memory_gb < high:
            return label
    return None
