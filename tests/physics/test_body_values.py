"""Creatures with bodies of their own in one batch (``Model.with_values``: rest positions,
values and parts switched off): everything derived follows, parts switched off do nothing,
momentum is still conserved and a creature still does not depend on its batch mates."""

import numpy as np
import pytest

import physics
from physics_helpers import BODIES, FREE_SPACE, bang_bang, momentum, run, varied_model

STEPS = 120


def test_rest_positions_set_per_creature_give_the_rest_lengths_and_angles_of_that_body():
    """A model whose rest positions are set per creature has the rest lengths, muscle rest
    lengths, joint rest angles and cluster rest shapes of a model built from the moved body."""
    body = BODIES["cluster walker"]()
    base = physics.build_model(body, 2)
    rng = np.random.default_rng(3)
    pos = base.rest_pos + rng.uniform(-0.03, 0.03, base.rest_pos.shape)
    model = base.with_values(rest_pos=pos)
    for b in range(2):
        moved = physics.Body(**{**body.__dict__, "spheres": [
            physics.Sphere(**{**s.__dict__, "pos": tuple(pos[b, i])}) for i, s in enumerate(body.spheres)]})
        ref = physics.build_model(moved, 1)
        for name in ("bone_rest", "muscle_rest", "joint_rest", "cluster_rest"):
            np.testing.assert_allclose(getattr(model, name)[b], getattr(ref, name)[0], rtol=1e-12, atol=1e-14,
                                       err_msg=name)


def test_a_part_switched_off_is_masked_and_comes_back_with_its_values():
    base = physics.build_model(physics.examples.walker(), 3)
    foot = 5  # the left foot: bones 7 (a muscle) and 9 (a muscle) end there
    sphere_on = np.ones((3, 8), dtype=bool)
    sphere_on[1, foot] = False
    bone_on = np.ones((3, 14), dtype=bool)
    bone_on[2, 0] = False
    model = base.with_values(radius=0.07, sphere_on=sphere_on, bone_on=bone_on)
    assert model.mass[1, foot] == 0 and model.inv_mass[1, foot] == 0 and model.radius[1, foot] == 0
    gone = (model.bone_a == foot) | (model.bone_b == foot)
    assert gone.sum() == 2 and not model.bone_on[1, gone].any() and model.bone_on[1, ~gone].all()
    assert np.all(model.bone_max_force[1, gone] == 0) and model.bone_max_force[2, 0] == 0
    assert model.bone_soft[gone].all() and model.bone_soft[0]  # solved softly: the force limit masks them
    back = model.with_values(sphere_on=True, bone_on=True)
    for name in ("mass", "inv_mass", "bone_max_force", "bone_on", "sphere_on"):
        np.testing.assert_array_equal(getattr(back, name), getattr(base, name), err_msg=name)
    np.testing.assert_array_equal(back.radius, np.full_like(base.radius, 0.07))


def test_a_creature_with_a_sphere_switched_off_moves_as_the_body_without_it():
    """A walker whose foot is switched off (with its bones) and the walker built without that
    foot, driven alike: the same motion of the other spheres (to round-off: the masked one's
    zero terms change no sum, but the bone order differs)."""
    body = physics.examples.walker()
    foot = 5
    keep = [i for i in range(8) if i != foot]
    smaller = physics.Body(
        spheres=[body.spheres[i] for i in keep],
        bones=[physics.Bone(keep.index(b.a), keep.index(b.b), b.rest, b.compliance, b.muscle)
               for b in body.bones if foot not in (b.a, b.b)], name="smaller")
    masked = physics.build_model(body, 1).with_values(sphere_on=[[i != foot for i in range(8)]])
    muscles = [m for m, e in enumerate(masked.muscle_bone)
               if foot not in (body.bones[e].a, body.bones[e].b)]
    cmd = bang_bang(np.random.default_rng(2), STEPS, 1, masked.n_muscles)
    a = run(masked, physics.initial_state(masked, physics.SimParams()), cmd, physics.SimParams())
    small = physics.build_model(smaller, 1)
    b = run(small, physics.initial_state(small, physics.SimParams()), cmd[:, :, muscles], physics.SimParams())
    np.testing.assert_allclose(a.pos[0, keep], b.pos[0], atol=1e-6)
    np.testing.assert_array_equal(a.pos[0, foot], masked.rest_pos[0, foot])  # it stayed put


