"""Builds the shipped replay archive from saved real pages.

Usage: ``python -m gpuvalue.scrapers.replay_build FIXTURES_DIR [OUT_DIR]`` where FIXTURES_DIR holds
the saved pages (specs/, listings/, perf/, cloud/, prices/) described in the archive's PROVENANCE.md.
Each source's module says which pages it records (``Source.replay``); every recording is stored under
the exact URL the live code requests, with its capture date as ``fetched_at``, so a replay run never
presents an old price as today's.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from gpuvalue.scrapers import registry
from gpuvalue.scrapers.archive import Archive


def build(fixtures: Path, out: Path, only: tuple[str, ...] | None = None) -> Archive:
    """Write every source's recordings (or only those of ``only``, keeping the others') to ``out``."""
    kept = []
    if out.exists():
        if only:
            old = Archive(out)
            kept = [(e, old.page(e)) for e in old.entries() if e.source not in only]
        for child in ("index.jsonl", "bodies"):
            p = out / child
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
    archive = Archive(out)
    for entry, page in kept:
        archive.put(page, headers={"content-type": page.content_type or ""}, note=entry.note)
    for name, src in registry.all_sources().items():
        if src.replay is None or (only and name not in only):
            continue
        for rec in src.replay(fixtures):
            ct = rec.page.content_type or "application/octet-stream"
            archive.put(rec.page, headers={"content-type": ct}, note=rec.provenance)
    return archive


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    from gpuvalue.scrapers.replay import packaged_replay_dir

    out = Path(argv[1]) if len(argv) > 1 else packaged_replay_dir()
    only = tuple(argv[2].split(",")) if len(argv) > 2 else None
    archive = build(Path(argv[0]), out, only)
    print(f"wrote {sum(1 for _ in archive.entries())} recordings to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
