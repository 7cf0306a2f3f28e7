"""Dense FP16 matrix throughput per architecture, from vendor architecture documents.

Spec databases give shader FP32/FP16 rates, but deep-learning training runs on the
tensor (NVIDIA) or matrix (AMD) units, whose rate per unit per clock changed by up to
8x between generations. Each table row states the FLOPs one unit does per clock on
dense FP16 inputs, and the vendor figure it was derived from, so the number can be
checked against the document rather than trusted.

GeForce cards of Turing, Ampere (GA10x), Ada and consumer Blackwell run FP16 matrix
math with FP32 accumulation at half the FP16-accumulate rate; their workstation and
datacenter twins (and the TITAN RTX) run both at full rate. Mixed-precision training
accumulates in FP32, so for GeForce cards the FP32-accumulate rate is the one that
matters and the one returned here.

Rates are per *tensor core* for NVIDIA and per *compute unit* for AMD (four matrix
cores per CDNA compute unit, two AI accelerators per RDNA3 compute unit; AMD quotes
its peaks per CU, so the table does too). Architectures without matrix units (Pascal
and older, GCN, RDNA1/2, Turing TU11x without tensor cores) get None: their FP16 is
plain FP16 FMA, already in the spec sheet's FP16 figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class MatrixRate:
    """One architecture's dense FP16 matrix rate, with the document behind it."""

    key: str  # stable family key, e.g. "nvidia-ampere-ga10x"
    unit: str  # "tensor core" or "compute unit"
    flops_per_clock: int  # dense FP16 inputs, full-rate accumulate
    geforce_fp32_acc_halved: bool
    source: str  # document title and the figure the rate is derived from
    # The family whose fitted offset this architecture's boards share (``offset_family``), where its
    # matrix path is that family's and its own measured cards are too few or none; None: its own.
    shares_offset_with: str | None = None
    shares_for_geforce_only: bool = False  # only the GeForce boards share it

    def family_for(self, model: str) -> str:
        """The key the estimate's family offset is fitted under for this board (``estimate.family_of``)."""
        if self.shares_offset_with and (not self.shares_for_geforce_only or is_geforce(model)):
            return self.shares_offset_with
        return self.key


