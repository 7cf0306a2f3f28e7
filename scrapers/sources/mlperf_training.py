"""MLPerf Training (MLCommons): time to train per benchmark and system, the one public table that
measures the datacenter cards (H100, H200, B200, AMD Instinct MI300X, MI325X, MI355X) on the same
training work.

MLCommons publishes every round in a repository of its own (``mlcommons/training_results_v<round>``):
per submitter, ``systems/<system>.json`` says the accelerator (``accelerator_model_name``), how many
per node and how many nodes, and ``results/<system>/<benchmark>/result_<n>.txt`` is one run's log, a
line ``:::MLLOG {json}`` per event. A run's time to train is its ``run_stop`` minus its ``run_start``
(``time_ms``); a run whose ``run_stop`` status is not ``success`` did not reach the quality target.

The rounds are hundreds of megabytes of logs, fixed once published, so the source ships what it needs
as one row per system and benchmark (``scrapers/data/mlperf_training_runs.csv``: every run's seconds
and where its logs are, repository, commit, folder and commit date), extracted from the real files by
``python -m gpuvalue.scrapers.sources.mlperf_training OUT.csv ROUND=GIT_DIR ...`` (each ``GIT_DIR`` a
clone of ``mlcommons/training_results_v<ROUND>``, read at its HEAD commit with ``git``) with the parsers
below. Only one-node systems are extracted: scale-out systems (hundreds of accelerators) scale
imperfectly and say less about one card. tinycorp's tinygrad runs are kept out (``TINYGRAD_EXCLUDED``).
No round has an RTX 3090 and the newer ones no H100: the harness declares a bridge (``Harness.bridge``,
``gpuvalue.models.perf.combine``), so the H200 and B200 of the newer rounds link through its own
figures of them from v4.1, where they ran beside the H100. Its figures are dated by the newest round.

A figure is one system on one benchmark: minutes to train as MLPerf scores it (the fastest and the
slowest run dropped, the rest averaged), whole system (``metric="minutes_to_train"``, ``gpu_count``
its accelerators). Figures compare per accelerator with systems of the same round, benchmark, software
family and accelerator count (``docs/harnesses.md``). Precision: what the submitter trained at (BF16
mixed precision, FP8 on the LLM benchmarks of NVIDIA Hopper and Blackwell and of the MI300 series), so
the figures are ``fp16`` (mixed precision) and there is no fp32 figure.
"""

from __future__ import annotations

import csv
import io
import json
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

from gpuvalue.models.harness import HarnessFigure, Resolution, device_key
from gpuvalue.models.source_batches import ParsedSource
from gpuvalue.scrapers.source import Harness, Source

NAME = "mlperf-training"
TABLE_PATH = Path(__file__).parent.parent / "data" / "mlperf_training_runs.csv"
FIXTURE_DIR = "perf/harnesses/mlperf-training_mlcommons"
# Newest round in the table: the date its figures are of.
AS_OF = date(2026, 1, 12)  # v5.1's commit

# The cards a comparison anchors on where it has no reference card (none has: MLPerf measures no
# RTX 3090): cards measured by other sources first, so the ratios chain to the reference through them.
# The H200 and the B200 anchor the newer rounds, which have no H100: they link through their own
# figures from the rounds before (``combine_measured``), the H200 first.
ANCHORS: tuple[str, ...] = ("H100 SXM5 80 GB", "A100 SXM4 80 GB", "A100 PCIe 80 GB", "H200 SXM 141 GB", "B200")

# Published accelerator names the listing-title matcher misreads, as titles it reads right (checked by
# hand against each round's systems/*.json). Others go through the matcher as published.
TITLES: dict[str, str] = {
    device_key(k): v
    for k, v in {
        "NVIDIA H200-SXM5-141GB": "NVIDIA H200 SXM 141GB",
        # FlexAI's "H100 80GB HBM3" is the SXM5 part: the PCIe card has HBM2e.
        "NVIDIA H100 80GB HBM3": "NVIDIA H100 SXM5 80GB",
        "NVIDIA RTX Pro 6000 SE PCIe 96GB": "NVIDIA RTX PRO 6000 Blackwell Server Edition",
    }.items()
}
# Names kept out with a reason the matcher would not give.
ALIASES: dict[str, Resolution] = {
    device_key(k): v
    for k, v in {
        "NVIDIA Blackwell GPU (GB200)": (None, "not one card: a Grace Blackwell superchip module"),
        "NVIDIA Blackwell Ultra GPU (GB300)": (None, "not one card: a Grace Blackwell superchip module"),
        "Habana Gaudi2": (None, "not a GPU (Intel Gaudi accelerator)"),
        "Intel Gaudi2": (None, "not a GPU (Intel Gaudi accelerator)"),
        "Intel(R) Gaudi(R) 2 AI Accelerator": (None, "not a GPU (Intel Gaudi accelerator)"),
    }.items()
}

