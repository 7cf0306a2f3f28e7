"""The buyer's page: it embeds the candidate table recommend chooses from and applies the same rule to any
input in its URL, so in a real headless Chromium it shows the three answers ``recommend --json`` gives.

The comparisons go through the CLI's ``recommend --json`` and the function it prints (``read_answers``),
so they hold whatever rules recommend follows.
"""

from __future__ import annotations

import html
import json
import random
import re
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pytest
from bs4 import BeautifulSoup
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.models.answers import Inputs
from gpuvalue.models.budget_answers import ANSWERS
from gpuvalue.models.choose import Query, choose
from gpuvalue.models.recommend import USE_CASES
from gpuvalue.warehouse.outputs.buyer_page import page_data, render_page, write_page
from gpuvalue.warehouse.outputs.page_charts import date_ticks, history_chart, value_frontier

runner = CliRunner()
GENERATED = datetime(2026, 12, 1, 6, 0, tzinfo=timezone.utc)
# The inputs the issue names, and a few that leave an answer empty or pick another vendor.
CHECKED = [
    Inputs(budget=600, min_memory=12),
    Inputs(budget=10000, use_case="research"),
    Inputs(budget=300),
    Inputs(budget=1500, min_memory=24, use_case="llm"),
    Inputs(budget=800, vendor="AMD"),
    Inputs(budget=2000, include_legacy=True, use_case="kaggle"),
    Inputs(budget=600, min_memory=12, use_case="research"),  # nothing with 24 GB fits: three empty answers
    Inputs(budget=599.5, use_case="kaggle"),  # $18.50 and $136.50 left: "$18" and "$136", as Python rounds them
]
# Read in Chromium: the first three, and the one whose money left rounds half to even.
IN_CHROMIUM = [*CHECKED[:3], CHECKED[-1]]


@pytest.fixture(scope="module")
def page(replay_db, tmp_path_factory) -> Path:
    con = duckdb.connect(str(replay_db), read_only=True)
    try:
        return write_page(con, tmp_path_factory.mktemp("site"), generated_at=GENERATED)
    finally:
        con.close()


@pytest.fixture(scope="module")
def embedded(page) -> dict:
    text = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', page.read_text(), re.S).group(1)
    return json.loads(text.replace("<\\/", "</"))


def lookup(embedded: dict, inputs: Inputs) -> dict:
    """What the page's script picks for ``inputs``: the rule over the embedded table, with its floor and card limit."""
    a = embedded["answers"]
    floors = [inputs.min_memory if inputs.min_memory is not None else a["base_min_memory"]]
    if inputs.use_case:
        floors.append(a["use_cases"][inputs.use_case]["min_memory_gb"])
    floors = [f for f in floors if f is not None]
    single = bool(inputs.use_case and a["use_cases"][inputs.use_case]["single_card"])
    found = choose(a["table"], Query(budget_usd=inputs.budget, min_memory_gb=max(floors) if floors else None,
                                     vendor=inputs.vendor, use_case=inputs.use_case,
                                     max_gpus=1 if single else a["workstation_gpus"],
                                     include_legacy=inputs.include_legacy))
    return {name: None if c is None else {"model": c["model"], "gpus": c["gpus"], "cost_usd": round(c["cost_usd"], 2),
                                          "setup_assumptions": [a["texts"][i] for i in c["own"]]}
            for name, c in found.items()}


def cli_answers(db: Path, inputs: Inputs) -> dict:
    res = runner.invoke(app, ["recommend", *inputs.flags(), "--json", "--db", str(db)])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _models(found: dict) -> dict:
    return {name: (found[name] or {}).get("model") for name in ANSWERS}


@pytest.mark.e2e
@pytest.mark.parametrize("inputs", CHECKED, ids=lambda i: "&".join(f"{k}={v}" for k, v in i.query().items()))
def test_the_pages_table_and_rule_answer_as_recommend_json_does(replay_db, embedded, inputs):
    cli, shown = cli_answers(replay_db, inputs), lookup(embedded, inputs)
    assert _models(shown) == _models(cli)
    for name in ANSWERS:
        if cli[name]["model"] is not None:
            assert shown[name]["setup_assumptions"] == cli[name]["setup_assumptions"]
            assert shown[name]["gpus"] == cli[name]["gpus"] and shown[name]["cost_usd"] == cli[name]["cost_usd"]


