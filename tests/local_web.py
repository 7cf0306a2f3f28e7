"""Shared pieces of the tests that run the live code path against a local server: a transport that
sends every request to 127.0.0.1 while naming its real host, and a recorder of what Prefect's console
handlers print (the one line a failing source gets)."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import httpx


class QuietSite(BaseHTTPRequestHandler):
    """A local site's request handler that logs nothing and answers with one call (``_send``)."""

    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in {"Content-Length": str(len(body)), **(headers or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class ToLocalServer(httpx.BaseTransport):
    """Sends every request to the local server, over a socket, naming its real host in Host.
    ``with_deadline``: the inner transport gets the request deadline the live client's own has."""

    def __init__(self, port: int, *, with_deadline: bool = False) -> None:
        self.port = port
        self.inner = httpx.HTTPTransport()
        if with_deadline:
            from gpuvalue.scrapers.fetch_bounds import install_deadline

            assert install_deadline(self.inner)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url.copy_with(scheme="http", host="127.0.0.1", port=self.port)
        headers = [(k, v) for k, v in request.headers.raw if k.lower() != b"host"]
        headers.append((b"Host", request.url.host.encode("ascii")))
        return self.inner.handle_request(httpx.Request(request.method, url, headers=headers, content=request.content))

    def close(self) -> None:
        self.inner.close()


def recorded_console(monkeypatch) -> Iterator[io.StringIO]:
    """What Prefect's console handlers print, after their filters (a fixture's body: ``yield from``)."""
    from prefect.logging.handlers import PrefectConsoleHandler

    printed = io.StringIO()
    emit = PrefectConsoleHandler.emit

    def recording_emit(self, record):
        printed.write(self.format(record) + "\n")
        emit(self, record)

    monkeypatch.setattr(PrefectConsoleHandler, "emit", recording_emit)
    prefect_logger = logging.getLogger("prefect")
    level = prefect_logger.level
    prefect_logger.setLevel(logging.INFO)
    try:
        yield printed
    finally:
        prefect_logger.setLevel(level)
