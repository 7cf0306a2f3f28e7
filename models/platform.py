"""The machine around the cards: what it costs by card count, and what an existing desktop is worth.

Rent or buy counts the machine on the buy side as a rented hour counts it on the rent side
(``models/rent_vs_buy.py``, ``Machine``): one card goes in the buyer's existing desktop unless they
say otherwise, and that desktop shares its value lost and its own power draw with the hours it
trains; a machine bought for the cards (``--platform-cost``, or ``platform_usd`` above zero) is
bought, spent from the budget and resold like the cards.

``platform_usd`` is the one place rent or buy reads the platform rule from.
"""

from __future__ import annotations

# The machine a buyer adds for N identical cards, USD. One card: the buyer's existing desktop (nothing
# bought). Two: a desktop with a large enough supply and two x8 slots; three or four: a workstation
# platform (board with four x16 slots, CPU with the lanes, 1,600 W supply, open frame or tower).
PLATFORM_USD_BY_GPUS = {1: 0.0, 2: 1_200.0, 3: 2_500.0, 4: 2_500.0}
# A desktop able to hold one training card (CPU, board, 32 GB, 850 W supply, case), new: what the
# existing one stands for when a single card goes in it.
EXISTING_DESKTOP_USD = 1_000.0
# What the machine around the cards draws while they train (CPU, board, memory, drives, fans), W.
PLATFORM_POWER_W = 100.0


def platform_usd(gpus: int) -> float:
    """The machine bought around ``gpus`` identical cards, USD: 0 for one (the buyer's own desktop)."""
    if gpus < 1:
        raise ValueError(f"gpus must be at least 1, not {gpus}")
    return PLATFORM_USD_BY_GPUS.get(gpus, PLATFORM_USD_BY_GPUS[max(PLATFORM_USD_BY_GPUS)])
