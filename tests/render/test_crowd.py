"""A whole generation at once (``scene.crowd``): species colours, the leaders labelled, the HUD
ranking them; and the viewer's :meth:`~render.viewer.Viewer.set_source` and ``extra_keys``."""

import gc
from dataclasses import replace

import arcade
import numpy as np
from render_helpers import PhysicsSource, ball, near, pixel, screen_pixels

import physics
from render.hud import MAX_HUD_CREATURES
from render.scene import Brain, BrainNode, CreatureFrame, CreatureShape, Frame, Scene
from render.theme import CROWD_ALPHA, GHOST_ALPHA, SKY, creature_colors, label_color, scene_colors
from render.viewer import KEYS, Viewer

K = arcade.key
DT = 1.0 / 60.0
#: six species' colours, far apart from the sky and from each other
SPECIES = ((220, 40, 40), (30, 160, 60), (40, 70, 220), (230, 150, 0), (150, 40, 190), (0, 170, 170))


class CrowdSource:
    """``n`` walker-like creatures (the reference walker's 8 spheres, 14 bones, 6 muscles) in
    the colours of ``species`` species, gliding right at their own speeds with a wobble, so the
    ranking changes as they go. No physics: stepping is a few numpy operations, so a benchmark
    times the viewer, not the source.

    Creature ``b``'s fitness is its x travel, ``speed_b t + wobble_b sin(2 pi t + phase_b)``;
    the ones in ``failed`` fail after ``fail_at`` seconds (their fitness stays, high: they must
    still rank last)."""

    def __init__(self, n: int = 150, species: int = 6, failed=(), fail_at: float = 0.1,
                 duration: float | None = 20.0, crowd: bool = True, title: str = "generation 12",
                 seed: int = 0):
        model = physics.build_model(physics.examples.walker(), batch=1)
        state = physics.initial_state(model, physics.SimParams(dt=DT))
        dx, dy = physics.standing_offset(model, physics.Terrain.flat())
        self.rest = state.pos[0] + np.array([dx, dy])
        rng = np.random.default_rng(seed)
        self.n = n
        self.speed = rng.uniform(-0.2, 1.2, n)
        self.speed[list(failed)] = 5.0                  # the fastest of all, and failed
        self.wobble = rng.uniform(0.05, 0.4, n)
        self.phase = rng.uniform(0.0, 2.0 * np.pi, n)
        self.failed = np.zeros(n, bool)
        self.failed[list(failed)] = True
        self.fail_at = fail_at
        self.species = np.arange(n) % species
        self.max_steps = None if duration is None else int(round(duration / DT))
        rigid = model.bone_compliance[0] == 0.0
        rigid[model.muscle_bone] = False
        shapes = [CreatureShape(radius=model.radius[0].copy(), bone_a=model.bone_a.copy(),
                                bone_b=model.bone_b.copy(), muscle_bone=model.muscle_bone.copy(),
                                rigid=rigid, joint_sphere=np.array([4, 6]),
                                label=f"s{self.species[b]} walker {b}",
                                info={"design": "walker", "task": "run", "generation": 12},
                                color=SPECIES[self.species[b] % len(SPECIES)])
                  for b in range(n)]
        xs = np.array([-5.0, 40.0])
        self.scene = Scene(terrain_x=xs, terrain_y=np.zeros(2), creatures=shapes, dt=DT,
                           duration=duration, title=title, fitness_label="metres to the right",
                           crowd=crowd)
        self.message = None
        self.steps = 0
        self.recorded = None if duration is None else self.fitness(self.max_steps * DT)

    def fitness(self, t: float) -> np.ndarray:
        return self.speed * t + self.wobble * np.sin(2.0 * np.pi * t + self.phase) - self.wobble * np.sin(self.phase)

    def reset(self) -> None:
        self.steps = 0

    def step(self) -> None:
        if self.max_steps is None or self.steps < self.max_steps:
            self.steps += 1

    def frame(self) -> Frame:
        t = self.steps * DT
        fit = self.fitness(t)
        pos = np.repeat(self.rest[None], self.n, axis=0)
        pos[:, :, 0] += fit[:, None]
        pos[:, :, 1] += 0.05 * np.sin(4.0 * np.pi * t + self.phase)[:, None]
        contraction = np.sin(2.0 * np.pi * t + self.phase[:, None] + np.arange(6)[None, :])
        contact = pos[:, :, 1] - self.rest[None, :, 1] < 0.0
        failed = self.failed & (t >= self.fail_at)
        angles = np.stack([np.sin(t + self.phase), np.cos(t + self.phase)], axis=1)
        creatures = [CreatureFrame(pos=pos[b], contraction=contraction[b], contact=contact[b],
                                   joint_angle=angles[b], fitness=float(fit[b]),
                                   recorded=None if self.recorded is None else float(self.recorded[b]),
                                   failed=bool(failed[b]))
                     for b in range(self.n)]
        ranked = np.where(failed, -np.inf, fit)
        done = self.max_steps is not None and self.steps >= self.max_steps
        return Frame(time=t, step=self.steps, creatures=creatures, leader=int(np.argmax(ranked)),
                     done=done)

    def brain(self, creature: int) -> Brain:
        nodes = [BrainNode(-1, "input", "clock"), BrainNode(-2, "input", f"species {self.species[creature]}")]
        nodes += [BrainNode(k, "output", f"muscle {k}") for k in range(6)]
        return Brain(nodes, [(-1, k, 0.5 - 0.2 * k) for k in range(6)] + [(-2, 0, 1.0)])

    def brain_values(self, creature: int) -> dict:
        t = self.steps * DT
        return {-1: float(np.sin(t)), -2: 1.0, **{k: float(np.sin(t + k)) for k in range(6)}}

    def poll(self) -> bool:
        return False


