"""The gpuvalue command line. Command names, flags and JSON shapes are a public interface.

Each group of commands lives in a module of its own and registers its commands on the one Typer
app of flows/cli/cli_app.py when imported; this module imports them all and lists them in the order
`gpuvalue --help` shows:

- run_cli.py: run; serve.py: serve (the daily flow, once or on a schedule); runs_cli.py: runs
- rank_cli.py: rank; recommend_cli.py: recommend; rent_cli.py: rent
- catalog_cli.py: gpus, coverage, match; perf_cli.py: perf; sql_cli.py: sql
- export_cli.py: export, report
- import_cli.py: import listings, rematch; maintenance_cli.py: check, backup, restore, measure; reparse.py: reparse
- sources_cli.py: sources, parse

The command line is a room of its own: nothing else of the project imports it.
"""

from __future__ import annotations

import os
import sys

from gpuvalue.flows.cli import (  # noqa: F401  (each registers its commands on cli_app.app)
    catalog_cli, export_cli, import_cli, maintenance_cli, perf_cli, rank_cli, recommend_cli, rent_cli, reparse,
    run_cli, runs_cli, serve, sources_cli, sql_cli,
)
from gpuvalue.flows.cli.cli_app import app, command_name
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
    from gpuvalue.flows.cli.cli_app import app_for

    app_for(sys.argv[1:])()
