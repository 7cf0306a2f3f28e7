from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from gpuvalue.models.records import GpuSpec, TechPowerUpRow
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources.techpowerup import (
    bandwidth_gb_s,
    listing_url,
    parse_techpowerup_listing,
    split_query,
    techpowerup_rows_to_specs,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "specs"
TPU = "https://www.techpowerup.com/gpu-specs/"


def page(year: int):
    html = (FIXTURES / f"techpowerup_gpu-specs_released-{year}_2023-01-09.html").read_bytes()
    return parse_techpowerup_listing(html, listing_url({"released": str(year), "sort": "name"}))


def row(p, name, index=0):
    return [r for r in p.rows if r.name == name][index]


def test_listing_url_is_deterministic():
    assert listing_url({"sort": "name", "released": "2020"}) == TPU + "?released=2020&sort=name"
    assert listing_url({"workstation": "No", "sort": "name", "mfgr": "NVIDIA", "released": "2022", "mobile": "No"}) == (
        TPU + "?mfgr=NVIDIA&released=2022&mobile=No&sort=name&workstation=No"
    )


def test_split_query_converges():
    first = split_query({"released": "2022", "sort": "name"})
    assert [q["mfgr"] for q in first] == ["AMD", "Intel", "NVIDIA"]
    second = split_query(first[2])
    assert second == [
        {"released": "2022", "sort": "name", "mfgr": "NVIDIA", "mobile": "No"},
        {"released": "2022", "sort": "name", "mfgr": "NVIDIA", "mobile": "Yes"},
    ]
    query, depth = {"released": "2022"}, 0
    while subs := split_query(query):
        query, depth = subs[-1], depth + 1
    assert depth == 4
    assert query == {"released": "2022", "mfgr": "NVIDIA", "mobile": "Yes", "igp": "Yes", "workstation": "Yes"}
    assert split_query(query) == []


@pytest.mark.parametrize(
    "year, total, vendors, capped",
    [(2016, 101, (55, 8, 38), True), (2020, 91, (33, 15, 43), False),
     (2022, 101, (27, 23, 51), True), (2023, 32, (14, 0, 18), False)],
)
def test_every_row_parses(year, total, vendors, capped):
    p = page(year)
    assert len(p.rows) == total
    assert tuple(sum(r.vendor == v for r in p.rows) for v in ("AMD", "Intel", "NVIDIA")) == vendors
    assert p.capped is capped
    assert p.captured_on == date(2023, 1, 9)
    assert all(r.url and r.url.startswith(TPU) for r in p.rows)


def test_plain_row():
    assert row(page(2020), "GeForce RTX 3090") == TechPowerUpRow(
        name="GeForce RTX 3090", vendor="NVIDIA", chip="GA102", release_date=date(2020, 9, 1), released=True,
        bus_interface="PCIe 4.0 x16", memory_gb=24.0, memory_type="GDDR6X", memory_bus_bits=384,
        gpu_clock_mhz=1395, memory_clock_mhz=1219, shading_units=10496, tmus=328, rops=112,
        url=TPU + "geforce-rtx-3090.c3622", release_text="Sep 1st, 2020",
    )


def test_a_row_linking_nowhere_a_url_parser_reads_keeps_its_specs_without_a_page():
    html = (FIXTURES / "techpowerup_gpu-specs_released-2020_2023-01-09.html").read_bytes()
    assert b'href="/gpu-specs/geforce-rtx-3090.c3622"' in html
    broken = html.replace(b'href="/gpu-specs/geforce-rtx-3090.c3622"', b'href="http://[x/gpu-specs/c3622"')
    parsed = parse_techpowerup_listing(broken, listing_url({"released": "2020", "sort": "name"}))
    assert row(parsed, "GeForce RTX 3090") == row(page(2020), "GeForce RTX 3090").model_copy(update={"url": None})


def test_megabyte_memory_and_shared_memory_rows():
    p = page(2016)
    assert row(p, "GeForce 945M") == TechPowerUpRow(
        name="GeForce 945M", vendor="NVIDIA", chip="GM108", release_date=date(2016, 4, 8), released=True,
        bus_interface="PCIe 3.0 x8", memory_gb=1.0, memory_type="DDR3", memory_bus_bits=64,
        gpu_clock_mhz=1006, memory_clock_mhz=1001, shading_units=384, tmus=24, rops=8,
        url=TPU + "geforce-945m.c2836", release_text="Apr 8th, 2016",
    )
    assert row(p, "HD Graphics 610", 1) == TechPowerUpRow(
        name="HD Graphics 610", vendor="Intel", chip="Kaby Lake GT1", release_date=date(2016, 8, 30), released=True,
        bus_interface="Ring Bus", memory_gb=None, memory_type="System Shared", memory_bus_bits=None,
        gpu_clock_mhz=300, memory_clock_mhz=None, shading_units=96, tmus=12, rops=2,
        url=TPU + "hd-graphics-610.c3102", release_text="Aug 30th, 2016",
    )


def test_duplicates_are_kept_in_page_order():
    names = [r.name for r in page(2016).rows]
    assert names.count("Radeon R5 M430") == 2
    first, second = [r for r in page(2016).rows if r.name == "Radeon R5 M430"]
    assert (first.chip, first.memory_gb) == ("Exo", 4.0)
    assert (second.chip, second.memory_gb) == ("Jet", 2.0)


def test_never_released_unknown_and_year_only_dates():
    p = page(2022)
    assert row(p, "GeForce RTX 4080 12 GB") == TechPowerUpRow(
        name="GeForce RTX 4080 12 GB", vendor="NVIDIA", chip="AD104", release_date=None, released=False,
        bus_interface="PCIe 4.0 x16", memory_gb=12.0, memory_type="GDDR6X", memory_bus_bits=192,
        gpu_clock_mhz=2310, memory_clock_mhz=1313, shading_units=7680, tmus=240, rops=80,
        url=TPU + "geforce-rtx-4080-12-gb.c3932", release_text="Never Released",
    )
    mx570 = row(p, "GeForce MX570")
    assert (mx570.release_date, mx570.release_text, mx570.released) == (None, "May 2022", True)
    a310 = row(p, "Arc A310")
    assert (a310.release_date, a310.release_text, a310.released) == (None, "2022", True)
    t10 = row(p, "Tesla T10")
    assert (t10.release_date, t10.release_text, t10.released) == (None, "Unknown", True)
    arctic = row(p, "Arctic Sound-M")
    assert (arctic.memory_type, arctic.memory_bus_bits, arctic.memory_clock_mhz) == ("HBM2e", 4096, 1200)


def test_rumoured_cards_on_the_future_page_are_unreleased():
    p = page(2023)
    assert row(p, "GeForce RTX 4090 Ti") == TechPowerUpRow(
        name="GeForce RTX 4090 Ti", vendor="NVIDIA", chip="AD102", release_date=None, released=False,
        bus_interface="PCIe 4.0 x16", memory_gb=48.0, memory_type="GDDR6X", memory_bus_bits=384,
        gpu_clock_mhz=2355, memory_clock_mhz=1500, shading_units=18176, tmus=568, rops=192,
        url=TPU + "geforce-rtx-4090-ti.c3917", release_text="2023",
    )
    unreleased = {r.name for r in p.rows if not r.released}
    assert {"RTX TITAN Ada", "Radeon RX 7990 XTX", "GeForce RTX 4050 Mobile"} <= unreleased
    # cards launched on the page's own first days were out when it was captured
    assert row(p, "Radeon RX 7600M XT").released is True
    assert row(p, "Radeon RX 7600M XT").release_date == date(2023, 1, 4)


def test_capture_date_can_be_given():
    html = (FIXTURES / "techpowerup_gpu-specs_released-2023_2023-01-09.html").read_bytes()
    later = parse_techpowerup_listing(html, listing_url({"released": "2023"}), captured_on=date(2024, 6, 1))
    assert row(later, "GeForce RTX 4090 Ti").released is True  # by then 2023 was over
    assert row(later, "Radeon RX 7990 XTX").released is True


def test_missing_table_renamed_header_and_garbage_raise():
    html = (FIXTURES / "techpowerup_gpu-specs_released-2020_2023-01-09.html").read_text(encoding="utf-8")
    url = listing_url({"released": "2020"})
    with pytest.raises(ParseError, match="table.processors"):
        parse_techpowerup_listing(html.replace('class="processors"', 'class="gpus"'), url)
    with pytest.raises(ParseError, match="Memory clock"):
        parse_techpowerup_listing(html.replace("<th>Memory clock</th>", "<th>Mem. clock</th>"), url)
    empty = html[: html.index("<tr>\n\t<td class=")] + "</table></div></body></html>"
    with pytest.raises(ParseError, match="no product rows"):
        parse_techpowerup_listing(empty, url)
    with pytest.raises(ParseError):
        parse_techpowerup_listing(b"\x89PNG\r\n\x1a\n\x00\x00garbage\xff\xfe", url)


def test_bandwidth_from_clock_bus_and_type():
    assert bandwidth_gb_s("GDDR6X", 384, 1219) == 936.2
    assert bandwidth_gb_s("GDDR6", 256, 2000) == 512.0
    assert bandwidth_gb_s("GDDR5", 256, 2000) == 256.0
    assert bandwidth_gb_s("HBM2", 4096, 876) == 897.0
    assert bandwidth_gb_s("HBM3", 5120, 1313) == 3361.3
    assert bandwidth_gb_s("GDDR7", 512, 1750) == 1792.0
    assert bandwidth_gb_s("System Shared", None, None) is None
    assert bandwidth_gb_s("Quantum RAM", 256, 1000) is None


def test_rows_to_specs():
    fetched = datetime(2023, 1, 9, 18, 49, tzinfo=timezone.utc)
    specs = techpowerup_rows_to_specs(page(2020).rows + page(2020).rows, fetched)
    assert len(specs) == 91  # overlapping pages add nothing; same-name products stay apart
    spec = next(s for s in specs if s.model == "GeForce RTX 3090")
    assert spec == GpuSpec(
        model="GeForce RTX 3090", source="techpowerup", fetched_at=fetched, vendor="NVIDIA", chip="GA102",
        release_date=date(2020, 9, 1), released=True, memory_gb=24.0, memory_type="GDDR6X",
        memory_bus_bits=384, bandwidth_gb_s=936.2, bus_interface="PCIe 4.0 x16",
        tpu_url=TPU + "geforce-rtx-3090.c3622",
    )
    igp = next(s for s in specs if s.model == "UHD Graphics 630")
    assert (igp.memory_type, igp.memory_gb, igp.bandwidth_gb_s) == (None, None, None)
