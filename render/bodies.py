"""The creatures as the viewer draws them (:class:`Bodies`): every creature's bones and muscles
(coloured by contraction) as one batch of segments, its spheres as one ``SpriteList`` (a crowd's
as discs in the bones' batch), its wings as translucent plates under the bones, the contacts
marked and the joint angles and wings' pitch written while the sensors are shown, and a label
above each (in a crowd, above the leaders only)."""

from __future__ import annotations

import math

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402

from ._gl import Segments, Triangles, VERTEX  # noqa: E402
from .text import FONT  # noqa: E402
from .textpool import TextPool  # noqa: E402
from .theme import (BONE_RIGID, BONE_SOFT, CONTACT, CROWD_ALPHA, CROWD_BONE_ALPHA, MUSCLE_REST, TEXT,  # noqa: E402
                    WING, WING_ALPHA, disc_texture, label_color, lighter, muscle_colors, scene_colors)

__all__ = ["Bodies", "part_mask", "CROWD_LABELS", "WING_MIN_PIXELS", "WING_MAX_LENGTH"]

CROWD_LABELS = 3                     # a crowd's creatures labelled in the view: the best so far
#: a wing's band: as thick on the screen as its plate is wide, at least this many pixels and at
#: most this fraction of its bone's length (a broader plate would be a blob, not a wing)
WING_MIN_PIXELS = 3.0
WING_MAX_LENGTH = 0.6
#: an eye on a sphere of radius r: its white's and pupil's diameters (times 2r), where its centre
#: is (times r) and how far toward the right the pupil looks (times r)
EYE_WHITE, EYE_PUPIL, EYE_AT, EYE_LOOK = 0.5, 0.24, (0.3, 0.25), 0.12


def part_mask(values, n: int) -> np.ndarray:
    """A shape's part mask (``sphere_on``, ``bone_on``, ``joint_on``) as ``n`` booleans; None is
    every part on."""
    if values is None:
        return np.ones(n, bool)
    return np.asarray(values, bool).reshape(n)


