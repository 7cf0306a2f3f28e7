"""The shape of the code, read statically from the source (nothing is imported).

The import graph of flows/, scrapers/, warehouse/ and models/ is built with ``ast``: every
``import gpuvalue.x.y``, ``from gpuvalue.x import y`` and relative import, wherever it is
written. An import inside a function is *deferred* (it runs when the function is called);
one under ``if TYPE_CHECKING:`` is *typing-only*. The tests then hold:

- no cycles among modules, neither through the imports that run at import time nor through
  all of them: moving an import into a function hides a cycle from Python, not from a reader;
- layers depend one way: flows/ on top; scrapers/ imports nothing from flows/ or warehouse/;
  warehouse/ imports nothing from scrapers/ or flows/; models/ nothing from warehouse/ or scrapers/;
- each room keeps its rule (``ROOMS``, the same lines docs/operations.md shows): a source is one
  module that imports no other source; the outputs (warehouse/outputs/) read marts only and nothing
  else of the warehouse imports them; the command line (flows/cli/) is imported by nothing else;
- models/ does no I/O: it imports no network, database or orchestration library, not even
  through the project modules it imports;
- every ``gpuvalue.*`` import names a module that exists;
- no module takes a private name (one with a leading underscore) from another module of the
  package, neither by import (``from gpuvalue.x import _y``) nor as an attribute of an imported
  module (``x._y``): what modules share is public, and a private name can change without a look
  outside its module.

An import resolves to the most specific project module it names (``from gpuvalue.warehouse
import load`` is an edge to ``gpuvalue.warehouse.load``); the parent packages it initializes
on the way are not edges of their own.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "gpuvalue"
LAYERS = ("flows", "scrapers", "warehouse", "models")

# importer layer -> layers it must not import
FORBIDDEN_LAYERS: dict[str, frozenset[str]] = {
    "scrapers": frozenset({"flows", "warehouse"}),
    "models": frozenset({"flows", "warehouse", "scrapers"}),
    "warehouse": frozenset({"scrapers", "flows"}),
}

# Known violations, each to be removed by the change that fixes it (the test fails on an entry
# that no longer matches any import, so the list can only shrink).
LAYER_ALLOWLIST: frozenset[tuple[str, str]] = frozenset()

# Private names taken from another module, as (importer, "module.name"), each to be removed by the
# change that fixes it (the test fails on an entry that no longer matches).
PRIVATE_ALLOWLIST: frozenset[tuple[str, str]] = frozenset()

# Libraries that do I/O; models/ receives bytes and records instead.
IO_LIBRARIES = frozenset({"httpx", "duckdb", "prefect", "socket", "urllib"})


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name of the file the import is written in
    module: str  # the module it names, made absolute: ``from a.b import c`` -> "a.b"
    names: tuple[str, ...]  # what a ``from`` import takes from it; () for ``import a.b``
    line: int
    deferred: bool  # inside a function or lambda body
    typing_only: bool  # under ``if TYPE_CHECKING:``

    def where(self) -> str:
        """file:line (kind), the file relative to the repository when it is one of the project's."""
        kind = "deferred" if self.deferred else "typing-only" if self.typing_only else "module level"
        path = project_sources().get(self.importer)
        place = path.relative_to(ROOT).as_posix() if path else self.importer
        return f"{place}:{self.line} ({kind})"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = importer if is_package else importer.rpartition(".")[0]
    parts = package.split(".")
    if node.level - 1 >= len(parts):
        raise ValueError(f"{importer}: relative import beyond the top-level package")
    base = ".".join(parts[: len(parts) - (node.level - 1)])
    return f"{base}.{node.module}" if node.module else base


def parse_imports(source: str, importer: str, is_package: bool = False) -> list[Import]:
    """Every import statement in ``source``, marked deferred or typing-only where it is."""
    found: list[Import] = []

    def walk(nodes: Iterable[ast.AST], deferred: bool, typing_only: bool) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.append(Import(importer, alias.name, (), node.lineno, deferred, typing_only))
            elif isinstance(node, ast.ImportFrom):
                names = tuple(alias.name for alias in node.names)
                module = _absolute(node, importer, is_package)
                found.append(Import(importer, module, names, node.lineno, deferred, typing_only))
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                walk(node.body, deferred, True)
                walk(node.orelse, deferred, typing_only)
            else:
                inner = deferred or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                walk(ast.iter_child_nodes(node), inner, typing_only)

    walk(ast.parse(source).body, False, False)
    return found


