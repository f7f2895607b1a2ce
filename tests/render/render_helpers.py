"""A :class:`render.scene.Source` built from the physics package alone, for the render tests.

:class:`PhysicsSource` plays ``n`` copies of a body (by default the reference walker with free
joints at its knees, so that the sensor overlay has joint angles to write) driven by sines of
different phases, on a terrain, with a tiny fake brain. Its recorded fitness is what a first run
of the same episode measured, so the HUD's two numbers must meet at the end, as they do for a
real champion. ``message``, ``pending`` (a scene handed over at the next :meth:`poll`) and the
counters let tests drive what the viewer sees.
"""

from __future__ import annotations

import numpy as np

import physics
from physics import Joint
from render.scene import Brain, BrainNode, CreatureFrame, CreatureShape, Frame, Scene

DT = 1.0 / 60.0


def ball(radius: float = 0.1) -> physics.Body:
    """One sphere, no bones: a creature that is a single disc on the screen."""
    return physics.Body([physics.Sphere((0.0, radius), radius=radius)], name="ball")


def jointed_walker() -> physics.Body:
    """The reference walker plus a free (unlimited, springless) joint at each knee: the joints
    only measure, so the walker moves exactly as :func:`physics.examples.walker` does."""
    body = physics.examples.walker()
    body.joints = [Joint(c=4, a=0, b=5, kind="free"), Joint(c=6, a=1, b=7, kind="free")]
    return body


