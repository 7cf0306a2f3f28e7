"""The daily run says when the estimate's cross-validation runs, and how far it is.

A cross-validation takes minutes on a small machine (once per change of the estimate's inputs);
before its lines existed, a run sat silent in the estimate stage for that long. The pure parts
(which lines, how often) are tested in tests/models/test_estimate_cv_cache.py; this test holds the
daily flow's own wiring: the lines reach the run's log and its live line.
"""

from __future__ import annotations

import logging
import shutil
from datetime import date

from gpuvalue.flows import pipeline as P

FOLDS = 20


def test_a_cross_validation_in_a_daily_run_shows_in_its_log_and_live_line(replay_db, tmp_path, monkeypatch, caplog):
    from gpuvalue.flows import daily
    from gpuvalue.models.perf import workload
    from gpuvalue.warehouse import estimate_cv

    db = tmp_path / "gpuvalue.duckdb"
    shutil.copy(replay_db, db)
    monkeypatch.setenv("GPUVALUE_SOURCES", '["nvidia-cuda"]')  # one quick source; the estimate fits on what is stored

    # The stored errors are hidden from the run, so it cross-validates; the fit itself then reports
    # FOLDS folds and attaches the stored error, instead of spending minutes on the real folds.
    found = []

    def stored_but_hidden(con, digest):
        found.append(real_known(con, digest))
        return None

    def reported_folds(measured, features, precision, *, progress=None, **kwargs):
        assert progress is not None, "the run passed no progress callback to the cross-validation"
        for done in range(1, FOLDS + 1):
            progress(done, FOLDS)
        known = found[-1]
        return real_fit(measured, features, precision, **{**kwargs, "known_cv_error": known.error,
                                                          "known_form": known.form,
                                                          "known_group_errors": known.group_errors})

    real_known, real_fit = estimate_cv.known_cv_error, workload.fit_estimator
    monkeypatch.setattr(estimate_cv, "known_cv_error", stored_but_hidden)
    monkeypatch.setattr(workload, "fit_estimator", reported_folds)

    live: list[str] = []
    P.set_progress_listener(live.append)
    # The run's logger, as a plain one: the tests set Prefect's to warnings (tests/conftest.py), and
    # Prefect configures its handlers afresh when a run starts.
    monkeypatch.setattr(daily, "_logger", lambda: logging.getLogger("gpuvalue.flow"))
    try:
        with caplog.at_level(logging.INFO, logger="gpuvalue.flow"):
            summary = daily.daily_flow(as_of=date(2026, 12, 1), replay=True, db=str(db))
    finally:
        P.set_progress_listener(None)
    assert not summary.failed, summary.outcomes

    expected = [line for precision in ("fp16", "fp32") for line in (
        f"estimate: no cross-validated error stored or shipped for these {precision} inputs; "
        "cross-validating the fit (about 20 s on 2 cores; once per change of inputs)",
        *(f"estimate: cross-validating {precision}, {done}/{FOLDS} cards held out" for done in (1, *range(2, FOLDS + 1, 2))),
    )]
    assert [m for m in live if m.startswith("estimate:")] == expected
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("estimate:")]
    assert logged == expected
