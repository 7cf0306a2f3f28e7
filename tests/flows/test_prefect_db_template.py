"""The empty Prefect database shipped for a new Prefect home (flows/prefect_db_template.py): it
is the locked Prefect version's own migrated schema, it is put in place only where the server
would otherwise migrate a new database, and a server started on it answers."""

from __future__ import annotations

import gzip
import importlib.util
import re
import sqlite3
from importlib import metadata, resources
from pathlib import Path

import pytest

from gpuvalue.flows.prefect_db_template import place_template, template_name

VERSION = metadata.version("prefect")


def _template_bytes() -> bytes:
    return gzip.decompress(resources.files("gpuvalue.flows").joinpath("data", template_name(VERSION)).read_bytes())


def _head_revision() -> str:
    """The newest of the installed Prefect's SQLite migrations: the one no other follows."""
    prefect = importlib.util.find_spec("prefect")  # found, not imported: the server package takes seconds
    versions = Path(prefect.origin).parent / "server" / "database" / "_migrations" / "versions" / "sqlite"
    revisions, followed = set(), set()
    for path in versions.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        if found := re.search(r'^revision = "(\w+)"', text, re.M):
            revisions.add(found[1])
        followed.update(re.findall(r'^down_revision = "(\w+)"', text, re.M))
    (head,) = revisions - followed
    return head


def test_the_locked_prefect_version_has_its_template_at_its_newest_migration(tmp_path):
    files = resources.files("gpuvalue.flows").joinpath("data")
    assert files.joinpath(template_name(VERSION)).is_file(), (
        f"no empty database shipped for Prefect {VERSION}: regenerate it as flows/prefect_db_template.py says")
    db = tmp_path / "prefect.db"
    db.write_bytes(_template_bytes())
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT version_num FROM alembic_version").fetchall() == [(_head_revision(),)]
        tables = [name for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        filled = [t for t in tables if t != "alembic_version" and con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]]
    assert len(tables) > 20 and filled == []  # the schema only: no run, no setting, no id of anyone's


def test_a_new_home_gets_the_template(tmp_path):
    home = tmp_path / "home"
    placed = place_template({"PREFECT_HOME": str(home)}, VERSION)
    assert placed == home / "prefect.db"
    assert placed.read_bytes() == _template_bytes()
    assert [p.name for p in home.iterdir()] == ["prefect.db"]  # no temporary file left


@pytest.mark.parametrize("case", ["database there", "database URL set", "server database URL set", "other version"])
def test_nothing_is_placed_where_prefect_should_decide(tmp_path, case):
    home = tmp_path / "home"
    home.mkdir()
    environ = {"PREFECT_HOME": str(home)}
    version = VERSION
    if case == "database there":
        (home / "prefect.db").write_bytes(b"a user's runs")
    elif case == "database URL set":
        environ["PREFECT_API_DATABASE_CONNECTION_URL"] = "postgresql+asyncpg://db/prefect"
    elif case == "server database URL set":
        environ["PREFECT_SERVER_DATABASE_CONNECTION_URL"] = "postgresql+asyncpg://db/prefect"
    else:
        version = "0.0.1"
    assert place_template(environ, version) is None
    assert [p.name for p in home.iterdir()] == (["prefect.db"] if case == "database there" else [])
    if case == "database there":
        assert (home / "prefect.db").read_bytes() == b"a user's runs"


@pytest.mark.e2e
def test_a_server_on_a_new_home_starts_on_the_template_and_answers(tmp_path, monkeypatch):
    from gpuvalue.flows import prefect_server

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    server = prefect_server.launch_temporary_server()
    try:
        assert (tmp_path / "home" / "prefect.db").exists()
        url = server.wait_ready(120)
        import httpx

        assert httpx.get(f"{url}/health", timeout=10).status_code == 200
        with sqlite3.connect(tmp_path / "home" / "prefect.db") as con:
            assert con.execute("SELECT version_num FROM alembic_version").fetchall() == [(_head_revision(),)]
    finally:
        server.stop()
