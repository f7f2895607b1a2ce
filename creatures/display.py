"""Whether there is a display to open a window on (a desktop, a virtual one, or arcade's headless
mode): the window commands and the editor's Evolve button ask before they open one."""

from __future__ import annotations

import os


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                or os.environ.get("ARCADE_HEADLESS"))
