"""Scale-out on a real engine: the replay run on a local two-process Dask cluster ranks exactly
as the default thread runner does."""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from tests.conftest import REPLAY_DATE

pytestmark = pytest.mark.slow

RANKING = "SELECT * EXCLUDE (as_of) FROM ranking_daily WHERE as_of = ? ORDER BY rank"


def _ranking(db) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(RANKING, [REPLAY_DATE]).fetchall()
    finally:
        con.close()


def test_dask_cluster_ranks_like_threads(prefect_harness, tmp_path):
    pytest.importorskip("prefect_dask")
    from prefect_dask import DaskTaskRunner

    from gpuvalue.flows.daily import daily_flow
    from gpuvalue.flows.scale import with_dask

    as_of = date.fromisoformat(REPLAY_DATE)
    threads_db, dask_db = tmp_path / "threads" / "g.duckdb", tmp_path / "dask" / "g.duckdb"
    threads = daily_flow(as_of=as_of, replay=True, db=str(threads_db), export=False)

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
