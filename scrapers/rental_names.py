"""The cloud GPU name matcher as the rental sources use it, measured against hand labels.

A rental source whose GPU names are its own (SkyPilot's short names for RunPod's GPUs, a marketplace's
full name in SkyPilot's instance type) declares how they read (``Source.gpu_names``); its parser and the
label figures both read them so. ``readers`` collects them from the registry.

``python -m gpuvalue.scrapers.rental_names tests/labels/cloud_names.csv`` prints the figures per
split (``models/cloud_names_eval.py``), then every wrong and missed row; it exits 1 on a wrong one.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gpuvalue.models.cloud_names_eval import Readers, evaluate, read_labels
from gpuvalue.scrapers import registry


def readers() -> Readers:
    """Each rental source's own reading of its GPU names, by source name (those that declare one)."""
    return {name: src.gpu_names for name, src in registry.all_sources().items() if src.gpu_names is not None}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m gpuvalue.scrapers.rental_names LABELS.csv", file=sys.stderr)
        return 2
    rows = read_labels(Path(args[0]).read_text(encoding="utf-8"))
    own = readers()
    for split in ("tuning", "holdout", None):
        print(f"{split or 'all'}: {evaluate(rows, split, own).summary()}")
    result = evaluate(rows, None, own)
    for row, got, reason in result.wrong:
        print(f"WRONG  {row.provider} {row.gpu_name!r} {row.instance_type or ''}: expected {row.expected_model}, got {got} ({reason})")
    for row, reason in result.missed:
        print(f"MISSED {row.provider} {row.gpu_name!r} {row.instance_type or ''}: expected {row.expected_model} ({reason})")
    return 0 if result.precision == 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
