"""How many examples a property test draws: its full budget in a run that includes the e2e tests
(`uv run pytest`, what CI runs), a quarter of it in the fast tier (`-m "not e2e"`), which is the
edit-and-test loop and has a minute for everything. Every property still runs in the fast tier,
on fewer random inputs; the full suite draws them all.

Import it as ``property_budget`` (tests/ is on the path), never as ``tests.property_budget``: the
two names would be two modules, and only this one is told the tier (conftest.pytest_configure,
before any test module is imported).
"""

from __future__ import annotations

FAST_TIER = False
FAST_SHARE = 4  # the fast tier draws a quarter of each budget...
MIN_EXAMPLES = 10  # ...and never fewer than this
DEFAULT_EXAMPLES = 100  # Hypothesis's own default, for tests that set no budget


def examples(full: int) -> int:
    """The examples to draw for a property whose full budget is ``full``."""
    return max(MIN_EXAMPLES, full // FAST_SHARE) if FAST_TIER else full
