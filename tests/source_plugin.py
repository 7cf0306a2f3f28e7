"""A test-only source module in a folder outside the tree, found by the registry as a shipped one is.

Tests that show a new source needs no edit outside its module write its text to a temporary folder,
put that folder on the sources package's path and read the registry afresh; ``installed_source``
undoes all of it when the test ends.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gpuvalue.scrapers import registry
from gpuvalue.scrapers import sources as sources_package


@contextmanager
def installed_source(folder: Path, monkeypatch: pytest.MonkeyPatch, module: str, text: str, name: str) -> Iterator:
    """The source ``name`` of module ``module`` (its ``text``), registered for the ``with`` block."""
    folder.mkdir()
    (folder / f"{module}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.setattr(sources_package, "__path__", [*sources_package.__path__, str(folder)])
    registry._registry.cache_clear()
    try:
        yield registry.get(name)
    finally:
        monkeypatch.undo()
        sys.modules.pop(f"{sources_package.__name__}.{module}", None)
        registry._registry.cache_clear()
