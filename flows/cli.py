"""The gpuvalue command line. Command names, flags and JSON shapes are a public interface.

Each group of commands lives in a module of its own and registers its commands on the one Typer
app of flows/cli_app.py when imported; this module imports them all and lists them in the order
`gpuvalue --help` shows:

- flows/run_cli.py: run; flows/serve.py: serve (the daily flow, once or on a schedule); flows/runs_cli.py: runs
- flows/rank_cli.py: rank; flows/recommend_cli.py: recommend; flows/rent_cli.py: rent
- flows/catalog_cli.py: gpus, coverage, match; flows/perf_cli.py: perf; flows/sql_cli.py: sql
- flows/export_cli.py: export, report
- flows/import_cli.py: import listings, rematch; flows/maintenance_cli.py: check, backup, restore, measure;
  flows/reparse.py: reparse
- flows/sources_cli.py: sources, parse
"""

from __future__ import annotations

import os
import sys

from gpuvalue.flows import (  # noqa: F401  (each registers its commands on cli_app.app)
    catalog_cli, export_cli, import_cli, maintenance_cli, perf_cli, rank_cli, recommend_cli, rent_cli, reparse,
    run_cli, runs_cli, serve, sources_cli, sql_cli,
)
from gpuvalue.flows.cli_app import app, command_name
from gpuvalue.flows.gc_policy import collect_garbage_less_often

# The order `gpuvalue --help` lists the commands in (the `import` group comes after them).
COMMANDS = ("run", "rank", "export", "sql", "match", "parse", "check", "gpus", "coverage", "perf", "rematch", "backup",
            "restore", "recommend", "report", "measure", "reparse", "rent", "runs", "sources", "serve")
app.registered_commands.sort(key=lambda command: COMMANDS.index(command_name(command)))


def main() -> None:
    # Offline-friendly defaults: the temporary Prefect server must not try to phone home.
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    # pydantic looks for plugins among every installed distribution's entry points the first time a
    # model is built (a tenth of a second of a reading command); gpuvalue uses none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    collect_garbage_less_often()
    from gpuvalue.flows.cli_app import app_for

    app_for(sys.argv[1:])()


if __name__ == "__main__":
    # Run as a module (python -m gpuvalue.flows.cli), this file is __main__; every command is on
    # the one app in cli_app, so no second copy of this module is needed.
    main()
