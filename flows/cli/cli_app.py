"""What every gpuvalue command module shares: the Typer app, the two consoles, the --db option
and the small functions for settings, errors, dates, the read-only connection and output.

The commands register themselves on ``app`` (``@app.command()``) in one module per group of
commands (flows/cli/__init__.py lists them); cli.py imports them all, so that ``gpuvalue.flows.cli.app`` has
every command. Keeping the shared pieces here lets those modules depend on this one instead of on
cli.py, which depends on them. What a command module takes from here is public (no leading
underscore): tests/test_architecture.py fails on a private name imported from another module.

Commands start fast. Every command module is imported for every command (``--help`` included), so
a command module imports at its top only what this module imports (typer, rich, the standard
library) and light pure modules; everything else (duckdb, pyarrow, Prefect, the source registry,
pipeline, stages) is imported inside the command's function, where the command needs it. The rules
for a new command:

- A command that only reads (rank, recommend, rent, perf, gpus, sql, coverage, runs, check, match,
  export, report) takes its settings from ``reader_settings(db)``, once, and its connection from
  ``open_reader(settings)``: the shared settings (flows/settings_core.py), read without pydantic,
  pydantic-settings or the sources. ``full_settings(db)`` is the full ``Settings`` (sources and their
  own settings) for commands that fetch, load or run.
- No help text is computed at import: a help that lists something the registry knows says
  ``{parsers}`` or ``{parse_sources}`` and is filled in when that command's help is shown
  (``HELP_FILLS``).
- tests/flows/test_cli_startup.py fails when importing the CLI, ``rank --help`` or any reading
  command imports Prefect, pydantic-settings, pyarrow or the source registry, and when one of the
  commands bench/bench_read.py times imports pydantic or numpy.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from datetime import time as dt_time
from pathlib import Path
from typing import Annotated, NoReturn, Optional

import typer
from typer.core import TyperCommand, TyperGroup
from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpuvalue.models.text_safety import escape_controls


def _unlabel_flags(params: list) -> list:
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


def _parser_names() -> str:
    from gpuvalue.scrapers import registry

    return ", ".join(registry.parsers())


def _parse_source_names() -> str:
    from gpuvalue.scrapers import registry

    return ", ".join(s for s, v in registry.all_sources().items() if v.parse)


# Help texts that list what the registry knows, filled in only when a command's help is built (the
# registry imports every source module: most of a second at start-up).
HELP_FILLS: dict[str, Callable[[], str]] = {"{parsers}": _parser_names, "{parse_sources}": _parse_source_names}


def _fill_help(params: list) -> list:
    for param in params:
        text = getattr(param, "help", None)
        if text and "{" in text:
            for marker, fill in HELP_FILLS.items():
                if marker in text:
                    text = text.replace(marker, fill())
            param.help = text
    return params


# Typer converts each value through a pydantic TypeAdapter built for its parameter: importing
# pydantic and building the adapters cost a reading command more than its queries. The values a
# command line gives are simple (a whole number, a decimal, a path, text), and for those the
# conversion below gives what the adapter gives; anything else (a typo such as "--top x", a value
# a fast pattern does not cover) goes through typer's own adapter, so its result and its error
# message are typer's (tests/flows/test_cli_startup.py compares the two).
_WHOLE = re.compile(r"-?[0-9]{1,18}")
_DECIMAL = re.compile(r"-?[0-9]{1,15}(?:\.[0-9]{1,15})?")


def _light_coercion(params: list) -> list:
    runtime = _light_runtime()
    if runtime is None:
        return params
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if (descriptor is None or getattr(param, "_runtime_param", True) is not None or param.multiple
                or param.nargs != 1 or descriptor.file_annotation is not None):
            continue
        info = descriptor.parameter_info
        if info.parser is not None or info.min is not None or info.max is not None or info.clamp:
            continue
        if descriptor.annotation in (str, int, float, bool, Path):
            param._runtime_param = runtime(parameter_info=info, annotation=descriptor.annotation,
                                           descriptor=descriptor)
    return params


def _light_runtime():
    """The runtime parameter class of ``_light_coercion``, or None where typer has no such seam."""
    global _LIGHT_RUNTIME
    if _LIGHT_RUNTIME is not None:
        return _LIGHT_RUNTIME or None
    try:
        from dataclasses import dataclass, field
        from typing import Any

        from typer._coercion import RuntimeParam, build_runtime_param
        from typer._param_types import coerce_cli_path
    except ImportError:  # another typer: its own conversions
        _LIGHT_RUNTIME = False
        return None

    @dataclass(frozen=True)
    class LightParam(RuntimeParam):
        descriptor: Any = None
        _adapter: list = field(default_factory=list)  # typer's own runtime parameter, built when needed

        def _coerce_value(self, value, param, ctx):
            kind = self.annotation
            if type(value) is kind:
                if kind is Path:
                    return coerce_cli_path(value, self.parameter_info, path_type=Path, param=param, ctx=ctx)
                return value
            if type(value) is str:
                if kind is str:
                    return value
                if kind is int and _WHOLE.fullmatch(value):
                    return int(value)
                if kind is float and _DECIMAL.fullmatch(value):
                    return float(value)
                if kind is Path and value and "\x00" not in value:
                    return coerce_cli_path(Path(value), self.parameter_info, path_type=Path, param=param, ctx=ctx)
            if not self._adapter:
                self._adapter.append(build_runtime_param(self.descriptor))
            return self._adapter[0]._coerce_value(value, param=param, ctx=ctx)

    _LIGHT_RUNTIME = LightParam
    return LightParam


_LIGHT_RUNTIME = None


class _Command(TyperCommand):
    """Typer labels every option with its type in --help, a flag too ("--replay <bool>"), which reads
    as if the flag took a value; a flag shows no label, as in click's own help. Help texts naming
    ``HELP_FILLS`` markers are completed here, and simple values converted without pydantic
    (``_light_coercion``)."""

    def get_params(self, ctx):
        return _light_coercion(_fill_help(_unlabel_flags(super().get_params(ctx))))


class _Group(TyperGroup):
    __doc__ = _Command.__doc__

    def get_params(self, ctx):
        return _light_coercion(_unlabel_flags(super().get_params(ctx)))

    def invoke(self, ctx):
        """A full disk, a read-only folder or a damaged database met anywhere in a command is said in one
        line (what and where, and what to do), not as a traceback ending in "[Errno 28]"."""
        try:
            return super().invoke(ctx)
        except Exception as exc:  # noqa: BLE001 - anything else is raised as it was
            problem = _environment_line(exc)
            if problem is None:
                raise
            fail(problem)


def _environment_line(exc: BaseException) -> str | None:
    from gpuvalue.warehouse.environment import (
        corruption_problem, environment_problem, is_environment_failure, looks_corrupted,
    )

    from_duckdb = type(exc).__module__.split(".")[0] in ("duckdb", "_duckdb")
    where = _LAST_DB[-1] if _LAST_DB else None
    if from_duckdb and looks_corrupted(exc):
        return corruption_problem(where or "the database", exc)
    if (from_duckdb or isinstance(exc, OSError)) and is_environment_failure(exc):
        named = getattr(exc, "filename", None) or where or "the data folder"
        return environment_problem(exc, named)
    return None


_LAST_DB: list[Path] = []  # the database the command's settings named: where a failure happened


class _App(typer.Typer):
    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs):
        return super().command(name, cls=cls or _Command, **kwargs)


app = _App(
    cls=_Group,
    name="gpuvalue",
    help="Which GPU gives the most deep-learning training speed per dollar, today.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
import_app = _App(cls=_Group, help="Import historical data (e.g. sold listings from a CSV).", no_args_is_help=True)
app.add_typer(import_app, name="import")


def app_for(argv: list[str]) -> typer.Typer:
    """The app with only the command ``argv`` names, when it names one of ``app``'s own: typer builds
    every command's options from its signature at each start (a fifth of a reading command's own
    time), and one command needs only its own. Anything else (no command, ``--help``, a group, a
    typo) gets the whole app, and its help and errors."""
    if not argv or argv[0].startswith("-"):
        return app
    chosen = [c for c in app.registered_commands if command_name(c) == argv[0]]
    if not chosen:
        return app
    one = _App(cls=_Group, name=app.info.name, help=app.info.help, add_completion=False, pretty_exceptions_enable=False)
    one.registered_commands = chosen
    one.callback()(_group)  # a group still, so that `gpuvalue rank` names its command
    return one


def command_name(command) -> str:
    """The name a registered command is called by (typer's: the function's, with dashes)."""
    from typer.main import get_command_name

    return command.name or get_command_name(command.callback.__name__)


def _group() -> None:
    """Which GPU gives the most deep-learning training speed per dollar, today."""

# Outside a terminal (pipes, cron mail, CI logs) a wide table reads better than a folded one.
# No emoji codes: names and titles users give (a source "import:x", a title "RTX :fire: 3090") are
# printed as written, never turned into pictures.
# No markup on stdout: what it prints holds names users chose (a --source "[/x]", a file "y[red]z.csv"),
# which rich read as markup, dropping them or failing after the work was done.
out = Console(width=None if sys.stdout.isatty() else 160, emoji=False, markup=False)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 160, emoji=False)

DbOpt = Annotated[Optional[Path], typer.Option("--db", help="DuckDB file (default data/gpuvalue.duckdb, or $GPUVALUE_DB).")]


def utc_today() -> date:
    """Listings are stamped in UTC, so "today" is the UTC date (one place, so tests can set the clock:
    the commands call it as ``cli_app.utc_today()``)."""
    return datetime.now(timezone.utc).date()


def full_settings(db: Path | None = None):
    """The full settings (the sources and their own settings too): for commands that fetch, load or run."""
    from gpuvalue.flows.settings import Settings

    return _validated(Settings, db)


def reader_settings(db: Path | None = None, values: dict[str, str] | None = None, model=None):
    """The settings a command that only reads needs (flows/settings_core.py), validated as ``full_settings``
    validates them, without importing pydantic, pydantic-settings or the sources; ``values``: the
    GPUVALUE_* values where the command read them already (``settings_values``); ``model``: one
    source's own settings model instead (``EbaySettings``), read from the same variables."""
    if model is not None:
        return _validated(lambda **given: model.model_validate(settings_values() if values is None else values), None)
    return _validated(lambda **given: _reader_settings(values, **given), db)


