"""A graph's model (``physics.build_model(body, graph=True)``): bodies of one graph that differ
in which bones are muscles share a batch, each stepped the same, bit for bit, whatever shares
it; its rods hold; and it moves as the body's own model does (not to the bit: the rows' order and
the rods' legs differ)."""

import copy

import numpy as np
import pytest

import physics
from creatures.design.bestiary import resolve_design
from creatures.design.random_design import random_design
from creatures.simulation import random_commands
from physics.model import Muscle

STEPS = 600


def _body(name):
    return resolve_design(name).body if not name.startswith("random") else random_design(11, int(name[6:]))[0].body


def _toggled(body, e):
    """The body with bone ``e`` a muscle if it was a rod, a rod if it was a muscle."""
    other = copy.deepcopy(body)
    bone = other.bones[e]
    bone.muscle = Muscle() if bone.muscle is None else None
    return other


def _weak(body):
    """The body with every muscle too weak to move it: at its strength in every substep (the
    clamp and the rods' correction after it, in its lanes alone)."""
    other = copy.deepcopy(body)
    for bone in other.bones:
        if bone.muscle is not None:
            bone.muscle.strength = 0.5
    return other


def _run(models, seed=0):
    model = physics.stack_models(models)
    params, flat = physics.SimParams(), physics.Terrain.flat()
    state = physics.initial_state(model, params, offset=physics.standing_offset(model, flat))
    commands = np.repeat(random_commands(np.random.default_rng(seed), STEPS, 1, model.n_muscles, 12), model.batch, axis=1)
    return model, physics.rollout(model, state, commands, params, flat, parallel=False)


@pytest.mark.parametrize("name", ["walker", "random4", "random12"])
def test_a_graphs_creature_is_stepped_the_same_whatever_muscles_its_batch_has(name):
    body = _body(name)
    rods = [e for e, b in enumerate(body.bones) if b.muscle is None and b.compliance == 0 and not b.optional]
    muscles = [e for e, b in enumerate(body.bones) if b.muscle is not None]
    a = physics.build_model(body, 1, graph=True)
    others = [physics.build_model(_toggled(body, rods[0]), 1, graph=True),
              physics.build_model(_toggled(body, muscles[0]), 1, graph=True),
              physics.build_model(_weak(body), 1, graph=True)]
    assert all(np.array_equal(o.muscle_bone, a.muscle_bone) for o in others)
    assert not all(np.array_equal(o.muscle_on, a.muscle_on) for o in others)
    _, alone = _run([a])
    for batch in ([a, others[0]], [others[1], a, others[0], a, a], [a] * 3 + others * 3, [others[2], a]):
        _, end = _run(batch)
        for i, m in enumerate(batch):
            if m is a:
                assert np.array_equal(end.pos[i], alone.pos[0]) and np.array_equal(end.vel[i], alone.vel[0])


@pytest.mark.parametrize("name", ["walker", "random12"])
def test_a_graphs_rods_hold_and_it_moves_as_the_bodys_own_model(name):
    body = _body(name)
    graph, end = _run([physics.build_model(body, 1, graph=True)])
    assert np.all(np.isfinite(end.pos))
    p = end.pos[0]
    length = np.hypot(*(p[graph.bone_a] - p[graph.bone_b]).T)
    rods = graph.muscle_bone[~graph.muscle_on[0]]
    assert np.max(np.abs(length[rods] / graph.bone_rest[0, rods] - 1.0)) < 1e-3
    # the body's own model, driven by the same commands (its muscles the graph's muscles that are on)
    own = physics.build_model(body, 1)
    params, flat = physics.SimParams(), physics.Terrain.flat()
    state = physics.initial_state(own, params, offset=physics.standing_offset(own, flat))
    commands = random_commands(np.random.default_rng(0), STEPS, 1, graph.n_muscles, 12)[:, :, graph.muscle_on[0]]
    theirs = physics.rollout(own, state, np.ascontiguousarray(commands), params, flat, parallel=False)
    assert abs(p[:, 0].mean() - theirs.pos[0, :, 0].mean()) < 0.01


def test_a_graphs_model_and_a_topologys_are_not_stacked():
    body = _body("walker")
    with pytest.raises(ValueError, match="graph"):
        physics.stack_models([physics.build_model(body, 1, graph=True), physics.build_model(body, 1)])
