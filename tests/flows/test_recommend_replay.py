"""`gpuvalue recommend` on the replay: what a budget buys, pinned (issue: the budget was only a cap).

`--budget 600 --use-case kaggle`, `--budget 2000 --use-case research` and `--budget 10000 --use-case
research` all answered "GeForce RTX 4070 SUPER: $500", and `--gpus 4` left $8,000 unspent."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()


def _answers(replay_db, *args) -> dict:
    res = runner.invoke(app, ["recommend", *args, "--json", "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert len(lines) == 1  # one JSON object
    return json.loads(lines[0])


def _singles(replay_db, budget: float, floor: float) -> list[dict]:
    res = runner.invoke(app, ["rank", "--json", "--min-memory", str(floor), "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    return [r for r in rows if r["price_usd"] <= budget and r["price_tier"] == "recent"]


def test_a_research_budget_of_10000_buys_a_setup_faster_than_any_single_card_within_it(replay_db):
    doc = _answers(replay_db, "--budget", "10000", "--use-case", "research")
    fastest = doc["fastest"]
    assert fastest["money_left_usd"] == round(10000 - fastest["cost_usd"], 2)
    singles = _singles(replay_db, 10000, 12)
    assert singles and fastest["throughput"] > max(r["relative_perf"] for r in singles)
    # pinned on the replay, at the 2026 report prices: the RTX 5090's $4,795 (2026-09) buys two, slower
    # than four RTX 5080s at $1,233
    assert (fastest["model"], fastest["gpus"], fastest["cost_usd"]) == ("GeForce RTX 5080", 4, 4932.0)
    assert (doc["best_value"]["model"], doc["best_value"]["gpus"]) == ("GeForce RTX 3080 Ti", 1)
    assert (doc["cheapest"]["model"], doc["cheapest"]["gpus"]) == ("Arc B580", 1)
    assert doc["max_gpus"] == 4
    # Each says what it assumed: the use case's floor, the scaling rule it used, the machine left out.
    for kind in ("fastest", "best_value", "cheapest"):
        words = " ".join(doc[kind]["assumptions"])
        assert "research: at least 12 GB" in words and "cards only: the machine around them" in words, kind
    assert any(a.startswith("scaling 90% per card, assumed") for a in fastest["assumptions"])
    # New (an own asking price of 2025-11) costs 1% less than the 2026 used best deal: said beside it.
    assert fastest["new_price"]["price_usd"] == 1219.29 and -0.02 < fastest["new_price"]["premium"] < 0


def test_a_2000_research_budget_and_a_600_kaggle_budget_get_different_answers(replay_db):
    research = _answers(replay_db, "--budget", "2000", "--use-case", "research")
    kaggle = _answers(replay_db, "--budget", "600", "--use-case", "kaggle")
    assert (research["fastest"]["model"], research["fastest"]["gpus"]) == ("GeForce RTX 3080 Ti", 4)
    assert (kaggle["fastest"]["model"], kaggle["fastest"]["gpus"]) == ("GeForce RTX 3080 Ti", 1)
    assert (research["fastest"]["gpus"], research["fastest"]["cost_usd"]) != (kaggle["fastest"]["gpus"],
                                                                             kaggle["fastest"]["cost_usd"])
    assert kaggle["max_gpus"] == 1 and all(kaggle[k]["gpus"] == 1 for k in ("fastest", "best_value", "cheapest"))
    assert any("one card for kaggle" in a for a in kaggle["fastest"]["assumptions"])


def test_the_likely_cards_without_a_price_are_named(replay_db):
    kaggle = _answers(replay_db, "--budget", "600", "--use-case", "kaggle")
    named = {u["model"] for u in kaggle["unpriced"]}
    assert {"Radeon RX 7700", "Radeon RX 9060 XT 16 GB", "Radeon RX 9070 GRE"} <= named
    assert "GeForce RTX 5070" not in named  # the 2026 reports price it
    assert all(u["why"].startswith("no used price") for u in kaggle["unpriced"])
    text = runner.invoke(app, ["recommend", "--budget", "600", "--use-case", "kaggle", "--db", str(replay_db)]).stdout
    assert "not priced, so not compared: " in text and "Radeon RX 7700 (16 GB, 0.60x estimated)" in text
    lab = _answers(replay_db, "--budget", "10000", "--use-case", "research")
    assert "RTX A6000" in {u["model"] for u in lab["unpriced"]}  # launched at $4,649: within $10,000


def test_the_text_answers_say_money_left_and_what_they_assumed(replay_db):
    res = runner.invoke(app, ["recommend", "--budget", "10000", "--use-case", "research", "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert "Fastest: 4x GeForce RTX 5080, $4,932, throughput 4.13x (3.61-4.72); $5,068 left" in lines
    assert any(line.startswith("Best value: GeForce RTX 3080 Ti, $453") for line in lines)
    assert any(line.startswith("Assumed: research: at least 12 GB") for line in lines)


def test_a_fixed_count_and_a_platform_cost_still_answer(replay_db):
    four = _answers(replay_db, "--budget", "10000", "--gpus", "4", "--use-case", "research")
    assert all(four[k]["gpus"] == 4 for k in ("fastest", "best_value", "cheapest"))
    assert (four["fastest"]["model"], four["fastest"]["cost_usd"]) == ("GeForce RTX 5080", 4932.0)  # 4 5090s: $19,180
    assert four["single"]["model"] == "GeForce RTX 5090"
    assert any(n.startswith("4x GeForce RTX 5080 gives 1.85x the throughput of one GeForce RTX 5090")
               for n in four["notes"])
    boxed = _answers(replay_db, "--budget", "10000", "--use-case", "research", "--platform-cost", "2000",
                     "--extra-gpu-cost", "300")
    fastest = boxed["fastest"]
    assert fastest["platform_usd"] == 2000 + 300 * (fastest["gpus"] - 1) and fastest["cost_usd"] <= 10000
    assert any("$2,000 for the machine around the cards" in a for a in fastest["assumptions"])


def test_rent_or_buy_still_answers_beside_the_new_picks(replay_db):
    res = runner.invoke(app, ["recommend", "--budget", "2000", "--hours-per-week", "10", "--use-case", "research",
                              "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    assert "Answer: " in res.stdout and "kept 24 months" in res.stdout


def test_coverage_gives_a_card_the_place_rank_gives_it(replay_db):
    rank = {json.loads(line)["model"]: json.loads(line)
            for line in runner.invoke(app, ["rank", "--json", "--db", str(replay_db)]).stdout.splitlines()}
    covered = {json.loads(line)["model"]: json.loads(line)
               for line in runner.invoke(app, ["coverage", "--json", "--db", str(replay_db)]).stdout.splitlines()}
    card = covered["GeForce RTX 3090"]
    assert card["rank_shown"] == rank["GeForce RTX 3090"]["rank_shown"] and card["rank"] == rank["GeForce RTX 3090"]["rank"]
    table = runner.invoke(app, ["coverage", "--db", str(replay_db)], terminal_width=250).stdout
    # a card `rank` shows at another place than in `rank --all` (a hidden card ranks above it): the shown one
    moved = next(m for m, c in sorted(covered.items(), key=lambda mc: mc[1]["rank"] or 10**6)
                 if c["rank_shown"] is not None and c["rank"] != c["rank_shown"])
    card = covered[moved]
    row = next(line for line in table.splitlines() if f"│ {moved} " in line)
    assert f"#{card['rank_shown']} " in row and f"#{card['rank']} " not in row
    hidden = next(m for m, c in sorted(covered.items()) if c["rank"] is not None and c["rank_shown"] is None)
    row = next(line for line in table.splitlines() if f"│ {hidden} " in line)
    assert f"#{covered[hidden]['rank']} in rank --all; rank hides it: " in row  # says which list it counts in


def test_measured_scaling_leaves_out_single_process_data_parallel_runs(replay_db):
    """lamikr's 2-4 GPU runs are DataParallel (about 0.5 a card at two): a TITAN RTX measured only so
    gets the stated assumption, not a 2x setup at half speed a card."""
    import duckdb

    from gpuvalue.models.multi_gpu import DATA_PARALLEL_SOURCES
    from gpuvalue.warehouse.queries import scaling_efficiency

    con = duckdb.connect(str(replay_db), read_only=True)
    try:
        every = scaling_efficiency(con, "fp16")
        kept = scaling_efficiency(con, "fp16", exclude_sources=DATA_PARALLEL_SOURCES)
    finally:
        con.close()
    assert every["TITAN RTX"][2] < 0.55 and "TITAN RTX" not in kept
    assert 0.9 < kept["GeForce RTX 3090"][2] < 1.0


def test_the_beginner_with_300_gets_a_current_cuda_card_or_is_told_what_the_other_costs(replay_db):
    """The issue: `--budget 300 --use-case beginner` led with a Radeon RX 7600 XT and said nothing of ROCm."""
    doc = _answers(replay_db, "--budget", "300", "--use-case", "beginner")
    rank = {json.loads(line)["model"]: json.loads(line) for line in
            runner.invoke(app, ["rank", "--json", "--all", "--db", str(replay_db)]).stdout.splitlines()}
    for kind in ("fastest", "best_value", "cheapest"):
        answer = doc[kind]
        assert answer["model"] is not None, kind
        row = rank[answer["model"]]
        cuda = row["vendor"] == "NVIDIA" and row["framework_support"] == "current"
        caveats = [a for a in answer["assumptions"] if "not CUDA" in a]
        assert cuda or (len(caveats) == 1 and "\n" not in caveats[0]), (kind, answer["model"])
    assert doc["fastest"]["model"].startswith("GeForce")  # on the replay a CUDA card fits $300


def test_an_old_price_named_outside_the_answers_says_its_date_and_age(replay_db):
    """The cheapest setup over a budget nothing fits, and the stretch setup, are priced by a report month
    of 2026 on the replay (five months old): their lines say so, as the answers' own lines do."""
    index = "index price of 2026-07 (GPU Poet market report, mean of the 3 cheapest asking prices) (5 mo old)"
    text = runner.invoke(app, ["recommend", "--budget", "600", "--use-case", "llm", "--db", str(replay_db)]).stdout
    lines = text.splitlines()
    assert ("Fastest, best value and cheapest: none; nothing with at least 24 GB a card fits $600: the cheapest "
            f"setup is Radeon RX 7900 XTX at $781, price: {index}") in lines
    beginner = runner.invoke(app, ["recommend", "--budget", "300", "--use-case", "beginner", "--db", str(replay_db)])
    assert any(line.startswith("For $5 more: GeForce RTX 3080 at $305") and "index price of 2026-07" in line
               and line.endswith("(5 mo old).") for line in beginner.stdout.splitlines())
    doc = _answers(replay_db, "--budget", "600", "--use-case", "llm")
    setup = doc["cheapest_over_budget"]
    assert setup["model"] == "Radeon RX 7900 XTX"
    assert (setup["price_as_of"], setup["price_age"]) == ("2026-07-01", "5 mo") and setup["price_age_days"] == 152
    assert setup["stale"] and setup["price_words"] == index
    assert _answers(replay_db, "--budget", "300")["cheapest_over_budget"] is None  # something fits