def test_the_page_is_one_file_without_network(page):
    text = page.read_text(encoding="utf-8")
    soup = BeautifulSoup(text, "lxml")
    assert page.name == "index.html" and len(list(page.parent.iterdir())) == 1
    for tag in soup.find_all(src=True) + soup.find_all(href=True):
        assert not re.match(r"(https?:)?//", tag.get("src") or tag.get("href")), tag
    assert "@import" not in text and "url(" not in text
    assert [a["data-answer"] for a in soup.select("[data-answer]")] == list(ANSWERS)
    names = [s["name"] for s in soup.select("#inputs [name]")]
    assert names == ["budget", "min_memory", "use_case", "vendor", "model_params", "method", "include_legacy",
                     "hours_per_week", "kwh_price"]
    assert soup.find("svg", id="frontier") is not None and soup.select("figure.history-of svg.chart")


def test_every_price_on_the_page_says_its_date_age_and_source(page, embedded):
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "lxml")
    for cell in soup.select("table.ranking td.price"):
        words = cell.get_text(" ")
        assert re.search(r"\d{4}-\d\d", words) and " old" in words and ("listings" in words or "index" in words), words
    for row in soup.select("table.rental tbody tr"):
        assert re.search(r"\d{4}-\d\d-\d\d .* old", row.get_text(" ")), row.get_text(" ")
    for card in embedded["answers"]["table"]:
        assert card["price_as_of"] and card["price_source"] and card["price_age"] is not None


def test_the_rental_table_shows_a_price_age_as_its_age(replay_db):
    """Its newest rental prices are of 2025-06-21: written on 2026-12-01 they are 17 months old, not '0 d'."""
    con = duckdb.connect(str(replay_db), read_only=True)
    try:
        soup = BeautifulSoup(render_page(page_data(con, generated_at=GENERATED)), "lxml")
    finally:
        con.close()
    text = " ".join(soup.select_one("table.rental").get_text(" ").split())
    assert "2025-06-21 17 mo old" in text and " 0 d old" not in text, text


def test_the_value_frontier_and_date_ticks():
    assert value_frontier([(100, 1), (200, 0.5), (300, 2), (400, 2)]) == [0, 2]
    from datetime import date

    ticks = date_ticks(date(2023, 10, 1), date(2025, 11, 25))
    assert ticks and all(date(2023, 10, 1) < t < date(2025, 11, 25) for t in ticks)
    assert date_ticks(date(2025, 11, 25), date(2025, 11, 25)) == []


def test_a_price_history_draws_no_line_across_a_gap():
    """A 2023 index month and a 2025 asking price are two dots, not a line through two years."""
    from datetime import date

    svg = history_chart("X", [
        {"as_of": date(2023, 9, 1), "price_usd": 170, "price_kind": "index"},
        {"as_of": date(2023, 10, 1), "price_usd": 160, "price_kind": "index"},
        {"as_of": date(2025, 11, 25), "price_usd": 300, "price_kind": "asking"},
    ])
    assert svg.count("<polyline") == 1 and svg.count('class="mark') == 3
    assert "2023-09-01" in svg and "2025-11-25" in svg
    single = history_chart("Y", [{"as_of": date(2025, 11, 25), "price_usd": 500, "price_kind": "asking"}])
    assert "<polyline" not in single and "$500 (asking)" in single


# --- in a real browser ------------------------------------------------------------------------


def chromium() -> str:
    path = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
    if not path:
        pytest.skip("Chromium not installed: apt-get install chromium")
    return path


