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

import gc
import os
import shutil
import sys
import tempfile
from collections import Counter
from contextlib import contextmanager
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
CREDENTIALS = ("EBAY_CLIENT_ID", "EBAY_CLIENT_SECRET", "REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET")
for _name in list(os.environ):
    if _name.startswith("GPUVALUE_") or _name in CREDENTIALS:
        del os.environ[_name]

import pytest  # noqa: E402

try:
    import fcntl
except ImportError:  # not POSIX: each test worker runs its own replay
    fcntl = None  # type: ignore[assignment]

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
REPLAY_DATE = "2026-11-30"


@pytest.fixture(scope="session", autouse=True)
def _new_warehouses_start_migrated(tmp_path_factory):
    """A warehouse file a test creates starts as a copy of one the migrations built this session.

    Migrating a new warehouse runs about a hundred statements (0.12-0.16 s), and the tests create
    one about ninety times in the fast tier; copying the one built costs about a millisecond. That
    one is built as every warehouse is (``open_database`` on a new file, the first time a test asks
    for one), so each session still runs every migration on a new file. A test that replaces the
    migrations gets them run for real, as does an in-memory open, and a test that restores
    ``inspect.unwrap(db._connect)`` (test_sql_files does, for the migration ledger's files)."""
    from gpuvalue.warehouse import db

    real_connect, shipped = db._connect, db.migrations
    template = tmp_path_factory.getbasetemp() / "migrated-empty-warehouse.duckdb"

    def connect(path: Path, read_only: bool, wait_s: float, *rest):
        if not read_only and db.migrations is shipped and not path.exists():
            if not template.exists():
                with pytest.MonkeyPatch.context() as patch:
                    patch.setattr(db, "_connect", real_connect)
                    db.open_database(template).close()
            try:
                shutil.copyfile(template, path)
            except OSError:
                pass  # an unwritable path: the real open says why
        return real_connect(path, read_only, wait_s, *rest)

    connect.__wrapped__ = real_connect  # type: ignore[attr-defined]  # inspect.unwrap: the real open
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(db, "_connect", connect)
        yield


@pytest.fixture(autouse=True)
def _no_ambient_settings(request, monkeypatch, tmp_path_factory):
    """Every test starts in an empty folder with no GPUVALUE_* or credential variables and no .env.

    The folder is the test's ``tmp_path`` where it asks for one; else a bare temporary folder in the
    session's, made in about 0.5 ms against about 2 ms for a ``tmp_path`` (measured on 1,000 empty
    tests), some 1,800 times a run."""
    if "tmp_path" in request.fixturenames:
        monkeypatch.chdir(request.getfixturevalue("tmp_path"))
    else:
        monkeypatch.chdir(tempfile.mkdtemp(prefix="cwd-", dir=tmp_path_factory.getbasetemp()))
    for name in list(os.environ):
        if name.startswith("GPUVALUE_") or name in CREDENTIALS:
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


@pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")
def pytest_collection_modifyitems_long_modules_first(config, items):
    """After `-m` has selected: hand out the long modules first, those holding e2e tests, then the
    others by their number of selected tests, most first; each module's tests together, in order.
    Among the long ones, the one of most tests that uses the Prefect server or the replay run goes
    first, then those that need neither, then the other users of the server and the replay run.

    The test workers (pytest-xdist, `--dist loadscope --no-loadscope-reorder`, a module per worker
    at a time) then start the long modules at once and fill the end of the run with short ones,
    instead of one worker waiting on a long module handed out last (a single-test module of 24 s
    was, while xdist ordered the modules by their number of tests alone). And the first worker
    starts the session's replay run at once, while the others have long modules of their own to
    run, instead of all of them reaching the replay's users together and waiting for the run
    (10-17 s, measured)."""
    modules = [item.module.__name__ if item.module else item.nodeid for item in items]
    heavy = {m for m, item in zip(modules, items, strict=True) if item.get_closest_marker("e2e") is not None}
    on_prefect = {m for m, item in zip(modules, items, strict=True)
                  if E2E_FIXTURES.intersection(item.fixturenames)}
    counts = Counter(modules)
    first_seen: dict[str, int] = {}
    for i, m in enumerate(modules):
        first_seen.setdefault(m, i)

    starter = min(heavy & on_prefect, key=lambda m: (-counts[m], first_seen[m]), default=None)

    def place(i: int) -> tuple[bool, int, int, int, int]:
        m = modules[i]
        return (m not in heavy, 0 if m == starter else 2 if m in on_prefect else 1, -counts[m], first_seen[m], i)

    items[:] = [items[i] for i in sorted(range(len(items)), key=place)]


