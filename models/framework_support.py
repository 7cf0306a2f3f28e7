"""Which software stack a card trains on, and what a buyer gives up with one that is not CUDA.

``framework_support`` (``models/support_tables.py``) says whether a PyTorch wheel of the newest
release runs a card at all. A deep-learning buyer needs more: an AMD card trains through ROCm, which
AMD validates for a short list of cards and on Linux only, and an Intel card through PyTorch's XPU
builds; both run fewer of the libraries tutorials assume (bitsandbytes, flash-attention, xformers
are built for CUDA first). Here each card gets its stack and, for ROCm and XPU, a level per
operating system:

* ``supported``: the vendor lists the card for that OS and a PyTorch build runs it;
* ``unofficial``: it runs, but the vendor does not list the card: the ROCm wheels carry its target
  though AMD does not validate it (RX 6800/6900, RX 7600), or it needs
  ``HSA_OVERRIDE_GFX_VERSION`` to pass for a listed target (RX 6600/6700, Navi 22/23), or only a
  preview build runs it (ROCm PyTorch on Windows);
* ``none``: nothing runs it.

Every fact is dated and sourced in ``FACTS``. Pure: a ranking or catalog row in, levels and
words out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from gpuvalue.models.support_tables import SupportFact, support_level

OsLevel = Literal["supported", "unofficial", "none"]
Stack = Literal["cuda", "rocm", "xpu"]

ROCM_MATRIX = "ROCm 7.0"  # the compatibility matrix the tables below encode

FACTS: tuple[SupportFact, ...] = (
    SupportFact("ROCm Linux supported GPUs: Instinct MI355X, MI350X, MI325X, MI300X, MI300A, MI250X, MI250, "
                "MI210, MI100; Radeon PRO W7900, W7800 (also 48 GB), W7700, V710, W6800, V620, Radeon AI PRO "
                "R9700; Radeon RX 9070 XT, 9070, 9070 GRE, 9060 XT, RX 7900 XTX, 7900 XT, 7900 GRE, 7800 XT, "
                "7700 XT. Cards not listed are not supported by AMD",
                "rocm.docs.amd.com, install-on-linux: System requirements (Linux), ROCm 6.4.x and 7.0",
                date(2025, 9, 16), verified=False),
    SupportFact("ROCm on Windows: the HIP SDK runs RDNA2/RDNA3 Radeon cards (RX 6800 and up fully, RX 6600/6700 "
                "runtime only), but PyTorch publishes ROCm wheels for Linux only; AMD's PyTorch on Windows is a "
                "preview for RX 7000 and RX 9000 cards",
                "rocm.docs.amd.com, install-on-windows: System requirements (Windows); pytorch.org install "
                "matrix (ROCm: Linux only)", date(2025, 9, 24), verified=False),
    SupportFact("Navi 22/23/24 (gfx1031/gfx1032/gfx1034: RX 6700, 6600, 6500) are not built for; on Linux "
                "HSA_OVERRIDE_GFX_VERSION=10.3.0 makes the runtime load the gfx1030 code, which is how users run "
                "PyTorch on them, unsupported", "ROCm/ROCm#2353 and the ROCm HIP SDK hardware table",
                date(2023, 8, 1), verified=False),
    SupportFact("PyTorch's XPU wheels (2.5 and later) run Intel Arc A-series and B-series on Linux and Windows, "
                "and Data Center GPU Max on Linux; Data Center GPU Flex is not in PyTorch's list (Intel's "
                "extension for PyTorch covers it)",
                "docs.pytorch.org/docs/stable/notes/get_start_xpu.html (Getting Started on Intel GPU)",
                date(2026, 9, 29)),
    SupportFact("bitsandbytes, flash-attention and xformers publish CUDA builds first; their ROCm and XPU "
                "support is partial or separate (ROCm forks, newer releases only)",
                "bitsandbytes multi-backend docs; ROCm/flash-attention; xformers README", date(2025, 6, 1),
                verified=False),
)

# AMD's Linux list (FACTS[0]), as catalog model names.
ROCM_LINUX_LISTED: frozenset[str] = frozenset({
    "AMD Instinct MI355X", "AMD Instinct MI350X", "AMD Instinct MI325X", "AMD Instinct MI300X",
    "AMD Instinct MI300A", "AMD Instinct MI250X", "AMD Instinct MI250", "AMD Instinct MI210",
    "AMD Instinct MI100",
    "Radeon PRO W7900", "Radeon PRO W7900D", "Radeon PRO W7800", "Radeon PRO W7800 48 GB", "Radeon PRO W7700",
    "Radeon PRO V710", "Radeon PRO W6800", "Radeon PRO V620", "Radeon AI PRO R9700",
    "Radeon RX 9070 XT", "Radeon RX 9070", "Radeon RX 9070 GRE", "Radeon RX 9070 GRE 16 GB",
    "Radeon RX 9060 XT 16 GB", "Radeon RX 9060 XT 8 GB",
    "Radeon RX 7900 XTX", "Radeon RX 7900 XT", "Radeon RX 7900 GRE", "Radeon RX 7800 XT", "Radeon RX 7700 XT",
})
# The architectures whose desktop cards AMD's PyTorch-on-Windows preview runs (FACTS[1]).
ROCM_WINDOWS_PREVIEW_ARCHITECTURES = ("rdna 3", "rdna 4")
_INSTINCT = re.compile(r"\bInstinct\b", re.IGNORECASE)
_DATA_CENTER_MAX = re.compile(r"\bData Center GPU Max\b|Ponte Vecchio", re.IGNORECASE)
_DATA_CENTER_FLEX = re.compile(r"\bData Center GPU Flex\b", re.IGNORECASE)
_ARC = re.compile(r"\bArc\b.*\b[AB]\d{2,3}\b", re.IGNORECASE)

LIBRARIES_LAG = "bitsandbytes, flash-attention and xformers lag their CUDA builds"


@dataclass(frozen=True)
class StackSupport:
    """The stack a card trains on and its level on Linux and Windows (CUDA: the wheel level)."""

    stack: Stack | None
    linux: OsLevel
    windows: OsLevel
    note: str | None = None  # what it takes, where it is unofficial (an override, a preview build)

    @property
    def is_cuda(self) -> bool:
        return self.stack == "cuda"


def _arch(row: Mapping[str, Any]) -> str:
    return str(row.get("architecture") or "").strip().lower()


def stack_support(row: Mapping[str, Any]) -> StackSupport:
    """The card's stack and levels, from its ``vendor``, ``architecture``, ``model`` and the PyTorch
    wheel level ``framework_support`` (or the former flag) of a catalog or ranking row."""
    vendor = str(row.get("vendor") or "").strip().lower()
    model = str(row.get("model") or "")
    wheels = support_level(row)
    if vendor == "nvidia":
        level: OsLevel = "supported" if wheels in ("current", "legacy") else "none"
        return StackSupport("cuda", level, level, "legacy CUDA 12.6 wheels only" if wheels == "legacy" else None)
    if vendor in ("amd", "ati"):
        return _rocm(model, _arch(row), wheels)
    if vendor == "intel":
        return _xpu(model, _arch(row), wheels)
    return StackSupport(None, "none", "none")


def _rocm(model: str, arch: str, wheels: str | None) -> StackSupport:
    preview = arch.startswith(ROCM_WINDOWS_PREVIEW_ARCHITECTURES) and not _INSTINCT.search(model)
    windows: OsLevel = "unofficial" if preview else "none"
    win_note = "Windows only through AMD's preview PyTorch build" if preview else "no Windows build"
    if model in ROCM_LINUX_LISTED:
        return StackSupport("rocm", "supported", windows, win_note)
    if wheels == "current":
        return StackSupport("rocm", "unofficial", windows,
                            f"not on AMD's {ROCM_MATRIX} list though the ROCm wheels carry its target; {win_note}")
    if arch.startswith("rdna 2"):
        return StackSupport("rocm", "unofficial", "none",
                            "needs HSA_OVERRIDE_GFX_VERSION=10.3.0 (its chip is not built for); no Windows build")
    return StackSupport("rocm", "none", "none")


def _xpu(model: str, arch: str, wheels: str | None) -> StackSupport:
    if _DATA_CENTER_MAX.search(model) or arch == "xe-hpc":
        return StackSupport("xpu", "supported", "none", "Linux only")
    if _DATA_CENTER_FLEX.search(model):
        return StackSupport("xpu", "unofficial", "none", "not in PyTorch's XPU list; Intel's extension for PyTorch")
    if _ARC.search(model) and arch in ("xe-hpg", "xe2-hpg"):
        return StackSupport("xpu", "supported", "supported")
    if wheels == "current":
        return StackSupport("xpu", "unofficial", "unofficial", "an integrated part PyTorch's XPU list covers")
    return StackSupport("xpu", "none", "none")


def caveat_line(support: StackSupport) -> str | None:
    """What a buyer gives up with a card that does not train on CUDA, in one line; None for CUDA."""
    if support.stack == "cuda" or support.stack is None:
        return None
    if support.stack == "rocm":
        if support.linux == "none":
            return "AMD card: no ROCm build runs it, so PyTorch cannot train on it"
        where = "Linux only" if support.windows == "none" else "Linux; Windows only through AMD's preview build"
        listed = ("on AMD's ROCm list" if support.linux == "supported"
                  else "not on AMD's ROCm list (unsupported)")
        override = "; needs HSA_OVERRIDE_GFX_VERSION=10.3.0" if "HSA_OVERRIDE" in (support.note or "") else ""
        return f"AMD card, not CUDA: ROCm on {where}; {listed}{override}; {LIBRARIES_LAG}"
    if support.linux == "none" and support.windows == "none":
        return "Intel card: no PyTorch XPU build runs it"
    where = "Linux and Windows" if support.windows != "none" else "Linux only"
    listed = "" if support.linux == "supported" else "; not in PyTorch's XPU list (unsupported)"
    return f"Intel card, not CUDA: PyTorch XPU builds on {where}{listed}; {LIBRARIES_LAG}"


def card_caveat(row: Mapping[str, Any]) -> str | None:
    """``caveat_line`` of a catalog or ranking row."""
    return caveat_line(stack_support(row))


def prefers_cuda(use_case: str | None, vendor: str | None = None) -> bool:
    """Whether picks should be cards with current CUDA support first: a beginner follows tutorials
    written for CUDA, unless the user names another vendor."""
    if vendor is not None and vendor.strip().lower() != "nvidia":
        return False
    return use_case == "beginner"


def has_current_cuda(row: Mapping[str, Any]) -> bool:
    return str(row.get("vendor") or "").strip().lower() == "nvidia" and support_level(row) == "current"


def stack_mark(row: Mapping[str, Any]) -> str:
    """The mark a table puts after a non-CUDA card's name: `§` ROCm, `¤` Intel XPU."""
    stack = stack_support(row).stack
    return " \u00a7" if stack == "rocm" else " \u00a4" if stack == "xpu" else ""


def stack_legend(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """The lines that explain ``stack_mark``: one per stack present, from the caveats of the rows."""
    stacks = {stack_support(row).stack for row in rows}
    lines = []
    if "rocm" in stacks:
        lines.append(f"\u00a7 AMD card: trains on ROCm, not CUDA (on Linux; on Windows only through AMD's "
                     f"preview build; AMD lists few Radeon cards, {ROCM_MATRIX}); {LIBRARIES_LAG}.")
    if "xpu" in stacks:
        lines.append(f"\u00a4 Intel card: trains on PyTorch's XPU builds, not CUDA; {LIBRARIES_LAG}.")
    return lines


def of_vendor(rows: Iterable[Mapping[str, Any]], vendor: str | None) -> list[Mapping[str, Any]]:
    """The rows of one vendor (any case: ``amd``, ``AMD``), or all of them when none is asked for."""
    rows = list(rows)
    if vendor is None:
        return rows
    wanted = vendor.strip().lower()
    return [r for r in rows if str(r.get("vendor") or "").strip().lower() == wanted]
