"""Scale-out: the same flow with its fetch and parse tasks on a Dask cluster, through prefect-dask."""

from __future__ import annotations


def with_dask(flow_obj, address: str | None = None, n_workers: int = 2):
    """The flow with a DaskTaskRunner: an existing scheduler at ``address``, else a local cluster."""
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError("the dask task runner needs the 'dask' extra: uv sync --extra dask") from exc
    if address:
        runner = DaskTaskRunner(address=address)
    else:
        runner = DaskTaskRunner(
            cluster_kwargs={"n_workers": n_workers, "threads_per_worker": 1, "processes": True, "dashboard_address": None}
        )
    return flow_obj.with_options(task_runner=runner)
