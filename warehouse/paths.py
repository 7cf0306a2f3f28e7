"""Whether a path given for a file gpuvalue writes or reads can be one, said in one line before
anything is opened.

DuckDB reads a database name that starts with a word and a colon (``md:name``, ``s3://...``) as a
remote database, and loads (or downloads) the extension that serves it; ``:memory:`` is a database
that vanishes at exit. A FIFO blocks the first open forever, a device (``/dev/full``) is no file to
replace, a directory is no file at all, and a name longer than the file system allows fails deep
inside a writer. All of them are refused here, from the path's text and one ``stat``.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

# A file system's limits for a name and a whole path (Linux's NAME_MAX and PATH_MAX, in bytes).
NAME_MAX_BYTES = 255
PATH_MAX_BYTES = 4095
# The longest suffix gpuvalue adds beside a database (its lock, journal, storage-conversion copy).
_SIBLING_SUFFIX_BYTES = len(".storage-tmp.wal")
# What DuckDB reads as a remote or special database rather than a file: a leading "word:".
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def _kind(mode: int) -> str | None:
    """The kind of a non-regular file, in words; None for a regular file."""
    for test, words in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return None if stat.S_ISREG(mode) else "not a regular file"


def name_problem(path: str | os.PathLike[str], *, sibling_suffixes: bool = False) -> str | None:
    """Why the path's text cannot name a local file, or None: empty, a NUL byte, ``:memory:``, a
    remote name (``md:``), or too long for the file system (``sibling_suffixes``: with room for
    the files gpuvalue keeps beside a database)."""
    text = os.fspath(path)
    if not text.strip() or "\x00" in text:
        return "is not a file name"
    if text.startswith(":memory:") or text == ":memory:":
        return "names an in-memory database, which keeps nothing: give a file path"
    if _SCHEME.match(text) and not re.match(r"^[A-Za-z]:[\\/]", text):  # a Windows drive is a file
        return (f"names a remote or special database ({text.split(':', 1)[0]}:), not a local file: "
                "give a file path (./name for a file whose name has a colon)")
    encoded = os.fsencode(text)
    room = _SIBLING_SUFFIX_BYTES if sibling_suffixes else 0
    longest = max((len(os.fsencode(part)) for part in Path(text).parts), default=0)
    if longest + room > NAME_MAX_BYTES:
        return f"has a name of {longest} bytes: the file system allows {NAME_MAX_BYTES - room} here"
    if len(encoded) + room > PATH_MAX_BYTES:
        return f"is {len(encoded)} bytes long: the file system allows {PATH_MAX_BYTES - room}"
    return None


def file_problem(path: str | os.PathLike[str], *, sibling_suffixes: bool = False) -> str | None:
    """Why ``path`` cannot be a regular file gpuvalue opens or replaces, or None: ``name_problem``,
    then what already stands there (a directory, a FIFO, a device, a socket). A missing file is fine."""
    problem = name_problem(path, sibling_suffixes=sibling_suffixes)
    if problem is not None:
        return problem
    try:
        mode = os.stat(path).st_mode  # follows a link: what a write would reach
    except (FileNotFoundError, NotADirectoryError):  # nothing there yet (a missing folder is said where made)
        return None
    except OSError as exc:
        return f"cannot be examined: {exc.strerror or exc}"
    kind = _kind(mode)
    return None if kind is None else f"is {kind}, not a regular file"


def folder_problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be a folder gpuvalue writes into or reads from, or None (a missing one is fine)."""
    problem = name_problem(path)
    if problem is not None:
        return problem
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return "is inside something that is not a directory"
    except OSError as exc:
        return f"cannot be examined: {exc.strerror or exc}"
    if stat.S_ISDIR(mode):
        return None
    kind = _kind(mode)
    return f"is {'a file' if kind is None else kind}, not a folder"
