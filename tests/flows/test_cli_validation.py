"""Bad arguments get a one-line reason and exit code 2, never a traceback."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def db(replay_db, tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "gpuvalue.duckdb"
    shutil.copy(replay_db, path)
    return path


def _check(res, message: str) -> None:
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert message in text, text
    assert "Traceback" not in res.output
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit)


@pytest.mark.parametrize(
    "args, message",
    [
        (["rank", "--date", "2026-13-01"], "--date must be a date like"),
        (["rank", "--vendor", "nvidiaa"], "--vendor must be NVIDIA, AMD or Intel, not 'nvidiaa'"),
        (["rank", "--vendor", "Matrox", "--json"], "--vendor must be NVIDIA, AMD or Intel, not 'Matrox'"),
        (["recommend", "--budget", "600", "--vendor", "Nvida"], "--vendor must be NVIDIA, AMD or Intel, not 'Nvida'"),
        (["rank", "--date", "yesterday"], "--date must be a date like"),
        (["export", "--format", "csv", "--date", "30/11/2026"], "--date must be a date like"),
        (["run", "--date", "2026-02-30"], "--date must be a date like"),
        (["reparse", "--since", "2026-1-1x"], "--since must be a date like"),
        (["reparse", "--source", "ebay"], "unknown source 'ebay'"),
        (["export", "--format", "xlsx"], "--format must be csv, json, parquet or feed"),
        (["perf", "--precision", "int8"], "--precision must be fp16 or fp32"),
        (["run", "--task-runner", "mpi"], "--task-runner must be thread or dask"),
        (["run", "--replay", "--task-runner", "thread", "--dask-address", "tcp://127.0.0.1:8786"], "--dask-address is the scheduler of --task-runner dask"),
        (["report", "--top", "0"], "--top must be at least 1"),
        (["measure", "--suite", "huge"], "--suite must be default or tiny"),
        (["export", "--all", "--format", "csv"], "--all writes every format; drop --format"),
        (["rank", "--max-price", "nan"], "--max-price must be a price in USD above 0, not nan"),
        (["rank", "--max-price", "-5"], "--max-price must be a price in USD above 0, not -5"),
        (["rank", "--min-memory", "inf"], "--min-memory must be a number of GB, 0 or more, not inf"),
    ],
)
@pytest.mark.e2e
def test_bad_values(db, args, message):
    _check(runner.invoke(app, [*args, "--db", str(db)]), message)


@pytest.mark.e2e
def test_unknown_source_in_the_environment(db, monkeypatch):
    # The commands that fetch or rebuild read the sources; rank, which only reads, leaves them alone.
    monkeypatch.setenv("GPUVALUE_SOURCES", '["ebay-browse", "craigslist"]')
    _check(runner.invoke(app, ["reparse", "--db", str(db)]), "unknown source(s) ['craigslist']")
    assert runner.invoke(app, ["rank", "--db", str(db)]).exit_code == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["rank"], "no database at"),
        (["sql", "SELECT 1"], "no database at"),
        (["export", "--format", "csv"], "no database at"),
        (["reparse"], "no database at"),
    ],
)
def test_missing_database(tmp_path, args, message):
    _check(runner.invoke(app, [*args, "--db", str(tmp_path / "none.duckdb")]), message)


@pytest.mark.parametrize(
    "args, message",
    [
        (["import", "listings", "{tmp}/none.csv", "--source", "x"], "no such file"),
        (["parse", "lambda", "{tmp}/none.csv"], "no such file"),
        (["restore", "--from", "{tmp}/none"], "is not a gpuvalue backup"),
        (["match", "--evaluate", "{tmp}/none.csv"], "no such file"),
    ],
)
def test_missing_files(tmp_path, args, message):
    _check(runner.invoke(app, [a.format(tmp=tmp_path) for a in args] + ["--db", str(tmp_path / "new.duckdb")]
                         if args[0] != "parse" else [a.format(tmp=tmp_path) for a in args]), message)


@pytest.mark.parametrize(
    "out, message",
    [
        ("{tmp}/no/such/dir/r.csv", "does not exist"),
        ("{tmp}/readonly/r.csv", "is not writable"),
    ],
)
@pytest.mark.e2e
def test_unwritable_export_paths(db, tmp_path, out, message):
    ro = tmp_path / "readonly"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        import os

        if message == "is not writable" and os.access(ro, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
        _check(runner.invoke(app, ["export", "--db", str(db), "--format", "csv", "--out", out.format(tmp=tmp_path)]), message)
    finally:
        ro.chmod(0o700)


def test_unwritable_database_folder(tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    res = runner.invoke(app, ["import", "listings", str(blocker), "--source", "x", "--db", str(blocker / "g.duckdb")])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output


def test_a_bad_setting_is_named_as_the_user_set_it_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUVALUE_PRECISION", "fp8")
    monkeypatch.setenv("GPUVALUE_PRICE_WINDOW_DAYS", "a month")
    res = runner.invoke(app, ["rank", "--db", str(tmp_path / "gpuvalue.duckdb")])
    _check(res, "invalid settings: GPUVALUE_PRECISION='fp8': Input should be 'fp16' or 'fp32'; "
                "GPUVALUE_PRICE_WINDOW_DAYS='a month': Input should be a valid integer")
    assert len(res.output.strip().splitlines()) == 1 and "pydantic.dev" not in res.output


@pytest.mark.e2e
def test_a_dask_address_on_the_command_line_runs_on_dask(db, monkeypatch):
    from gpuvalue.flows import scale

    asked = []

    def with_dask(flow, address):
        asked.append(address)
        raise RuntimeError("stop before the flow")

    monkeypatch.setattr(scale, "with_dask", with_dask)
    res = runner.invoke(app, ["run", "--replay", "--dask-address", "tcp://127.0.0.1:8786", "--db", str(db)])
    assert asked == ["tcp://127.0.0.1:8786"] and "stop before the flow" in str(res.exception)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"title,expected_model\n", "no labelled titles"),
        (b"title,subtitle,price\nRTX 3080,,500\n", "labels need the columns title, expected_model; missing: expected_model"),
        (b"name,expected_model\nRTX 3080,GeForce RTX 3080\n", "missing: title"),
        ("title,expected_model\nRTX 3080 \u00e9,x\n".encode("latin-1"), "is not UTF-8 text"),
        (None, "is a directory, not a labels file"),
    ],
)
def test_match_evaluate_refuses_what_is_not_a_labels_file_in_one_line(tmp_path, content, message):
    """Each was a traceback (KeyError, UnicodeDecodeError, IsADirectoryError), or a score of
    nonsense: precision 0.0000 without expected_model, 1.0000 on no titles at all."""
    path = tmp_path / "labels.csv"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    _check(runner.invoke(app, ["match", "--evaluate", str(path)]), message)


def test_settings_and_paths_a_user_gets_wrong_are_refused_in_one_line(tmp_path, monkeypatch):
    """Each said something else: '. is a directory' (an empty GPUVALUE_DB), 'less than or equal to
    3600' (nan), a codec error naming no file (.env), '[Errno 20] Not a directory' (backup)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GPUVALUE_DB", "")
    _check(runner.invoke(app, ["rank"]), "GPUVALUE_DB is set but empty")
    monkeypatch.delenv("GPUVALUE_DB")
    monkeypatch.setenv("GPUVALUE_READ_WAIT_S", "nan")
    _check(runner.invoke(app, ["rank"]), "GPUVALUE_READ_WAIT_S='nan': Input should be a finite number")
    monkeypatch.delenv("GPUVALUE_READ_WAIT_S")
    (tmp_path / ".env").write_bytes(b"GPUVALUE_TOP=\xff\xfe\n")
    _check(runner.invoke(app, ["rank"]), "invalid settings: .env is not UTF-8 text")
    (tmp_path / ".env").unlink()
    (tmp_path / "afile").write_text("")
    _check(runner.invoke(app, ["backup", "--out", "afile"]), "afile is a file: --out names a folder")


