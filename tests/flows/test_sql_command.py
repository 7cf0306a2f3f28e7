"""`gpuvalue sql` takes the README's queries as pasted, from a file or stdin, and says what went wrong in one line."""

from __future__ import annotations

import json
import re

import pytest
from conftest import REPO
from conftest_exports import make_ranking_database
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("sql") / "gpuvalue.duckdb"
    make_ranking_database(path).close()
    return path


def readme_queries() -> str:
    text = (REPO / "docs" / "schema.md").read_text(encoding="utf-8")
    section = text.split("## Six useful queries", 1)[1]
    return re.search(r"```sql\n(.*?)```", section, re.S).group(1)


def _one_line_error(res, code: int, fragment: str) -> None:
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.stderr
    assert fragment in lines[0], lines[0]


def test_a_query_that_starts_with_a_comment_is_sql_not_an_option(db):
    first = readme_queries().split("\n\n")[0]
    assert first.startswith("-- 1.")
    res = runner.invoke(app, ["sql", first, "--db", str(db), "--json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert rows and all(r["memory_gb"] >= 12 for r in rows)


def test_the_readme_block_pasted_whole_shows_each_result(db):
    res = runner.invoke(app, ["sql", "--db", str(db), readme_queries()])
    assert res.exit_code == 0, res.output
    titles = re.findall(r"^\s*(\d)/6: (-- \d\..*)$", res.stdout, re.M)
    assert [n for n, _ in titles] == ["1", "2", "3", "4", "5", "6"], res.stdout
    assert "Best value with at least 12 GB" in titles[0][1]


def test_several_statements_each_get_a_table(db):
    res = runner.invoke(app, ["sql", "--db", str(db), "SELECT 1 AS a; SELECT 'two' AS b"])
    assert res.exit_code == 0, res.output
    assert "1/2: SELECT 1 AS a;" in res.stdout and "2/2: SELECT 'two' AS b" in res.stdout
    assert res.stdout.index("1/2") < res.stdout.index("two")


def test_json_takes_one_statement(db):
    _one_line_error(runner.invoke(app, ["sql", "--db", str(db), "--json", "SELECT 1; SELECT 2"]), 2,
                    "--json takes one statement, this query has 2")


@pytest.mark.parametrize("query", ["", "   \n", "-- only a comment", "-- one\n/* two */\n"])
def test_empty_or_comment_only_query_is_a_one_line_error(db, query):
    _one_line_error(runner.invoke(app, ["sql", "--db", str(db), query]), 2, "no SQL statement")


def test_sql_from_a_file_and_from_stdin(db, tmp_path):
    query = "-- count the ranked cards\nSELECT count(*) AS n FROM ranking_latest;\n"
    path = tmp_path / "q.sql"
    path.write_text(query)
    for args, stdin in ((["-f", str(path)], None), (["--file", str(path)], None), ([], query), (["-"], query)):
        res = runner.invoke(app, ["sql", "--db", str(db), "--json", *args], input=stdin)
        assert res.exit_code == 0, (args, res.output)
        assert json.loads(res.stdout) == {"n": 15}, args


def test_file_and_argument_problems(db, tmp_path):
    _one_line_error(runner.invoke(app, ["sql", "--db", str(db), "-f", str(tmp_path / "none.sql")]), 2, "no such file")
    (tmp_path / "q.sql").write_text("SELECT 1")
    _one_line_error(runner.invoke(app, ["sql", "--db", str(db), "-f", str(tmp_path / "q.sql"), "SELECT 2"]), 2,
                    "not both")
    _one_line_error(runner.invoke(app, ["sql", "--db", str(db), "--jsn"]), 2, "no such option: --jsn")


def test_a_wrong_table_or_column_name_is_answered_with_duckdbs_suggestion(db):
    _one_line_error(runner.invoke(app, ["sql", "--db", str(db), "SELECT * FROM ranking"]), 2,
                    'Table with name ranking does not exist! Did you mean "ranking_daily"? '
                    '(gpuvalue sql "SHOW TABLES" lists the tables)')
    _one_line_error(runner.invoke(app, ["sql", "--db", str(db), "SELECT price FROM ranking_daily"]), 2,
                    "Candidate bindings:")
    _one_line_error(runner.invoke(app, ["sql", "--db", str(db), "SELECT * FROM qqqqqqqqqqqq"]), 2,
                    '(gpuvalue sql "SHOW TABLES" lists the tables)')


def test_a_failing_statement_names_its_place(db):
    _one_line_error(runner.invoke(app, ["sql", "--db", str(db), "SELECT 1; SELECT * FROM nowhere"]), 2,
                    "statement 2 of 2:")
    _one_line_error(runner.invoke(app, ["sql", "--db", str(db), "SELECT 1; DELETE FROM ranking_daily"]), 2,
                    "read-only")


def test_sql_json_is_strict_json_whatever_the_column_types(db):
    query = ("SELECT 'nan'::DOUBLE AS a, 'x'::BLOB AS b, INTERVAL 3 DAY AS c, [1.0, 'inf'::DOUBLE] AS d, "
             "{'k': 'nan'::DOUBLE} AS e, TIME '10:00' AS g")
    res = runner.invoke(app, ["sql", "--json", query, "--db", str(db)])
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout, parse_constant=lambda name: pytest.fail(f"not strict JSON: {name}"))
    assert row == {"a": None, "b": "78", "c": "P3DT0S", "d": [1.0, None], "e": {"k": None}, "g": "10:00:00"}
