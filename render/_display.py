"""Choosing pyglet's headless (EGL) mode before pyglet is first imported."""

from __future__ import annotations

import os
import sys

__all__ = ["prefer_headless"]


def prefer_headless(force: bool = False) -> None:
    """Render offscreen through EGL when there is no display to open a window on (a server, CI),
    or always with ``force``. It only helps before pyglet's first import: pyglet reads the choice
    then, so afterwards this does nothing."""
    if "pyglet" in sys.modules:
        return
    if force or (sys.platform.startswith("linux") and not os.environ.get("DISPLAY")):
        os.environ.setdefault("ARCADE_HEADLESS", "1")