# Collection imports no Prefect (about 1.7 s of each test worker's start): a test module imports the
# flow module, or Prefect, inside the tests that run a flow, so the fast tier, which runs none,
# never pays for it. Checked by tests/test_tiers.py in every run, from what this process collected.
PREFECT_IMPORTED_BY: list[str] = []  # the module whose collection imported it first
COLLECTED: list[bool] = []


def pytest_collectreport(report):
    if not PREFECT_IMPORTED_BY and "prefect" in sys.modules:
        PREFECT_IMPORTED_BY.append(report.nodeid)


# Nor does any test of the fast tier: one that imports Prefect (a flow, the server's settings, a
# schedule) is e2e. Checked as each fast-tier test ends, in the test that imported it.
_PREFECT_BEFORE: dict[str, bool] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _PREFECT_BEFORE[item.nodeid] = "prefect" in sys.modules


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    problem = prefect_imported_by_a_fast_test(item, _PREFECT_BEFORE.pop(item.nodeid, True), "prefect" in sys.modules)
    if problem:
        pytest.fail(problem, pytrace=False)


def prefect_imported_by_a_fast_test(item, imported_before: bool, imported_after: bool) -> str | None:
    import property_budget

    if property_budget.FAST_TIER and not imported_before and imported_after and item.get_closest_marker("e2e") is None:
        return (f"{item.nodeid} imported Prefect in the fast tier (about 2 s of a test worker): mark it "
                "@pytest.mark.e2e, or import what needs Prefect only in e2e tests")
    return None


def pytest_collection_finish(session):
    COLLECTED.append(True)
    _launch_prefect_server_early(session.items)
    _freeze_what_collection_built()


def _freeze_what_collection_built() -> None:
    """The garbage collector's passes cost a worker 3.6-4 s of the fast tier (about 2,000 passes,
    the full ones walking every imported module, collected item and cached fixture again). What
    collection built lives to the end: frozen, no pass walks it; and passes come as seldom as in a
    gpuvalue command (flows/gc_policy.py: every 20,000 new objects rather than 700). Measured in the
    fast tier: the collector's time 7.6 s -> 2.3 s over both workers, the run 4-6 s shorter (two
    pairs, alternated). Reference cycles are freed later, not kept: pytest still collects everything
    at the end, and reports what a late finalizer raised."""
    from gpuvalue.flows.gc_policy import collect_garbage_less_often

    gc.collect()
    gc.freeze()
    collect_garbage_less_often()


# The session's Prefect server, launched as soon as this process knows it will need one (see
# prefect_harness), keyed "server".
_EARLY: dict[str, object] = {}


def _launch_prefect_server_early(items) -> None:
    """Launch the Prefect test server at the start of the session, without waiting for it, where the
    selected tests need it on every test worker: its start (7.4 s of the server's CPU, measured once:
    see prefect_harness) then overlaps the tests this worker runs first, instead of holding up the
    first test that needs it. Not in the fast tier (no test needs it), nor where fewer than two modules a
    worker need it (a worker might then start one for nothing)."""
    if launches_server_early(items, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))):
        from gpuvalue.flows import prefect_server

        _EARLY["server"] = prefect_server.launch_temporary_server()


def launches_server_early(items, workers: int) -> bool:
    """Whether at least two modules a worker use the Prefect server or the replay run."""
    modules = {item.module.__name__ for item in items if item.module and E2E_FIXTURES.intersection(item.fixturenames)}
    return len(modules) >= 2 * max(workers, 1)


def pytest_configure(config):
    """Tell the property tests which tier runs (property_budget), before they are imported; build
    each command-line app once."""
    _build_each_cli_once()
    import property_budget
    from hypothesis import settings

    property_budget.FAST_TIER = _selects_no_e2e(config)
    settings.register_profile("fast-tier", max_examples=property_budget.examples(property_budget.DEFAULT_EXAMPLES))
    if property_budget.FAST_TIER:
        settings.load_profile("fast-tier")


