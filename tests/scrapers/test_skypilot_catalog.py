"""SkyPilot's VM catalogs as published: vast v8, lambda v8, runpod v6 (tests/fixtures/cloud/skypilot-catalog)."""

from __future__ import annotations

import csv
import io
from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from gpuvalue.models.offer_matching import match_offers
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.rental import offer_json, validate_prices
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources import skypilot_catalog as sky

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
VAST, LAMBDA, RUNPOD = sky.CATALOG_FILES
AS_OF = date(2025, 6, 1)


def body(f: sky.CatalogFile) -> bytes:
    return (FIXTURES / f.fixture).read_bytes()


def gpu_rows(f: sky.CatalogFile) -> list[dict[str, str]]:
    return [r for r in csv.DictReader(io.StringIO(body(f).decode())) if r["AcceleratorName"]]


def parse(f: sky.CatalogFile, data: bytes | None = None):
    """The file's offers, matched as the enrich stage matches them, with SkyPilot's reading of its names."""
    return match_offers(sky.parse_skypilot_catalog(body(f) if data is None else data, f.url, AS_OF), sky.read_gpu_name)


def to_csv(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


@pytest.mark.parametrize("f", sky.CATALOG_FILES, ids=lambda f: f.path)
def test_one_offer_per_gpu_row_in_file_order(f):
    offers = parse(f)
    rows = gpu_rows(f)
    assert len(offers) == len(rows)
    assert [(o.instance_type, o.region) for o in offers] == [(r["InstanceType"], r["Region"] or None) for r in rows]
    assert all(o.source == "skypilot-catalog" and o.as_of == AS_OF and o.currency == "USD" for o in offers)
    assert all(o.usd_per_gpu_hour == pytest.approx(o.usd_per_hour / o.gpu_count) for o in offers)
    kept, dropped = validate_prices(offers)
    assert dropped == []


def test_provider_comes_from_the_url():
    assert sky.provider_from_url(VAST.url) == "vast"
    assert sky.provider_from_url(LAMBDA.url) == "lambda"
    assert sky.provider_from_url("https://example.org/catalogs/v6/runpod/vms.csv") == "runpod"
    assert sky.provider_from_url("file:///tmp/saved/v8_vast_vms.csv") == "vast"  # a saved copy, by file name
    assert sky.provider_from_url("lambda_vms.csv") == "lambda"
    for url in ("https://example.org/", "file:///tmp/prices.csv", ""):
        with pytest.raises(ParseError):
            sky.provider_from_url(url)
    assert {o.provider for o in parse(RUNPOD)} == {"runpod"}


def test_vast_zero_spot_means_no_spot_and_memory_is_split_per_gpu():
    offers = parse(VAST)
    assert all(o.spot_usd_per_gpu_hour is None and o.spot_usd_per_hour is None for o in offers)
    h200 = next(o for o in offers if o.instance_type == "2x-H200-32-65536")
    assert h200.gpu_count == 2 and h200.usd_per_hour == 5.18 and h200.usd_per_gpu_hour == 2.59
    assert h200.gpu_memory_gb == 140.4  # 287542 MiB for two GPUs
    assert h200.region == "Michigan, US, NA" and h200.vcpus == 32 and h200.memory_gib == 64
    assert h200.model is None and h200.match_reason.startswith("ambiguous")  # SXM or NVL


def test_vast_names_come_from_the_instance_type():
    by_type = {}
    for o in parse(VAST):
        by_type.setdefault((o.instance_type, o.gpu_memory_gb), o)
    ti_super = by_type[("2x-RTX_4070S_Ti-32-65536", 16.0)]
    assert ti_super.gpu_name == "RTX4070" and ti_super.model == "GeForce RTX 4070 Ti SUPER"
    assert by_type[("1x-H100_NVL-32-65536", 93.6)].model == "H100 NVL 94 GB"
    assert by_type[("1x-A100_PCIE-32-65536", 80.0)].model == "A100 PCIe 80 GB"
    assert by_type[("2x-RTX_3060_Ti-32-65536", 8.0)].model == "GeForce RTX 3060 Ti"
    modded = by_type[("1x-RTX_4090-32-65536", 48.0)]
    assert modded.model is None and modded.match_reason.startswith("memory contradicts")
    assert by_type[("1x-RTX_4090-32-65536", 24.0)].model == "GeForce RTX 4090"


def test_lambda_skips_cpu_rows_and_reads_per_gpu_memory():
    offers = parse(LAMBDA)
    assert not any(o.instance_type.startswith("cpu_") for o in offers)
    v100 = next(o for o in offers if o.instance_type == "gpu_8x_v100")
    assert v100.gpu_count == 8 and v100.gpu_memory_gb == 16.0 and v100.usd_per_gpu_hour == 0.79
    models = {o.instance_type: o.model for o in offers}
    assert models["gpu_1x_a100"] == "A100 PCIe 40 GB"
    assert models["gpu_1x_a100_sxm4"] == "A100 SXM4 40 GB"
    assert models["gpu_8x_a100"] == "A100 SXM4 40 GB"
    assert models["gpu_1x_h100_pcie"] == "H100 PCIe 80 GB"
    assert models["gpu_8x_b200_sxm6"] == "B200"
    assert models["gpu_1x_gh200"] is None


def test_runpod_blank_spot_and_bare_gpuinfo():
    offers = parse(RUNPOD)
    a100 = offers[0]
    assert (a100.instance_type, a100.spot_usd_per_gpu_hour, a100.gpu_memory_gb) == ("1x_A100-80GB_SECURE", None, None)
    assert a100.model == "A100 PCIe 80 GB"
    a40 = next(o for o in offers if o.instance_type == "2x_A40_SECURE")
    assert a40.spot_usd_per_hour == 0.98 and a40.spot_usd_per_gpu_hour == 0.49
    assert sum(o.spot_usd_per_gpu_hour is not None for o in offers) == 4 * 8 * 5  # A40, L40, 4090, A4500, A6000


def test_the_header_decides_not_the_column_order():
    rows = list(csv.reader(io.StringIO(body(LAMBDA).decode())))
    order = list(reversed(range(len(rows[0]))))
    shuffled = to_csv([[row[i] for i in order] for row in rows])
    assert parse(LAMBDA, shuffled) == parse(LAMBDA)


@pytest.mark.parametrize("column", sky.REQUIRED_COLUMNS)
def test_a_renamed_column_is_refused_naming_file_and_column(column):
    rows = list(csv.reader(io.StringIO(body(VAST).decode())))
    rows[0] = [f"{c}2" if c == column else c for c in rows[0]]
    with pytest.raises(ParseError) as raised:
        parse(VAST, to_csv(rows))
    assert raised.value.source == "skypilot-catalog" and raised.value.url == VAST.url
    assert repr(column) in raised.value.what and VAST.url in str(raised.value)


def test_a_missing_column_is_refused():
    rows = list(csv.reader(io.StringIO(body(RUNPOD).decode())))
    drop = rows[0].index("AcceleratorCount")
    with pytest.raises(ParseError, match="'AcceleratorCount'"):
        parse(RUNPOD, to_csv([[c for i, c in enumerate(r) if i != drop] for r in rows]))


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        b"\xff\xfe\x00h\x00i",
        b"<html><body>rate limited</body></html>",
        b'InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice\nx,A100,two,1.0,\n',
        b'InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice\nx,A100,1,1.0\n',
        b'InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice\nx,A100,1,,\n',
        b'InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice\nx,A100,1,inf,\n',
        b'InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,GpuInfo\nx,A100,1,1.0,,"{\'a\': __import__(\'os\')}"\n',
        b'InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,GpuInfo\nx,A100,1,1.0,,"{\'Gpus\': ["\n',
        b'InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice\n"unclosed,A100,1,1.0,\n',
    ],
)
def test_garbage_raises_only_parse_error(garbage):
    with pytest.raises(ParseError):
        parse(VAST, garbage)


