"""The GPU catalog: one row per canonical model, merged from several spec sources.

Sources disagree (pre-launch guesses, typos, GiB vs GB) and each lacks fields, so every
field is taken from the most trusted source that states it, every other source's
disagreement is kept as a conflict, and each field records where it came from.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from gpuvalue.models.gpu_names import current_name
from gpuvalue.models.records import GpuSpec, Segment
from gpuvalue.models.segments import classify_form_factor, classify_segment, is_desktop_usable
from gpuvalue.models.support_tables import framework_support, supported_flag

class CatalogRow(BaseModel):
    """A row of the ``gpus`` table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    vendor: str | None = None
    architecture: str | None = None
    generation: str | None = None
    chip: str | None = None
    segment: Segment | None = None
    release_date: date | None = None
    released: bool | None = None
    memory_gb: float | None = None
    memory_type: str | None = None
    memory_bus_bits: int | None = None
    bandwidth_gb_s: float | None = None
    fp32_tflops: float | None = None
    fp16_tflops: float | None = None
    tensor_fp16_tflops: float | None = None
    tensor_cores: int | None = None
    l2_cache_mb: float | None = None
    tdp_w: int | None = None
    bus_interface: str | None = None
    form_factor: str | None = None
    slot_width: str | None = None
    launch_price_usd: float | None = None
    compute_capability: str | None = None
    framework_support: str | None = None  # current | legacy | none (models/support_tables.py)
    framework_supported: bool | None = None  # derived from framework_support: current -> True
    desktop_usable: bool | None = None
    tpu_url: str | None = None
    provenance: dict[str, dict] = {}
    updated_at: datetime | None = None


