"""SQL lives in warehouse/sql/*.sql; this reads it by name."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def sql(name: str) -> str:
    return resources.files("gpuvalue.warehouse").joinpath("sql", f"{name}.sql").read_text(encoding="utf-8")


def statements(name: str) -> list[str]:
    """The statements of a multi-statement file, for DuckDB calls that take one at a time."""
    return split_statements(sql(name))


def split_statements(text: str) -> list[str]:
    out, buf = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("--"):
            continue
        buf.append(line)
        if stripped.endswith(";"):
            out.append("\n".join(buf).strip())
            buf = []
    tail = "\n".join(buf).strip()
    if tail:
        out.append(tail)
    return out
