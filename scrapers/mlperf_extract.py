"""Build ``scrapers/data/mlperf_training_runs.csv`` from clones of MLCommons' results repositories.

    python -m gpuvalue.scrapers.mlperf_extract OUT.csv ROUND=GIT_DIR [ROUND=GIT_DIR ...]

Each ``GIT_DIR`` is a clone (bare or not) of ``mlcommons/training_results_v<ROUND>``; its HEAD commit is
read with ``git``, so every row names the commit its logs are at. For every one-node system
(``systems/<system>.json``), every benchmark folder under ``results/<system>/`` becomes one row: the
seconds of each run that reached the quality target, and how many did not. The parsing is
``gpuvalue.scrapers.sources.mlperf_training``'s, the same the tests run on recorded logs.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from datetime import date
from pathlib import Path

from gpuvalue.scrapers.sources.mlperf_training import (
    MlperfError,
    SystemRuns,
    parse_result_log,
    parse_system,
    write_runs_table,
)

_SYSTEM = re.compile(r"^(?P<submitter>[^/]+)/systems/(?P<system>[^/]+)\.json$")
_RESULT = re.compile(r"^(?P<submitter>[^/]+)/results/(?P<system>[^/]+)/(?P<benchmark>[^/]+)/result_\d+\.txt$")

HEADER = """MLPerf Training results, one row per one-node system and benchmark (gpuvalue.scrapers.mlperf_extract).
run_seconds: each run's run_stop - run_start (its result_<n>.txt) that reached the target; failed_runs: runs that did not.
Provenance per row: repository@commit:path (commit date). Data: MLCommons, Apache-2.0."""


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def extract_round(round_name: str, repo: Path) -> tuple[list[SystemRuns], list[str]]:
    """One round's rows and the files it could not read (with why)."""
    commit = _git(repo, "rev-parse", "HEAD").decode().strip()
    day = date.fromisoformat(_git(repo, "log", "-1", "--format=%cs", "HEAD").decode().strip())
    paths = _git(repo, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
    problems: list[str] = []
    systems = {}
    for path in paths:
        found = _SYSTEM.match(path)
        if found:
            try:
                systems[(found["submitter"], found["system"])] = parse_system(_git(repo, "show", f"HEAD:{path}").decode("utf-8", "replace"))
            except MlperfError as exc:
                problems.append(f"{path}: {exc}")
    logs: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for path in paths:
        found = _RESULT.match(path)
        if found:
            logs[(found["submitter"], found["system"], found["benchmark"])].append(path)
    rows = []
    for (submitter, system, benchmark), files in sorted(logs.items()):
        desc = systems.get((submitter, system))
        if desc is None or desc.nodes != 1:
            continue
        seconds, failed = [], 0
        for path in sorted(files):
            try:
                run = parse_result_log(_git(repo, "show", f"HEAD:{path}").decode("utf-8", "replace"))
            except MlperfError as exc:
                problems.append(f"{path}: {exc}")
                continue
            if run.success and run.seconds is not None:
                seconds.append(run.seconds)
            else:
                failed += 1
        rows.append(SystemRuns(
            round=round_name, submitter=submitter, system=system, benchmark=benchmark, accelerator=desc.accelerator,
            accelerators_per_node=desc.accelerators_per_node, nodes=desc.nodes, framework=desc.framework,
            run_seconds=tuple(seconds), failed_runs=failed, repository=f"mlcommons/training_results_v{round_name}",
            commit=commit, commit_date=day, path=f"{submitter}/results/{system}/{benchmark}/",
        ))
    return rows, problems


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    out = Path(argv[0])
    rows: list[SystemRuns] = []
    for spec in argv[1:]:
        round_name, _, where = spec.partition("=")
        got, problems = extract_round(round_name, Path(where))
        rows.extend(got)
        for problem in problems:
            print(f"v{round_name}: skipped {problem}", file=sys.stderr)
        print(f"v{round_name}: {len(got)} system-benchmark rows", file=sys.stderr)
    out.write_text(write_runs_table(rows, HEADER), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