def test_an_empty_warehouse_says_nothing_is_ranked_to_recommend_with_or_without_hours(tmp_path):
    """recommend said 'nothing is ranked yet' (exit 2), its rent-or-buy form 'no rental prices' (exit 1)."""
    from gpuvalue.warehouse.db import open_database

    db = tmp_path / "empty.duckdb"
    open_database(db).close()
    for extra in ([], ["--hours-per-week", "10"]):
        _check(runner.invoke(app, ["recommend", "--budget", "500", *extra, "--db", str(db)]), "nothing is ranked yet")
    res = runner.invoke(app, ["perf", "--inference", "--db", str(db)])
    assert res.exit_code == 0 and res.stdout == ""  # the one line says why; no empty table under it


@pytest.mark.parametrize("command", ["rank", "recommend"])
def test_every_vendor_option_goes_through_the_shared_check(command):
    # One validator, so the commands cannot drift apart in what they accept or how they refuse.
    import inspect

    from gpuvalue.flows.cli import rank_cli, recommend_cli

    module = {"rank": rank_cli, "recommend": recommend_cli}[command]
    assert "check_vendor(vendor)" in inspect.getsource(getattr(module, command))


@pytest.mark.parametrize("value", ["NVIDIA", "nvidia", " amd ", "Intel"])
def test_the_vendor_check_takes_any_case(value):
    from gpuvalue.flows.cli.cli_app import check_vendor

    assert check_vendor(value) is None
