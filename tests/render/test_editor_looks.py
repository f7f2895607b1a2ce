"""The editor draws a design's looks (the sketch's colours and eyes): a sphere in its own colour,
a bone in its own (a muscle keeps the muscle's), an eye on its sphere."""

from __future__ import annotations

import dataclasses

import numpy as np

from test_editor import image, make_view, triangle_doc

TEAL, NAVY = (40, 150, 150), (30, 40, 110)


def _dressed(doc):
    plain = type(doc).sketch.fget

    def sketch(self):
        s = plain(self)
        P, E = len(s.sphere_id), len(s.bone_id)
        return dataclasses.replace(s, sphere_color=np.tile(np.array(TEAL, np.uint8), (P, 1)),
                                   sphere_colored=np.arange(P) < 2, bone_color=np.tile(np.array(NAVY, np.uint8), (E, 1)),
                                   bone_colored=np.ones(E, bool), eyes=np.arange(P) == 2)
    doc.__class__ = type("Dressed", (type(doc),), {"sketch": property(sketch)})
    return doc


def _count(img, color, tol=3) -> int:
    return int(np.all(np.abs(img.astype(int) - np.array(color)) <= tol, axis=2).sum())


def test_the_editor_draws_colours_and_eyes(window):
    view, _, _ = make_view(window, _dressed(triangle_doc()))
    img = image(view)
    assert _count(img, TEAL) > 100 and _count(img, NAVY) > 50 and _count(img, (255, 255, 255)) > 5
    plain, _, _ = make_view(window, triangle_doc())
    img = image(plain)
    assert _count(img, TEAL) == 0 and _count(img, NAVY) == 0
