import json
from datetime import date

import pytest
from conftest_exports import LATEST_DAY, RANKING_DAYS, make_ranking_database, ranking_for
from gpuvalue.models.memory_class import memory_class
from gpuvalue.warehouse.outputs.export import export_feed as reexported_export_feed
from gpuvalue.warehouse.outputs.feed import class_leaders, export_feed, leader_changes, price_drops


@pytest.fixture
def feed(tmp_path):
    con = make_ranking_database()
    path = tmp_path / "feed.json"
    count = export_feed(con, path, home_page_url="https://gpuvalue.example/", feed_url="https://gpuvalue.example/feed.json")
    document = json.loads(path.read_text())
    assert count == len(document["items"])
    return document


def test_feed_has_the_json_feed_1_1_required_fields(feed):
    assert feed["version"] == "https://jsonfeed.org/version/1.1"
    assert feed["title"]
    assert feed["home_page_url"] == "https://gpuvalue.example/"
    assert feed["feed_url"] == "https://gpuvalue.example/feed.json"
    assert isinstance(feed["items"], list) and feed["items"]
    for item in feed["items"]:
        assert isinstance(item["id"], str) and item["id"]
        assert item.get("content_text") or item.get("content_html")
        assert item["title"]
        assert item["date_published"].endswith("T00:00:00Z")
    ids = [item["id"] for item in feed["items"]]
    assert len(ids) == len(set(ids))


def test_one_item_per_ranking_day_with_the_top_ten_and_their_price_dates(feed):
    daily = [item for item in feed["items"] if item["tags"] == ["ranking"]]
    assert [item["id"] for item in daily] == [f"gpuvalue:ranking:{day.isoformat()}" for day in reversed(RANKING_DAYS)]
    latest = daily[0]["content_text"].splitlines()
    assert len(latest) == 12
    assert latest[0] == "Top 10 GPUs by training speed per dollar on 2024-05-09 (perf relative to GeForce RTX 3090):"
    # Ranked #1, the Tesla K80 is left out like `rank` leaves it out: current frameworks no longer run it;
    # the numbers are places among the shown cards, as `rank` numbers them.
    assert latest[1] == (
        "1. GeForce RTX 2080 Ti: $300 (median of 18 sold, 2024-05-08), 2.27 perf per $1k, perf 0.68x; measured (lambda-tf-2021)"
    )
    assert latest[-1] == ("Not shown, and not counted in the numbers above: 1 card of the full ranking: "
                          "Tesla K80 (#1, no PyTorch build runs it). The full ranking (ranking.json) lists them.")
    assert "<ol><li><strong>GeForce RTX 2080 Ti</strong>" in daily[0]["content_html"]


def test_notable_moves_appear_for_the_scripted_price_moves(feed):
    moves = {item["id"]: item for item in feed["items"] if item["tags"][0] != "ranking"}
    assert sorted(moves) == [
        "gpuvalue:class-leader:2024-05-09:17-24 GB",
        "gpuvalue:price-drop:2024-05-05:GeForce RTX 3090",
        "gpuvalue:price-drop:2024-05-09:Radeon RX 7900 XTX",
    ]
    leader = moves["gpuvalue:class-leader:2024-05-09:17-24 GB"]
    assert leader["title"] == "New #1 in 17-24 GB: Radeon RX 7900 XTX"
    assert "replacing GeForce RTX 3090" in leader["content_text"]
    drop = moves["gpuvalue:price-drop:2024-05-05:GeForce RTX 3090"]
    assert drop["content_text"] == (
        "GeForce RTX 3090 fell 14% in a week: $690 on 2024-05-05 against $800 on 2024-04-28 "
        "(sold prices, 31 observations)."
    )


