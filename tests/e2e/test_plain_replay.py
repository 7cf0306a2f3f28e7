"""A replay runs without Prefect (flows/plain_run.py) and ranks exactly as the flow on Prefect does.

The session's replay run (conftest.replay_run) is the flow on a Prefect server; the plain run here
is the same flow body with its tasks called directly, on a warehouse of its own.
"""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from gpuvalue.flows.plain_run import PlainRunner, call, running_plain, submit, without_prefect

REPLAY_DATE = date(2026, 11, 30)


def _ranking(db) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT model, rank, price_usd, relative_perf FROM ranking_daily "
                           "WHERE as_of = ? ORDER BY rank", [REPLAY_DATE]).fetchall()
    finally:
        con.close()


@pytest.mark.e2e
def test_a_plain_replay_ranks_as_the_flow_on_prefect(replay_db, tmp_path):
    from gpuvalue.flows.daily import daily_flow
    from gpuvalue.flows.plain_run import run_plain

    summary = run_plain(daily_flow, as_of=REPLAY_DATE, replay=True, db=str(tmp_path / "gpuvalue.duckdb"))
    assert not summary.failed, summary.outcomes
    assert summary.ranked > 0 and summary.exports
    assert _ranking(tmp_path / "gpuvalue.duckdb") == _ranking(replay_db)
    assert not running_plain()  # the runner is gone with the run


@pytest.mark.parametrize("replay, asked, api, runner, address, plain", [
    (True, False, None, None, None, True),
    (True, False, None, "thread", None, True),
    (True, True, None, None, None, False),  # --prefect
    (True, False, "http://127.0.0.1:4200/api", None, None, False),  # a server to report to
    (True, False, None, "dask", None, False),
    (True, False, None, None, "tcp://127.0.0.1:8786", False),
    (False, False, None, None, None, False),  # a live run: Prefect's retries
])
def test_which_runs_go_without_prefect(replay, asked, api, runner, address, plain):
    assert without_prefect(replay=replay, asked_for_prefect=asked, api_url=api, task_runner=runner,
                           dask_address=address) is plain


class _Task:
    """What the plain runner reads of a Prefect task."""

    def __init__(self, fn, name="t", retries=0, condition=None):
        self.fn, self.name, self.retries, self.retry_condition_fn = fn, name, retries, condition
        self.retry_delay_seconds = [0]


def test_plain_tasks_retry_as_their_condition_says_and_pass_futures_on():
    tries = []

    def flaky(x):
        tries.append(x)
        if len(tries) < 3:
            raise ConnectionError("down")
        return x * 2

    def never_again(task, run, state):
        try:
            state.result()
        except ValueError:
            return False
        except Exception:
            return True
        return False

    from gpuvalue.flows import plain_run

    with plain_run.plain():
        fetched = submit(_Task(flaky, "fetch", retries=2, condition=never_again), 21)
        parsed = submit(_Task(lambda v: v + 1, "parse"), fetched)
        assert parsed.result() == 43 and len(tries) == 3
        with pytest.raises(ValueError):
            call(_Task(lambda: (_ for _ in ()).throw(ValueError("bad page")), retries=5, condition=never_again))
    assert not running_plain() and isinstance(PlainRunner(), PlainRunner)
