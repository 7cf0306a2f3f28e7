"""What `gpuvalue run` prints after the flow: a replay says it is one, ranks skipped by the default
filter are explained, and every column of a table has one number format (issue items 7 and 8).

The flow itself is replaced by a summary over a prepared warehouse: these tests read the printing,
not the pipeline.
"""

from __future__ import annotations

import re
import sys
import uuid
from types import SimpleNamespace

import pytest
from conftest_exports import LATEST_DAY, make_ranking_database
from typer.testing import CliRunner

from gpuvalue.flows import prefect_server, run_report
from gpuvalue.flows import pipeline as P
from gpuvalue.flows.cli import app

runner = CliRunner()
MODULES = ("GeForce RTX 2080 Ti", "GeForce GTX 1080 Ti")  # ranked #2 and #3 in the fixture


@pytest.fixture
def warehouse(tmp_path):
    db = tmp_path / "gpuvalue.duckdb"
    con = make_ranking_database(db)
    # Two modules a desktop cannot take ranked near the top, as the SXM cards rank in a replay.
    con.execute("UPDATE ranking_daily SET desktop_usable = false WHERE list_contains(?, model)", [list(MODULES)])
    con.close()
    return db


def _invoke_run(monkeypatch, db, *, replay: bool, warnings: tuple[str, ...] = ()):
    def fake_flow(as_of=None, replay=False, db=None, replay_dir=None):
        summary = P.RunSummary(run_id=uuid.uuid4().hex[:12], as_of=LATEST_DAY, replay=replay, db=db)
        summary.outcomes["ebay-browse"] = P.SourceOutcome("ebay-browse", "ok", rows=3, warnings=list(warnings))
        summary.ranked = 15
        return summary

    # The flow module replaced whole: these tests import no Prefect (the fast tier stays free of it).
    monkeypatch.setitem(sys.modules, "gpuvalue.flows.daily", SimpleNamespace(daily_flow=fake_flow))
    monkeypatch.setattr(prefect_server, "launch_temporary_server", lambda: None)  # no flow, no server
    monkeypatch.setattr(prefect_server, "adopt", lambda server, data_dir: None)
    # --prefect: the path whose server the lines above replace (a replay without it reads Prefect's profile).
    args = ["run", "--prefect", "--db", str(db), "--date", LATEST_DAY.isoformat(), "--top", "20"]
    return runner.invoke(app, args + (["--replay"] if replay else []))