@cache
def project_sources() -> dict[str, Path]:
    """Dotted module name -> file, for every .py under the four top-level folders."""
    return {
        module_name(path): path
        for layer in LAYERS
        for path in sorted((ROOT / layer).rglob("*.py"))
        if "__pycache__" not in path.parts
    }


@cache
def all_imports() -> tuple[Import, ...]:
    return tuple(
        imp
        for name, path in project_sources().items()
        for imp in parse_imports(path.read_text(encoding="utf-8"), name, path.name == "__init__.py")
    )


def project_targets(imp: Import, modules: Iterable[str]) -> list[str]:
    """The project modules an import names (each ``from`` name that is a submodule, else the
    module itself, or the nearest package above it that exists); [] for other libraries."""
    modules = set(modules)
    if imp.module != PACKAGE and not imp.module.startswith(PACKAGE + "."):
        return []
    submodules = [f"{imp.module}.{n}" for n in imp.names if f"{imp.module}.{n}" in modules]
    if submodules:
        return submodules
    name = imp.module
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return [name] if name and name != imp.importer else []


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    via: Import


def edges(imports: Iterable[Import], modules: Iterable[str]) -> list[Edge]:
    modules = set(modules)
    return [Edge(imp.importer, target, imp) for imp in imports for target in project_targets(imp, modules)]