def make_viewer(window, source, **options):
    options = {"interpolate": False, "poll_interval": None, "close_on_quit": False, **options}
    return Viewer(source, window=window, **options)


def play(viewer, seconds: float) -> None:
    for _ in range(int(round(seconds * 60))):
        viewer.on_update(1 / 60)


def blend(rgb, alpha: int) -> np.ndarray:
    """``rgb`` drawn at ``alpha`` over the sky."""
    a = alpha / 255.0
    return a * np.asarray(rgb, float) + (1.0 - a) * np.asarray(SKY, float)


# colours ------------------------------------------------------------------------------------------
def test_crowd_colours_come_from_the_shapes_translucent(window):
    source = CrowdSource(n=150)
    viewer = make_viewer(window, source)
    assert viewer.crowd
    assert [c[:3] for c in viewer.colors] == [SPECIES[s] for s in source.species]
    assert {c[3] for c in viewer.colors} == {CROWD_ALPHA}
    assert CROWD_ALPHA < 150                            # fainter than a race's ghosts
    assert np.all(viewer.bodies.bone_rgba[:, 3] < 255)  # the bones too


def test_a_shape_without_a_colour_gets_a_hue():
    shapes = list(CrowdSource(n=3).scene.creatures)
    shapes[1] = replace(shapes[1], color=None)
    hue = creature_colors(3)[1][:3]
    assert scene_colors(shapes, crowd=True) == [SPECIES[0] + (CROWD_ALPHA,), hue + (CROWD_ALPHA,),
                                                SPECIES[2] + (CROWD_ALPHA,)]
    assert scene_colors(shapes)[0] == SPECIES[0] + (GHOST_ALPHA,)      # a race
    assert scene_colors(shapes[:1]) == [SPECIES[0] + (255,)]           # alone: opaque


def test_a_race_draws_each_creature_in_its_own_colour(window):
    source = PhysicsSource(n=3, body=ball(0.12), spacing=0.6, duration=None)
    colors = SPECIES[:3]
    source.scene = replace(source.scene, creatures=[replace(s, color=c)
                                                     for s, c in zip(source.scene.creatures, colors)])
    viewer = make_viewer(window, source, follow=False, camera=(0.6, 0.5), zoom=90)
    assert [c[:3] for c in viewer.colors] == list(colors)
    viewer.on_draw()
    px = screen_pixels(window)
    for b, cf in enumerate(viewer.frame.creatures):
        sx, sy = viewer.world_to_screen(*cf.pos[0])
        assert near(pixel(px, sx, sy), blend(colors[b], viewer.colors[b][3]), tol=3)


def test_a_snapshot_of_a_crowd_shows_every_species_colour(window):
    from render import Snapshot

    source = CrowdSource(n=12)
    source.speed = 2.0 * np.arange(12)                  # 2 m apart after a second: no overlaps
    source.wobble[:] = 0.0
    source.steps = 60
    with Snapshot(source, size=(960, 540), zoom=40, follow=False, camera=(11.0, 2.0)) as snap:
        rgb = snap.take().astype(int)

    def count(color):
        ghost = blend(color, CROWD_ALPHA)                # a sphere over the sky
        return int(np.sum(np.all(np.abs(rgb - ghost) <= 3, axis=2)))
    for color in SPECIES:
        assert count(color) > 30, (color, count(color))
    assert count((255, 0, 255)) == 0                     # a colour no species has