VOLTA = MatrixRate(
    "nvidia-volta",
    "tensor core",
    128,
    False,
    "NVIDIA Tesla V100 GPU Architecture whitepaper: 125 TFLOPS tensor at 1530 MHz with "
    "640 tensor cores -> 128 FLOP/clk/core (TITAN V also accumulates FP32 at full rate)",
)
TURING = MatrixRate(
    "nvidia-turing",
    "tensor core",
    128,
    True,
    "NVIDIA Turing GPU Architecture whitepaper: RTX 2080 Ti FE 113.8 TFLOPS FP16-acc "
    "(56.9 FP32-acc) at 1635 MHz with 544 tensor cores -> 128 FLOP/clk/core; "
    "Quadro RTX 6000 130.5 TFLOPS at 1770 MHz with 576 cores, full rate with FP32 acc",
)
AMPERE_GA100 = MatrixRate(
    "nvidia-ampere-ga100",
    "tensor core",
    512,
    False,
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper: 312 TFLOPS dense FP16 at "
    "1410 MHz with 432 tensor cores -> 512 FLOP/clk/core",
)
AMPERE_GA10X = MatrixRate(
    "nvidia-ampere-ga10x",
    "tensor core",
    256,
    True,
    "NVIDIA Ampere GA102 GPU Architecture whitepaper: RTX 3090 142 TFLOPS dense FP16-acc "
    "(71 FP32-acc) at 1695 MHz with 328 tensor cores -> 256 FLOP/clk/core; RTX A6000 "
    "154.8 TFLOPS at 1800 MHz with 336 cores, full rate with FP32 acc",
)
# Orin's integrated GPU (GA10B) has GA100-class tensor cores: Jetson AGX Orin 64 GB,
# 170 sparse INT8 TOPS from the GPU at 1300 MHz with 64 tensor cores -> 512 FP16 FLOP/clk.
AMPERE_GA10B = MatrixRate(
    "nvidia-ampere-ga10b",
    "tensor core",
    512,
    False,
    "NVIDIA Jetson AGX Orin technical brief: 170 sparse INT8 TOPS (GPU) at 1300 MHz with "
    "64 tensor cores -> 512 FLOP/clk/core dense FP16",
)
ADA = MatrixRate(
    "nvidia-ada",
    "tensor core",
    256,
    True,
    "NVIDIA Ada GPU Architecture whitepaper: RTX 4090 330.3 TFLOPS dense FP16-acc "
    "(165.2 FP32-acc) at 2520 MHz with 512 tensor cores -> 256 FLOP/clk/core; "
    "RTX 6000 Ada full rate with FP32 acc",
)
HOPPER = MatrixRate(
    "nvidia-hopper",
    "tensor core",
    1024,
    False,
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper: H100 SXM5 989.4 TFLOPS dense "
    "FP16 at 1830 MHz with 528 tensor cores -> 1024 FLOP/clk/core",
)
BLACKWELL_DC = MatrixRate(
    "nvidia-blackwell-dc",
    "tensor core",
    2048,
    False,
    "NVIDIA Blackwell Architecture Technical Brief / HGX B200 datasheet: 2.25 PFLOPS "
    "dense FP16 per B200 with 148 SMs (592 tensor cores); NVIDIA gives no clock, "
    "2048 FLOP/clk/core (2x Hopper per SM) implies 1.86 GHz, consistent with the board",
)
BLACKWELL_RTX = MatrixRate(
    "nvidia-blackwell-rtx",
    "tensor core",
    256,
    True,
    "NVIDIA RTX Blackwell GPU Architecture whitepaper: RTX 5090 209.5 TFLOPS dense "
    "FP16 with FP32 acc (419 with FP16 acc) at 2407 MHz with 680 tensor cores -> "
    "256 FLOP/clk/core, half rate for FP32 accumulate on GeForce",
    # GB20x's SM is Ada's for matrix math: four tensor cores per SM at 256 dense FP16 FLOP/clk each,
    # half rate with FP32 accumulate on GeForce, with Blackwell's FP4/FP6 and GDDR7 besides (neither is
    # what mixed-precision training runs on). The GeForce boards share the Ada family's offset (fitted
    # mostly on Ada GeForce boards): fitted apart, it rested on one GeForce card beside two 600 W professional boards and put every
    # GeForce RTX 50 card below the Ada card it outclasses (docs/performance-log.md, "Shared offsets
    # and orderings across chips"). The professional boards stay apart: no Ada board runs the full-rate
    # tensor path at 600 W.
    shares_offset_with="nvidia-ada",
    shares_for_geforce_only=True,
)
CDNA1 = MatrixRate(
    "amd-cdna1",
    "compute unit",
    1024,
    False,
    "AMD CDNA Architecture whitepaper: Instinct MI100 184.6 TFLOPS FP16 matrix at "
    "1502 MHz with 120 CUs -> 1024 FLOP/clk/CU",
    # CDNA 1 and 2 share CDNA 3's fitted offset: the same MFMA matrix instructions through the same ROCm
    # libraries, and CDNA 3 is the one datacenter AMD generation measured here (MLPerf Training, MI300X and
    # MI325X). Without a measured card of their own they took the mean over every fitted AMD family, in
    # which two consumer RDNA cards measured by one harness weigh as much as MLPerf, and sat 12 % above
    # CDNA 3's level: the MI250X 44 % above the measured A100 SXM4 80 GB (docs/performance-log.md,
    # "Older CDNA boards on CDNA 3's offset").
    shares_offset_with="amd-cdna3",
)
CDNA2 = MatrixRate(
    "amd-cdna2",
    "compute unit",
    1024,
    False,
    "AMD CDNA 2 Architecture whitepaper: Instinct MI250X 383 TFLOPS FP16 matrix at "
    "1700 MHz with 220 CUs -> 1024 FLOP/clk/CU",
    shares_offset_with="amd-cdna3",  # as CDNA 1 (above)
)
CDNA3 = MatrixRate(
    "amd-cdna3",
    "compute unit",
    2048,
    False,
    "AMD CDNA 3 Architecture whitepaper: Instinct MI300X 1307.4 TFLOPS dense FP16 "
    "matrix at 2100 MHz with 304 CUs -> 2048 FLOP/clk/CU",
)
CDNA4 = MatrixRate(
    "amd-cdna4",
    "compute unit",
    4096,
    False,
    "AMD CDNA 4 Architecture whitepaper: Instinct MI355X 2.5 PFLOPS dense FP16 matrix "
    "at 2400 MHz with 256 CUs -> 4096 FLOP/clk/CU",
)
RDNA3 = MatrixRate(
    "amd-rdna3",
    "compute unit",
    512,
    False,
    "AMD Radeon RX 7900 XTX specifications: 122.8 TFLOPS peak FP16 at 2498 MHz with "
    "96 CUs -> 512 FLOP/clk/CU; AMD GPUOpen 'How to accelerate AI applications on "
    "RDNA 3 using WMMA': WMMA FP16 runs at this rate",
)
RDNA4 = MatrixRate(
    "amd-rdna4",
    "compute unit",
    1024,
    False,
    "AMD Radeon RX 9070 XT specifications: 389 TFLOPS FP16 matrix with sparsity "
    "(195 dense) at 2970 MHz with 64 CUs -> 1024 FLOP/clk/CU",
    # RDNA 4 keeps RDNA 3's WMMA path (AMD GPUOpen, "How to accelerate AI applications on RDNA 3 using
    # WMMA" and its RDNA 4 sequel) at twice the rate per CU. No RDNA 4 card is measured here: on the vendor
    # mean of the fitted offsets (GCN 5.1 and RDNA 1 measured at a fraction of their spec sheets) every RDNA
    # 4 card sat below RDNA 2 cards with a quarter of its matrix rate and less bandwidth.
    shares_offset_with="amd-rdna3",
)

