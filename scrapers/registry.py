"""The registry: every source gpuvalue knows, collected from the modules of ``scrapers/sources/``.

Settings' choices, ``gpuvalue parse``, reparse, the replay build, export attributions and the fuzz
tests all read this one table, so a new source is one module that declares ``SOURCE``.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from types import ModuleType

from gpuvalue.scrapers import sources as _sources_pkg
from gpuvalue.scrapers.source import KNOWN_KINDS, Source


def source_modules() -> list[ModuleType]:
    """Every module of the sources package, imported, in name order."""
    names = sorted(m.name for m in pkgutil.iter_modules(_sources_pkg.__path__) if not m.name.startswith("_"))
    return [importlib.import_module(f"{_sources_pkg.__name__}.{n}") for n in names]


def module_of(name: str) -> ModuleType:
    """The module that declares the source ``name`` (its ``SOURCE``), whichever module its parser's
    functions were built in."""
    src = get(name)
    return next(m for m in source_modules() if getattr(m, "SOURCE", None) is src)


@lru_cache(maxsize=1)
def _registry() -> dict[str, Source]:
    found: dict[str, Source] = {}
    for module in source_modules():
        declared = getattr(module, "SOURCE", None)
        if not isinstance(declared, Source):
            raise RuntimeError(f"{module.__name__} declares no SOURCE = Source(...)")
        if declared.name in found:
            raise RuntimeError(f"two modules declare the source {declared.name!r}")
        found[declared.name] = declared
    # Stage order: specs first (most trusted first), then listings, benchmarks and the rest.
    def order(src: Source) -> tuple:
        return (KNOWN_KINDS.index(src.kind), src.spec_precedence or 0, src.name)

    return {s.name: s for s in sorted(found.values(), key=order)}


def all_sources() -> dict[str, Source]:
    return dict(_registry())


def get(name: str) -> Source:
    """A source by its name or a former name; KeyError names the known ones."""
    reg = _registry()
    if name in reg:
        return reg[name]
    for src in reg.values():
        if name in src.aliases:
            return src
    raise KeyError(f"unknown source {name!r}; known: {', '.join(reg)}")


def canonical(name: str) -> str:
    return get(name).name


def names(*, kind: str | None = None, default_only: bool = False) -> tuple[str, ...]:
    return tuple(n for n, s in _registry().items()
                 if (kind is None or s.kind == kind) and (not default_only or s.default))


def default_sources() -> tuple[str, ...]:
    return names(default_only=True)


def spec_precedence() -> tuple[str, ...]:
    """Spec sources, the one that wins a disagreeing field first."""
    specs = [s for s in _registry().values() if s.kind == "spec"]
    return tuple(s.name for s in sorted(specs, key=lambda s: (s.spec_precedence is None, s.spec_precedence or 0, s.name)))


def parsers() -> tuple[str, ...]:
    """Sources whose pages `gpuvalue parse` reads."""
    return tuple(n for n, s in _registry().items() if s.parse is not None or s.inspect is not None)


def catalog() -> dict[str, tuple[str, str, str]]:
    """name -> (export kind, attribution, licence), what exports and the feed say of each source."""
    return {n: (s.export_kind or s.kind, s.attribution, s.licence) for n, s in _registry().items()}
