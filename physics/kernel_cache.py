"""Keep numba's on-disk cache honest about every source file a cached kernel was compiled from.

numba's ``cache=True`` keys a compiled function on its own source file only. The step kernel
inlines the stage functions of every other module here, so editing, say, ``contacts.py`` would
leave the old step running from the cache; a package whose kernels call physics functions
(``evolution``'s sensors and tasks) inlines them too, so editing physics would leave its old
kernels running as well. :func:`clear_stale_cache` hashes the sources of a package and of the
packages its kernels inline, compares the hash with the one its cache was built from (a stamp
in the cache directory), and clears that cache if they differ. Each package keeps its own stamp,
so callers that check different sets of packages never undo each other's work. The cache
directory is the one numba picks for the package's modules: ``NUMBA_CACHE_DIR`` if set, else
the package's ``__pycache__`` if writable, else a user-wide directory.

Nothing here runs on import: :func:`physics.prepare_process` calls it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

HERE = Path(__file__).parent
STAMP_NAME = "numba-sources.sha256"


def sources_digest(*packages: Path) -> str:
    """A hash of every ``*.py`` file directly inside each of the package directories, in order."""
    h = hashlib.sha256()
    for package in packages:
        package = Path(package)
        h.update(package.name.encode() + b"\0")
        for path in sorted(package.glob("*.py")):
            h.update(path.name.encode() + b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()


def numba_cache_dir(package: Path) -> Path:
    """The directory numba caches the kernels of ``package``'s modules in, found as numba finds
    it (its locators, in its order); the package's ``__pycache__`` if that cannot be told."""
    package = Path(package)
    try:
        from numba.core import caching

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # older numba
        module = str(next(package.glob("*.py")))
        for cls in impl._locator_classes:
            locator = cls.from_function(numba_cache_dir, module)
            if locator is not None:
                return Path(locator.get_cache_path())
    except Exception:  # noqa: BLE001 (numba's internals moved, or no module: the default place)
        pass
    return package / "__pycache__"


def clear_stale_cache(package: Path = HERE, inlines: tuple = ()) -> bool:
    """Remove numba's cache files (``*.nbi``, ``*.nbc``) of ``package`` (from
    :func:`numba_cache_dir`) if the sources of ``package`` or of the ``inlines`` packages
    (directories whose functions its kernels call) changed since the cache was stamped; then
    stamp it. Returns whether it cleared. Must run before the process loads any of the package's
    kernels (numba loads a cached kernel at its first call). Safe to call from several processes
    at once."""
    package = Path(package)
    stamp = numba_cache_dir(package) / STAMP_NAME
    try:
        digest = sources_digest(package, *inlines)
        if stamp.exists() and stamp.read_text().strip() == digest:
            return False
        stamp.parent.mkdir(exist_ok=True)
        for pattern in ("*.nbi", "*.nbc"):
            for f in stamp.parent.glob(pattern):
                try:
                    f.unlink()
                except OSError:
                    pass  # another process got there first
        tmp = stamp.with_name(f"{stamp.name}.{os.getpid()}")
        tmp.write_text(digest)
        os.replace(tmp, stamp)
        return True
    except OSError:
        return False  # a read-only install: numba then cannot cache here either
