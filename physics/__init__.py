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

Importing the package changes nothing outside it. A program that runs the engine calls
:func:`prepare_process` once, first thing (before any step): it sets ``OMP_WAIT_POLICY`` and
clears numba's on-disk cache where the sources changed since it was written. The ``creatures``
command, evolution's worker processes (``evolution.prepare_process``, which adds evolution's own
cache) and the test suite do; a library user (``import physics``, ``creatures.envs``, the
examples run as scripts) gets neither unless they call it, and should when they edit the sources
(else numba keeps running the kernels compiled from the old ones) or step big batches on a
machine shared with other work (see :func:`prepare_process`).
"""

import os
from pathlib import Path

from . import dem, examples, witkin
from .kernel_cache import clear_stale_cache
from .integrity import integrity, rigid_bones, verdict
from .medium import MEDIA, MEDIUM_KEYS, medium_name, medium_settings
from .model import MAX_MUSCLE_RANGE, MUSCLE_DAMPING, MUSCLE_STRETCH, WING_WIDTH, Body, Bone, Cluster, Joint, Model, Muscle, Sphere, build_model, graph_bones, stack_models
from .params import CONTACT_MODELS, ENGINE_VERSION, FLUID_SETTINGS, SOLVERS, SimParams
from .sensors import (bone_strain, centre_of_mass, com_velocity, ground_contacts, joint_angles,
                      kinetic_energy, muscle_lengths, orientation)
from .state import State, initial_state, standing_offset, standing_offsets
from .step import StepArgs, StepPlan, kernel_plan, prepare_step, rollout, step, step_in_kernel, substeps_for
from .terrain import TERRAIN_KINDS, Terrain, make_terrain


def prepare_process(*packages) -> None:
    """Ready this process to run the engine; call it once, before the first step.

    - Sets ``OMP_WAIT_POLICY=passive`` in ``os.environ`` unless it is set already. OpenMP threads
      that spin at barriers steal the CPU from a thread sharing its core with another process:
      with one core busy elsewhere a parallel step measured 10x slower (0.13 vs 1.3 M
      creature-steps/s); sleeping waits cost microseconds per step. OpenMP reads it when numba
      starts its threads, at the first parallel call, so this must come before; processes
      started afterwards inherit it.
    - Clears numba's cache of this package if any of its sources changed since the cache was
      written (numba checks only the file a kernel is defined in, not the ones it inlines), and
      so for every directory in ``packages``: packages whose ``cache=True`` kernels call physics
      functions, cleared when their own sources or physics' change (``evolution.prepare_process``
      passes evolution's). Must come before the first call of any of their kernels.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    here = Path(__file__).parent
    clear_stale_cache(here)
    for package in packages:
        clear_stale_cache(Path(package), inlines=(here,))


__all__ = [
    "prepare_process", "examples", "dem", "witkin", "MAX_MUSCLE_RANGE", "MUSCLE_STRETCH", "MUSCLE_DAMPING", "Body", "Bone", "Cluster",
    "Joint", "Model", "Muscle", "Sphere", "build_model", "graph_bones", "stack_models", "SimParams", "SOLVERS", "CONTACT_MODELS", "ENGINE_VERSION",
    "State", "initial_state", "standing_offset", "standing_offsets", "step", "rollout", "substeps_for", "prepare_step",
    "StepPlan", "StepArgs", "kernel_plan", "step_in_kernel", "Terrain",
    "TERRAIN_KINDS", "make_terrain", "bone_strain", "centre_of_mass", "com_velocity",
    "ground_contacts", "joint_angles", "kinetic_energy", "muscle_lengths", "orientation",
    "integrity", "rigid_bones", "verdict", "MEDIA", "MEDIUM_KEYS", "medium_name", "medium_settings",
    "WING_WIDTH", "FLUID_SETTINGS",
]
