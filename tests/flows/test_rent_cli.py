"""`gpuvalue rent` and `gpuvalue recommend --hours-per-week`: the rental ranking and the rent-or-buy answer,
on a warehouse file built without Prefect (tests/rental_fixtures.py)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest_exports import make_ranking_database
from gpuvalue.flows.cli import app
from rental_fixtures import make_rental_database

runner = CliRunner()


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "g.duckdb"
    make_rental_database(str(path)).close()
    return path


def lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines()]


def test_rent_json_lists_the_rental_ranking_best_first(db):
    res = runner.invoke(app, ["rent", "--json", "--db", str(db)])
    assert res.exit_code == 0, res.output
    rows = lines(res.stdout)
    assert [(r["rank"], r["model"], r["provider"]) for r in rows] == [
        (1, "GeForce RTX 3090", "vast"), (2, "GeForce RTX 4090", "vast"), (3, "RTX A6000", "lambda")]
    first = rows[0]
    assert first["usd_per_gpu_hour"] == 0.20 and first["price_as_of"] == "2025-01-20" and first["as_of"] == "2025-02-01"
    assert first["reference_gpu"] == "GeForce RTX 3090" and first["perf_per_usd_hour"] == pytest.approx(5.0)
    assert rows[1]["providers"] == "aws, lambda, vast" and rows[1]["provider_count"] == 3


def test_rent_spot_provider_memory_and_top(db):
    spot = lines(runner.invoke(app, ["rent", "--spot", "--json", "--db", str(db)]).stdout)
    assert [(r["spot_rank"], r["model"], r["spot_provider"]) for r in spot] == [
        (1, "GeForce RTX 4090", "vast"), (2, "Tesla V100 PCIe 16 GB", "vast")]
    aws = lines(runner.invoke(app, ["rent", "--provider", "aws", "--json", "--db", str(db)]).stdout)
    assert [(r["model"], r["usd_per_gpu_hour"]) for r in aws] == [("GeForce RTX 4090", 0.70)]
    big = lines(runner.invoke(app, ["rent", "--min-memory", "40", "--json", "--db", str(db)]).stdout)
    assert [r["model"] for r in big] == ["RTX A6000"]
    assert len(lines(runner.invoke(app, ["rent", "--top", "2", "--json", "--db", str(db)]).stdout)) == 2


def test_rent_table_says_what_the_numbers_are(db):
    res = runner.invoke(app, ["rent", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "On-demand rental" in res.stdout and "GeForce RTX 3090" in res.stdout and "2025-01-20" in res.stdout
    spot = runner.invoke(app, ["rent", "--spot", "--db", str(db)])
    assert "Spot rental" in spot.stdout and "Tesla V100" in spot.stdout


def test_rent_says_how_old_the_rental_date_is_today_and_rent_or_buy_calls_an_old_rental_price_stale(db, monkeypatch):
    """The rental ranking's day is its newest price's: without this, a catalog loaded 20 months ago
    showed every price at age 0 d, and rent-or-buy set it beside a used price marked stale."""
    from datetime import date

    # The rental date is 2025-02-01 (aws's RTX 4090), but no row shows that price: the newest shown is of 2025-01-20.
    monkeypatch.setattr("gpuvalue.flows.cli.cli_app.utc_today", lambda: date(2025, 1, 20))  # the newest shown price's day
    same_day = " ".join(runner.invoke(app, ["rent", "--db", str(db)], terminal_width=250).stdout.split())
    assert "before today" not in same_day and "On-demand rental" in same_day
    monkeypatch.setattr("gpuvalue.flows.cli.cli_app.utc_today", lambda: date(2026, 12, 2))
    later = " ".join(runner.invoke(app, ["rent", "--db", str(db)], terminal_width=250).stdout.split())
    assert "The newest rental prices shown are of 2025-01-20, 22 mo before today (2026-12-02)" in later
    spot = " ".join(runner.invoke(app, ["rent", "--spot", "--db", str(db)], terminal_width=250).stdout.split())
    assert "The newest rental prices shown are of 2025-01-20, 22 mo before today" in spot
    # Rent or buy: stale by the used prices' rule, on the used ranking's day (2024-05-09, window 30 days).
    answer = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "5", "--db", str(db)])
    assert "on vast (cheapest of 1 provider(s), 2025-01-20), speed" in answer.stdout
    import duckdb

    con = duckdb.connect(str(db))
    con.execute("UPDATE ranking_daily SET as_of = as_of + 300")  # the used ranking's day: 2025-03-05
    con.close()
    old = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "5", "--db", str(db)])
    assert old.exit_code == 0, old.output
    assert "on vast (cheapest of 1 provider(s), 2025-01-20, stale), speed" in old.stdout
    monkeypatch.setenv("GPUVALUE_PRICE_WINDOW_DAYS", "60")  # the window the used prices are aged by
    wide = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "5", "--db", str(db)])
    assert "on vast (cheapest of 1 provider(s), 2025-01-20), speed" in wide.stdout


def test_rent_shows_older_prices_apart_with_their_age(db, monkeypatch):
    from datetime import date

    monkeypatch.setattr("gpuvalue.flows.cli.cli_app.utc_today", lambda: date(2025, 2, 1))  # the rental date

    from gpuvalue.warehouse.db import open_database
    from rental_fixtures import load_offers, offer

    con = open_database(db)
    load_offers(con, [offer("cloud-c", "oldcloud", "RX 7900 XTX", "Radeon RX 7900 XTX", date(2024, 6, 1),
                            per_hour=0.01)], "cloud-c")
    con.close()
    res = runner.invoke(app, ["rent", "--db", str(db)], terminal_width=250)
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    recent = text.index("Priced within 90 days of the newest price (all on 2025-01-20)")
    older = text.index("Older prices (all on 2024-06-01): ranked after the recent ones")
    assert recent < text.index("lambda") < older < text.index("oldcloud")  # the A6000's lambda price, then the XTX's
    assert "8 mo" in text and "Older on-demand prices (a provider's newest published more than 90 days" in text
    # Each price's age is its age today: a year on, the 2025-01-20 price is a year old, not "0 d".
    monkeypatch.setattr("gpuvalue.flows.cli.cli_app.utc_today", lambda: date(2026, 1, 20))
    later = " ".join(runner.invoke(app, ["rent", "--db", str(db)], terminal_width=250).stdout.split())
    assert "│ 2025-01-20 │ 12 mo │" in later and "│ 2024-06-01 │ 20 mo │" in later, later
    rows = lines(runner.invoke(app, ["rent", "--json", "--db", str(db)]).stdout)
    assert [(r["rank"], r["model"], r["price_tier"], r["price_age_days"]) for r in rows][-1] == (
        4, "Radeon RX 7900 XTX", "older", 245)
    # Filters that leave only older prices still say what they are: only the old table prices the
    # A6000 on spot, and it alone has 40 GB.
    con = open_database(db)
    load_offers(con, [offer("cloud-c", "oldcloud", "RTX A6000", "RTX A6000", date(2024, 6, 1), per_hour=None,
                            spot=0.03)], "cloud-c")
    con.close()
    spot = " ".join(runner.invoke(app, ["rent", "--spot", "--min-memory", "40", "--db", str(db)],
                                  terminal_width=250).stdout.split())
    assert "Priced within" not in spot and "Older prices (all on 2024-06-01)" in spot
    assert "RTX A6000" in spot and "Older spot prices (a provider's newest published more than 90 days" in spot


def test_rent_dates_its_title_and_footer_by_the_rows_shown_not_the_whole_warehouse(db, monkeypatch):
    """A filter that keeps only old prices: the title and footer said the warehouse's newest date
    (2025-02-01, another provider's) while every row shown was of 2024-06-01, so the shown prices read
    eight months newer than they are."""
    from datetime import date

    from gpuvalue.warehouse.db import open_database
    from rental_fixtures import load_offers, offer

    con = open_database(db)
    load_offers(con, [offer("cloud-c", "oldcloud", "RTX A6000", "RTX A6000", date(2024, 6, 1), per_hour=0.40,
                            spot=0.30)], "cloud-c")
    con.close()
    monkeypatch.setattr("gpuvalue.flows.cli.cli_app.utc_today", lambda: date(2026, 12, 2))
    for args in ([], ["--spot"]):
        res = runner.invoke(app, ["rent", "--provider", "oldcloud", *args, "--db", str(db)], terminal_width=250)
        assert res.exit_code == 0, res.output
        text = " ".join(res.stdout.split())
        assert "on oldcloud" in text and "prices of 2024-06-01 and before" in text, text
        assert "2025-02-01 and before" not in text and "of 2025-02-01," not in text
        assert "The newest rental prices shown are of 2024-06-01, 2 y 6 mo before today (2026-12-02)" in text, text
        assert "The warehouse holds newer rental prices, up to 2025-02-01, that no row here shows (other filters " \
               "may show them)." in text
    # The JSON keeps its fields: as_of is still the rental date, price_as_of each row's own.
    rows = lines(runner.invoke(app, ["rent", "--provider", "oldcloud", "--json", "--db", str(db)]).stdout)
    assert [(r["model"], r["as_of"], r["price_as_of"]) for r in rows] == [("RTX A6000", "2025-02-01", "2024-06-01")]
    # Shown rows that do reach the rental date say no more than that.
    aws = " ".join(runner.invoke(app, ["rent", "--provider", "aws", "--db", str(db)], terminal_width=250).stdout.split())
    assert "prices of 2025-02-01 and before" in aws and "The newest rental prices shown are of 2025-02-01" in aws
    assert "holds newer" not in aws


def test_newest_shown_reads_each_shown_price_date():
    from datetime import date

    from gpuvalue.flows.cli.rent_cli import newest_shown

    rows = [{"usd_per_gpu_hour": 1.0, "price_as_of": date(2024, 1, 1), "spot_usd_per_gpu_hour": 0.5,
             "spot_as_of": date(2024, 3, 1)},
            {"usd_per_gpu_hour": None, "price_as_of": date(2024, 9, 1), "spot_usd_per_gpu_hour": None,
             "spot_as_of": None},
            {"usd_per_gpu_hour": 2.0, "price_as_of": date(2024, 2, 1), "spot_usd_per_gpu_hour": None,
             "spot_as_of": date(2025, 1, 1)}]
    assert newest_shown(rows) == date(2024, 3, 1)  # a price the row does not show does not date it
    assert newest_shown([]) is None


@pytest.mark.parametrize("args, message", [
    (["--top", "0"], "--top must be at least 1"),
    (["--min-memory", "-1"], "--min-memory must be a number of GB, 0 or more"),
    (["--provider", "acme"], "no rental offers from 'acme'; known providers: aws, lambda, vast"),
])
def test_rent_bad_input_is_a_one_line_error(db, args, message):
    res = runner.invoke(app, ["rent", *args, "--db", str(db)])
    assert res.exit_code == 2, res.output
    assert res.output.strip().startswith("error:") and message in res.output and "Traceback" not in res.output


def test_rent_top_beyond_any_row_count_shows_every_row(db):
    every = runner.invoke(app, ["rent", "--json", "--top", "1000", "--db", str(db)])
    huge = runner.invoke(app, ["rent", "--json", "--top", "99999999999999999999", "--db", str(db)])
    assert huge.exit_code == 0, huge.output
    assert huge.stdout == every.stdout and huge.stdout


def test_rent_on_a_warehouse_without_rental_prices(tmp_path):
    path = tmp_path / "old.duckdb"
    make_ranking_database(str(path)).close()
    res = runner.invoke(app, ["rent", "--db", str(path)])
    assert res.exit_code == 0 and "No rental prices yet" in res.stdout
    assert runner.invoke(app, ["rent", "--json", "--db", str(path)]).stdout == ""
    answer = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "10", "--db", str(path)])
    assert answer.exit_code == 1 and "no rental prices in the warehouse" in answer.output


def test_recommend_with_hours_per_week_answers_rent_or_buy_with_the_break_even(db):
    light = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "5", "--db", str(db)])
    assert light.exit_code == 0, light.output
    assert "Answer: rent GeForce RTX 3090 on vast." in light.stdout
    assert "Buy:  GeForce RTX 2080 Ti at $300 (median of 18 sold, 2024-05-08)" in light.stdout
    # The card goes in the buyer's desktop, which adds $0.051 an hour: its value lost by the hour and its 150 W.
    assert "Break-even: buying the GeForce RTX 2080 Ti costs less than renting the GeForce RTX 3090 from 30.3 h a week." \
        in light.stdout
    assert "kept 24 months" in light.stdout and "$0.15/kWh" in light.stdout and "5 h of training a week" in light.stdout
    assert "+ $0.051 machine per hour of use" in light.stdout and "the card goes in the buyer's desktop" in light.stdout
    middle = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "30", "--db", str(db)])
    assert "Answer: buy Tesla V100 PCIe 16 GB used." in middle.stdout and "from 26.5 h a week." in middle.stdout
    # --platform-cost with --hours-per-week: a machine that cost nothing leaves only its power on the buy side.
    free = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "20", "--platform-cost", "0",
                               "--db", str(db)])
    assert free.exit_code == 0, free.output
    assert "Answer: buy GeForce RTX 2080 Ti used." in free.stdout and "from 18.9 h a week." in free.stdout
    # A machine bought for the card is spent from the budget: $700 leaves $200 for a card.
    machine = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "20", "--platform-cost", "700",
                                  "--json", "--db", str(db)])
    doc = json.loads(machine.stdout)
    assert doc["buy"] is None or doc["buy"]["price"] <= 200
    assert doc["machine"]["bought_usd"] == 700 and "costs $700 (--platform-cost)" in doc["assumptions"]
    # 60 h a week: renting the 3090 for two years ($1,252) is over the budget; the break-even is still given.
    heavy = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "60", "--db", str(db)])
    assert "Answer: buy Tesla V100 PCIe 16 GB used." in heavy.stdout
    assert "Break-even: against renting the GeForce RTX 3090 at $0.200/GPU-hour on vast" in heavy.stdout
    assert "no rental card with at least 16 GB costs $900 or less over 24 months at 60 h a week (6,261 h)" in heavy.stdout


def test_recommend_settings_and_flags_feed_the_assumptions(db, monkeypatch):
    monkeypatch.setenv("GPUVALUE_HOLDING_MONTHS", "36")
    res = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "5", "--kwh-price", "0.4", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "kept 36 months" in res.stdout and "$0.4/kWh" in res.stdout


def test_one_ownership_horizon_for_rent_or_buy_and_the_electricity_recommend_counts(db, monkeypatch):
    """recommend counted electricity over 3 years while rent or buy kept a card 24 months."""
    monkeypatch.setenv("GPUVALUE_OWNERSHIP_MONTHS", "30")
    rent_or_buy = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "5", "--db", str(db)])
    assert rent_or_buy.exit_code == 0, rent_or_buy.output
    assert "kept 30 months" in rent_or_buy.stdout
    answers = runner.invoke(app, ["recommend", "--budget", "900", "--kwh-price", "0.3", "--hours-per-day", "8",
                                  "--json", "--db", str(db)])
    assert answers.exit_code == 0, answers.output
    doc = json.loads(answers.stdout)
    assert doc["ownership_months"] == 30
    assert any("counted over 30 months of ownership" in a for a in doc["best_value"]["assumptions"])


@pytest.mark.parametrize("args, message", [
    (["--hours-per-week", "0"], "--hours-per-week must be above 0 and at most 168, not 0"),
    (["--hours-per-week", "200"], "--hours-per-week must be above 0 and at most 168"),
    (["--hours-per-week", "nan"], "--hours-per-week must be above 0 and at most 168"),
    (["--hours-per-week", "10", "--gpus", "2"], "--hours-per-week answers rent or buy for one card"),
    (["--hours-per-week", "10", "--kwh-price", "0.2", "--hours-per-day", "3"], "leave out --hours-per-day"),
])
def test_recommend_hours_per_week_bad_input(tmp_path, args, message):
    res = runner.invoke(app, ["recommend", "--budget", "800", *args, "--db", str(tmp_path / "none.duckdb")])
    assert res.exit_code == 2, res.output
    assert res.output.strip().startswith("error:") and message in res.output and "Traceback" not in res.output


def test_recommend_without_the_flag_is_unchanged(db):
    res = runner.invoke(app, ["recommend", "--budget", "900", "--db", str(db)])
    assert res.exit_code == 0, res.output
    text = res.stdout.split("\n", 1)[1] if res.stdout.startswith("Note: this ranking is of") else res.stdout
    assert text.startswith("Budget $900") and "\nFastest: " in res.stdout
    assert "Answer:" not in res.stdout and "Break-even" not in res.stdout


def test_rent_or_buy_considers_the_used_cards_recommend_does_and_says_what_it_left_out(db):
    """As `recommend`'s help says: at least 6 GB (GPUVALUE_MIN_MEMORY_GB), no passive card unless asked."""
    import duckdb

    def bought(*flags: str) -> str:
        res = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "20", "--platform-cost", "0", *flags,
                                  "--db", str(db)])
        assert res.exit_code == 0, res.output
        return res.stdout

    assert "Answer: buy GeForce RTX 2080 Ti used." in bought()
    con = duckdb.connect(str(db))
    con.execute("UPDATE ranking_daily SET passive = true WHERE model = 'GeForce RTX 2080 Ti'")
    con.close()
    hidden = bought()
    assert "Buy:  GeForce RTX 2080 Ti" not in hidden and "passive: needs a fan kit (--include-passive)" in hidden
    assert "Buy:  GeForce RTX 2080 Ti at $300" in bought("--include-passive")
    con = duckdb.connect(str(db))
    con.execute("UPDATE ranking_daily SET passive = false, memory_gb = 4 WHERE model = 'GeForce RTX 2080 Ti'")
    con.close()
    small = bought()
    assert "Buy:  GeForce RTX 2080 Ti" not in small and "under 6 GB (--min-memory)" in small
    assert "Buy:  GeForce RTX 2080 Ti at $300" in bought("--min-memory", "4")


