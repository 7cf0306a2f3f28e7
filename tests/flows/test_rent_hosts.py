"""`gpuvalue rent --min-reliability R --verified`: the rental ranking from the offers of hosts that meet the
terms, and vast.ai's own score beside gpuvalue's figure (on tests/rental_fixtures.py plus marketplace hosts)."""

from __future__ import annotations


import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.models.rental import RentalOffer
from gpuvalue.scrapers.sources.vastai import SCORE
from rental_fixtures import rent_rows as rent, FEB, load_offers, make_rental_database

runner = CliRunner()


def host(offer_id: int, name: str, model: str, per_hour: float, reliability: float, verified: bool, score: float,
         count: int = 1) -> RentalOffer:
    return RentalOffer(source="hosts", provider="vast", instance_type=f"{count}x {name} (offer {offer_id})",
                       gpu_name=name, model=model, match_reason="test", gpu_count=count, usd_per_hour=per_hour,
                       usd_per_gpu_hour=per_hour / count, as_of=FEB, reliability=reliability, verified=verified,
                       extras={SCORE.extra: score})


HOSTS = [
    host(1, "RTX 3090", "GeForce RTX 3090", 0.15, 0.995, True, 20.0),   # reliable and verified
    host(2, "RTX 3090", "GeForce RTX 3090", 0.10, 0.970, True, 19.0),   # verified, less reliable
    host(3, "RTX 3090", "GeForce RTX 3090", 0.12, 0.999, False, 21.0),  # reliable, not verified
    host(4, "RTX 4090", "GeForce RTX 4090", 0.60, 0.999, True, 80.0, count=2),  # $0.30 per GPU-hour
]


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "g.duckdb"
    con = make_rental_database(str(path))
    load_offers(con, HOSTS, "hosts", score=SCORE)
    con.close()
    return path


def prices(rows: list[dict]) -> dict[str, tuple[str, float]]:
    return {r["model"]: (r["provider"], round(r["usd_per_gpu_hour"], 4)) for r in rows}


def test_without_terms_the_cheapest_offer_stands_whatever_its_host(db):
    assert prices(rent(db))["GeForce RTX 3090"] == ("vast", 0.10)


def test_verified_keeps_verified_hosts_only(db):
    rows = rent(db, "--verified")
    assert prices(rows) == {"GeForce RTX 3090": ("vast", 0.10), "GeForce RTX 4090": ("vast", 0.30)}
    assert all(r["host_verified"] for r in rows)


def test_min_reliability_keeps_hosts_at_least_that_reliable(db):
    rows = rent(db, "--min-reliability", "0.99")
    assert prices(rows)["GeForce RTX 3090"] == ("vast", 0.12)
    assert all(r["host_reliability"] >= 0.99 for r in rows)


def test_both_terms_together(db):
    rows = rent(db, "--min-reliability", "0.99", "--verified")
    assert prices(rows) == {"GeForce RTX 3090": ("vast", 0.15), "GeForce RTX 4090": ("vast", 0.30)}
    assert [r["rank"] for r in rows] == [1, 2] and [r["rank_shown"] for r in rows] == [1, 2]
    assert {r["providers"] for r in rows} == {"vast"}  # aws and lambda state no host terms: left out
    assert rent(db, "--min-reliability", "0.9999") == []


def test_the_table_names_the_terms_and_the_providers_they_leave_out(db):
    res = runner.invoke(app, ["rent", "--verified", "--min-reliability", "0.99", "--db", str(db)], terminal_width=250)
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "from hosts meeting reliability 0.99 or more and verified hosts" in text
    assert "left out, stating neither: aws, lambda" in text


def test_vast_score_is_shown_beside_gpuvalues_figure_relative_to_the_reference(db):
    rows = {r["model"]: r for r in rent(db)}
    assert rows["GeForce RTX 3090"]["vast_dlperf"] == pytest.approx(20.0)  # the median of 19, 20, 21
    assert rows["GeForce RTX 4090"]["vast_dlperf"] == pytest.approx(40.0)  # 80 for two GPUs
    assert rows["GeForce RTX 4090"]["vast_dlperf_relative"] == pytest.approx(2.0)
    assert rows["RTX A6000"]["vast_dlperf"] is None  # no vast offer scores it
    table = " ".join(runner.invoke(app, ["rent", "--db", str(db)], terminal_width=250).stdout.split())
    assert "vast score" in table and "never used as a measurement" in table


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan"])
def test_a_reliability_outside_zero_to_one_is_a_one_line_error(db, value):
    res = runner.invoke(app, ["rent", "--min-reliability", value, "--db", str(db)])
    assert res.exit_code == 2 and "--min-reliability must be a fraction from 0 to 1" in res.output
    assert "Traceback" not in res.output


def test_host_terms_date_the_title_by_the_hosts_prices_shown(tmp_path, monkeypatch):
    """Only hosts of an old day meet the terms: the title and footer give that day, not the rental date's."""
    from datetime import date

    path = tmp_path / "g.duckdb"
    con = make_rental_database(str(path))
    load_offers(con, [h.model_copy(update={"as_of": date(2024, 11, 5)}) for h in HOSTS], "hosts")
    con.close()
    monkeypatch.setattr("gpuvalue.flows.cli.cli_app.utc_today", lambda: date(2026, 12, 3))
    res = runner.invoke(app, ["rent", "--min-reliability", "0.99", "--verified", "--db", str(path)], terminal_width=250)
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "prices of 2024-11-05 and before" in text and "2025-02-01 and before" not in text, text
    assert "The newest rental prices shown are of 2024-11-05, 2 y 1 mo before today (2026-12-03)" in text, text
    assert "The warehouse holds newer rental prices, up to 2025-02-01, that no row here shows" in text
