"""Stored cross-validated errors of the spec estimate (table ``perf_estimate_cv``), and the ones
shipped with gpuvalue (``models/data/perf_estimate_cv.json``).

A warehouse keeps the error of every fit it cross-validated. A new warehouse has none, so the
errors of the fits on the shipped replay's inputs ship with the package: a fit whose inputs
digest is one of those uses it instead of a nested cross-validation of its own (about 11 s). The
digest covers the training figures, the training cards' specs and the model code, so a shipped
error is only ever used for exactly the inputs and code it was computed from; any other fit
computes its own. Regenerate the file after a change to the model code or the replay's data:

    uv run python -m gpuvalue.warehouse.estimate_cv <database after a replay run>
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib import resources
from pathlib import Path

import duckdb

from gpuvalue.models.perf.error_groups import GroupError

from gpuvalue.warehouse.sql_files import dicts, rows, run

SHIPPED_FILE = ("data", "perf_estimate_cv.json")  # in gpuvalue.models


@dataclass(frozen=True)
class KnownCvError:
    error: float
    stored: bool  # a row of this warehouse's perf_estimate_cv; else one shipped with gpuvalue
    computed_at: datetime
    form: str | None = None  # the form the fit on these inputs chose (ModelForm.code); None if not kept
    # The same cross-validation's error per kind of card (models/perf/error_groups.py); None if not kept.
    group_errors: dict[str, GroupError] | None = None


def group_errors_json(errors: Mapping[str, GroupError]) -> str:
    """How a row keeps the per-kind errors: {kind: [median abs error, cards]}."""
    return json.dumps({g: [e.median_abs_error, e.cards] for g, e in sorted(errors.items())})


def _group_errors(stored: str | Mapping[str, Sequence[float]] | None) -> dict[str, GroupError] | None:
    """A row's per-kind errors: JSON text from the warehouse, a mapping from the shipped file."""
    if stored is None:
        return None
    loaded: Mapping[str, Sequence[float]] = json.loads(stored) if isinstance(stored, str) else stored
    return {g: GroupError(g, float(v[0]), int(v[1])) for g, v in loaded.items()}


def known_cv_error(con: duckdb.DuckDBPyConnection, digest: str) -> KnownCvError | None:
    """The warehouse's error for these inputs, else the shipped one for the same digest, else None."""
    found = rows(con, "perf_estimate_cv_known", [digest])
    if found:
        return KnownCvError(float(found[0][0]), True, found[0][1], found[0][2], _group_errors(found[0][3]))
    shipped = shipped_cv_errors().get(digest)
    if shipped is None:
        return None
    return KnownCvError(float(shipped["cv_median_abs_error"]), False, datetime.fromisoformat(shipped["computed_at"]),
                        shipped.get("form"), _group_errors(shipped.get("group_errors")))


def store_cv_error(
    con: duckdb.DuckDBPyConnection,
    digest: str,
    precision: str,
    model_version: str,
    trained_cards: int,
    error: float,
    computed_at: datetime,
    form: str | None = None,
    group_errors: Mapping[str, GroupError] | None = None,
) -> None:
    run(con, "perf_estimate_cv_store", [digest, precision, model_version, trained_cards, error, computed_at, form,
                                        None if group_errors is None else group_errors_json(group_errors)])


def fill_form(con: duckdb.DuckDBPyConnection, digest: str, form: str) -> None:
    """Keep the chosen form on a row stored before forms were kept."""
    run(con, "perf_estimate_cv_fill_form", [form, digest])


def fill_group_errors(con: duckdb.DuckDBPyConnection, digest: str, errors: Mapping[str, GroupError]) -> None:
    """Keep the per-kind errors on a row stored before they were kept."""
    run(con, "perf_estimate_cv_fill_group_errors", [group_errors_json(errors), digest])


def _shipped_path() -> Path:
    return Path(str(resources.files("gpuvalue.models").joinpath(*SHIPPED_FILE)))


@cache
def shipped_cv_errors() -> dict[str, dict]:
    """The shipped rows by inputs digest (none when the file is absent)."""
    path = _shipped_path()
    if not path.is_file():
        return {}
    return {row["inputs_digest"]: row for row in json.loads(path.read_text(encoding="utf-8"))["rows"]}


def write_shipped_cv_errors(con: duckdb.DuckDBPyConnection, path: Path | None = None) -> int:
    """Write every row of ``con``'s perf_estimate_cv (a warehouse after a replay run) as the shipped file."""
    shipped = dicts(con, "perf_estimate_cv_shipped")
    for row in shipped:
        row["computed_at"] = row["computed_at"].isoformat()
        if row["group_errors"] is not None:
            row["group_errors"] = json.loads(row["group_errors"])
    payload = {
        "about": "Cross-validated errors of the spec estimate fitted on the replay's inputs, by inputs digest "
                 "(models/perf/digest.py); read by warehouse/estimate_cv.py when a warehouse has no row for a "
                 "digest. Regenerate: uv run python -m gpuvalue.warehouse.estimate_cv <database after a replay run>",
        "rows": shipped,
    }
    target = path or _shipped_path()
    target.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    shipped_cv_errors.cache_clear()
    return len(shipped)


if __name__ == "__main__":
    database = duckdb.connect(sys.argv[1], read_only=True)
    try:
        print(f"wrote {write_shipped_cv_errors(database)} rows to {_shipped_path()}")
    finally:
        database.close()
