"""Symmetric bodies driven symmetrically go nowhere, and a body moves alike whatever order its
design lists its items in.

A mirror-symmetric body whose muscles can only be driven as mirror images (here one muscle on its
axis) cannot travel under honest physics: whatever it does to the ground on one side it does on
the other. (A body that can tip over is no such test: driven hard, a box on two mirrored legs tips
onto one of them, as it would in the world, rounding picking the side, and is then no longer
symmetric.) A solver that sweeps a design's items in
listed order gave such a triangle 20 m in 20 s, and evolution found it within ten generations.
"""

from pathlib import Path

import numpy as np
import pytest

import physics
from creatures.design import load_design
from evolution.run import Run, RunSettings

HERE = Path(__file__).parent
TRIANGLE = HERE / "exploits" / "symmetric_triangle.yaml"
SECONDS = 20.0
STEPS = int(round(SECONDS / physics.SimParams().dt))


def reversed_body(body: physics.Body) -> physics.Body:
    """The same body with its spheres, bones, joints and clusters listed in reverse order."""
    from dataclasses import replace

    last = len(body.spheres) - 1
    flip = {i: last - i for i in range(len(body.spheres))}
    return replace(body, spheres=list(reversed(body.spheres)),
                   bones=[replace(b, a=flip[b.a], b=flip[b.b]) for b in reversed(body.bones)],
                   joints=[replace(j, a=flip[j.a], b=flip[j.b], c=flip[j.c]) for j in reversed(body.joints)],
                   clusters=[replace(c, spheres=[flip[s] for s in c.spheres]) for c in reversed(body.clusters)])


def symmetric_commands(muscles: int) -> np.ndarray:
    """(STEPS, 5, muscles): every muscle of a creature given the same command: flipped every
    step (chatter at the physics rate), bang-bang at 10 Hz and at 2 Hz, and two random ones
    drawn anew every step."""
    t = np.arange(STEPS)
    one = np.stack([np.where(t % 2 == 0, 1.0, -1.0),
                    np.where((t // 3) % 2 == 0, 1.0, -1.0),
                    np.sign(np.sin(2 * np.pi * 2.0 * t * physics.SimParams().dt) + 1e-12),
                    *np.random.default_rng(7).uniform(-1, 1, (2, STEPS))], axis=1)
    return np.ascontiguousarray(np.repeat(one[:, :, None], muscles, axis=2))


def travel(body: physics.Body, commands: np.ndarray, every: int) -> np.ndarray:
    """The centre of mass's x, every ``every`` steps, minus where it started: (frames, B)."""
    model = physics.build_model(body, commands.shape[1])
    state = physics.initial_state(model, physics.SimParams(), physics.standing_offsets(model, physics.Terrain.flat()))
    _, frames = physics.rollout(model, state, commands, every=every)
    x = (frames[..., 0] * model.mass[None]).sum(-1) / model.mass.sum(-1)[None]
    return x - x[0]


@pytest.mark.parametrize("order", ["as listed", "reversed"])
def test_the_symmetric_triangle_stays_where_it_stands(order):
    """Chatter, bang-bang and random commands on its one muscle: it flexes, it does not travel
    (20 s; a solver with an order bias glided it 20 m, one way or the other by listing order)."""
    body = load_design(TRIANGLE).body
    body = body if order == "as listed" else reversed_body(body)
    x = travel(body, symmetric_commands(1), every=60)
    assert np.abs(x).max() < 0.01, np.abs(x).max(axis=0)


def test_evolving_the_symmetric_triangle_gets_nowhere(tmp_path):
    """Evolution that rewards distance to the right, given a body that can only flex
    symmetrically: the best of 8 generations of 40 stays within centimetres of where it stood
    (with the order-biased solver the triangle ran 16 m by generation 10)."""
    d = load_design(TRIANGLE)
    settings = RunSettings(design_name=d.name, design_text=d.text, task="run", seconds=10.0,
                           generations=8, population=40, seed=3, workers=1)
    best = Run.create(tmp_path / "run", settings, d.body).evolve()
    assert best.fitness < 0.02


def test_order_of_listing_changes_no_systematic_travel():
    """The walker and its copy listed in reverse order (each muscle its own command), under 24
    random command sequences for 10 s: each pair ends apart by rounding only, which grows, so
    single pairs may differ; but the mean difference is within noise of zero (an order bias
    moved the listed copy three times as far as the reversed one)."""
    from creatures.bestiary import resolve_design

    body = resolve_design("walker").body
    B, T = 24, STEPS // 2
    rng = np.random.default_rng(11)
    held = rng.uniform(-1, 1, (T // 6 + 1, B, len([b for b in body.bones if b.muscle])))
    commands = np.ascontiguousarray(np.repeat(held, 6, axis=0)[:T])
    a = travel(body, commands, every=T)[-1]
    b = travel(reversed_body(body), np.ascontiguousarray(commands[..., ::-1]), every=T)[-1]
    diff = a - b
    assert abs(diff.mean()) < 3 * diff.std(ddof=1) / np.sqrt(B) + 0.01, (a, b)
