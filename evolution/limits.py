"""What a file may ask of the program: the limits every reader enforces, in one place.

A design, a terrain file, a ``--neat-config``, a champion or a run directory is refused, with one
line saying which limit, when it asks for more than these. They are far beyond what any creature,
brain or run here needs (the built-in creatures have at most 15 spheres; evolved brains have tens
of nodes and hundreds of connections), and low enough that no file can make a command take more
than seconds to read it or more than a few hundred megabytes of memory. docs/extending.md lists them
(section "Bad input").
"""

from __future__ import annotations

import physics

from .jsonread import is_number

__all__ = ["MAX_SPHERES", "MAX_BONES", "MAX_JOINTS", "MAX_CLUSTERS", "MAX_CLUSTER_MEMBERS",
           "MAX_COORDINATE", "MAX_VALUE", "MAX_POPULATION", "MAX_GENOME_NODES",
           "MAX_GENOME_CONNECTIONS", "MAX_NODE_KEY", "MAX_WORKERS", "MAX_NETWORK_WORK", "MAX_GENERATION_GENES",
           "MIN_DT", "MAX_DT", "MAX_SUBSTEPS", "MAX_ITERATIONS", "MAX_EPISODE_STEPS", "MAX_TEXT",
           "MAX_DESIGN_TEXT",
           "check_body", "check_sim", "check_text"]

# --- a creature (a design, a champion's or a run's body) -------------------------------------------
MAX_SPHERES = 500
MAX_BONES = 2000          # muscles included
MAX_JOINTS = 1000
MAX_CLUSTERS = 100
MAX_CLUSTER_MEMBERS = 1000  # all clusters together
#: sphere positions (m): a creature stands within this of the origin
MAX_COORDINATE = 1e4
#: every other number of a body (masses, radii, strengths, stiffnesses...): at most this in size
MAX_VALUE = 1e9

# --- NEAT: populations and genomes -------------------------------------------------------------------
MAX_POPULATION = 5_000
#: worker processes a run may ask for (more than the cores gains nothing)
MAX_WORKERS = 1024
MAX_GENOME_NODES = 10_000
MAX_GENOME_CONNECTIONS = 100_000
#: node keys are 0 .. MAX_NODE_KEY (neat numbers new nodes one after the other)
MAX_NODE_KEY = 2**31 - 1
#: neat-python builds a network by rescanning the connections once per layer and once per node
#: waiting for its inputs: a genome whose network would take more scans of a connection than
#: this (about a second) is refused. Evolved genomes need thousands.
MAX_NETWORK_WORK = 20_000_000
#: genes (nodes and connections) of a new population: population x genes of a new genome
#: (about 250 bytes each in neat-python)
MAX_GENERATION_GENES = 1_500_000

# --- simulation settings of a champion or a run --------------------------------------------------
MIN_DT, MAX_DT = 1e-4, 0.1   # seconds per step
MAX_SUBSTEPS = 100
MAX_ITERATIONS = 100
#: steps of one episode: an hour at the default 60 steps a second
MAX_EPISODE_STEPS = 216_000

#: names and other one-line texts printed from a file (a champion's name, a design's name...)
MAX_TEXT = 200
#: a muscle group's name is at most this long
MAX_GROUP_NAME = 40
#: a design's YAML text, as a run or a champion keeps it (creatures.design.MAX_DESIGN_BYTES)
MAX_DESIGN_TEXT = 1_000_000


