"""The performance model: how fast each card trains, measured or estimated, and how well the estimate does.

- ``measured``: relative training speed from Lambda's benchmark tables; ``harness_relative`` and
  ``combine``: the other benchmark harnesses' figures as ratios, and several sources of a card combined.
- ``arch_tables``, ``estimate`` (roofline v2) and ``workload`` (roofline v3, the pipeline's estimator):
  the spec-based estimate for cards no benchmark covers; ``digest``: what its cross-validated error
  depends on; ``estimate_coverage``: whether an estimate is backed by measured siblings.
- ``weighted``: the figure a card shows, every piece of evidence weighted; ``label``: how a figure's
  origin is shown.
- ``eval``, ``holdout`` and ``scores``: `gpuvalue perf --evaluate`'s cross-validation and held-out checks.
- ``inference``: llama.cpp inference figures, kept apart from training speed.

Pure logic, no I/O, as the rest of ``models/``.
"""
