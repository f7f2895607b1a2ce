"""Bones as plates in a fluid (physics/model.py, physics/medium.py): the width the fluid sees
(``Model.bone_plate``: a design's ``width``, else the mean diameter of the bone's two spheres, a
wing's ``WING_WIDTH`` times its rest length), kept up to date by ``Model.with_values``, read by
the drag kernel (a broader plate falls slower, by the drag law's square root), and carried by a
body's dict."""

import numpy as np
import pytest

import physics
from physics import Body, Bone, Sphere

WATER = 1000.0


def _stick(r_a=0.05, r_b=0.08, length=0.6, width=None, wing=False, mass=1.0) -> Body:
    """Two spheres joined by one horizontal bone of ``length``."""
    return Body([Sphere((0.0, 0.5), radius=r_a, mass=mass), Sphere((length, 0.5), radius=r_b, mass=mass)],
                [Bone(0, 1, width=width, wing=wing)], name="stick")


def _three(widths=(None, None, None), wings=(False, False, False)) -> Body:
    """A triangle of three spheres of different radii, its bones of different lengths."""
    spheres = [Sphere((0.0, 0.5), radius=0.04), Sphere((0.5, 0.5), radius=0.06),
               Sphere((0.2, 0.9), radius=0.1)]
    ends = [(0, 1), (1, 2), (2, 0)]
    return Body(spheres, [Bone(a, b, width=w, wing=g) for (a, b), w, g in zip(ends, widths, wings)],
                name="triangle")


def _expected_plates(model) -> np.ndarray:
    """The plates as the docs say, written apart from the engine: (B, E)."""
    B, E = model.batch, model.n_bones
    out = np.empty((B, E))
    for b in range(B):
        for e in range(E):
            i, j = model.bone_a[e], model.bone_b[e]
            if model.bone_width[b, e] > 0:
                out[b, e] = model.bone_width[b, e]
            elif model.bone_wing[e]:
                rest = np.hypot(*(model.rest_pos[b, i] - model.rest_pos[b, j]))
                out[b, e] = physics.WING_WIDTH * rest
            else:
                out[b, e] = model.radius[b, i] + model.radius[b, j]
    return out


# --- the default plates ------------------------------------------------------------------------

def test_a_bone_is_by_default_a_plate_as_wide_as_the_mean_diameter_of_its_spheres():
    model = physics.build_model(_stick(0.05, 0.08), 3)
    assert model.bone_plate.shape == (3, 1) == model.bone_width.shape
    assert model.bone_wing.shape == (1,) and not model.bone_wing[0]
    assert np.all(model.bone_width == 0.0)
    assert np.all(model.bone_plate == 0.05 + 0.08)        # (2 r_a + 2 r_b) / 2


def test_a_wing_is_by_default_wing_width_times_its_rest_length():
    model = physics.build_model(_stick(length=0.8, wing=True), 2)
    assert model.bone_wing.tolist() == [True]
    assert 0 < physics.WING_WIDTH
    np.testing.assert_allclose(model.bone_plate, physics.WING_WIDTH * 0.8, rtol=1e-15)
    assert np.all(model.bone_plate != 0.05 + 0.08)


@pytest.mark.parametrize("wing", [False, True])
def test_an_explicit_width_wins_over_the_default(wing):
    model = physics.build_model(_stick(length=0.8, width=0.33, wing=wing), 2)
    assert np.all(model.bone_width == 0.33)
    assert np.all(model.bone_plate == 0.33)
    assert model.bone_wing.tolist() == [wing]


def test_each_bone_of_a_body_gets_its_own_plate():
    model = physics.build_model(_three(widths=(None, 0.2, None), wings=(False, False, True)), 2)
    np.testing.assert_array_equal(model.bone_plate[0], model.bone_plate[1])
    np.testing.assert_allclose(model.bone_plate, _expected_plates(model), rtol=1e-15)
    assert model.bone_plate[0, 0] == 0.04 + 0.06
    assert model.bone_plate[0, 1] == 0.2
    np.testing.assert_allclose(model.bone_plate[0, 2], physics.WING_WIDTH * np.hypot(0.2, 0.4), rtol=1e-15)


@pytest.mark.parametrize("width", [0.0, -0.1, float("nan"), float("inf")])
def test_build_model_refuses_a_width_that_is_not_positive_and_finite(width):
    with pytest.raises(ValueError, match="width must be positive"):
        physics.build_model(_stick(width=width), 1)


# --- with_values keeps the plates up to date ---------------------------------------------------

