"""The daily flow run as plain functions, without Prefect's API: what a replay run needs.

Prefect 3 runs a flow only against an API server, and without ``PREFECT_API_URL`` that is a
temporary server of the run's own, whose start cost about half of a 24 s replay. A replay fetches
nothing (its pages are recorded), so neither Prefect's retries nor its run history serve it; it
runs the flow's body (``daily_flow.fn``) with its tasks called directly, fetch and parse each on a
thread pool of their own, as Prefect's thread runner would. ``gpuvalue run --prefect`` (or a set
``PREFECT_API_URL``) runs a replay on Prefect instead; a live run always runs on Prefect.

The flow asks this module how to run each task (``submit`` for a concurrent one, ``call`` for one
in the flow's thread), so the one flow body serves both.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

_RUNNER: contextvars.ContextVar[PlainRunner | None] = contextvars.ContextVar("gpuvalue_plain_runner", default=None)


def _unwrap(value: Any) -> Any:
    """A task's argument as its function takes it: a future's result, a ``quote`` unquoted."""
    if isinstance(value, Future):
        return value.result()
    unquote = getattr(value, "unquote", None)
    return unquote() if callable(unquote) else value


class _Raised:
    """What a retry condition reads of a failed try (Prefect passes the task run's state)."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def result(self):
        raise self.exc


class PlainRunner:
    def __init__(self) -> None:
        # One pool per task name: a parse waits on its fetch, which is never queued behind it.
        self.pools: dict[str, ThreadPoolExecutor] = {}

    def submit(self, task, args: tuple) -> Future:
        pool = self.pools.get(task.name)
        if pool is None:
            pool = self.pools[task.name] = ThreadPoolExecutor(thread_name_prefix=f"gpuvalue-{task.name}")
        context = contextvars.copy_context()  # the runner travels with the task, as it would in the flow's thread
        return pool.submit(context.run, self.call, task, args)

    def call(self, task, args: tuple):
        values = [_unwrap(a) for a in args]
        delays = task.retry_delay_seconds or [0]
        delays = delays if isinstance(delays, list) else [delays]
        for attempt in range(task.retries + 1):
            try:
                return task.fn(*values)
            except Exception as exc:
                retry = task.retry_condition_fn is None or task.retry_condition_fn(task, None, _Raised(exc))
                if attempt == task.retries or not retry:
                    raise
                time.sleep(delays[min(attempt, len(delays) - 1)])

    def close(self) -> None:
        for pool in self.pools.values():
            pool.shutdown(wait=True)


def without_prefect(*, replay: bool, asked_for_prefect: bool, api_url: str | None, task_runner: str | None,
                    dask_address: str | None) -> bool:
    """Whether a run goes without Prefect: a replay on threads, unless Prefect is asked for by
    ``--prefect`` or by a server to report to (``PREFECT_API_URL``)."""
    return (replay and not asked_for_prefect and not api_url and task_runner in (None, "thread")
            and not dask_address)


def running_plain() -> bool:
    return _RUNNER.get() is not None


@contextmanager
def plain() -> Iterator[PlainRunner]:
    """Within it, the flow's tasks run as plain functions (``submit`` and ``call`` below)."""
    runner = PlainRunner()
    token = _RUNNER.set(runner)
    try:
        yield runner
    finally:
        _RUNNER.reset(token)
        runner.close()


def run_plain(flow, **parameters):
    """The flow's body with its tasks run as plain functions: no Prefect API, no server."""
    if not hasattr(flow, "fn"):  # a plain function standing in for the flow: nothing of Prefect's to replace
        return flow(**parameters)
    with plain():
        return flow.fn(**parameters)


def submit(task, *args):
    """``task.submit(*args)`` on Prefect; a future of the plain runner's pool otherwise."""
    runner = _RUNNER.get()
    return task.submit(*args) if runner is None else runner.submit(task, args)


def call(task, *args):
    """``task(*args)`` on Prefect; the task's function, with its retries, otherwise."""
    runner = _RUNNER.get()
    return task(*args) if runner is None else runner.call(task, args)
