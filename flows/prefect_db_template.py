"""A migrated, empty Prefect database for a Prefect home that has none yet.

A Prefect server on a new home first runs every one of Prefect's database migrations on SQLite:
about 6 s of a `gpuvalue run`'s first start on two cores (the migrations rebuild tables one by
one), before the server answers. The result is always the same empty schema, so gpuvalue ships
it for the Prefect version it is locked to and puts it in place before the server starts; the
server then finds its schema current. Another Prefect version, a database URL set in the
environment, or a home that already has a database: nothing is done, and Prefect migrates as
usual.

Regenerate after upgrading Prefect (the file name carries the version):

    PREFECT_HOME=$(mktemp -d) uv run prefect server database upgrade -y
    gzip -9 -n -c "$PREFECT_HOME/prefect.db" > flows/data/prefect-<version>.sqlite.gz
"""

from __future__ import annotations

import gzip
import os
import tempfile
from collections.abc import Mapping
from importlib import metadata, resources
from pathlib import Path

DATABASE_URL_VARIABLES = ("PREFECT_API_DATABASE_CONNECTION_URL", "PREFECT_SERVER_DATABASE_CONNECTION_URL")


def template_name(version: str) -> str:
    return f"prefect-{version}.sqlite.gz"


def prefect_home(environ: Mapping[str, str] = os.environ) -> Path:
    return Path(environ.get("PREFECT_HOME") or "~/.prefect").expanduser()


def place_template(environ: Mapping[str, str] = os.environ, version: str | None = None) -> Path | None:
    """Put the shipped empty database where the server will look, when it has none; returns the
    path written, or None. Never replaces a file: two runs starting at once write one copy."""
    if any(environ.get(name) for name in DATABASE_URL_VARIABLES):
        return None
    target = prefect_home(environ) / "prefect.db"
    return target if write_template(target, version) else None


def write_template(target: Path, version: str | None = None) -> bool:
    """The shipped empty database of the installed Prefect (or ``version``) at ``target``, unless
    a file is there or no database is shipped for that version; whether it was written."""
    if target.exists():  # every run but a home's first: nothing more to look up
        return False
    try:
        version = version or metadata.version("prefect")
    except metadata.PackageNotFoundError:
        return False
    template = resources.files("gpuvalue.flows").joinpath("data", template_name(version))
    if not template.is_file():
        return False
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".prefect-db-", delete=False) as tmp:
            tmp.write(gzip.decompress(template.read_bytes()))
        try:
            os.link(tmp.name, target)  # fails if another run put one there first
        finally:
            os.unlink(tmp.name)
    except OSError:  # already there, a read-only home, no hard links: Prefect migrates as usual
        return False
    return True
