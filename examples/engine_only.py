"""The physics engine alone, from Python: a body built in code, stepped, its centre of mass plotted.

    python examples/engine_only.py                 # writes engine_only.png
    python examples/engine_only.py --out com.png --seconds 20

No design file, no evolution: ``physics`` is a batched engine (every array has the batch axis
first), so here a batch of three copies of one inchworm is driven by sine waves of three
frequencies, and the chart shows how far each gets.
"""

import argparse
import sys

import numpy as np

import physics


def inchworm() -> physics.Body:
    """Two feet and a back: a hinge at the hump, a muscle under the belly."""
    spheres = [physics.Sphere((0.0, 0.08), radius=0.08, mass=0.5, friction=1.2, kinetic_friction=0.3),
               physics.Sphere((0.3, 0.35), radius=0.08, mass=1.0),
               physics.Sphere((0.6, 0.08), radius=0.08, mass=0.5, friction=0.6)]
    bones = [physics.Bone(0, 1), physics.Bone(1, 2),
             physics.Bone(0, 2, muscle=physics.Muscle(range=0.3, strength=60.0, speed=2.0))]
    joints = [physics.Joint(c=1, a=0, b=2, min_angle=np.radians(20), max_angle=np.radians(170))]
    return physics.Body(spheres, bones, joints, name="inchworm")


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="engine_only.png")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--smoke", action="store_true", help="two simulated seconds")
    args = parser.parse_args(argv)
    seconds = 2.0 if args.smoke else args.seconds
    physics.prepare_process()  # once per program, before the first step (see physics' docstring)

    hz = np.array([0.5, 1.0, 2.0])                         # one frequency per creature
    model = physics.build_model(inchworm(), batch=len(hz))  # static arrays, batch axis first
    params = physics.SimParams()                           # dt 1/60 s, 8 relaxation sweeps
    terrain = physics.Terrain.flat()
    state = physics.initial_state(model, params, offset=physics.standing_offset(model, terrain))
    steps = int(round(seconds / params.dt))
    com = np.empty((steps + 1, len(hz), 2))
    com[0] = physics.centre_of_mass(model, state)          # (B, 2)
    for t in range(steps):
        commands = np.sin(2 * np.pi * hz * t * params.dt)[:, None]       # (B, M): one muscle
        state = physics.step(model, state, commands, params, terrain)
        com[t + 1] = physics.centre_of_mass(model, state)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    time = np.arange(steps + 1) * params.dt
    fig, (ax_x, ax_y) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    for b, f in enumerate(hz):
        ax_x.plot(time, com[:, b, 0] - com[0, b, 0], label=f"{f:g} Hz")
        ax_y.plot(time, com[:, b, 1])
    ax_x.set_ylabel("x travelled (m)")
    ax_y.set_ylabel("height (m)")
    ax_y.set_xlabel("time (s)")
    ax_x.legend(title="muscle sine")
    fig.suptitle("an inchworm built in code: its centre of mass")
    fig.savefig(args.out, dpi=100)
    for f, dx in zip(hz, com[-1, :, 0] - com[0, :, 0]):
        print(f"{f:g} Hz: {dx:+.3f} m in {seconds:g} s")
    print(f"chart: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
