"""The engine's other solvers side by side (``creatures bench --solvers``).

Witkin's constrained dynamics against position-based dynamics on three scenes (a pendulum, the
walker dropped, the walker with sine-driven muscles): how well each holds its bones, how much
energy it makes up or loses, and how fast it runs. Then DEM contacts against PBD contacts on
a pile of 50 worms dropped into one arena.

Every function returns plain rows (dicts); ``format_solvers`` and ``format_pile`` turn them into
markdown tables. Each scene is a batch of identical creatures: the errors are those of the first,
the speed is the batch's on one thread, every solver alike (creature-steps per second, wall
time).
"""

from __future__ import annotations

import time

import numpy as np

import physics

from .common import sine_commands

#: creatures per batch when timing the solver scenes
BATCH = 150
#: simulated seconds of each scene
PENDULUM_SECONDS = 60.0
WALKER_SECONDS = 20.0
PILE_SECONDS = 10.0
#: the pendulum: a 1 m rod released this far from the vertical (radians)
PENDULUM_ANGLE = 1.0
#: the walker is dropped with its lowest sphere this high above the ground (m)
DROP_HEIGHT = 0.5
#: the pile: worms in layers of PILE_COLUMNS, dropped from their layer's height (five layers:
#: with PBD contacts a pile of seven or ten layers breaks its worms apart, see pile())
PILE_WORMS = 50
PILE_COLUMNS = 10
PILE_LAYER = 0.3
PILE_SPACING = 1.3
#: untimed steps before the clock starts (the first call compiles or loads the kernels)
WARMUP = 2


def energy(model: physics.Model, pos: np.ndarray, vel: np.ndarray, gravity: float) -> np.ndarray:
    """Kinetic plus gravitational energy of each creature (J), shape (B,), for positions
    (B, P, 2) and full-step velocities (B, P, 2). Neither scene has springs."""
    ke = 0.5 * np.einsum("bp,bpk,bpk->b", model.mass, vel, vel)
    return ke + gravity * np.einsum("bp,bp->b", model.mass, pos[..., 1])


def _run(model, state, params, commands, steps, terrain=None, measure=None):
    """Step ``steps`` times (commands: None or an array (period, B, M) used cyclically), calling
    ``measure(previous, current)`` after each step; returns the final state and the wall time
    of the stepping alone."""
    period = None if commands is None else commands.shape[0]
    for t in range(WARMUP):  # compile or load the kernels on a throwaway copy of the start
        physics.step(model, state, None if commands is None else commands[t % period], params, terrain,
                     parallel=False)
    elapsed = 0.0
    for t in range(steps):
        cmd = None if commands is None else commands[t % period]
        t0 = time.perf_counter()
        new = physics.step(model, state, cmd, params, terrain, parallel=False)
        elapsed += time.perf_counter() - t0
        if measure is not None:
            measure(state, new)
        state = new
    return state, elapsed


def _bone_errors(model, state, rigid):
    strain = np.abs(physics.bone_strain(model, state)[0])
    return strain[rigid], strain[~rigid]


def _row(scene, solver, model, steps, elapsed, bone, muscle, energy_drift, energy_note, finite, params):
    batch = model.batch
    if params.substeps > 1:
        solver = f"{solver}, {params.substeps} substeps"
    bone = np.concatenate(bone) if bone else np.zeros(1)
    muscle = np.concatenate(muscle) if muscle else np.zeros(0)
    return {"scene": scene, "solver": solver, "batch": batch, "steps": steps,
            "substeps": params.substeps, "dt": params.dt,
            "bone_error_max": float(bone.max()), "bone_error_mean": float(bone.mean()),
            "muscle_error_mean": float(muscle.mean()) if muscle.size else None,
            "energy_drift": energy_drift, "energy_note": energy_note, "finite": finite,
            "seconds": elapsed, "us_per_step": 1e6 * elapsed / steps,
            "creature_steps_per_s": batch * steps / elapsed}