class PhysicsSource:
    """``n`` racing bodies (ghosts: no collisions between them) for ``duration`` seconds.

    Fitness is the centre of mass's x travel (m); creature ``b``'s muscles follow
    ``sin(2 pi f t + phase_b + k)`` for muscle ``k``.
    """

    def __init__(self, n: int = 1, duration: float | None = 2.0, body: physics.Body | None = None,
                 terrain: physics.Terrain | None = None, freq: float = 1.2, title: str = "test race",
                 brain: bool = True, spacing: float = 0.0):
        self.body = body or jointed_walker()
        self.n = n
        self.terrain = terrain or physics.Terrain.flat()
        self.params = physics.SimParams(dt=DT)
        self.model = physics.build_model(self.body, batch=n)
        self.freq = freq
        self.phase = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)[:, None]
        self.has_brain = brain
        self.spacing = spacing      # creature b starts b * spacing metres to the right
        self.message = None
        self.pending = None          # a PhysicsSource whose scene the next poll() switches to
        self.polls = 0
        self.steps_called = 0
        self.resets = 0
        self.max_steps = None if duration is None else int(round(duration / DT))
        self.scene = self._make_scene(duration, title)
        self.recorded = None
        if self.max_steps is not None:       # a first run gives the recorded fitness
            self.reset()
            while not self.frame().done:
                self.step()
            self.recorded = self._fitness().copy()
        self.reset()
        self.steps_called = 0
        self.resets = 0

    # what the viewer reads -------------------------------------------------------------------
    def _make_scene(self, duration, title) -> Scene:
        m = self.model
        shapes = []
        for b in range(self.n):
            shapes.append(CreatureShape(
                radius=m.radius[b].copy(), bone_a=m.bone_a.copy(), bone_b=m.bone_b.copy(),
                muscle_bone=m.muscle_bone.copy(), rigid=m.bone_compliance[b] == 0.0,
                joint_sphere=m.joint_c.copy(), label=f"{self.body.name} {b}",
                info={"generation": 10 + b, "design": self.body.name, "task": "run"}))
        return Scene(terrain_x=self.terrain.xs.copy(), terrain_y=self.terrain.ys.copy(),
                     creatures=shapes, dt=DT, duration=duration, title=title,
                     fitness_label="metres to the right")

    def reset(self) -> None:
        self.resets += 1
        dx, dy = physics.standing_offset(self.model, self.terrain)
        offset = np.array([[dx + b * self.spacing, dy] for b in range(self.n)])
        self.state = physics.initial_state(self.model, self.params, offset=offset)
        self.start_x = physics.centre_of_mass(self.model, self.state)[:, 0].copy()
        self.steps = 0

    def commands(self) -> np.ndarray:
        t = self.steps * DT
        k = np.arange(self.model.n_muscles)[None, :]
        return np.sin(2.0 * np.pi * self.freq * t + self.phase + k)

    def step(self) -> None:
        self.steps_called += 1
        if self.max_steps is not None and self.steps >= self.max_steps:
            return
        self.state = physics.step(self.model, self.state, self.commands(), self.params, self.terrain)
        self.steps += 1

    def _fitness(self) -> np.ndarray:
        return physics.centre_of_mass(self.model, self.state)[:, 0] - self.start_x

    def frame(self) -> Frame:
        m, s = self.model, self.state
        contraction = np.clip((physics.muscle_lengths(m, s) - 1.0) / m.muscle_range, -1.0, 1.0)
        angles = physics.joint_angles(m, s)
        fit = self._fitness()
        creatures = [CreatureFrame(pos=s.pos[b].copy(), contraction=contraction[b],
                                   contact=s.contact[b].copy(), joint_angle=angles[b],
                                   fitness=float(fit[b]),
                                   recorded=None if self.recorded is None else float(self.recorded[b]))
                     for b in range(self.n)]
        done = self.max_steps is not None and self.steps >= self.max_steps
        return Frame(time=self.steps * DT, step=self.steps, creatures=creatures,
                     leader=int(np.argmax(fit)), done=done)

    def brain(self, creature: int) -> Brain | None:
        if not self.has_brain:
            return None
        M = self.model.n_muscles
        nodes = [BrainNode(-1, "input", "clock sin"), BrainNode(-2, "input", "clock cos"),
                 BrainNode(-3, "input", "hind foot"), BrainNode(-4, "input", "fore foot"),
                 BrainNode(100, "hidden", "", 1), BrainNode(101, "hidden", "", 2)]
        nodes += [BrainNode(k, "output", f"muscle {k}") for k in range(M)]
        edges = [(-1, 100, 1.5), (-2, 100, -0.7), (-3, 101, 0.4), (100, 101, -2.0)]
        edges += [(100 if k % 2 else 101, k, 0.5 + 0.25 * k * (-1) ** k) for k in range(M)]
        edges += [(-4, 0, -3.0)]
        return Brain(nodes, edges)

    def brain_values(self, creature: int) -> dict:
        t = self.steps * DT
        s = np.sin(2.0 * np.pi * self.freq * t)
        c = np.cos(2.0 * np.pi * self.freq * t)
        contact = self.state.contact[creature]
        values = {-1: s, -2: c, -3: float(contact[5]), -4: float(contact[7]),
                  100: np.tanh(1.5 * s - 0.7 * c), 101: np.tanh(-2.0 * s)}
        values.update({k: float(v) for k, v in enumerate(self.commands()[creature])})
        return values

    def poll(self) -> bool:
        self.polls += 1
        if self.pending is None:
            return False
        other, self.pending = self.pending, None
        keep = (self.polls, self.message)
        self.__dict__.update(other.__dict__)
        self.polls, self.message = keep
        return True


# pixels -------------------------------------------------------------------------------------------
def screen_pixels(window) -> np.ndarray:
    """The window's framebuffer as an (H, W, 3) array indexed ``[y, x]`` from the bottom left,
    like screen coordinates."""
    w, h = window.get_framebuffer_size()
    return np.frombuffer(window.ctx.screen.read(components=3), dtype=np.uint8).reshape(h, w, 3)


def pixel(pixels: np.ndarray, sx, sy) -> np.ndarray:
    """The pixel that covers screen point ``(sx, sy)``, as ints."""
    return pixels[int(np.floor(sy)), int(np.floor(sx))].astype(int)


def near(color, expected, tol: int = 3) -> bool:
    return bool(np.all(np.abs(np.asarray(color, int)[:3] - np.asarray(expected, int)[:3]) <= tol))
