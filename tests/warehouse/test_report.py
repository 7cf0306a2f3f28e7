import html
import json
import re
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest_exports import make_ranking_database, open_test_database
from gpuvalue.warehouse.export import ExportError
from gpuvalue.warehouse.report import log_ticks, nice_ticks, place_labels, value_frontier, write_report

CHART_IDS = ("chart-scatter", "chart-ppd", "chart-history")
GENERATED = datetime(2024, 5, 9, 7, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "site"
    path = write_report(make_ranking_database(), out, generated_at=GENERATED)
    return path


@pytest.fixture(scope="module")
def page(report):
    return BeautifulSoup(report.read_text(encoding="utf-8"), "lxml")


def test_report_is_one_index_html_in_a_created_directory(report):
    assert report.name == "index.html"
    assert [p.name for p in report.parent.iterdir()] == ["index.html"]


@pytest.mark.parametrize(
    ("chart_id", "expected_marks"),
    [
        ("chart-scatter", 13),  # every card `rank` shows by default (not the Tesla K80, not the H100 SXM module)
        ("chart-ppd", 13),  # at most 5 per memory class; this ranking has no class with more than 5
        ("chart-history", 6 * 23),  # the 6 best usable cards over 23 days of price history
    ],
)
def test_each_chart_is_present_with_its_marks(page, chart_id, expected_marks):
    svg = page.find("svg", id=chart_id)
    assert svg is not None
    marks = svg.select(".mark")
    assert int(svg["data-points"]) == len(marks) == expected_marks
    assert svg.find("title").get_text()  # a chart title for screen readers
    assert all(mark.get("data-tip") for mark in marks)


@pytest.mark.parametrize("chart_id", CHART_IDS)
def test_each_chart_has_a_phone_layout_with_the_same_marks(page, chart_id):
    wide, narrow = page.find("svg", id=chart_id), page.find("svg", id=f"{chart_id}-narrow")
    assert narrow is not None and "narrow" in narrow["class"]
    assert narrow["data-points"] == wide["data-points"]
    assert sorted(m["data-tip"] for m in narrow.select(".mark")) == sorted(m["data-tip"] for m in wide.select(".mark"))
    assert (narrow.get("viewBox") or narrow["viewbox"]).split()[2] == "360"
    assert narrow.find_parent(class_="narrow-only") and wide.find_parent(class_="wide-only")


def test_scatter_draws_and_labels_the_value_frontier(page):
    svg = page.find("svg", id="chart-scatter")
    assert svg.find("polyline") is not None
    labels = {text.get_text() for text in svg.select("text.point-label")}
    frontier = {"RTX 3050 8 GB", "GTX 1080 Ti", "RTX 3060 12 GB", "RTX 2080 Ti", "RTX 3080",
                "Tesla V100 PCIe 16 GB", "RX 7900 XTX", "RTX 3090", "RTX 4090"}
    assert frontier <= labels
    # Cards `rank` hides by default are not drawn: no framework runs the K80, no desktop takes the SXM module.
    tips = [c["data-tip"] for c in svg.select("circle.mark")]
    assert not any("Tesla K80" in tip or "H100 SXM5" in tip for tip in tips)
    assert any(tip.startswith("#1 GeForce RTX 2080 Ti") for tip in tips)  # numbered among the shown cards


def test_no_external_resources(report, page):
    for tag in page.find_all(True):
        for attribute in ("src", "href", "xlink:href", "srcset", "poster", "data"):
            value = tag.get(attribute)
            if value:
                assert not re.match(r"^\s*(https?:)?//", value, re.I), (tag.name, attribute, value)
    assert page.find("link", rel="stylesheet") is None
    assert all(not script.get("src") for script in page.find_all("script"))
    assert not re.search(r"@import|url\(\s*['\"]?(https?:)?//", report.read_text(), re.I)


def test_table_says_where_each_price_and_speed_comes_from(page):
    rows = page.find("table").find_all("tr")[1:]
    assert len(rows) == 13
    cells = {row.find("strong").get_text(): [td.get_text(" ", strip=True) for td in row.find_all("td")] for row in rows}
    assert cells["GeForce GTX 1660 SUPER"] == [
        "11", "GeForce GTX 1660 SUPER Turing · desktop", "6 GB", "$229", "launch", "2019-10-29 stale",
        "0.22×", "estimate estimate: roofline v1", "0.96",
    ]
    assert cells["GeForce RTX 3090"][4:8] == ["sold n=31 IQR $635–$738", "2024-05-08", "1.00×",
                                              "lambda-pytorch-2024 measured: geomean of workloads"]


def test_footer_names_sources_freshness_and_attribution(page):
    footer = page.find("footer").get_text(" ", strip=True)
    assert "Wikipedia contributors, CC BY-SA 4.0" in footer
    assert "TechPowerUp" in footer and "eBay" in footer and "Lambda" in footer
    # Its last good fetch, and no date of data: the fixture holds no techpowerup rows (never the run's date).
    assert "techpowerup specs failed 2024-05-08 06:03 \u2014" in footer
    assert "relative to GeForce RTX 3090" in footer
    assert "Generated 2024-05-09 07:00 UTC" in footer


def test_top_n_limits_the_table(tmp_path):
    path = write_report(make_ranking_database(), tmp_path, top_n=5, generated_at=GENERATED)
    page = BeautifulSoup(path.read_text(), "lxml")
    assert len(page.find("table").find_all("tr")) == 6
    assert page.find("svg", id="chart-scatter")["data-points"] == "13"


def test_an_html_path_is_the_file_written_and_a_folder_gets_index_html(tmp_path):
    """`gpuvalue report --out report.html` writes that file, as a user means it; a folder, even one
    whose name ends in .html, gets its index.html."""
    con = make_ranking_database()
    assert write_report(con, tmp_path / "new" / "mine.HTML", generated_at=GENERATED) == tmp_path / "new" / "mine.HTML"
    assert (tmp_path / "new" / "mine.HTML").is_file() and not (tmp_path / "new" / "mine.HTML" / "index.html").exists()
    (tmp_path / "site.html").mkdir()
    assert write_report(con, tmp_path / "site.html", generated_at=GENERATED) == tmp_path / "site.html" / "index.html"
    assert write_report(con, tmp_path / "plain", generated_at=GENERATED) == tmp_path / "plain" / "index.html"


def test_empty_ranking_is_an_error(tmp_path):
    with pytest.raises(ExportError, match="empty"):
        write_report(open_test_database(), tmp_path)
    assert not (tmp_path / "index.html").exists()


def test_a_day_whose_every_card_the_view_hides_is_a_one_line_error(tmp_path):
    from gpuvalue.models.buyer_view import BuyerView

    with pytest.raises(ExportError, match=r"none of the \d+ cards ranked on .* `gpuvalue rank --all` lists them"):
        write_report(make_ranking_database(), tmp_path, view=BuyerView(min_memory_gb=1000))
    assert not (tmp_path / "index.html").exists()


def test_value_frontier():
    points = [(800, 1.0), (230, 0.45), (420, 0.82), (300, 0.68), (450, 0.62), (1750, 1.85), (3800, 1.05), (230, 0.3)]
    assert value_frontier(points) == [1, 3, 2, 0, 5]
    assert value_frontier([]) == []


def test_ticks():
    assert nice_ticks(0, 3.4) == [0, 1, 2, 3, 4]
    assert nice_ticks(0, 3.4, 8) == [0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]
    assert nice_ticks(153, 472) == [100, 200, 300, 400, 500]
    assert log_ticks(44, 40500) == [50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000]


def test_labels_do_not_overlap():
    anchors = [(100, 100, "RTX 3080"), (104, 102, "RTX 3090"), (108, 98, "RX 7900 XTX"), (400, 300, "RTX 4090")]
    placed = place_labels(anchors, (0, 0, 600, 400), [(a[0], a[1]) for a in anchors])
    assert all(placed)
    boxes = []
    for tx, ty, anchor, text in placed:
        width = len(text) * 7.1
        x0 = {"start": tx, "end": tx - width, "middle": tx - width / 2}[anchor]
        boxes.append((x0, ty - 14, x0 + width, ty))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])


