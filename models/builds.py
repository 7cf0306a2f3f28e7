"""A setup is a build: N identical cards and the machine that holds, feeds and powers them.

A recommendation that names 3x RTX 5090 must also name the machine around them and whether it can
run at all. This module answers, for N cards of one model:

* the **platform**: what the machine costs beyond the cards, by card count (``PlatformCosts``, each a
  setting). One card goes into the buyer's existing desktop ($0 unless they say otherwise); two cards
  need a desktop with a larger power supply and a board with two x8 slots; three or four a
  workstation platform (a board with four x16 slots, a CPU with the lanes for them, a 1,600 W supply).
  The defaults are priced from their parts in ``docs/recommend.md`` ("The machine around the cards");
* the **power**: each card draws its board power (``tdp_w``) or, where that would exceed the limit,
  a power limit of ``POWER_LIMITED_SHARE`` of it set with ``nvidia-smi -pl``, at
  ``POWER_LIMITED_SPEED`` of its speed (Puget Systems measured four RTX 3090s limited from 350 W to
  280 W at over 95% of their full speed, 2020-11-13); the platform draws ``platform_w``; the whole
  system stays within ``power_limit_w``: one 1,600 W power supply on one 120 V 15 A household circuit,
  which sustains 1,440 W (the 80% rule for continuous loads), unless a setting raises it, and a
  two-card desktop within the ``TWO_CARDS_SUPPLY_W`` supply its default price buys (a machine the buyer
  prices with ``--platform-cost`` is taken to have the supply its cards need);
* the **slots**: side by side, two cards of up to three slots fit a desktop board whose x8 slots are
  three apart, and three or four cards need dual-slot (or blower) cards on a workstation board whose
  slots are two apart; wider cards, or cards of unknown width, need a riser build (an open frame and
  a riser cable a card, ``RISER_USD`` each), which the answer says.

Pure: numbers in, a ``Build`` (or None where no build can run the cards) out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

POWER_SUPPLY_W = 1600  # the largest common ATX power supply
CIRCUIT_CONTINUOUS_W = 1440  # a 120 V 15 A household circuit under a continuous load (80% of 1,800 W)
DEFAULT_POWER_LIMIT_W = min(POWER_SUPPLY_W, CIRCUIT_CONTINUOUS_W)
POWER_LIMITED_SHARE = 0.8  # 350 W -> 280 W on an RTX 3090
POWER_LIMITED_SPEED = 0.95  # Puget Systems, "Quad RTX3090 GPU Wattage Limited MaxQ" (2020): over 95% at 280 W
RISER_USD = 60.0  # a PCIe 4.0 riser cable a card, and the open frame shared
DESKTOP_W = 150.0  # CPU, board, memory, drives and fans of a desktop under a training load
WORKSTATION_W = 250.0  # the same of a workstation platform (a many-lane CPU, more fans)
DEFAULT_ONE_CARD_USD = 0.0  # the buyer's existing desktop
DEFAULT_TWO_CARDS_USD = 350.0  # a 1,200 W power supply and a board with two x8 slots, over a mainstream desktop
TWO_CARDS_SUPPLY_W = 1200  # the power supply that price buys: two cards and the desktop stay within it
DEFAULT_WORKSTATION_USD = 2000.0  # used workstation board, CPU, 128 GB memory, 1,600 W supply, case
# A desktop able to hold one training card (CPU, board, 32 GB, 850 W supply, case), new: what the buyer's
# existing one stands for when rent or buy shares its value lost with the hours a single card trains.
EXISTING_DESKTOP_USD = 1_000.0

POWER_TOOLS = {"nvidia": "nvidia-smi -pl", "amd": "amd-smi set --power-cap", "intel": "xpu-smi config --powerlimit"}
SLOTS = {"single-slot": 1, "dual-slot": 2, "triple-slot": 3, "quad-slot": 4}
SIDE_BY_SIDE = {1: 4, 2: 3, 3: 2, 4: 2}  # the widest card that fits N side by side; more than 4: single-slot


@dataclass(frozen=True)
class PlatformCosts:
    """What the machine around N cards costs: by count (the defaults), or a custom line when the buyer
    gives ``--platform-cost`` (once a setup) and ``--extra-gpu-cost`` (each card beyond the first)."""

    one_card_usd: float = DEFAULT_ONE_CARD_USD
    two_cards_usd: float = DEFAULT_TWO_CARDS_USD
    workstation_usd: float = DEFAULT_WORKSTATION_USD
    custom_base_usd: float | None = None
    custom_extra_usd: float = 0.0

    def __post_init__(self) -> None:
        values = (self.one_card_usd, self.two_cards_usd, self.workstation_usd, self.custom_base_usd or 0.0,
                  self.custom_extra_usd)
        if not all(v >= 0 for v in values):
            raise ValueError("platform costs must be 0 or more")

    @property
    def custom(self) -> bool:
        return self.custom_base_usd is not None

    def usd(self, gpus: int) -> float:
        if self.custom_base_usd is not None:
            return self.custom_base_usd + self.custom_extra_usd * (gpus - 1)
        return self.one_card_usd if gpus == 1 else self.two_cards_usd if gpus == 2 else self.workstation_usd

    def supply_w(self, gpus: int) -> float | None:
        """The power supply the default machine for N cards buys, where it is below the circuit's limit
        (the two-card desktop's); None where the machine is the buyer's own figure or has the supply it needs."""
        return None if self.custom or gpus != 2 else float(TWO_CARDS_SUPPLY_W)

    def platform(self, gpus: int) -> str:
        """The kind of machine N cards need."""
        if gpus == 1:
            return "the buyer's desktop" if not self.custom and self.one_card_usd == 0 else "a desktop"
        return "a desktop with two x8 slots and a larger power supply" if gpus == 2 else "a workstation platform"

    def words(self) -> str:
        if self.custom_base_usd is not None:
            extra = f" and ${self.custom_extra_usd:,.0f} for each card beyond the first" if self.custom_extra_usd else ""
            return f"the machine: ${self.custom_base_usd:,.0f} a setup{extra} (--platform-cost, --extra-gpu-cost)"
        one = "the buyer's existing desktop ($0)" if self.one_card_usd == 0 else f"${self.one_card_usd:,.0f}"
        return (f"the machine: one card in {one}, two in a desktop with two x8 slots and a larger power supply "
                f"(${self.two_cards_usd:,.0f}), three or four on a workstation platform (${self.workstation_usd:,.0f}) "
                "(GPUVALUE_PLATFORM_TWO_GPUS_USD, GPUVALUE_PLATFORM_WORKSTATION_USD; --platform-cost sets your own)")


@dataclass(frozen=True)
class Build:
    gpus: int
    platform_usd: float
    riser_usd: float
    card_power_w: float | None  # what each card draws: its board power, or its power limit
    power_limited: bool
    system_power_w: float | None  # the cards and the platform; None where the board power is unknown
    power_limit_w: float
    slot_width: int | None
    riser: bool
    speed: float  # 1.0, or POWER_LIMITED_SPEED when the cards are power-limited
    platform: str

    def words(self, board_w: float | None, vendor: object = None) -> list[str]:
        """What the answer says about the build: its power and, where needed, its power limit (with the
        vendor's tool that sets it) and risers."""
        out = []
        if self.system_power_w is None:
            out.append(f"board power unknown: check that {self.gpus} card(s) and the machine stay within "
                       f"{self.power_limit_w:,.0f} W")
        elif self.power_limited and board_w:
            out.append(f"power: each card limited to {self.card_power_w:,.0f} W of its {board_w:,.0f} W "
                       f"({POWER_TOOLS.get(str(vendor or '').lower(), POWER_TOOLS['nvidia'])}; about {1 - self.speed:.0%} slower, as Puget Systems measured on RTX 3090s, 2020) so that the system "
                       f"draws {self.system_power_w:,.0f} W, within {self.power_limit_w:,.0f} W")
        elif self.gpus > 1:
            out.append(f"power: {self.gpus} x {self.card_power_w:,.0f} W and {self.system_power_w - self.gpus * (self.card_power_w or 0):,.0f} W "
                       f"for the machine = {self.system_power_w:,.0f} W, within {self.power_limit_w:,.0f} W")
        if self.riser:
            names = {v: k for k, v in SLOTS.items()}
            width = f"{names[self.slot_width]} cards" if self.slot_width in names else "cards of unknown width"
            out.append(f"slots: {self.gpus} {width} do not fit side by side: a riser build (open frame, one "
                       f"riser cable a card, ${self.riser_usd:,.0f} counted), or blower versions of the card")
        elif self.gpus >= 3:
            names = {v: k for k, v in SLOTS.items()}
            out.append(f"slots: {self.gpus} {names.get(self.slot_width or 2, 'dual-slot')} cards side by side on the "
                       "workstation board")
        return out


def slot_width(text: object) -> int | None:
    """The catalog's ``slot_width`` ("Dual-slot") as a number of slots; None where unknown."""
    if not isinstance(text, str):
        return None
    key = re.sub(r"\s+", "-", text.strip().lower())
    return SLOTS.get(key)


def platform_w(gpus: int) -> float:
    return DESKTOP_W if gpus <= 2 else WORKSTATION_W


def build(gpus: int, *, board_w: float | None, width: int | None, costs: PlatformCosts,
          power_limit_w: float = DEFAULT_POWER_LIMIT_W) -> Build | None:
    """The build that runs ``gpus`` cards of ``board_w`` watts and ``width`` slots, or None where even
    power-limited cards draw more than ``power_limit_w``."""
    if gpus < 1:
        raise ValueError("gpus must be at least 1")
    base_w = platform_w(gpus)
    supply = costs.supply_w(gpus)
    if supply is not None:
        power_limit_w = min(power_limit_w, supply)
    limited = False
    card_w = float(board_w) if board_w else None
    system = None
    speed = 1.0
    if card_w is not None:
        system = gpus * card_w + base_w
        if system > power_limit_w + 1e-9:
            card_w = card_w * POWER_LIMITED_SHARE
            system = gpus * card_w + base_w
            limited, speed = True, POWER_LIMITED_SPEED
            if system > power_limit_w + 1e-9:
                return None
    widest = SIDE_BY_SIDE.get(gpus, 1)
    riser = gpus > 1 and (width is None or width > widest)
    riser_usd = RISER_USD * gpus if riser else 0.0
    return Build(gpus=gpus, platform_usd=costs.usd(gpus), riser_usd=riser_usd, card_power_w=card_w,
                 power_limited=limited, system_power_w=system, power_limit_w=float(power_limit_w), slot_width=width,
                 riser=riser, speed=speed, platform=costs.platform(gpus))


def power_rule_words(power_limit_w: float) -> str:
    """The power rule, as every answer with more than one card states it."""
    if power_limit_w == DEFAULT_POWER_LIMIT_W:
        where = (f"one {POWER_SUPPLY_W:,} W power supply on one 120 V 15 A household circuit "
                 f"({CIRCUIT_CONTINUOUS_W:,} W continuous)")
    else:
        where = "GPUVALUE_POWER_LIMIT_W"
    return (f"power: the cards and the machine ({DESKTOP_W:.0f} W desktop, {WORKSTATION_W:.0f} W workstation) draw at most "
            f"{power_limit_w:,.0f} W, {where}, and two cards at most the {TWO_CARDS_SUPPLY_W:,} W of the two-card "
            f"desktop's power supply; cards over it are power-limited to {POWER_LIMITED_SHARE:.0%} of their "
            f"board power at {POWER_LIMITED_SPEED:.0%} of their speed, or the setup is not offered")