def test_new_radii_give_new_default_plates_per_creature():
    model = physics.build_model(_three(widths=(None, 0.2, None), wings=(False, False, True)), 3)
    radius = model.radius.copy()
    radius[1] = [0.05, 0.07, 0.09]
    radius[2, 0] = 0.01
    changed = model.with_values(radius=radius)
    np.testing.assert_allclose(changed.bone_plate, _expected_plates(changed), rtol=1e-15)
    assert changed.bone_plate[1, 0] == 0.05 + 0.07          # a default plate follows its spheres
    assert changed.bone_plate[2, 0] == 0.01 + 0.06
    assert np.all(changed.bone_plate[:, 1] == 0.2)           # an explicit width does not
    assert np.array_equal(changed.bone_plate[:, 2], model.bone_plate[:, 2])   # nor a wing's
    assert np.array_equal(changed.bone_plate[0], model.bone_plate[0])
    assert np.all(model.bone_plate[:, 0] == 0.04 + 0.06)     # the old model is unchanged


def test_new_rest_positions_give_a_wing_the_plate_of_its_new_length():
    model = physics.build_model(_three(wings=(True, False, False)), 2)
    pos = model.rest_pos.copy()
    pos[1, 1] = (1.0, 0.5)                                   # the first bone from 0.5 to 1 m long
    changed = model.with_values(rest_pos=pos)
    np.testing.assert_allclose(changed.bone_plate, _expected_plates(changed), rtol=1e-15)
    assert changed.bone_plate[1, 0] == pytest.approx(physics.WING_WIDTH * 1.0, rel=1e-15)
    assert changed.bone_plate[0, 0] == pytest.approx(physics.WING_WIDTH * 0.5, rel=1e-15)
    assert changed.bone_plate[1, 1] == 0.06 + 0.1            # the others are their spheres'


def test_bone_width_set_per_creature_sets_the_plate_and_zero_brings_the_default_back():
    model = physics.build_model(_three(widths=(None, 0.2, None)), 3)
    width = np.zeros((3, 3))
    width[0] = [0.5, 0.0, 0.0]          # creature 0: the first bone broad, the second back to default
    width[1] = [0.0, 0.3, 0.7]
    changed = model.with_values(bone_width=width)
    assert np.array_equal(changed.bone_width, width)
    np.testing.assert_allclose(changed.bone_plate, _expected_plates(changed), rtol=1e-15)
    assert changed.bone_plate[0].tolist() == [0.5, 0.06 + 0.1, 0.1 + 0.04]
    assert changed.bone_plate[1].tolist() == [0.04 + 0.06, 0.3, 0.7]
    assert changed.bone_plate[2].tolist() == [0.04 + 0.06, 0.06 + 0.1, 0.1 + 0.04]


def test_a_negative_bone_width_is_refused():
    model = physics.build_model(_stick(), 2)
    with pytest.raises(ValueError, match="bone_width must be >= 0"):
        model.with_values(bone_width=np.array([[0.2], [-0.1]]))


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_bone_width_that_is_not_finite_is_refused(bad):
    """A NaN would read as "the default" (NaN > 0 is false) and an infinite plate stop a bone
    dead: neither is a width."""
    model = physics.build_model(_stick(), 2)
    with pytest.raises(ValueError, match="bone_width"):
        model.with_values(bone_width=np.array([[0.2], [bad]]))


def test_bone_width_is_settable_and_other_values_leave_the_plates_alone():
    assert "bone_width" in physics.model.SETTABLE
    model = physics.build_model(_three(widths=(None, 0.2, None), wings=(False, False, True)), 2)
    changed = model.with_values(mass=model.mass * 2.0, bone_compliance=model.bone_compliance + 1e-4)
    assert np.array_equal(changed.bone_plate, model.bone_plate)


# --- the kernel reads the plate ----------------------------------------------------------------

def _fall(body, params, steps=240):
    model = physics.build_model(body, 1)
    state = physics.initial_state(model, params)
    for _ in range(steps):
        state = physics.step(model, state, None, params)
    return model, state


#: still water with no drag on the spheres: only the plate brakes a fall
PLATE_ONLY = physics.SimParams(ground=False, fluid_density=WATER, fluid_drag_sphere=0.0)


def _plate(width, length=1.0, radius=0.02, mass=1.0):
    """A horizontal plate of ``length`` between two equal spheres."""
    return Body([Sphere((-length / 2, 0.0), radius=radius, mass=mass),
                 Sphere((length / 2, 0.0), radius=radius, mass=mass)],
                [Bone(0, 1, width=width)], name="plate")


