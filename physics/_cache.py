"""Keep numba's on-disk cache honest about the whole package.

numba's ``cache=True`` keys a compiled function on its own source file only. The step kernel
inlines the stage functions of every other module here, so editing, say, ``contacts.py`` would
leave the old step running from the cache. At import, a hash of all of this package's sources is
compared with the one the cache was built from; if they differ, the cache is cleared.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

HERE = Path(__file__).parent
STAMP = HERE / "__pycache__" / "numba-sources.sha256"


def sources_digest() -> str:
    h = hashlib.sha256()
    for path in sorted(HERE.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def clear_stale_cache() -> None:
    """Remove numba's cache files if the package's sources changed since they were written."""
    try:
        digest = sources_digest()
        if STAMP.exists() and STAMP.read_text().strip() == digest:
            return
        STAMP.parent.mkdir(exist_ok=True)
        for pattern in ("*.nbi", "*.nbc"):
            for f in STAMP.parent.glob(pattern):
                try:
                    f.unlink()
                except OSError:
                    pass  # another process got there first
        tmp = STAMP.with_name(f"{STAMP.name}.{os.getpid()}")
        tmp.write_text(digest)
        os.replace(tmp, STAMP)
    except OSError:
        pass  # a read-only install: numba then cannot cache here either
