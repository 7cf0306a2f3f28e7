"""`gpuvalue import listings` names the file in its errors and leaves out rows with an absurd price, saying which."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.listing_csv import MAX_PRICE_USD, parse_listing_csv, read_listing_csv

runner = CliRunner()
IMPORTED = datetime(2021, 6, 1, 9, 0, tzinfo=UTC)
HEADER = "title,subtitle,price,shipping,total_price,sold_date,link\n"
GOOD = "NVIDIA GeForce RTX 3090 24GB Founders Edition,,700,10,710,2020-12-01,https://www.ebay.com/itm/1234567890\n"


def _csv(*rows: str) -> str:
    return HEADER + GOOD + "".join(rows)


@pytest.mark.parametrize("row, reason", [
    ("RTX 3090,,1e9,0,0,2020-12-02,https://www.ebay.com/itm/1234567891", "price $1,000,000,000 is above $100,000"),
    ("RTX 3090,,99990,20,0,2020-12-02,https://www.ebay.com/itm/1234567891", "price $100,010 is above $100,000"),
    ("RTX 3090,,nan,0,0,2020-12-02,https://www.ebay.com/itm/1234567891", "price 'nan' is not a finite number"),
    ("RTX 3090,,inf,0,0,2020-12-02,https://www.ebay.com/itm/1234567891", "price 'inf' is not a finite number"),
    ("RTX 3090,,700,Infinity,0,2020-12-02,https://www.ebay.com/itm/1234567891", "shipping 'Infinity' is not a finite number"),
    ("RTX 3090,,-800,0,0,2020-12-02,https://www.ebay.com/itm/1234567891", "price '-800' is below zero"),
    ("RTX 3090,,0.01,0,0,2020-12-02,https://www.ebay.com/itm/1234567891", "price $0.01 is below $1"),
    ("RTX 3090,,0,0,0,2020-12-02,https://www.ebay.com/itm/1234567891", "price $0.00 is below $1"),
])
def test_an_absurd_price_leaves_its_row_out_with_a_reason(row, reason):
    got = read_listing_csv(_csv(row + "\n"), "import:t", IMPORTED)
    assert [listing.price for listing in got.listings] == [700.0]
    assert got.rejected == [(3, reason)]
    assert parse_listing_csv(_csv(row + "\n"), "import:t", IMPORTED) == got.listings


def test_the_limit_is_in_usd():
    rows = ("RTX 3090,,90000,0,0,2020-12-02,https://www.ebay.com/itm/1234567891,USD\n"
            "RTX 3090,,95000,0,0,2020-12-03,https://www.ebay.com/itm/1234567892,JPY\n"  # about $900
            "RTX 3090,,95000,0,0,2020-12-04,https://www.ebay.com/itm/1234567893,GBP\n")  # above $100,000
    got = read_listing_csv(HEADER.replace("link\n", "link,currency\n") + rows, "import:t", IMPORTED)
    assert [listing.price for listing in got.listings] == [90000.0, 95000.0]
    assert len(got.rejected) == 1 and got.rejected[0][0] == 4
    assert got.rejected[0][1].startswith("price 95,000 GBP ($1") and got.rejected[0][1].endswith(f"is above ${MAX_PRICE_USD:,.0f}")


def test_errors_name_the_file():
    bad = _csv("RTX 3090,,abc,0,0,2020-12-02,https://www.ebay.com/itm/1234567891\n")
    with pytest.raises(ParseError) as err:
        read_listing_csv(bad, "import:t", IMPORTED, url="sold-2020.csv")
    assert str(err.value) == "import:t: cannot parse sold-2020.csv: row 3: bad price 'abc'"
    with pytest.raises(ParseError, match="cannot parse sold-2020.csv: CSV lacks required column"):
        parse_listing_csv("title,price\nx,1\n", "import:t", IMPORTED, url="sold-2020.csv")


def test_the_command_names_the_file_in_its_error(tmp_path):
    path = tmp_path / "sold.csv"
    path.write_text(_csv("RTX 3090,,abc,0,0,2020-12-02,https://www.ebay.com/itm/1234567891\n"))
    res = runner.invoke(app, ["import", "listings", str(path), "--source", "t", "--db", str(tmp_path / "g.duckdb")])
    assert res.exit_code == 2, res.output
    assert res.output.strip() == f"error: import:t: cannot parse {path}: row 3: bad price 'abc'"
    assert "<unknown url>" not in res.output
    path.write_bytes(HEADER.encode() + b"RTX 3090 \xff\xfe,,700,0,700,2020-12-02,\n")
    res = runner.invoke(app, ["import", "listings", str(path), "--source", "t", "--db", str(tmp_path / "g.duckdb")])
    assert res.exit_code == 2 and res.output.startswith(f"error: {path} is not UTF-8 text"), res.output


def test_the_command_counts_and_reports_skipped_rows(tmp_path):
    path = tmp_path / "sold.csv"
    path.write_text(_csv("RTX 3090,,1e9,0,0,2020-12-02,https://www.ebay.com/itm/1234567891\n",
                         "RTX 3080,,nan,0,0,2020-12-02,https://www.ebay.com/itm/1234567892\n"))
    db = tmp_path / "g.duckdb"
    res = runner.invoke(app, ["import", "listings", str(path), "--source", "t", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "imported 1 listing from" in res.stdout and "skipped 2 row(s), each named below" in res.stdout
    assert res.stderr.splitlines() == ["skipped: row 3: price $1,000,000,000 is above $100,000",
                                       "skipped: row 4: price 'nan' is not a finite number"]
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT max(total_usd), count(*) FROM listings").fetchone() == (710.0, 1)
    finally:
        con.close()


def test_the_stored_name_is_accepted_as_the_source_and_an_empty_one_refused(tmp_path):
    """Outputs call the data set import:<name>; given back as --source, it is the same data set."""
    path = tmp_path / "sold.csv"
    path.write_text(_csv())
    db = tmp_path / "g.duckdb"
    for given in ("ebay-sold-2020", " import:ebay-sold-2020 "):
        res = runner.invoke(app, ["import", "listings", str(path), "--source", given, "--db", str(db)])
        assert res.exit_code == 0 and "as import:ebay-sold-2020" in res.stdout, res.output
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT DISTINCT source FROM listings").fetchall() == [("import:ebay-sold-2020",)]
    finally:
        con.close()
    for empty in ("", " ", "import:"):
        res = runner.invoke(app, ["import", "listings", str(path), "--source", empty, "--db", str(db)])
        assert res.exit_code == 2
        assert res.output.strip() == "error: --source needs a name for the data set, e.g. ebay-sold-2020"


def test_the_import_says_what_it_is_doing_as_it_goes(tmp_path, monkeypatch):
    """Reading and matching a large export takes seconds to minutes: the live line names each step."""
    from contextlib import contextmanager

    from gpuvalue.flows.cli import import_cli

    shown: list[str] = []

    @contextmanager
    def status(text):
        shown.append(text)
        yield shown.append

    monkeypatch.setattr(import_cli, "live_status", status)
    path = tmp_path / "sold.csv"
    path.write_text(_csv())
    res = runner.invoke(app, ["import", "listings", str(path), "--source", "t", "--db", str(tmp_path / "g.duckdb")])
    assert res.exit_code == 0, res.output
    # A batch at a time, each counted as it is loaded (tests/flows/test_import_stream.py: many batches).
    assert shown == [f"reading {path}", f"reading {path}: 1 rows", f"importing {path}: 1 rows read, 1 loaded, 1 matched",
                     f"re-ranking 0 day(s) with the listings from {path}"]


def test_the_live_line_shows_in_a_terminal_only(monkeypatch):
    import io

    from rich.console import Console

    from gpuvalue.flows.cli import cli_app

    for terminal in (True, False):
        screen = io.StringIO()
        monkeypatch.setattr(cli_app, "err", Console(file=screen, force_terminal=terminal, width=200))
        with cli_app.live_status("reading [sold].csv") as status:
            status("matching 3 listings from [sold].csv")
        assert ("matching 3 listings from [sold].csv" in screen.getvalue()) is terminal  # markup-free
        assert screen.getvalue() == "" or terminal


def test_counts_of_a_thousand_and_more_are_grouped(tmp_path):
    path = tmp_path / "sold.csv"
    path.write_text(_csv(*(f"NVIDIA GeForce RTX 3090 24GB,,700,0,700,2020-12-02,https://www.ebay.com/itm/{1234567000 + i}\n"
                           for i in range(1_000))))  # and the one good row
    res = runner.invoke(app, ["import", "listings", str(path), "--source", "t", "--db", str(tmp_path / "g.duckdb")])
    assert res.exit_code == 0, res.output
    assert "imported 1,001 listings from" in res.stdout and "; 1,001 matched to one GPU model" in res.stdout


SALE_2020_12_05 = "NVIDIA GeForce RTX 3080 10GB,,600,0,600,2020-12-05,https://www.ebay.com/itm/1234567891\n"


def _import_twice(tmp_path, first: str, second: str | None = None):
    """A file with two sales imported as ``first`` (then as ``second``): each command's result, and the database."""
    path = tmp_path / "sold.csv"
    path.write_text(_csv(SALE_2020_12_05))
    db = tmp_path / "g.duckdb"
    results = []
    for source in filter(None, (first, second)):
        results.append(runner.invoke(app, ["import", "listings", str(path), "--source", source, "--db", str(db)]))
        assert results[-1].exit_code == 0, results[-1].output
    return results, duckdb.connect(str(db), read_only=True)