def run_chromium(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    command = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
               f"--user-data-dir={profile}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=90, check=False)


@pytest.mark.e2e
@pytest.mark.parametrize("inputs", IN_CHROMIUM, ids=lambda i: "&".join(f"{k}={v}" for k, v in i.query().items()))
def test_in_chromium_the_url_sets_the_inputs_and_the_page_shows_the_clis_answers(replay_db, page, tmp_path, inputs):
    binary = chromium()
    query = "&".join(f"{k}={v}" for k, v in inputs.query().items())
    dumped = run_chromium(binary, tmp_path / "profile", "--dump-dom", f"{page.resolve().as_uri()}?{query}")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    dom = BeautifulSoup(dumped.stdout, "lxml")
    assert dom.body.get("data-ready") == "1"
    shown = {a["data-answer"]: (a["data-model"] or None, int(a["data-gpus"]) if a.get("data-gpus") else None)
             for a in dom.select("[data-answer]")}
    cli = cli_answers(replay_db, inputs)
    assert shown == _setups(cli)
    text = runner.invoke(app, ["recommend", *inputs.flags(), "--db", str(replay_db)]).stdout
    for slot in dom.select("[data-answer]"):
        answer = cli[slot["data-answer"]]
        if answer["model"] is None:
            continue
        # The money left as the CLI prints it, and under the answer the caveats the CLI prints under it.
        left = slot.select_one(".left").get_text()
        assert left == f"{answer['money_left_text']} of the budget left", left
        assert f"; {answer['money_left_text']} left" in text
        caveats = [li.get_text() for li in slot.select(".caveats li")]
        assert caveats == answer["setup_assumptions"]
        assert all(f"   {c}" in text.splitlines() for c in caveats)
        if answer["model"].startswith("Radeon"):
            # Without --vendor only a card on AMD's ROCm list is picked, with its one-line caveat.
            assert any(c.startswith("AMD card, not CUDA") and "; on AMD's ROCm list;" in c for c in caveats), caveats
    picked = {m["data-model"] for m in dom.select("#frontier .mark.picked")}
    assert picked == {m for m, _ in shown.values() if m}
    assert {f["data-model"] for f in dom.select("figure.history-of:not([hidden])")} == picked


# Reports the page as laid out, to the page around the frame that shows it at the width under test
# (--dump-dom lays a page out at least 500 px wide whatever --window-size says).
LAYOUT_PROBE = """<script>
window.addEventListener("load", function () {
  function shown(el) { var r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; }
  var answers = [];
  document.querySelectorAll("[data-answer]").forEach(function (a) {
    var r = a.getBoundingClientRect(), d = a.querySelector(".decides").getBoundingClientRect();
    answers.push([a.getAttribute("data-answer"), r.left, r.right, d.right, a.getAttribute("data-model")]);
  });
  var charts = [];
  document.querySelectorAll("svg.chart").forEach(function (svg) {
    if (shown(svg)) { charts.push([svg.id || svg.getAttribute("data-model"), svg.getBoundingClientRect().right]); }
  });
  var small = 1e9;
  document.querySelectorAll("select").forEach(function (s) { small = Math.min(small, s.getBoundingClientRect().height); });
  parent.document.body.setAttribute("data-probe", JSON.stringify({
    viewport: window.innerWidth, page: document.documentElement.scrollWidth, answers: answers, charts: charts,
    tap: small
  }));
});
</script>"""


@pytest.mark.e2e
@pytest.mark.parametrize("width", [400, 1400])
def test_in_chromium_every_answer_fits_a_phone_and_a_desktop(page, tmp_path, width):
    binary = chromium()
    text = page.read_text(encoding="utf-8").replace("</body>", LAYOUT_PROBE + "</body>")
    framed = tmp_path / "frame.html"
    framed.write_text(f'<!DOCTYPE html><html><body style="margin:0"><iframe style="width:{width}px;height:1200px;border:0" '
                      f'srcdoc="{html.escape(text, quote=True)}"></iframe></body></html>', encoding="utf-8")
    dumped = run_chromium(binary, tmp_path / "profile", f"--window-size={width + 100},1300", "--dump-dom",
                          framed.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    probe = json.loads(BeautifulSoup(dumped.stdout, "lxml").body["data-probe"])
    assert probe["viewport"] == width, probe
    assert probe["page"] <= width, probe  # no sideways scrolling of the page
    assert [a[0] for a in probe["answers"]] == list(ANSWERS) and all(a[4] for a in probe["answers"]), probe
    assert all(0 <= left and right <= width and decides <= width for _, left, right, decides, _ in probe["answers"])
    assert "frontier" in [c[0] for c in probe["charts"]] and all(right <= width for _, right in probe["charts"])
    assert probe["tap"] >= 44  # every input a finger can hit
    shot = tmp_path / f"page-{width}.png"
    taken = run_chromium(binary, tmp_path / "profile2", f"--window-size={width},2400", f"--screenshot={shot}",
                         page.resolve().as_uri() + "?budget=600&min_memory=12")
    assert taken.returncode == 0, taken.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") == width
    assert shot.stat().st_size > 50_000  # a blank page compresses to a few KB


# --- a few hundred random inputs, in the browser, against recommend ------------------------------------

# Appended to a copy of the page: after the page's own script has answered, tell the frame around it
# what it shows and what it names as unknown.
ANSWER_PROBE = """<script>
parent.postMessage(JSON.stringify({query: window.location.search, notes: document.querySelector("#answers .notes").textContent,
  answers: Array.prototype.map.call(document.querySelectorAll("[data-answer]"), function (a) {
    return [a.getAttribute("data-answer"), a.getAttribute("data-model") || null, a.getAttribute("data-gpus") || null];
  })}), "*");
</script>"""
COLLECTOR = """<!DOCTYPE html><html><body><script>
var got = [];
window.addEventListener("message", function (e) { got.push(JSON.parse(e.data));
  document.body.setAttribute("data-got", JSON.stringify(got)); });
</script>%s</body></html>"""


def random_inputs(n: int, seed: int = 41) -> list[Inputs]:
    """Budgets from $250 to $20,000 (off any grid), floors, every use case and vendor, legacy builds now and then."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        budget = round(rng.uniform(250, 20000), rng.choice([0, 0, 2]))
        memory = rng.choice([None, None, float(rng.choice([0, 6, 8, 10, 12, 16, 20, 24, 32, 48])),
                             round(rng.uniform(0, 50), 1)])
        out.append(Inputs(budget=float(budget), min_memory=memory, use_case=rng.choice([None, *USE_CASES]),
                          vendor=rng.choice([None, None, "NVIDIA", "AMD", "Intel"]),
                          include_legacy=rng.random() < 0.2))
    return out


def recommend_json(db: Path, many: list[Inputs]) -> list[dict]:
    """``recommend --json`` of each input: the CLI itself for a few, its printing function for the rest."""
    from gpuvalue.flows.cli.cli_app import reader_settings
    from gpuvalue.flows.cli.recommend_cli import answer_options, read_answers
    from gpuvalue.models.budget_answers import answers_json

    settings = reader_settings(db)
    out = [cli_answers(db, inputs) for inputs in many[:5]]  # before this process holds its own connection
    con = duckdb.connect(str(db), read_only=True)
    try:
        for inputs in many[5:]:
            options = answer_options(settings, budget=inputs.budget, use_case=inputs.use_case,
                                     min_memory=inputs.min_memory, vendor=inputs.vendor,
                                     include_legacy=inputs.include_legacy)
            out.append(json.loads(json.dumps(answers_json(read_answers(con, settings, options)), default=str)))
        return out
    finally:
        con.close()


def _setups(found: dict) -> dict:
    return {name: (found[name]["model"], found[name]["gpus"]) for name in ANSWERS}


@pytest.mark.e2e
def test_in_chromium_a_few_hundred_random_urls_give_recommends_three_answers(replay_db, page, tmp_path):
    binary = chromium()
    probed = tmp_path / "probed.html"
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", ANSWER_PROBE + "</body>"), encoding="utf-8")
    many = random_inputs(200)
    expected = recommend_json(replay_db, many)
    shown: dict[str, dict] = {}
    for start in range(0, len(many), 100):
        frames = "".join(f'<iframe src="{html.escape(probed.resolve().as_uri() + "?" + "&".join(f"{k}={v}" for k, v in i.query().items()), quote=True)}"></iframe>'
                         for i in many[start:start + 100])
        harness = tmp_path / f"harness-{start}.html"
        harness.write_text(COLLECTOR % frames, encoding="utf-8")
        dumped = run_chromium(binary, tmp_path / f"profile-{start}", "--virtual-time-budget=60000", "--dump-dom",
                              harness.as_uri())
        assert dumped.returncode == 0, dumped.stderr[-2000:]
        for got in json.loads(BeautifulSoup(dumped.stdout, "lxml").body["data-got"]):
            shown[got["query"]] = {name: (model, int(gpus) if gpus else None) for name, model, gpus in got["answers"]}
    assert len(shown) == len({tuple(sorted(i.query().items())) for i in many})
    for inputs, cli in zip(many, expected):
        query = "?" + "&".join(f"{k}={v}" for k, v in inputs.query().items())
        assert shown[query] == _setups(cli), (query, shown[query], _setups(cli))


@pytest.mark.e2e
def test_in_chromium_an_unknown_input_is_named_on_the_page(page, tmp_path):
    binary = chromium()
    url = page.resolve().as_uri() + "?budget=280&use_case=gaming&vendor=nvdia&colour=red"
    dumped = run_chromium(binary, tmp_path / "profile", "--dump-dom", url)
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    dom = BeautifulSoup(dumped.stdout, "lxml")
    notes = dom.select_one("#answers .notes").get_text()
    assert "use_case=gaming is unknown" in notes and "vendor=nvdia is unknown" in notes
    assert "colour is not an input this page knows" in notes
    assert all(a["data-model"] for a in dom.select("[data-answer]"))  # answered for $280, any use case


@pytest.mark.e2e
def test_in_chromium_the_ranking_table_follows_the_memory_floor(page, tmp_path):
    binary = chromium()
    dumped = run_chromium(binary, tmp_path / "profile", "--dump-dom", page.resolve().as_uri() + "?min_memory=24")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    rows = BeautifulSoup(dumped.stdout, "lxml").select("table.ranking tbody tr")
    shown = [r for r in rows if not r.has_attr("hidden")]
    assert shown and all(float(r["data-memory"]) >= 24 for r in shown)
    assert any(float(r["data-memory"]) < 24 for r in rows)  # the others are on the page, hidden


@pytest.mark.e2e
@pytest.mark.parametrize("budget, params, method", [(600, "8B", "qlora"), (600, "8B", "full"), (2000, "8B", "lora"),
                                                    (10000, "70B", "qlora")])
def test_in_chromium_a_model_to_fine_tune_sets_the_floor_as_recommend_does(replay_db, page, tmp_path, budget, params,
                                                                           method):
    """`?model_params=8B&method=qlora` answers as `recommend --model-params 8B --method qlora`, and names the need;
    on several cards the need is the sharded one (70B by QLoRA: two 32 GB cards, not one 52 GB card)."""
    binary = chromium()
    url = page.resolve().as_uri() + f"?budget={budget}&model_params={params}&method={method}"
    dumped = run_chromium(binary, tmp_path / "profile", "--dump-dom", url)
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    dom = BeautifulSoup(dumped.stdout, "lxml")
    shown = {a["data-answer"]: (a["data-model"] or None, int(a["data-gpus"]) if a.get("data-gpus") else None)
             for a in dom.select("[data-answer]")}
    result = runner.invoke(app, ["recommend", "--budget", str(budget), "--model-params", params, "--method", method,
                                 "--json", "--db", str(replay_db)])
    cli = json.loads(result.stdout)
    assert shown == {k: (cli[k]["model"], cli[k]["gpus"]) for k in ("fastest", "best_value", "cheapest")}
    if params == "70B":
        assert all(cli[k]["gpus"] > 1 for k in ("fastest", "best_value", "cheapest"))
        assert all(cli[k]["memory_gb"] < cli["finetune"]["memory_gb"] for k in ("fastest", "best_value", "cheapest"))
    notes = dom.select_one("#answers .notes").get_text()
    assert f"needs {cli['finetune']['memory_gb']} GB a card" in notes
    bad = run_chromium(binary, tmp_path / "profile2", "--dump-dom", page.resolve().as_uri() + "?model_params=8X&method=qlora")
    assert "model_params=8X is not a parameter count" in BeautifulSoup(bad.stdout, "lxml").select_one("#answers .notes").get_text()
