"""The viewer's HUD (:class:`Hud`): top left, the title, a table of the creatures (name, fitness
now, recorded fitness), then time and speed; the status (PAUSED, DONE) at the top centre; the
"H: help" hint in the bottom left corner. A crowd is ranked in it, best first."""

from __future__ import annotations

from fractions import Fraction

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402
import pyglet  # noqa: E402

from ._gl import Triangles, rects  # noqa: E402
from .layout import place  # noqa: E402
from .text import FONT  # noqa: E402
from .textpool import TextPool  # noqa: E402
from .theme import HUD_BACK, TEXT, label_color  # noqa: E402

__all__ = ["Hud", "speed_text", "MAX_HUD_CREATURES", "CROWD_RERANK_STEPS"]

MAX_HUD_CREATURES = 12               # creature lines in the HUD before "... and N more"
#: a crowd is ranked again every this many steps (half a second at 60 Hz) and when it ends: the
#: HUD's names and their numbers then change all at once, so the table never shows a ranking its
#: numbers disagree with
CROWD_RERANK_STEPS = 30


def speed_text(speed: float) -> str:
    """``1/4x``, ``1x``, ``16x``."""
    f = Fraction(speed).limit_denominator(64)
    return f"{f.numerator}x" if f.denominator == 1 else f"{f.numerator}/{f.denominator}x"