def _build_each_cli_once() -> None:
    """typer's test runner turns the app into a click command on every invoke, reading every
    command's signature and type hints again: about 6,000 signatures read in the fast tier, 8 % of
    its time under a profiler. The app is the same object all session and click makes a fresh
    context for each invoke, so the command is built once per app (what `gpuvalue` itself does once per process).
    Should typer rename its helper, every invoke builds the command again, as before."""
    import typer.testing

    build = getattr(typer.testing, "_get_command", None)
    if build is None or getattr(build, "built", None) is not None:
        return
    built: dict[object, object] = {}  # app -> its command (an app hashes by identity)

    def get_command(app):
        if app not in built:
            built[app] = build(app)
        return built[app]

    get_command.built = built
    typer.testing._get_command = get_command


def _selects_no_e2e(config) -> bool:
    """Whether `-m` leaves out a test marked e2e (and nothing else): the fast tier, `-m "not e2e"`,
    or any expression that excludes e2e."""
    expression = config.getoption("markexpr", "") or ""
    if not expression:
        return False
    try:
        from _pytest.mark.expression import Expression

        return not Expression.compile(expression).evaluate(lambda name, **kwargs: name == "e2e")
    except Exception:  # pytest's expression parser is internal: read the one documented spelling
        return " ".join(expression.split()) == "not e2e"


MAX_TEST_WORKERS = 8  # each worker that runs e2e tests starts a Prefect test server of its own


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
    """One Prefect server for the whole session, which the flows reach through ``PREFECT_API_URL``.

    It is started as `gpuvalue run` starts its temporary server (flows/prefect_server.py): on the
    migrated empty schema gpuvalue ships for a new Prefect home (this process's own, see the top of
    this file), without registering block types, and tied to this process by the kernel. Prefect's
    own test harness would import the server's modules into this process and register every block
    type: measured once, 5.4 s of this process's CPU and 11.9 s of the server's, against 0.5 s and
    7.4 s."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from gpuvalue.flows import prefect_server

    server = _EARLY.pop("server", None) or prefect_server.launch_temporary_server()
    assert server is not None, "PREFECT_API_URL is set: the session would not run on a server of its own"
    try:
        with temporary_settings(updates={PREFECT_API_URL: server.wait_ready(120)}):
            yield
    finally:
        server.stop()


@pytest.fixture(autouse=True, scope="module")
def _prefect_events_client_closed_after_each_module():
    """Prefect's events client pings its server over a websocket now and then, and each ping draws
    from the global ``random``; Hypothesis, drawing in a later module on the same worker, took that
    for a strategy using ``random`` and warned. A module that started the client stops it when it
    ends (the next flow run starts a new one)."""
    yield
    worker = sys.modules.get("prefect.events.worker")
    if worker is not None:
        worker.EventsWorker.drain_all(timeout=10)  # returns at once where none was started


@dataclass(frozen=True)
class ReplayRun:
    db: Path
    summary: object  # flows.pipeline.RunSummary; typed loosely so that importing conftest stays cheap


@pytest.fixture(scope="session")
def replay_run(prefect_harness, tmp_path_factory) -> ReplayRun:
    """One real replay run of the daily flow (default thread runner, exports on), shared by many
    tests, and by every test worker of the session: the first worker to need it runs it while the
    others wait, then they all read its database (read-only, as every test treats it) and its
    summary. A run is about 11 s of this process's CPU, and the Prefect server's work besides."""
    import pickle
    from datetime import date

    from gpuvalue.flows.daily import daily_flow

    folder = _session_folder(tmp_path_factory) / "replay-run"
    with _held(folder.with_name("replay-run.lock")):
        done = folder / "summary.pickle"
        if done.exists():
            return ReplayRun(folder / "gpuvalue.duckdb", pickle.loads(done.read_bytes()))
        if folder.exists():  # a worker whose run failed left it: run again, from nothing
            shutil.rmtree(folder)
        folder.mkdir()
        summary = daily_flow(as_of=date.fromisoformat(REPLAY_DATE), replay=True, db=str(folder / "gpuvalue.duckdb"))
        assert not summary.failed, summary.outcomes
        done.write_bytes(pickle.dumps(summary))
        return ReplayRun(folder / "gpuvalue.duckdb", summary)


def _session_folder(tmp_path_factory) -> Path:
    """A folder every worker of this session shares (pytest-xdist gives each worker its own
    base folder inside the session's), or this process's own where file locks are not at hand."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") and fcntl is not None else base


@contextmanager
def _held(lock_file: Path):
    """An exclusive lock on ``lock_file`` between the test workers, held for the block."""
    if fcntl is None:  # no POSIX locks: the folder is this process's own (_session_folder)
        yield
        return
    with open(lock_file, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


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
