"""Swimming in a fluid (physics/medium.py): Purcell's scallop theorem, and an undulating eel.

Issue 15's bar: "with only linear (viscous) drag, a creature that opens and closes one hinge
reciprocally (same path forward and back) ends each cycle where it started (net displacement
under 0.5 % of its length per cycle over 50 cycles); with quadratic drag and a fast-close/
slow-open stroke it moves. An undulating eel (a travelling wave along its muscles) swims forward
in both regimes."

Everything here floats in still water with no gravity and no ground, so the fluid is the only
thing outside a creature that can move it. Two regimes:

- **viscous** (:func:`viscous_water`): linear drag only, ``-k A v``, across a bone twice what it
  is along it (slender-body resistive force theory has C_n ~ 2 C_t), and on the spheres. With
  the creature's inertia negligible (see the numbers at the scallop), this is Stokes flow: the
  drag is linear in the velocities with coefficients that depend on the shape only, so a stroke
  moves the body by an amount fixed by the path of shapes alone, whatever the rate: a path run
  forward and back undoes itself (Purcell 1977, "Life at low Reynolds number").
- **quadratic** (:func:`water`): the default pressure drag, ``-1/2 rho C A |v| v``. Without
  inertia it would be rate-independent too (homogeneous of degree 2 in the velocities), but here
  the momentum a fast stroke gives the body is of the order of what the water takes from it, so
  a fast stroke carries the body further than a slow one undoes.
"""

import functools

import numpy as np
import pytest

import physics
from physics import Body, Bone, Muscle, Sphere

WATER = 1000.0
#: still water, and nothing else outside the creature
STILL = dict(gravity=0.0, ground=False, fluid_density=WATER)

# Every run here takes one substep per step, and short steps. In engine 1 a muscle's length was
# driven once per step and a strong muscle made the whole of a step's change in its first
# substep: with several substeps its motion came in jerks, and quadratic drag, growing with the
# square of the speed, made of them what smooth motion would not (the fast-close scallop below
# went -0.69, -0.29, +0.01, -0.18 and +0.13 of its length per cycle at 10, 20, 30, 40 and 80
# substeps of a 1/60 s step; -0.45 at one substep of 1/600, 1/1200 and 1/2400 s alike). Muscles
# now move within the step (physics/bones.py, rest_of_substep); the short steps stay, for the
# viscous regime's lag (below).


def viscous_water(k: float, dt: float) -> physics.SimParams:
    """Linear drag only: ``k`` across a bone plate, ``k / 2`` along it and on a sphere's
    cross-section (kg/(m^2 s)); every quadratic coefficient 0. Steps of ``dt``."""
    return physics.SimParams(**STILL, dt=dt, fluid_drag_sphere=0.0, fluid_drag_normal=0.0,
                             fluid_drag_tangent=0.0, fluid_viscous_normal=k, fluid_viscous_tangent=k / 2,
                             fluid_viscous_sphere=k / 2)


def water(dt: float) -> physics.SimParams:
    """The default quadratic drag (a sphere 0.47; a plate's normal force 2.0 sin a of the whole
    speed's dynamic pressure across it, skin friction 0.01 along it), no
    linear part. Steps of ``dt``."""
    return physics.SimParams(**STILL, dt=dt)


def centre_of_mass(model, frames) -> np.ndarray:
    """The centre of mass of each creature in each frame of ``rollout(..., every=...)``'s
    positions (F, B, P, 2): shape (F, B, 2)."""
    m = model.mass[None, :, :, None]
    return (m * frames).sum(2) / m.sum(2)


def rigid_strain(model, frames) -> float:
    """The worst relative length error of any rigid bone in any frame."""
    rigid = physics.rigid_bones(model)[0]
    a, b = model.bone_a[rigid], model.bone_b[rigid]
    length = np.linalg.norm(frames[:, :, a] - frames[:, :, b], axis=-1)
    return float(np.abs(length / model.bone_rest[0, rigid] - 1.0).max())


# the scallop ----------------------------------------------------------------------------------
#: arm length (m): the scallop's length, against which its displacements are measured
ARM = 0.5
SCALLOP_RADIUS = 0.08
#: the scallop's mass per sphere (kg): as dense as the water
SCALLOP_MASS = WATER * 4.0 / 3.0 * np.pi * SCALLOP_RADIUS ** 3
#: a stroke's period (s), the step (s) of the scallop's runs, and the cycles the theorem is
#: checked over
PERIOD = 4.0
SCALLOP_DT = 1.0 / 2400.0
CYCLES = 50
#: the fraction of the period spent closing: a symmetric stroke, and fast-close/slow-open (9x)
SYMMETRIC, FAST_CLOSE = 0.5, 0.1
#: the issue's bar: net displacement per cycle under 0.5 % of the scallop's length
BAR = 0.005