def find_cycles(graph_edges: Sequence[Edge]) -> list[list[Edge]]:
    """One cycle (as its edges, in order) per strongly connected component of two or more
    modules: fixing it shows the next one, if the component holds others."""
    graph: dict[str, list[Edge]] = {}
    for e in graph_edges:
        graph.setdefault(e.source, []).append(e)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def strongconnect(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for e in graph.get(node, []):
            if e.target not in index:
                strongconnect(e.target)
                low[node] = min(low[node], low[e.target])
            elif e.target in on_stack:
                low[node] = min(low[node], index[e.target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            strongconnect(node)
    return [_cycle_in(sorted(c)[0], c, graph) for c in components]


def _cycle_in(start: str, component: set[str], graph: dict[str, list[Edge]]) -> list[Edge]:
    """The shortest path from ``start`` back to itself inside its component (breadth first)."""
    paths: dict[str, list[Edge]] = {start: []}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for e in graph.get(node, []):
            if e.target == start:
                return paths[node] + [e]
            if e.target in component and e.target not in paths:
                paths[e.target] = paths[node] + [e]
                queue.append(e.target)
    raise AssertionError(f"no cycle through {start}")  # a component of two or more always has one


def describe_cycle(cycle: Sequence[Edge]) -> str:
    return "\n".join(
        [" -> ".join([cycle[0].source, *(e.target for e in cycle)])]
        + [f"    {e.source} -> {e.target} at {e.via.where()}" for e in cycle]
    )


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@dataclass(frozen=True)
class PrivateUse:
    importer: str
    name: str  # the private name in full: "gpuvalue.flows.cli_app._fail"
    line: int

    def where(self) -> str:
        path = project_sources().get(self.importer)
        place = path.relative_to(ROOT).as_posix() if path else self.importer
        return f"{place}:{self.line}"


def _dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ["a", "b", "c"]; None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def private_uses(source: str, importer: str, modules: Iterable[str], is_package: bool = False) -> list[PrivateUse]:
    """Each private name ``source`` takes from another project module: imported by name, or read as
    an attribute of a name an import bound to a project module (``import gpuvalue.x as x``,
    ``from gpuvalue import x``, ``import gpuvalue.x``), wherever in the file either is written."""
    modules = set(modules)
    tree = ast.parse(source)
    found: list[PrivateUse] = []
    bound: dict[str, str] = {}  # a local name -> the project module (or package) it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, importer, is_package)
            if module != PACKAGE and not module.startswith(PACKAGE + "."):
                continue
            for alias in node.names:
                if f"{module}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{module}.{alias.name}"
                if is_private(alias.name) and module != importer:
                    found.append(PrivateUse(importer, f"{module}.{alias.name}", node.lineno))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and is_private(node.attr)):
            continue
        parts = _dotted(node.value)
        if parts is None or parts[0] not in bound:
            continue
        target = ".".join([bound[parts[0]], *parts[1:]])
        if target in modules and target != importer:
            found.append(PrivateUse(importer, f"{target}.{node.attr}", node.lineno))
    return found


@cache
def all_private_uses() -> tuple[PrivateUse, ...]:
    modules = project_sources()
    return tuple(use for name, path in modules.items()
                 for use in private_uses(path.read_text(encoding="utf-8"), name, modules, path.name == "__init__.py"))


def _layer(module: str) -> str:
    return module.split(".")[1]


# --- the walker itself ---------------------------------------------------------------------


def test_every_import_form_is_read():
    source = """
import gpuvalue.models.records
import gpuvalue.scrapers.http as http
from gpuvalue.warehouse import load, db as database
from gpuvalue.models.records import GpuSpec
from . import sibling
from .sibling import thing
from .. import models
from ..models.records import PerfFigure
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from gpuvalue.flows.settings import Settings
else:
    import json
class Holder:
    import csv
def later():
    from gpuvalue.flows.pipeline import make_client
handler = lambda: __import__("os")
"""
    found = parse_imports(source, "gpuvalue.flows.example")
    assert [(i.module, i.names, i.deferred, i.typing_only) for i in found] == [
        ("gpuvalue.models.records", (), False, False),
        ("gpuvalue.scrapers.http", (), False, False),
        ("gpuvalue.warehouse", ("load", "db"), False, False),
        ("gpuvalue.models.records", ("GpuSpec",), False, False),
        ("gpuvalue.flows", ("sibling",), False, False),
        ("gpuvalue.flows.sibling", ("thing",), False, False),
        ("gpuvalue", ("models",), False, False),
        ("gpuvalue.models.records", ("PerfFigure",), False, False),
        ("typing", ("TYPE_CHECKING",), False, False),
        ("gpuvalue.flows.settings", ("Settings",), False, True),
        ("json", (), False, False),
        ("csv", (), False, False),
        ("gpuvalue.flows.pipeline", ("make_client",), True, False),
    ]
    modules = {"gpuvalue.warehouse", "gpuvalue.warehouse.load", "gpuvalue.warehouse.db", "gpuvalue.models.records"}
    targets = [project_targets(i, modules) for i in found[:4]]
    assert targets == [["gpuvalue.models.records"], [], ["gpuvalue.warehouse.load", "gpuvalue.warehouse.db"],
                       ["gpuvalue.models.records"]]
    # Inside a package's __init__, one dot is the package itself.
    (init,) = parse_imports("from .load import x", "gpuvalue.warehouse", is_package=True)
    assert init.module == "gpuvalue.warehouse.load"


def test_a_cycle_is_reported_with_its_path():
    def imp(a: str, b: str, line: int, deferred: bool = False) -> Import:
        return Import(a, b, (), line, deferred, False)

    imports = [imp("p.a", "p.b", 3), imp("p.b", "p.c", 5), imp("p.c", "p.a", 7, deferred=True), imp("p.c", "p.d", 8)]
    (cycle,) = find_cycles([Edge(i.importer, i.module, i) for i in imports])
    assert describe_cycle(cycle).splitlines() == [
        "p.a -> p.b -> p.c -> p.a",
        "    p.a -> p.b at p.a:3 (module level)",
        "    p.b -> p.c at p.b:5 (module level)",
        "    p.c -> p.a at p.c:7 (deferred)",
    ]


def test_private_names_taken_from_another_module_are_found():
    source = """
import gpuvalue.warehouse.db as database
import gpuvalue.flows.cli_app
from gpuvalue.flows import cli_app, pipeline as P
from gpuvalue.flows.cli_app import _fail, fail, __doc__
from .cli_app import _reader
def later(ctx):
    from gpuvalue.warehouse.db import _pid_alive
    database._connect(); P._utcnow; cli_app._status("x"); gpuvalue.flows.cli_app._settings
    ctx._matcher = None; cli_app.out._file; P.__name__; database.open_database
"""
    modules = {"gpuvalue.warehouse.db", "gpuvalue.flows.cli_app", "gpuvalue.flows.pipeline", "gpuvalue.flows.example"}
    found = private_uses(source, "gpuvalue.flows.example", modules)
    assert sorted((use.name, use.line) for use in found) == [
        ("gpuvalue.flows.cli_app._fail", 5),
        ("gpuvalue.flows.cli_app._reader", 6),
        ("gpuvalue.flows.cli_app._settings", 9),
        ("gpuvalue.flows.cli_app._status", 9),
        ("gpuvalue.flows.pipeline._utcnow", 9),
        ("gpuvalue.warehouse.db._connect", 9),
        ("gpuvalue.warehouse.db._pid_alive", 8),
    ]


def test_the_project_graph_is_found():
    modules = project_sources()
    assert {_layer(m) for m in modules} == set(LAYERS)
    pairs = {(e.source, e.target) for e in edges(all_imports(), modules)}
    assert ("gpuvalue.flows.cli", "gpuvalue.flows.cli.rank_cli") in pairs  # a module-level import
    assert ("gpuvalue.flows.cli.import_cli", "gpuvalue.flows.pipeline") in pairs  # a deferred one
    assert ("gpuvalue.warehouse.load", "gpuvalue.models.records") in pairs


# --- the rules ---------------------------------------------------------------------------------


def test_every_project_import_names_an_existing_module():
    modules = project_sources()
    missing = [
        f"{imp.where()}: {imp.module}"
        for imp in all_imports()
        if imp.module.startswith(PACKAGE + ".") and imp.module not in modules
    ]
    assert not missing, "imports of modules that do not exist:\n" + "\n".join(missing)


def test_no_import_cycles_at_import_time():
    runtime = [e for e in edges(all_imports(), project_sources()) if not (e.via.deferred or e.via.typing_only)]
    cycles = find_cycles(runtime)
    if cycles:
        pytest.fail("import cycles:\n" + "\n\n".join(describe_cycle(c) for c in cycles), pytrace=False)


def test_no_import_cycles_through_deferred_or_typing_only_imports():
    cycles = find_cycles(edges(all_imports(), project_sources()))
    if cycles:
        pytest.fail(
            "import cycles (an import inside a function or under TYPE_CHECKING only postpones one; "
            "move the shared piece into the lower module instead):\n" + "\n\n".join(describe_cycle(c) for c in cycles),
            pytrace=False,
        )


def test_layers_depend_one_way():
    crossings = [
        e for e in edges(all_imports(), project_sources())
        if _layer(e.target) in FORBIDDEN_LAYERS.get(_layer(e.source), frozenset())
    ]
    found = {(e.source, e.target) for e in crossings}
    new = [f"{e.via.where()} imports {e.target}" for e in crossings if (e.source, e.target) not in LAYER_ALLOWLIST]
    if new:
        pytest.fail("imports against the layering:\n" + "\n".join(new), pytrace=False)
    stale = sorted(LAYER_ALLOWLIST - found)
    assert not stale, f"fixed, so remove from LAYER_ALLOWLIST: {stale}"


def test_no_module_takes_a_private_name_from_another():
    uses = all_private_uses()
    found = {(use.importer, use.name) for use in uses}
    new = [f"{use.where()} takes {use.name}" for use in uses if (use.importer, use.name) not in PRIVATE_ALLOWLIST]
    if new:
        pytest.fail("private names taken from another module (make the shared ones public, without the "
                    "leading underscore):\n" + "\n".join(new), pytrace=False)
    stale = sorted(PRIVATE_ALLOWLIST - found)
    assert not stale, f"fixed, so remove from PRIVATE_ALLOWLIST: {stale}"


def _imported_libraries(imports: Iterable[Import]) -> Iterator[tuple[str, Import]]:
    for imp in imports:
        top = imp.module.split(".")[0]
        if top and top != PACKAGE:
            yield top, imp


def test_models_import_no_io_library():
    direct = [
        f"{imp.where()} imports {imp.module}"
        for library, imp in _imported_libraries(all_imports())
        if _layer(imp.importer) == "models" and library in IO_LIBRARIES
    ]
    if direct:
        pytest.fail("models/ does no I/O; fetch or query in scrapers/, warehouse/ or flows/:\n" + "\n".join(direct),
                    pytrace=False)


def test_models_reach_no_io_library_through_other_modules():
    modules = project_sources()
    graph: dict[str, set[str]] = {}
    for e in edges(all_imports(), modules):
        graph.setdefault(e.source, set()).add(e.target)
    libraries: dict[str, set[str]] = {}
    for library, imp in _imported_libraries(all_imports()):
        libraries.setdefault(imp.importer, set()).add(library)
    problems = []
    for start in (m for m in modules if _layer(m) == "models"):
        seen, todo = {start}, [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        for reached in sorted(seen - {start}):
            for library in sorted(libraries.get(reached, set()) & IO_LIBRARIES):
                problems.append(f"{start} reaches {library} through {reached}")
    if problems:
        pytest.fail("models/ does no I/O, not even through the modules it imports:\n" + "\n".join(problems),
                    pytrace=False)


# --- each room's rule --------------------------------------------------------------------------

# Each top-level folder's rule, in the line docs/operations.md ("Layout") shows for it.
ROOMS: dict[str, str] = {
    "models": "records (one pydantic model per record kind, the one declaration of its fields; the listing's is "
              "also its table's) and pure rules (matching, conditions, FX, performance, answers and their wording); "
              "no I/O; imports nothing else of the project",
    "scrapers": "fetch plumbing and one module per source (scrapers/sources/, each declaring its SOURCE and importing "
                "no other source); a parser returns what the page says, matched to nothing (what a source knows of "
                "its names, it declares: a vocabulary, a reading of GPU names, an index's naming, a harness's "
                "aliases); imports models/ only",
    "warehouse": "DuckDB: the SQL models (one file per table, view or macro, which declares it and, for a stored mart, "
                 "builds it; a raw table of records is derived from its record), the loaders, which name no "
                 "listing column, and the outputs (warehouse/outputs/: exports, feed, page), which read marts only",
    "flows": "the daily flow, the only place that knows the stage order (its enrich step matches, classifies and "
             "converts listings, matches and converts rental offers, matches price indexes' names and resolves "
             "harnesses' devices before the warehouse stores them), and the command line (flows/cli/), which "
             "nothing else imports",
}
OUTPUTS = f"{PACKAGE}.warehouse.outputs"
CLI = f"{PACKAGE}.flows.cli"
# The layers of warehouse/models/ an output may read.
OUTPUT_READS = frozenset({"marts"})
# Functions of warehouse/sql_files.py that run a file of warehouse/sql/ by name.
_SQL_RUNNERS = frozenset({"rows", "dicts", "scalar", "arrow_table", "run", "statements", "sql"})
_SQL_READS = re.compile(r"\b(?:FROM|JOIN)\s+(\w+)", re.IGNORECASE)
_SQL_CTE = re.compile(r"\b(\w+)\s+AS\s*(?:NOT\s+)?(?:MATERIALIZED\s*)?\(", re.IGNORECASE)
_SQL_COMMENT = re.compile(r"--[^\n]*")


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_every_room_states_its_rule_where_a_newcomer_reads_it():
    assert set(ROOMS) == set(LAYERS)
    layout = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    missing = [room for room, rule in ROOMS.items() if f"`{room}/`: {rule}" not in layout]
    assert not missing, f"docs/operations.md does not state the rule of {missing} as ROOMS does"


def test_a_source_is_one_module_that_imports_no_other_source():
    sources = f"{PACKAGE}.scrapers.sources"
    modules = project_sources()
    found = [
        f"{e.via.where()} imports {e.target}"
        for e in edges(all_imports(), modules)
        if _inside(e.source, sources) and e.source != sources and _inside(e.target, sources) and e.target != sources
        and e.target != e.source
    ]
    assert not found, "a source's module imports another source (share through scrapers/ instead):\n" + "\n".join(found)
    undeclared = [
        path.relative_to(ROOT).as_posix()
        for name, path in modules.items()
        if _inside(name, sources) and name != sources and not path.name.startswith("_")
        and not any(isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SOURCE" for t in node.targets)
                    for node in ast.parse(path.read_text(encoding="utf-8")).body)
    ]
    assert not undeclared, f"modules of scrapers/sources/ that declare no SOURCE: {undeclared}"


def test_nothing_outside_the_command_line_imports_it():
    found = [f"{e.via.where()} imports {e.target}" for e in edges(all_imports(), project_sources())
             if _inside(e.target, CLI) and not _inside(e.source, CLI)]
    assert not found, "the command line (flows/cli/) is on top of everything:\n" + "\n".join(found)


def test_the_outputs_are_a_room_the_rest_of_the_warehouse_does_not_import():
    found = [f"{e.via.where()} imports {e.target}" for e in edges(all_imports(), project_sources())
             if _inside(e.target, OUTPUTS) and _layer(e.source) == "warehouse" and not _inside(e.source, OUTPUTS)]
    assert not found, "warehouse/ modules that import the outputs (warehouse/outputs/):\n" + "\n".join(found)


def _sql_files_named(source: str) -> list[str]:
    """The warehouse/sql/ files a module runs by a literal name (``sql_files.dicts(con, "x")``)."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        texts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if called in _SQL_RUNNERS and texts:
            names.append(texts[0])
    return names


def _model_layers() -> dict[str, str]:
    return {path.stem: path.parent.name for path in (ROOT / "warehouse" / "models").glob("*/*.sql")}


def test_the_outputs_read_marts_only():
    layers = _model_layers()
    problems = []
    for name, path in project_sources().items():
        if not _inside(name, OUTPUTS):
            continue
        for query in _sql_files_named(path.read_text(encoding="utf-8")):
            file = ROOT / "warehouse" / "sql" / f"{query}.sql"
            assert file.is_file(), f"{path.relative_to(ROOT)} runs warehouse/sql/{query}.sql, which does not exist"
            code = _SQL_COMMENT.sub("", file.read_text(encoding="utf-8"))
            local = {n.lower() for n in _SQL_CTE.findall(code)}
            for read in sorted({n.lower() for n in _SQL_READS.findall(code)} - local):
                if read in layers and layers[read] not in OUTPUT_READS:
                    problems.append(f"{path.relative_to(ROOT)}: warehouse/sql/{query}.sql reads {read} "
                                    f"({layers[read]}), not a mart")
    assert not problems, "the outputs read marts only:\n" + "\n".join(problems)


def test_no_model_has_a_second_file():
    """A table, view or macro is declared in warehouse/models/<layer>/<name>.sql, and a stored mart is
    built there too (below its CREATE): no file of warehouse/sql/ carries a model's name or writes a
    mart, except the backfill's bulk rebuild of many days at once (warehouse/sql/backfill_*.sql, which
    tests/warehouse/test_backfill.py holds equal, row for row, to the marts' own builds run day by day)."""
    layers = _model_layers()
    second = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "warehouse" / "sql").glob("*.sql") if p.stem in layers)
    assert not second, f"files named after a model, which has its one home in warehouse/models/: {second}"
    marts = [p for p in (ROOT / "warehouse" / "models" / "marts").glob("*.sql")]
    writers = [
        f"{p.relative_to(ROOT).as_posix()} writes {target}"
        for p in (ROOT / "warehouse" / "sql").glob("*.sql")
        for target in re.findall(r"^\s*(?:INSERT\s+INTO|DELETE\s+FROM)\s+(\w+)", _SQL_COMMENT.sub("", p.read_text(encoding="utf-8")),
                                 re.IGNORECASE | re.MULTILINE)
        if target.lower() in {m.stem for m in marts} and not p.stem.startswith("backfill_")
    ]
    assert not writers, "a mart is built by its own file (warehouse/models/marts/), not by another:\n" + "\n".join(writers)


# --- a listing's columns are its record's ------------------------------------------------------

# The records a listing's stored row is made of (models/listing_row.py): their fields are the table's columns.
LISTING_RECORDS = (("models/records.py", "Listing"), ("models/listing_row.py", "ListingEnrichment"))
# Where a listing column may not be named: every module of warehouse/ and the loaders of flows/.
LOADER_MODULES = ("flows/loaders.py", "flows/import_stream.py")


def record_fields(root: Path = ROOT) -> dict[str, set[str]]:
    """Per class of models/ that declares annotated fields, their names (read statically)."""
    found: dict[str, set[str]] = {}
    for path in sorted((root / "models").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names = {item.target.id for item in node.body
                         if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)}
                if names:
                    found[f"{path.relative_to(root).as_posix()}:{node.name}"] = names
    return found


def listing_only_columns(root: Path = ROOT) -> set[str]:
    """The listing table's columns no other record of models/ declares: what names a listing column
    unambiguously (``model`` or ``source`` name many a table's)."""
    fields = record_fields(root)
    own = {f"{path}:{name}" for path, name in LISTING_RECORDS}
    listing = set().union(*(fields[key] for key in own))
    others = set().union(*(names for key, names in fields.items() if key not in own))
    return listing - others


def strings_in(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal of a module but its docstrings, f-strings' literal parts included."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_the_listing_columns_are_read_from_the_records():
    columns = listing_only_columns()
    assert {"listing_id", "buying_option", "bid_count", "condition_class", "first_seen", "fx_source"} <= columns
    assert "model" not in columns and "source" not in columns


def test_no_loader_or_warehouse_module_names_a_listing_column():
    """The listing's record declares its columns (models/listing_row.py); the warehouse derives the
    table, the batch and the merge from it (warehouse/record_tables.py), so a new field needs no edit
    there. Its SQL files state the rules on named columns (the merge, the price rules): SQL, not a loader."""
    columns = listing_only_columns()
    modules = [p for p in sorted((ROOT / "warehouse").rglob("*.py")) if "__pycache__" not in p.parts]
    modules += [ROOT / m for m in LOADER_MODULES]
    found = [f"{path.relative_to(ROOT).as_posix()}:{line}: {text!r}"
             for path in modules for line, text in strings_in(path.read_text(encoding="utf-8")) if text in columns]
    assert not found, "a loader or warehouse module names a listing column (read it from the record):\n" + "\n".join(found)


# --- a parser matches nothing ---------------------------------------------------------------------

# What matches a published name to a catalog model: the enrich stage calls it (flows/enrich.py, with
# the rules of models/), never a parser. Every parser returns names as published: the listings, the
# rental offers, the price indexes and the harnesses' figures alike.
MATCHERS: dict[str, frozenset[str]] = {
    f"{PACKAGE}.models.matching": frozenset({"TitleMatcher"}),
    f"{PACKAGE}.models.cloud_names": frozenset({"match_cloud_gpu"}),
    f"{PACKAGE}.models.harness": frozenset({"resolve_device", "resolve_figures"}),
    f"{PACKAGE}.models.index_matching": frozenset({"match_points", "match_table", "match_name"}),
}


def matcher_imports(imports: Iterable[Import]) -> dict[str, list[str]]:
    """Per module of scrapers/, the matchers it imports (``from gpuvalue.models.matching import TitleMatcher``)."""
    found: dict[str, list[str]] = {}
    for imp in imports:
        if _layer(imp.importer) != "scrapers":
            continue
        taken = MATCHERS.get(imp.module, frozenset()) & set(imp.names)
        if taken:
            found.setdefault(imp.importer, []).extend(f"{imp.module}.{n} (line {imp.line})" for n in sorted(taken))
    return found


def test_a_parser_returns_what_the_page_says_matched_to_nothing():
    found = matcher_imports(all_imports())
    assert not found, ("a module of scrapers/ matches names to catalog models (the enrich stage does, "
                       f"flows/enrich.py): {found}")


def test_the_matcher_import_check_reads_from_imports():
    imports = parse_imports("from gpuvalue.models.matching import TitleMatcher, CatalogEntry\n"
                            "from gpuvalue.models.cloud_names import memory_from_name\n",
                            f"{PACKAGE}.scrapers.sources.x", False)
    assert matcher_imports(imports) == {f"{PACKAGE}.scrapers.sources.x": [f"{PACKAGE}.models.matching.TitleMatcher (line 1)"]}


# A provider's name belongs to its source's module: shared code reads what a source declares (its
# Source: provider score, GPU names, extras) and names no provider. Where a name may still be written:
# the source modules, the migrations (which move stored data as it was), the recorded pages and their
# provenance, the tests and the documentation (docs/, and the Markdown files beside the code).
PROVIDER_NAMES = re.compile(r"\bvast(?:ai)?\b", re.IGNORECASE)
PROVIDER_NAMES_ALLOWED = ("scrapers/sources/", "scrapers/replay_archive/", "warehouse/migrations/", "tests/", "docs/")
_SCANNED_TOP = (*LAYERS, "gpuvalue", "deploy", "bench")
_SKIPPED_PARTS = frozenset({"__pycache__", ".venv", "node_modules"})


def files_that_may_not_name_a_provider(root: Path = ROOT) -> list[Path]:
    """The project's text files outside the places a provider's name may be written (see above)."""
    found = [p for p in root.iterdir() if p.is_file() and not p.name.startswith(".")]
    for top in _SCANNED_TOP:
        if (root / top).is_dir():
            found.extend(p for p in (root / top).rglob("*") if p.is_file())
    return sorted(
        p for p in found
        if not _SKIPPED_PARTS & set(p.relative_to(root).parts)
        and not p.relative_to(root).as_posix().startswith(PROVIDER_NAMES_ALLOWED)
        and p.suffix != ".md" and p.name != "uv.lock"
    )


def provider_names_in(text: str) -> list[tuple[int, str]]:
    """(line number, line) of each line that names the provider."""
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1) if PROVIDER_NAMES.search(line)]