def test_an_imported_sources_date_is_its_newest_sale_not_the_import_day(tmp_path):
    from gpuvalue.warehouse.source_dates import sources_from_db

    _, con = _import_twice(tmp_path, "sales2020")
    try:
        imported = next(s for s in sources_from_db(con) if s["name"] == "import:sales2020")
    finally:
        con.close()
    assert imported["as_of"] == "2020-12-05"


def test_rows_the_warehouse_already_holds_or_the_file_repeats_are_counted_apart(tmp_path):
    path = tmp_path / "sold.csv"
    path.write_text(_csv(GOOD))  # the same sale twice
    db = tmp_path / "g.duckdb"
    first = runner.invoke(app, ["import", "listings", str(path), "--source", "t", "--db", str(db)])
    assert first.exit_code == 0, first.output
    assert "imported 2 listings from" in first.stdout and "(1 new; the other 1 already stored or repeated in the file)" in first.stdout
    again = runner.invoke(app, ["import", "listings", str(path), "--source", "t", "--db", str(db)])
    assert "(0 new; the other 2 already stored or repeated in the file)" in " ".join(again.stdout.split())


def test_ebays_own_price_format_is_read():
    text = HEADER + 'NVIDIA GeForce RTX 3090 24GB,,"US $1,200.00",$10,,2020-12-01,https://www.ebay.com/itm/1234567890\n'
    (listing,) = read_listing_csv(text, "import:t", IMPORTED).listings
    assert (listing.price, listing.shipping) == (1200.0, 10.0)


