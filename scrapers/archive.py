"""The raw archive: every response body the pipeline parses, kept so a fixed parser can re-read history.

One format serves both the raw archive beside the database and the replay archive shipped in the
package: a folder holding an index (one JSON object per fetch: url, status, fetched_at, sha256,
selected headers, source) and ``bodies/<aa>/<sha256>.gz``. The raw archive appends to one
``index.jsonl``; the replay archive keeps one index per source, ``sources/<source>.jsonl``, so
recording a source writes its own file and its bodies and no other source's. A reader reads both.
Bodies are deduplicated by content hash, so a spec page that did not change costs one index line a
day, not one body.
Appends write the body first (temp file and rename) and the index line last, so a crash leaves at
worst an unreferenced body or a torn last line, which readers skip.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from gpuvalue.models.records import FetchedPage
from gpuvalue.scrapers.bounded import DEFAULT_MAX_DECOMPRESSED_MB, MB, TooLarge, gunzip_bounded, limit_bytes

# Response headers worth keeping; anything that may carry credentials or cookies is never stored.
KEPT_HEADERS = ("content-type", "etag", "last-modified", "date", "content-length")

# The folder of per-source indexes (the replay archive's layout): ``sources/<source>.jsonl``.
SOURCE_INDEXES = "sources"


@dataclass(frozen=True)
class ArchiveEntry:
    source: str
    url: str
    status: int
    fetched_at: datetime
    sha256: str
    content_type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    note: str | None = None  # provenance for recordings that were derived, not fetched


class TamperedBody(ValueError):
    """An archived body that is not what its index line recorded."""

    def __init__(self, sha: str, why: str) -> None:
        super().__init__(f"the archived body {sha[:12]}... {why}")
        self.sha = sha


def sha256_hex(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def _parse_time(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


class Archive:
    """A folder of archived responses. Thread-safe for appends within one process."""

    def __init__(self, root: str | Path, *, max_body_bytes: int = limit_bytes(DEFAULT_MAX_DECOMPRESSED_MB)) -> None:
        self.root = Path(root)
        self.max_body_bytes = max_body_bytes
        self._lock = threading.Lock()

    @property
    def index_path(self) -> Path:
        return self.root / "index.jsonl"

    def source_index_path(self, source: str) -> Path:
        """Where one source's own index lives (``sources/<source>.jsonl``)."""
        if not source or "/" in source or "\\" in source or source.startswith("."):
            raise ValueError(f"not a source name for an index file: {source!r}")
        return self.root / SOURCE_INDEXES / f"{source}.jsonl"

    def index_paths(self) -> list[Path]:
        """Every index of the archive: ``index.jsonl``, then each source's, by name."""
        folder = self.root / SOURCE_INDEXES
        own = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
        return ([self.index_path] if self.index_path.exists() else []) + own

    def body_path(self, sha: str) -> Path:
        return self.root / "bodies" / sha[:2] / f"{sha}.gz"

    def put(self, page: FetchedPage, *, headers: dict[str, str] | None = None, note: str | None = None,
            own_index: bool = False) -> ArchiveEntry:
        """Store a page's body (once per content) and append its index line: to ``index.jsonl``, or with
        ``own_index`` to its source's own index (``sources/<source>.jsonl``, as the replay build writes)."""
        sha = page.sha256 or sha256_hex(page.body)
        kept = {k.lower(): v for k, v in (headers or {}).items() if k.lower() in KEPT_HEADERS}
        entry = ArchiveEntry(
            source=page.source,
            url=page.url,
            status=page.status,
            fetched_at=page.fetched_at,
            sha256=sha,
            content_type=page.content_type,
            headers=kept,
            note=note,
        )
        with self._lock:
            path = self.body_path(sha)
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".tmp{os.getpid()}")
                with open(tmp, "wb") as fh:
                    # mtime=0 keeps the compressed bytes reproducible.
                    fh.write(gzip.compress(page.body, compresslevel=6, mtime=0))
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, path)
            index = self.source_index_path(page.source) if own_index else self.index_path
            index.parent.mkdir(parents=True, exist_ok=True)
            line = json.dumps(
                {
                    "source": entry.source,
                    "url": entry.url,
                    "status": entry.status,
                    "fetched_at": entry.fetched_at.astimezone(timezone.utc).isoformat(),
                    "sha256": entry.sha256,
                    "content_type": entry.content_type,
                    "headers": entry.headers,
                    **({"note": note} if note else {}),
                },
                sort_keys=True,
            )
            with open(index, "ab+") as fh:
                fh.seek(0, os.SEEK_END)
                if fh.tell() > 0:
                    fh.seek(-1, os.SEEK_END)
                    if fh.read(1) != b"\n":  # a torn last line from a crash: never glue onto it
                        fh.write(b"\n")
                fh.write(line.encode("utf-8") + b"\n")
                fh.flush()
                os.fsync(fh.fileno())
        return entry

    def entries(self) -> Iterator[ArchiveEntry]:
        for index in self.index_paths():
            yield from self._entries(index)

    @staticmethod
    def _entries(index: Path) -> Iterator[ArchiveEntry]:
        with open(index, encoding="utf-8") as fh:
            for line in fh:
                try:
                    d = json.loads(line)
                    yield ArchiveEntry(
                        source=d["source"],
                        url=d["url"],
                        status=int(d["status"]),
                        fetched_at=_parse_time(d["fetched_at"]),
                        sha256=d["sha256"],
                        content_type=d.get("content_type"),
                        headers=d.get("headers") or {},
                        note=d.get("note"),
                    )
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line from a crash mid-append

    def read_body(self, sha: str) -> bytes:
        """The body stored under ``sha``, checked against it: a body changed after it was archived (or
        a recording edited by hand) raises TamperedBody rather than being parsed as what was fetched."""
        with open(self.body_path(sha), "rb") as fh:
            compressed = fh.read()
        try:
            body = gunzip_bounded(compressed, self.max_body_bytes)
        except TooLarge:
            raise TamperedBody(sha, f"expands past the {self.max_body_bytes / MB:g} MB limit "
                                    "(GPUVALUE_MAX_DECOMPRESSED_MB)") from None
        except (OSError, EOFError, zlib.error) as exc:
            raise TamperedBody(sha, f"does not decompress ({exc})") from None
        actual = sha256_hex(body)
        if actual != sha:
            raise TamperedBody(sha, f"has sha256 {actual[:12]}..., not the one its index line records")
        return body

    def page(self, entry: ArchiveEntry) -> FetchedPage:
        return FetchedPage(
            source=entry.source,
            url=entry.url,
            status=entry.status,
            fetched_at=entry.fetched_at,
            sha256=entry.sha256,
            body=self.read_body(entry.sha256),
            content_type=entry.content_type,
        )

    def latest_by_url(self) -> dict[str, ArchiveEntry]:
        latest: dict[str, ArchiveEntry] = {}
        for e in self.entries():
            prev = latest.get(e.url)
            if prev is None or e.fetched_at >= prev.fetched_at:
                latest[e.url] = e
        return latest

    def sources(self) -> set[str]:
        return {e.source for e in self.entries()}