def test_the_provider_name_check_reads_every_spelling():
    text = "SCORING = 'vast'\nVast.ai's DLPerf\nfrom sources import vastai\nVAST score\nvastly better\ncanvas\n"
    assert [n for n, _ in provider_names_in(text)] == [1, 2, 3, 4]


def test_no_shared_file_names_a_provider():
    """Outside the source modules, migrations, recorded pages, tests and docs, no file names vast.ai: a
    new rental source of the existing kind needs no edit of shared code (tests/flows/test_rental_source_plugin.py)."""
    problems = []
    for path in files_that_may_not_name_a_provider():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a binary asset
        problems += [f"{path.relative_to(ROOT).as_posix()}:{n}: {line[:120]}" for n, line in provider_names_in(text)]
    assert not problems, ("a provider's name in shared code (declare it in the source's module, scrapers/sources/, "
                          "and read the declaration):\n" + "\n".join(problems))


def test_a_batch_is_registered_for_its_statements_in_one_place():
    """Registering an Arrow batch as a table, running the statements that read it and dropping it
    whatever happens is written once (warehouse/sql_files.py: ``run_on_batch``, ``registered``)."""
    home = f"{PACKAGE}.warehouse.sql_files"
    found = []
    for name, path in project_sources().items():
        if name == home:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("register", "unregister") and isinstance(node.func.value, ast.Name)
                    and node.func.value.id.endswith("con")):
                found.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}")
    assert not found, "register an Arrow batch through sql_files.run_on_batch or sql_files.registered:\n" + "\n".join(found)


