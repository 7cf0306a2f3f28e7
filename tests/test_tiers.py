"""The two test tiers: which run is the fast tier, what a property test draws in each, and the order
the test workers are handed the modules in (tests/conftest.py)."""

from __future__ import annotations

from types import SimpleNamespace

import conftest
import property_budget
import pytest


def _config(markexpr: str):
    return SimpleNamespace(getoption=lambda name, default=None: markexpr if name == "markexpr" else default)


@pytest.mark.parametrize(("markexpr", "fast"), [
    ("not e2e", True),
    ("  not   e2e ", True),
    ("not e2e and not slow", True),
    ("not (e2e or browser)", True),
    ("", False),
    ("e2e", False),
    ("not slow", False),  # a test marked e2e alone is still selected
    ("e2e or not e2e", False),
])
def test_the_fast_tier_is_a_selection_without_e2e_tests(markexpr, fast):
    assert conftest._selects_no_e2e(_config(markexpr)) is fast


def test_the_fast_tier_draws_a_quarter_of_each_budget_and_never_under_ten(monkeypatch):
    monkeypatch.setattr(property_budget, "FAST_TIER", False)
    assert [property_budget.examples(n) for n in (25, 40, 300)] == [25, 40, 300]
    monkeypatch.setattr(property_budget, "FAST_TIER", True)
    assert [property_budget.examples(n) for n in (25, 40, 300)] == [10, 10, 75]


def _item(module: str, name: str, e2e: bool = False, fixtures: tuple[str, ...] = ()):
    return SimpleNamespace(module=SimpleNamespace(__name__=module), nodeid=f"{module}::{name}", fixturenames=fixtures,
                           get_closest_marker=lambda marker: object() if e2e and marker == "e2e" else None)


def test_modules_holding_e2e_tests_go_first_then_the_most_tests_each_module_kept_together_in_order():
    items = [
        _item("a", "1"), _item("b", "1"), _item("b", "2"), _item("c", "1"), _item("c", "2", e2e=True),
        _item("a", "2"), _item("b", "3"), _item("d", "1"), _item("e", "1"),
    ]
    conftest.pytest_collection_modifyitems_long_modules_first(None, items)
    assert [i.nodeid for i in items] == ["c::1", "c::2", "b::1", "b::2", "b::3", "a::1", "a::2", "d::1", "e::1"]


def test_one_replay_user_starts_then_the_long_modules_that_need_no_prefect_server():
    """So that while one worker runs the session's replay run, the others have long modules to run."""
    items = [
        _item("replayed", "1", e2e=True, fixtures=("replay_run",)),
        _item("served", "1", e2e=True, fixtures=("replay_db",)),
        _item("served", "2", e2e=True, fixtures=("prefect_harness",)),
        _item("tables", "1", e2e=True), _item("quick", "1"), _item("fuzz", "1", e2e=True), _item("fuzz", "2"),
    ]
    conftest.pytest_collection_modifyitems_long_modules_first(None, items)
    assert [i.nodeid for i in items] == ["served::1", "served::2", "fuzz::1", "fuzz::2", "tables::1", "replayed::1",
                                         "quick::1"]


def test_each_command_line_app_is_built_once_and_answers_every_invoke():
    import typer
    from typer.testing import CliRunner

    app = typer.Typer()
    calls = []

    @app.command()
    def hello(name: str) -> None:
        calls.append(name)
        typer.echo(f"hello {name}")

    @app.command()
    def bye() -> None:
        typer.echo("bye")

    runner = CliRunner()
    first, second = runner.invoke(app, ["hello", "a"]), runner.invoke(app, ["hello", "b"])
    assert (first.exit_code, first.stdout, second.stdout) == (0, "hello a\n", "hello b\n")
    assert runner.invoke(app, ["hello"]).exit_code == 2  # a fresh context each time: no state carried over
    assert calls == ["a", "b"]
    import typer.testing

    assert app in typer.testing._get_command.built
    assert typer.testing._get_command(app) is typer.testing._get_command(app)  # built once, not per call


def test_collecting_the_tests_imports_no_prefect():
    """Importing Prefect is about 1.7 s of each test worker's start; only the tests that run a flow
    need it, and they import it where they run (tests/conftest.py)."""
    assert conftest.COLLECTED, "conftest's collection hooks did not run in this module"
    assert conftest.PREFECT_IMPORTED_BY == [], (
        f"collecting {conftest.PREFECT_IMPORTED_BY[0]} imported Prefect: import the flow module (or Prefect) "
        "inside the tests that run it")


def test_a_fast_tier_test_that_imports_prefect_is_named(monkeypatch):
    monkeypatch.setattr(property_budget, "FAST_TIER", True)
    quick, slow = _item("quick", "1"), _item("slow", "1", e2e=True)
    assert "quick::1 imported Prefect in the fast tier" in conftest.prefect_imported_by_a_fast_test(quick, False, True)
    assert conftest.prefect_imported_by_a_fast_test(quick, True, True) is None  # imported before it
    assert conftest.prefect_imported_by_a_fast_test(slow, False, True) is None
    monkeypatch.setattr(property_budget, "FAST_TIER", False)  # the full suite imports it anyway
    assert conftest.prefect_imported_by_a_fast_test(quick, False, True) is None


def test_the_prefect_server_is_launched_early_where_two_modules_a_worker_use_it():
    served = [_item(f"m{i}", "1", e2e=True, fixtures=(fixture,))
              for i, fixture in enumerate(("prefect_harness", "replay_db", "replay_run", "prefect_harness"))]
    others = [_item("quick", "1"), _item("slow", "1", e2e=True)]
    assert conftest.launches_server_early(served + others, workers=2)
    assert not conftest.launches_server_early(served[:3] + others, workers=2)
    assert conftest.launches_server_early(served[:2], workers=1)
    assert not conftest.launches_server_early(others, workers=1)  # the fast tier: nothing uses it
