"""`gpuvalue sources`: every registered source, what it is, whether it needs keys, what it last fetched
and when; `--check` probes each live and says in one line why a failing one fails. `gpuvalue parse`:
a saved page through its source's parser.

Heavy imports stay inside the command, so registering it costs the CLI's start nothing.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from gpuvalue.flows.cli.cli_app import DbOpt, app, err, fail, full_settings, out, print_table, write_json_lines
from gpuvalue.models.text_safety import json_controls_escaped

def probe_client() -> Any:
    """The HTTP client `--check` probes with (tests give one with a MockTransport): each probe's requests
    end by their deadline, as a run's do (scrapers/fetch_bounds.py)."""
    import httpx

    from gpuvalue.scrapers.fetch_bounds import ACCEPTED_ENCODINGS, install_deadlines

    client = httpx.Client(headers={"Accept-Encoding": ACCEPTED_ENCODINGS})
    install_deadlines(client)
    return client


HEADERS = ["source", "kind", "default", "keys", "last run", "rows", "stored", "data of"]
_KEY_NAME = re.compile(r"\b[A-Z][A-Z0-9]*_(?:CLIENT_)?(?:ID|SECRET|KEY|TOKEN)\b")


def key_needs(src: Any, settings: Any) -> dict[str, Any]:
    """Whether the source needs keys, judged by what its own fetch asks for without and with them set:
    ``needs`` (it skips without them), ``optional`` (it fetches either way, other pages with them) or
    ``none``; ``keys`` are the settings' names, ``set`` whether they are set."""
    from pydantic import SecretStr

    from gpuvalue.scrapers.probe import first_request

    secret = {name: (info.validation_alias or name.upper())
              for name, info in (src.settings.model_fields.items() if src.settings else [])
              if "SecretStr" in str(info.annotation)}
    names = sorted({str(alias) for alias in secret.values()})
    if src.reads_embedded(settings) or src.fetch is None:
        return {"needs": "none", "keys": [], "set": None}
    is_set = bool(secret) and all(getattr(settings, f, None) is not None for f in secret)
    without = first_request(src, settings.model_copy(update={f: None for f in secret}))
    if without.url is None:
        named = sorted(set(_KEY_NAME.findall(without.note or "")))
        if named:
            return {"needs": "needs", "keys": named, "set": is_set}
        return {"needs": "none", "keys": [], "set": None}
    if not secret:
        return {"needs": "none", "keys": [], "set": None}
    with_keys = first_request(src, settings.model_copy(update={f: SecretStr("probe") for f in secret}))
    if (with_keys.url, with_keys.method) != (without.url, without.method):
        return {"needs": "optional", "keys": names, "set": is_set}
    return {"needs": "none", "keys": [], "set": None}


def _keys_words(row: dict[str, Any]) -> str:
    if row["needs_keys"] == "none":
        return "none"
    state = "set" if row["keys_set"] else "not set"
    return f"{row['needs_keys']}: {', '.join(row['keys'])} ({state})"


def keyless_today(row: dict[str, Any]) -> tuple[bool | None, str]:
    """Whether a run without any keys gets this source's data today, from the live check: a source that
    needs keys does not; one whose keys are set was probed with them, so the keyless answer is unknown."""
    if row["embedded"]:
        return True, "yes: ships with gpuvalue"
    if row["needs_keys"] == "needs":
        return False, f"no: needs {', '.join(row['keys'])}"
    if row["needs_keys"] == "optional" and row["keys_set"]:
        return None, "not probed without its keys (they are set)"
    return (True, "yes") if row["check_ok"] else (False, f"no: {row['check']}")


