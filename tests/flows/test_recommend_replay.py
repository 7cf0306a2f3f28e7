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


def test_a_research_budget_of_10000_buys_a_buildable_setup_faster_than_any_single_card_within_it(replay_db):
    """The issue: 3x RTX 5090 drew 1,725 W and the machine around them cost $0."""
    doc = _answers(replay_db, "--budget", "10000", "--use-case", "research")
    fastest = doc["fastest"]
    assert fastest["money_left_usd"] == round(10000 - fastest["cost_usd"], 2)
    assert fastest["gpus"] > 1 and fastest["memory_gb"] >= 24
    assert fastest["system_power_w"] <= fastest["power_limit_w"] == doc["power_limit_w"] == 1440
    assert fastest["platform_usd"] >= 2000 if fastest["gpus"] >= 3 else fastest["platform_usd"] >= 350
    assert fastest["cost_usd"] == round(fastest["cards_usd"] + fastest["platform_usd"], 2)
    singles = [r for r in _singles(replay_db, 10000, 24) if r["vendor"] == "NVIDIA"]
    assert fastest["throughput"] > max(r["relative_perf"] for r in singles)
    assert doc["max_gpus"] == 4
    for kind in ("fastest", "best_value", "cheapest"):
        words = " ".join(doc[kind]["assumptions"])
        assert "research: at least 24 GB because" in words and "Dettmers" in words, kind
        assert "the machine: one card in the buyer's existing desktop ($0)" in words, kind
        assert "power: the cards and the machine" in words, kind
    own = fastest["setup_assumptions"]
    assert any(a.startswith("scaling ") for a in own) and any(a.startswith("machine: ") for a in own)
    assert any(a.startswith(("power: ", "slots: ")) for a in own)


def _singles_all(replay_db) -> list[dict]:
    res = runner.invoke(app, ["rank", "--json", "--all", "--db", str(replay_db)])
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_a_300_kaggle_budget_picks_a_cuda_card_and_more_money_never_a_slower_one(replay_db):
    """The issue: `--budget 300 --use-case kaggle` answered a Radeon RX 7600 XT its own output called unsupported;
    $280 got an RTX 3060 12 GB and $300 the Radeon."""
    cards = {r["model"]: r for r in _singles_all(replay_db)}
    for budget in ("280", "300"):
        doc = _answers(replay_db, "--budget", budget, "--use-case", "kaggle")
        for kind in ("fastest", "best_value", "cheapest"):
            assert cards[doc[kind]["model"]]["vendor"] == "NVIDIA", (budget, kind)
    cheapest = {_answers(replay_db, "--budget", str(b), "--use-case", "llm")["cheapest"]["model"] for b in (2000, 10000)}
    assert len(cheapest) == 1  # the cheapest LLM setup is the same at every budget that affords it
    fastest = [_answers(replay_db, "--budget", str(b), "--use-case", "llm")["fastest"]["throughput"]
               for b in (2621, 2700, 5000, 10000)]
    assert fastest == sorted(fastest)


def test_a_2000_research_budget_and_a_600_kaggle_budget_get_different_answers(replay_db):
    research = _answers(replay_db, "--budget", "2000", "--use-case", "research")
    kaggle = _answers(replay_db, "--budget", "600", "--use-case", "kaggle")
    assert research["fastest"]["memory_gb"] >= 24 and kaggle["fastest"]["memory_gb"] >= 12
    assert (research["fastest"]["model"], research["fastest"]["gpus"]) != (kaggle["fastest"]["model"],
                                                                           kaggle["fastest"]["gpus"])
    assert kaggle["max_gpus"] == 1 and all(kaggle[k]["gpus"] == 1 for k in ("fastest", "best_value", "cheapest"))
    assert any("one card for kaggle" in a for a in kaggle["fastest"]["assumptions"])
    assert research["fastest"]["money_left_usd"] >= 0


def test_the_likely_cards_without_a_price_are_named(replay_db):
    kaggle = _answers(replay_db, "--budget", "600", "--use-case", "kaggle")
    named = {u["model"] for u in kaggle["unpriced"]}
    assert {"Radeon RX 7700", "Radeon RX 9060 XT 16 GB", "Radeon RX 9070 GRE"} <= named
    assert "GeForce RTX 5070" not in named  # the 2026 reports price it
    assert all(u["why"].startswith("no used price") for u in kaggle["unpriced"])
    text = runner.invoke(app, ["recommend", "--budget", "600", "--use-case", "kaggle", "--db", str(replay_db)]).stdout
    assert "not priced, so not compared: " in text and "Radeon RX 7700 (16 GB, " in text and "x estimated" in text
    lab = _answers(replay_db, "--budget", "10000", "--use-case", "research")
    assert "RTX A6000" in {u["model"] for u in lab["unpriced"]}  # launched at $4,649: within $10,000