class Bodies:
    """The creatures of a scene (:meth:`load`), drawn from the positions of all their spheres
    (one array, the creatures' spheres one after the other); the labels and joint angles go
    into ``batch``.

    Attributes
    ----------
    shapes : list of CreatureShape
        The scene's creatures.
    colors : list of (int, int, int, int)
        One colour per creature (:func:`~render.theme.scene_colors`).
    crowd : bool
        Whether they are a crowd (translucent discs, only the leaders labelled).
    bones : Segments
        The bones and muscles last drawn, then (in a crowd) the contact halos and the spheres.
    bone_rgba : ndarray
        Each bone's colour at rest.
    sprites : list of arcade.Sprite
        One per sphere, out of a crowd (whose spheres are discs in :attr:`bones`); a creature
        drawn alone in its looks' colours.
    eyes : list of (int, float, arcade.Sprite, arcade.Sprite)
        Per eye: its sphere's index in :attr:`sprites`, the sphere's radius, its white and its
        pupil.
    sphere_list : arcade.SpriteList
        The contact halos, then the spheres.
    labels : list of arcade.Text
        The labels in use, above the creatures :attr:`label_owner` lists.
    label_owner : list of int
        The creature each label in use is above.
    label_pool : TextPool
        All the labels' texts (reused by each scene).
    angle_labels : TextPool
        The selected creature's joint angles, while the sensors are shown.
    """

    def __init__(self, ctx, batch):
        self._disc = disc_texture("disc")
        self._wings = Triangles(ctx)
        self.bones = Segments(ctx)
        self.angle_labels = TextPool(batch, color=TEXT, font_size=9, font_name=FONT,
                                     anchor_x="left", anchor_y="bottom")
        # the creatures' labels: reused by each scene (a new source makes no new texts)
        self.label_pool = TextPool(batch, color=TEXT, font_size=10, font_name=FONT,
                                   anchor_x="center", anchor_y="bottom")
        self.labels: list[arcade.Text] = []
        self.label_owner: list[int] = []       # the creature each label in use is above
        self._label_strings: list[str] = []    # a crowd's labels' texts, for the leaders now
        self.shapes: list = []
        self.colors: list = []
        self.crowd = False

    def load(self, shapes: list, crowd: bool) -> None:
        """Build the sprites, segments and labels of ``shapes`` (a ``crowd`` or not)."""
        n = len(shapes)
        self.shapes = shapes
        self.crowd = crowd
        self.colors = scene_colors(shapes, crowd)
        ghost = n > 1 or crowd       # each creature's skeleton in its own colour
        # topology of all creatures, spheres numbered one after the other
        offsets = np.cumsum([0] + [len(s.radius) for s in shapes])
        self._sphere_offset = offsets
        self._radius = (np.concatenate([np.asarray(s.radius, np.float64) for s in shapes]) if n
                        else np.zeros(0))
        a, b, kind, muscle_index, owner, keep = [], [], [], [], [], []
        own_rgb, own_on = [], []     # the bones' own colours (a design's looks), drawn alone
        sphere_on, self._joint_on = [], []
        wing_a, wing_b, wing_width, wing_owner = [], [], [], []
        m0 = 0
        for i, s in enumerate(shapes):
            E = len(s.bone_a)
            # the parts a creature has (an evolved body may have switched some off)
            on_p = part_mask(s.sphere_on, len(s.radius))
            bone_a, bone_b = np.asarray(s.bone_a, np.int64), np.asarray(s.bone_b, np.int64)
            on_e = part_mask(s.bone_on, E) & on_p[bone_a] & on_p[bone_b]
            js = np.asarray(s.joint_sphere, np.int64).reshape(-1)
            sphere_on.append(on_p)
            # wings (of the bones it has): drawn as translucent plates under the bones
            wing = getattr(s, "wing", None)
            if wing is not None and E:
                wing = np.asarray(wing, bool).reshape(E) & on_e
                width = getattr(s, "bone_width", None)
                width = (np.full(E, np.nan) if width is None
                         else np.asarray(width, np.float64).reshape(E))
                wing_a.append(bone_a[wing] + offsets[i])
                wing_b.append(bone_b[wing] + offsets[i])
                wing_width.append(width[wing])
                wing_owner.append(np.full(int(wing.sum()), i))
            self._joint_on.append(part_mask(s.joint_on, js.size) & on_p[js])
            k = np.where(np.asarray(s.rigid, bool).reshape(E), 0, 1) if E else np.zeros(0, int)
            mi = np.full(E, -1)
            mb = np.asarray(s.muscle_bone, np.int64).reshape(-1)
            k[mb] = 2
            mi[mb] = m0 + np.arange(mb.size)
            m0 += mb.size
            # rigid clusters: closed outlines (of the members it has), drawn as rigid bones
            ca, cb = [bone_a], [bone_b]
            for members in s.clusters:
                m = np.asarray(members, np.int64).reshape(-1)
                m = m[on_p[m]]
                if m.size >= 2:
                    ca.append(m if m.size > 2 else m[:1])
                    cb.append(np.roll(m, -1) if m.size > 2 else m[1:])
            C = sum(len(x) for x in ca) - E
            a.append(np.concatenate(ca) + offsets[i])
            b.append(np.concatenate(cb) + offsets[i])
            kind.append(np.concatenate([k, np.zeros(C, np.int64)]))
            muscle_index.append(np.concatenate([mi, np.full(C, -1)]))
            owner.append(np.full(E + C, i))
            keep.append(np.concatenate([on_e, np.ones(C, bool)]))
            rgb, colored = np.zeros((E + C, 3), np.uint8), np.zeros(E + C, bool)
            if getattr(s, "bone_color", None) is not None and E:
                rgb[:E] = np.asarray(s.bone_color, np.uint8).reshape(E, 3)
                given = getattr(s, "bone_colored", None)
                colored[:E] = True if given is None else np.asarray(given, bool).reshape(E)
            own_rgb.append(rgb)
            own_on.append(colored)
        cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))
        keep = cat(keep, bool)      # bones and muscles switched off are not drawn at all
        self._sphere_on = cat(sphere_on, bool)
        self._bone_a, self._bone_b = cat(a, np.int64)[keep], cat(b, np.int64)[keep]
        self._bone_kind, self._muscle_index = cat(kind, np.int64)[keep], cat(muscle_index, np.int64)[keep]
        owner = cat(owner, np.int64)[keep]
        self._bone_owner = owner
        alpha = np.array([CROWD_BONE_ALPHA if crowd else c[3] for c in self.colors], dtype=np.uint8)
        if ghost:   # a race or a crowd: each creature's skeleton in its own colour
            base = np.array([[label_color(c)[:3], lighter(c), MUSCLE_REST] for c in self.colors], np.uint8)
        else:
            base = np.array([[BONE_RIGID, BONE_SOFT, MUSCLE_REST]], np.uint8)
        self.bone_rgba = np.zeros((self._bone_a.size, 4), np.uint8)
        self.bone_rgba[:, :3] = base[owner if ghost else 0, self._bone_kind]
        self.bone_rgba[:, 3] = alpha[owner] if owner.size else 0
        if not ghost and own_on:     # a creature alone wears its looks (muscles show contraction)
            own = cat(own_on, bool)[keep] & (self._bone_kind != 2)
            self.bone_rgba[own, :3] = np.concatenate(own_rgb)[keep][own]
        self._is_muscle = self._bone_kind == 2
        self._muscle_bones = np.flatnonzero(self._is_muscle)
        self._wing_a, self._wing_b = cat(wing_a, np.int64), cat(wing_b, np.int64)
        self._wing_width = cat(wing_width, np.float64)
        self._wing_owner = cat(wing_owner, np.int64)
        wing_rgb = (np.array([c[:3] for c in self.colors], np.uint8) if ghost
                    else np.array([WING], np.uint8))
        self._wing_rgb = (wing_rgb[self._wing_owner] if ghost
                          else np.repeat(wing_rgb, self._wing_a.size, 0))
        self._wing_fade = CROWD_ALPHA / 255.0 if crowd else 1.0   # a crowd's wings are ghosts too
        # a crowd's spheres: discs (zero-length segments) drawn with the bones, in one call and
        # set in bulk (a sprite each costs a Python call per sphere and frame: ~6 ms for 1200)
        counts = np.diff(offsets).astype(np.int64)
        self._sphere_rgba = np.zeros((self._radius.size, 4), np.uint8)
        if crowd and n:
            self._sphere_rgba[:] = np.repeat(np.array(self.colors, np.uint8), counts, axis=0)
        # spheres otherwise: one sprite each, and behind each a larger yellow disc shown when it
        # touches the ground with the sensors on; all in one SpriteList, so one draw call (each
        # SpriteList draw costs ~1 ms on llvmpipe whatever its size), halos first so spheres
        # cover them
        self.sprites, self._rings, self.eyes = [], [], []
        for i, s in enumerate([] if crowd else shapes):
            own = getattr(s, "sphere_color", None) if not ghost else None
            colored = getattr(s, "sphere_colored", None)
            eyes = getattr(s, "eyes", None)
            for k, r in enumerate(np.asarray(s.radius, np.float64)):
                r = max(float(r), 1e-6)     # a sphere switched off may have no radius (not drawn)
                sp = arcade.Sprite(self._disc)
                sp.width = sp.height = 2.0 * r
                mine = own is not None and (colored is None or bool(colored[k]))
                sp.color = tuple(int(v) for v in own[k][:3]) + (self.colors[i][3],) if mine else self.colors[i]
                self.sprites.append(sp)
                ring = arcade.Sprite(self._disc)
                ring.width = ring.height = 3.0 * r
                ring.color = CONTACT + (255,)
                ring.visible = False
                self._rings.append(ring)
                if eyes is not None and bool(eyes[k]):
                    self.eyes.append((len(self.sprites) - 1, r, *self._eye(r)))
        self.sphere_list = arcade.SpriteList(capacity=max(2 * len(self.sprites) + 2 * len(self.eyes), 1))
        self.sphere_list.extend(self._rings)
        self.sphere_list.extend(self.sprites)
        for _, _, white, pupil in self.eyes:
            self.sphere_list.extend((white, pupil))
        # labels: one per creature, or in a crowd the leaders' (set as they change)
        self.label_owner, self._label_strings = [], []
        if not crowd:
            for i, s in enumerate(shapes):
                self._set_label(i, i, s.label or f"creature {i}")
            self.label_owner = list(range(n))
        self.label_pool.finish(len(self.label_owner))
        self.labels = self.label_pool.items[:len(self.label_owner)]

    def _eye(self, r: float) -> tuple:
        """An eye for a sphere of radius ``r``: its white and its pupil (sprites)."""
        white, pupil = arcade.Sprite(self._disc), arcade.Sprite(self._disc)
        white.width = white.height = EYE_WHITE * 2.0 * r
        white.color = (255, 255, 255, 255)
        pupil.width = pupil.height = EYE_PUPIL * 2.0 * r
        pupil.color = (20, 20, 26, 255)
        return white, pupil

    def _set_label(self, k: int, i: int, text: str) -> arcade.Text:
        """Label ``k`` of the pool shows ``text`` in creature ``i``'s colour."""
        t = self.label_pool.get(k)
        t.text = text
        color = label_color(self.colors[i])
        if tuple(t.color) != color:
            t.color = color
        return t

    def spheres_on(self, i: int, n: int) -> np.ndarray:
        """Which of creature ``i``'s ``n`` spheres it has (all, if its frame and its shape do not
        agree on how many)."""
        on = self._sphere_on[self._sphere_offset[i]:self._sphere_offset[i + 1]]
        return on if on.size == n else np.ones(n, bool)

    def points(self, i: int, pos: np.ndarray) -> np.ndarray:
        """Creature ``i``'s spheres in ``pos`` (all the creatures' spheres), the ones it has."""
        p = pos[self._sphere_offset[i]:self._sphere_offset[i + 1]]
        return p[self.spheres_on(i, len(p))]

    def label_leaders(self, ranking: np.ndarray, creatures, inspected: int | None) -> None:
        """Who a crowd's labels are above: the :data:`CROWD_LABELS` best in ``ranking`` (not
        failed), and the ``inspected`` creature, the one the panels show (``> #57 ...``)."""
        top = [i for i in ranking[:CROWD_LABELS].tolist() if not creatures[i].failed]
        owners = [(r, i) for r, i in enumerate(top)]
        if inspected is not None and inspected not in top:
            owners.append((int(np.flatnonzero(ranking == inspected)[0]), inspected))
        shapes = self.shapes
        self.label_owner = [i for _, i in owners]
        self._label_strings = [("> " if i == inspected else "") + f"#{r + 1} {shapes[i].label or f'creature {i}'}"
                               for r, i in owners]

    def draw_wings(self, pos: np.ndarray, zoom: float) -> None:
        """Wings as plates: a translucent band along each wing bone, under its line, as thick
        as the plate is wide (a 2D creature's plate reaches out of the picture: seen a little
        from the side), at most :data:`WING_MAX_LENGTH` of the bone's length and at least
        :data:`WING_MIN_PIXELS`; a lens shape, most opaque along the bone, fading to its edges."""
        W = self._wing_a.size
        if W == 0 or pos.shape[0] == 0:
            self._wings.count = 0
            return
        a, b = pos[self._wing_a], pos[self._wing_b]
        d = b - a
        length = np.hypot(d[:, 0], d[:, 1])
        good = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1) & (length * zoom >= 1.0)
        if self._sphere_on.shape[0] == pos.shape[0]:
            good &= self._sphere_on[self._wing_a] & self._sphere_on[self._wing_b]
        if not good.any():
            self._wings.count = 0
            return
        a, b, d, length = a[good], b[good], d[good], length[good]
        width = self._wing_width[good]
        width = np.where(np.isfinite(width) & (width > 0.0), width, 0.5 * length)
        thick = np.maximum(np.minimum(width, WING_MAX_LENGTH * length), WING_MIN_PIXELS / zoom)
        t = d / length[:, None]
        nrm = np.stack([-t[:, 1], t[:, 0]], axis=1) * (0.5 * thick)[:, None]
        m = 0.5 * (a + b)
        # the centre line a, m, b; each side's edge at 0.55, 1, 0.55 of the half thickness
        centre = [a, m, b]
        sides = [[a + 0.55 * nrm, m + nrm, b + 0.55 * nrm], [a - 0.55 * nrm, m - nrm, b - 0.55 * nrm]]
        k = a.shape[0]
        v = np.zeros((k, 24), dtype=VERTEX)
        inner, outer = (round(a * self._wing_fade) for a in WING_ALPHA)
        rgb = self._wing_rgb[good]
        j = 0
        for edge in sides:
            for s in range(2):                       # two quads per side, two triangles each
                quad = [(centre[s], inner), (centre[s + 1], inner), (edge[s + 1], outer),
                        (centre[s], inner), (edge[s + 1], outer), (edge[s], outer)]
                for p, alpha in quad:
                    v["pos"][:, j] = p
                    v["color"][:, j, :3] = rgb
                    v["color"][:, j, 3] = alpha
                    j += 1
        self._wings.set(v.reshape(-1))
        self._wings.draw()

    def draw(self, pos: np.ndarray, frame, *, zoom: float, selected: int, sensors: bool,
             inspected: int | None) -> None:
        """The creatures at ``pos``: bones, muscles by ``frame``'s contractions, spheres, and
        with the ``sensors`` shown the contacts (in a crowd the ``selected`` creature's only);
        the ``inspected`` creature opaque among a crowd's ghosts."""
        if pos.shape[0] == 0:
            return
        ok = np.isfinite(pos).all(axis=1)
        safe = np.where(ok[:, None], pos, 0.0)
        on = ok & self._sphere_on if self._sphere_on.shape == ok.shape else ok
        # bones, then muscles coloured by contraction, (in a crowd then the spheres as discs) all
        # in one call
        n = self._bone_a.size
        discs = (self._crowd_discs(on, frame, selected, sensors) if self.crowd
                 else (np.zeros(0, np.int64), np.zeros(0, np.int64)))
        if n or discs[1].size:
            seg = self.bones.reserve(n + discs[0].size + discs[1].size)
            bones = seg[:n]
            bones["seg"][:, 0:2] = safe[self._bone_a]
            bones["seg"][:, 2:4] = safe[self._bone_b]
            rgba = self.bone_rgba.copy()
            if self._muscle_bones.size:
                contraction = np.concatenate([np.asarray(c.contraction, np.float64).reshape(-1)
                                              for c in frame.creatures])
                m = self._muscle_bones
                rgba[m, :3] = muscle_colors(contraction[self._muscle_index[m]])
            if inspected is not None:       # the creature the panels show stands out of the crowd
                rgba[self._bone_owner == inspected, 3] = 255
            rgba[~(ok[self._bone_a] & ok[self._bone_b]), 3] = 0
            bones["color"] = rgba
            z = zoom
            bones["width"] = np.select([self._bone_kind == 0, self._bone_kind == 1],
                                       [np.clip(0.04 * z, 2.0, 10.0), np.clip(0.025 * z, 1.5, 6.0)],
                                       np.clip(0.05 * z, 2.5, 12.0))
            k = n
            for which, size, color in ((discs[0], 3.0, None), (discs[1], 2.0, self._sphere_rgba)):
                rows = seg[k:k + which.size]
                p = safe[which]
                rows["seg"][:, 0:2] = p
                rows["seg"][:, 2:4] = p
                rows["color"] = CONTACT + (255,) if color is None else color[which]
                if color is not None and inspected is not None:
                    lo, hi = self._sphere_offset[inspected], self._sphere_offset[inspected + 1]
                    rows["color"][(which >= lo) & (which < hi), 3] = 255
                rows["width"] = size * self._radius[which] * z
                k += which.size
            self.bones.upload()
            self.bones.draw(1.0 / zoom)
        if self.crowd:
            return
        # spheres, over their contact halos (not those switched off)
        for sp, (x, y), good in zip(self.sprites, safe.tolist(), on.tolist()):
            sp.position = (x, y)
            if sp.visible != good:
                sp.visible = good
        if sensors:
            contact = np.concatenate([np.asarray(c.contact, bool).reshape(-1) for c in frame.creatures])
            shown = (contact & on).tolist()
        else:
            shown = [False] * len(self._rings)
        for ring, (x, y), on_ in zip(self._rings, safe.tolist(), shown):
            if on_:
                ring.position = (x, y)
            if ring.visible != on_:
                ring.visible = on_
        for k, r, white, pupil in self.eyes:     # looking right, a little above the centre
            sp = self.sprites[k]
            x, y = sp.position
            white.position = (x + EYE_AT[0] * r, y + EYE_AT[1] * r)
            pupil.position = (x + (EYE_AT[0] + EYE_LOOK) * r, y + EYE_AT[1] * r)
            if white.visible != sp.visible:
                white.visible = pupil.visible = sp.visible
        self.sphere_list.draw()

    def _crowd_discs(self, on: np.ndarray, frame, selected: int, sensors: bool) -> tuple[np.ndarray, np.ndarray]:
        """A crowd's discs, as sphere indices: the contact halos (the selected creature's, with
        the sensors on: a hundred creatures' would be noise) and the spheres that are drawn."""
        halos = np.zeros(0, np.int64)
        i = selected
        if sensors and i < min(len(self.shapes), len(frame.creatures)):
            lo, hi = self._sphere_offset[i], self._sphere_offset[i + 1]
            contact = np.asarray(frame.creatures[i].contact, bool).reshape(-1)
            if contact.size == hi - lo:
                halos = lo + np.flatnonzero(contact & on[lo:hi])
        return halos, np.flatnonzero(on)

    def place_labels(self, pos: np.ndarray, camera, frame, selected: int, sensors: bool) -> None:
        """Each creature's label above it (stacked when labels would overlap; in a crowd only
        the leaders'), and the ``selected`` creature's joint angles next to its joint spheres
        and its wings' pitch below their middles when the ``sensors`` are shown; in screen
        pixels through ``camera``."""
        if self.crowd:
            for k, (i, text) in enumerate(zip(self.label_owner, self._label_strings)):
                self._set_label(k, i, text)
            self.label_pool.finish(len(self.label_owner))
            self.labels = self.label_pool.items[:len(self.label_owner)]
        placed: list[tuple[float, float, float, float]] = []     # left, right, bottom, top
        order = []
        for t, i in zip(self.labels, self.label_owner):
            p = pos[self._sphere_offset[i]:self._sphere_offset[i + 1]]
            r = self._radius[self._sphere_offset[i]:self._sphere_offset[i + 1]]
            good = np.isfinite(p).all(axis=1) & self.spheres_on(i, len(p))
            if not good.any():
                t.visible = False
                continue
            top = float(np.max(p[good, 1] + r[good]))
            cx = float(0.5 * (p[good, 0].min() + p[good, 0].max()))
            order.append((top, cx, i, t))
        for top, cx, i, t in sorted(order, key=lambda o: o[:3]):    # lowest first; the others above
            if not t.visible:
                t.visible = True
            sx, sy = camera.world_to_screen(cx, top)
            half = 0.5 * t.content_width + 3
            lo, hi = float(sx) - half, float(sx) + half
            y = float(sy) + 8
            moved = True
            while moved:
                moved = False
                for l, r_, b, tp in placed:
                    if l < hi and lo < r_ and b < y + 13 and y < tp:
                        y = tp + 1
                        moved = True
            placed.append((lo, hi, y, y + 13))
            t.position = (round(float(sx)), round(y))
        n = 0
        if sensors and self.shapes:
            i = selected
            shape, cf = self.shapes[i], frame.creatures[i]
            js = np.asarray(shape.joint_sphere, np.int64).reshape(-1)
            angles = np.asarray(cf.joint_angle, np.float64).reshape(-1)
            joint_on = self._joint_on[i]
            for j, (s, a) in enumerate(zip(js, angles)):
                p = pos[self._sphere_offset[i] + s]
                if not (j < joint_on.size and joint_on[j]) or not np.all(np.isfinite(p)) or not math.isfinite(a):
                    continue
                sx, sy = camera.world_to_screen(p[0], p[1])
                off = self._radius[self._sphere_offset[i] + s] * camera.zoom + 3
                t = self.angle_labels.get(n)
                t.text = f"{math.degrees(a):.0f}\u00b0"
                t.position = (round(float(sx + off)), round(float(sy + off * 0.5)))
                n += 1
            # each wing's pitch: its chord's angle to the horizontal, from its second sphere to its
            # first (a wing listed leading edge first reads nose up as positive), at its middle
            mine = self._wing_owner == i
            for wa, wb in zip(self._wing_a[mine], self._wing_b[mine]):
                pa, pb = pos[wa], pos[wb]
                if not (np.all(np.isfinite(pa)) and np.all(np.isfinite(pb))):
                    continue
                sx, sy = camera.world_to_screen(0.5 * (pa[0] + pb[0]), 0.5 * (pa[1] + pb[1]))
                t = self.angle_labels.get(n)
                t.text = f"pitch {math.degrees(math.atan2(pa[1] - pb[1], pa[0] - pb[0])):.0f}\u00b0"
                t.position = (round(float(sx) + 6), round(float(sy) - 14))
                n += 1
        self.angle_labels.finish(n)
