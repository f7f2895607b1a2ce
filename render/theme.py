"""The viewer's look: its colours, the colours it gives creatures, muscles and brain nodes, and
the disc its spheres are drawn with. :mod:`render.viewer` re-exports all of it (the other
screens take their colours from there)."""

from __future__ import annotations

import colorsys
import functools
import math

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

__all__ = ["SKY", "GROUND", "GROUND_EDGE", "TICK", "TICK_LABEL", "BONE_RIGID", "BONE_SOFT",
           "MUSCLE_CONTRACTED", "MUSCLE_REST", "MUSCLE_EXTENDED", "SPHERE", "GHOST_ALPHA",
           "CROWD_ALPHA", "CROWD_BONE_ALPHA", "CONTACT", "TEXT", "HUD_BACK", "PANEL_BACK",
           "PANEL_TEXT", "WATER_SHALLOW", "WATER", "WATER_DEEP", "MOTE", "STREAK", "WING",
           "WING_ALPHA", "EDGE_POSITIVE", "EDGE_NEGATIVE", "creature_colors", "scene_colors",
           "label_color", "lighter", "muscle_colors", "value_colors", "disc_texture"]

SKY = (206, 228, 243)
GROUND = (133, 163, 104)
GROUND_EDGE = (72, 104, 58)
TICK = (46, 66, 38)
TICK_LABEL = (34, 50, 28, 255)
BONE_RIGID = (52, 52, 62)
BONE_SOFT = (150, 150, 162)
MUSCLE_CONTRACTED = np.array([40, 95, 235], dtype=np.float64)
MUSCLE_REST = np.array([150, 150, 150], dtype=np.float64)
MUSCLE_EXTENDED = np.array([228, 52, 40], dtype=np.float64)
SPHERE = (240, 168, 56)              # a creature alone
GHOST_ALPHA = 150                    # racing creatures are translucent
CROWD_ALPHA = 90                     # a crowd's creatures more so: 150 overlapping read as a cloud
CROWD_BONE_ALPHA = 80                # and their bones
CONTACT = (255, 228, 0)
TEXT = (22, 26, 34, 255)
HUD_BACK = (255, 255, 255, 170)
PANEL_BACK = (24, 28, 36, 225)
PANEL_TEXT = (232, 236, 244, 255)
WATER_SHALLOW = (170, 214, 236)     # water WATER_LEVELS[0] metres above the surface level and up
WATER = (112, 170, 214)             # water at the surface level (y = 0)
WATER_DEEP = (34, 72, 122)          # water WATER_LEVELS[2] metres below it and deeper
MOTE = (236, 246, 255, 120)         # specks drifting with the water
STREAK = (255, 255, 255, 175)       # wind streaks in the air
WING = (246, 190, 110)              # a lone creature's wings (translucent)
WING_ALPHA = (205, 105)             # a wing's opacity along its bone and at its edges
EDGE_POSITIVE = (236, 110, 40, 200)
EDGE_NEGATIVE = (60, 130, 240, 200)


def creature_colors(n: int) -> list[tuple[int, int, int, int]]:
    """One sphere colour per creature: the warm default alone, else evenly spaced hues, translucent."""
    if n == 1:
        return [SPHERE + (255,)]
    out = []
    for i in range(n):
        r, g, b = colorsys.hsv_to_rgb((0.08 + i / n) % 1.0, 0.72, 0.92)
        out.append((int(r * 255), int(g * 255), int(b * 255), GHOST_ALPHA))
    return out


def _rgb(color) -> tuple[int, int, int] | None:
    """A shape's ``color`` as three bytes, or None when it has none (or not three numbers)."""
    if color is None:
        return None
    try:
        rgb = [float(c) for c in color][:3]
    except (TypeError, ValueError):
        return None
    if len(rgb) < 3 or not all(math.isfinite(c) for c in rgb):
        return None
    return tuple(int(min(max(round(c), 0), 255)) for c in rgb)


def scene_colors(shapes, crowd: bool = False) -> list[tuple[int, int, int, int]]:
    """One sphere colour per creature: its shape's ``color`` when it has one, else
    :func:`creature_colors`' hue; opaque alone, translucent in a race (:data:`GHOST_ALPHA`),
    more so in a crowd (:data:`CROWD_ALPHA`)."""
    shapes = list(shapes)
    out = creature_colors(len(shapes)) if shapes else []
    alpha = CROWD_ALPHA if crowd else (GHOST_ALPHA if len(shapes) > 1 else 255)
    for i, s in enumerate(shapes):
        rgb = _rgb(getattr(s, "color", None)) or out[i][:3]
        out[i] = rgb + (alpha,)
    return out


def label_color(color) -> tuple[int, int, int, int]:
    """A darker, opaque version of a creature's colour, readable on the sky and on panels' white."""
    h, s, v = colorsys.rgb_to_hsv(*(c / 255.0 for c in color[:3]))
    r, g, b = colorsys.hsv_to_rgb(h, min(1.0, s + 0.2), 0.42)
    return int(r * 255), int(g * 255), int(b * 255), 255


def lighter(color) -> tuple[int, int, int]:
    """A pale version of a creature's colour (its springy bones in a race)."""
    return tuple(int(c + (255 - c) * 0.45) for c in color[:3])


def muscle_colors(contraction: np.ndarray) -> np.ndarray:
    """Blue when contracted (-1), grey at rest (0), red when extended (+1); shape (M, 3) bytes."""
    c = np.clip(np.nan_to_num(np.asarray(contraction, dtype=np.float64)), -1.0, 1.0)[:, None]
    out = np.where(c < 0.0, MUSCLE_REST + (MUSCLE_CONTRACTED - MUSCLE_REST) * -c,
                   MUSCLE_REST + (MUSCLE_EXTENDED - MUSCLE_REST) * c)
    return out.astype(np.uint8)


def value_colors(values: np.ndarray) -> np.ndarray:
    """Brain node colours: blue for -1, light grey for 0, orange for +1; shape (N, 3) bytes."""
    v = np.clip(np.nan_to_num(np.asarray(values, dtype=np.float64)), -1.0, 1.0)[:, None]
    mid = np.array([205.0, 205.0, 210.0])
    neg = np.array([50.0, 120.0, 245.0])
    pos = np.array([245.0, 130.0, 30.0])
    return np.where(v < 0.0, mid + (neg - mid) * -v, mid + (pos - mid) * v).astype(np.uint8)


@functools.cache
def disc_texture(name: str) -> arcade.Texture:
    """A white disc with a darker rim (tinted by each sprite's colour), antialiased by drawing at
    4x and shrinking. One texture per name for the whole process: arcade's atlas counts the
    textures of one name, and a second one made while the first was being collected could find
    its name's slot already gone ("Texture ... not found in UVData", seen once under load)."""
    n, big = 128, 512
    im = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.ellipse((0, 0, big - 1, big - 1), fill=(150, 150, 150, 255))
    rim = int(big * 0.09)
    d.ellipse((rim, rim, big - 1 - rim, big - 1 - rim), fill=(255, 255, 255, 255))
    im = im.resize((n, n), Image.Resampling.LANCZOS)
    return arcade.Texture(im, hash=f"creatures-{name}")