def pendulum(solver: str, batch: int = BATCH, seconds: float = PENDULUM_SECONDS, substeps: int = 1) -> dict:
    """A 1 m rigid pendulum (1 kg bob, pinned pivot) released from PENDULUM_ANGLE, no ground:
    the rod's length error and the drift of the total energy over ``seconds``, as a fraction of
    the swing's energy ``m g L (1 - cos angle)``."""
    params = physics.SimParams(solver=solver, ground=False, substeps=substeps)
    model = physics.build_model(physics.examples.pendulum(angle=PENDULUM_ANGLE), batch)
    state = physics.initial_state(model, params)
    steps = round(seconds / params.dt)
    rigid = np.ones(1, dtype=bool)
    bone, energies = [], []

    def measure(old, new):
        bone.append(_bone_errors(model, new, rigid)[0])
        energies.append(energy(model, old.pos, 0.5 * (old.vel + new.vel), params.gravity)[0])

    state, elapsed = _run(model, state, params, None, steps, measure=measure)
    swing = params.gravity * (1.0 - np.cos(PENDULUM_ANGLE))
    e = np.array(energies[1:])  # the first full-step velocity needs the step before it
    period = int(round(2.0 / params.dt))  # ~ one period: average the velocity estimate's ripple out
    drift = float((e[-period:].mean() - e[:period].mean()) / swing)
    return _row("pendulum", solver, model, steps, elapsed, bone, [], drift,
                "mean energy over the last ~period minus the first, / swing energy",
                bool(np.all(np.isfinite(state.pos))), params)


def walker(solver: str, muscles: bool, batch: int = BATCH, seconds: float = WALKER_SECONDS,
           substeps: int = 1) -> dict:
    """The reference walker on flat ground: dropped from DROP_HEIGHT with its muscles at rest, or
    standing with 1 Hz sine-driven muscles (the benchmark's commands). Bone errors are the rigid
    bones' |length / rest - 1|, muscle errors against their driven length. For the dropped
    walker the energy figure is the largest gain over its starting energy as a fraction of what
    it loses by the end (a passive body can only lose energy); muscles do work, so the sine
    scene has none."""
    params = physics.SimParams(solver=solver, substeps=substeps)
    model = physics.build_model(physics.examples.walker(), batch)
    lift = DROP_HEIGHT if not muscles else 0.0
    state = physics.initial_state(model, params, offset=(0.0, lift))
    steps = round(seconds / params.dt)
    rigid = np.isinf(model.bone_max_force[0])
    commands = sine_commands(model.n_muscles, batch, params.dt) if muscles else None
    bone, muscle, energies = [], [], []

    def measure(old, new):
        b, m = _bone_errors(model, new, rigid)
        bone.append(b)
        muscle.append(m)
        if not muscles:
            energies.append(energy(model, old.pos, 0.5 * (old.vel + new.vel), params.gravity)[0])

    state, elapsed = _run(model, state, params, commands, steps, measure=measure)
    drift, note = None, "muscles do work"
    if not muscles:
        e = np.array(energies[1:])
        lost = e[0] - e[-1]
        drift = float(max(0.0, (e - e[0]).max()) / lost) if lost > 0 else float("nan")
        note = "largest gain over the start / energy lost by the end"
    scene = "walker, sine muscles" if muscles else "walker dropped"
    return _row(scene, solver, model, steps, elapsed, bone, muscle if muscles else [], drift, note,
                bool(np.all(np.isfinite(state.pos))), params)


def solver_rows(quick: bool = False, batch: int = BATCH) -> list[dict]:
    """Every solver scene with both solvers, and the pendulum and the sine-driven walker with
    Witkin's solver at 4 substeps (``quick``: a tenth of the simulated time)."""
    scale = 0.1 if quick else 1.0
    rows = []
    for solver in physics.SOLVERS:
        rows.append(pendulum(solver, batch, PENDULUM_SECONDS * scale))
        rows.append(walker(solver, False, batch, WALKER_SECONDS * scale))
        rows.append(walker(solver, True, batch, WALKER_SECONDS * scale))
    # Witkin's errors are the integrator's, of order h^2: the same scenes with a quarter the step
    rows.append(pendulum("witkin", batch, PENDULUM_SECONDS * scale, substeps=4))
    rows.append(walker("witkin", True, batch, WALKER_SECONDS * scale, substeps=4))
    order = {"pendulum": 0, "walker dropped": 1, "walker, sine muscles": 2}
    rows.sort(key=lambda r: (order[r["scene"]], r["substeps"], r["solver"]))
    return rows


