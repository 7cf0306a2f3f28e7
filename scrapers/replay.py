"""Replay: the live code path served from recorded responses instead of the network.

``gpuvalue run --replay`` builds the same PoliteClient as a live run and only swaps its httpx
transport for this one, so replay exercises exactly the fetching, parsing and loading code that
runs in production. Scope is explicit: a recorded URL is served with its recorded status and body;
robots.txt that was not recorded is answered 404 (which allows all), and OAuth token exchanges are
answered with a dummy token, so credentials in the environment never cause a network call; any
other URL raises NotRecordedError naming it.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from gpuvalue.scrapers.archive import Archive, ArchiveEntry
from gpuvalue.scrapers.errors import NotRecordedError
from gpuvalue.scrapers.http import RECORDED_AT_EXTENSION

TOKEN_PATH_SUFFIXES = ("/oauth2/token", "/api/v1/access_token")
REPLAY_TOKEN = "replay-token-not-a-credential"


def packaged_replay_dir() -> Path:
    """The replay archive that ships with gpuvalue (recorded real pages, see its PROVENANCE.md)."""
    return Path(str(resources.files("gpuvalue.scrapers").joinpath("replay_archive")))


class ReplayTransport(httpx.BaseTransport):
    def __init__(self, archive: Archive) -> None:
        self.archive = archive
        self.recorded: dict[str, ArchiveEntry] = archive.latest_by_url()
        self.requests: list[str] = []

    def sources(self) -> set[str]:
        return {e.source for e in self.recorded.values()}

    def is_recorded(self, url: str) -> bool:
        return url in self.recorded

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        self.requests.append(url)
        entry = self.recorded.get(url)
        if entry is not None:
            headers = {"content-type": entry.content_type or "application/octet-stream"}
            headers.update({k: v for k, v in entry.headers.items() if k != "content-length"})
            return httpx.Response(
                entry.status, headers=headers, content=self.archive.read_body(entry.sha256), request=request,
                extensions={RECORDED_AT_EXTENSION: entry.fetched_at},
            )
        path = urlsplit(url).path
        if path == "/robots.txt":
            return httpx.Response(404, text="not recorded", request=request)
        if request.method == "POST" and path.endswith(TOKEN_PATH_SUFFIXES):
            return httpx.Response(
                200,
                json={"access_token": REPLAY_TOKEN, "expires_in": 7200, "token_type": "Application Access Token"},
                request=request,
            )
        raise NotRecordedError(url, "not in the replay archive")
