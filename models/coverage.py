"""Which cards the pipeline shops for: a written rule over the catalog, not a hand-kept list.

A card is covered when a deep-learning buyer could use it:

1. it has at least ``min_memory_gb`` (8 GB by default; ``GPUVALUE_COVERAGE_MIN_MEMORY_GB``);
2. a current or legacy PyTorch build runs it (``framework_support`` ``current`` or ``legacy``,
   ``models/support_tables.py``);
3. it was released, in 2016 or later;
4. it goes into a desktop's PCIe slot: a desktop or workstation card, or a PCIe server card
   (segment desktop, workstation or datacenter and a PCIe form factor: no SXM/OAM module, no
   laptop or integrated part);
5. it is sold as a card of its own: engineering boards (``PG506-207``), virtualization and
   converged boards (GRID, CNX, vGPU profiles such as ``RTX A5000-8Q``), embedded modules and
   cloud-only variants (``A10G``, ``T4G``) are not covered (``NOT_RETAIL``).

Users add or remove models by name (``GPUVALUE_COVERAGE_ADD``, ``GPUVALUE_COVERAGE_REMOVE``); an
added model is covered whatever the rule says, a removed one never is.

Each covered model's search is derived from its catalog name: the vendor, then the name without
its memory size (eBay titles write it many ways; the title matcher tells the variants apart) and
without chip-revision and memory-type suffixes (``GA104``, ``GDDR6X``: the same card to a buyer),
and without "PCIe" unless a module of the same name exists (``A100 PCIe`` is not an ``A100 SXM4``).
So "GeForce RTX 3090" searches "NVIDIA GeForce RTX 3090", and the 12 and 8 GB RTX 3060 share
"NVIDIA GeForce RTX 3060". Models that share a search are searched once.

Pure: catalog rows in, the covered models and their searches out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

DEFAULT_COVERAGE_MIN_MEMORY_GB = 8.0
RELEASED_FROM = date(2016, 1, 1)
SUPPORTED_LEVELS = ("current", "legacy")
SLOT_SEGMENTS = ("desktop", "workstation", "datacenter")

# Names of boards nobody buys as a card on their own, each with the reason.
NOT_RETAIL: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(Tesla )?PG\d{3}", re.I), "engineering or OEM board"),
    (re.compile(r"\bGRID\b", re.I), "virtualization board"),
    (re.compile(r"\bCNX\b", re.I), "converged network board"),
    (re.compile(r"-\d+Q$", re.I), "vGPU profile, not a card"),
    (re.compile(r"\bEmbedded\b", re.I), "embedded module"),
    (re.compile(r"\bDGXS\b", re.I), "part of a DGX Station"),
    (re.compile(r"^(NVIDIA )?(A10G|A10M|L40G|T4G|Tesla T4G|Tesla T10\b.*|A100X|A30X|GB10)$", re.I),
     "cloud-only or converged variant"),
    (re.compile(r"^(NVIDIA )?Tesla M10$", re.I), "virtualization board"),
)

# Suffixes that name a chip revision, memory type or edition of a card that is the same card to a
# buyer (eBay titles rarely state them); its search is the card's.
_EDITION_SUFFIX = re.compile(
    r"(\s+(GDDR\dX?|\d+Gbps|OEM|Limited Edition|Liquid Cooling|Watercooled|CEO Edition|Passive))+$", re.I)
_CHIP_SUFFIX = re.compile(r"\s+(G[APV]\d{3}|AD\d{3}|TU\d{3}|GB\d{3})$", re.I)
_MEMORY_SUFFIX = re.compile(r"\s+\d+(\.\d+)?\s?GB\b", re.I)
_PCIE = re.compile(r"\s+PCIe\b", re.I)
_MODULE_WORD = re.compile(r"\s+(SXM\d?|OAM|NVL|Mezzanine)\b.*$", re.I)
_VENDOR_PREFIX = {"NVIDIA": "NVIDIA", "AMD": "AMD", "ATI": "AMD", "Intel": "Intel"}


@dataclass(frozen=True)
class CoverageRule:
    min_memory_gb: float = DEFAULT_COVERAGE_MIN_MEMORY_GB
    released_from: date = RELEASED_FROM
    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()


@dataclass(frozen=True)
class CoveredModel:
    model: str
    query: str
    why: str  # "rule" or "added in settings"


@dataclass(frozen=True)
class Coverage:
    models: tuple[CoveredModel, ...]
    unknown: tuple[str, ...] = ()  # names in add/remove that are not catalog models
    left_out: dict[str, str] = field(default_factory=dict)  # near misses: model -> why (rule 5)

    @property
    def queries(self) -> tuple[str, ...]:
        """The searches, once each, in model order."""
        return tuple(dict.fromkeys(m.query for m in self.models))


_NOT_RETAIL_REASONS = frozenset(why for _, why in NOT_RETAIL)


def not_retail(model: str) -> str | None:
    for pattern, why in NOT_RETAIL:
        if pattern.search(model):
            return why
    return None


def _released_on(row: Mapping[str, Any]) -> date | None:
    value = row.get("release_date")
    return value if isinstance(value, date) else None


def rule_reason(row: Mapping[str, Any], rule: CoverageRule) -> str | None:
    """Why the rule does not cover the row, or None when it does."""
    memory = row.get("memory_gb")
    if memory is None or memory < rule.min_memory_gb - 1e-9:
        return f"under {rule.min_memory_gb:g} GB"
    if row.get("framework_support") not in SUPPORTED_LEVELS:
        return "no current or legacy PyTorch build"
    released = _released_on(row)
    if row.get("released") is False or released is None or released < rule.released_from:
        return f"not released in {rule.released_from.year} or later"
    form = str(row.get("form_factor") or "")
    if row.get("segment") not in SLOT_SEGMENTS or not form.startswith("PCIe"):
        return "not a PCIe card for a desktop or server slot"
    return not_retail(str(row["model"]))


def search_query(model: str, vendor: str | None, module_names: Iterable[str] = ()) -> str:
    """The eBay search for a catalog model (rules in the module docstring)."""
    name = _strip_same_card(model.strip())
    name = _strip_same_card(_MEMORY_SUFFIX.sub("", name)).strip()
    if _PCIE.search(name):
        base = _PCIE.sub("", name).strip()
        if base.lower() not in {_module_base(m) for m in module_names}:
            name = base
    prefix = _VENDOR_PREFIX.get(vendor or "", vendor or "")
    if prefix and not name.lower().startswith(prefix.lower() + " "):
        name = f"{prefix} {name}"
    return " ".join(name.split())


def _strip_same_card(name: str) -> str:
    """Drop a revision/edition suffix, unless what is left names no card (``Quadro GP100`` keeps its chip)."""
    name = _EDITION_SUFFIX.sub("", name)
    stripped = _CHIP_SUFFIX.sub("", name)
    return stripped if re.search(r"\d", stripped) else name


def _module_base(model: str) -> str:
    """``A100 SXM4 40 GB`` -> ``a100``: the card name a module shares with its PCIe sibling."""
    return _MEMORY_SUFFIX.sub("", _MODULE_WORD.sub("", model)).strip().lower()


def covered(rows: Iterable[Mapping[str, Any]], rule: CoverageRule = CoverageRule()) -> Coverage:
    """The covered models of the catalog ``rows`` (dicts with the ``gpus`` columns), by model name."""
    rows = list(rows)
    by_name = {str(r["model"]): r for r in rows}
    modules = [str(r["model"]) for r in rows
               if str(r.get("form_factor") or "") in ("SXM module", "OAM module")]
    removed = {m.strip().lower() for m in rule.remove}
    added = {m.strip().lower() for m in rule.add}
    lower = {name.lower(): name for name in by_name}
    unknown = tuple(sorted(m for m in (*rule.add, *rule.remove) if m.strip().lower() not in lower))
    out: list[CoveredModel] = []
    left_out: dict[str, str] = {}
    for name in sorted(by_name):
        row = by_name[name]
        key = name.lower()
        if key in removed:
            continue
        why = rule_reason(row, rule)
        if why is None:
            out.append(CoveredModel(name, search_query(name, row.get("vendor"), modules), "rule"))
        elif key in added:
            out.append(CoveredModel(name, search_query(name, row.get("vendor"), modules), "added in settings"))
        elif why in _NOT_RETAIL_REASONS:  # rule 5's reason: rules 1-4 give other words
            left_out[name] = why
    return Coverage(models=tuple(out), unknown=unknown, left_out=left_out)


# eBay's default call limit for the Browse API (all methods but getItems) for a new application:
# 5,000 calls a day (developer.ebay.com/develop/api/buy/api_call_limits); the Application Growth
# Check raises it. A run makes 1 token call plus, per search, up to GPUVALUE_EBAY_MAX_PAGES pages
# (DEFAULT_EBAY_MAX_PAGES unless set; the eBay sources' EbaySettings reads it).
BROWSE_DAILY_CALL_LIMIT = 5000
DEFAULT_EBAY_MAX_PAGES = 1


def browse_calls(searches: int, pages_per_search: int) -> int:
    """eBay Browse API calls a run makes: one token request, then each search's result pages."""
    return 1 + searches * pages_per_search
