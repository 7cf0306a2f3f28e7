"""Test isolation: no ambient settings, no network, Prefect in a throwaway home; and the two tiers.

Prefect reads its settings at import time, so they are set here before anything imports it.

Tiers: `uv run pytest` runs everything (what CI runs); `uv run pytest -m "not e2e"` is the fast
tier. A test is `e2e` when it starts Prefect (the test server, a served deployment, a CLI
subprocess that runs the flow), uses the session's replay run, Dask, a browser, the static checker
or an external client, or takes more than about 2 s. Tests that use the `prefect_harness`,
`replay_run` or `replay_db` fixtures are marked here even where the marker was forgotten, so the
fast tier never starts the Prefect server.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# The suite starts dozens of Python processes over the same modules (a test worker per core, the
# CLI and the flow in subprocesses). Where PYTHONDONTWRITEBYTECODE is set, each of them compiled
# the project afresh and pytest rewrote every test module's asserts again: the bytecode caches
# (git-ignored __pycache__ folders) are written for the suite whatever the environment says.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
_PREFECT_HOME = tempfile.mkdtemp(prefix="gpuvalue-prefect-")
os.environ["PREFECT_HOME"] = _PREFECT_HOME
os.environ["DO_NOT_TRACK"] = "1"
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.pop("PREFECT_API_URL", None)
for _name in list(os.environ):
    if _name.startswith("GPUVALUE_") or _name in ("EBAY_CLIENT_ID", "EBAY_CLIENT_SECRET", "REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET"):
        del os.environ[_name]

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
REPLAY_DATE = "2026-11-30"


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch, tmp_path):
    """Every test starts in an empty folder with no GPUVALUE_* or credential variables and no .env."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("GPUVALUE_") or name in ("EBAY_CLIENT_ID", "EBAY_CLIENT_SECRET", "REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET"):
            monkeypatch.delenv(name, raising=False)


# Fixtures that make a test end to end: the Prefect test server and the session's replay run.
E2E_FIXTURES = frozenset({"prefect_harness", "replay_run", "replay_db"})


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark e2e what needs the Prefect server or the replay run, and what still says `slow` (the
    former name of the marker), before `-m` selects; the fast tier stays free of Prefect."""
    for item in items:
        if item.get_closest_marker("e2e") is None and (
            E2E_FIXTURES.intersection(item.fixturenames) or item.get_closest_marker("slow")
        ):
            item.add_marker(pytest.mark.e2e)
    # Modules holding e2e tests first, each module's tests kept together and in order: the test
    # workers (pytest-xdist, a module per worker at a time) start the long modules at once and fill
    # the end of the run with short ones, instead of waiting on a long module handed out last.
    heavy = {item.module.__name__ for item in items if item.get_closest_marker("e2e") is not None and item.module}
    items[:] = sorted(items, key=lambda item: item.module is None or item.module.__name__ not in heavy)


MAX_TEST_WORKERS = 8  # each worker that runs e2e tests starts a Prefect test server and a replay run


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: the cores this process may use (its CPU affinity and a cgroup CPU quota, which a
    container's core count does not show), at most MAX_TEST_WORKERS."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()
        if quota != "max":
            cores = min(cores, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, min(cores, MAX_TEST_WORKERS))


@pytest.fixture(scope="session")
def prefect_harness():
    """One Prefect test server for the whole session (starting one costs seconds).

    Its database starts as the migrated empty schema gpuvalue ships for a new Prefect home
    (flows/prefect_db_template.py), written where the harness puts its database, so the test
    server skips Prefect's migrations (up in 15.6 s instead of 23.8 s, measured once). Should Prefect
    name its test database otherwise, the file is simply not used."""
    from prefect.testing import utilities

    from gpuvalue.flows.prefect_db_template import write_template

    make_folder = utilities.mkdtemp

    def folder_with_schema() -> str:
        folder = make_folder()
        write_template(Path(folder) / "prefect-test.db")
        return folder
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(utilities, "mkdtemp", folder_with_schema)
        with utilities.prefect_test_harness(server_startup_timeout=120):
            yield


@dataclass(frozen=True)
class ReplayRun:
    db: Path
    summary: object  # flows.pipeline.RunSummary; typed loosely so that importing conftest stays cheap


@pytest.fixture(scope="session")
def replay_run(prefect_harness, tmp_path_factory) -> ReplayRun:
    """One real replay run of the daily flow (default thread runner, exports on), shared by many tests."""
    from datetime import date

    from gpuvalue.flows.daily import daily_flow

    db = tmp_path_factory.mktemp("replay") / "gpuvalue.duckdb"
    summary = daily_flow(as_of=date.fromisoformat(REPLAY_DATE), replay=True, db=str(db))
    assert not summary.failed, summary.outcomes
    return ReplayRun(db, summary)


@pytest.fixture(scope="session")
def replay_db(replay_run) -> Path:
    """The database of the session's replay run, shared read-only (copy it to write)."""
    return replay_run.db


@pytest.fixture(scope="session")
def seed_estimate_cv(replay_db):
    """Creates a migrated, empty warehouse at a path holding only the replay run's stored
    cross-validated errors of the spec estimate (perf_estimate_cv).

    A whole run on a fresh warehouse spends most of its time on that nested cross-validation,
    which the session's replay run has done already on the same inputs. Tests about something
    else (Dask, a served deployment, a killed load) start from such a warehouse, as every day's
    run after the first does; the run still fits the estimate, and cross-validates again should
    its inputs differ (the stored error is keyed by a digest of them).
    """
    import duckdb

    from gpuvalue.warehouse.db import open_database

    replayed = duckdb.connect(str(replay_db), read_only=True)
    try:
        columns = [c for (c,) in replayed.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'perf_estimate_cv' "
            "ORDER BY ordinal_position").fetchall()]
        rows = replayed.execute(f"SELECT {', '.join(columns)} FROM perf_estimate_cv").fetchall()
    finally:
        replayed.close()
    assert len(rows) == 2, rows  # one per precision

    def seed(path: Path) -> Path:
        con = open_database(path)
        try:
            con.executemany(f"INSERT INTO perf_estimate_cv ({', '.join(columns)}) "
                            f"VALUES ({', '.join('?' for _ in columns)})", rows)
        finally:
            con.close()
        return path

    return seed