MATRIX_RATES: tuple[MatrixRate, ...] = (
    VOLTA,
    TURING,
    AMPERE_GA100,
    AMPERE_GA10X,
    AMPERE_GA10B,
    ADA,
    HOPPER,
    BLACKWELL_DC,
    BLACKWELL_RTX,
    CDNA1,
    CDNA2,
    CDNA3,
    CDNA4,
    RDNA3,
    RDNA4,
)

# GA100 boards (A100, A30, A800, their PG5xx/GRID/DRIVE/CMP variants) share the
# "Ampere" label with GA10x cards in spec databases; the name tells them apart when
# the chip is not given.
_GA100_NAME = re.compile(r"\b(A100|A30|A800|PG506|CMP 170HX)", re.IGNORECASE)
_BLACKWELL_DC_NAME = re.compile(r"^(NVIDIA\s+)?G?B[123]00\b", re.IGNORECASE)


def _norm(text: str | None) -> str:
    return (text or "").strip().lower()


def matrix_rate(
    vendor: str | None,
    architecture: str | None,
    model: str,
    chip: str | None = None,
) -> MatrixRate | None:
    """The table row for a card, or None when its architecture has no matrix units
    or its rate is not published consistently enough to state."""
    arch = _norm(architecture)
    vend = _norm(vendor)
    chip_n = _norm(chip)
    if vend in ("amd", "ati") or arch.startswith(("cdna", "rdna")):
        if arch.startswith("cdna 4") or arch == "cdna4":
            return CDNA4
        if arch.startswith("cdna 3") or arch == "cdna3":
            return CDNA3
        if arch.startswith("cdna 2") or arch == "cdna2":
            return CDNA2
        if arch.startswith("cdna"):
            return CDNA1
        if arch.startswith("rdna 4") or arch == "rdna4":
            return RDNA4
        if arch.startswith("rdna 3") or arch == "rdna3":
            return RDNA3
        return None
    if arch == "volta":
        return VOLTA
    if arch == "turing":
        return TURING
    if arch == "ampere":
        if chip_n.startswith("ga100") or (not chip_n and _GA100_NAME.search(model)):
            return AMPERE_GA100
        if chip_n.startswith("ga10b") or (not chip_n and "orin" in model.lower()):
            return AMPERE_GA10B
        return AMPERE_GA10X
    if arch in ("ada lovelace", "ada"):
        return ADA
    if arch == "hopper":
        return HOPPER
    if arch in ("blackwell", "blackwell ultra"):
        # Jetson Thor (GB10B) is filed as "Blackwell" but its published figures do not
        # pin down a per-core rate; better no number than a wrong one.
        if chip_n.startswith(("gb100", "gb110", "gb102")) or _BLACKWELL_DC_NAME.search(model):
            return BLACKWELL_DC
        return None
    if arch in ("blackwell 2.0", "blackwell rtx"):
        return BLACKWELL_RTX
    return None