def _table_cells(output: str, header: str) -> list[list[str]]:
    """The body rows of the rich table whose header row starts with ``header``, cell by cell."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"\W*{re.escape(header)}\b", line.strip("┃│ ")))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("│"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("│").split("│")])
    return rows


def test_a_replay_run_says_so_in_its_summary_and_title(monkeypatch, warehouse):
    res = _invoke_run(monkeypatch, warehouse, replay=True)
    assert res.exit_code == 0, res.output
    assert "replay: built offline from recorded pages; nothing was fetched for 2024-05-09" in res.output
    assert f"as of {LATEST_DAY} (replay of recorded pages)" in res.output


def test_a_live_run_does_not_claim_a_replay(monkeypatch, warehouse):
    res = _invoke_run(monkeypatch, warehouse, replay=False)
    assert res.exit_code == 0, res.output
    assert "replay" not in res.output


def test_the_ranking_says_why_ranks_are_skipped(monkeypatch, warehouse):
    res = _invoke_run(monkeypatch, warehouse, replay=False)
    rows = _table_cells(res.output, "rank")
    # Shown ranks count the shown cards; a line says what the default view hid and which flag shows it.
    assert [r[0] for r in rows[:2]] == ["1", "2"] and rows[0][1] == "GeForce RTX 3060 12 GB"
    assert not any(r[1] in MODULES or r[1].startswith("Tesla K80") for r in rows)
    text = " ".join(res.output.split())
    assert "hidden:" in text and "(--include-modules)" in text and "no PyTorch build runs it (--all)" in text
    assert "; `gpuvalue rank` with those flags shows them." in text  # they are rank's flags, not run's


def test_each_column_of_the_ranking_has_one_number_format(monkeypatch, warehouse):
    res = _invoke_run(monkeypatch, warehouse, replay=False)
    rows = _table_cells(res.output, "rank")
    assert len(rows) == 11  # 15 ranked, less the two modules, the H100 SXM5 and the K80 no current build runs
    gb, price, rel, ppd = ([r[i] for r in rows] for i in (2, 3, 10, 12))
    assert all(re.fullmatch(r"\d+", v) for v in gb), gb  # 24, 12, 6: never "8.000" beside "16.00"
    assert all(re.fullmatch(r"[\d,]+\.\d\d", v) for v in price), price
    assert any("," in v for v in price) or all(float(v) < 1000 for v in price)  # thousands separated, two decimals
    assert all(re.fullmatch(r"\d+\.\d{3}", v) for v in rel + ppd), rel + ppd


def test_sql_tables_format_each_column_alike(tmp_path):
    db = tmp_path / "g.duckdb"
    make_ranking_database(db).close()
    res = runner.invoke(app, ["sql", "--db", str(db),
                              "SELECT * FROM (VALUES (8.0::DOUBLE, 0.5::DOUBLE, 1.25::DOUBLE), "
                              "(16.0::DOUBLE, 12.25::DOUBLE, 0.125::DOUBLE)) AS t(gb, usd, ratio)"])
    assert res.exit_code == 0, res.output
    rows = _table_cells(res.output, "gb")
    assert rows == [["8", "0.50", "1.250"], ["16", "12.25", "0.125"]]


def test_data_is_printed_as_written_never_as_markup_or_emoji(tmp_path):
    """A listing title or a source name is data: "[/w]" once raised rich's MarkupError (a traceback),
    "[bold]" vanished, and a source named "import:x" printed as "import❌"."""
    db = tmp_path / "g.duckdb"
    make_ranking_database(db).close()
    res = runner.invoke(app, ["sql", "--db", str(db), "SELECT '[h] 3080 [/w] cash' AS title, '[bold]b' AS u, "
                                                      "'RTX :fire: 3090' AS v"])
    assert res.exit_code == 0, res.output
    assert _table_cells(res.output, "title") == [["[h] 3080 [/w] cash", "[bold]b", "RTX :fire: 3090"]]
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    res = runner.invoke(app, ["import", "listings", str(bad), "--source", "x", "--db", str(db)])
    assert res.exit_code != 0 and "import:x: cannot parse" in res.output and "\u274c" not in res.output


def test_a_source_with_many_warnings_shows_the_first_and_how_many_more(monkeypatch, warehouse):
    warnings = tuple(f"ebay-browse: search {i} not recorded, skipped" for i in range(1, 13))
    res = _invoke_run(monkeypatch, warehouse, replay=True, warnings=warnings)
    assert res.exit_code == 0, res.output
    (row,) = _table_cells(res.output, "source")
    assert row == ["ebay-browse", "ok", "3", "ebay-browse: search 1 not recorded, skipped (+11 more; all in table runs)"]
    text = run_report.summary_markdown(P.RunSummary(run_id="r1", as_of=LATEST_DAY, replay=True, db=None, outcomes={
        "ebay-browse": P.SourceOutcome("ebay-browse", "ok", rows=3, warnings=list(warnings))}))
    assert "| ebay-browse | ok | 3 | ebay-browse: search 1 not recorded, skipped (+11 more; all in table runs) |" in text


def test_the_prefect_artifact_says_replay():
    summary = P.RunSummary(run_id="r1", as_of=LATEST_DAY, replay=True, db=None)
    text = run_report.summary_markdown(summary)
    assert "**Replay:** built offline from recorded pages; nothing was fetched for 2024-05-09" in text
    live = run_report.summary_markdown(P.RunSummary(run_id="r2", as_of=LATEST_DAY, replay=False, db=None))
    assert "Replay" not in live and "recorded pages" not in live