# ---------------------------------------------------------------------------------------------
# the pile


def worm_body() -> physics.Body:
    """The built-in worm design (11 spheres, 15 bones of which 5 muscles, 4 springy hinges)."""
    from ..design import resolve_design
    return resolve_design("worm").body


def pile_offsets(n: int = PILE_WORMS, columns: int = PILE_COLUMNS) -> np.ndarray:
    """Where each worm starts (B, 2): layers of ``columns`` worms PILE_SPACING apart, every other
    layer shifted by half that, each layer PILE_LAYER above the last, so that the worms land on
    each other."""
    k = np.arange(n)
    layer, col = k // columns, k % columns
    x = (col - (columns - 1) / 2.0) * PILE_SPACING + (layer % 2) * PILE_SPACING / 2.0 - 0.5
    y = 0.05 + layer * PILE_LAYER
    return np.stack([x, y], axis=-1)


def _overlap(model, pos):
    """The deepest overlap (m) between spheres of different creatures, and below the ground."""
    B, P = pos.shape[:2]
    flat = pos.reshape(-1, 2)
    r = model.radius.reshape(-1)
    owner = np.repeat(np.arange(B), P)
    d = np.linalg.norm(flat[:, None] - flat[None], axis=-1)
    pen = r[:, None] + r[None] - d
    pen[owner[:, None] == owner[None]] = -np.inf
    ground = float(np.max(model.radius - pos[..., 1]))
    return float(pen.max()), ground