# Pascal's GP100 (Tesla P100, Quadro GP100) is another chip than the GP102-GP108 of the GeForce,
# TITAN X/Xp and Tesla P40/P4 cards: 64 FP32 cores per SM instead of 128, HBM2, paired FP16 at twice
# the FP32 rate instead of 1/64 (NVIDIA Tesla P100 whitepaper, "Pascal GP100 architecture"). Measured
# GP102 cards say nothing about it, so it is a family of its own.
_GP100_NAME = re.compile(r"\b(G?P100)\b", re.IGNORECASE)


# Families without matrix units whose boards share another family's fitted offset, each with why.
_SHARED_OFFSETS: dict[str, str] = {
    # Vega 10 (GCN 5.0: RX Vega, Radeon Pro WX 8200/9100, Instinct MI25) and Vega 20 (GCN 5.1: Radeon VII,
    # Instinct MI50/MI60, Radeon Pro VII) share the NCU; Vega 20 is the 7 nm shrink with FP64 and dot
    # products added. Apart, the unmeasured Vega 10 boards took the vendor mean and sat 2.5x above the
    # measured MI50 that outclasses them.
    "amd-gcn 5.0": "amd-gcn 5.1",
    # Turing's TU11x (GTX 16, T400-T1000) has no tensor cores and runs mixed precision on its FP32 shader
    # path as Pascal's GP10x does (``TURING_TU11X``), so it shares Pascal's offset, not that of the Turing
    # boards whose tensor cores the Turing offset was fitted on.
    "nvidia-turing-tu11x": "nvidia-pascal",
}


def offset_family(family: str) -> str:
    """The family whose fitted offset a family without matrix units shares (itself where none)."""
    return _SHARED_OFFSETS.get(family, family)


def is_gp100(model: str, chip: str | None = None) -> bool:
    """The GP100 chip, by its name where the catalog gives it, else by the boards built on it."""
    if chip:
        return _norm(chip).startswith("gp100")
    return bool(_GP100_NAME.search(model))


@dataclass(frozen=True)
class HalfRate:
    """What one chip without matrix units does with FP16, as a multiple of its FP32 rate, and the rate
    mixed-precision training runs at on it, with the document each comes from."""

    key: str
    native_fp16_per_fp32: float  # the FP16 arithmetic rate the vendor states, over the FP32 rate
    training_per_fp32: float  # the rate mixed-precision training runs at, over the FP32 rate
    source: str


