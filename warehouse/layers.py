"""The warehouse's tables, views and macros as named layers: one SQL file per model.

Each model's current definition is ``warehouse/models/<layer>/<name>.sql``, one ``CREATE`` statement:

- ``raw``: what the sources published, one row per record, as loaded (with the catalog match and
  USD total the load derives; ``rematch`` and ``reparse`` rewrite those);
- ``staging``: the catalog, the performance figures and the rules that turn raw rows into
  observations (``stg_price_observations``, ``perf_best``, ``rental_provider_prices``);
- ``marts``: what the outputs read: daily prices and rankings, the rental ranking, histories;
- ``ops``: what a run keeps about itself (runs, the source registry, the estimate's stored errors).

A new warehouse is built from these files; an older one gets its missing tables from them and then
the migrations' changes to its stored tables (``warehouse/db.py``). Views and macros hold no data,
so every migrate recreates them from their files: a view's text lives in exactly one place, never in
the migration that last touched it. ``drift`` compares a live warehouse with the files (``gpuvalue
check`` reports it), and ``lineage_markdown`` writes the lineage docs/warehouse.md shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources

import duckdb

from gpuvalue.warehouse.sql_files import rows, split_statements, sql

LAYERS = ("raw", "staging", "marts", "ops")

# The migration ledger is made by warehouse/db.py before any model (sql/schema_version_create.sql).
LEDGER = "schema_version"

_CREATE = re.compile(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?P<kind>TABLE|VIEW|MACRO)\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>\w+)",
    re.IGNORECASE)
_READS = re.compile(r"\b(?:FROM|JOIN|USING)\s+(\w+)", re.IGNORECASE)
_CALLS = re.compile(r"\b(\w+)\s*\(")
_WRITES = re.compile(r"^\s*(?:INSERT\s+INTO|MERGE\s+INTO|UPDATE)\s+(\w+)", re.IGNORECASE)
_TEMP = re.compile(r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?TEMP(?:ORARY)?\s+(?:TABLE|VIEW)\s+(\w+)", re.IGNORECASE)
_COMMENT = re.compile(r"--[^\n]*")


@dataclass(frozen=True)
class Model:
    name: str
    layer: str
    kind: str  # table | view | macro
    statement: str  # the file's one statement, comments dropped
    path: str  # where it is declared, relative to the checkout: warehouse/models/<layer>/<name>.sql,
    # or the module of the record that declares it (warehouse/record_tables.py)
    inputs: tuple[str, ...]  # the models it reads (a table: what the SQL that fills it reads)


class ModelFileError(RuntimeError):
    """A model file that does not define exactly the model its name says."""


def _code(text: str) -> str:
    return _COMMENT.sub("", text)


@cache
def _files() -> tuple[tuple[str, str, str], ...]:
    """(layer, name, text) of every model file, by layer then name."""
    root = resources.files("gpuvalue.warehouse").joinpath("models")
    found = []
    for layer in LAYERS:
        folder = root.joinpath(layer)
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".sql"):
                found.append((layer, entry.name.removesuffix(".sql"), entry.read_text(encoding="utf-8")))
    return tuple(found)


def _parsed(layer: str, name: str, text: str) -> tuple[str, str]:
    statements = split_statements(text)
    where = f"warehouse/models/{layer}/{name}.sql"
    found = _CREATE.match(statements[0]) if statements else None
    if not found or found["name"].lower() != name:
        raise ModelFileError(f"{where}: does not create {name} (a model file's name is its model's)")
    kind = found["kind"].lower()
    # A stored mart's file also builds it (sql_files.build): its one home, declaration and build.
    if len(statements) != 1 and not (layer == "marts" and kind == "table"):
        raise ModelFileError(f"{where}: {len(statements)} statements; a model file holds one CREATE "
                             "(a stored mart's, its CREATE then the statements that build it)")
    return kind, statements[0]


def _writers(model_names: set[str]) -> dict[str, set[str]]:
    """Per table, the models read by the statements that write it (warehouse/sql files and the stored
    marts' builds), through the temp tables and views a file builds on the way (prices_daily's windows)."""
    folder = resources.files("gpuvalue.warehouse").joinpath("sql")
    builds = [split_statements(text)[1:] for layer, _, text in _files() if layer == "marts"]
    files = [split_statements(sql(entry.name.removesuffix(".sql"))) for entry in folder.iterdir()
             if entry.name.endswith(".sql")]
    reads: dict[str, set[str]] = {}
    for statements in (*files, *builds):
        local: dict[str, set[str]] = {}
        for statement in statements:
            writes = _WRITES.match(statement) or _TEMP.match(statement)
            if writes:
                code = _code(statement)
                local.setdefault(writes[1].lower(), set()).update(n.lower() for n in _READS.findall(code))
        for target, names in local.items():
            if target not in model_names:
                continue
            todo, found, seen = list(names), set[str](), set[str]()
            while todo:
                name = todo.pop()
                if name in seen:
                    continue
                seen.add(name)
                if name in model_names:
                    found.add(name)
                else:
                    todo.extend(local.get(name, ()))
            reads.setdefault(target, set()).update(found)
    return reads


@cache
def models() -> tuple[Model, ...]:
    """Every model, by layer then name."""
    parsed = [(layer, name, *_parsed(layer, name, text), f"warehouse/models/{layer}/{name}.sql")
              for layer, name, text in _files()]
    # A table a record kind declares is derived from the record (warehouse/record_tables.py; imported
    # here: it reads the records with pyarrow and pydantic, which a reading command never needs).
    from gpuvalue.warehouse import record_tables

    parsed += [(t.layer, t.name, "table", split_statements(record_tables.create_statement(t))[0], t.declared_in)
               for t in record_tables.RECORD_TABLES]
    parsed.sort(key=lambda p: (LAYERS.index(p[0]), p[1]))
    names = {name for _, name, _, _, _ in parsed}
    if len(names) != len(parsed):
        raise ModelFileError("two model files define the same name")
    macros = {name for _, name, kind, _, _ in parsed if kind == "macro"}
    writers = _writers(names)
    out = []
    for layer, name, kind, statement, path in parsed:
        code = _code(statement)
        if kind == "table":
            read = writers.get(name, set())
        else:
            read = {n.lower() for n in _READS.findall(code)} | {n.lower() for n in _CALLS.findall(code)} & macros
        inputs = tuple(sorted((read & names) - {name}))
        out.append(Model(name, layer, kind, statement, path, inputs))
    return tuple(out)


def by_name() -> dict[str, Model]:
    return {m.name: m for m in models()}


def build_order(kinds: Iterable[str] = ("table", "macro", "view")) -> list[Model]:
    """The models of ``kinds``, each after the views and macros it reads (DuckDB binds a view's
    names when it is created); tables first, as nothing of theirs is bound."""
    wanted = set(kinds)
    known = by_name()
    done: list[Model] = []
    seen: set[str] = set()

    def visit(model: Model, path: tuple[str, ...]) -> None:
        if model.name in seen:
            return
        if model.name in path:
            raise ModelFileError(f"models read each other in a cycle: {' -> '.join((*path, model.name))}")
        if model.kind != "table":
            for name in model.inputs:
                visit(known[name], (*path, model.name))
        seen.add(model.name)
        done.append(model)

    for model in sorted(models(), key=lambda m: (m.kind != "table", m.kind != "macro")):
        visit(model, ())
    return [m for m in done if m.kind in wanted]


def create_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Every table a model file defines that the warehouse lacks, as the file defines it."""
    for model in build_order(("table",)):
        con.execute(model.statement)


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    """Every macro and view, (re)created from its file."""
    for model in build_order(("macro", "view")):
        con.execute(model.statement)


