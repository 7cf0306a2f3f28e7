"""``gpuvalue serve``: the daily flow as a scheduled Prefect deployment, run by this process.

Serving needs a real Prefect server: the ephemeral one that Prefect starts for a plain
``gpuvalue run`` lives only as long as that process and has no scheduler, so a schedule
registered there would never fire. The command therefore refuses to start without
``PREFECT_API_URL`` and points to the cron/systemd files for machines without a server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from gpuvalue.flows.cli.cli_app import DbOpt, fail, full_settings, app, err

DEPLOYMENT_NAME = "gpuvalue-daily"
FLOW_NAME = "gpuvalue-daily"

NO_SERVER_HELP = (
    "no Prefect server is configured (PREFECT_API_URL is not set). A schedule needs a server that "
    "outlives this process: start one with `prefect server start` and set "
    "PREFECT_API_URL=http://127.0.0.1:4200/api (or use deploy/compose.yaml), or schedule "
    "`gpuvalue run` with cron or systemd instead (deploy/cron, deploy/systemd)."
)


def configured_api_url() -> str | None:
    """The Prefect API this process talks to, or None when Prefect would fall back to an ephemeral one."""
    from prefect.settings import PREFECT_API_URL

    value = PREFECT_API_URL.value()
    return str(value) if value else None


def deployment_parameters(replay: bool = False, db: Path | str | None = None) -> dict[str, Any]:
    """Parameters each scheduled run gets; ``as_of`` stays unset so every run ranks its own day."""
    params: dict[str, Any] = {"replay": replay}
    if db is not None:
        params["db"] = str(db)
    return params


def build_deployment(cron: str, timezone: str, replay: bool = False, db: Path | str | None = None):
    """The deployment object for ``prefect.serve``; loaded by module path so it works from any folder."""
    from prefect.deployments.runner import EntrypointType
    from prefect.schedules import Cron

    from gpuvalue.flows.daily import daily_flow

    return daily_flow.to_deployment(
        name=DEPLOYMENT_NAME,
        schedule=Cron(cron, timezone=timezone),
        parameters=deployment_parameters(replay, db),
        description="Daily GPU price/performance ranking: specs, listings, matching, performance, ranking, exports.",
        tags=["gpuvalue", "replay"] if replay else ["gpuvalue"],
        entrypoint_type=EntrypointType.MODULE_PATH,
    )


def validate_schedule(cron: str, timezone: str) -> str | None:
    """A message saying what is wrong with the schedule, or None when Prefect accepts it."""
    from prefect.schedules import Cron

    try:
        Cron(cron, timezone=timezone)
    except Exception as exc:  # pydantic and croniter both report bad values as plain exceptions
        return f"invalid schedule {cron!r} in {timezone!r}: {str(exc).splitlines()[0]}"
    return None


@app.command()
def serve(
    cron: Annotated[Optional[str], typer.Option("--cron", help="Cron schedule (default from settings: 0 6 * * *).")] = None,
    timezone: Annotated[Optional[str], typer.Option("--timezone", help="IANA time zone of the schedule (default UTC).")] = None,
    replay: Annotated[bool, typer.Option("--replay", help="Scheduled runs use the recorded pages (demos and tests).")] = False,
    db: DbOpt = None,
) -> None:
    """Serve the daily flow as the scheduled deployment gpuvalue-daily (needs a Prefect server)."""
    settings = full_settings(db)
    cron = cron or settings.schedule_cron
    timezone = timezone or settings.schedule_timezone
    problem = validate_schedule(cron, timezone)
    if problem:
        fail(problem)
    api = configured_api_url()
    if not api:
        fail(NO_SERVER_HELP)
    from prefect import serve as prefect_serve

    deployment = build_deployment(cron, timezone, replay, settings.db.resolve())
    err.print(f"gpuvalue: serving {FLOW_NAME}/{DEPLOYMENT_NAME} on {api}, schedule {cron!r} ({timezone}), "
              f"database {settings.db}{', replay' if replay else ''}. Ctrl+C stops.")
    prefect_serve(deployment, print_starting_message=False)
