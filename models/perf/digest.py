"""A digest of everything the spec estimate's cross-validated error depends on.

The nested cross-validation behind each estimate's uncertainty is most of the estimate
stage's time, and its result changes only when the measured figures, the training cards'
specs or the model's code change. Keying a stored result by this digest lets a daily run
reuse it and recompute exactly when one of those changes.
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import tokenize
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources

from gpuvalue.models.perf.estimate import Features, training_points
from gpuvalue.models.perf.measured import WorkloadRatio
from gpuvalue.models.records import PerfFigure, Precision

# The modules whose code decides the fit and its cross-validation (``error_groups``: how its errors are
# grouped per kind of card, kept beside them): editing their code changes
# the digest, so a stored error never outlives the code that computed it. Their comments and
# docstrings do not count: rewording one would otherwise cost every warehouse a cross-validation
# of minutes on its next run, for a fit that computes exactly what it did.
MODEL_MODULES = ("estimate.py", "workload.py", "fit_weights.py", "arch_tables.py", "error_groups.py")


@cache
def model_code_fingerprint() -> str:
    """Read and cut once a process (about 70 ms: five modules parsed and tokenized); each fit's
    inputs digest asks for it."""
    h = hashlib.sha256()
    for name in MODEL_MODULES:
        h.update(name.encode())
        source = resources.files("gpuvalue.models.perf").joinpath(name).read_text(encoding="utf-8")
        h.update(code_without_prose(source).encode())
    return h.hexdigest()


def code_without_prose(source: str) -> str:
    """The module's source with its comments and its string statements (docstrings, and any
    other string standing alone as a statement, which does nothing) cut out, each line's
    trailing blanks and the blank lines dropped.

    What is left is the source's own text, not a parse tree or a token stream, whose rendering
    differs between Python versions (the shipped errors' digests must be the same on each), and
    the same whatever the line endings of a checkout."""
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    lines = source.split("\n")  # as ast and tokenize count lines (str.splitlines splits at more)
    cuts: list[tuple[int, int, int, int]] = []  # (first line, first column, last line, end column), 1-based lines
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            assert node.end_lineno is not None and node.end_col_offset is not None
            # ast counts columns in UTF-8 bytes; the cuts below count characters.
            cuts.append((node.lineno, _chars(lines[node.lineno - 1], node.col_offset),
                         node.end_lineno, _chars(lines[node.end_lineno - 1], node.end_col_offset)))
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            cuts.append((tok.start[0], tok.start[1], tok.end[0], tok.end[1]))
    for first, start, last, end in sorted(cuts, reverse=True):  # from the end: earlier positions stay put
        lines[first - 1: last] = [lines[first - 1][:start] + lines[last - 1][end:]]
    return "\n".join(line.rstrip() for line in lines if line.strip())


def _chars(line: str, byte_offset: int) -> int:
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8"))


def estimate_inputs_digest(
    measured: Sequence[PerfFigure],
    features: Mapping[str, Features],
    precision: Precision,
    per_workload: Sequence[WorkloadRatio] = (),
) -> str:
    """sha256 over the training figures of ``precision`` (as ``training_points`` selects them),
    the specs of those cards and the reference, the per-workload ratios behind them, and the
    model code. Cards outside the fit (other precisions, laptops, unmeasured catalog cards)
    do not change it."""
    pairs = training_points(measured, features, precision)
    used = {(fig.model, fig.source) for fig, _ in pairs}
    cards = sorted({fig.model for fig, _ in pairs} | {fig.reference for fig, _ in pairs})
    payload = {
        "precision": precision,
        "figures": sorted(
            [fig.model, fig.source, fig.reference, repr(fig.relative_perf), fig.workloads] for fig, _ in pairs
        ),
        "features": {m: sorted((k, str(v)) for k, v in features[m].items()) for m in cards if m in features},
        "ratios": sorted(
            [r.model, r.source, r.workload, repr(r.ratio)]
            for r in per_workload
            if r.precision == precision and (r.model, r.source) in used
        ),
        "code": model_code_fingerprint(),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
