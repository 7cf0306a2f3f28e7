"""CI runs exactly the README's test command (`uv run pytest`), so the linter runs as a test.

The rules are pyproject.toml's ``[tool.ruff]`` (unused imports, undefined names and the other
pyflakes findings, among them); ``uv run ruff check`` shows the same findings, and
``uv run ruff check --fix`` removes most of them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_is_clean():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"ruff check found problems:\n{done.stdout}{done.stderr}"