def chromium() -> str:
    path = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
    if not path:
        pytest.skip("Chromium not installed: apt-get install chromium")
    return path


def run_chromium(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    command = [
        binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
        f"--user-data-dir={profile}", *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=90, check=False)


@pytest.mark.e2e
def test_report_renders_in_a_headless_browser(report, tmp_path):
    binary = chromium()
    url = report.resolve().as_uri()
    dumped = run_chromium(binary, tmp_path / "profile", "--dump-dom", url)
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    dom = BeautifulSoup(dumped.stdout, "lxml")
    assert dom.body.get("data-ready") == "1"  # the tooltip script ran
    for chart_id in CHART_IDS:
        svg = dom.find("svg", id=chart_id)
        assert svg is not None, chart_id
        assert int(svg["data-points"]) == len(svg.select(".mark")) > 0

    shot = tmp_path / "report.png"
    taken = run_chromium(binary, tmp_path / "profile2", "--window-size=1200,3200", f"--screenshot={shot}", url)
    assert taken.returncode == 0, taken.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 100_000  # a blank page of that size compresses to a few KB


# Measures the page as laid out: the smallest text as shown on screen (SVG text scaled by its
# chart), whether the page is wider than the window, and which charts and tables are visible.
LAYOUT_PROBE = """<script>
(function () {
  function shown(el) { var r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; }
  var texts = [];
  var all = document.body.querySelectorAll("*");
  for (var i = 0; i < all.length; i++) {
    var el = all[i], tag = el.tagName.toLowerCase();
    if (tag === "script" || tag === "style" || tag === "title" || tag === "desc" || el.closest("#tooltip")) { continue; }
    var own = Array.prototype.some.call(el.childNodes, function (n) { return n.nodeType === 3 && n.textContent.trim(); });
    if (!own || !shown(el)) { continue; }
    var size = parseFloat(getComputedStyle(el).fontSize);
    var text = el.closest("text");
    if (text) { var m = text.getScreenCTM(); size *= Math.hypot(m.a, m.b); }
    texts.push([Math.round(size * 100) / 100, el.textContent.trim().slice(0, 40)]);
  }
  texts.sort(function (a, b) { return a[0] - b[0]; });
  var charts = [], tables = [];
  document.querySelectorAll("svg.chart").forEach(function (svg) {
    if (shown(svg)) { charts.push([svg.id, svg.getBoundingClientRect().right]); }
  });
  document.querySelectorAll(".table-wrap").forEach(function (wrap) {
    tables.push([wrap.getBoundingClientRect().right, wrap.scrollWidth > wrap.clientWidth]);
  });
  parent.document.body.setAttribute("data-probe", JSON.stringify({
    viewport: window.innerWidth, page: document.documentElement.scrollWidth, texts: texts.length,
    smallest: texts.slice(0, 5), charts: charts, tables: tables
  }));
})();
</script>"""


@pytest.mark.slow
@pytest.mark.parametrize("width, layout", [(400, "narrow"), (1200, "wide")])
def test_report_is_readable_in_a_browser_on_a_phone_and_a_desktop(report, tmp_path, width, layout):
    binary = chromium()
    # --dump-dom lays a page out at least 500 px wide whatever --window-size says, so the page is
    # shown in a frame of the width under test, and the probe reports to the page around it.
    page = report.read_text(encoding="utf-8").replace("</body>", LAYOUT_PROBE + "</body>")
    probed = tmp_path / "frame.html"
    probed.write_text(f'<!DOCTYPE html><html><body style="margin:0"><iframe style="width:{width}px;height:900px;border:0" '
                      f'srcdoc="{html.escape(page, quote=True)}"></iframe></body></html>', encoding="utf-8")
    dumped = run_chromium(binary, tmp_path / "profile", f"--window-size={width + 100},1000", "--dump-dom",
                          probed.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    probe = json.loads(BeautifulSoup(dumped.stdout, "lxml").body["data-probe"])
    assert probe["viewport"] == width, probe
    assert probe["page"] <= width, probe  # nothing widens the page: no sideways scrolling of the whole page
    assert probe["texts"] > 200 and probe["smallest"][0][0] >= 11, probe["smallest"]
    shown = [chart_id for chart_id, _ in probe["charts"]]
    assert shown == [f"{c}-narrow" if layout == "narrow" else c for c in CHART_IDS], probe["charts"]
    assert all(right <= width for _, right in probe["charts"]), probe["charts"]
    # The tables keep their columns and scroll inside their own box on a phone.
    assert len(probe["tables"]) == 2 and all(right <= width for right, _ in probe["tables"]), probe["tables"]
    if layout == "narrow":
        assert probe["tables"][0][1], "the ranking table should scroll sideways within its box"
        shot = tmp_path / "phone.png"
        taken = run_chromium(binary, tmp_path / "profile2", f"--window-size={width},2400", f"--screenshot={shot}",
                             report.resolve().as_uri())
        assert taken.returncode == 0, taken.stderr[-2000:]
        png = shot.read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") == width
        assert shot.stat().st_size > 100_000


def test_history_of_a_single_day_is_centred_not_empty():
    from datetime import date

    from gpuvalue.warehouse.report import history_chart

    points = [{"as_of": date(2024, 5, 9), "model": m, "price_usd": p, "price_kind": "sold", "price_n": 5}
              for m, p in (("GeForce RTX 3090", 690.0), ("GeForce RTX 3060 12 GB", 230.0))]
    svg = BeautifulSoup(history_chart(points, ["GeForce RTX 3090", "GeForce RTX 3060 12 GB"]), "lxml").find("svg")
    assert svg["data-points"] == "2"
    xs = {float(c["cx"]) for c in svg.select("circle.mark")}
    assert xs == {(70 + 1040 - 200) / 2}
    assert [t.get_text() for t in svg.select("text.tick") if "May" in t.get_text()] == ["May 9"]
    empty = BeautifulSoup(history_chart([], ["GeForce RTX 3090"]), "lxml").find("svg")
    assert empty["id"] == "chart-history" and empty["data-points"] == "0"


def test_the_table_shows_older_prices_apart_and_an_index_price_as_a_months():
    from datetime import date

    from conftest_exports import LATEST_DAY, ranking_for
    from gpuvalue.warehouse.report import ranking_table

    rows = [dict(r) for r in ranking_for(LATEST_DAY)][:4]
    for row in rows[:2]:
        row["price_tier"] = "recent"
    for row in rows[2:]:
        row.update(price_tier="older", price_kind="index", price_as_of=date(2023, 10, 1), price_n=88,
                   price_source="tomshardware-ebay-index")
    table = BeautifulSoup(ranking_table(rows, comparable_days=90), "lxml")
    headings = [th.get_text() for th in table.select("tr.tier th")]
    assert headings[0].startswith("Priced within 90 days of the newest price")
    assert headings[1].startswith("Older prices (all on 2023-10-01): ranked after the recent ones")
    tier_rows = [tr for tr in table.select("tr") if "tier" in (tr.get("class") or [])]
    assert table.select("tr")[1] is tier_rows[0]  # the recent heading comes before the first row
    assert "2023-10 (month)" in table.get_text() and "2023-10-01\n" not in table.get_text()
    one_tier = BeautifulSoup(ranking_table(rows[:2], comparable_days=90), "lxml")
    assert one_tier.select("tr.tier") == []  # one tier needs no heading


def test_each_memory_class_shows_recent_prices_before_older_ones():
    from conftest_exports import LATEST_DAY, ranking_for
    from gpuvalue.models.memory_class import memory_class
    from gpuvalue.warehouse.report import _ppd_groups, usable

    rows = [dict(r, price_tier="recent") for r in ranking_for(LATEST_DAY)]
    by_class: dict = {}
    for row in rows:
        if usable(row):
            by_class.setdefault(memory_class(row.get("memory_gb")), []).append(row)
    label, members = next((c, m) for c, m in by_class.items() if len(m) >= 2)
    best = max(members, key=lambda r: r["perf_per_dollar"])
    best["price_tier"] = "older"  # the class's best value, but an older price: it goes after the recent ones
    shown = dict(_ppd_groups(rows))[label]
    assert shown[0] is not best and best in shown[1:] or best not in shown


def test_the_value_frontier_compares_recently_priced_cards_only():
    from conftest_exports import LATEST_DAY, ranking_for
    from gpuvalue.warehouse.report import frontier_candidates, usable

    rows = [dict(r, price_tier="recent") for r in ranking_for(LATEST_DAY)]
    usable_rows = [i for i, r in enumerate(rows) if usable(r)]
    rows[usable_rows[0]]["price_tier"] = "older"
    assert frontier_candidates(rows) == usable_rows[1:]
    every_older = [dict(r, price_tier="older") for r in rows]
    assert frontier_candidates(every_older) == usable_rows  # no recent price: the older ones compare


def test_older_prices_are_drawn_faded_beside_recent_ones_and_the_legend_says_so():
    """A 2023 index price drawn like a 2025 asking price reads as one of today's prices."""
    from conftest_exports import LATEST_DAY, ranking_for
    from gpuvalue.warehouse.report import (OLDER_FILL, ppd_chart, ppd_chart_narrow, row_tip, scatter_caption,
                                           scatter_chart, scatter_chart_narrow, usable)

    rows = [dict(r, price_tier="recent") for r in ranking_for(LATEST_DAY)]
    older = [i for i, r in enumerate(rows) if usable(r)][:2]
    for i in older:
        rows[i]["price_tier"] = "older"
    for chart in (scatter_chart(rows), scatter_chart_narrow(rows)):
        svg = BeautifulSoup(chart, "lxml")
        marks = svg.select("circle.mark")
        faded = [m for m in marks if m.get("fill-opacity") == "0.3"]
        assert sorted(m["data-tip"] for m in faded) == sorted(marks[i]["data-tip"] for i in older)
        assert "older price" in svg.get_text()
    assert "older prices are drawn faded" in scatter_caption(rows, "GeForce RTX 3090")
    # The bars by memory class: an older price's bar is faded and carries its month.
    for chart in (ppd_chart(rows), ppd_chart_narrow(rows)):
        svg = BeautifulSoup(chart, "lxml")
        faded = {bar["data-tip"] for bar in svg.select("rect.mark") if bar.get("fill-opacity") == "0.3"}
        assert faded == {row_tip(rows[i]) for i in older}
        months = {f"({rows[i]['price_as_of']:%Y-%m})" for i in older}
        assert all(any(month in text for text in svg.stripped_strings) for month in months)
    # One tier only: nothing to tell apart, so nothing is faded and the legend has no such entry.
    for same_age in ([dict(r, price_tier="recent") for r in rows], [dict(r, price_tier="older") for r in rows]):
        chart = scatter_chart(same_age)
        assert OLDER_FILL not in chart and "older price" not in chart
        assert 'fill-opacity="0.3"' not in ppd_chart(same_age)
        assert "drawn faded" not in scatter_caption(same_age, "GeForce RTX 3090")


def test_a_report_of_a_ranking_long_before_it_was_written_says_so_at_the_top(tmp_path):
    from datetime import timedelta

    later = write_report(make_ranking_database(), tmp_path / "later", generated_at=GENERATED + timedelta(days=400))
    header = BeautifulSoup(later.read_text(encoding="utf-8"), "lxml").find("header").get_text(" ", strip=True)
    assert "Note: this ranking is of 2024-05-09, 13 mo before today (2025-06-13)" in header
    same_day = write_report(make_ranking_database(), tmp_path / "same", generated_at=GENERATED)
    assert "Note: this ranking is of" not in same_day.read_text(encoding="utf-8")


def test_the_report_says_what_it_hid_and_explains_no_mark_it_cannot_show(page):
    """The README's promise (a line under the table counts what was hidden) held for rank, not for
    the report; its captions explained a † and a 'not usable' dot that a report never draws."""
    text = page.get_text(" ", strip=True)
    assert "hidden: 2 ranked card(s): 1 no PyTorch build runs it (--all), 1 not a desktop card" in text
    assert "\u2020 marks cards" not in text
    assert "not usable" not in page.find("svg", id="chart-scatter").get_text()