def test_a_sale_imported_under_another_name_counts_once(tmp_path):
    (_, again), con = _import_twice(tmp_path, "sales", "other")
    assert "skipped: 2 listing(s) already imported as import:sales: a sale counts once" in " ".join(again.stderr.split())
    try:
        assert con.execute("SELECT source, count(*) FROM listings GROUP BY ALL").fetchall() == [("import:sales", 2)]
    finally:
        con.close()


def test_a_sale_in_another_time_zone_is_dated_in_utc_when_checked_against_the_import_day():
    ahead = "NVIDIA GeForce RTX 3080 10GB,,600,0,600,2021-06-02T01:00:00+05:00,https://www.ebay.com/itm/1234567891\n"
    got = read_listing_csv(_csv(ahead), "import:t", IMPORTED)  # 20:00 UTC on 2021-06-01, the import day
    assert len(got.listings) == 2
    later = ahead.replace("2021-06-02T01:00:00+05:00", "2021-06-02T06:00:00+05:00")  # 01:00 UTC on 2021-06-02
    with pytest.raises(ParseError, match="in the future"):
        read_listing_csv(_csv(later), "import:t", IMPORTED)


def test_names_that_look_like_markup_are_printed_as_given(tmp_path):
    """`--source "[/x]"` stored the rows, then failed with rich's MarkupError; `y[red]z.csv` printed as yz.csv."""
    path = tmp_path / "y[red]z.csv"
    path.write_text(_csv())
    res = runner.invoke(app, ["import", "listings", str(path), "--source", "[/x]", "--db", str(tmp_path / "g.duckdb")])
    assert res.exit_code == 0, res.output
    assert "y[red]z.csv" in res.stdout and "as import:[/x]" in res.stdout


