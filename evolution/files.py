"""Writing the files a user keeps (run directories, champions, charts) so that they survive.

:func:`write_atomic` writes through a temporary file beside the target, flushed to the disk
(``fsync``), then renamed over the target, and then flushes the directory too, so that the
rename itself is on the disk: a crash, a ``kill -9`` or a power cut leaves either the old file
or the new one, whole, never half of one. A write that fails (a full disk, no permission)
leaves the old file as it was and no temporary file, and raises :class:`WriteError`, whose
``str()`` is one line naming the file.

Imports nothing of ours (``render`` keeps its own copy for its videos: it imports nothing of ours).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

__all__ = ["WriteError", "write_atomic", "fsync_directory", "make_directory"]

#: what ``fsync`` of a directory answers where the platform or file system cannot do it
_CANNOT_SYNC_DIRECTORY = {errno.EINVAL, errno.EBADF, errno.EACCES, errno.EPERM,
                          getattr(errno, "ENOTSUP", errno.EINVAL), getattr(errno, "EOPNOTSUPP", errno.EINVAL)}


class WriteError(OSError):
    """A file that could not be written: ``filename`` is the file meant (never the temporary
    one), ``strerror`` says why (``errno`` as the system said it). The file is as it was."""

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


def fsync_directory(directory) -> None:
    """Flush a directory's entries (a rename, a new file) to the disk. Skipped quietly where the
    platform cannot (Windows cannot open a directory; some file systems refuse to sync one)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _CANNOT_SYNC_DIRECTORY:
            raise
    finally:
        os.close(fd)


def make_directory(path) -> None:
    """``mkdir -p path``, with every directory it creates flushed into its parent."""
    path = Path(path)
    missing = []
    p = path
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    path.mkdir(parents=True, exist_ok=True)
    for p in reversed(missing):
        fsync_directory(p.parent)


def write_atomic(path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` atomically and durably: a temporary
    file beside it, fsynced, renamed over ``path``, then the directory fsynced. Raises
    :class:`WriteError` (an OSError) with the old file untouched and no temporary file left."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:  # Ctrl-C or a full disk: leave the old file, and no temporary one
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, WriteError):
            raise WriteError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise
    try:
        fsync_directory(path.parent)
    except OSError as exc:
        raise WriteError(exc.errno, exc.strerror or str(exc), str(path)) from exc
