"""The cards the listing sources shop for: the coverage rule over the stored catalog.

A module of its own, light to import: `rank` and `coverage` read it and only read, and the
pipeline module it used to live in imports pyarrow and every source (flows/cli/cli_app.py).
"""

from __future__ import annotations

from gpuvalue.models.coverage import CoverageRule, covered
from gpuvalue.warehouse import queries


def coverage(con, settings):
    """The cards the listing sources shop for, by the coverage rule over the stored catalog
    (``models/coverage.py``) and the settings' additions and removals."""
    rule = CoverageRule(min_memory_gb=settings.coverage_min_memory_gb, add=tuple(settings.coverage_add),
                        remove=tuple(settings.coverage_remove))
    return covered(queries.coverage_catalog(con), rule)
