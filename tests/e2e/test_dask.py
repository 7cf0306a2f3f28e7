"""Scale-out on a real engine: the replay run on a local two-process Dask cluster ranks exactly
as the default thread runner does.

The thread runner's run is the session's replay run (conftest.replay_run), and the Dask run starts
from a warehouse holding that run's stored cross-validated error of the spec estimate: the
estimate runs in the flow's own process on either runner, and its nested cross-validation would
otherwise be most of this test's time. Should the Dask run's inputs differ, the stored error no
longer matches their digest and the run cross-validates afresh.
"""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from conftest import REPLAY_DATE

pytestmark = pytest.mark.e2e

RANKING = "SELECT * EXCLUDE (as_of) FROM ranking_daily WHERE as_of = ? ORDER BY rank"


def _ranking(db) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(RANKING, [REPLAY_DATE]).fetchall()
    finally:
        con.close()


def test_dask_cluster_ranks_like_threads(replay_run, seed_estimate_cv, tmp_path):
    pytest.importorskip("prefect_dask")
    from prefect_dask import DaskTaskRunner

    from gpuvalue.flows.daily import daily_flow
    from gpuvalue.flows.scale import with_dask

    as_of = date.fromisoformat(REPLAY_DATE)
    threads_db, threads = replay_run.db, replay_run.summary  # the default thread runner
    dask_db = seed_estimate_cv(tmp_path / "dask" / "g.duckdb")

    on_dask = with_dask(daily_flow)
    runner = on_dask.task_runner
    assert isinstance(runner, DaskTaskRunner)
    assert runner.cluster_kwargs["n_workers"] == 2 and runner.cluster_kwargs["processes"] is True
    dask = on_dask(as_of=as_of, replay=True, db=str(dask_db), export=False)

    assert {s: o.status for s, o in dask.outcomes.items()} == {s: o.status for s, o in threads.outcomes.items()}
    assert {s: o.rows for s, o in dask.outcomes.items()} == {s: o.rows for s, o in threads.outcomes.items()}
    expected = _ranking(threads_db)
    assert len(expected) > 10
    assert _ranking(dask_db) == expected
