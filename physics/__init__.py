"""Batched 2D position-based dynamics for sphere-and-bone creatures.

A population is the unit of work: every array has a leading batch axis B and all creatures of a
batch share one topology. Typical use::

    from physics import SimParams, build_model, initial_state, step, examples
    model = build_model(examples.walker(), batch=150)
    params = SimParams()
    state = initial_state(model, params)
    for t in range(600):
        state = step(model, state, commands, params)      # commands: (B, M) in [-1, 1]

See ``physics/step.py`` for the stage sequence. ``SimParams(solver="witkin")`` steps with Witkin's
constrained dynamics instead (``physics/witkin.py``), ``SimParams(contacts="dem")`` with Discrete
Element Method contact forces (``physics/dem.py``).
"""

import os

from ._cache import clear_stale_cache

# OpenMP threads that spin at barriers steal the CPU from a thread sharing its core with another
# process: with one core busy elsewhere a parallel step measured 10x slower (0.13 vs 1.3 M
# creature-steps/s). Sleeping waits cost microseconds per step. Set before the first parallel call.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
clear_stale_cache()

from . import dem, examples, witkin  # noqa: E402
from .model import MAX_MUSCLE_RANGE, Body, Bone, Cluster, Joint, Model, Muscle, Sphere, build_model  # noqa: E402
from .params import CONTACT_MODELS, SOLVERS, SimParams  # noqa: E402
from .sensors import (bone_strain, centre_of_mass, com_velocity, ground_contacts,  # noqa: E402
                      joint_angles, kinetic_energy, muscle_lengths, orientation)
from .state import State, initial_state, standing_offset  # noqa: E402
from .step import rollout, step, substeps_for  # noqa: E402
from .terrain import TERRAIN_KINDS, Terrain, make_terrain  # noqa: E402

__all__ = [
    "examples", "dem", "witkin", "MAX_MUSCLE_RANGE", "Body", "Bone", "Cluster", "Joint", "Model", "Muscle",
    "Sphere", "build_model", "SimParams", "SOLVERS", "CONTACT_MODELS", "State", "initial_state",
    "standing_offset", "step", "rollout", "substeps_for", "Terrain",
    "TERRAIN_KINDS", "make_terrain", "bone_strain", "centre_of_mass", "com_velocity",
    "ground_contacts", "joint_angles", "kinetic_energy", "muscle_lengths", "orientation",
]