def check_body(body) -> None:
    """Raise ValueError (one line) for a ``physics.Body`` beyond the limits above: too many
    parts, a position beyond :data:`MAX_COORDINATE`, a number that is not finite or beyond
    :data:`MAX_VALUE`. The engine's own checks (:func:`physics.build_model`) come after."""
    counts = (("spheres", MAX_SPHERES), ("bones", MAX_BONES), ("joints", MAX_JOINTS),
              ("clusters", MAX_CLUSTERS))
    for name, limit in counts:
        items = getattr(body, name)
        if len(items) > limit:
            raise ValueError(f"the creature has {len(items)} {name}; at most {limit}")
    members = sum(len(c.spheres) for c in body.clusters)
    if members > MAX_CLUSTER_MEMBERS:
        raise ValueError(f"the creature's clusters hold {members} spheres in all; at most {MAX_CLUSTER_MEMBERS}")
    for i, s in enumerate(body.spheres):
        if len(s.pos) != 2 or not all(is_number(v) and abs(v) <= MAX_COORDINATE for v in s.pos):
            raise ValueError(f"sphere {i}: its position must be two numbers within +-{MAX_COORDINATE:g} m")
        _check_values(f"sphere {i}", s, ("radius", "mass", "friction", "kinetic_friction", "restitution"))
    for i, b in enumerate(body.bones):
        _check_values(f"bone {i}", b, ("rest", "compliance", "width"))
        if not isinstance(b.wing, bool):
            raise ValueError(f"bone {i}: wing must be true or false, not {b.wing!r:.40}")
        if b.muscle is not None:
            _check_values(f"the muscle of bone {i}", b.muscle, ("range", "strength", "speed"))
            if b.muscle.group is not None:
                check_text(b.muscle.group, f"the muscle group of bone {i}", MAX_GROUP_NAME)
            if not isinstance(b.muscle.invert, bool):
                raise ValueError(f"the muscle of bone {i}: invert must be true or false, not {b.muscle.invert!r:.40}")
    for i, j in enumerate(body.joints):
        _check_values(f"joint {i}", j, ("min_angle", "max_angle", "stiffness"))
    for i, c in enumerate(body.clusters):
        _check_values(f"cluster {i}", c, ("stiffness",))


def _check_values(what: str, item, names) -> None:
    for name in names:
        value = getattr(item, name, None)
        if value is None:
            continue
        if not is_number(value) or abs(value) > MAX_VALUE:
            raise ValueError(f"{what}: {name} must be a finite number of at most {MAX_VALUE:g}, not {value!r:.40}")


def check_sim(sim, seconds: float | None = None) -> None:
    """Raise ValueError (one line) for simulation settings (``physics.SimParams``) beyond the
    limits above; with ``seconds``, for an episode of more than :data:`MAX_EPISODE_STEPS`."""
    for name in ("dt", "gravity", "damping", "bounce_speed", "contact_slop", "witkin_alpha",
                 "witkin_beta", "dem_stiffness", "dem_damping", "dem_shear", "push_out_speed",
                 *physics.FLUID_SETTINGS):
        value = getattr(sim, name, None)
        if value is not None and (not is_number(value) or abs(value) > MAX_VALUE):
            raise ValueError(f"the simulation setting {name} must be a finite number of at most "
                             f"{MAX_VALUE:g}, not {value!r:.40}")
    if not MIN_DT <= sim.dt <= MAX_DT:
        raise ValueError(f"the time step dt must be {MIN_DT:g} to {MAX_DT:g} s, not {sim.dt:g}")
    if not 1 <= sim.substeps <= MAX_SUBSTEPS:
        raise ValueError(f"substeps must be 1 to {MAX_SUBSTEPS}, not {sim.substeps}")
    if not 1 <= sim.iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations must be 1 to {MAX_ITERATIONS}, not {sim.iterations}")
    if seconds is not None and seconds / sim.dt > MAX_EPISODE_STEPS:
        raise ValueError(f"{seconds:g} s at {sim.dt:g} s a step is {seconds / sim.dt:.0f} steps; "
                         f"an episode has at most {MAX_EPISODE_STEPS}")


def check_text(value, what: str, limit: int = MAX_TEXT) -> str:
    """``value`` if it is one line of printable text of at most ``limit`` characters (it will be
    printed: no terminal control sequences); ValueError otherwise."""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text")
    if len(value) > limit:
        raise ValueError(f"{what} is {len(value)} characters long; at most {limit}")
    if not value.isprintable():
        raise ValueError(f"{what} holds a character that is not printable (a line break or a control character)")
    return value
