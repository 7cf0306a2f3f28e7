"""An import killed at any point (SIGKILL, Ctrl-C) leaves a recorded, resumable state: the rows of the
batches it committed, and its attempt saying how many in the same commit; `gpuvalue runs` shows it
interrupted with that count, `gpuvalue check` fails on it, and importing the file again loads the
rest, each sale once. An import killed with -9 kept 40,000 of its 200,000 rows with `check` passing
and `runs` silent; Ctrl-C exited 130 printing nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

ROWS = 3000
BATCH = 100

# The import as a user runs it, in batches of BATCH rows (a slow batch, so that a kill lands mid-import).
_IMPORT = f"""
import os, sys, time
from gpuvalue.scrapers import listing_csv
from gpuvalue.flows import enrich
listing_csv.DEFAULT_BATCH_ROWS = {BATCH}
real = enrich.listing_rows
def slow(*args, **kwargs):
    with open(os.environ["IMPORT_MARK"], "a") as mark:
        mark.write("batch\\n")
    time.sleep(0.02)
    return real(*args, **kwargs)
enrich.listing_rows = slow
from gpuvalue.flows.cli import main
sys.argv = ["gpuvalue", *sys.argv[1:]]
main()
"""


def _start(sold_csv: Path, db: Path, mark: Path, **kwargs) -> subprocess.Popen:
    """The import, returned once it is loading its first batch."""
    mark.unlink(missing_ok=True)
    proc = subprocess.Popen([sys.executable, "-c", _IMPORT, "import", "listings", str(sold_csv), "--source", "sold",
                             "--db", str(db)], env=_env() | {"IMPORT_MARK": str(mark)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kwargs)
    deadline = time.monotonic() + 120
    while not mark.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return proc


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("GPUVALUE_")}


def _cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpuvalue.flows.cli", *args], capture_output=True, text=True,
                          env=_env(), timeout=180, **kwargs)


@pytest.fixture(scope="module")
def sold_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("interrupted-import") / "sold.csv"
    lines = ["title,price,sold_date,link,condition"]
    lines += [f"NVIDIA GeForce RTX 3090 24GB,{600 + i % 200},2020-12-{1 + i % 28:02d},"
              f"https://www.ebay.com/itm/{200000000000 + i},Used" for i in range(ROWS)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _stored(db: Path) -> tuple[int, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT count(*) FROM listings WHERE source = 'import:sold'").fetchone()[0]
        attempts = con.execute("SELECT status, note FROM run_attempts WHERE run_id LIKE 'import:sold@%' "
                               "ORDER BY started_at").fetchall()
    finally:
        con.close()
    return rows, attempts


def _loaded_in(note: str) -> int:
    return int(note.split(": ", 1)[1].split(" rows", 1)[0].replace(",", ""))


@pytest.mark.e2e
def test_an_import_killed_at_any_point_leaves_a_recorded_resumable_state(sold_csv, tmp_path):
    rng = random.Random(45)
    kills = 0
    for trial, delay in enumerate(rng.uniform(0.0, 2.0) for _ in range(3)):
        db = tmp_path / f"g{trial}.duckdb"  # each kill on a warehouse of its own: its note counts all it holds
        proc = _start(sold_csv, db, tmp_path / "mark")
        time.sleep(delay)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
        if not db.exists():
            continue
        rows, attempts = _stored(db)
        assert rows <= ROWS
        if attempts and attempts[-1][0] == "running":  # killed with rows kept: the attempt says how many
            assert _loaded_in(attempts[-1][1]) == rows
            runs = _cli("runs", "--json", "--db", str(db))
            assert runs.returncode == 0, runs.stderr
            shown = [json.loads(line) for line in runs.stdout.splitlines()][0]
            assert shown["status"] == "interrupted" and f"{rows:,} rows loaded" in shown["note"]
            check = _cli("check", "--db", str(db))
            assert check.returncode == 1 and "FAILED imports interrupted" in check.stdout
    assert kills >= 1
    done = _cli("import", "listings", str(sold_csv), "--source", "sold", "--db", str(db))
    assert done.returncode == 0, done.stderr
    rows, attempts = _stored(db)
    assert rows == ROWS  # the rest loaded, each sale once
    assert attempts[-1][0] == "ok"
    check = _cli("check", "--db", str(db))
    assert check.returncode == 0, check.stdout + check.stderr


def _ctrl_c(sold_csv: Path, db: Path, mark: Path) -> tuple[int, str]:
    proc = _start(sold_csv, db, mark, text=True)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the import ended before Ctrl-C (a fast machine)")
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert proc.returncode == 130 and len(lines) == 1, stderr
    return proc.returncode, lines[0]


@pytest.mark.e2e
def test_ctrl_c_on_a_new_data_set_keeps_nothing_in_one_line(sold_csv, tmp_path):
    db = tmp_path / "g.duckdb"
    _, line = _ctrl_c(sold_csv, db, tmp_path / "mark")
    assert line == "error: interrupted (Ctrl-C): nothing of sold.csv was kept (import:sold holds no rows)"
    rows, attempts = _stored(db)
    assert rows == 0 and attempts[-1][0] == "cancelled"
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM price_observations WHERE source = 'import:sold'").fetchone() == (0,)
    finally:
        con.close()
    check = _cli("check", "--db", str(db))
    assert check.returncode == 0, check.stdout


@pytest.mark.e2e
def test_ctrl_c_on_a_data_set_with_rows_says_what_it_kept_and_how_to_finish(sold_csv, tmp_path):
    db = tmp_path / "g.duckdb"
    first = tmp_path / "first.csv"
    first.write_text("title,price,sold_date,link,condition\n"
                     "NVIDIA GeForce RTX 3090 24GB,650,2020-11-02,https://www.ebay.com/itm/199999999999,Used\n")
    assert _cli("import", "listings", str(first), "--source", "sold", "--db", str(db)).returncode == 0
    _, line = _ctrl_c(sold_csv, db, tmp_path / "mark")
    assert line.startswith("error: interrupted (Ctrl-C): import of sold.csv as import:sold: ")
    assert "import the file again to load the rest" in line
    rows, attempts = _stored(db)
    assert attempts[-1][0] == "interrupted" and rows == 1 + _loaded_in(attempts[-1][1])
