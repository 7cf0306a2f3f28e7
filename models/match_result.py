"""What the title matcher (models/matching.py) answers for one listing title.

A plain frozen record, not one of models/records.py's pydantic models: `gpuvalue perf MODEL` and
`gpus` read a query as a title, and importing pydantic for that one answer cost them more than
their queries. models/records.py names it among the shared contracts.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class MatchResult:
    """A title matched to one canonical model, or None with the reason why not."""

    model: str | None
    reason: str