@app.command()
def sources(
    check: Annotated[bool, typer.Option("--check", help="Probe each source live: one request each, and why a failing one fails.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table.")] = False,
    db: DbOpt = None,
) -> None:
    """Every source gpuvalue reads: its kind, whether it needs keys, what it last fetched and when.

    "last run" is its newest run's status and day (replay: recorded pages); "stored" the rows and day of its newest run that stored any; "data of" the date of the data itself. --check makes one live request per source (the first its run would make, after robots.txt) and says in one line what the site did: sign-in wall, bot challenge, 403, 429, robots.txt, unreachable, or ok with the records its parser read; and per source whether a run without keys gets its data today ("keyless run today").
    """
    from gpuvalue.scrapers import registry

    settings = full_settings(db)
    fetches: dict[str, dict[str, Any]] = {}
    if settings.db.exists():
        from gpuvalue.flows.cli.cli_app import open_reader
        from gpuvalue.warehouse.source_status import source_fetches

        con = open_reader(settings)
        try:
            fetches = source_fetches(con)
        finally:
            con.close()
    probes: dict[str, Any] = {}
    if check:
        from gpuvalue.flows.cli.cli_app import live_status
        from gpuvalue.scrapers.probe import probe

        listed = registry.all_sources()
        with probe_client() as client, live_status("sources --check: starting") as say:
            for i, (name, src) in enumerate(listed.items(), start=1):
                say(f"sources --check: {name} ({i}/{len(listed)})")
                probes[name] = probe(client, src, settings)
    rows = []
    for name, src in registry.all_sources().items():
        f = fetches.get(name, {})
        keys = key_needs(src, settings)
        row = {
            "source": name, "kind": src.kind, "default": src.default, "embedded": src.reads_embedded(settings),
            "needs_keys": keys["needs"], "keys": keys["keys"], "keys_set": keys["set"],
            "last_status": f.get("status"), "last_run_for": f.get("as_of"), "last_run_replay": f.get("replay"),
            "last_rows": f.get("rows"), "stored_rows": f.get("ok_rows"), "stored_for": f.get("ok_as_of"),
            "data_as_of": f.get("data_as_of"),
        }
        if check:
            p = probes[name]
            row.update(check_ok=p.ok, check=p.line, check_url=p.url)
            row["keyless_today"], row["keyless"] = keyless_today(row)
        rows.append(row)
    if as_json:
        write_json_lines(rows)
        if check and not all(r["check_ok"] for r in rows):
            raise typer.Exit(1)
        return
    table = []
    for r in rows:
        last = "never run" if r["last_status"] is None else \
            f"{r['last_status']} {r['last_run_for']}{' (replay)' if r['last_run_replay'] else ''}"
        stored = "-" if r["stored_rows"] is None else f"{r['stored_rows']:,} on {r['stored_for']}"
        line = (r["source"], r["kind"], "yes" if r["default"] else "opt-in",
                "ships with gpuvalue" if r["embedded"] else _keys_words(r), last,
                "-" if r["last_rows"] is None else f"{r['last_rows']:,}", stored, r["data_as_of"] or "-")
        table.append((*line, r["check"], r["keyless"]) if check else line)
    print_table([*HEADERS, "check", "keyless run today"] if check else HEADERS, table,
                 title=f"{len(rows)} sources{' (live check)' if check else ''}")
    if check:
        failing = [r["source"] for r in rows if not r["check_ok"]]
        default = [r for r in rows if r["default"]]
        gets = [r["source"] for r in default if r["keyless_today"]]
        lacks = [r["source"] for r in default if r["keyless_today"] is False]
        out.print(f"A run without keys gets data today from {len(gets)} of the {len(default)} default sources"
                  + (f"; not from {', '.join(lacks)}" if lacks else "") + ". eBay Browse keys (EBAY_CLIENT_ID, "
                  "EBAY_CLIENT_SECRET: free, about five minutes at developer.ebay.com) are how a run gets today's "
                  "listings.", highlight=False)
        out.print(f"{len(failing)} of {len(rows)} failed the live check: {', '.join(failing)}" if failing
                  else "every source answered", highlight=False)
        if failing:
            raise typer.Exit(1)


def parsing_sources() -> tuple[str, ...]:
    """The sources whose saved pages `gpuvalue parse` reads (the registry's)."""
    from gpuvalue.scrapers import registry

    return registry.parsers()


@app.command()
def parse(
    source: Annotated[str, typer.Argument(help="One of: {parsers}.")],
    file: Annotated[Path, typer.Argument(help="A saved page.")],
    url: Annotated[Optional[str], typer.Option("--url", help="The page's URL (for messages and relative links).")] = None,
) -> None:
    """Print the records a parser extracts from a saved page, one JSON object per line."""
    from gpuvalue.flows.cli.parse_cli import parse_saved_page
    from gpuvalue.scrapers.errors import ParseError

    from gpuvalue.scrapers import registry

    try:
        if registry.canonical(source) not in parsing_sources():
            raise KeyError(source)
    except KeyError:
        fail(f"unknown source {source!r}; choose one of {', '.join(parsing_sources())}")
    if not file.is_file():
        fail(f"no such file: {file}")
    from gpuvalue.scrapers.bounded import TooLarge, gunzip_bounded, limit_bytes

    settings = full_settings()
    most = limit_bytes(settings.max_response_mb)
    try:
        if file.stat().st_size > most:  # no saved page is that large: refused before it is read
            fail(f"{file} is larger than the {settings.max_response_mb:g} MB a page may be "
                  "(GPUVALUE_MAX_RESPONSE_MB)", code=1)
        body = file.read_bytes()
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror or exc}")
    if body[:2] == b"\x1f\x8b":  # a page saved gzipped (as the fixtures are): read it as the page
        import zlib

        try:
            body = gunzip_bounded(body, limit_bytes(settings.max_decompressed_mb))
        except TooLarge:
            fail(f"{file} expands past the {settings.max_decompressed_mb:g} MB a decompressed page may be "
                  "(GPUVALUE_MAX_DECOMPRESSED_MB); refused (a decompression bomb, or not a page)", code=1)
        except (OSError, EOFError, zlib.error) as exc:
            fail(f"{file} looks gzipped but does not decompress: {exc}", code=1)
    try:
        records, warnings = parse_saved_page(source, body, url or file.resolve().as_uri())
    except ParseError as exc:
        fail(str(exc), code=1)
    for w in warnings:
        err.print(f"[yellow]warning:[/yellow] {w}")
    for rec in records:
        sys.stdout.write(json_controls_escaped(json.dumps(rec, ensure_ascii=False, default=str)) + "\n")