def _reader_settings(values: dict[str, str] | None, **given):
    """The shared settings from ``values`` (else the environment and .env), ``given`` over them:
    read plainly where every value allows, else by pydantic (flows/settings_core.py)."""
    from gpuvalue.flows.settings_core import ReaderSettings, read_plainly
    from gpuvalue.flows.settings_core import settings_values as read_values

    values = {**(read_values() if values is None else values), **given}
    read = read_plainly(values)
    if read is None:  # a value to leave to pydantic: its reading, and its error
        from gpuvalue.flows.settings_model import CoreFields

        read = CoreFields.model_validate(values).model_dump()
    return ReaderSettings(read)


def settings_values() -> dict[str, str]:
    """The GPUVALUE_* values of the environment and .env, read once for a command that reads more
    than one settings model from them."""
    from gpuvalue.flows.settings_core import settings_values as read

    return _validated(lambda **given: read(), None)


def _validated(make, db: Path | None):
    if db is None and os.environ.get("GPUVALUE_DB", None) == "":
        fail("GPUVALUE_DB is set but empty: give the warehouse's file path, or unset it for data/gpuvalue.duckdb")
    try:
        settings = make(**({"db": db} if db else {}))
    except UnicodeDecodeError as exc:  # read from the .env file, the only settings read as bytes
        fail(f"invalid settings: .env is not UTF-8 text (byte {exc.start}: {exc.reason})")
    except Exception as exc:
        fail(f"invalid settings: {settings_problem(exc)}")
    if getattr(settings, "db", None) is not None:  # a source's own settings name no database
        check_db_name(settings.db)
        _LAST_DB[:] = [settings.db]
    return settings