def test_rerunning_gives_identical_items(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    reexported_export_feed(make_ranking_database(), first)
    reexported_export_feed(make_ranking_database(), second)
    assert first.read_bytes() == second.read_bytes()


def point(day, price, kind="sold"):
    return {"as_of": day, "model": "X", "price_usd": price, "price_kind": kind, "price_n": 5}


def test_price_drop_is_reported_once_and_only_between_prices_of_one_kind():
    history = [point(date(2024, 5, d), 100.0) for d in range(1, 8)]
    history += [point(date(2024, 5, d), 85.0) for d in range(8, 20)]
    drops = price_drops(history)
    assert [(d["now"]["as_of"], round(d["change"], 2)) for d in drops] == [(date(2024, 5, 8), -0.15)]
    switched = [point(date(2024, 5, 1), 500.0, "launch"), point(date(2024, 5, 8), 300.0, "sold")]
    assert price_drops(switched) == []
    # A month-old price is not "last week".
    assert price_drops([point(date(2024, 4, 1), 100.0), point(date(2024, 5, 1), 50.0)]) == []
    # Exactly 10% counts; 9% does not.
    assert len(price_drops([point(date(2024, 5, 1), 100.0), point(date(2024, 5, 8), 90.0)])) == 1
    assert price_drops([point(date(2024, 5, 1), 100.0), point(date(2024, 5, 8), 91.0)]) == []


def test_class_leaders_skip_cards_a_buyer_cannot_use():
    rows = ranking_for(date(2024, 5, 1))
    leaders = {label: row["model"] for label, row in class_leaders(rows).items()}
    assert leaders == {
        "<8 GB": "GeForce GTX 1660 SUPER",
        "8-11 GB": "GeForce RTX 2080 Ti",
        "12-16 GB": "GeForce RTX 3060 12 GB",
        "17-24 GB": "GeForce RTX 3090",  # the K80 ranks first but no current framework runs it
        ">24 GB": "A100 PCIe 40 GB",
    }
    assert leader_changes(rows, rows) == []


@pytest.mark.parametrize(
    ("memory", "label"),
    [(None, None), (4.0, "<8 GB"), (7.9, "<8 GB"), (8.0, "8-11 GB"), (11.0, "8-11 GB"), (12.0, "12-16 GB"),
     (16.0, "12-16 GB"), (20.0, "17-24 GB"), (24.0, "17-24 GB"), (32.0, ">24 GB"), (80.0, ">24 GB")],
)
def test_memory_classes(memory, label):
    assert memory_class(memory) == label


def test_a_low_confidence_estimate_says_so_in_the_daily_item():
    from gpuvalue.warehouse.outputs.feed import daily_item

    rows = [dict(r) for r in ranking_for(LATEST_DAY)]
    amd = next(r for r in rows if r["perf_source"] == "estimate" and r["vendor"] == "AMD")
    amd["perf_method"] = "estimate: roofline v3 per-workload (...); low confidence: AMD"
    item = daily_item(LATEST_DAY, rows)
    line = next(x for x in item["content_text"].splitlines() if amd["model"] in x)
    assert line.endswith("; estimate, low confidence")
    assert "; estimate, low confidence</li>" in item["content_html"]
    measured = next(x for x in item["content_text"].splitlines() if "(lambda-" in x)
    assert "low confidence" not in measured


def test_a_class_leader_is_a_recently_priced_card_and_its_item_names_the_previous_ranking(feed):
    """A 2023 index price announced as 'New #1' when the tiers shifted; 'the day before' when the
    previous ranking was months earlier."""
    rows = ranking_for(date(2024, 5, 1))
    older = [dict(r, price_tier="older") if r["model"] == "GeForce RTX 3090" else r for r in rows]
    assert class_leaders(older)["17-24 GB"]["model"] != "GeForce RTX 3090"
    leader = next(item for item in feed["items"] if item["tags"][0] == "class-leader")
    previous = RANKING_DAYS[RANKING_DAYS.index(date(2024, 5, 9)) - 1]
    assert f"replacing GeForce RTX 3090 (on the previous ranking, of {previous.isoformat()})" in leader["content_text"]


def test_the_feed_shows_the_cards_the_settings_memory_minimum_shows(tmp_path):
    from gpuvalue.models.buyer_view import BuyerView

    con = make_ranking_database()
    path = tmp_path / "feed.json"
    export_feed(con, path, view=BuyerView(min_memory_gb=24))
    daily = next(item for item in json.loads(path.read_text())["items"] if item["tags"] == ["ranking"])
    listed = [line for line in daily["content_text"].splitlines()[1:] if line[:1].isdigit()]
    assert listed and all(
        any(f"{row['model']}:" in line for row in ranking_for(LATEST_DAY) if (row["memory_gb"] or 0) >= 24)
        for line in listed)


def test_each_replayed_days_item_says_so_not_only_the_newest(tmp_path):
    from gpuvalue.warehouse.outputs.feed import build_feed, feed_inputs

    days, history = feed_inputs(make_ranking_database())
    ordered = sorted(days)
    document = build_feed(days, history, replay=True, replay_days={ordered[0], ordered[-1]})
    titles = {item["id"].rsplit(":", 1)[1]: item["title"] for item in document["items"] if item["tags"] == ["ranking"]}
    assert "(replay)" in titles[ordered[0].isoformat()] and "(replay)" in titles[ordered[-1].isoformat()]
    assert not any("(replay)" in titles[day.isoformat()] for day in ordered[1:-1])
