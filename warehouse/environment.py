"""What the machine refused, in one line a user can act on.

A full disk, a read-only mount, a folder without permission or a corrupted file are not bugs of
gpuvalue, and a traceback ending in "[Errno 28]" or DuckDB's IOException hides the one fact that
matters: which path, and what to do. Every command that writes maps such failures through here.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

# errno -> what it means for the path, and what the user can do about it
_BY_ERRNO = {
    errno.ENOSPC: "no space left on its disk; free some space and try again",
    errno.EDQUOT: "the disk quota is used up; free some space and try again",
    errno.EROFS: "it is on a read-only file system; give a writable place (--db or GPUVALUE_DB)",
    errno.EACCES: "permission denied; give a place you may write to (--db or GPUVALUE_DB)",
    errno.EPERM: "permission denied; give a place you may write to (--db or GPUVALUE_DB)",
    errno.ENOENT: "it does not exist",
    errno.EIO: "the disk reported an input/output error",
}
# The same failures as DuckDB words them in its IOException (it keeps no errno).
_BY_WORDS = (
    ("no space left on device", errno.ENOSPC),
    ("disk quota exceeded", errno.EDQUOT),
    ("read-only file system", errno.EROFS),
    ("permission denied", errno.EACCES),
    ("no such file or directory", errno.ENOENT),
    ("input/output error", errno.EIO),
)
# DuckDB's words for a database file whose bytes are damaged.
_CORRUPTION_WORDS = (
    "corrupt database file", "checksum", "not a valid duckdb database", "failed to read database header",
    "could not read enough bytes", "magic bytes",
)


def errno_of(exc: BaseException) -> int | None:
    """The errno behind an OSError, or the one DuckDB's message describes."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return exc.errno
    text = str(exc).lower()
    return next((code for words, code in _BY_WORDS if words in text), None)


def is_environment_failure(exc: BaseException) -> bool:
    return errno_of(exc) in _BY_ERRNO


def environment_problem(exc: BaseException, path: str | Path) -> str:
    """``cannot write PATH: why; what to do``; for an unknown failure, its first line."""
    code = errno_of(exc)
    if code in _BY_ERRNO:
        return f"cannot write {path}: {_BY_ERRNO[code]}"
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"cannot write {path}: {first}"


def looks_corrupted(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(words in text for words in _CORRUPTION_WORDS)


def corruption_problem(path: str | Path, exc: BaseException | None = None) -> str:
    """A damaged database file, and the commands that bring its data back."""
    said = f" ({str(exc).splitlines()[0][:160]})" if exc is not None and str(exc) else ""
    return (f"{path} is corrupted and cannot be read{said}; move it aside and restore a backup: "
            f"gpuvalue restore --from BACKUP_DIR --db {path} (a folder `gpuvalue backup --out` wrote), "
            "or run `gpuvalue run` to build a new one")


def place_problem(db: Path) -> str | None:
    """Why nothing could be written where ``db`` goes (beside it: the lock, the raw archive, the
    exports), found without writing: a read-only or full file system, a folder without permission."""
    folder = db.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return None  # not a folder: the path checks say so in their words
    try:
        stats = os.statvfs(folder)
    except OSError:
        return None
    if stats.f_flag & os.ST_RDONLY:
        return f"cannot write {db}: {_BY_ERRNO[errno.EROFS]}"
    if not os.access(folder, os.W_OK):
        return f"cannot write {db}: {_BY_ERRNO[errno.EACCES]}"
    if stats.f_bavail == 0:
        return f"cannot write {db}: {_BY_ERRNO[errno.ENOSPC]}"
    return None
