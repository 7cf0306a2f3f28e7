"""The per-workload model's nested cross-validation really holds each card out, every file's
figures included. Apart from test_perf_eval.py so that its nested cross-validations and these
can run on different test workers (their fixtures are per module)."""

import pytest
from gpuvalue.models.perf.workload import WORKLOAD_FORMS, workload_loocv_predictions
from lambda_fixtures import evaluation_data


@pytest.fixture(scope="module")
def data():
    return evaluation_data()


def _scaled(figures, model, factor):
    return [f.model_copy(update={"relative_perf": f.relative_perf * factor}) if f.model == model else f
            for f in figures]


def _scaled_ratios(ratios, model, factor):
    return [r.model_copy(update={"ratio": r.ratio * factor}) if r.model == model else r for r in ratios]


# Each test runs only the two held-out cards' folds: a fold is the same whichever other folds
# run, and the two cards are each other's witness that a scaled card changes the other's fit.
HELD_OUT = ("Tesla V100 SXM2 16 GB", "GeForce GTX 1080 Ti")


def _predictions(figures, ratios, features, every_file: bool) -> dict:
    return {h.model: h for h in workload_loocv_predictions(
        figures, ratios, features, "fp32", every_file=every_file, cards=HELD_OUT)}


@pytest.fixture(scope="module")
def workload_predictions(data):
    """The unperturbed per-workload nested-CV predictions (fp32) of the two cards for each
    every_file setting, computed once and shared by both cards' tests."""
    result, features = data
    computed = {}

    def predictions(every_file: bool) -> dict:
        if every_file not in computed:
            figures = [*result.figures, *result.per_file] if every_file else result.figures
            computed[every_file] = _predictions(figures, result.per_workload, features, every_file)
        return computed[every_file]

    return predictions


def test_only_the_cards_asked_for_are_scored_and_each_as_in_the_full_table(data):
    result, features = data
    form = WORKLOAD_FORMS[0]  # one form, no nested choice: the full table costs a second
    everyone = {h.model: h for h in workload_loocv_predictions(result.figures, result.per_workload, features, "fp32",
                                                               form=form)}
    two = {h.model: h for h in workload_loocv_predictions(result.figures, result.per_workload, features, "fp32",
                                                          form=form, cards=HELD_OUT)}
    assert set(two) == set(HELD_OUT) and len(everyone) > 20
    assert all(two[m] == everyone[m] for m in HELD_OUT)


@pytest.mark.e2e
@pytest.mark.parametrize("held_out", HELD_OUT)
@pytest.mark.parametrize("every_file", [False, True])
def test_per_workload_nested_cv_never_sees_the_held_out_card(data, workload_predictions, held_out, every_file):
    result, features = data
    figures = [*result.figures, *result.per_file] if every_file else result.figures
    before = workload_predictions(every_file)
    after = _predictions(_scaled(figures, held_out, 3.0), _scaled_ratios(result.per_workload, held_out, 3.0),
                         features, every_file)
    assert after[held_out].measured == pytest.approx(3 * before[held_out].measured)
    assert after[held_out].predicted == before[held_out].predicted
    assert after[held_out].form == before[held_out].form
    other = next(m for m in HELD_OUT if m != held_out)
    assert after[other].predicted != before[other].predicted
