"""How the project installs: what every `uv run` a user types costs before gpuvalue starts."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_uv_run_does_not_recompile_the_environment_on_every_command() -> None:
    # With compile-bytecode in the project's settings, each `uv run gpuvalue ...` re-checks all of
    # the environment's bytecode and prints "Bytecode compiled N files" before the command's own
    # output (astral-sh/uv#12202).
    uv_settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"].get("uv", {})
    assert "compile-bytecode" not in uv_settings


def test_the_container_image_compiles_its_bytecode_once_at_build() -> None:
    # Without the project's setting, the image asks for it itself: its environment is built once and
    # started by every scheduled run, each of which would otherwise compile Prefect on first import.
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "UV_COMPILE_BYTECODE=1" in dockerfile
