"""Whether a card has matrix units (NVIDIA tensor cores, AMD matrix cores or WMMA, Intel XMX): the
rule ``recommend --model-params`` applies before it names a card to fine-tune a transformer on.

Fine-tuning trains its matrix products in bf16 or fp16 on those units. A card without them computes
mixed precision on its shader cores at or near its FP32 rate (``models/perf/arch_tables.py`` cites the
whitepapers), several times slower than a tensor-core card of its price class, and the QLoRA and LoRA
recipes (bf16 compute, FlashAttention) assume them: bf16 needs compute capability 8.0 (Ampere), fp16
tensor cores 7.0 (Volta), and bitsandbytes' 4-bit path is built and tested for 7.5 and newer. So:

* NVIDIA: Volta and newer, except the Turing TU116/TU117 boards (GeForce GTX 16 series, Quadro
  T400-T1200), which NVIDIA's Turing whitepaper lists without tensor cores;
* AMD: RDNA 3 and newer (WMMA "AI accelerators") and every CDNA Instinct card (matrix cores); GCN
  and RDNA 1/2 have none;
* Intel: Arc's Xe-HPG and Xe2 (XMX engines) and Xe-HPC (Data Center GPU Max); Xe-LP has none.

A card of unknown architecture is not assumed to have them. Pure: a ranking row in, a bool out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

NVIDIA_TENSOR_ARCHITECTURES = ("volta", "turing", "ampere", "ada", "hopper", "blackwell")
NVIDIA_TENSOR_CAPABILITY = 7.0  # Volta's tensor cores
AMD_MATRIX_ARCHITECTURES = re.compile(r"^(cdna|rdna ?([3-9]|\d{2}))", re.IGNORECASE)
INTEL_MATRIX_ARCHITECTURES = re.compile(r"^(xe-?hpg|xe-?hpc|xe2|xe3)", re.IGNORECASE)
# Turing boards on TU116/TU117: no tensor cores (GTX 1630-1660 Ti, Quadro/NVIDIA T400-T1200).
TURING_WITHOUT_TENSOR_CORES = re.compile(r"\bGTX\s*16\d\d\b|\bT(400|550|600|1000|1200)\b", re.IGNORECASE)


def has_matrix_units(row: Mapping[str, Any]) -> bool:
    """Whether ``row``'s card (``vendor``, ``architecture``, ``model``, ``compute_capability`` where known)
    has matrix units for bf16/fp16 training."""
    vendor = str(row.get("vendor") or "").strip().lower()
    arch = str(row.get("architecture") or "").strip().lower()
    model = str(row.get("model") or "")
    if vendor == "nvidia":
        if TURING_WITHOUT_TENSOR_CORES.search(model) or str(row.get("chip") or "").lower().startswith(("tu116", "tu117")):
            return False
        try:
            return float(str(row.get("compute_capability"))) >= NVIDIA_TENSOR_CAPABILITY
        except ValueError:
            return arch.startswith(NVIDIA_TENSOR_ARCHITECTURES)
    if vendor == "amd":
        return bool(AMD_MATRIX_ARCHITECTURES.match(arch))
    if vendor == "intel":
        return bool(INTEL_MATRIX_ARCHITECTURES.match(arch))
    return False