def pile(contacts: str, n: int = PILE_WORMS, seconds: float = PILE_SECONDS, body=None,
         columns: int = PILE_COLUMNS) -> dict:
    """``n`` worms dropped in a pile into one arena (arena collisions on, flat ground, muscles at
    rest), with ``contacts`` "pbd" or "dem": wall time, the worst rigid-bone strain, the deepest
    overlaps between worms and into the ground over the last second, kinetic energy at the end.
    A run whose kinetic energy passes 1 MJ has blown up and stops there (``finite`` False)."""
    params = physics.SimParams(contacts=contacts, arena_collision=True)
    model = physics.build_model(body or worm_body(), n)
    state = physics.initial_state(model, params, offset=pile_offsets(n, columns))
    steps = round(seconds / params.dt)
    last = max(1, round(1.0 / params.dt))
    rigid = np.isinf(model.bone_max_force[0])
    seen = {"worms": 0.0, "ground": 0.0, "worms_max": 0.0, "strain": 0.0}
    count = [0]

    def measure(old, new):
        count[0] += 1
        seen["strain"] = max(seen["strain"], float(np.abs(physics.bone_strain(model, new)[:, rigid]).max()))
        if physics.kinetic_energy(model, new).sum() > 1e6 or not np.all(np.isfinite(new.pos)):
            raise _BlewUp(count[0])
        if count[0] % 6 and count[0] <= steps - last:
            return  # the O((B P)^2) measurement every tenth of a second, and every step of the last second
        worms, ground = _overlap(model, new.pos)
        seen["worms_max"] = max(seen["worms_max"], worms)
        if count[0] > steps - last:
            seen["worms"] = max(seen["worms"], worms)
            seen["ground"] = max(seen["ground"], ground)

    substeps = physics.substeps_for(model, params)
    t0 = time.perf_counter()
    blew_up = None
    try:
        state, elapsed = _run(model, state, params, None, steps, measure=measure)
    except _BlewUp as exc:
        blew_up = exc.args[0]
        elapsed = time.perf_counter() - t0
    done = blew_up or steps
    ke = float(physics.kinetic_energy(model, state).sum()) if blew_up is None else None
    return {"scene": f"{n} worms, one arena", "contacts": contacts, "batch": n, "steps": done,
            "layers": -(-n // columns), "substeps": substeps, "seconds": elapsed,
            "ms_per_step": 1e3 * elapsed / done, "creature_steps_per_s": n * done / elapsed,
            "bone_strain_max": seen["strain"],
            "overlap_worms_mm": 1e3 * seen["worms"], "overlap_worms_max_mm": 1e3 * seen["worms_max"],
            "ground_penetration_mm": 1e3 * seen["ground"], "kinetic_energy_end": ke,
            "blew_up_at_s": None if blew_up is None else blew_up * params.dt,
            "finite": blew_up is None}


class _BlewUp(Exception):
    """Raised by the pile's measurement when the run has clearly blown up (at that step)."""


def pile_rows(quick: bool = False) -> list[dict]:
    """The worm pile with both contact models, five layers deep; then ten layers deep (``quick``:
    2 s instead of PILE_SECONDS, five layers only)."""
    seconds = 2.0 if quick else PILE_SECONDS
    rows = [pile(c, seconds=seconds) for c in physics.CONTACT_MODELS]
    if not quick:
        rows += [pile(c, seconds=seconds, columns=PILE_WORMS // 10) for c in physics.CONTACT_MODELS]
    return rows


# ---------------------------------------------------------------------------------------------
# tables


def _pct(v):
    return "" if v is None else f"{100 * v:.3g} %"


def format_solvers(rows: list[dict]) -> str:
    """The solver comparison as a markdown table."""
    lines = ["| scene | solver | bone error max | bone error mean | muscle error mean | energy drift "
             "| us per step | creature-steps/s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        drift = "n/a" if r["energy_drift"] is None else f"{100 * r['energy_drift']:+.2g} %"
        lines.append(f"| {r['scene']} | {r['solver']} | {_pct(r['bone_error_max'])} | "
                     f"{_pct(r['bone_error_mean'])} | {_pct(r['muscle_error_mean']) or '-'} | {drift} | "
                     f"{r['us_per_step']:,.0f} | {r['creature_steps_per_s']:,.0f} |")
    return "\n".join(lines)


def format_pile(rows: list[dict]) -> str:
    """The pile comparison as a markdown table."""
    lines = ["| layers | contacts | substeps | ms per step | creature-steps/s | worst rigid-bone strain "
             "| deepest overlap between worms (run / last second) | into the ground (last second) "
             "| kinetic energy at the end |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["finite"]:
            end = (f"{r['overlap_worms_max_mm']:.1f} / {r['overlap_worms_mm']:.1f} mm | "
                   f"{r['ground_penetration_mm']:.1f} mm | {r['kinetic_energy_end']:.2g} J")
        else:
            end = f"blew up after {r['blew_up_at_s']:.2f} s | | "
        lines.append(f"| {r['layers']} | {r['contacts']} | {r['substeps']} | {r['ms_per_step']:.2f} | "
                     f"{r['creature_steps_per_s']:,.0f} | {100 * r['bone_strain_max']:.3g} % | {end} |")
    return "\n".join(lines)


def report(quick: bool = False) -> str:
    """Both tables, with what they ran on."""
    solver = solver_rows(quick)
    piles = pile_rows(quick)
    r = solver[0]
    p = piles[0]
    return "\n".join([
        f"Witkin vs PBD: batches of {r['batch']} identical creatures, dt 1/{round(1 / r['dt'])} s, "
        f"1 substep unless said, errors of the first creature over every step, us per step of the "
        f"whole batch",
        "",
        format_solvers(solver),
        "",
        f"PBD vs DEM contacts: {p['batch']} worms dropped in a pile into one arena (layers "
        f"{PILE_LAYER} m apart), {p['steps']} steps of 1/60 s",
        "",
        format_pile(piles),
    ])
