"""Where and how export files are written: path checks that fail with a readable message,
and atomic replacement, so that a reader opening a file at any moment never sees half of it.
Shared by the ranking exports (export.py), the feed (feed.py) and the HTML report (report.py).
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from datetime import date, datetime
from decimal import Decimal
from typing import IO, Any

from gpuvalue.models.text_safety import escape_controls


class ExportError(RuntimeError):
    """An export could not be written where asked, or there is nothing valid to write."""


def validate_export_path(path: str | os.PathLike[str]) -> Path:
    """Fail early with a readable message instead of an OSError from deep inside a writer."""
    from gpuvalue.warehouse.paths import file_problem

    target = Path(path)
    if str(target) == "" or "\x00" in str(target):
        raise ExportError(f"invalid export path {str(target)!r}")
    if target.is_dir():
        raise ExportError(f"export path {target} is a directory; give a file name")
    # A FIFO would block the write forever, and a device (/dev/full) would be replaced by the rename.
    problem = file_problem(target)
    if problem is not None:
        raise ExportError(f"cannot export to {str(target)[:80]}: it {problem}")
    parent = target.parent
    if not parent.exists():
        raise ExportError(f"cannot export to {target}: directory {parent} does not exist")
    if not parent.is_dir():
        raise ExportError(f"cannot export to {target}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ExportError(f"cannot export to {target}: directory {parent} is not writable")
    if _is_database_file(target):
        raise ExportError(f"refusing to export over {target}: it is a DuckDB database (or its journal or lock)")
    return target


def _is_database_file(target: Path) -> bool:
    """An export must never replace the warehouse it reads, whatever the file is called."""
    if target.name.endswith((".wal", ".lock")) and target.exists():
        return True
    try:
        with open(target, "rb") as fh:
            head = fh.read(12)
    except OSError:
        return False
    return head[8:12] == b"DUCK"


def prepare_export_dir(out_dir: str | os.PathLike[str]) -> Path:
    """An output directory is created on demand; anything else in its place is an error."""
    from gpuvalue.warehouse.paths import folder_problem

    directory = Path(out_dir)
    problem = folder_problem(directory)
    if problem is not None and (not directory.exists() or directory.is_dir()):
        raise ExportError(f"cannot export to {str(directory)[:80]}: it {problem}")
    if directory.exists() and not directory.is_dir():
        raise ExportError(f"cannot export to {directory}: it exists and is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(f"cannot create the folder {directory}: {exc.strerror or exc}") from exc
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ExportError(f"cannot export to {directory}: directory is not writable")
    return directory


def write_atomic(path: str | os.PathLike[str], write: Callable[[IO[bytes]], object]) -> Path:
    """Write through ``write`` into a temp file beside ``path``, fsync, then rename over it.

    The temp file lives in the same directory so that ``os.replace`` is a rename on one
    filesystem (atomic), not a copy. If ``write`` raises, the old file stays untouched.
    """
    target = validate_export_path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600 files; exports are meant to be read by others.
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(target.parent)
    return target


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    return write_atomic(path, lambda handle: handle.write(text.encode("utf-8")))


def _fsync_directory(directory: Path) -> None:
    """Persist the rename itself; not every platform can open a directory, which is fine."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# A cell a spreadsheet reads as a formula starts with one of these (after any spaces): "=HYPERLINK(...)",
# "+cmd|...", "-2+3", "@SUM(...)", or a tab or carriage return before one of them.
_FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def neutralize_formula(text: str) -> str:
    """Third-party text (a listing title, a provider's or a GPU's name) as a spreadsheet shows it, never
    runs it: a cell that would start a formula gets a leading apostrophe, the mark spreadsheets read as
    "text". A plain number ("-3.5") is left as it is."""
    if text.lstrip(" ").startswith(_FORMULA_LEADS) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_cell(value: Any) -> str:
    """Text a spreadsheet and ``csv`` readers both take back: ISO dates, exact floats, true/false, and
    no text a spreadsheet would run as a formula (``neutralize_formula``)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ExportError(f"refusing to export non-finite number {value!r}")
        return repr(value)
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, (int, Decimal)):
        return str(value)
    # a spreadsheet or `cat` shows a control left in stored text as \x1b
    return neutralize_formula(escape_controls(str(value)))
