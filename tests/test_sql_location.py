"""SQL lives in warehouse/sql/*.sql (warehouse/sql_files.py says what may stay in Python): no
module of the product holds a query as a string. A statement written inline fails here with its
module and line, so that it moves to a file where it is read, diffed and run by
tests/warehouse/test_sql_files.py like every other."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("flows", "scrapers", "models", "warehouse")

# A statement that reads or writes tables, as this code writes SQL: keywords in capitals.
QUERY = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|MERGE|WITH|COPY\s+\w+\s+TO)\s+\S")
# Creating a temp view or table is plumbing only over an Arrow batch the code registered.
CREATE_AS = re.compile(r"^\s*CREATE\b.*?\bAS\s+SELECT\b(?P<rest>.*)", re.S)
FROM_NAMES = re.compile(r"\b(?:FROM|JOIN)\s+(\w+)")
# A statement built from identifiers (a table name read from the catalog) cannot be a file: its
# line says so with this marker, and why.
ALLOWED = "# SQL built from identifiers:"


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):  # an f-string: its literal parts, the fields as a placeholder
        return "".join(v.value if isinstance(v, ast.Constant) else "x" for v in node.values)
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def inline_sql(source: str) -> list[tuple[int, str]]:
    """(line, statement start) of each string in the module that is a query."""
    tree = ast.parse(source)
    skip = _docstrings(tree) | {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
                                for part in node.values}
    lines = source.splitlines()
    found = []
    for node in ast.walk(tree):
        text = None if id(node) in skip else _text(node)
        if text is None or ALLOWED in lines[node.lineno - 1]:
            continue
        create = CREATE_AS.match(text)
        if QUERY.match(text) or (create and any(
                not name.startswith("incoming") for name in FROM_NAMES.findall(create["rest"]))):
            found.append((node.lineno, " ".join(text.split())[:70]))
    return sorted(found)


def test_no_module_of_the_product_holds_a_query():
    found = [f"{path.relative_to(ROOT)}:{line}: {start}"
             for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
             for line, start in inline_sql(path.read_text(encoding="utf-8"))]
    assert not found, "queries belong in warehouse/sql/*.sql:\n" + "\n".join(found)


def test_the_check_finds_what_it_is_for():
    module = '''
"""SELECT in a docstring is prose."""
a = "SELECT count(*) FROM listings"
b = f"DELETE FROM {table} WHERE source = ?"
c = "CREATE TEMP VIEW incoming_listings AS SELECT * FROM incoming_raw"
d = "CREATE TEMP TABLE touched AS SELECT * FROM incoming SEMI JOIN listings USING (k)"
e = "With a space, a sentence"
f = "BEGIN TRANSACTION"
g = f"SELECT count(*) FROM {name}"  # SQL built from identifiers: every table of a copy
'''
    assert [line for line, _ in inline_sql(module)] == [3, 4, 6]