def check_db_name(path: Path) -> None:
    """Refuse, before anything opens it, a database path that is no local file: ``:memory:``, a remote
    name (``md:``, which DuckDB would fetch an extension for), a FIFO, a device, a directory, a name too
    long for the file system."""
    from gpuvalue.warehouse.paths import file_problem

    problem = file_problem(path, sibling_suffixes=True)
    if problem is not None:
        shown = str(path) if len(str(path)) <= 80 else str(path)[:77] + "..."
        fail(f"the database path {shown!r} {problem} (--db or GPUVALUE_DB)")


def settings_problem(exc: Exception) -> str:
    """A settings error in one line, named as the user set it (GPUVALUE_PRECISION='fp8': ...), not
    pydantic's report of several lines with a link."""
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError):
        return str(exc)
    problems = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"])
        name = "--db or GPUVALUE_DB" if field == "db" else f"GPUVALUE_{field.upper()}"
        given = error.get("input")
        shown = f"={_shown_value(given)}" if isinstance(given, (str, int, float)) and not isinstance(given, bool) else ""
        problems.append(f"{name}{shown}: {error['msg']}")
    return "; ".join(problems)


def _shown_value(value: str | int | float, most: int = 80) -> str:
    """A value as an error names it: whole when short, else its start and its length (a 50 MB value is
    never printed)."""
    text = repr(value)
    if len(text) <= most:
        return text
    return f"{text[:most]}... ({len(str(value)):,} characters)"