def test_crowd_spheres_are_discs_in_the_bones_batch(window):
    source = CrowdSource(n=150)
    viewer = make_viewer(window, source)
    viewer.on_draw()
    assert viewer.bodies.sprites == [] and len(viewer.bodies.sphere_list) == 0
    assert viewer.bodies.bones.count == 150 * (14 + 8)
    viewer.on_key_press(K.S, 0)                          # the selected creature's contacts
    viewer.on_draw()
    contacts = int(np.sum(source.frame().creatures[0].contact))
    assert contacts > 0 and viewer.bodies.bones.count == 150 * (14 + 8) + contacts


# labels and ranking -------------------------------------------------------------------------------
def test_only_the_three_best_are_labelled(window):
    source = CrowdSource(n=150)
    viewer = make_viewer(window, source)
    play(viewer, 1.0)
    viewer.on_draw()
    fit = np.array([cf.fitness for cf in viewer.frame.creatures])
    best = list(np.argsort(-fit)[:3])
    assert viewer.bodies.label_owner == best
    assert viewer.frame.leader == best[0]               # the camera's creature is the best
    texts = [t.text for t in viewer.bodies.labels]
    assert texts == [f"#{r + 1} {source.scene.creatures[i].label}" for r, i in enumerate(best)]
    assert all(t.visible for t in viewer.bodies.labels)
    pool = viewer.bodies.label_pool.items
    assert sum(t.visible for t in pool) == 3


def test_the_hud_ranks_the_crowd_by_fitness_so_far(window):
    source = CrowdSource(n=150)
    viewer = make_viewer(window, source)
    seen = set()
    for _ in range(4):
        play(viewer, 0.5)
        viewer.on_draw()
        fit = np.array([cf.fitness for cf in viewer.frame.creatures])
        order = list(np.argsort(-fit, kind="stable"))
        assert list(viewer.ranking) == order
        rows = viewer.hud_lines[2:2 + MAX_HUD_CREATURES]
        for r, (line, i) in enumerate(zip(rows, order)):
            assert line.startswith(f"{r + 1}. {source.scene.creatures[i].label}   {fit[i]:.4f} / ")
        assert viewer.hud_lines[2 + MAX_HUD_CREATURES] == f"... and {150 - MAX_HUD_CREATURES} more"
        seen.add(tuple(order[:MAX_HUD_CREATURES]))
    assert len(seen) > 1                                # the ranking changed as they went


def test_between_rankings_the_hud_shows_the_numbers_it_ranked_by(window):
    source = CrowdSource(n=150)
    viewer = make_viewer(window, source)
    play(viewer, 0.5)
    for _ in range(3):
        play(viewer, 0.15)                               # between two rankings
        viewer.on_draw()
        shown = [float(line.split("   ")[1].split(" / ")[0])
                 for line in viewer.hud_lines[2:2 + MAX_HUD_CREATURES]]
        assert shown == sorted(shown, reverse=True)      # the order and the numbers agree


def test_failed_creatures_rank_last_and_are_not_labelled(window):
    source = CrowdSource(n=6, failed=(1, 4))            # the fastest two, and failed
    viewer = make_viewer(window, source)
    play(viewer, 0.5)
    viewer.on_draw()
    assert set(viewer.ranking[-2:].tolist()) == {1, 4}
    rows = viewer.hud_lines[2:8]
    assert [("FAILED" in line) for line in rows] == [False] * 4 + [True] * 2
    assert not {1, 4} & set(viewer.bodies.label_owner) and len(viewer.bodies.label_owner) == 3


def test_the_hud_texts_catch_up_with_the_ranking(window):
    source = CrowdSource(n=150)
    viewer = make_viewer(window, source, text_budget=4)
    play(viewer, 1.0)
    viewer.on_key_press(K.SPACE, 0)                     # paused: the ranking holds still
    for _ in range(40):                                 # a few relayouts a frame, taking turns
        viewer.on_draw()
    names = [t.text for t in viewer.hud.names.items[:viewer.hud.names.used]]
    assert names == [row[0] for row in viewer.hud.rows]
    nows = [t.text for t in viewer.hud.nows.items[:viewer.hud.nows.used]]
    assert nows == [row[1] for row in viewer.hud.rows]
    colors = [tuple(t.color) for t in viewer.hud.names.items[:viewer.hud.names.used]]
    assert colors == [label_color(viewer.colors[row[3]]) for row in viewer.hud.rows]   # species'


