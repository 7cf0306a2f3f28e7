import json
from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from gpuvalue.models.records import GpuSpec
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources.wikipedia import (
    EXTRACT_PATH,
    WikipediaGpuRow,
    cell_numbers,
    load_wikipedia_specs,
    normalize_voidful_records,
    parse_launch,
    parse_wikipedia_gpu_list,
    read_extract,
    resolve_wikipedia_rows,
    rows_to_csv,
    usd_price,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "specs"
NVIDIA_URL = "https://en.wikipedia.org/w/api.php?action=parse&page=List_of_Nvidia_graphics_processing_units"


@pytest.fixture(scope="module")
def voidful_rows():
    data = json.loads((FIXTURES / "voidful_gpu-info-api_excerpt.json").read_text(encoding="utf-8"))
    return {r.key: r for r in normalize_voidful_records(data)}


def test_cell_numbers_never_fuse_and_drop_alternatives():
    assert cell_numbers("448.0 / 576.0") == [448.0, 576.0]
    assert cell_numbers("66.5 73.5") == [66.5, 73.5]
    assert cell_numbers("266 (532) 294 (588)") == [266.0, 294.0]
    assert cell_numbers("8,286 10,544") == [8286.0, 10544.0]
    assert cell_numbers("2x 11.2") == [11.2]
    assert cell_numbers("63.7×2") == [63.7]
    assert cell_numbers("16.20–17.00") == [16.2, 17.0]
    assert cell_numbers("12.74[12]") == [12.74]
    assert cell_numbers("nan") == []
    assert cell_numbers("?") == []
    assert cell_numbers("Un\xadknown") == []


def test_prices_only_in_us_dollars():
    assert usd_price("$400 (dropped to $270 after 3 months)", True) == 400.0
    assert usd_price("$1,299", False) == 1299.0
    assert usd_price("¥12,999", True) is None
    assert usd_price("OEM", True) is None
    assert usd_price("HK$3,999", True) is None
    assert usd_price("699", True) == 699.0
    assert usd_price("699", False) is None


def test_launch_dates():
    assert parse_launch("2020-09-17 00:00:00") == (date(2020, 9, 17), 2020)
    assert parse_launch("2015-01-01 00:00:00") == (None, 2015)  # a bare year stored as Jan 1
    assert parse_launch("February 8, 2023") == (date(2023, 2, 8), 2023)
    assert parse_launch("October12, 2022") == (date(2022, 10, 12), 2022)
    assert parse_launch("Aug 14, 2017") == (date(2017, 8, 14), 2017)
    assert parse_launch("January 2006") == (None, 2006)
    assert parse_launch("nan") == (None, None)


def test_voidful_records_whole_rows(voidful_rows):
    assert voidful_rows["NVIDIA_GA102-200-A1"] == WikipediaGpuRow(
        key="NVIDIA_GA102-200-A1", name="GeForce RTX 3080", vendor="NVIDIA", launch_date=date(2020, 9, 17),
        launch_year=2020, memory_gb=10.0, bandwidth_gb_s=760.0, memory_bus_bits=320, tdp_w=320, fp32_tflops=29.77,
        launch_price_usd=699.0, launch_price_text="$699",
    )
    assert voidful_rows["NVIDIA_AD102-250"] == WikipediaGpuRow(
        key="NVIDIA_AD102-250", name="GeForce RTX 4090 D", vendor="NVIDIA", launch_date=date(2023, 12, 28),
        launch_year=2023, memory_gb=24.0, bandwidth_gb_s=1008.0, memory_bus_bits=384, tdp_w=425, fp32_tflops=73.5,
        launch_price_usd=None, launch_price_text="¥12,999",
    )
    assert voidful_rows["NVIDIA_GT200-100-A2"] == WikipediaGpuRow(
        key="NVIDIA_GT200-100-A2", name="GeForce GTX 260", vendor="NVIDIA", launch_date=date(2008, 6, 16),
        launch_year=2008, memory_gb=0.875, bandwidth_gb_s=111.9, memory_bus_bits=448, tdp_w=182, fp32_tflops=0.477,
        launch_price_usd=400.0, launch_price_text="$400 (dropped to $270 after 3 months)",
    )
    assert voidful_rows["AMD_nan_112"] == WikipediaGpuRow(
        key="AMD_nan_112", name="Radeon R9 380", vendor="AMD", launch_date=None, launch_year=2015, memory_gb=2.0,
        bandwidth_gb_s=182.4, memory_bus_bits=256, tdp_w=190, fp32_tflops=3.4765,
    )
    assert voidful_rows["NVIDIA_GT216 GT218"].launch_price_text == "OEM"
    assert voidful_rows["NVIDIA_GT216 GT218"].launch_price_usd is None
    assert voidful_rows["NVIDIA_NV1"].tdp_w is None  # "?"
    dual = voidful_rows["NVIDIA_2x G71"]
    assert (dual.name, dual.memory_gb, dual.bandwidth_gb_s) == ("GeForce 7900 GX2", 0.5, 38.4)


def test_voidful_junk_records_are_dropped(voidful_rows):
    assert "NVIDIA_Code name_10" not in voidful_rows  # a repeated header row
    assert "AMD_nan_436" not in voidful_rows  # "2×" is no product name


def test_shipped_extract_matches_its_builder():
    rows = read_extract()
    assert len(rows) == 1638
    assert {r.vendor for r in rows} == {"NVIDIA", "AMD", "Intel"}
    text = EXTRACT_PATH.read_text(encoding="utf-8")
    assert "voidful/gpu-info-api@03a6b34a8cc7b761a0b70a5956a478c76062e6ec" in text.splitlines()[0]
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#")) + "\n"
    assert body == rows_to_csv(rows)


def test_load_wikipedia_specs_resolves_to_catalog_names():
    specs = {s.model: s for s in load_wikipedia_specs()}
    assert specs["GeForce RTX 3090"] == GpuSpec(
        model="GeForce RTX 3090", source="wikipedia", fetched_at=datetime(2025, 6, 16, tzinfo=timezone.utc),
        vendor="NVIDIA", release_date=date(2020, 9, 24), memory_gb=24.0, memory_bus_bits=384, bandwidth_gb_s=935.8,
        tdp_w=350, fp32_tflops=35.58, launch_price_usd=1499.0,
    )
    assert specs["GeForce RTX 3060 12 GB"].launch_price_usd == 329.0
    assert "Radeon RX 6800 XT" in specs
    assert 1000 < len(specs) < 1638


def test_unresolved_rows_are_counted():
    rows = [
        WikipediaGpuRow(key="a", name="GeForce RTX 3060", memory_gb=12.0),
        WikipediaGpuRow(key="b", name="GeForce RTX 3060"),  # no memory: 8 or 12 GB?
        WikipediaGpuRow(key="c", name="Arc 7"),
    ]
    result = resolve_wikipedia_rows(rows, ["GeForce RTX 3060 12 GB", "GeForce RTX 3060 8 GB", "Arc A770"],
                                    datetime(2025, 6, 16, tzinfo=timezone.utc))
    assert [s.model for s in result.specs] == ["GeForce RTX 3060 12 GB"]
    assert result.unresolved == ["GeForce RTX 3060", "Arc 7"]


def test_wikitable_html_rows():
    html = (FIXTURES / "wikipedia_list_of_nvidia_gpus_handwritten.html").read_bytes()
    rows = parse_wikipedia_gpu_list(html, NVIDIA_URL)
    assert [r.name for r in rows] == [
        "GeForce RTX 3060", "GeForce RTX 3060", "GeForce RTX 3060 Ti", "GeForce RTX 3090", "GeForce RTX 3090 D"]
    assert rows[0] == WikipediaGpuRow(
        key=NVIDIA_URL + "#t0r0", name="GeForce RTX 3060", vendor="NVIDIA", launch_date=date(2021, 2, 25),
        launch_year=2021, memory_gb=12.0, bandwidth_gb_s=360.0, memory_bus_bits=192, tdp_w=170, fp32_tflops=13.06,
        launch_price_usd=329.0, launch_price_text="$329",
    )
    # the rowspan'd code name and bus type reach the second row; its name loses the "(8 GB)" note
    assert rows[1] == WikipediaGpuRow(
        key=NVIDIA_URL + "#t0r1", name="GeForce RTX 3060", vendor="NVIDIA", launch_date=date(2022, 10, 27),
        launch_year=2022, memory_gb=8.0, bandwidth_gb_s=240.0, memory_bus_bits=128, tdp_w=170, fp32_tflops=12.74,
        launch_price_usd=None, launch_price_text="OEM",
    )
    ti = rows[2]
    assert cell_numbers("448.0 / 576.0") == [448.0, 576.0]
    assert ti.bandwidth_gb_s == 576.0  # both values seen, not "448.0576.0"
    assert (ti.fp32_tflops, ti.launch_price_usd, ti.memory_bus_bits) == (17.0, 399.0, 256)
    assert rows[4].launch_price_usd is None and rows[4].launch_price_text == "¥11,999"
    assert (rows[4].launch_date, rows[4].launch_year) == (None, 2021)


def test_wikitable_bandwidth_pair_is_two_numbers():
    html = """<table class="wikitable"><tr><th>Model</th><th>Memory Bandwidth (GB/s)</th></tr>
    <tr><th>GeForce RTX 3060 Ti</th><td>448.0<br>576.0</td></tr></table>"""
    (row,) = parse_wikipedia_gpu_list(html, NVIDIA_URL)
    assert row.bandwidth_gb_s == 576.0
    assert row.bandwidth_gb_s != 448.0576


def test_page_without_gpu_table_raises():
    with pytest.raises(ParseError, match="wikitable"):
        parse_wikipedia_gpu_list("<html><body><p>No tables here</p></body></html>", NVIDIA_URL)
    with pytest.raises(ParseError):
        parse_wikipedia_gpu_list(b"\x00\xff\xfe garbage", NVIDIA_URL)
    with pytest.raises(ParseError):
        parse_wikipedia_gpu_list('<table class="wikitable"><tr><th>Year</th></tr><tr><td>1</td></tr></table>',
                                 NVIDIA_URL)