def test_the_text_answers_say_money_left_the_machine_and_what_they_assumed(replay_db):
    doc = _answers(replay_db, "--budget", "10000", "--use-case", "research")
    res = runner.invoke(app, ["recommend", "--budget", "10000", "--use-case", "research", "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    f = doc["fastest"]
    assert any(line.startswith(f"Fastest: {f['gpus']}x {f['model']}, ${f['cost_usd']:,.0f} (cards ${f['cards_usd']:,.0f} + "
                               f"machine ${f['platform_usd']:,.0f}), throughput {f['throughput']:.2f}x") for line in lines)
    assert any(line.startswith("Assumed: research: at least 24 GB") for line in lines)


def test_a_fixed_count_and_a_platform_cost_still_answer(replay_db):
    four = _answers(replay_db, "--budget", "10000", "--gpus", "4", "--use-case", "research")
    assert all(four[k]["gpus"] in (4, None) for k in ("fastest", "best_value", "cheapest"))
    assert four["single"] is not None and four["single"]["gpus"] == 1
    boxed = _answers(replay_db, "--budget", "10000", "--use-case", "research", "--platform-cost", "2000",
                     "--extra-gpu-cost", "300")
    fastest = boxed["fastest"]
    risers = 60 * fastest["gpus"] if fastest["riser"] else 0
    assert fastest["platform_usd"] == 2000 + 300 * (fastest["gpus"] - 1) + risers and fastest["cost_usd"] <= 10000
    assert any("the machine: $2,000 a setup and $300 for each card beyond the first" in a for a in fastest["assumptions"])


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
    """The issue: `--budget 300 --use-case beginner` led with a Radeon RX 7600 XT and said nothing of ROCm,
    then with an 8 GB Turing card (no bf16, no FlashAttention-2)."""
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
    ampere = {"Ampere", "Ada Lovelace", "Hopper", "Blackwell 2.0"}
    assert all(rank[doc[k]["model"]]["architecture"] in ampere for k in ("fastest", "best_value", "cheapest"))


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


def test_a_model_to_fine_tune_sets_the_memory_floor_and_says_why(replay_db):
    """`--model-params 8B --method qlora` needs about 9.7 GB on one card, full fine-tuning about 134 GB: the
    floors differ, each answer says where its floor comes from, and no card below it is named."""
    qlora = _answers(replay_db, "--budget", "600", "--model-params", "8B", "--method", "qlora")
    full = _answers(replay_db, "--budget", "600", "--model-params", "8B", "--method", "full")
    assert qlora["min_memory_gb"] == 9.7 and qlora["finetune"]["memory_gb"] == 9.7
    assert full["min_memory_gb"] == 134.2 and full["finetune"]["method"] == "full"
    assert full["finetune"]["memory_gb_by_gpus"] == [134.2, 70.6, 48.7, 37.8]
    assert any("8B parameters by QLoRA" in a and "9.7 GB on one card" in a for a in qlora["assumptions"])
    assert any("8B parameters by full fine-tuning" in a and "134.2 GB on one card" in a
               and "4 cards 37.8 GB a card" in a for a in full["assumptions"])
    assert all(qlora[k]["memory_gb"] >= 9.7 for k in ("fastest", "best_value", "cheapest"))
    # The 6 GB GTX 1660 (no tensor cores) is no longer the cheapest way to fine-tune an 8B model by QLoRA.
    assert qlora["cheapest"]["model"] != "GeForce GTX 1660" and qlora["cheapest"]["memory_gb"] >= 10
    # No 38 GB card for four-way sharding is on a desktop in the replay: the answer says the least floor.
    assert full["fastest"]["model"] is None and "37.8 GB" in full["fastest"]["why"]
    # The floor is the highest of the use case's, --min-memory and the fine-tuning need's, and says whose binds.
    llm = _answers(replay_db, "--budget", "2000", "--use-case", "llm", "--model-params", "8B", "--method", "qlora")
    assert llm["min_memory_gb"] == 24
    assert any("9.7 GB on one card" in a and "the floor of 24 GB is higher" in a for a in llm["assumptions"])
    lora = _answers(replay_db, "--budget", "2000", "--use-case", "kaggle", "--model-params", "8B", "--method", "lora")
    assert lora["min_memory_gb"] == 20.2 and "meets the fine-tuning need of 20.2 GB" in lora["fastest"]["why"]
    text = runner.invoke(app, ["recommend", "--budget", "600", "--model-params", "8B", "--method", "qlora",
                               "--db", str(replay_db)]).stdout
    assert "fine-tuning a model of 8B parameters by QLoRA" in text
    # Rent or buy meets the same floor on both sides and says it.
    rent = runner.invoke(app, ["recommend", "--budget", "2000", "--hours-per-week", "10", "--model-params", "8B",
                               "--method", "lora", "--json", "--db", str(replay_db)])
    doc = json.loads(rent.stdout)
    assert doc["min_memory_gb"] == 20.2 and doc["notes"][0].startswith("fine-tuning a model of 8B parameters by LoRA")
    assert all(doc[side]["memory_gb"] >= 20.2 for side in ("buy", "rent") if doc[side] is not None)


def test_several_cards_shard_a_fine_tune_across_them(replay_db):
    """FSDP or ZeRO-3 shards the weights, gradients and optimizer state across the cards: 8B by LoRA needs
    20.2 GB on one card but 12.6 GB a card on two, so two 16 GB cards qualify; 70B by QLoRA (51.8 GB on one
    card) runs on three 24 GB cards at 22 GB a card. A card without tensor cores is never named for fine-tuning."""
    lora = _answers(replay_db, "--budget", "2000", "--model-params", "8B", "--method", "lora")
    assert lora["fastest"]["gpus"] == 2 and lora["fastest"]["memory_gb"] == 16
    assert "meets the 2-card sharded fine-tuning need (FSDP, ZeRO-3) of 12.6 GB" in lora["fastest"]["why"]
    big = _answers(replay_db, "--budget", "10000", "--model-params", "70B", "--method", "qlora")
    assert any(a.startswith("fine-tuning on 3 cards: FSDP or ZeRO-3 shards") and "22 GB a card" in a
               for a in big["fastest"]["assumptions"])
    text = runner.invoke(app, ["recommend", "--budget", "10000", "--model-params", "70B", "--method", "qlora",
                               "--db", str(replay_db)]).stdout
    assert "   fine-tuning on 3 cards: FSDP or ZeRO-3 shards the weights, gradients and optimizer state across them, " \
           "22 GB a card (one card would need 51.8 GB)" in text.splitlines()
    for kind in ("fastest", "best_value", "cheapest"):
        setup = big[kind]
        assert setup["gpus"] > 1
        assert setup["memory_gb"] >= big["finetune"]["memory_gb_by_gpus"][setup["gpus"] - 1]
    full = _answers(replay_db, "--budget", "25000", "--model-params", "8B", "--method", "full", "--include-passive")
    assert (full["fastest"]["model"], full["fastest"]["gpus"]) == ("L40", 4)  # 48 GB a card, 37.8 GB needed
    cheap = _answers(replay_db, "--budget", "400", "--model-params", "1B", "--method", "qlora")
    assert all(cheap[k]["model"] is None or "GTX" not in cheap[k]["model"] for k in ("fastest", "best_value", "cheapest"))
    assert _answers(replay_db, "--budget", "400", "--min-memory", "3")["cheapest"]["model"] == "GeForce GTX 1660"


def test_the_machine_and_power_rules_are_settings(replay_db, monkeypatch):
    monkeypatch.setenv("GPUVALUE_POWER_LIMIT_W", "3000")
    monkeypatch.setenv("GPUVALUE_PLATFORM_WORKSTATION_USD", "1500")
    doc = _answers(replay_db, "--budget", "10000", "--use-case", "research")
    assert doc["power_limit_w"] == 3000 and doc["fastest"]["power_limit_w"] == 3000
    assert doc["fastest"]["system_power_w"] <= 3000
    words = " ".join(doc["fastest"]["assumptions"])
    assert "three or four on a workstation platform ($1,500)" in words and "GPUVALUE_POWER_LIMIT_W" in words


def test_a_best_value_on_a_wide_interval_names_the_better_evidenced_card_within_it(replay_db):
    """The RX 9070's speed is a spec estimate of wide interval: the best value stays the one rule's pick,
    and a note names the GeForce RTX 3080 Ti, whose value lies within that interval on narrower evidence."""
    doc = _answers(replay_db, "--budget", "2000", "--use-case", "kaggle")
    assert doc["best_value"]["model"] == "Radeon RX 9070"
    notes = [n for n in doc["notes"] if n.startswith("best value: ")]
    assert len(notes) == 1 and "the GeForce RTX 3080 Ti" in notes[0] and "does not order their value" in notes[0]


def test_rent_or_buy_buys_a_beginner_the_card_recommend_would(replay_db):
    """A beginner's first card is an Ampere or newer NVIDIA card in `recommend`; rent or buy holds the bought
    card to the same rule (it bought a Radeon RX 7900 XT at $600)."""
    res = runner.invoke(app, ["recommend", "--budget", "600", "--use-case", "beginner", "--hours-per-week", "40",
                              "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    buy = next(line for line in res.stdout.splitlines() if line.startswith("Buy:"))
    assert "Radeon" not in buy and "GeForce RTX 30" in buy