def _terminal(width, length=1.0, radius=0.02, mass=1.0, params=PLATE_ONLY) -> float:
    """Weight less buoyancy against the normal drag of the plate: 2 (m - rho V) g =
    1/2 rho C_n (L w) v^2."""
    rho = params.fluid_density
    weight = 2.0 * (mass - rho * 4.0 / 3.0 * np.pi * radius ** 3) * params.gravity
    return float(np.sqrt(2.0 * weight / (rho * params.fluid_drag_normal * length * width)))


def test_a_broader_plate_falls_slower_by_the_square_root_of_its_width():
    widths = (0.05, 0.2, 0.8)
    speeds = []
    for w in widths:
        _, state = _fall(_plate(w), PLATE_ONLY)
        v = -state.vel[0, :, 1]
        assert abs(state.pos[0, 0, 1] - state.pos[0, 1, 1]) < 1e-9    # it falls flat
        assert v[0] == pytest.approx(v[1], rel=1e-9)
        speeds.append(v.mean())
        assert v.mean() == pytest.approx(_terminal(w), rel=0.01), w
    # four times as wide: half as fast
    assert speeds[0] / speeds[1] == pytest.approx(2.0, rel=0.01)
    assert speeds[1] / speeds[2] == pytest.approx(2.0, rel=0.01)


def test_the_default_plate_is_the_mean_diameter_in_the_kernel_too():
    """A bone with no width steps bit for bit as one whose width is its spheres' mean
    diameter, and differently from a broader one."""
    _, default = _fall(_plate(None, radius=0.03), PLATE_ONLY, 120)
    _, same = _fall(_plate(0.06, radius=0.03), PLATE_ONLY, 120)
    _, broad = _fall(_plate(0.3, radius=0.03), PLATE_ONLY, 120)
    assert np.array_equal(default.pos, same.pos) and np.array_equal(default.vel, same.vel)
    assert -broad.vel[0, 0, 1] < -default.vel[0, 0, 1]


def test_a_wing_falls_as_a_plate_of_wing_width_times_its_length():
    length = 1.0
    wing = Body(_plate(None, length).spheres, [Bone(0, 1, wing=True)], name="wing")
    _, a = _fall(wing, PLATE_ONLY, 120)
    _, b = _fall(_plate(physics.WING_WIDTH * length, length), PLATE_ONLY, 120)
    assert np.array_equal(a.pos, b.pos) and np.array_equal(a.vel, b.vel)
    assert -a.vel[0, 0, 1] == pytest.approx(_terminal(physics.WING_WIDTH * length, length), rel=0.02)


def test_the_kernel_reads_the_plate_with_values_set():
    """Widths set per creature by with_values: creature b falls as a body built with that width."""
    widths = (0.05, 0.4)
    model = physics.build_model(_plate(None), 2).with_values(bone_width=np.array([[widths[0]], [widths[1]]]))
    state = physics.initial_state(model, PLATE_ONLY)
    for _ in range(120):
        state = physics.step(model, state, None, PLATE_ONLY)
    for b, w in enumerate(widths):
        _, alone = _fall(_plate(w), PLATE_ONLY, 120)
        assert np.array_equal(state.pos[b], alone.pos[0]) and np.array_equal(state.vel[b], alone.vel[0])


def test_without_a_fluid_the_width_changes_nothing():
    params = physics.SimParams()
    _, narrow = _fall(_stick(width=0.01), params, 120)
    _, broad = _fall(_stick(width=5.0, wing=True), params, 120)
    assert np.array_equal(narrow.pos, broad.pos) and np.array_equal(narrow.vel, broad.vel)


# --- a body's dict -----------------------------------------------------------------------------

def test_a_body_with_widths_and_wings_survives_its_dict():
    body = _three(widths=(None, 0.25, 0.4), wings=(True, False, True))
    data = body.to_dict()
    assert [("width" in b, "wing" in b) for b in data["bones"]] == [(False, True), (True, False), (True, True)]
    assert data["bones"][1]["width"] == 0.25 and data["bones"][2]["wing"] is True
    again = Body.from_dict(data)
    assert again == body
    assert [(b.width, b.wing) for b in again.bones] == [(None, True), (0.25, False), (0.4, True)]
    assert np.array_equal(physics.build_model(again, 1).bone_plate, physics.build_model(body, 1).bone_plate)


def test_a_body_without_widths_or_wings_writes_neither():
    body = _three()
    data = body.to_dict()
    for bone in data["bones"]:
        assert "width" not in bone and "wing" not in bone
    assert Body.from_dict(data) == body
    # and a body's dict from before plates reads as one without them
    for name in ("walker", "chain"):
        data = getattr(physics.examples, name)().to_dict()
        assert all("width" not in b and "wing" not in b for b in data["bones"])
        assert all(b.width is None and b.wing is False for b in Body.from_dict(data).bones)
