"""What the viewer and the recorder are handed: a scene (fixed), frames (each step), a brain.

The renderer draws these and nothing else: it never steps physics or brains itself. A
:class:`Source` (built by the ``creatures`` commands from champions, runs or designs) owns the
stepping, with the very code evolution scored with, and the viewer only decides *when* to call
:meth:`Source.step`: at the fixed physics rate ``scene.dt`` times the playback speed, never on
the frame's delta time.

Axes follow the engine: P spheres, E bones, M muscles, J joints of one creature.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

__all__ = ["CreatureShape", "Scene", "CreatureFrame", "Frame", "BrainNode", "Brain", "Source"]


@dataclass(frozen=True)
class CreatureShape:
    """The fixed look of one creature.

    Attributes
    ----------
    radius : ndarray, shape (P,)
        Sphere radii (m).
    bone_a, bone_b : ndarray, shape (E,), int
        The spheres each bone joins.
    muscle_bone : ndarray, shape (M,), int
        Which bones are muscles (coloured by contraction).
    rigid : ndarray, shape (E,), bool
        Bones of the skeleton drawn solid (the others, springy bones, lighter).
    joint_sphere : ndarray, shape (J,), int
        The sphere at the centre of each joint (for the sensor overlay).
    label : str
        Shown next to the creature and in the HUD (``walker gen 69``).
    info : dict
        HUD details of this creature: ``design``, ``task``, ``generation``, ``terrain``,
        ``fresh`` (its mean fitness from fresh starts, the one a champion file records; shown
        after its name) (any may be missing).
    clusters : tuple of ndarray of int
        Rigid clusters, each as its member spheres in outline order: drawn as a closed outline
        in the rigid bones' style (a cluster has no bones of its own).
    sphere_on : ndarray, shape (P,), bool, or None
        Which spheres this creature has (its body evolved, some optional parts switched off).
        A sphere switched off is not drawn, nor are the bones and muscles it joins, the joints
        at it, or its place in a cluster's outline; the camera and the label ignore it (it
        stays where it was). None: every sphere is on.
    bone_on : ndarray, shape (E,), bool, or None
        Which bones (and muscles, which are bones) are drawn. None: every bone.
    joint_on : ndarray, shape (J,), bool, or None
        Which joints get an angle in the sensor overlay. None: every joint.
    bone_width : ndarray, shape (E,), or None
        Each bone's plate width (m): in a fluid a bone is a flat plate of its length times this
        width, reaching out of the picture's plane. Only wings are drawn by it (a translucent
        band along the bone, as thick on the screen as the plate is wide, at most 0.6 of the
        bone's length). None: not known (a wing is then drawn half as wide as it is long).
    wing : ndarray, shape (E,), bool, or None
        Bones that are wings (broad plates): drawn as a translucent band under the bone's line.
        The other bones keep their look. None: no wings.
    color : (int, int, int) or None
        The creature's colour (its species', in a crowd); None: the viewer picks one.
    sphere_color : ndarray of uint8, shape (P, 3), or None
        Each sphere's own colour (the design's looks), where ``sphere_colored`` says it has one,
        used when the creature is drawn alone (racing ghosts and crowds keep one colour each, to
        tell them apart). None: ``color``.
    sphere_colored : ndarray of bool, shape (P,), or None
        Which spheres ``sphere_color`` colours (None: all of them).
    bone_color : ndarray of uint8, shape (E, 3), or None
        Each bone's own colour when drawn alone (muscles keep their contraction's colours),
        where ``bone_colored`` says it has one.
    bone_colored : ndarray of bool, shape (E,), or None
        Which bones ``bone_color`` colours (None: all of them).
    eyes : ndarray of bool, shape (P,), or None
        Spheres with an eye drawn on them, looking to the right.
    """

    radius: np.ndarray
    bone_a: np.ndarray
    bone_b: np.ndarray
    muscle_bone: np.ndarray
    rigid: np.ndarray
    joint_sphere: np.ndarray
    label: str = ""
    info: dict = field(default_factory=dict)
    clusters: tuple = ()
    sphere_on: np.ndarray | None = None
    bone_on: np.ndarray | None = None
    joint_on: np.ndarray | None = None
    bone_width: np.ndarray | None = None
    wing: np.ndarray | None = None
    color: tuple | None = None
    sphere_color: np.ndarray | None = None
    sphere_colored: np.ndarray | None = None
    bone_color: np.ndarray | None = None
    bone_colored: np.ndarray | None = None
    eyes: np.ndarray | None = None


@dataclass(frozen=True)
class Scene:
    """What stays the same while a source plays.

    Attributes
    ----------
    terrain_x, terrain_y : ndarray, shape (N,)
        The terrain polyline (m); flat beyond both ends, as in the engine.
    creatures : list of CreatureShape
        One per creature; racing creatures are ghosts (drawn translucent, never colliding).
    dt : float
        Simulated seconds per :meth:`Source.step`.
    duration : float or None
        Length of the episode (s), or None for a source that never ends (a preview).
    title : str
        First HUD line (``walker - run on flat``).
    fitness_label : str
        What fitness means (``metres to the right``), for the HUD.
    ground : bool
        Whether there is ground at all. False (deep water, open sky): no terrain is drawn, and
        the metre marks run along the bottom of the view instead of along the ground.
    medium : str
        The medium's name for the HUD (``physics.medium_name``): ``none`` (not shown), ``water``,
        ``air``, ``air, wind 3 m/s``, ``water, flow 0.5 m/s``, ``fluid of 800 kg/m^3``.
    fluid_density : float
        The fluid's density (kg/m^3); 0 for no fluid. A liquid (500 or more, or a medium named
        ``water...``) is drawn as water: a blue background, darker the deeper, with motes
        drifting with the flow; a lighter fluid as air, its wind (if any) as moving streaks.
    flow : (float, float)
        The fluid's velocity (m/s): a current or a wind; (0, 0) for still.
    crowd : bool
        A whole generation at once (carykh's view): every creature a translucent ghost in its
        own ``color``, only the leaders labelled, the HUD ranking them by fitness so far.
    """

    terrain_x: np.ndarray
    terrain_y: np.ndarray
    creatures: list
    dt: float
    duration: float | None = None
    title: str = ""
    fitness_label: str = "fitness"
    ground: bool = True
    medium: str = "none"
    fluid_density: float = 0.0
    flow: tuple = (0.0, 0.0)
    crowd: bool = False


@dataclass
class CreatureFrame:
    """One creature at one instant.

    Attributes
    ----------
    pos : ndarray, shape (P, 2)
        Sphere centres (m).
    contraction : ndarray, shape (M,)
        Each muscle's length against its rest length, scaled to [-1, 1]: -1 fully contracted,
        0 at rest, +1 fully extended (the colour of the muscle).
    contact : ndarray, shape (P,), bool
        Spheres touching the ground.
    joint_angle : ndarray, shape (J,)
        Joint angles (radians).
    fitness : float or None
        Fitness so far.
    recorded : float or None
        The fitness evolution recorded for it (the HUD shows both; they meet at the end).
    failed : bool
        Broke apart or went non-finite (scored as failed).
    """

    pos: np.ndarray
    contraction: np.ndarray
    contact: np.ndarray
    joint_angle: np.ndarray
    fitness: float | None = None
    recorded: float | None = None
    failed: bool = False


@dataclass
class Frame:
    """Every creature at one instant. ``time`` is the simulated time (s), ``step`` the steps
    taken since the start, ``leader`` the index of the creature the camera follows."""

    time: float
    step: int
    creatures: list
    leader: int = 0
    done: bool = False


@dataclass(frozen=True)
class BrainNode:
    """A node of a network: ``kind`` is ``input``, ``hidden`` or ``output``; ``label`` names it
    (``muscle 3``, ``clock sin``); ``depth`` orders hidden nodes from inputs to outputs."""

    key: int
    kind: str
    label: str = ""
    depth: int = 0


@dataclass(frozen=True)
class Brain:
    """A network as plain nodes and edges (enabled connections only): ``edges`` are
    ``(source key, target key, weight)``."""

    nodes: list
    edges: list


class Source(Protocol):
    """What the viewer and the recorder play. The viewer calls :meth:`step` at the fixed rate
    ``scene.dt`` (times the playback speed) and draws :meth:`frame`."""

    scene: Scene

    def reset(self) -> None:
        """Back to the start of the episode."""

    def step(self) -> None:
        """One fixed step of ``scene.dt``; does nothing once ``frame().done``."""

    def frame(self) -> Frame:
        """The current state of every creature."""

    def brain(self, creature: int) -> Brain | None:
        """The network of a creature, or None (no brain: a preview)."""

    def brain_values(self, creature: int) -> dict:
        """Node key -> its value at the last step, for the brain panel."""

    def poll(self) -> bool:
        """Called about twice a second: True when the source changed its scene (a new champion
        arrived, a design file was saved and reloaded); the viewer then rereads ``scene``."""

    @property
    def message(self) -> str | None:
        """Text to show over the view (a design's validation errors), or None."""