def build(con: duckdb.DuckDBPyConnection) -> None:
    create_tables(con)
    create_views(con)


def refresh(con: duckdb.DuckDBPyConnection) -> int:
    """An up-to-date warehouse made to match its files where it can without a migration: the tables
    it lacks, and the views and macros whose stored text is not their file's (another DuckDB wrote
    them, or a file changed), recreated. Returns how many it wrote; a warehouse that matches gets no
    write at all (its file needs no checkpoint when it closes)."""
    live, expected = catalog(con), _expected()
    stale = [m for m in build_order() if live[m.kind].get(m.name) is None
             or (m.kind != "table" and live[m.kind][m.name] != expected[m.kind][m.name])]
    for model in stale:
        con.execute(model.statement)
    from gpuvalue.warehouse import record_tables  # a writer's work (see models())

    return len(stale) + len(record_tables.add_declared_columns(con))


def catalog(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, object]]:
    """What the connection's database stores for each table, view and macro, as comparable values."""
    out: dict[str, dict[str, object]] = {"table": {}, "view": {}, "macro": {}}
    columns: dict[str, list[tuple]] = {}
    # A column's place among the table's is not compared: a column added to an older warehouse comes
    # last, wherever its record or file declares it.
    for table, _position, *column in rows(con, "model_table_columns"):
        columns.setdefault(table, []).append(tuple(column))
    columns = {table: sorted(cols, key=str) for table, cols in columns.items()}
    keys: dict[str, list[tuple]] = {}
    for table, *key in rows(con, "model_table_keys"):
        keys.setdefault(table, []).append(tuple(key))
    for table, cols in columns.items():
        out["table"][table] = (tuple(cols), tuple(keys.get(table, ())))
    for view, text in rows(con, "model_views"):
        out["view"][view] = text
    for macro, *definition in rows(con, "model_macros"):
        out["macro"][macro] = tuple(str(part) for part in definition)
    return out


@cache
def _expected() -> dict[str, dict[str, object]]:
    """The catalog of a warehouse built from the files alone (in memory, once a process)."""
    scratch = duckdb.connect(":memory:")
    try:
        build(scratch)
        return catalog(scratch)
    finally:
        scratch.close()


def drift(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Where the live warehouse differs from its model files (empty when it matches): a model it
    lacks, a table whose columns, types, nullability, defaults or keys differ, a view or macro whose
    stored text is not its file's (as DuckDB stores it: both are compared after DuckDB normalized them)."""
    live, expected = catalog(con), _expected()
    problems = []
    for model in models():
        have = live[model.kind].get(model.name)
        if have is None:
            problems.append(f"model {model.name}: the warehouse has no {model.kind} {model.name} "
                            f"({model.path})")
        elif have != expected[model.kind][model.name]:
            what = "its columns or keys differ from" if model.kind == "table" else "its stored SQL differs from"
            problems.append(f"model {model.name}: {what} {model.path}")
    return problems


def undeclared(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Tables, views and macros of the warehouse that no model file defines (the ledger aside)."""
    live = catalog(con)
    known = set(by_name()) | {LEDGER}
    return sorted(name for kind in live.values() for name in kind if name not in known)


def lineage_markdown() -> str:
    """The models by layer with their inputs, as docs/warehouse.md shows them."""
    lines = ["| layer | model | kind | reads |", "|---|---|---|---|"]
    for m in models():
        reads = ", ".join(f"`{n}`" for n in m.inputs) or ("loaded" if m.kind == "table" else "")
        lines.append(f"| {m.layer} | [`{m.name}`](../{m.path}) | {m.kind} | {reads} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(lineage_markdown(), end="")
