"""llama.cpp LLM inference speed per GPU (XiongjieDai/GPU-Benchmarks-on-LLM-Inference, May 2024).

Buyers who want a card for running language models ask a different question from the ranking's
(training speed), so these figures are read and stored apart from training figures: they never
enter ``perf`` or the ranking. The README is pinned to a commit so every number traces back to
the bytes behind it.

Only the README's two overview tables are read: average tokens/s while generating 1024 tokens
(text generation, one token at a time, bound by memory bandwidth) and while evaluating a
1024-token prompt (prompt processing, batched, bound by compute), each for LLaMA 3 8B and 70B at
Q4_K_M and F16. The per-length tables further down repeat the same runs at other lengths.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from gpuvalue.models.records import FetchedPage
from gpuvalue.models.records import InferencePhase as Phase
from gpuvalue.models.records import LlamaCppCell
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.source import FetchContext, Recording, Source, at_midnight_utc, get_page, page_from_file

NAME = "llamacpp"

_REPO = "XiongjieDai/GPU-Benchmarks-on-LLM-Inference"
_COMMIT = "aa72e0ec86c356c41f8281c9733e9a13c3675800"
README_URL = f"https://raw.githubusercontent.com/{_REPO}/{_COMMIT}/README.md"
CONTENT_DATE = date(2024, 5, 12)  # the pinned commit; the runs are RunPod snapshots of May 2024
PROVENANCE = f"{_REPO}@{_COMMIT}:README.md ({CONTENT_DATE.isoformat()})"

# The caption line above each overview table, and what that table measures.
_CAPTIONS: tuple[tuple[re.Pattern[str], Phase], ...] = (
    (re.compile(r"speed .*generating 1024 tokens", re.IGNORECASE), "text-generation"),
    (re.compile(r"1024 tokens prompt eval", re.IGNORECASE), "prompt-processing"),
)

# Overview column -> workload key: the model and the weight format llama.cpp ran.
WORKLOADS = {
    "8B Q4_K_M": "llama3-8b-q4_k_m",
    "8B F16": "llama3-8b-f16",
    "70B Q4_K_M": "llama3-70b-q4_k_m",
    "70B F16": "llama3-70b-f16",
}

# "4090 24GB * 4": one model split over four cards (a per-system speed, not a sum of cards).
_MULTI = re.compile(r"^(?P<gpu>.+?)\s*\*\s*(?P<n>\d+)$")
# Non-breaking and figure hyphens in names ("M1 7‑Core") read as plain hyphens.
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-"})


def _cells(line: str) -> list[str]:
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    return [c.strip() for c in text.split("|")]


_SEPARATOR_CELL = re.compile(r"^:?-+:?$")


def _is_separator(line: str) -> bool:
    return all(_SEPARATOR_CELL.match(c) for c in _cells(line))


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def _table_after(lines: list[str], start: int) -> list[str]:
    """The markdown table beginning at the first non-blank line after ``start``, or [].

    The README runs the prompt table straight into the model-size table with no blank line
    between them, so a table also ends where a row is followed by a header separator."""
    i = start + 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    table = lines[i:i + 2]
    if len(table) < 2 or not _is_row(table[0]) or not _is_separator(table[1]):
        return []
    i += 2
    while i < len(lines) and _is_row(lines[i]) and not (i + 1 < len(lines) and _is_separator(lines[i + 1])):
        table.append(lines[i])
        i += 1
    return table


def _value(cell: str, where: str, url: str) -> float | None:
    text = cell.replace("**", "").replace("__", "").strip()
    if text.upper() == "OOM" or text in ("", "-"):
        return None  # out of memory or not run: no figure
    try:
        value = float(text)
    except ValueError:
        raise ParseError(NAME, url, f"{where}: not a number: {cell!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise ParseError(NAME, url, f"{where}: not a usable speed: {cell!r}")
    return value


def _parse_table(table: list[str], phase: Phase, url: str) -> list[LlamaCppCell]:
    if len(table) < 3:
        raise ParseError(NAME, url, f"the {phase} overview table has no rows")
    header = _cells(table[0])
    if header[0].upper() != "GPU" or tuple(" ".join(h.split()) for h in header[1:]) != tuple(WORKLOADS):
        raise ParseError(NAME, url, f"the {phase} overview table has columns {header!r}, expected GPU, "
                                      f"{', '.join(WORKLOADS)}")
    out: list[LlamaCppCell] = []
    seen: set[str] = set()
    for row in table[2:]:
        cells = _cells(row)
        if len(cells) != len(header):
            raise ParseError(NAME, url, f"{phase} row {row.strip()!r}: {len(cells)} cells, expected {len(header)}")
        name = " ".join(cells[0].translate(_HYPHENS).split())
        if not name:
            raise ParseError(NAME, url, f"{phase} row {row.strip()!r}: no GPU name")
        if name in seen:
            raise ParseError(NAME, url, f"{phase}: {name!r} is listed twice")
        seen.add(name)
        multi = _MULTI.match(name)
        gpu, count = (multi.group("gpu"), int(multi.group("n"))) if multi else (name, 1)
        if count < 1:
            raise ParseError(NAME, url, f"{phase}: {name!r} has no cards")
        for column, cell in zip(WORKLOADS.values(), cells[1:], strict=True):
            value = _value(cell, f"{phase} {name} {column}", url)
            if value is not None:
                out.append(LlamaCppCell(gpu=gpu, gpu_count=count, workload=column, phase=phase, tokens_per_s=value))
    return out


def parse_llamacpp_readme(body: bytes | str, url: str = README_URL) -> list[LlamaCppCell]:
    """Every figure of the two overview tables; OOM cells give none. Raises ParseError when either
    table is missing or not the expected shape (the README changed or this is another page)."""
    if isinstance(body, bytes):
        try:
            body = body.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ParseError(NAME, url, "not UTF-8 text") from None
    lines = body.splitlines()
    cells: list[LlamaCppCell] = []
    for caption, phase in _CAPTIONS:
        at = next((i for i, line in enumerate(lines) if caption.search(line)), None)
        table = _table_after(lines, at) if at is not None else []
        if not table:
            raise ParseError(NAME, url, f"no {phase} overview table (caption {caption.pattern!r} and a table below it)")
        cells.extend(_parse_table(table, phase, url))
    return cells


# ---- the source ------------------------------------------------------------------------------

LLAMACPP_SOURCE_KEY = "llamacpp-xiongjiedai-2024"  # the figures' source in perf_inference
_RECORDED = "perf/xiongjiedai_llamacpp_llama3_tokens_per_s_2024.md"


def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    page = get_page(ctx, out, README_URL)
    if page is not None:
        out.pages.append(page)
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    from gpuvalue.models.perf.inference import inference_figures

    cells = parse_llamacpp_readme(page.body, page.url)
    figures, warnings = inference_figures(cells, source=LLAMACPP_SOURCE_KEY, as_of=CONTENT_DATE)
    return ParsedSource(NAME, "inference", inference=figures, warnings=warnings)


def _inspect(body: bytes, url: str) -> tuple[list[Any], list[str]]:
    return list(parse_llamacpp_readme(body, url)), []


def _replay(fixtures: Path) -> Iterator[Recording]:
    body = (fixtures / _RECORDED).read_bytes()
    yield Recording(page_from_file(NAME, body, README_URL, at_midnight_utc(CONTENT_DATE), "text/plain; charset=utf-8"),
                    f"derived: {PROVENANCE}, its markdown tables and headings only")


SOURCE = Source(
    name=NAME,
    kind="inference",
    export_kind="other",  # shown by `gpuvalue perf --inference` only; never part of the ranking
    attribution="LLM inference benchmarks (not in the ranking): XiongjieDai/GPU-Benchmarks-on-LLM-Inference (llama.cpp)",
    licence="no licence stated; figures cited with attribution",
    fetch=_fetch,
    parse=_parse,
    inspect=_inspect,
    replay=_replay,
    sample_url="https://raw.githubusercontent.com/x/y/z/README.md",
    fixtures=(_RECORDED,),
)