def test_the_sql_reader_finds_the_files_and_what_they_read():
    source = 'sql_files.dicts(con, "ranking_day_rows", [day])\nrows(con, "x")\nopen("no.sql")\n'
    assert _sql_files_named(source) == ["ranking_day_rows", "x"]
    assert {n for n in _SQL_READS.findall("WITH a AS (SELECT 1 FROM t) SELECT * FROM a JOIN u USING (k)")} == {"t", "a", "u"}
    assert _SQL_CTE.findall("WITH a AS (SELECT 1), b AS MATERIALIZED (SELECT 2) SELECT 1") == ["a", "b"]


# --- what a type checker sees ------------------------------------------------------------------

_MYPY_LINE = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+): error: (?P<message>.*?)(?:  \[(?P<code>[a-z-]+)\])?$")
_UNRESOLVED_CODES = {"import-not-found", "import-untyped"}
_QUOTED_MODULE = re.compile(r'"([\w.]+)"')


def unresolved_project_imports(mypy_output: str) -> list[str]:
    """mypy's errors about a ``gpuvalue.*`` import it could not resolve or would not analyse."""
    found = []
    for line in mypy_output.splitlines():
        m = _MYPY_LINE.match(line)
        if not m:
            continue
        about_imports = m["code"] in _UNRESOLVED_CODES or "Cannot find implementation or library stub" in m["message"]
        modules = _QUOTED_MODULE.findall(m["message"])
        if about_imports and any(name == PACKAGE or name.startswith(PACKAGE + ".") for name in modules):
            found.append(line)
    return found