@pytest.mark.parametrize("name", list(BODIES))
def test_varied_and_masked_bodies_keep_momentum(name):
    """Creatures of varied, partly switched-off bodies flexing at random in free space from
    rest keep zero momentum to round-off, as whole bodies do (test_momentum.py)."""
    rng = np.random.default_rng(5)
    model = varied_model(BODIES[name](), 8, rng)
    state = physics.initial_state(model, FREE_SPACE)
    worst, scale = 0.0, 0.0
    for cmd in bang_bang(rng, STEPS, 8, model.n_muscles, hold=2):
        state = physics.step(model, state, cmd, FREE_SPACE)
        worst = max(worst, np.abs(momentum(model, state)).max())
        scale = max(scale, np.einsum("bp,bp->b", model.mass, np.linalg.norm(state.vel, axis=-1)).max())
        assert np.isfinite(state.pos).all()
    assert scale > 0.05, "the creatures did not move"
    assert worst <= 1e-9 * scale, f"momentum {worst:.3e} kg m/s against {scale:.3f}"


@pytest.mark.parametrize("name", ["walker", "cluster walker", "chain"])
def test_a_varied_creature_does_not_depend_on_its_batch_mates(name, numba_threads):
    """Creature 37 of 60 varied, partly masked bodies on hills and the same creature alone
    (its values and masks, B = 1; the solver's soft/rigid split made from the batch's topology):
    bit-identical states after 2 s, on one thread and on two."""
    import numba
    rng = np.random.default_rng(9)
    body = BODIES[name]()
    body.self_collision = True
    model = varied_model(body, 60, rng)
    idx = 37
    keys = ("rest_pos", "radius", "mass", "friction", "kinetic_friction", "bone_compliance", "muscle_range",
            "muscle_speed", "joint_min", "joint_max", "sphere_on", "bone_on", "joint_on")
    raw = model.unmasked
    one = {k: (raw[k] if k in raw else getattr(model, k))[idx:idx + 1] for k in keys}
    one["muscle_strength"] = model.muscle_strength[idx:idx + 1]
    one["joint_stiffness"] = np.where(raw["joint_spring"], 1.0 / np.where(raw["joint_spring"],
                                      raw["joint_compliance"], 1.0), 0.0)[idx:idx + 1]
    base1 = physics.build_model(body, 1)
    base1 = physics.Model(**{**base1.__getstate__(), "bone_soft": model.bone_soft})
    alone_model = base1.with_values(**one)
    for name_ in ("mass", "inv_mass", "radius", "bone_rest", "bone_max_force", "muscle_strength", "bone_on", "joint_rest",
                  "cluster_rest"):
        np.testing.assert_array_equal(getattr(alone_model, name_)[0], getattr(model, name_)[idx], err_msg=name_)
    params = physics.SimParams()
    terrain = physics.Terrain.hills(seed=3)
    cmds = bang_bang(np.random.default_rng(1), 120, 60, model.n_muscles)
    for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
        numba_threads(threads)
        off = physics.standing_offsets(model, terrain)
        shared = run(model, physics.initial_state(model, params, offset=off), cmds, params, terrain)
        alone = run(alone_model, physics.initial_state(alone_model, params, offset=off[idx:idx + 1]),
                    cmds[:, idx:idx + 1], params, terrain)
        assert np.array_equal(shared.pos[idx], alone.pos[0]) and np.array_equal(shared.vel[idx], alone.vel[0])
