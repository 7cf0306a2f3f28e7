"""`gpuvalue import listings` reads and loads a file a batch at a time (its memory that of one batch;
bench/bench_import.py measures the peak at 200k and 1M rows), and still keeps nothing of a file that
a row halfway through refuses."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.scrapers import listing_csv
from gpuvalue.scrapers.listing_csv import iter_listing_csv, read_listing_csv

runner = CliRunner()
HEADER = "title,subtitle,price,shipping,sold_date,link\n"


def _rows(n: int, start: int = 0) -> list[str]:
    cards = ("NVIDIA GeForce RTX 3090 24GB", "NVIDIA GeForce RTX 3070 8GB", "AMD Radeon RX 6800 XT 16GB")
    return [f"{cards[i % 3]} #{i},Pre-Owned · Founders,{400 + i % 300},{i % 20},2020-12-{1 + i % 28:02d},"
            f"https://www.ebay.com/itm/{100_000_000_000 + i}\n" for i in range(start, start + n)]


def test_the_parser_reads_a_batch_at_a_time():
    read: list[int] = []

    def lines():
        yield HEADER
        for i, line in enumerate(_rows(1000)):
            read.append(i)
            yield line

    batches = iter_listing_csv(lines(), "import:t", datetime(2021, 6, 1, tzinfo=UTC), batch_rows=100)
    first = next(batches)
    assert len(first.listings) == 100 and len(read) <= 101  # not the whole file
    rest = list(batches)
    assert [len(b.listings) for b in rest] == [100] * 9
    whole = read_listing_csv(HEADER + "".join(_rows(1000)), "import:t", datetime(2021, 6, 1, tzinfo=UTC))
    assert [x for b in [first, *rest] for x in b.listings] == whole.listings


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(listing_csv, "DEFAULT_BATCH_ROWS", 50)


def _stored(db) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT listing_id, title, total_usd, model FROM listings ORDER BY ALL").fetchall()
    finally:
        con.close()


def test_a_file_of_many_batches_imports_as_one(tmp_path, small_batches, monkeypatch):
    sold = tmp_path / "sold.csv"
    sold.write_text(HEADER + "".join(_rows(230)), encoding="utf-8")
    res = runner.invoke(app, ["import", "listings", str(sold), "--source", "t", "--db", str(tmp_path / "a.duckdb")])
    assert res.exit_code == 0, res.output
    assert "imported 230 listings" in res.stdout
    monkeypatch.setattr(listing_csv, "DEFAULT_BATCH_ROWS", 10_000)
    res = runner.invoke(app, ["import", "listings", str(sold), "--source", "t", "--db", str(tmp_path / "b.duckdb")])
    assert res.exit_code == 0, res.output
    assert _stored(tmp_path / "a.duckdb") == _stored(tmp_path / "b.duckdb") and len(_stored(tmp_path / "b.duckdb")) == 230


def test_a_row_that_refuses_the_file_in_a_late_batch_keeps_nothing_of_it(tmp_path, small_batches):
    db = tmp_path / "g.duckdb"
    good = tmp_path / "good.csv"
    good.write_text(HEADER + "".join(_rows(20, start=5000)), encoding="utf-8")
    assert runner.invoke(app, ["import", "listings", str(good), "--source", "t", "--db", str(db)]).exit_code == 0
    before = _stored(db)
    bad = tmp_path / "bad.csv"
    bad.write_text(HEADER + "".join(_rows(180)) + "RTX 3090,,700,0,2020-13-45,\n" + "".join(_rows(40, start=180)),
                   encoding="utf-8")
    for replace in ([], ["--replace"]):
        res = runner.invoke(app, ["import", "listings", str(bad), "--source", "t", "--db", str(db), *replace])
        assert res.exit_code == 2, res.output
        assert "row 182: bad sold_date '2020-13-45'" in " ".join(res.output.split())
        assert _stored(db) == before  # row 182 is in the fourth batch: the file is read through before a batch is stored
