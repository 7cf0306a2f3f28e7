"""The benchmark-harness parsers answer garbage with ParseError only: random bytes, the published
files cut at random offsets, and JSON of the wrong shape."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples

from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources import cnn_benchmarks, deep_learning_benchmark, gpu_insights
from gpuvalue.scrapers.sources import pytorch_gpu_benchmark as lamikr

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FUZZ = settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
LAMIKR_RUN = "results/AMD/AMD_Radeon_RX_7800_XT"


def _file(source, name: str) -> bytes:
    return (FIXTURES / source.FIXTURE_DIR / name).read_bytes()


PARSERS = {
    "lamikr csv": (
        lambda body: lamikr.parse_benchmark_csv(
            body, lamikr.page_url(f"{LAMIKR_RUN}/AMD_Radeon_RX_7800_XT__half_model_train_benchmark.csv")),
        _file(lamikr, f"{LAMIKR_RUN}/AMD_Radeon_RX_7800_XT__half_model_train_benchmark.csv"),
    ),
    "lamikr config": (
        lambda body: lamikr.parse_config_json(body, lamikr.page_url(f"{LAMIKR_RUN}/config.json")),
        _file(lamikr, f"{LAMIKR_RUN}/config.json"),
    ),
    "lamikr system info": (
        lambda body: lamikr.parse_system_info(body, lamikr.page_url(f"{LAMIKR_RUN}/system_info.txt")),
        _file(lamikr, f"{LAMIKR_RUN}/system_info.txt"),
    ),
    "gpu-insights": (
        lambda body: gpu_insights.parse_benchmark_data(body, gpu_insights.URL),
        _file(gpu_insights, gpu_insights.FIXTURE_FILE),
    ),
    "cnn-benchmarks": (
        lambda body: cnn_benchmarks.parse_readme(body, cnn_benchmarks.URL),
        _file(cnn_benchmarks, cnn_benchmarks.FIXTURE_FILE),
    ),
    "deep-learning-benchmark": (
        lambda body: deep_learning_benchmark.parse_readme(body, deep_learning_benchmark.URL),
        _file(deep_learning_benchmark, deep_learning_benchmark.FIXTURE_FILE),
    ),
}


def _only_parse_errors(parse, body: bytes) -> None:
    try:
        parse(body)
    except ParseError:
        pass


@pytest.mark.parametrize("name", sorted(PARSERS))
@FUZZ
@given(body=st.binary(max_size=2000))
def test_random_bytes(name, body):
    _only_parse_errors(PARSERS[name][0], body)


@pytest.mark.parametrize("name", sorted(PARSERS))
@FUZZ
@given(cut=st.floats(min_value=0.0, max_value=1.0), junk=st.binary(max_size=40))
def test_published_files_cut_short_or_with_junk_spliced_in(name, cut, junk):
    parse, body = PARSERS[name]
    at = int(len(body) * cut)
    _only_parse_errors(parse, body[:at])
    _only_parse_errors(parse, body[:at] + junk + body[at:])


@FUZZ
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=20,
    )
)
def test_json_of_the_wrong_shape(value):
    import json

    for body in (json.dumps(value), json.dumps({"benchmarks": [value]}),
                 json.dumps({"benchmarks": [{"device": "X", "model": "vit", "version": "ver2", "fp32": value,
                                             "fp32bs": value, "date": value, "memory": value, "note": value}]})):
        _only_parse_errors(PARSERS["gpu-insights"][0], body.encode())
        _only_parse_errors(PARSERS["lamikr config"][0], body.encode())