class Hud:
    """The HUD's strings (:meth:`update`, for each frame) and texts (:meth:`draw`).

    Parameters
    ----------
    ctx : arcade.ArcadeContext
        The window's context (the HUD's box is drawn in it).
    text_budget : int or None
        At most this many numbers are laid out again per frame (they take turns); None: all.

    Attributes
    ----------
    lines : list of str
        The HUD's text, line by line, as drawn.
    fitness : list of (str, str)
        Per creature, the fitness so far and the recorded fitness as the HUD writes them.
    ranking : ndarray of int
        The creatures in the HUD's order: in a crowd best first by fitness so far (failed ones,
        then ones with no fitness, last), otherwise as the scene lists them.
    rows : list of (str, str, str, int)
        The creature rows shown: name, fitness now, recorded fitness, creature.
    names, nows, recs : TextPool
        The texts of the rows' three columns.
    columns : list of arcade.Text
        The columns' headers (``now``, ``recorded``).
    rect : (float, float, float, float) or None
        Where the last frame drew the HUD's box.
    text_budget : int or None
        As the parameter.
    """

    def __init__(self, ctx, text_budget=4):
        self.text_budget = text_budget
        self._text_turn = 0
        self.lines: list[str] = []
        self.fitness: list[tuple[str, str]] = []
        self.ranking = np.zeros(0, np.int64)
        self.rows: list[tuple[str, str, str, int]] = []
        self.rect = None
        self._recorded = True      # whether the HUD has a "recorded" column
        self._name_width = 0       # a crowd's HUD: the widest name so far (the columns stay put)
        self._ranked_at = None     # the step a crowd was last ranked at
        self._ranked_fitness = []  # a crowd's fitness texts at that step
        self._crowd = self._race = False
        self._box = Triangles(ctx)
        self._batch = pyglet.graphics.Batch()
        hud = dict(color=TEXT, font_size=11, font_name=FONT, anchor_y="top", batch=self._batch)
        self._title_text = arcade.Text("", 0, 0, bold=True, **{**hud, "font_size": 13})
        self._header_text = arcade.Text("", 0, 0, **{**hud, "font_size": 10})
        self._medium_text = arcade.Text("", 0, 0, **{**hud, "font_size": 10})
        self._more_text = arcade.Text("", 0, 0, **hud)
        self.columns = [arcade.Text(name, 0, 0, anchor_x="right", **{**hud, "font_size": 9})
                        for name in ("now", "recorded")]
        self._time_text = arcade.Text("", 0, 0, **hud)
        hud.pop("batch")
        self.names = TextPool(self._batch, **hud)
        self.nows = TextPool(self._batch, anchor_x="right", **hud)
        self.recs = TextPool(self._batch, anchor_x="right", **hud)
        self._status_text = arcade.Text("", 0, 0, (190, 30, 30, 255), 22, font_name=FONT, bold=True,
                                        anchor_x="center", anchor_y="top", batch=self._batch)
        self._hint_text = arcade.Text("H: help", 8, 6, (22, 26, 34, 200), 9, font_name=FONT,
                                      batch=self._batch)

    def forget(self) -> None:
        """A new scene: a crowd's names start narrow, and it is ranked again at once."""
        self._name_width = 0
        self._ranked_at = None

    def update(self, scene, frame, *, medium: str, ground: bool, crowd: bool, selected: int,
               speed: float, height: int, reserved) -> None:
        """The HUD's strings for ``frame`` of ``scene`` (drawn by :meth:`draw`), in a view
        ``height`` pixels high, clear of the ``reserved`` boxes under it."""
        fmt = (lambda v: "-" if v is None else f"{v:.4f}")
        self._crowd = crowd
        self._race = len(scene.creatures) > 1 or crowd
        self._title = scene.title or "creatures"
        label = (scene.fitness_label or "").strip()
        self._header = "fitness" if label in ("", "fitness") else f"fitness: {label}"   # not "fitness: fitness"
        lines = [self._title, self._header]
        medium = medium if medium.lower() not in ("none", "") else ""
        where = [f"medium: {medium}"] if medium else []
        if not ground:
            where.append("no ground")
        self._medium = ", ".join(where)
        if self._medium:
            lines.append(self._medium)
        n = min(len(scene.creatures), len(frame.creatures))
        self.fitness = [(fmt(cf.fitness), fmt(cf.recorded)) for cf in frame.creatures[:n]]
        # a design's preview has nothing recorded: no "recorded" column then
        self._recorded = any(cf.recorded is not None for cf in frame.creatures)
        if not crowd:
            self.ranking = np.arange(n)
        elif (self._ranked_at is None or self.ranking.size != n or frame.done or frame.step < self._ranked_at
              or frame.step - self._ranked_at >= CROWD_RERANK_STEPS):
            self.ranking = self.rank(frame.creatures[:n])
            self._ranked_at = frame.step
            self._ranked_fitness = self.fitness
        if crowd and len(self._ranked_fitness) == n:
            # a crowd's numbers are those it was ranked by, and change with its ranking: a table
            # whose order and numbers disagree (8. 1.29, 9. 1.40) reads as a wrong ranking
            self.fitness = self._ranked_fitness
        rows = []
        rows_max = self.room(n, bool(self._medium), height, reserved)
        for r, i in enumerate(self.ranking[:rows_max].tolist()):
            shape, cf = scene.creatures[i], frame.creatures[i]
            fit, rec = self.fitness[i]
            label = shape.label or f"creature {i}"
            if crowd:      # one generation: its number is in the title, the rank here
                label = f"{r + 1}. {label}"
            else:
                info = shape.info if isinstance(shape.info, dict) else {}
                gen = info.get("generation")
                if gen is not None and f"gen {gen}" not in label:
                    label += f"  gen {gen}"
                if isinstance(info.get("fresh"), (int, float)):
                    label += f"  (fresh starts {info['fresh']:.2f})"
            if i == selected and len(scene.creatures) > 1:
                label = "> " + label
            if cf.failed:
                label += "  FAILED"
            rows.append((label, fit, rec, i))
            lines.append(f"{label}   {fit} / {rec}" if self._recorded else f"{label}   {fit}")
        more = len(scene.creatures) - rows_max
        self._more = f"... and {more} more" if more > 0 else ""
        if self._more:
            lines.append(self._more)
        t = f"t {frame.time:.2f}" + (f" / {scene.duration:.2f} s" if scene.duration else " s")
        self._time = f"{t}   speed {speed_text(speed)}   step {frame.step}"
        lines.append(self._time)
        self.rows = rows
        self.lines = lines

    def room(self, n: int, medium: bool, height: int, reserved) -> int:
        """Creature rows in the HUD: :data:`MAX_HUD_CREATURES` at most, fewer (at least one) when
        a box of ``reserved`` under it leaves less room (a game screen's chart)."""
        h = height
        right = (self.rect or (0, 0, 320, 0))[2] + 4
        floor = max([b + bh for l, b, w, bh in reserved if l < right and b + bh < h - 60] + [0])
        fixed = 8 + 19 + 14 + (14 if medium else 0) + 14 + 15 + 8 + (15 if n > 1 else 0)
        return int(max(1, min(MAX_HUD_CREATURES, (h - floor - 8 - fixed) // 15)))

    @staticmethod
    def rank(creatures) -> np.ndarray:
        """Creature indices best first: by fitness so far, the failed ones last (then the ones
        with no fitness), ties in the scene's order."""
        fit = np.array([np.nan if cf.fitness is None else cf.fitness for cf in creatures], np.float64)
        fit = np.where(np.isfinite(fit), fit, -np.inf)
        failed = np.array([bool(cf.failed) for cf in creatures], bool)
        return np.lexsort((np.arange(fit.size), -fit, failed))

    def draw(self, size, colors, status: str, reserved, hint: bool) -> dict:
        """Top left: the title, then a table of the creatures (name, fitness now, recorded
        fitness: separate texts, so that a step only lays out the numbers again), then time and
        speed; the ``status`` (PAUSED, DONE) at the top centre. A crowd's ranking changes as they
        go: it is ranked again every :data:`CROWD_RERANK_STEPS` steps, its names then all laid
        out at once, and its name column only widens (the numbers do not jump left and right
        as the leaders change). Returns where the HUD and the status were drawn (``hud``,
        ``status``: None when there is none)."""
        w, h = size
        race = self._race
        names, nows, recs = self.names, self.nows, self.recs
        width = 0
        numbers = []               # (text, new string): laid out again within the budget below
        for k, (name, _, _, i) in enumerate(self.rows):
            t = names.get(k)
            col = label_color(colors[i]) if race else TEXT
            if t.text != name:     # a crowd's names change only when it is ranked again
                t.text = name
            if tuple(t.color) != tuple(col):
                t.color = col
            width = max(width, t.content_width)
        names.finish(len(self.rows))
        if self._crowd:
            width = self._name_width = max(self._name_width, width)
        x_now = 12 + width + 14 + 62
        recorded = self._recorded
        x_rec = x_now + 14 + 62 if recorded else x_now
        y = h - 8
        self._title_text.text = self._title
        self._title_text.position = (12, y)
        y -= 19
        self._header_text.text = self._header
        self._header_text.position = (12, y)
        y -= 14
        self._medium_text.text = self._medium
        if self._medium:
            self._medium_text.position = (12, y)
            y -= 14
        self.columns[0].position = (x_now, y)
        self.columns[1].position = (x_rec, y)
        self.columns[1].text = "recorded" if recorded else ""
        y -= 14
        for k, (_, fit, rec, _) in enumerate(self.rows):
            names.items[k].position = (12, y)
            a = nows.get(k)
            numbers.append((a, fit))
            a.position = (x_now, y)
            if recorded:
                b = recs.get(k)
                numbers.append((b, rec))
                b.position = (x_rec, y)
            y -= 15
        nows.finish(len(self.rows))
        recs.finish(len(self.rows) if recorded else 0)
        self._more_text.text = self._more
        if self._more:
            self._more_text.position = (12, y)
            y -= 15
        numbers.append((self._time_text, self._time))
        self._time_text.position = (12, y)
        y -= 15
        self._relayout(numbers)
        right = max(x_rec + 4, 12 + self._title_text.content_width,
                    12 + self._header_text.content_width, 12 + self._time_text.content_width,
                    12 + self._medium_text.content_width)
        box = self._box
        hud = (4, y - 4, right + 4, h - 4 - (y - 4))
        box.set(rects([hud], HUD_BACK))
        box.draw()
        st = self._status_text
        st.text = status
        st.color = (30, 130, 50, 255) if status == "DONE" else (190, 30, 30, 255)
        # the status at the top centre, or beside (else under) the HUD when a long title is there
        size = (st.content_width + 8, 30) if status else (0, 0)
        spot = place(size, (0, 0, w, h), [hud] + reserved, want=(w / 2, h - 20), gap=4) if status else None
        spot = spot or (w / 2 - size[0] / 2, h - 40, *size)
        if (st.x, st.y) != (round(spot[0] + spot[2] / 2), round(spot[1] + spot[3] - 10)):
            st.position = (round(spot[0] + spot[2] / 2), round(spot[1] + spot[3] - 10))
        self.rect = hud
        self._hint_text.visible = hint
        self._batch.draw()
        return {"hud": hud, "status": spot if status else None}

    def _relayout(self, updates) -> None:
        """Set the texts whose string changed, at most :attr:`text_budget` of them per frame,
        taking turns. Laying a text out again is what the HUD costs (~0.15 ms each on a software
        renderer, every frame for every racing creature); the ones left over wait a frame or two."""
        changed = [(t, s) for t, s in updates if t.text != s]
        budget = self.text_budget
        if budget is not None and len(changed) > budget:
            start = self._text_turn % len(changed)
            changed = (changed[start:] + changed[:start])[:budget]
            self._text_turn += budget
        for t, s in changed:
            t.text = s
