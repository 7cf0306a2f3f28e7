"""recommend and framework support: without --vendor no use case picks a card whose stack is unsupported on
Linux (the Radeon RX 7600 XT is not on AMD's ROCm list), the beginner gets an Ampere or newer NVIDIA card,
and every non-CUDA pick that is asked for says in one line what the buyer gives up."""

from __future__ import annotations

from conftest_exports import LATEST_DAY, ranking_for

from gpuvalue.models.budget_answers import AnswerOptions, answers_json, budget_answers
from gpuvalue.models.budget_text import format_budget_answers
from gpuvalue.models.multi_gpu import ScalingFacts

ROWS = ranking_for(LATEST_DAY)
# A cheap, fast Radeon that beats every NVIDIA card on value: what the replay's beginner answer led with.
RADEON = dict(ROWS[7], model="Radeon RX 7600 XT", vendor="AMD", architecture="RDNA 3.0", price_usd=200.0,
              relative_perf=0.6, memory_gb=16.0, perf_per_dollar=3.0, rank=1)
ROWS_WITH_RADEON = [RADEON] + ROWS


def answers(rows, budget, **options):
    return budget_answers(rows, ScalingFacts(), AnswerOptions(budget_usd=budget, **options))


def models(result):
    return [a.setup.model for a in result.answers() if a.setup is not None]


def caveats(answer):
    return [a for a in answer.assumptions if "not CUDA" in a]


def test_the_beginner_gets_a_current_cuda_card_where_one_fits():
    result = answers(ROWS_WITH_RADEON, 300, use_case="beginner")
    assert models(result) and all(m.startswith("GeForce") for m in models(result))
    assert all(not caveats(a) for a in result.answers())
    assert any("an Ampere or newer NVIDIA card only" in a and "--vendor AMD or Intel" in a for a in result.assumptions)


def test_asking_for_amd_gives_the_radeon_with_its_one_line_caveat():
    result = answers(ROWS_WITH_RADEON, 300, use_case="beginner", vendor="amd")
    assert set(models(result)) == {"Radeon RX 7600 XT"}
    (caveat,) = caveats(result.fastest)
    assert caveat.startswith("AMD card, not CUDA: ROCm on Linux") and "\n" not in caveat
    assert f"   {caveat}" in format_budget_answers(result).splitlines()
    assert caveat in answers_json(result)["fastest"]["assumptions"]


def test_no_use_case_picks_a_card_unsupported_on_linux_and_a_listed_amd_card_competes_with_its_caveat():
    for use_case in ("kaggle", "research", "cv", "nlp", "llm", None):
        result = answers(ROWS_WITH_RADEON, 300 if use_case not in ("research", "llm") else 3000, use_case=use_case)
        assert "Radeon RX 7600 XT" not in models(result), use_case
    listed = dict(RADEON, model="Radeon RX 7800 XT")  # on AMD's ROCm list: supported, so it competes
    result = answers([listed] + ROWS, 300, use_case="kaggle")
    assert result.best_value.setup.model == "Radeon RX 7800 XT" and caveats(result.best_value)


def test_without_a_cuda_card_in_budget_the_beginner_gets_none_and_is_told_why():
    cheap = dict(RADEON, price_usd=90.0)
    result = answers([cheap] + ROWS, 100, use_case="beginner")
    assert models(result) == [] and result.fastest.why.startswith("nothing with at least 8 GB a card fits $100")
    asked = answers([cheap] + ROWS, 100, use_case="beginner", vendor="AMD")
    assert set(models(asked)) == {"Radeon RX 7600 XT"} and caveats(asked.fastest)


def test_vendor_nvidia_keeps_nvidia_only():
    result = answers(ROWS_WITH_RADEON, 700, vendor="NVIDIA")
    assert models(result) and all(not m.startswith("Radeon") for m in models(result))


def test_a_vendor_recommend_does_not_know_is_one_line(tmp_path):
    from typer.testing import CliRunner

    from gpuvalue.flows.cli import app

    db = str(tmp_path / "none.duckdb")
    res = CliRunner().invoke(app, ["recommend", "--budget", "300", "--vendor", "nvdia", "--db", db])
    assert res.exit_code == 2 and "--vendor must be NVIDIA, AMD or Intel, not 'nvdia'" in res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1
    res = CliRunner().invoke(app, ["recommend", "--budget", "300", "--vendor", "amd", "--hours-per-week", "5",
                                   "--db", db])
    assert res.exit_code == 2 and "leave it out with --hours-per-week" in res.output


def test_a_non_cuda_rent_or_buy_answer_says_what_it_costs(tmp_path):
    """The 2080 Ti bought at 20 h a week (in a machine that cost nothing), turned into an AMD card on
    AMD's ROCm list: the answer gets the caveat line."""
    import duckdb
    from rental_fixtures import make_rental_database
    from typer.testing import CliRunner

    from gpuvalue.flows.cli import app

    path = tmp_path / "g.duckdb"
    make_rental_database(str(path)).close()
    args = ["recommend", "--budget", "900", "--hours-per-week", "20", "--platform-cost", "0", "--db", str(path)]
    cuda = CliRunner().invoke(app, args)
    assert "Answer: buy GeForce RTX 2080 Ti used." in cuda.stdout and "not CUDA" not in cuda.stdout
    con = duckdb.connect(str(path))
    # A card on AMD's ROCm list (one off it is never bought, as recommend never picks it without --vendor).
    con.execute("UPDATE ranking_daily SET vendor = 'AMD', architecture = 'RDNA 3.0', model = 'Radeon RX 9070 XT' "
                "WHERE model = 'GeForce RTX 2080 Ti'")
    con.close()
    amd = CliRunner().invoke(app, args)
    assert amd.exit_code == 0, amd.output
    assert "Note: Radeon RX 9070 XT: AMD card, not CUDA: ROCm on Linux" in amd.stdout