def test_a_sale_in_a_currency_without_a_rate_is_left_out_with_its_reason():
    """Currency 'XYZ' was stored and 'matched', with no USD price, so it never counted, unsaid."""
    text = "title,price,sold_date,currency\nRTX 3090,700,2020-12-02,USD\nRTX 3090,700,2020-12-03,XYZ\n"
    got = read_listing_csv(text, "import:t", IMPORTED)
    assert [listing.currency for listing in got.listings] == ["USD"]
    assert got.rejected == [(3, "no USD exchange rate for currency 'XYZ' in 2020-12")]


@pytest.mark.parametrize("day", ["0001-01-01", "1900-01-01", "1994-12-31"])
def test_a_sale_dated_before_ebay_is_refused_naming_its_row(day):
    with pytest.raises(ParseError) as err:
        read_listing_csv(f"title,price,sold_date\nRTX 3090,700,{day}\n", "import:t", IMPORTED)
    assert f"row 2: sold_date '{day}' is before 1995, when eBay began" in err.value.what


def test_a_condition_column_is_read_and_the_import_says_how_many_sales_count_toward_used_prices(tmp_path):
    """A file with a condition column (and no subtitle) imported '3 matched', and none of them ever
    reached a price: the column was not read, and nothing said so."""
    path = tmp_path / "sold.csv"
    path.write_text("title,price,sold_date,condition\n"
                    "ZOTAC RTX 3060 Ti 8GB,200,2020-11-20,Used\n"
                    "ZOTAC RTX 3060 Ti 8GB,210,2020-11-21,Pre-Owned\n"
                    "ZOTAC RTX 3060 Ti 8GB,400,2020-11-22,\n")
    got = read_listing_csv(path.read_text(), "import:t", IMPORTED)
    assert [listing.condition for listing in got.listings] == ["Used", "Pre-Owned", None]
    res = runner.invoke(app, ["import", "listings", str(path), "--source", "c", "--db", str(tmp_path / "g.duckdb")])
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "import:c now holds 3 matched sale(s): 2 count toward used prices (used, refurbished, open box); " \
           "1 have no condition it can read" in text


def test_a_corrected_file_imported_with_replace_takes_the_place_of_the_data_set(tmp_path):
    """A mistyped 4,600 corrected to 460 and imported again counted beside the 460 (a row without a
    link is known by all its cells), and a linked row kept its old 450; nothing removed them."""
    db = tmp_path / "g.duckdb"
    header = "title,subtitle,price,sold_date,link\n"
    wrong = tmp_path / "fix1.csv"
    wrong.write_text(header + "RTX 3090 FE,Pre-Owned,450,2020-12-01,https://www.ebay.com/itm/1234567890\n"
                              "RTX 3090 FE,Pre-Owned,4600,2020-12-02,\n")
    right = tmp_path / "fix2.csv"
    right.write_text(header + "RTX 3090 FE,Pre-Owned,455,2020-12-01,https://www.ebay.com/itm/1234567890\n"
                              "RTX 3090 FE,Pre-Owned,460,2020-12-02,\n")

    def prices() -> tuple[list, list]:
        con = duckdb.connect(str(db), read_only=True)
        try:
            stored = sorted(p for (p,) in con.execute("SELECT price FROM listings WHERE source = 'import:fix'").fetchall())
            counted = sorted(p for (p,) in con.execute("SELECT usd FROM price_observations "
                                                       "WHERE source = 'import:fix'").fetchall())
        finally:
            con.close()
        return stored, counted

    assert runner.invoke(app, ["import", "listings", str(wrong), "--source", "fix", "--db", str(db)]).exit_code == 0
    again = runner.invoke(app, ["import", "listings", str(right), "--source", "fix", "--db", str(db)])
    assert prices()[0] == [450.0, 460.0, 4600.0]  # without --replace: the typo stays and counts beside its fix
    res = runner.invoke(app, ["import", "listings", str(right), "--source", "fix", "--replace", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "replaced the 3 stored listings of import:fix" in res.stdout and again.exit_code == 0
    stored, counted = prices()
    assert stored == [455.0, 460.0] and 4600.0 not in counted and 450.0 not in counted