PASCAL_GP100 = HalfRate(
    "nvidia-pascal-gp100",
    2.0,
    2.0,
    "NVIDIA Tesla P100 whitepaper ('NVIDIA Tesla P100', WP-08019-001), Table 1: Tesla P100 SXM2 "
    "10.6 TFLOPS FP32, 21.2 TFLOPS FP16; section 'Pascal GP100 architecture': paired FP16 "
    "instructions at twice the FP32 rate, the rate NVIDIA states for deep-learning training; "
    "cuDNN runs half-precision convolutions on GP100 at it",
)
PASCAL_GP10X = HalfRate(
    "nvidia-pascal",
    1 / 64,
    1.0,
    "NVIDIA Tesla P40 datasheet and GeForce GTX 1080 whitepaper (GP104): FP16 at 1/64 of FP32 on "
    "GP102-GP108 (P40: 12 TFLOPS FP32, 0.19 TFLOPS FP16); frameworks compute FP16 GEMMs and "
    "convolutions there in FP32 (CUBLAS_COMPUTE_32F), so mixed precision trains at the FP32 rate: "
    "Lambda measured the GTX 1080 Ti at 0.26 of an RTX 3090 at fp16 and 0.33 at fp32, not 1/64",
)
TURING_TU11X = HalfRate(
    "nvidia-turing-tu11x",
    2.0,
    1.0,
    "NVIDIA Turing GPU Architecture whitepaper, 'Turing TU116' (GTX 16 series): no tensor cores, "
    "dedicated FP16 units at twice the FP32 rate with FP16 accumulation; FP32-accumulate GEMMs run "
    "at the FP32 rate",
)
HALF_RATES: tuple[HalfRate, ...] = (PASCAL_GP100, PASCAL_GP10X, TURING_TU11X)


def fp16_training_tflops(vendor: str | None, fp32_tflops: float | None, fp16_tflops: float | None,
                         *, gp100: bool = False) -> float | None:
    """The rate mixed-precision training runs at on a chip without matrix units.

    Automatic mixed precision multiplies FP16 inputs and accumulates in FP32 (PyTorch asks cuBLAS
    for FP32 compute in its half-precision GEMMs). NVIDIA chips without tensor cores run that at the
    rate of ``HALF_RATES``: GP102-GP108 (GTX 10, TITAN X/Xp, Tesla P40/P4), whose own FP16 runs at
    1/64, and TU11x (GTX 16), whose doubled FP16 accumulates in FP16, at the FP32 rate; GP100 (Tesla
    P100, Quadro GP100, ``gp100``) at its doubled FP16 rate. AMD chips keep the higher of the two
    (GCN 5 and RDNA have FP16 dot products that accumulate in FP32); no measured card tells them
    apart here.
    """
    if _norm(vendor) == "nvidia":
        if gp100 and fp32_tflops:
            return fp32_tflops * PASCAL_GP100.training_per_fp32
        return fp32_tflops
    candidates = [v for v in (fp32_tflops, fp16_tflops) if v]
    return max(candidates) if candidates else None


def is_geforce(model: str) -> bool:
    """GeForce-branded boards get the halved FP32-accumulate rate; TITAN RTX does not."""
    return "geforce" in model.lower()


def tensor_fp16_tflops(
    vendor: str | None,
    architecture: str | None,
    model: str,
    tensor_cores: int | None,
    boost_clock_mhz: float | None,
    *,
    chip: str | None = None,
    compute_units: int | None = None,
) -> float | None:
    """Dense FP16-input matrix TFLOPS at the boost clock, with FP32 accumulation for
    GeForce cards; None when the card has no matrix units or the inputs are missing.

    ``compute_units`` is needed for AMD only (spec databases give no tensor-core count
    for AMD; compute units are shading units / 64).
    """
    rate = matrix_rate(vendor, architecture, model, chip)
    if rate is None or not boost_clock_mhz or boost_clock_mhz <= 0:
        return None
    units = compute_units if rate.unit == "compute unit" else tensor_cores
    if not units or units <= 0:
        return None
    per_clock = rate.flops_per_clock
    if rate.geforce_fp32_acc_halved and is_geforce(model):
        per_clock //= 2
    return round(units * per_clock * boost_clock_mhz * 1e6 / 1e12, 1)
