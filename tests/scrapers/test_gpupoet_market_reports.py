"""GPU Poet's monthly market reports: best-deal prices read from the real report files.

``LABELS`` holds, per report, every card price the reader takes, checked by hand against the report's
own words (its table's best-deal column or the sentence that ties the figure to the card for the
report's month). The reader must take nothing else (precision 1.0) and never a cost per FPS, TOP or
TFLOP, an MSRP, or another month's figure (``TRAPS``).
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from gpuvalue.models.index_matching import match_name, match_points
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.github_commits import last_commit_url, raw_url
from gpuvalue.scrapers.registry import get as get_source
from gpuvalue.scrapers.source import page_from_file
from gpuvalue.scrapers.sources import gpupoet_market_reports as reports

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / reports.FIXTURE_DIR
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)

LABELS = {
    "january-2026": {
        "amd-radeon-rx-6900-xt": 290, "amd-radeon-rx-6950-xt": 335, "nvidia-geforce-rtx-3070": 168,
        "nvidia-geforce-rtx-3080-ti": 363, "nvidia-geforce-rtx-5080": 900, "nvidia-geforce-rtx-5090": 2088,
        "nvidia-t4": 387, "nvidia-tesla-p100": 83, "nvidia-tesla-v100-16gb": 298, "nvidia-tesla-v100-32gb": 610,
    },
    "february-2026": {
        "amd-radeon-rx-6900-xt": 290, "amd-radeon-rx-6950-xt": 335, "amd-radeon-rx-7600": 164,
        "amd-radeon-rx-7700-xt": 300, "amd-radeon-rx-7800-xt": 385, "amd-radeon-rx-9070-xt": 685,
        "nvidia-a100-pcie": 26098, "nvidia-geforce-rtx-3060-ti": 160, "nvidia-geforce-rtx-3070": 145,
        "nvidia-geforce-rtx-3080": 240, "nvidia-geforce-rtx-3080-ti": 363, "nvidia-geforce-rtx-3090": 599,
        "nvidia-geforce-rtx-4060": 205, "nvidia-geforce-rtx-4070-super": 447, "nvidia-geforce-rtx-4090": 2142,
        "nvidia-geforce-rtx-5060": 270, "nvidia-geforce-rtx-5060-ti": 425, "nvidia-geforce-rtx-5070": 500,
        "nvidia-geforce-rtx-5070-ti": 822, "nvidia-geforce-rtx-5080": 1016, "nvidia-geforce-rtx-5090": 2933,
        "nvidia-h100-pcie": 55002, "nvidia-l4": 2162, "nvidia-l40": 9631, "nvidia-l40s": 9516, "nvidia-t4": 543,
        "nvidia-tesla-p100": 83, "nvidia-tesla-v100-16gb": 312, "nvidia-tesla-v100-32gb": 703,
    },
    "march-2026": {

    },
    "april-2026": {
        "amd-radeon-rx-6800-xt": 283, "amd-radeon-rx-7600": 183, "amd-radeon-rx-7900-xt": 500,
        "intel-arc-b580": 238, "nvidia-geforce-rtx-3060-ti": 178, "nvidia-geforce-rtx-4060-ti": 240,
        "nvidia-geforce-rtx-4080": 793, "nvidia-geforce-rtx-4090": 1850, "nvidia-geforce-rtx-5080": 1032,
        "nvidia-geforce-rtx-5090": 2650, "nvidia-t4": 202, "nvidia-tesla-p100": 70, "nvidia-tesla-v100-32gb": 608,
    },
    "may-2026": {
        "amd-radeon-rx-6800-xt": 332, "amd-radeon-rx-7900-xt": 596, "amd-radeon-rx-9060-xt": 440,
        "amd-radeon-rx-9070": 411, "amd-radeon-rx-9070-xt": 700, "intel-arc-b570": 218, "intel-arc-b580": 244,
        "nvidia-a30": 2150, "nvidia-geforce-rtx-3080": 322, "nvidia-geforce-rtx-3080-ti": 525,
        "nvidia-geforce-rtx-3090": 1049, "nvidia-geforce-rtx-4060": 213, "nvidia-geforce-rtx-4070-ti": 500,
        "nvidia-geforce-rtx-4080": 870, "nvidia-geforce-rtx-4090": 2470, "nvidia-geforce-rtx-5070-ti": 815,
        "nvidia-geforce-rtx-5080": 1139, "nvidia-geforce-rtx-5090": 3643, "nvidia-l40": 4597,
        "nvidia-tesla-p100": 75,
    },
    "june-2026": {
        "amd-radeon-rx-6800-xt": 316, "amd-radeon-rx-7900-xt": 596, "amd-radeon-rx-7900-xtx": 777,
        "intel-arc-b570": 195, "intel-arc-b580": 247, "nvidia-geforce-rtx-3070": 212,
        "nvidia-geforce-rtx-3080": 322, "nvidia-geforce-rtx-4060": 207, "nvidia-geforce-rtx-4070-super": 735,
        "nvidia-geforce-rtx-4070-ti": 497, "nvidia-geforce-rtx-5090": 3657, "nvidia-tesla-p100": 75,
    },
    "july-2026": {
        "amd-radeon-rx-6800-xt": 272, "amd-radeon-rx-6900-xt": 371, "amd-radeon-rx-7600": 186,
        "amd-radeon-rx-7900-xt": 522, "amd-radeon-rx-7900-xtx": 747, "amd-radeon-rx-9060-xt": 373,
        "amd-radeon-rx-9070-xt": 607, "intel-arc-b570": 215, "intel-arc-b580": 248,
        "nvidia-geforce-rtx-3060-ti": 200, "nvidia-geforce-rtx-3070": 200, "nvidia-geforce-rtx-3080": 295,
        "nvidia-geforce-rtx-3080-ti": 407, "nvidia-geforce-rtx-4070-ti": 532,
        "nvidia-geforce-rtx-4070-ti-super": 698, "nvidia-geforce-rtx-4080": 837, "nvidia-geforce-rtx-5050": 263,
        "nvidia-geforce-rtx-5060": 270, "nvidia-geforce-rtx-5060-ti": 441, "nvidia-geforce-rtx-5070": 518,
        "nvidia-geforce-rtx-5070-ti": 720, "nvidia-geforce-rtx-5080": 933, "nvidia-tesla-p100": 57,
    },
    "august-2026": {
        "amd-radeon-rx-6900-xt": 297, "amd-radeon-rx-7600": 189, "amd-radeon-rx-7700-xt": 340,
        "amd-radeon-rx-7900-xt": 542, "amd-radeon-rx-7900-xtx": 781, "intel-arc-b570": 202, "intel-arc-b580": 241,
        "nvidia-geforce-rtx-3060-ti": 200, "nvidia-geforce-rtx-3070": 210, "nvidia-geforce-rtx-3080": 305,
        "nvidia-geforce-rtx-3080-ti": 393, "nvidia-geforce-rtx-4070-ti": 535, "nvidia-geforce-rtx-4080": 730,
        "nvidia-geforce-rtx-4080-super": 882, "nvidia-geforce-rtx-5050": 250, "nvidia-geforce-rtx-5060": 258,
        "nvidia-geforce-rtx-5060-ti": 478, "nvidia-geforce-rtx-5070": 507, "nvidia-geforce-rtx-5070-ti": 807,
        "nvidia-geforce-rtx-5080": 959, "nvidia-geforce-rtx-5090": 2873, "nvidia-tesla-p100": 72,
    },
    "october-2026": {
        "amd-radeon-rx-6900-xt": 400, "amd-radeon-rx-6950-xt": 418, "nvidia-geforce-rtx-3080-ti": 453,
        "nvidia-geforce-rtx-3090": 1207, "nvidia-geforce-rtx-5060": 328, "nvidia-geforce-rtx-5060-ti": 600,
        "nvidia-geforce-rtx-5070": 557, "nvidia-geforce-rtx-5070-ti": 895, "nvidia-geforce-rtx-5080": 1233,
        "nvidia-geforce-rtx-5090": 4795,
    },
}

# (report, card, figure): written in the report beside the card, but not the card's best deal of the
# report's month: a cost per frame/TOP/TFLOP, an MSRP, a previous month's price, an average or median.
TRAPS = [
    ("june-2026", "amd-radeon-rx-9070", 404),  # "Last month I called out the RX 9070 at $404 best deal"
    ("june-2026", "amd-radeon-rx-9070", 411),  # "spiked from $411 best deal in April"
    ("june-2026", "nvidia-geforce-rtx-4080-super", 1259),  # "slid from $1,259 to $1,083"
    ("january-2026", "nvidia-geforce-rtx-3070", 442),  # "average price drop (from $1,200 to $442)"
    ("october-2026", "nvidia-geforce-rtx-5090", 1999),  # MSRP
    ("october-2026", "nvidia-geforce-rtx-5090", 5258),  # new on Amazon, not the resale best deal
    ("october-2026", "amd-radeon-rx-9070-xt", 1.67),  # "$1.67" per INT8 TOP, no unit written
    ("october-2026", "nvidia-geforce-rtx-3080", 2.44),  # $/FPS
    ("june-2026", "amd-radeon-rx-6800-xt", 1.34),  # $1.34/FPS
    ("june-2026", "nvidia-tesla-p100", 7.1),  # $/TFLOP
    ("july-2026", "amd-radeon-rx-9070-xt", 599),  # its MSRP
    ("april-2026", "nvidia-geforce-rtx-5090", 1999),  # "($2,650 best deal vs. $1,999)": the MSRP after "vs."
    ("april-2026", "nvidia-geforce-rtx-3090", 691),  # "up 23% ($691 to $849)": the month before
    ("april-2026", "amd-radeon-rx-9070-xt", 635),  # "($635 vs. $599)": not stated as the best deal
    ("february-2026", "nvidia-geforce-rtx-3070", 1215),  # "-63.5% ($1,215 → $444)": average prices
    ("march-2026", "nvidia-geforce-rtx-3080-ti", 400),  # "~$400 best deal": approximate
    ("august-2026", "nvidia-geforce-rtx-3060-ti", 1.13),  # $/FPS before "($200 best deal"
]


def _report(name: str):
    meta = reports.read_metadata((FIXTURES / name / "metadata.ts").read_bytes(), name)
    prices, warnings = reports.read_report_prices((FIXTURES / name / "page.tsx").read_bytes(), name, meta.month,
                                                  meta.prices)
    return meta, {p.card: p.usd for p in prices}, warnings


@pytest.mark.parametrize("name", reports.RECORDED)
def test_every_price_read_is_a_labelled_best_deal(name: str) -> None:
    _, read, _ = _report(name)
    wrong = {card: usd for card, usd in read.items() if LABELS[name].get(card) != usd}
    assert wrong == {}, f"precision below 1.0 in {name}"
    assert set(read) == set(LABELS[name])


def test_precision_over_all_reports_is_one_and_traps_are_never_read() -> None:
    read = [(name, card, usd) for name in reports.RECORDED for card, usd in _report(name)[1].items()]
    correct = sum(1 for name, card, usd in read if LABELS[name].get(card) == usd)
    assert len(read) >= 100 and correct / len(read) == 1.0
    for name, card, figure in TRAPS:
        assert _report(name)[1].get(card) != figure, (name, card, figure)


def test_a_card_given_two_prices_in_one_report_gets_none() -> None:
    _, read, warnings = _report("april-2026")
    assert "nvidia-geforce-rtx-3080" not in read  # $276 (4K) and $282 (inference) in one report
    assert any("nvidia-geforce-rtx-3080 is given 2 prices" in w for w in warnings)


def test_metadata_dates_the_report_by_its_date_range() -> None:
    october, _, _ = _report("october-2026")
    assert (october.month, october.published) == (date(2026, 9, 1), date(2026, 10, 1))
    january, _, _ = _report("january-2026")
    february, _, _ = _report("february-2026")
    assert january.month == february.month == date(2026, 1, 1)  # two reports cover January
    with pytest.raises(ParseError, match="not one month"):
        reports.read_metadata(b'slug: "gpu-market-report-may-2026", publishedAt: new Date("2026-05-04T06:00:00Z"), '
                              b'dateRange: { from: "2026-03", to: "2026-04" }', "x")


def _pages() -> list:
    return [r.page for r in reports._replay(FIXTURES.parents[1])]


def test_the_fetch_prices_each_month_by_its_latest_report_and_corrections_win() -> None:
    points, warnings = reports.read_fetch(_pages())
    assert all(p.model is None and p.match_reason is None for p in points)  # the parser matches nothing
    points = match_points(points, reports.NAMING)  # the enrich stage does
    by = {(p.model, p.month): p for p in points}
    assert by[("GeForce RTX 5090", date(2026, 9, 1))].avg_sold_usd == 4795
    assert by[("GeForce RTX 3090", date(2026, 9, 1))].avg_sold_usd == 1207
    # January: the February report (published later) wins over the January one ($2,088)
    assert by[("GeForce RTX 5090", date(2026, 1, 1))].avg_sold_usd == 2933
    # The October report corrects the August report's $2,873 (July) and states August's $3,897
    assert by[("GeForce RTX 5090", date(2026, 7, 1))].avg_sold_usd == 3173
    assert by[("GeForce RTX 5090", date(2026, 8, 1))].avg_sold_usd == 3897
    for point in points:
        assert point.quantity_sold is None and point.prices_averaged == 3
        assert point.table.endswith("/page.tsx") and point.gpu_name
    assert any("october-2026 last changed is unknown" in w for w in warnings)


def test_every_declared_correction_is_stated_by_its_report() -> None:
    for fix in reports.CORRECTIONS:
        body = (FIXTURES / fix.report / "page.tsx").read_bytes()
        assert fix in reports.stated_corrections(fix.report, body)


def test_a_date_range_after_the_last_commit_is_refused() -> None:
    report = reports.REPORTS[0]
    meta = (FIXTURES / report.name / "metadata.ts").read_bytes().replace(b'"2026-01"', b'"2026-05"').replace(
        b'publishedAt: new Date("2026-01', b'publishedAt: new Date("2026-06')
    answer = (b'[{"sha": "' + b"a" * 40 + b'", "commit": {"committer": {"date": "2026-04-16T19:13:22Z"}}}]')
    pages = [page_from_file(reports.NAME, answer, last_commit_url(report.repo, report.folder), NOW),
             page_from_file(reports.NAME, meta, raw_url(report.repo, "a" * 40, f"{report.folder}/metadata.ts"), NOW),
             page_from_file(reports.NAME, (FIXTURES / report.name / "page.tsx").read_bytes(),
                            raw_url(report.repo, "a" * 40, f"{report.folder}/page.tsx"), NOW)]
    points, warnings = reports.read_fetch(pages)
    assert points == [] and any("begins after its last commit" in w for w in warnings)


def test_a_page_alone_is_checked_and_garbage_is_a_parse_error() -> None:
    source = get_source(reports.NAME)
    page = page_from_file(reports.NAME, (FIXTURES / "june-2026" / "page.tsx").read_bytes(), source.sample_url, NOW)
    assert source.parse(page).records == []
    with pytest.raises(ParseError):
        source.parse(page_from_file(reports.NAME, b"<html>not a report</html>", source.sample_url, NOW))


def test_declared_keyless_with_its_licence_and_statistic() -> None:
    source = get_source(reports.NAME)
    assert source.kind == "price_index" and source.licence == "CC BY-SA 4.0"
    assert "CC BY-SA 4.0" in source.attribution
    assert source.statistic == "mean of the {n} cheapest asking prices"


def test_a_report_published_after_the_known_ones_is_found_in_the_folder_listing() -> None:
    listing = (b'[{"name": "components", "type": "dir"}, {"name": "gpu-market-report-october-2026", "type": "dir"},'
               b' {"name": "gpu-market-report-november-2026", "type": "dir"}, {"name": "layout.tsx", "type": "file"}]')
    found = reports.listed_reports(listing, "activescott/gpu-poet")
    assert [r.name for r in found] == ["october-2026", "november-2026"]
    assert reports.report_of(raw_url("activescott/gpu-poet", "main", f"{found[1].folder}/page.tsx")) == (
        found[1], "page.tsx")
    with pytest.raises(ValueError):
        reports.listed_reports(b'{"message": "API rate limit exceeded"}', "activescott/gpu-poet")


def _match_card(card: str, name: str) -> tuple[str | None, str]:
    """A card as the enrich stage matches it: its link's title, with the source's naming."""
    return match_name(reports.card_title(card, name), reports.NAMING)


def test_a_card_that_names_no_memory_of_several_is_left_unmatched() -> None:
    assert _match_card("nvidia-geforce-rtx-4060-ti", "RTX 4060 Ti")[0] is None  # 8 GB or 16 GB
    assert _match_card("nvidia-tesla-p100", "Tesla P100")[1].startswith("ambiguous")
    assert _match_card("nvidia-tesla-v100-32gb", "V100 32GB")[0] == "Tesla V100 PCIe 32 GB"
    # the reports themselves label this link 16 GB (the October table's "RTX 5060 Ti (16GB)")
    assert _match_card("nvidia-geforce-rtx-5060-ti", "5060 Ti")[0] == "GeForce RTX 5060 Ti 16 GB"
    assert _match_card("nvidia-geforce-rtx-3090", "RTX 3090")[0] == "GeForce RTX 3090"