_MLLOG = re.compile(r":::MLLOG\s+(\{.*\})\s*$")
_TINYGRAD = re.compile(r"\btinygrad\b", re.IGNORECASE)
COLUMNS = ("round", "submitter", "system", "benchmark", "accelerator", "accelerators_per_node", "nodes",
           "framework", "run_seconds", "failed_runs", "repository", "commit", "commit_date", "path")


class MlperfError(ValueError):
    """A result log or system description that does not say what a figure needs."""


@dataclass(frozen=True)
class RunTime:
    """One result log: the benchmark it ran, its time to train and whether it reached the target (a
    log that stops before ``run_stop`` is a run that did not: no time)."""

    benchmark: str | None
    seconds: float | None
    success: bool


@dataclass(frozen=True)
class SystemDescription:
    accelerator: str
    accelerators_per_node: int
    nodes: int
    framework: str


def parse_result_log(text: str) -> RunTime:
    """A result log's time to train: ``run_stop`` minus ``run_start`` (milliseconds in the log)."""
    start = stop = None
    status = None
    benchmark = None
    for line in text.splitlines():
        found = _MLLOG.search(line)
        if not found:
            continue
        try:
            event = json.loads(found.group(1))
        except json.JSONDecodeError:
            continue
        key = event.get("key")
        if key == "submission_benchmark" and benchmark is None:
            benchmark = str(event.get("value"))
        elif key == "run_start" and start is None:
            start = event.get("time_ms")
        elif key == "run_stop":
            stop = event.get("time_ms")
            status = (event.get("metadata") or {}).get("status")
    if not isinstance(start, (int, float)):
        raise MlperfError("no run_start event")
    if not isinstance(stop, (int, float)):
        return RunTime(benchmark=benchmark, seconds=None, success=False)
    if stop <= start:
        raise MlperfError(f"run_stop ({stop}) is not after run_start ({start})")
    return RunTime(benchmark=benchmark, seconds=(stop - start) / 1000.0, success=status == "success")


def _count(value: object, what: str) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise MlperfError(f"{what} is not a whole number: {value!r}") from None
    if number < 1:
        raise MlperfError(f"{what} is not positive: {number}")
    return number


def parse_system(text: str) -> SystemDescription:
    """A ``systems/<system>.json``: the accelerator as published, per node, nodes, framework."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MlperfError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise MlperfError("not a JSON object")
    accelerator = str(data.get("accelerator_model_name") or "").strip()
    if not accelerator:
        raise MlperfError("no accelerator_model_name")
    return SystemDescription(
        accelerator=accelerator,
        accelerators_per_node=_count(data.get("accelerators_per_node"), "accelerators_per_node"),
        nodes=_count(data.get("number_of_nodes"), "number_of_nodes"),
        framework=str(data.get("framework") or "").strip(),
    )


def mlperf_minutes(seconds: Iterable[float]) -> float:
    """Minutes to train as MLPerf scores a set of runs: with three runs or more the fastest and the
    slowest are dropped and the rest averaged."""
    runs = sorted(seconds)
    if not runs:
        raise MlperfError("no successful run")
    kept = runs[1:-1] if len(runs) >= 3 else runs
    return statistics.fmean(kept) / 60.0


# --- the shipped table --------------------------------------------------------------------------


@dataclass(frozen=True)
class SystemRuns:
    """One row of the shipped table: a system's runs of one benchmark in one round."""

    round: str
    submitter: str
    system: str
    benchmark: str
    accelerator: str
    accelerators_per_node: int
    nodes: int
    framework: str
    run_seconds: tuple[float, ...]
    failed_runs: int
    repository: str
    commit: str
    commit_date: date
    path: str

    @property
    def provenance(self) -> str:
        return f"{self.repository}@{self.commit}:{self.path} ({self.commit_date.isoformat()})"

    def row(self) -> dict[str, str]:
        return {
            "round": self.round, "submitter": self.submitter, "system": self.system, "benchmark": self.benchmark,
            "accelerator": self.accelerator, "accelerators_per_node": str(self.accelerators_per_node),
            "nodes": str(self.nodes), "framework": self.framework,
            "run_seconds": ";".join(f"{s:.3f}" for s in self.run_seconds), "failed_runs": str(self.failed_runs),
            "repository": self.repository, "commit": self.commit, "commit_date": self.commit_date.isoformat(),
            "path": self.path,
        }