def scallop() -> Body:
    """Two rigid 0.5 m arms hinged at a sphere at the origin, opening toward +x (30 degrees
    either side at rest), and a muscle between their tips that sets the opening: command -1
    closes it to 2 x 14.5 degrees, +1 opens it to 2 x 48.6 (range 0.5 of the 0.5 m rest).
    Strong and fast enough to follow every command used here; mirror-symmetric about the x axis,
    so it can only move along x. (The muscle is a plate in the water too, as every bone is.)"""
    c, s = np.cos(np.radians(30.0)), np.sin(np.radians(30.0))
    spheres = [Sphere(p, radius=SCALLOP_RADIUS, mass=SCALLOP_MASS)
               for p in ((0.0, 0.0), (ARM * c, ARM * s), (ARM * c, -ARM * s))]
    bones = [Bone(0, 1), Bone(0, 2), Bone(1, 2, muscle=Muscle(range=0.5, strength=1e4, speed=20.0))]
    return Body(spheres, bones, name="scallop")


def scallop_strokes(close_fractions, steps: int, cycles: int, ramp: int) -> np.ndarray:
    """Commands (T, B, 1), creature b stroking with ``close_fractions[b]`` of each cycle
    closing: ``ramp`` steps from 0 to fully open (+1), then per cycle a straight ramp of the
    command to -1 (closed) and back to +1 (open), ``steps`` steps in all. The muscle follows the
    command, so the shape runs the same path back and forth: only the rates differ."""
    columns = []
    for fraction in close_fractions:
        shut = int(round(fraction * steps))
        cycle = np.concatenate([np.linspace(1.0, -1.0, shut + 1)[1:],
                                np.linspace(-1.0, 1.0, steps - shut + 1)[1:]])
        columns.append(np.concatenate([np.linspace(0.0, 1.0, ramp + 1)[1:], np.tile(cycle, cycles)]))
    return np.stack(columns, axis=1)[:, :, None]


#: centre-of-mass samples per cycle
SAMPLES = 80


