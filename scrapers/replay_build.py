"""Builds the shipped replay archive from saved real pages.

Usage: ``python -m gpuvalue.scrapers.replay_build FIXTURES_DIR [OUT_DIR [SOURCE,...]]`` where
FIXTURES_DIR holds the saved pages (specs/, listings/, perf/, cloud/, prices/, fx/) described in the
archive's PROVENANCE.md. Each source's module says which pages it records (``Source.replay``); every
recording is stored under the exact URL the live code requests, with its capture date as
``fetched_at``, so a replay run never presents an old price as today's. Each source's recordings go
to its own index, ``sources/<source>.jsonl``: naming sources rewrites theirs only, and a body no
index refers to any more is removed.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from gpuvalue.scrapers import registry
from gpuvalue.scrapers.archive import SOURCE_INDEXES, Archive


def build(fixtures: Path, out: Path, only: tuple[str, ...] | None = None) -> Archive:
    """Write every source's recordings (or only those of ``only``, keeping the others') to ``out``."""
    archive = Archive(out)
    if only:
        split_index(archive)
    else:  # everything again: no index or body of a former build is kept
        for child in ("index.jsonl", SOURCE_INDEXES, "bodies"):
            p = out / child
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
    for name, src in registry.all_sources().items():
        if src.replay is None or (only and name not in only):
            continue
        archive.source_index_path(name).unlink(missing_ok=True)
        for rec in src.replay(fixtures):
            if rec.page.source != name:
                raise ValueError(f"{name}'s replay yields a page of {rec.page.source!r}")
            ct = rec.page.content_type or "application/octet-stream"
            archive.put(rec.page, headers={"content-type": ct}, note=rec.provenance, own_index=True)
    prune_bodies(archive)
    return archive


def split_index(archive: Archive) -> int:
    """An archive of one ``index.jsonl`` (as the replay archive was before it kept one index per source)
    split into its sources' own indexes, each line unchanged and in its order; how many lines moved.
    A line that does not read (torn by a crash) is dropped, as readers skip it."""
    if not archive.index_path.exists():
        return 0
    import json

    by_source: dict[str, list[str]] = {}
    for line in archive.index_path.read_text(encoding="utf-8").splitlines():
        try:
            source = json.loads(line)["source"]
        except (ValueError, KeyError, TypeError):
            continue
        by_source.setdefault(str(source), []).append(line + "\n")
    for source, lines in by_source.items():
        path = archive.source_index_path(source)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.writelines(lines)
    archive.index_path.unlink()
    return sum(len(lines) for lines in by_source.values())


def prune_bodies(archive: Archive) -> int:
    """Remove the bodies no index line refers to (a rebuilt source's former pages); how many."""
    referenced = {e.sha256 for e in archive.entries()}
    removed = 0
    for body in sorted((archive.root / "bodies").glob("*/*.gz")):
        if body.name.removesuffix(".gz") not in referenced:
            body.unlink()
            removed += 1
    return removed


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