def test_replay_records_each_file_at_its_live_url_with_a_date():
    recordings = list(sky._replay(FIXTURES))
    assert [r.page.url for r in recordings] == [f.url for f in sky.CATALOG_FILES]
    assert all(r.page.url.startswith("https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/") for r in recordings)
    for rec, f in zip(recordings, sky.CATALOG_FILES, strict=True):
        assert rec.page.fetched_at == datetime(f.as_of.year, f.as_of.month, f.as_of.day, tzinfo=timezone.utc)
        assert rec.page.body == body(f) and rec.page.content_type == "text/csv"
        assert f.blob in rec.provenance
        parsed = sky.SOURCE.parse(rec.page)
        assert parsed.kind == "rental" and parsed.records and all(o.as_of == f.as_of for o in parsed.records)
    assert sky.SOURCE.fixtures == tuple(f.fixture for f in sky.CATALOG_FILES)
    assert all((FIXTURES / path).is_file() for path in sky.SOURCE.fixtures)


def test_fetch_asks_for_the_three_live_urls():
    asked = []

    class Client:
        def get(self, url, source):
            asked.append((url, source))
            return FetchedPage(source=source, url=url, status=200, fetched_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
                               sha256="0" * 64, body=b"", content_type="text/csv")

    ctx = sky.FetchContext(client=Client(), settings=None, replay=False)
    fetched = sky._fetch(ctx)
    assert asked == [(f.url, "skypilot-catalog") for f in sky.CATALOG_FILES]
    assert len(fetched.pages) == 3


