"""`perf --evaluate`'s tables are kept beside the database under a digest of everything they are
computed from (warehouse/perf_eval_cache.py): the digest must see every file of the model, its
package folders included, and read the inputs as they are."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date
from importlib import resources

from gpuvalue.models.records import PerfFigure
from gpuvalue.warehouse import perf_eval_cache


def test_the_digest_covers_every_file_of_models_and_its_folders():
    names = {name for name, _ in perf_eval_cache._files(resources.files("gpuvalue.models"))}
    assert {"catalog.py", "perf/__init__.py", "perf/workload.py", "perf/estimate.py",
            "data/perf_estimate_cv.json"} <= names
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in names)


@dataclass(frozen=True)
class _Inner:
    figures: tuple[PerfFigure, ...]
    as_of: date


@dataclass(frozen=True)
class _Outer:
    name: str
    inner: _Inner
    by_card: dict[str, PerfFigure]


def test_a_dataclass_of_records_reads_as_asdict_would_give_it():
    fig = PerfFigure(model="TITAN RTX", precision="fp16", relative_perf=0.62, source="lambda-pytorch-v1",
                     method="measured", reference="GeForce RTX 3090", measured=True, as_of=date(2020, 1, 1))
    value = _Outer("h", _Inner((fig, fig), date(2024, 5, 1)), {"TITAN RTX": fig})
    assert perf_eval_cache._plain(value) == perf_eval_cache._plain(asdict(value))


def test_an_answer_is_kept_beside_the_database_and_computed_again_for_other_inputs(tmp_path):
    computed = []

    def compute() -> str:
        computed.append(1)
        return f"table {len(computed)}"

    db = tmp_path / "gpuvalue.duckdb"
    assert perf_eval_cache.cached_evaluation(db, [[1.0]], compute) == ("table 1", False)
    assert perf_eval_cache.cached_evaluation(db, [[1.0]], compute) == ("table 1", True)
    assert perf_eval_cache.cached_evaluation(db, [[2.0]], compute) == ("table 2", False)
    assert len(list((tmp_path / perf_eval_cache.CACHE_FOLDER).iterdir())) == 2