@functools.lru_cache(maxsize=None)
def swim_scallops(params: physics.SimParams, cycles: int):
    """The scallop stroking symmetrically (creature 0) and fast-close/slow-open (creature 1)
    for ``cycles`` cycles in ``params``' fluid, after half a second opening. Returns the centre
    of mass :data:`SAMPLES` times a cycle from the first cycle's start (cycles * SAMPLES + 1,
    2, 2), and the rigid bones' worst strain in them."""
    model = physics.build_model(scallop(), 2)
    steps = int(round(PERIOD / params.dt))
    ramp = int(round(0.5 / params.dt))
    cmds = scallop_strokes((SYMMETRIC, FAST_CLOSE), steps, cycles, ramp)
    state = physics.rollout(model, physics.initial_state(model, params), cmds[:ramp], params)
    _, frames = physics.rollout(model, state, cmds[ramp:], params, every=steps // SAMPLES)
    assert np.isfinite(frames).all()
    return centre_of_mass(model, frames), rigid_strain(model, frames)


#: Viscous water for the scallop. Its regime, in two numbers (:func:`viscous_regime`, asserted
#: with the theorem):
#:
#: - the Reynolds-like number tau / t: tau = m / (drag per unit velocity), the time the water
#:   takes to stop a tip sphere (the slowest way: sliding along its arm, 0.007 s), over the
#:   fastest stroke, the 0.4 s close: 0.018. Stokes flow is its limit 0; the theorem's residue
#:   grows with it, about as 1.2-1.4 % of the length per cycle times tau / t (the fast close
#:   measured 0.026 % here; in engine 1 0.021 % here, 0.08 % at k = 3000, tau / t = 0.06, 0.25 % at k = 1000, tau / t =
#:   0.18, and 0.73 % at k = 300, tau / t = 0.6, failing the bar);
#: - the drag's share of a step, b = h / tau_n = k A h / m = 0.08: the medium applies the drag
#:   before the bones and muscles move the spheres, so the drag acts on their motion a step
#:   late, a lag that is small only for small b (at b = 0.3, steps of 1/600 s, the scallop's
#:   swing within a cycle was 3.6 % of its length, 30 % short of its converged 5.1 %).
VISCOUS_K = 10000.0


def viscous_regime(params: physics.SimParams) -> tuple[float, float]:
    """The scallop's tau / t and b in ``params`` (see :data:`VISCOUS_K`)."""
    half_plate = 0.5 * ARM * 2 * SCALLOP_RADIUS      # each end of an arm feels half its plate
    slowest = (params.fluid_viscous_tangent * half_plate
               + params.fluid_viscous_sphere * np.pi * SCALLOP_RADIUS ** 2)
    tau = SCALLOP_MASS / slowest
    h = params.dt / params.substeps
    return tau / (FAST_CLOSE * PERIOD), params.fluid_viscous_normal * half_plate * h / SCALLOP_MASS


@pytest.mark.parametrize("creature, stroke", [pytest.param(0, "symmetric", id="symmetric"),
                                              pytest.param(1, "fast-close/slow-open", id="fast-close")])
def test_scallop_theorem_with_linear_drag_a_reciprocal_stroke_goes_nowhere(creature, stroke):
    """Purcell's scallop theorem: in viscous water a one-hinge creature that opens and closes
    along the same path ends each cycle where it began, whatever the rates of its strokes
    (symmetric, or closing 9x faster than it opens: in Stokes flow velocity and displacement
    scale together, so a stroke's displacement does not depend on its speed). Measured at the
    same phase (fully open) of each of 50 cycles: the net displacement per cycle, and every
    single cycle's, under 0.5 % of its length (measured 0.009 % symmetric, 0.026 %
    fast-close: the residue is the inertia tau / t above). The bar is not met by standing
    still: within each cycle the water swings the scallop back and forth by about 5 % of its
    length (measured 5.4 %), and it comes back."""
    params = viscous_water(VISCOUS_K, SCALLOP_DT)
    reynolds, b = viscous_regime(params)
    assert reynolds < 0.02 and b < 0.1         # inertia negligible, the drag resolved
    com, strain = swim_scallops(params, CYCLES)
    path = com[:, creature]
    starts = path[::SAMPLES]
    assert starts.shape[0] == CYCLES + 1
    per_cycle = np.linalg.norm(starts[-1] - starts[0]) / CYCLES
    worst = np.linalg.norm(np.diff(starts, axis=0), axis=1).max()
    swing = np.ptp(path[:SAMPLES + 1, 0])
    print(f"{stroke}: {per_cycle / ARM:.4%} of its length per cycle (worst cycle {worst / ARM:.4%}), "
          f"swing within a cycle {swing / ARM:.2%}")
    assert per_cycle < BAR * ARM
    assert worst < BAR * ARM
    assert swing > 0.03 * ARM                  # the water moved it, and it came back
    assert strain < 0.01


def test_with_quadratic_drag_a_fast_close_slow_open_stroke_swims_hinge_first():
    """The same scallop making the same strokes in water with quadratic drag moves: closing 9x
    faster than it opens, it goes 0.30 of its length per cycle (measured over 10 cycles;
    asserted beyond 0.2, 40x the theorem's bar, in every cycle). It goes hinge first (-x, away
    from the side its opening faces): closing, the arms sweep toward each other broadside and
    the water pushes them back, toward the hinge (in viscous water too the close moves it 5 %
    of its length hinge first, and the opening brings it back). The fast close gives the body
    momentum that way and it coasts on, for quadratic drag stops a slow body only slowly, while
    the slow opening undoes little of it. The rate is what does it: the symmetric stroke (which
    drifts too, for inertia is not negligible here: measured 0.06 of its length per cycle) goes
    less than a third as far."""
    com, strain = swim_scallops(water(SCALLOP_DT), 10)
    starts = com[::SAMPLES]
    step = np.diff(starts, axis=0)          # (cycles, creature, xy)
    fast, symmetric = step[:, 1], step[:, 0]
    print(f"quadratic drag: fast-close {fast[:, 0].mean() / ARM:+.3f}, "
          f"symmetric {symmetric[:, 0].mean() / ARM:+.3f} lengths per cycle")
    assert np.all(fast[:, 0] < -0.2 * ARM)                # hinge first, every cycle
    assert np.all(np.abs(fast[:, 1]) < 0.1 * np.abs(fast[:, 0]))   # along its axis
    assert abs(fast[:, 0].mean()) > 3 * abs(symmetric[:, 0].mean())
    assert strain < 0.01


# the eel --------------------------------------------------------------------------------------
SEGMENTS = 8
SEGMENT = 0.2
#: the eel's length (m): its spine
EEL = SEGMENTS * SEGMENT
WAVE_FREQUENCY = 1.0     # Hz
EEL_CYCLES = 10
SETTLE = 2               # cycles left out of the measurement: the start of the wave


def eel() -> Body:
    """A 1.6 m eel of 8 rigid segments along -x from its head at the origin. Segment i is its
    spine bone (spheres i and i + 1) with a rib sphere 5 cm above and one below its middle,
    each braced to both spine spheres, so that it is a rigid pair of triangles; neighbouring
    segments share a spine sphere, a pin about which they turn. Between neighbours a muscle
    joins the upper ribs and one the lower ribs: shortening one and lengthening the other bends
    the body there (range 0.15 of a 0.2 m rest: about 0.6 rad at full command). All spheres are
    as dense as the water, the ribs smaller than the spine."""
    w, r_spine, r_rib = 0.05, 0.03, 0.02
    spheres = [Sphere((-i * SEGMENT, 0.0), radius=r_spine, mass=WATER * 4 / 3 * np.pi * r_spine ** 3)
               for i in range(SEGMENTS + 1)]
    bones = [Bone(i, i + 1) for i in range(SEGMENTS)]
    upper, lower = [], []
    for i in range(SEGMENTS):
        for side, ribs in ((w, upper), (-w, lower)):
            ribs.append(len(spheres))
            spheres.append(Sphere((-(i + 0.5) * SEGMENT, side), radius=r_rib,
                                  mass=WATER * 4 / 3 * np.pi * r_rib ** 3))
            bones += [Bone(ribs[-1], i), Bone(ribs[-1], i + 1)]
    for ribs in (upper, lower):
        bones += [Bone(ribs[i], ribs[i + 1], muscle=Muscle(range=0.15, strength=200.0, speed=5.0))
                  for i in range(SEGMENTS - 1)]
    return Body(spheres, bones, name="eel")


def travelling_wave(steps: int, dt: float, toward_tail: bool) -> np.ndarray:
    """Commands (T, M) of a wave one body long: the upper muscle at joint k (k = 1 head to 7
    tail) follows ``sin(2 pi (f t -+ k / 7))``, the lower one its negative; with the minus sign
    the phase reaches joint k + 1 after joint k, so the wave travels toward the tail."""
    t = np.arange(1, steps + 1)[:, None] * dt
    joints = SEGMENTS - 1
    k = np.arange(1, joints + 1)[None, :]
    upper = np.sin(2 * np.pi * (WAVE_FREQUENCY * t - (1 if toward_tail else -1) * k / joints))
    return np.concatenate([upper, -upper], axis=1)


#: the eel's step (s)
EEL_DT = 1.0 / 600.0


@pytest.mark.parametrize("regime, params, bar", [
    # tau = m / (k A) = 0.019 s for a spine sphere across one spine bone, against a 1 s wave;
    # b = 0.09. The step's lag of VISCOUS_K: the same eel in the same water made 0.0001 body
    # lengths per cycle in steps of 1/60 s (b = 0.9; its rigid bones stretched 15 % there, in
    # quadratic water too), 0.018 at 1/180 s, 0.051 at 1/2400 s
    pytest.param("viscous", viscous_water(1000.0, EEL_DT), 0.02, id="viscous"),
    pytest.param("quadratic", water(EEL_DT), 0.1, id="quadratic"),
])
def test_an_eel_swims_head_first_against_its_wave(regime, params, bar):
    """A wave travelling down the eel toward its tail pushes it head first, in linear and in
    quadratic drag alike: each stretch of body meets the water across more than along (C_n >
    C_t), so as the wave sweeps it sideways the water pushes back on its slanted segments with a
    component toward the head (made isotropic, C_n = C_t, the same eel measured 0.001 body
    lengths per cycle in viscous water and 0.05 in quadratic: the anisotropy is what swims).
    Reversed (travelling toward the head) the same wave drives it tail first. Measured over 8
    cycles after 2 to settle, in body lengths per cycle (= per second at 1 Hz): viscous +0.053 /
    -0.053, quadratic +0.34 / -0.34 (0.24 with engine 2's law of the normal speed alone),
    asserted beyond 0.02 and 0.1; it keeps a straight course
    (sideways drift under a fifth of its progress), and stays in one piece (rigid bones within
    1 % of their length, every position finite)."""
    model = physics.build_model(eel(), 2)
    steps = int(round(1.0 / WAVE_FREQUENCY / params.dt))
    T = steps * EEL_CYCLES
    cmds = np.stack([travelling_wave(T, params.dt, True), travelling_wave(T, params.dt, False)], axis=1)
    _, frames = physics.rollout(model, physics.initial_state(model, params), cmds, params, every=steps // 10)
    assert np.isfinite(frames).all()
    assert rigid_strain(model, frames) < 0.01
    com = centre_of_mass(model, frames[::10])         # at the start of each cycle
    travel = (com[-1] - com[SETTLE]) / (EEL_CYCLES - SETTLE) / EEL   # body lengths per cycle
    tailward, headward = travel
    print(f"{regime}: wave toward the tail {tailward[0]:+.4f}, toward the head {headward[0]:+.4f} "
          f"body lengths per cycle")
    assert tailward[0] > bar          # head first (+x)
    assert headward[0] < -bar         # reversed: tail first
    assert abs(tailward[1]) < 0.2 * tailward[0] and abs(headward[1]) < 0.2 * -headward[0]