def test_unresolved_project_imports_are_recognised_in_mypy_output():
    output = "\n".join([
        'flows/cli.py:16: error: Skipping analyzing "gpuvalue.models.perf.label": module is installed, but missing '
        "library stubs or py.typed marker  [import-untyped]",
        'gpuvalue/flows/x.py:3: error: Cannot find implementation or library stub for module named "gpuvalue.nope"'
        "  [import-not-found]",
        'gpuvalue/scrapers/ebay_html.py:30: error: Library stubs not installed for "lxml"  [import-untyped]',
        'gpuvalue/flows/cli.py:49: error: Missing return statement  [return]',
    ])
    assert [line.split(":")[0] for line in unresolved_project_imports(output)] == ["flows/cli.py", "gpuvalue/flows/x.py"]


@pytest.mark.e2e
def test_mypy_finds_no_error(tmp_path):
    """mypy, configured in pyproject.toml and run on every module under the name it is imported
    by (tests/typecheck.py), resolves every gpuvalue.* import and reports no error at all."""
    pytest.importorskip("mypy")
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "typecheck.py"), "--cache-dir", str(tmp_path / "mypy_cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    elapsed = time.monotonic() - started
    output = result.stdout + result.stderr
    assert result.returncode in (0, 1), f"mypy did not run to the end (exit {result.returncode}):\n{output}"
    assert "found twice" not in output and "Duplicate module" not in output, output
    unresolved = unresolved_project_imports(output)
    assert not unresolved, "mypy cannot resolve these project imports:\n" + "\n".join(unresolved)
    summary = re.search(r"(?:checked|in) (\d+) source files?\)?$", output.strip())
    assert summary, output[-2000:]
    # Every module of the four folders and gpuvalue/__init__.py is seen, not only the package's __init__.
    assert int(summary[1]) >= len(project_sources()) + 1, summary[0]
    reported = {line.split(":", 1)[0] for line in output.splitlines() if _MYPY_LINE.match(line)}
    assert all(path.split("/", 1)[0] in (*LAYERS, PACKAGE) for path in reported), sorted(reported)
    errors = [line for line in output.splitlines() if _MYPY_LINE.match(line)]
    print(f"mypy: {elapsed:.0f} s, {len(errors)} errors")
    assert not errors, f"mypy finds {len(errors)} errors:\n" + "\n".join(errors)