def check_db_path(path: Path) -> None:
    """Refuse a database path that cannot become a DuckDB file, before anything is written beside it."""
    if str(path) == ":memory:":
        return
    if path.is_dir():
        fail(f"the database path {path} is a directory; give a file in it, e.g. {path / 'gpuvalue.duckdb'} "
              "(--db or GPUVALUE_DB)")
    if path.exists() and not path.is_file():
        fail(f"the database path {path} is not a regular file (--db or GPUVALUE_DB)")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        fail(f"the database path {path} is inside {folder}, which is not a directory (--db or GPUVALUE_DB)")


# What `rank` and `recommend` say on a warehouse with no ranking yet (not "nothing matches").
NOTHING_RANKED = "nothing is ranked yet: `gpuvalue run` ranks today (`gpuvalue run --replay`, the recorded pages)"


def fail(message: str, code: int = 2) -> NoReturn:
    from rich.markup import escape

    # Messages quote user input (titles like "[USA-CA] [H] ..."): never read it as markup.
    err.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


VENDORS = ("nvidia", "amd", "intel")


def check_vendor(vendor: str | None) -> None:
    """Every command's --vendor, checked the same way: a typo ("nvidiaa") is an error, exit 2,
    rather than an empty answer that reads as "no such cards for sale"."""
    if vendor is not None and vendor.strip().lower() not in VENDORS:
        fail(f"--vendor must be NVIDIA, AMD or Intel, not {vendor!r}")


@contextmanager
def live_status(text: str) -> Iterator[Callable[[str], None]]:
    """A live line on stderr for work of seconds to minutes, in a terminal only (elsewhere the
    final line suffices); what it yields sets the line's text as the work moves on."""
    if not err.is_terminal:
        yield lambda text: None
        return
    from rich.markup import escape

    with err.status(escape(text)) as status:
        yield lambda text: status.update(escape(text))


def parse_date(value: str | None, flag: str = "--date") -> date | None:
    if value is None:
        return None
    # date.fromisoformat also reads ISO week dates (2026-W48-1) and the basic form (20261202): a
    # calendar date written YYYY-MM-DD is what the flag promises.
    try:
        if not _CALENDAR_DATE.fullmatch(value):
            raise ValueError(value)
        return date.fromisoformat(value)
    except ValueError:
        fail(f"{flag} must be a date like 2026-11-30 (a calendar date, YYYY-MM-DD), not {value!r}")