def test_tab_selects_any_creature_for_the_panels_and_labels_it(window):
    source = CrowdSource(n=150)
    viewer = make_viewer(window, source, show_brain=True)
    play(viewer, 1.0)
    far = int(viewer.ranking[100])
    for _ in range(far):
        viewer.on_key_press(K.TAB, 0)
    assert viewer.selected == far
    viewer.on_draw()
    assert viewer.brain_panel.title.text == f"brain: {source.scene.creatures[far].label}"
    assert viewer.bodies.label_owner[:3] == list(viewer.ranking[:3]) and viewer.bodies.label_owner[3] == far
    assert viewer.bodies.labels[3].text == f"> #101 {source.scene.creatures[far].label}"
    # drawn opaque among the ghosts: its spheres (the discs after the bones) and its bones
    discs = viewer.bodies.bones.data[150 * 14:150 * 22]
    alpha = discs["color"][:, 3].reshape(150, 8)
    assert np.all(alpha[far] == 255) and np.all(np.delete(alpha, far, axis=0) == CROWD_ALPHA)
    bones = viewer.bodies.bones.data[:150 * 14]["color"][:, 3].reshape(150, 14)
    assert np.all(bones[far] == 255) and np.all(np.delete(bones, far, axis=0) < 255)
    viewer.on_key_press(K.N, 0)                          # the panel closed: a ghost again, unlabelled
    viewer.on_draw()
    assert far not in viewer.bodies.label_owner
    assert np.all(viewer.bodies.bones.data[150 * 14:150 * 22]["color"][:, 3] == CROWD_ALPHA)


# set_source and extra keys ------------------------------------------------------------------------
def _live_texts() -> int:
    """The arcade.Text objects alive. By ``type``: ``isinstance`` asks an object its
    ``__class__``, which a weak proxy to a dead object (another test's, in this worker) answers
    with ReferenceError (seen once in a fresh-clone CI run)."""
    gc.collect()
    return sum(issubclass(type(o), arcade.Text) for o in gc.get_objects())


def _live_buffers(window) -> int:
    gc.collect()
    window.ctx.gc()
    created, freed = window.ctx.stats.buffer
    return created - freed


def test_set_source_switches_scenes_without_new_texts_or_buffers(window):
    crowd, single = CrowdSource(n=150), PhysicsSource(duration=None, title="one walker")
    viewer = make_viewer(window, crowd, speed=2.0, show_brain=True)
    viewer.on_key_press(K.F, 0)                         # a free camera
    viewer.on_key_press(K.SPACE, 0)

    def cycle():
        viewer.set_source(single)
        play(viewer, 0.1)
        viewer.on_draw()
        assert viewer.hud_lines[0] == "one walker" and not viewer.crowd
        assert len(viewer.bodies.sprites) == 8 and [t.text for t in viewer.bodies.labels] == ["walker 0"]
        viewer.set_source(crowd)
        play(viewer, 0.1)
        viewer.on_draw()
        assert viewer.hud_lines[0] == "generation 12" and viewer.crowd and viewer.bodies.sprites == []

    for _ in range(2):      # the pools grow to what the scenes need (4 crowd labels at most)
        cycle()
    texts, buffers = _live_texts(), _live_buffers(window)
    for _ in range(3):
        cycle()
    assert _live_texts() <= texts
    assert _live_buffers(window) <= buffers
    assert not viewer.paused and not viewer.follow and viewer.speed == 2.0 and viewer.show_brain


def test_set_source_follows_the_new_leader(window):
    viewer = make_viewer(window, PhysicsSource(duration=None))
    crowd = CrowdSource(n=150)
    crowd.steps = 240
    viewer.set_source(crowd)
    leader = crowd.frame().creatures[crowd.frame().leader].pos
    assert abs(viewer.camera_position[0] - 0.5 * (leader[:, 0].min() + leader[:, 0].max())) < 1e-6


def test_extra_keys_are_listed_after_the_viewers_own(window):
    extra = (("G", "grow the crowd"),
             ("CTRL + SHIFT + PAGE DOWN", "back to the start screen, keeping the run going in the background"))
    viewer = make_viewer(window, PhysicsSource(duration=None), extra_keys=extra, show_help=True)
    assert viewer.keys == KEYS + extra
    texts = [t.text for t in viewer.help.texts[1:]]
    assert texts[-4:] == [extra[0][0], extra[0][1], extra[1][0], extra[1][1]]
    viewer.on_draw()
    left, bottom, width, height = viewer.help.rect
    assert width > 500
    for key, what in zip(viewer.help.texts[1::2], viewer.help.texts[2::2]):
        assert key.x - key.content_width >= left + 8           # right-aligned keys, inside
        assert what.x + what.content_width <= left + width - 8
        assert bottom < what.y <= bottom + height
