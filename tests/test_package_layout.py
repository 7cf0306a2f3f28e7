"""The package imports the same ``gpuvalue.*`` names from a checkout and from a wheel, with no
symbolic link anywhere: in a checkout gpuvalue/__init__.py extends the package path to the
repository's top-level folders; a wheel holds those folders under the package."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("flows", "scrapers", "warehouse", "models")
PROBE = (
    "import gpuvalue.models.records, gpuvalue.flows.cli, gpuvalue.warehouse.db, gpuvalue.scrapers.http\n"
    "import gpuvalue\n"
    "print(gpuvalue.models.records.__file__)\n"
    "print(len(gpuvalue.__path__))\n"
)


def test_git_tracks_no_symbolic_link():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    links = [line.split("\t", 1)[1] for line in listed.splitlines() if line.startswith("120000")]
    assert not links, f"symbolic links break clones where git makes none (Windows by default): {links}"


def test_the_package_folder_holds_no_copy_or_link_of_a_room():
    for layer in LAYERS:
        assert not (ROOT / "gpuvalue" / layer).exists(), f"gpuvalue/{layer} would shadow the top-level {layer}/"


def _python(code: str, *, cwd: Path, path: list[Path]) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in path)
    # -S: no site-packages, so the editable install's path entry cannot help the import along.
    result = subprocess.run([sys.executable, "-S", "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.splitlines()


def _site_packages() -> list[Path]:
    import sysconfig

    return [Path(sysconfig.get_paths()["purelib"])]


def test_a_plain_copy_of_the_checkout_imports_the_rooms(tmp_path):
    """Copied file by file (as on a filesystem without links), the checkout imports each room."""
    clone = tmp_path / "clone"
    clone.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "replay_archive", "data")
    for name in ("gpuvalue", *LAYERS):
        shutil.copytree(ROOT / name, clone / name, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", clone)
    file, entries = _python(PROBE, cwd=tmp_path, path=[clone, *_site_packages()])
    assert Path(file) == clone / "models" / "records.py"
    assert entries == "2"


def test_a_wheel_layout_imports_the_rooms_from_inside_the_package(tmp_path):
    """Laid out as the wheel installs it (the rooms inside gpuvalue/, beside other distributions),
    the package does not reach outside itself: a top-level `models` elsewhere is never taken."""
    site = tmp_path / "site"
    package = site / "gpuvalue"
    package.mkdir(parents=True)
    shutil.copy(ROOT / "gpuvalue" / "__init__.py", package)
    ignore = shutil.ignore_patterns("__pycache__", "replay_archive", "data")
    for layer in LAYERS:
        shutil.copytree(ROOT / layer, package / layer, ignore=ignore)
    (site / "models").mkdir()
    (site / "models" / "__init__.py").write_text("raise ImportError('another distribution')\n")
    file, entries = _python(PROBE, cwd=tmp_path, path=[site, *_site_packages()])
    assert Path(file) == package / "models" / "records.py"
    assert entries == "1"


@pytest.mark.e2e
def test_the_built_wheel_holds_the_rooms_under_the_package(tmp_path):
    """`uv build --wheel --offline` (hatchling from uv's cache; skipped where it is not cached)."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH")
    result = subprocess.run([uv, "build", "--wheel", "--offline", "-o", str(tmp_path), str(ROOT)],
                            capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        pytest.skip(f"the wheel could not be built offline: {result.stderr.strip().splitlines()[-1:]}")
    (wheel,) = tmp_path.glob("gpuvalue-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for layer in LAYERS:
        assert f"gpuvalue/{layer}/__init__.py" in names
        assert not any(n.startswith(f"{layer}/") for n in names), f"{layer}/ installed as a top-level package"
    assert "gpuvalue/models/records.py" in names and "gpuvalue/flows/cli/__init__.py" in names
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"gpuvalue", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
