"""Integrity checks: one SQL file per check under ``warehouse/checks/``, each counting offending rows,
and the check that every model is as its file defines it (``warehouse/layers.py``).

They run after every load (the pipeline's check stage) and on demand (``gpuvalue check``); a check
that finds anything fails the run and names itself, because a ranking built on duplicated listings
or orphaned figures would mislead quietly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import duckdb

from gpuvalue.warehouse.layers import drift
from gpuvalue.warehouse.sql_files import split_statements


class IntegrityError(RuntimeError):
    """A check found offending rows."""


@dataclass(frozen=True)
class CheckResult:
    name: str
    offending: int
    unit: str = "rows"
    details: tuple[str, ...] = ()  # what offends, where a count alone does not say

    @property
    def ok(self) -> bool:
        return self.offending == 0

    @property
    def summary(self) -> str:
        """What failed, for the check command's line: the count, then the details."""
        return "; ".join((f"{self.offending} {self.unit}", *self.details))

    def __str__(self) -> str:
        return f"{self.name.replace('_', ' ')}: {'; '.join((str(self.offending), *self.details))}"


@cache
def check_files() -> dict[str, str]:
    folder = resources.files("gpuvalue.warehouse").joinpath("checks")
    return {f.name.removesuffix(".sql"): f.read_text(encoding="utf-8")
            for f in sorted(folder.iterdir(), key=lambda f: f.name) if f.name.endswith(".sql")}


def run_checks(con: duckdb.DuckDBPyConnection) -> list[CheckResult]:
    results = []
    for name, text in check_files().items():
        (stmt,) = split_statements(text)
        results.append(CheckResult(name, int(con.execute(stmt).fetchall()[0][0])))
    # Every table, view and macro as its model file defines it (warehouse/layers.py).
    drifted = tuple(drift(con))
    results.append(CheckResult("models_match_their_files", len(drifted), "models", drifted))
    return results


def failures(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Problems found (empty when healthy), one line per failed check."""
    return [str(r) for r in run_checks(con) if not r.ok]


def raise_on_failure(con: duckdb.DuckDBPyConnection) -> None:
    problems = failures(con)
    if problems:
        raise IntegrityError("integrity check failed: " + "; ".join(problems))
