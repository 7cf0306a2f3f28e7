"""The per-workload model's nested cross-validation really holds each card out, every file's
figures included. Apart from test_perf_eval.py so that the two modules' nested cross-validations,
each tens of seconds, can run on different test workers (their fixtures are per module)."""

import pytest
from gpuvalue.models.perf_workload import workload_loocv_predictions
from lambda_fixtures import evaluation_data


@pytest.fixture(scope="module")
def data():
    return evaluation_data()


def _scaled(figures, model, factor):
    return [f.model_copy(update={"relative_perf": f.relative_perf * factor}) if f.model == model else f
            for f in figures]


def _scaled_ratios(ratios, model, factor):
    return [r.model_copy(update={"ratio": r.ratio * factor}) if r.model == model else r for r in ratios]


@pytest.fixture(scope="module")
def workload_predictions(data):
    """The unperturbed per-workload nested-CV predictions (fp32) for each every_file setting,
    computed once and shared by both held-out cards' tests (several seconds each)."""
    result, features = data
    computed = {}

    def predictions(every_file: bool) -> dict:
        if every_file not in computed:
            figures = [*result.figures, *result.per_file] if every_file else result.figures
            computed[every_file] = {h.model: h for h in workload_loocv_predictions(
                figures, result.per_workload, features, "fp32", every_file=every_file)}
        return computed[every_file]

    return predictions


@pytest.mark.e2e
@pytest.mark.parametrize("held_out", ["Tesla V100 SXM2 16 GB", "GeForce GTX 1080 Ti"])
@pytest.mark.parametrize("every_file", [False, True])
def test_per_workload_nested_cv_never_sees_the_held_out_card(data, workload_predictions, held_out, every_file):
    result, features = data
    figures = [*result.figures, *result.per_file] if every_file else result.figures
    before = workload_predictions(every_file)
    after = {h.model: h for h in workload_loocv_predictions(
        _scaled(figures, held_out, 3.0), _scaled_ratios(result.per_workload, held_out, 3.0), features, "fp32",
        every_file=every_file)}
    assert after[held_out].measured == pytest.approx(3 * before[held_out].measured)
    assert after[held_out].predicted == before[held_out].predicted
    assert after[held_out].form == before[held_out].form
    assert any(after[m].predicted != before[m].predicted for m in before if m != held_out)
