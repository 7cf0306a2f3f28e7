"""The documented evaluation's four tables, kept with a digest of everything that computes them.

The tables are tests/models/test_perf_eval.py's `evaluation` (every measured card) and `first_15`
(without the held-out checks' cards), each at fp16 and fp32: four nested leave-one-card-out
cross-validations, about 8 s of one test worker. The tests
read them from ``tests/fixtures/pinned/perf_eval_tables.json`` while its digest is the digest of
today's inputs and code:

- the arguments of each table (Lambda's figures, every card's features, the per-file figures and
  per-workload ratios, the cards left out), as JSON;
- the code of every module of ``models/`` that ``models/perf/eval.py`` imports, directly or not
  (comments and docstrings aside, as ``models/perf/digest.py`` reads the estimate's code);
- NumPy's version and the machine's architecture.

Otherwise the tests compute the tables as before, check them all the same, and
``test_the_pinned_tables_are_current`` fails with the command that writes the file again:

    uv run python tests/perf_eval_pinned.py

(the same computation, about 8 s).
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import platform
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PINNED = ROOT / "tests" / "fixtures" / "pinned" / "perf_eval_tables.json"
MODELS = ROOT / "models"
ENTRY = "perf.eval"

# name -> (precision, leave the held-out checks' cards out of the fit)
TABLES = {"evaluation": (("fp16", False), ("fp32", False)), "first_15": (("fp16", True), ("fp32", True))}


def table_arguments(data) -> dict[str, list[tuple[tuple, dict]]]:
    """Each table's (positional, keyword) arguments of ``evaluate_loocv``, from the tests' ``data``
    (``lambda_fixtures.evaluation_data``)."""
    from gpuvalue.models.perf.holdout import HELD_OUT_MODELS

    result, features = data
    out = {}
    for name, calls in TABLES.items():
        out[name] = []
        for precision, without_held_out in calls:
            kwargs = {"per_file": result.per_file, "per_workload": result.per_workload}
            if without_held_out:
                kwargs["without"] = HELD_OUT_MODELS
            out[name].append(((result.figures, features, precision), kwargs))
    return out


def module_file(name: str) -> Path:
    """The source file of a module of models/, named relative to it (``perf.eval``)."""
    return MODELS.joinpath(*name.split(".")).with_suffix(".py")


def model_modules() -> list[str]:
    """The modules of models/ that perf.eval imports, directly or through another one (function-level
    imports included), named relative to models/: perf.eval first, then by name."""
    seen, todo = [], [ENTRY]
    while todo:
        name = todo.pop()
        if name in seen or not module_file(name).exists():
            continue
        seen.append(name)
        tree = ast.parse(module_file(name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module == "gpuvalue.models" or node.module.startswith("gpuvalue.models."):
                    base = node.module.removeprefix("gpuvalue.models").lstrip(".")
                    # ``from gpuvalue.models.perf import estimate`` takes a module, ``from
                    # gpuvalue.models.perf.estimate import Features`` a name: whichever is a file counts.
                    todo += [base, *(f"{base}.{a.name}" if base else a.name for a in node.names)]
            elif isinstance(node, ast.Import):
                todo += [a.name.removeprefix("gpuvalue.models.") for a in node.names if a.name.startswith("gpuvalue.models.")]
    return [seen[0], *sorted(seen[1:])]


def _plain(value):
    """JSON-ready: pydantic records as their fields, mappings with their keys in order, sets sorted."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@cache
def _code(source: str) -> str:
    from gpuvalue.models.perf.digest import code_without_prose

    return code_without_prose(source)


def digest(arguments: Mapping[str, list[tuple[tuple, dict]]]) -> str:
    import numpy

    code = {name: _code(module_file(name).read_text(encoding="utf-8")) for name in model_modules()}
    what = {"arguments": _plain(arguments), "code": code, "numpy": numpy.__version__, "machine": platform.machine()}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


def from_json(data: dict):
    from gpuvalue.models.perf.scores import EvalRow, EvalTable

    return EvalTable(
        precision=data["precision"], reference=data["reference"], rows=[EvalRow(**row) for row in data["rows"]],
        predictions={m: [tuple(p) for p in preds] for m, preds in data["predictions"].items()},
        nested_forms=dict(data["nested_forms"]),
    )


def pinned(arguments: Mapping[str, list[tuple[tuple, dict]]]) -> dict[str, list] | None:
    """The pinned tables where the file's digest is today's, else None."""
    if not PINNED.exists():
        return None
    stored = json.loads(PINNED.read_text(encoding="utf-8"))
    if stored.get("digest") != digest(arguments):
        return None
    return {name: [from_json(t) for t in tables] for name, tables in stored["tables"].items()}


def compute(arguments: Mapping[str, list[tuple[tuple, dict]]], evaluate: Callable) -> dict[str, list]:
    return {name: [evaluate(*args, **kwargs) for args, kwargs in calls] for name, calls in arguments.items()}


def write(arguments: Mapping[str, list[tuple[tuple, dict]]], tables: Mapping[str, Sequence]) -> None:
    body = {"digest": digest(arguments), "tables": {name: [dataclasses.asdict(t) for t in ts] for name, ts in tables.items()}}
    PINNED.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from lambda_fixtures import evaluation_data

    from gpuvalue.models.perf.eval import evaluate_loocv

    arguments = table_arguments(evaluation_data())
    print(f"computing {sum(len(c) for c in arguments.values())} nested cross-validations (about 8 s) ...")
    write(arguments, compute(arguments, evaluate_loocv))
    print(f"wrote {PINNED.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
