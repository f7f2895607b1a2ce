"""Watching creatures: the arcade viewer, offscreen recording and the scene contract.

A :class:`~render.scene.Source` (built by the ``creatures`` commands from a champion, a run or a
design) owns the stepping; this package only draws what it hands over:

- :func:`watch` opens a window playing a source (:class:`Viewer`, an ``arcade.View``: fixed-rate
  stepping, camera, HUD, brain and sensor panels; H lists the keys);
- :func:`record` renders a source offscreen to an animated GIF or an MP4, with the same drawing;
- :func:`measure_frame_time` times the viewer's frames (``creatures bench``);
- :class:`Snapshot` draws a source's current frame offscreen to pixels, for code that steps the
  source itself (the Gymnasium environment's ``render()``).

``import render`` does not import arcade: arcade and pyglet load on first use of the viewer, the
recorder or a snapshot, headless (EGL) when there is no display. (``render.record`` is the
function; the module of the same name is ``sys.modules["render.record"]``.)
"""

from .record import measure_frame_time, record  # no arcade yet: it loads inside these functions
from .scene import Brain, BrainNode, CreatureFrame, CreatureShape, Frame, Scene, Source
from .snapshot import Snapshot  # no arcade yet: it loads when the first Snapshot is made

__all__ = ["Viewer", "watch", "record", "measure_frame_time", "Snapshot", "Scene", "CreatureShape",
           "Frame", "CreatureFrame", "Brain", "BrainNode", "Source"]

_LAZY = {"Viewer": "viewer", "watch": "viewer"}


def __getattr__(name):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