_CALENDAR_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def open_reader(settings):
    """A read-only connection to the warehouse ``settings`` name (``reader_settings`` or
    ``full_settings``), waiting GPUVALUE_READ_WAIT_S for a load that holds it."""
    from gpuvalue.warehouse.db import WarehouseError, open_database

    try:
        return open_database(settings.db, read_only=True, wait_s=settings.read_wait_s)
    except WarehouseError as exc:
        fail(reader_error(exc, settings.read_wait_s))


def exc_line(exc: Exception) -> str:
    """An exception's first line (DuckDB's and Prefect's run to several), or its type when it says nothing."""
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def reader_error(exc: Exception, waited_s: float) -> str:
    """The warehouse's message; where a load held the database, also how long this reader waited
    and the setting that waits longer."""
    from gpuvalue.warehouse.db import DatabaseBusyError

    if isinstance(exc, DatabaseBusyError):
        return f"{exc} (waited {waited_s:g} s; GPUVALUE_READ_WAIT_S waits longer)"
    return str(exc)


def _fmt(v, spec: str | None = None) -> str:
    """One cell; ``spec`` is its column's number format (see _column_format), so that a column
    never shows "8.000" beside "16.00"."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if spec is None or not math.isfinite(v):
            return f"{v:,.2f}" if abs(v) >= 10 else f"{v:.3f}"
        return format(v, spec)
    return escape_controls(str(v))  # stored text (a seller's title) never drives the terminal


_ISO_DATE = re.compile(r"\d{4}-\d{2}(?:-\d{2})?")


def is_date_column(values) -> bool:
    """Whether every value shown in a column is a date (an ISO day or month; blanks aside)."""
    shown = [v for v in values if v is not None]
    return bool(shown) and all(
        isinstance(v, date) or (isinstance(v, str) and _ISO_DATE.fullmatch(v.strip())) for v in shown)


def _column_format(values) -> str | None:
    """One number format for a whole column: no decimals when every value is whole, else two
    decimals where some value reaches 10 and three where all are small (ratios)."""
    floats = [v for v in values if isinstance(v, float) and math.isfinite(v)]
    if not floats:
        return None
    if all(v.is_integer() for v in floats):
        return ",.0f"
    return ",.2f" if max(abs(v) for v in floats) >= 10 else ".3f"


def memory_format(values) -> str:
    """Memory in GB: whole numbers, or one decimal for a column holding e.g. 1.5 GB."""
    floats = [v for v in values if isinstance(v, float) and math.isfinite(v)]
    return ",.0f" if all(v.is_integer() for v in floats) else ",.1f"


def print_table(cols: list[str], rows: list[tuple], title: str | None = None,
                 formats: dict[str, str] | None = None) -> None:
    """``formats``: a number format per column name; other columns get one chosen from their values."""
    t = Table(title=title, show_lines=False, header_style="bold")
    specs = []
    for i, c in enumerate(cols):
        values = [r[i] for r in rows]
        if is_date_column(values):
            # "2025-06-2" over "1" reads as another day: a date keeps its whole width; other
            # columns fold to make room.
            width = max(len(_fmt(v)) for v in values)
            t.add_column(c, no_wrap=True, overflow="ignore", min_width=width)
        else:
            t.add_column(c, overflow="fold")
        specs.append((formats or {}).get(c) or _column_format(values))
    for r in rows:
        # Text, not a string: a cell holds data (a title "[h] 3080 [/w] ..."), never rich markup.
        t.add_row(*[Text(_fmt(v, spec)) for v, spec in zip(r, specs)])
    out.print(t)


def jsonable(v):
    """A value as strict JSON can hold it: what a script's JSON parser reads without complaint
    (NaN and infinities are null, a BLOB its hex digits, an interval an ISO 8601 duration)."""
    if isinstance(v, (date, datetime, dt_time)):
        return v.isoformat()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    if isinstance(v, timedelta):
        return f"P{v.days}DT{v.seconds + v.microseconds / 1e6:g}S"
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    return v


def write_json_lines(rows) -> None:
    """One JSON object per row on stdout: what `--json` promises scripts."""
    for r in rows:
        out.file.write(json.dumps({k: jsonable(v) for k, v in r.items()}, default=str, allow_nan=False) + "\n")
