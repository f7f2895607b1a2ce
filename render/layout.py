"""Where the boxes drawn over a view go, so that none covers another: rectangles only, no drawing.

A rectangle is ``(left, bottom, width, height)`` in screen units (y up), as everywhere in
``render``. The screens ask these functions where to put what they draw over the world (the
viewer's status word, its messages, the keys' help; the play screen's chart, buttons and status
lines) given what is already there, and the tests ask the same functions for a range of window
sizes and check that no two boxes intersect.

:func:`free_regions` is the one idea: the parts of an area beside, above or below every box
already in it (one side chosen per box, every choice tried), each a rectangle that touches none
of them. :func:`place` puts a box of a given size in the first region that holds it, as near as
it can to where it would like to be.
"""

from __future__ import annotations

import functools
import itertools
import math

__all__ = ["intersects", "within", "free_regions", "place", "shrink"]

#: at most this many boxes are avoided at once (4 ** n side choices are tried)
MAX_OBSTACLES = 5


def intersects(a, b) -> bool:
    """Whether two rectangles share some area (touching edges do not count; an empty one never
    intersects)."""
    al, ab, aw, ah = a
    bl, bb, bw, bh = b
    if aw <= 0 or ah <= 0 or bw <= 0 or bh <= 0:
        return False
    return al < bl + bw and bl < al + aw and ab < bb + bh and bb < ab + ah


def within(a, bounds, slack: float = 1e-6) -> bool:
    """Whether rectangle ``a`` lies inside ``bounds``."""
    l, b, w, h = a
    L, B, W, H = bounds
    return l >= L - slack and b >= B - slack and l + w <= L + W + slack and b + h <= B + H + slack


def shrink(rect, margin: float):
    """``rect`` with ``margin`` taken off each side (never negative)."""
    l, b, w, h = rect
    return (l + margin, b + margin, max(w - 2 * margin, 0.0), max(h - 2 * margin, 0.0))


def free_regions(area, obstacles, gap: float = 8.0) -> list:
    """Rectangles inside ``area`` that keep ``gap`` away from every obstacle: for each obstacle
    one of its sides (left of it, right of it, below or above it), every combination tried.
    Largest first; duplicates and empty ones left out. Obstacles outside the area (or empty) are
    ignored; with none, the area itself.

    Parameters
    ----------
    area : (float, float, float, float)
    obstacles : sequence of rectangles
    gap : float
        The room kept between a region and an obstacle.
    """
    L, B, W, H = area
    R, T = L + W, B + H
    boxes = [o for o in obstacles if intersects(o, area)][:MAX_OBSTACLES]
    if not boxes:
        return [tuple(area)] if W > 0 and H > 0 else []
    out = set()
    for sides in itertools.product(range(4), repeat=len(boxes)):
        l, b, r, t = L, B, R, T
        for (ol, ob, ow, oh), side in zip(boxes, sides):
            if side == 0:
                r = min(r, ol - gap)          # left of it
            elif side == 1:
                l = max(l, ol + ow + gap)     # right of it
            elif side == 2:
                t = min(t, ob - gap)          # below it
            else:
                b = max(b, ob + oh + gap)     # above it
        if r - l > 0 and t - b > 0:
            out.add((l, b, r - l, t - b))
    # a region inside another adds nothing
    regions = sorted(out, key=lambda q: -q[2] * q[3])
    kept = []
    for q in regions:
        if not any(within(q, k) for k in kept):
            kept.append(q)
    return kept


def place(size, area, obstacles=(), want=None, gap: float = 8.0):
    """Where a box of ``size`` (width, height) goes inside ``area``, touching none of
    ``obstacles``: in the free region (:func:`free_regions`) that holds it with its best spot
    nearest to ``want`` (a point the box's centre would like to be at; default the area's top
    centre), the box as near that point as the region allows. None when no region holds it.
    """
    w, h = size
    L, B, W, H = area
    wx, wy = want if want is not None else (L + W / 2, B + H - h / 2)
    return _place((float(w), float(h)), tuple(map(float, area)), tuple(tuple(map(float, o)) for o in obstacles),
                  (float(wx), float(wy)), float(gap))


@functools.lru_cache(maxsize=512)
def _place(size, area, obstacles, want, gap):
    """:func:`place`, remembered: screens ask the same every frame."""
    w, h = size
    wx, wy = want
    best, best_d = None, math.inf
    for l, b, rw, rh in free_regions(area, obstacles, gap):
        if rw + 1e-9 < w or rh + 1e-9 < h:
            continue
        x = min(max(wx - w / 2, l), l + rw - w)
        y = min(max(wy - h / 2, b), b + rh - h)
        d = math.hypot(x + w / 2 - wx, y + h / 2 - wy)
        if d < best_d - 1e-9:
            best, best_d = (x, y, w, h), d
    return best