def test_offer_json_rows_print_in_file_order():
    rows = [offer_json(o) for o in parse(VAST)]
    assert rows[0]["instance_type"] == "1x-H200-32-65536" and rows[-1]["instance_type"] == "4x-RTX_A2000-32-65536"
    assert list(rows[0])[:9] == ["provider", "instance_type", "gpu_name", "model", "gpu_count", "usd_per_hour",
                                 "usd_per_gpu_hour", "spot_usd_per_gpu_hour", "region"]


@pytest.mark.parametrize(
    ("provider", "name", "instance_type", "memory_gb", "model"),
    [
        # its RunPod names are SkyPilot's own short ones (GPU_NAME_MAP)
        ("runpod", "RTXPRO6000", "1x_RTXPRO6000_SECURE", None, "RTX PRO 6000 Blackwell Server"),
        ("runpod", "RTXPRO6000-WK", "1x_RTXPRO6000-WK_SECURE", None, "RTX PRO 6000 Blackwell"),
        ("runpod", "A100-80GB", "1x_A100-80GB_SECURE", None, "A100 PCIe 80 GB"),
        ("runpod", "H100-SXM", "1x_H100-SXM_SECURE", None, "H100 SXM5 80 GB"),
        # its vast catalog keeps vast's own name in the instance type
        ("vast", "RTX4070", "2x-RTX_4070S_Ti-32-65536", 16, "GeForce RTX 4070 Ti SUPER"),
        ("vast", "RTX4080", "1x-RTX_4080S-16-32768", None, "GeForce RTX 4080 SUPER"),
        ("vast", "RTXPRO6000S", "1x-RTX_PRO_6000_S-32-65536", None, None),
        ("vast", "A100", "gpu_8x_a100", 40, None),  # not SkyPilot's vast form: read as published
    ],
)
def test_skypilots_own_names_are_read_as_it_means_them(provider, name, instance_type, memory_gb, model):
    from gpuvalue.models.cloud_names import match_cloud_gpu

    reading = sky.read_gpu_name(provider, name, instance_type)
    got = match_cloud_gpu(name, memory_gb=memory_gb, provider=provider, instance_type=instance_type, reading=reading)
    assert got.model == model
    if model is not None and reading is not None:
        assert reading.why in got.reason
    assert sky.SOURCE.gpu_names is sky.read_gpu_name


def test_another_providers_names_are_read_as_published():
    assert sky.read_gpu_name("lambda", "H100", "gpu_1x_h100_pcie") is None
    assert sky.read_gpu_name("runpod", "A40", "1x_A40_SECURE") is None