def parse_runs_table(text: str) -> list[SystemRuns]:
    """The shipped table's rows; a malformed row raises ValueError naming its line (the table ships
    with gpuvalue: a bad row is a bug to fix, not data to skip). Lines starting with # are comments."""
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    reader = csv.DictReader(lines)
    if tuple(reader.fieldnames or ()) != COLUMNS:
        raise ValueError(f"mlperf_training_runs.csv: columns {reader.fieldnames}, expected {', '.join(COLUMNS)}")
    rows = []
    for number, raw in enumerate(reader, start=2):
        where = f"mlperf_training_runs.csv row {number}"
        try:
            seconds = tuple(float(s) for s in raw["run_seconds"].split(";") if s)
            row = SystemRuns(
                round=raw["round"], submitter=raw["submitter"], system=raw["system"], benchmark=raw["benchmark"],
                accelerator=raw["accelerator"], accelerators_per_node=_count(raw["accelerators_per_node"], "per node"),
                nodes=_count(raw["nodes"], "nodes"), framework=raw["framework"], run_seconds=seconds,
                failed_runs=int(raw["failed_runs"]), repository=raw["repository"], commit=raw["commit"],
                commit_date=date.fromisoformat(raw["commit_date"]), path=raw["path"],
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{where}: {exc}") from None
        if not row.accelerator or not row.benchmark or any(s <= 0 for s in row.run_seconds):
            raise ValueError(f"{where}: no accelerator, no benchmark or a run time that is not positive")
        rows.append(row)
    return rows


def write_runs_table(rows: Iterable[SystemRuns], header: str) -> str:
    out = io.StringIO()
    for line in header.splitlines():
        out.write(f"# {line}\n")
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in sorted(rows, key=lambda r: (r.round, r.benchmark, r.submitter, r.system)):
        writer.writerow(row.row())
    return out.getvalue()


def software_family(framework: str) -> str:
    """What a system's runs compare with: tinygrad runs (tinycorp's boxes) with tinygrad runs only,
    every other submission (the vendors' own PyTorch, NeMo, HugeCTR or DGL stacks) with each other."""
    return "tinygrad" if _TINYGRAD.search(framework) else "vendor stack"


# Why tinygrad runs stay out: per accelerator they are about 30 times below the vendor stacks (v5.0
# BERT: six RTX 4090 at 0.0008 runs per minute per card against eight H200 at 0.024), a measure of the
# framework rather than of the card a buyer trains on with PyTorch.
TINYGRAD_EXCLUDED = "tinygrad run: about 30x below the vendor stacks per accelerator, a measure of the framework"


def figures_from_runs(rows: Iterable[SystemRuns]) -> list[HarnessFigure]:
    """One figure per system and benchmark: its MLPerf minutes to train, whole system; its accelerator as
    published (the enrich stage resolves it with ``ALIASES`` and ``TITLES``; the matcher reads AMD's
    names as the catalog spells them)."""
    out = []
    for row in rows:
        if not row.run_seconds:
            continue
        excluded = None
        if software_family(row.framework) == "tinygrad":
            excluded = TINYGRAD_EXCLUDED
        if row.nodes > 1:
            excluded = excluded or f"scale-out system ({row.nodes} nodes): only one-node systems compare"
        runs = len(row.run_seconds)
        note = f"{runs} runs" + (f", {row.failed_runs} more did not reach the target" if row.failed_runs else "")
        out.append(HarnessFigure(
            harness=NAME, device=row.accelerator, resolve_as=row.accelerator, excluded=excluded, workload=row.benchmark,
            mode="train", precision="fp16", metric="minutes_to_train", value=round(mlperf_minutes(row.run_seconds), 4),
            batch_basis="per-device", gpu_count=row.accelerators_per_node * row.nodes,
            framework=software_family(row.framework), framework_version=row.framework or None,
            date=row.commit_date, series=f"v{row.round}, {row.accelerators_per_node * row.nodes} accelerators", run=f"v{row.round} {row.submitter}/{row.system}",
            iterations=runs, note=f"{note}; {row.provenance}",
        ))
    return out


@lru_cache(maxsize=1)
def load_runs() -> tuple[SystemRuns, ...]:
    return tuple(parse_runs_table(TABLE_PATH.read_text(encoding="utf-8")))


def _embedded() -> ParsedSource:
    return ParsedSource(NAME, "benchmark", records=figures_from_runs(load_runs()))


# --- building the shipped table from clones of the results repositories (I/O: git) ---------------

_SYSTEM = re.compile(r"^(?P<submitter>[^/]+)/systems/(?P<system>[^/]+)\.json$")
_RESULT = re.compile(r"^(?P<submitter>[^/]+)/results/(?P<system>[^/]+)/(?P<benchmark>[^/]+)/result_\d+\.txt$")

HEADER = """MLPerf Training results, one row per one-node system and benchmark (gpuvalue.scrapers.sources.mlperf_training).
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
        print("usage: python -m gpuvalue.scrapers.sources.mlperf_training OUT.csv ROUND=GIT_DIR [ROUND=GIT_DIR ...]")
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




SOURCE = Source(
    default=True,
    name=NAME,
    kind="benchmark",
    export_kind="perf",
    label="MLPerf Training",
    attribution="MLPerf Training results by MLCommons (github.com/mlcommons/training_results_v*), "
                "extracted per system and benchmark (scrapers/data/mlperf_training_runs.csv)",
    licence="Apache-2.0 (MLCommons results repositories)",
    load_embedded=_embedded,
    fixtures=(FIXTURE_DIR,),
    as_of=AS_OF,
    harness=Harness(anchors=ANCHORS, bridge=True, third_check=False, aliases=ALIASES, titles=TITLES),
)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