def test_rent_or_buy_for_a_use_case_says_why_it_asks_for_that_memory(db):
    res = runner.invoke(app, ["recommend", "--budget", "900", "--hours-per-week", "20", "--use-case", "nlp",
                              "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "Note: nlp: at least 12 GB because fine-tuning BERT-base" in res.stdout
    assert "under 12 GB (--min-memory)" in " ".join(res.stdout.split())


def test_rent_or_buy_for_a_use_case_says_when_its_precision_is_not_the_rankings(db):
    """As `recommend` says it: every use case trains in 16-bit (bf16) mixed precision, as the figures here are
    (both sides'), so no answer says it is using another precision's figures."""
    def notes(use_case: str) -> list[str]:
        res = runner.invoke(app, ["recommend", "--budget", "2000", "--hours-per-week", "20", "--use-case", use_case,
                                  "--db", str(db)])
        assert res.exit_code == 0, res.output
        return [line for line in res.stdout.splitlines() if line.startswith("Note: ")]

    research = notes("research")
    assert research[0].startswith("Note: research: at least 24 GB because research today trains transformers in bf16")
    assert not any("prefers" in note for use_case in ("research", "nlp") for note in notes(use_case))


def test_rent_marks_framework_support_as_rank_does(db):
    """rent marked a legacy card (a V100, which the CUDA 12.6 wheels run) with rank's legacy mark
    but the words 'no longer support this card', and its rows carried only the old flag."""
    import duckdb

    con = duckdb.connect(str(db))
    con.execute("UPDATE gpus SET framework_support = 'legacy', framework_supported = false "
                "WHERE model = 'GeForce RTX 4090'")
    con.execute("UPDATE gpus SET framework_support = 'none', framework_supported = false WHERE model = 'RTX A6000'")
    con.close()
    res = runner.invoke(app, ["rent", "--db", str(db)], terminal_width=250)
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "4090 †" in text and "RTX A6000 ‡" in text  # the model column wraps "GeForce RTX"
    assert "† legacy PyTorch builds only" in res.stdout and "‡ no PyTorch build of the newest release" in res.stdout
    assert "no longer support" not in res.stdout
    rows = {r["model"]: r for r in lines(runner.invoke(app, ["rent", "--json", "--db", str(db)]).stdout)}
    assert rows["GeForce RTX 4090"]["framework_support"] == "legacy" and rows["RTX A6000"]["framework_support"] == "none"


def test_a_provider_without_spot_prices_says_so_rather_than_no_match(db):
    res = runner.invoke(app, ["rent", "--spot", "--provider", "lambda", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == "lambda publishes no spot prices here: try without --spot."
    filtered = runner.invoke(app, ["rent", "--spot", "--provider", "vast", "--min-memory", "500", "--db", str(db)])
    assert filtered.stdout.strip() == "No rented GPUs match those filters."


def test_rent_numbers_the_rows_it_shows_as_rank_does(db):
    """--min-memory 40 showed '#3' alone: the place in the whole rental ranking, where rank numbers
    the cards it shows; --json keeps both."""
    rows = lines(runner.invoke(app, ["rent", "--json", "--min-memory", "40", "--db", str(db)]).stdout)
    assert [(r["model"], r["rank"], r["rank_shown"]) for r in rows] == [("RTX A6000", 3, 1)]
    table = runner.invoke(app, ["rent", "--min-memory", "40", "--db", str(db)], terminal_width=250).stdout
    assert "│ 1 │ RTX A6000" in table
