"""Type-check the package as it is imported: ``uv run python tests/typecheck.py [mypy options]``.

The package's code lives in the repository's top-level folders and is imported as
``gpuvalue.<folder>`` (gpuvalue/__init__.py extends the package path to them; a wheel holds
them under the package). mypy finds modules by their place on disk, so it is handed each file
with the name Python imports it by: ``models/records.py`` is checked as
``gpuvalue.models.records``, every ``gpuvalue.*`` import resolves to the file in the
checkout, and errors are reported at the real paths. Settings come from pyproject.toml's
``[tool.mypy]``; extra arguments (``--cache-dir``, ``--follow-imports=skip``) are passed on.
Exit status as mypy's: 0 clean, 1 errors, 2 mypy could not run.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mypy import build
from mypy.errors import CompileError
from mypy.main import process_options
from mypy.modulefinder import BuildSource
from mypy.options import Options

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "gpuvalue"
LAYERS = ("flows", "scrapers", "warehouse", "models")


def package_sources(args: list[str]) -> tuple[list[BuildSource], Options]:
    """Every file of the package under the name it is imported by, and mypy's options."""
    sources, options = process_options(
        ["--config-file", str(ROOT / "pyproject.toml"), *args, PACKAGE, *LAYERS], require_targets=True
    )
    named = []
    for source in sources:
        module = source.module
        if module.split(".")[0] in LAYERS:
            module = f"{PACKAGE}.{module}"
        named.append(BuildSource(source.path, module, source.text, base_dir=source.base_dir))
    return named, options


def main(args: list[str]) -> int:
    import os

    os.chdir(ROOT)  # paths in reports are relative to the repository, as `mypy` prints them
    sources, options = package_sources(args)
    try:
        result = build.build(sources, options)
        messages = result.errors
    except CompileError as e:
        messages = e.messages
        if not e.use_stdout:
            print("\n".join(messages), file=sys.stderr)
            return 2
    for line in messages:
        print(line)
    errors = [line for line in messages if ": error:" in line]
    files = {line.split(":", 1)[0] for line in errors}
    if errors:
        print(f"Found {len(errors)} error{'s' * (len(errors) != 1)} in {len(files)} "
              f"file{'s' * (len(files) != 1)} (checked {len(sources)} source files)")
        return 1
    print(f"Success: no issues found in {len(sources)} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