class SpecConflict(BaseModel):
    """A row of the ``spec_conflicts`` table: another source disagrees with the kept value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    field: str
    kept_source: str
    kept_value: str | None
    other_source: str
    other_value: str | None
    detected_at: datetime


class CatalogMerge(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rows: list[CatalogRow]
    conflicts: list[SpecConflict]


# --------------------------------------------------------------------------- name resolution

_VENDOR_WORDS = {"nvidia", "amd", "ati", "intel"}
# Words some spellings carry and others drop; they never tell two models apart.
_NOISE_WORDS = {"geforce", "tesla", "generation", "graphics", "card", "gpu"}
_MEMORY_TOKEN = re.compile(r"^(\d+(?:\.\d+)?)gb$")


@lru_cache(maxsize=1 << 16)
def _tokens(raw: str) -> tuple[str, ...]:
    """Cached: a run builds the name index several times over the same few thousand names."""
    text = raw.lower()
    text = re.sub(r"\[[^\]]*\]", " ", text)  # footnote markers
    text = re.sub(r"[®™©]", " ", text)
    text = text.replace("radeon instinct", "instinct")
    text = re.sub(r"\b(rtx|gtx|gts|gt|rx|mi|hd|vii)(\d)", r"\1 \2", text)  # RTX4090 -> RTX 4090
    text = re.sub(r"(\d)(ti|xtx|xt|super|gre)\b", r"\1 \2", text)  # 3080Ti -> 3080 Ti
    text = re.sub(r"(\d+(?:\.\d+)?)\s*gi?b\b", r"\1gb", text)  # 24 GB / 24GB / 24 GiB -> 24gb
    text = re.sub(r"[^a-z0-9.+\-]+", " ", text)
    return tuple(t for t in text.split() if t not in _VENDOR_WORDS and t not in _NOISE_WORDS)


def _core_and_memory(raw: str) -> tuple[str, float | None, bool]:
    """The name without its memory size and "PCIe"; the memory it states; whether it says PCIe."""
    memory = None
    core = []
    says_pcie = False
    for token in _tokens(raw):
        m = _MEMORY_TOKEN.match(token)
        if m:
            memory = float(m.group(1))
        elif token == "pcie":
            says_pcie = True
        else:
            core.append(token)
    return " ".join(core), memory, says_pcie


@dataclass(frozen=True)
class CanonicalNameIndex:
    """Canonical names keyed by a normalised spelling and by their core (name sans memory/"PCIe")."""

    exact: dict[str, str] = field(default_factory=dict)
    by_core: dict[str, list[tuple[str, float | None]]] = field(default_factory=dict)


def canonical_name_index(names: Iterable[str]) -> CanonicalNameIndex:
    exact: dict[str, str] = {}
    by_core: dict[str, list[tuple[str, float | None]]] = defaultdict(list)
    for name in names:
        exact.setdefault(" ".join(_tokens(name)), name)
        core, memory, _ = _core_and_memory(name)
        by_core[core].append((name, memory))
    return CanonicalNameIndex(exact=exact, by_core=dict(by_core))


def resolve_name(raw: str, index: CanonicalNameIndex, memory_gb: float | None = None) -> str | None:
    """The one canonical name ``raw`` means, or None when it could mean several or none.

    Spellings are compared after dropping vendor words, "GeForce"/"Tesla"/"Generation",
    footnotes and punctuation, and after separating fused tokens (``RTX4090``, ``24GB``).
    Beyond that, a candidate may differ from ``raw`` only by a memory size and the word
    "PCIe": so ``Tesla V100`` never becomes an SXM2, DGXS or FHHL variant, ``RTX 3060``
    never a Mobile/Max-Q, Ti or chip-revision (``GA104``) variant. Among the remaining
    candidates the memory size (given, or stated in ``raw``) picks one; if several remain,
    the answer is None.
    """
    if not raw or not raw.strip():
        return None
    hit = index.exact.get(" ".join(_tokens(raw)))
    if hit is not None:
        return hit
    core, raw_memory, _ = _core_and_memory(raw)
    candidates = index.by_core.get(core, [])
    memory = memory_gb if memory_gb is not None else raw_memory
    if memory is not None:
        with_memory = [c for c in candidates if c[1] is not None and abs(c[1] - memory) < 0.51]
        candidates = with_memory or [c for c in candidates if c[1] is None]
    if len(candidates) == 1:
        return candidates[0][0]
    return None


def candidate_names(raw: str, index: CanonicalNameIndex) -> list[str]:
    """Every canonical name ``raw`` may mean: its exact match, else all memory/PCIe variants.

    For facts shared by all variants of a model (its compute capability, its architecture)
    the ambiguity ``resolve_name`` refuses does not matter.
    """
    if not raw or not raw.strip():
        return []
    hit = index.exact.get(" ".join(_tokens(raw)))
    if hit is not None:
        return [hit]
    core, _, _ = _core_and_memory(raw)
    return [name for name, _ in index.by_core.get(core, [])]


# --------------------------------------------------------------------------- merge

SPEC_FIELDS = tuple(f for f in GpuSpec.model_fields if f not in ("model", "source", "fetched_at"))

# Relative tolerance per numeric field before two sources count as disagreeing; 0 means
# any difference. Fields not listed are not compared (names of families, URLs, dates that
# sources round to Jan 1, ...).
CONFLICT_TOLERANCE: dict[str, float] = {
    "bandwidth_gb_s": 0.03,
    "memory_gb": 0.0,
    "memory_bus_bits": 0.0,
    "fp32_tflops": 0.05,
    "fp16_tflops": 0.05,
    "tdp_w": 0.10,
    "tensor_cores": 0.0,
}
CONFLICT_EXACT_TEXT = ("memory_type", "compute_capability", "vendor")


# One company under two names: ATI cards are listed as AMD by some sources.
_SAME_VENDOR = {"ati": "amd"}
# Sources turn megabytes into gigabytes by 1000 or by 1024 (64 MB as 0.064 or 0.0625 GB, 2.4% apart):
# that is the same size; the closest real variants (11 vs 12 GB) are 8% apart and always disagree.
_MEMORY_UNIT_SLACK = 0.03


def _disagree(field_name: str, kept, other) -> bool:
    if field_name == "memory_gb":
        a, b = float(kept), float(other)
        return abs(a - b) > _MEMORY_UNIT_SLACK * max(abs(a), abs(b))
    if field_name == "vendor":
        norm = [_SAME_VENDOR.get(str(v).strip().lower(), str(v).strip().lower()) for v in (kept, other)]
        return norm[0] != norm[1]
    if field_name in CONFLICT_TOLERANCE:
        tolerance = CONFLICT_TOLERANCE[field_name]
        if tolerance == 0.0:
            return abs(float(kept) - float(other)) > 1e-6
        return abs(float(other) - float(kept)) > tolerance * abs(float(kept))
    if field_name in CONFLICT_EXACT_TEXT:
        return str(kept).strip().lower() != str(other).strip().lower()
    return False


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _text(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def merge_specs(specs: Iterable[GpuSpec], precedence: Sequence[str],
                detected_at: datetime | None = None) -> CatalogMerge:
    """Merge what each source says into one catalog row per model.

    Per field, the highest-precedence source that states it (not None) wins; sources not
    in ``precedence`` rank after those that are, in order of name. Within one source the
    newest fetch wins. ``released`` is the exception: it changes over time, so the newest
    statement wins whatever its source (a 2023 page calling the RTX 4070 unreleased does
    not outweigh a 2025 snapshot that gives it a past release date).

    Conflicts compare the kept value with every other source's value for the fields in
    ``CONFLICT_TOLERANCE`` (bandwidth beyond 3 %, memory size or bus width by any amount,
    TFLOPS beyond 5 %, TDP beyond 10 %) and the texts in ``CONFLICT_EXACT_TEXT``.
    ``detected_at`` defaults to the newest ``fetched_at`` among the inputs, so the result
    depends on the inputs only.

    Specs that carry the same TechPowerUp product page are one model even when TechPowerUp
    renamed it between fetches (``RTX 6000 Ada`` became ``RTX 6000 Ada Generation``); see
    ``rename_by_product_id``.

    Segment and form factor, when no source states them, and ``framework_support`` (with the
    flag ``framework_supported`` it implies) and ``desktop_usable`` always, are derived from the merged fields (provenance "derived").
    """
    rank = {source: i for i, source in enumerate(precedence)}
    # model -> source -> (its newest spec, that spec's fetch time in UTC)
    by_model: dict[str, dict[str, tuple[GpuSpec, datetime]]] = defaultdict(dict)
    newest = None
    for spec in rename_by_product_id(specs):
        at = _utc(spec.fetched_at)
        current = by_model[spec.model].get(spec.source)
        if current is None or at > current[1]:
            by_model[spec.model][spec.source] = (spec, at)
        newest = spec.fetched_at if newest is None or at > _utc(newest) else newest
    detected = detected_at or newest or datetime.now(timezone.utc)

    rows: list[CatalogRow] = []
    conflicts: list[SpecConflict] = []
    for model in sorted(by_model):
        ordered = sorted(by_model[model].values(), key=lambda pair: (rank.get(pair[0].source, len(rank)),
                                                                      pair[0].source))
        # Each spec's fields read as a dict and its fetch time written out once: a catalog holds
        # thousands of models, each asked for every field.
        stated = [(spec.__dict__, spec.source, at) for spec, at in ordered]
        fetched_text: dict[str, str] = {}  # source -> fetch time, ISO
        values: dict = {}
        provenance: dict[str, dict] = {}
        for name in SPEC_FIELDS:
            stating = [(fields[name], source, at) for fields, source, at in stated if fields[name] is not None]
            if not stating:
                continue
            if name == "released":
                winner = max(stating, key=lambda statement: statement[2])
            else:
                winner = stating[0]
            kept, kept_source, kept_at = winner
            values[name] = kept
            if kept_source not in fetched_text:
                fetched_text[kept_source] = kept_at.isoformat()
            provenance[name] = {"source": kept_source, "fetched_at": fetched_text[kept_source]}
            for other in stating:
                if other is winner:
                    continue
                if _disagree(name, kept, other[0]):
                    conflicts.append(SpecConflict(
                        model=model, field=name, kept_source=kept_source, kept_value=_text(kept),
                        other_source=other[1], other_value=_text(other[0]),
                        detected_at=detected,
                    ))
        _derive(model, values, provenance)
        rows.append(CatalogRow(
            model=model,
            **values,
            provenance=provenance,
            updated_at=max(at for _, at in ordered),
        ))
    return CatalogMerge(rows=rows, conflicts=conflicts)


_PRODUCT_ID = re.compile(r"\.c(\d+)/?$")


def rename_by_product_id(specs: Iterable[GpuSpec]) -> list[GpuSpec]:
    """Give every spec of one TechPowerUp product (``...c3917`` in ``tpu_url``) one name.

    TechPowerUp renames products (``H100 PCIe`` became ``H100 PCIe 80 GB``) but keeps their
    id; the name from the most recently fetched spec of that id is used for all of them, under the
    card's current name (``models/gpu_names.py``: a TechPowerUp page still says "Radeon Instinct
    MI300X", AMD says "AMD Instinct MI300X").
    """
    specs = list(specs)
    newest_name: dict[str, tuple[datetime, str]] = {}
    for spec in specs:
        product = _product_id(spec.tpu_url)
        if product is None:
            continue
        seen = newest_name.get(product)
        if seen is None or _utc(spec.fetched_at) > seen[0]:
            newest_name[product] = (_utc(spec.fetched_at), spec.model)
    renamed = []
    for spec in specs:
        product = _product_id(spec.tpu_url)
        name = current_name(newest_name[product][1] if product is not None else spec.model)
        renamed.append(spec if name == spec.model else spec.model_copy(update={"model": name}))
    return renamed


def _product_id(url: str | None) -> str | None:
    m = _PRODUCT_ID.search(url or "")
    return m.group(1) if m else None


def _derive(model: str, values: dict, provenance: dict[str, dict]) -> None:
    derived = {"source": "derived", "fetched_at": None}
    if values.get("segment") is None:
        values["segment"] = classify_segment(model, values.get("generation"), values.get("slot_width"),
                                             values.get("bus_interface"))
        provenance["segment"] = derived
    if values.get("form_factor") is None:
        form_factor = classify_form_factor(model, values["segment"], values.get("slot_width"),
                                           values.get("bus_interface"))
        if form_factor is not None:
            values["form_factor"] = form_factor
            provenance["form_factor"] = derived
    values["framework_support"] = framework_support(
        values.get("vendor"), values.get("compute_capability"), values.get("chip"), values.get("architecture"))
    values["framework_supported"] = supported_flag(values["framework_support"])
    values["desktop_usable"] = is_desktop_usable(values.get("form_factor"), values["segment"])
    provenance["framework_support"] = derived
    provenance["framework_supported"] = derived
    provenance["desktop_usable"] = derived
