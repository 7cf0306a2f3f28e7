"""Bodies and validators of earlier responses, so a daily run can ask "changed since?".

One pair of files per URL, named by the sha256 of the URL: ``<key>.json`` (validators,
content type, body digest) and ``<key>.body``. The body is written before its metadata
and both by atomic rename, so a crash leaves either the old entry or the new one; an
entry whose body does not match its digest is treated as absent. Only validators are
kept from the response headers, never request headers, so no credential reaches disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CachedResponse:
    url: str
    body: bytes
    etag: str | None
    last_modified: str | None
    content_type: str | None

    def conditional_headers(self) -> dict[str, str]:
        headers = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


class ConditionalCache:
    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def lookup(self, url: str) -> CachedResponse | None:
        meta_path, body_path = self._paths(url)
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            body = body_path.read_bytes()
        except (OSError, ValueError):
            return None
        if meta.get("url") != url or hashlib.sha256(body).hexdigest() != meta.get("sha256"):
            return None
        if not (meta.get("etag") or meta.get("last_modified")):
            return None
        return CachedResponse(
            url=url,
            body=body,
            etag=meta.get("etag"),
            last_modified=meta.get("last_modified"),
            content_type=meta.get("content_type"),
        )

    def store(
        self, url: str, *, body: bytes, etag: str | None, last_modified: str | None, content_type: str | None
    ) -> None:
        if not (etag or last_modified):
            self.forget(url)
            return
        meta_path, body_path = self._paths(url)
        meta = {
            "url": url,
            "etag": etag,
            "last_modified": last_modified,
            "content_type": content_type,
            "sha256": hashlib.sha256(body).hexdigest(),
        }
        _write_atomically(body_path, body)
        _write_atomically(meta_path, json.dumps(meta, sort_keys=True).encode("utf-8"))

    def forget(self, url: str) -> None:
        for path in self._paths(url):
            path.unlink(missing_ok=True)

    def _paths(self, url: str) -> tuple[Path, Path]:
        key = hashlib.sha256(url.encode("utf-8")).hexdigest()
        return self.directory / f"{key}.json", self.directory / f"{key}.body"


def _write_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
