"""Bodies and models: what a creature is made of, and the static arrays the solver reads.

A :class:`Body` is a plain description of one creature (lists of spheres, bones, joints and
clusters, in SI units and radians). :func:`build_model` turns it into a :class:`Model` for a batch
of ``B`` creatures that share its topology. Per-creature values carry the batch axis first. A
model's arrays are read-only: some are derived from others (``inv_mass`` and the clusters' rest
shapes from the masses, the solver's transposed copy from all of them), so writing into one
would leave the others stale. :meth:`Model.with_values` gives a model whose creatures differ
(different masses, radii, muscle strengths... across the batch), with everything derived
recomputed.

Axis letters: B batch, P spheres (particles), E bones (muscles included), M muscles, J joints,
K clusters, Q cluster members (all clusters concatenated), C self-collision candidate pairs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace

import numpy as np

__all__ = ["Sphere", "Bone", "Muscle", "Joint", "Cluster", "Body", "Model", "build_model", "stack_models",
           "MAX_MUSCLE_RANGE", "SETTABLE", "MASKS", "WING_WIDTH", "MUSCLE_STRETCH", "MUSCLE_DAMPING"]

#: A muscle's length stays within rest * (1 +- range); beyond this the bone could invert.
MAX_MUSCLE_RANGE = 0.9

#: A muscle is a spring and a dashpot toward its commanded length (physics/bones.py says why).
#: By default its spring pulls its whole strength when it is 5 % of its rest length off that
#: length (a tendon stretches 3-5 % at a muscle's full force), and its dashpot is twice the
#: critical damping for its two spheres (Hill's force-velocity relation, linearised, gives the
#: walker's muscles about that). Chosen by measurement: docs/engineering.md, "Predictable physics".
MUSCLE_STRETCH = 0.05
MUSCLE_DAMPING = 2.0

#: The per-creature values :meth:`Model.with_values` sets: name -> (axis letter, what it is).
SETTABLE = {
    "mass": ("P", "sphere masses (kg), > 0; inv_mass and the clusters' rest shapes follow"),
    "radius": ("P", "sphere radii (m), > 0"),
    "friction": ("P", "static friction coefficients, >= 0"),
    "kinetic_friction": ("P", "kinetic friction coefficients, >= 0 and at most the static one"),
    "restitution": ("P", "bounce off the ground, within [0, 1]"),
    "bone_compliance": ("E", "bone compliance (m/N), >= 0 (0: rigid)"),
    "muscle_strength": ("M", "the most force each muscle exerts (N), > 0"),
    "muscle_range": ("M", f"relative length range of each muscle, within (0, {MAX_MUSCLE_RANGE}]"),
    "muscle_speed": ("M", "muscle speed (rest lengths per second), > 0"),
    "muscle_stretch": ("M", "how far off its commanded length, in rest lengths, a muscle's spring pulls "
                            "its whole strength, > 0"),
    "muscle_damping": ("M", "muscle damping ratio, >= 0 (1: critical for its two spheres)"),
    "joint_min": ("J", "hinge lower limits (rad): -pi <= min <= rest angle (free joints: ignored)"),
    "joint_max": ("J", "hinge upper limits (rad): rest angle <= max <= pi (free joints: ignored)"),
    "joint_stiffness": ("J", "joint springs (N m / rad), >= 0 (0: none); joint_compliance and "
                             "joint_spring follow"),
    "cluster_stiffness": ("K", "shape-matching stiffness of each cluster, within (0, 1]"),
    "rest_pos": ("P2", "rest positions (m), finite; bone, muscle and joint rest lengths and angles "
                       "and the clusters' rest shapes follow"),
    "sphere_on": ("P", "which spheres are there (bool): a sphere switched off has no mass, no size "
                       "and does not move"),
    "bone_on": ("E", "which bones are there (bool): a bone switched off exerts no force (a muscle's "
                     "command is ignored)"),
    "joint_on": ("J", "which joints are there (bool): a joint switched off has no limit and no spring"),
    "bone_width": ("E", "bone plate widths in a fluid (m), >= 0 (0: the bone's default, see Bone.width); "
                        "bone_plate follows"),
}

#: A wing's default plate width, as a fraction of its rest length (:attr:`Bone.width`).
WING_WIDTH = 0.5

#: the part masks among :data:`SETTABLE`
MASKS = ("sphere_on", "bone_on", "joint_on")


@dataclass
class Sphere:
    """A sphere (particle). ``friction`` is the static Coulomb coefficient; ``kinetic_friction``
    defaults to it. ``restitution`` in [0, 1] is the bounce off the ground."""

    pos: tuple[float, float]
    radius: float = 0.1
    mass: float = 1.0
    friction: float = 0.8
    kinetic_friction: float | None = None
    restitution: float = 0.0
    fixed: bool = False  # pinned in place (infinite mass for the solver), e.g. a pendulum's pivot
    optional: bool = False  # may be switched off per creature (Model.with_values(sphere_on=...))


@dataclass
class Muscle:
    """What makes a bone a muscle. The command c in [-1, 1] sets the target length
    ``rest * (1 + c * range)``; the target moves toward it at most ``speed * rest`` metres per
    second, and the muscle pulls or pushes toward the target as a spring and a dashpot, with at
    most ``strength`` newtons. ``stretch`` sets the spring's stiffness: it pulls its whole
    strength when the muscle is ``stretch * rest`` off the target (``k = strength / (stretch *
    rest)``, like a tendon); ``damping`` is the dashpot's damping ratio for the muscle's two
    spheres (1: critical; it resists the muscle's change of length, as a real muscle pulls less
    the faster it shortens).

    ``group``: muscles of one group share one command (a brain drives them with one output),
    ``invert`` takes its negative (the muscle lengthens as the others shorten). The engine
    steps one command per muscle; :meth:`Body.command_map` says which shared command is whose."""

    range: float = 0.3
    strength: float = 150.0
    speed: float = 2.0
    group: str | None = None
    invert: bool = False
    stretch: float = MUSCLE_STRETCH
    damping: float = MUSCLE_DAMPING


@dataclass
class Bone:
    """A distance constraint between spheres ``a`` and ``b``. ``rest`` defaults to their initial
    distance. ``compliance`` (m/N, XPBD) is 0 for a rigid bone.

    In a fluid (physics/medium.py) a bone is a flat plate of its length times ``width`` (m): by
    default the mean diameter of its two spheres, or for a ``wing`` (a broad, light plate: bones
    have no mass of their own) :data:`WING_WIDTH` times its rest length. Without a fluid neither
    matters (a wing is still drawn as one)."""

    a: int
    b: int
    rest: float | None = None
    compliance: float = 0.0
    muscle: Muscle | None = None
    optional: bool = False  # may be switched off per creature (bone_on): solved as a soft bone
    width: float | None = None
    wing: bool = False


@dataclass
class Joint:
    """An angle constraint at sphere ``c`` between the bones c-a and c-b.

    The joint angle is the signed angle from (a - c) to (b - c), in (-pi, pi]. A ``hinge`` keeps it
    within ``[min_angle, max_angle]`` (radians); a ``free`` joint has no limit. With ``stiffness``
    > 0 (N m / rad) the joint also springs back toward its rest angle (the initial angle)."""

    c: int
    a: int
    b: int
    kind: str = "hinge"
    min_angle: float = -np.pi
    max_angle: float = np.pi
    stiffness: float = 0.0
    optional: bool = False  # may be switched off per creature (joint_on)


@dataclass
class Cluster:
    """Spheres held in their initial shape by shape matching. ``stiffness`` in (0, 1] is the
    fraction of the way to the matched shape that each relaxation iteration moves them."""

    spheres: list[int]
    stiffness: float = 1.0


@dataclass
class Body:
    """One creature: spheres, bones (some of them muscles), joints and rigid clusters."""

    spheres: list[Sphere]
    bones: list[Bone] = field(default_factory=list)
    joints: list[Joint] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)
    self_collision: bool = False
    name: str = "body"

    def to_dict(self) -> dict:
        """The body as plain JSON-able values (SI units, radians). ``optional`` is written only
        for the parts that are (a body without any reads as it always has)."""
        data = asdict(self)
        for key in ("spheres", "bones", "joints"):
            for part in data[key]:
                if not part.get("optional"):
                    part.pop("optional", None)
        for part in data["bones"]:  # likewise a bone's plate: only where the design says
            if part.get("width") is None:
                part.pop("width", None)
            if not part.get("wing"):
                part.pop("wing", None)
            muscle = part.get("muscle")
            if muscle is not None:  # and a muscle's group
                if muscle.get("group") is None:
                    muscle.pop("group", None)
                if not muscle.get("invert"):
                    muscle.pop("invert", None)
        return data

    def command_map(self) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """Which command drives each muscle: ``(channel, sign, names)``, ``channel`` (M,) the
        index of the shared command of each muscle (in the order of the muscles' first
        appearance among the bones: a group's command where its first muscle is), ``sign`` (M,)
        +1, or -1 for an inverted muscle, ``names`` one per command (a group's name, or
        ``muscle K`` for a muscle of its own, K counting the muscles). Commands ``c`` (B, C)
        drive the muscles as ``c[:, channel] * sign``."""
        channel, sign, names, groups = [], [], [], {}
        for k, bone in enumerate(b for b in self.bones if b.muscle is not None):
            m = bone.muscle
            if m.group is None:
                channel.append(len(names))
                names.append(f"muscle {k}")
            else:
                if m.group not in groups:
                    groups[m.group] = len(names)
                    names.append(m.group)
                channel.append(groups[m.group])
            sign.append(-1.0 if m.invert else 1.0)
        return np.asarray(channel, dtype=np.int64), np.asarray(sign, dtype=np.float64), names

    @property
    def grouped(self) -> bool:
        """Whether some muscles share a command (or one is inverted)."""
        return any(b.muscle is not None and (b.muscle.group is not None or b.muscle.invert) for b in self.bones)

    @classmethod
    def from_dict(cls, data: dict) -> "Body":
        """Rebuild a body from :meth:`to_dict`'s dict. Raises KeyError or TypeError for a dict of
        the wrong shape; :func:`build_model` checks the values."""
        bones = []
        for b in data["bones"]:
            b = dict(b)
            if b.get("muscle") is not None:
                b["muscle"] = Muscle(**b["muscle"])
            bones.append(Bone(**b))
        return cls(spheres=[Sphere(**{**s, "pos": tuple(s["pos"])}) for s in data["spheres"]],
                   bones=bones, joints=[Joint(**j) for j in data["joints"]],
                   clusters=[Cluster(**c) for c in data["clusters"]],
                   self_collision=bool(data["self_collision"]), name=str(data["name"]))


@dataclass
class Prepared:
    """What stepping a model needs that is made from it once and then kept with it
    (:attr:`Model.prepared`): never pickled (a copy in another process makes its own on use) and
    never shared (``with_values`` and ``replace`` give the new model an empty one). Each solver
    fills its part on first use:

    - ``hot``, ``packed``: the model's arrays as the PBD kernels read them (physics/hot.py),
      and ``alike``: whether every creature's are the same (physics.hot.creatures_alike);
    - ``work``: the PBD kernels' workspace, per chunk size (lanes);
    - ``plans``: per (settings, parallel, threads), what a step needs (:func:`physics.prepare_step`:
      every solver's plan, its scratch with it), and ``last``: the one used last, with what it
      was asked for (found by identity, first);
    - ``witkin``: the model's arrays as the Witkin solver reads them (physics/witkin.py).
    """

    hot: object = None
    packed: tuple | None = None
    alike: bool | None = None
    work: dict = field(default_factory=dict)
    plans: dict = field(default_factory=dict)
    last: tuple | None = None
    witkin: object = None


@dataclass(frozen=True)
class Model:
    """Static arrays of a batch of creatures sharing one topology.

    Topology (shared by the batch)
    ------------------------------
    bone_a, bone_b : ndarray of int64, shape (E,)
        Sphere indices of each bone.
    muscle_bone : ndarray of int64, shape (M,)
        Which bone each muscle drives.
    joint_a, joint_c, joint_b : ndarray of int64, shape (J,)
        Sphere indices; the joint sits at ``c`` between bones c-a and c-b.
    joint_limited : ndarray of bool, shape (J,)
        True for hinges (angle limits), False for free joints.
    cluster_start : ndarray of int64, shape (K + 1,)
        Cluster k owns members ``cluster_start[k]:cluster_start[k + 1]``.
    cluster_sphere : ndarray of int64, shape (Q,)
        Sphere index of each cluster member.
    pair_a, pair_b : ndarray of int64, shape (C,)
        Sphere pairs checked for self-collision (empty when it is off): every pair not joined by
        a bone, a joint or a cluster.
    bone_soft : ndarray of bool, shape (E,)
        Bones the solver treats as soft (XPBD with a multiplier and a force limit): muscles,
        compliant bones and bones that may be switched off, in any creature of the batch. The
        others are rigid (projected, then settled). A topology, so that a creature is solved
        the same whatever other creatures share its batch.
    bone_wing : ndarray of bool, shape (E,)
        Bones that are wings (:attr:`Bone.wing`): a broad plate by default, drawn as a wing.

    Per creature
    ------------
    rest_pos : ndarray, shape (B, P, 2)
        Initial sphere positions (m).
    mass, inv_mass, radius : ndarray, shape (B, P)
    friction, kinetic_friction, restitution : ndarray, shape (B, P)
    bone_rest, bone_compliance : ndarray, shape (B, E)
    muscle_strength : ndarray, shape (B, M)
        The most force each muscle exerts (N), as set (a muscle switched off keeps its strength
        and exerts none: ``bone_on``). :attr:`bone_max_force` derives every bone's limit from
        it and the masks.
    muscle_rest, muscle_range, muscle_speed : ndarray, shape (B, M)
    muscle_stretch, muscle_damping : ndarray, shape (B, M)
        Each muscle's spring (its stretch at full strength, in rest lengths) and its damping
        ratio (:class:`Muscle`).
    joint_rest, joint_min, joint_max, joint_compliance : ndarray, shape (B, J)
        Angles in radians; compliance is 1 / stiffness (0 for no spring, see ``joint_spring``).
    joint_spring : ndarray of bool, shape (B, J)
    cluster_rest : ndarray, shape (B, Q, 2)
        Each member's rest offset from its cluster's centre of mass.
    cluster_stiffness : ndarray, shape (B, K)
    bone_width : ndarray, shape (B, E)
        Plate widths as the design gives them (m); 0 where it does not (the default width).
    bone_plate : ndarray, shape (B, E)
        The plate width the fluid sees (m): ``bone_width``, or where that is 0 the default, the
        mean diameter of the bone's spheres (a wing: :data:`WING_WIDTH` times its rest length).
    sphere_on, bone_on, joint_on : ndarray of bool, shape (B, P), (B, E), (B, J)
        Which parts each creature has (all True unless :meth:`with_values` switched some off).
        A part switched off stays in the arrays, masked: a sphere has no mass (``mass`` and
        ``inv_mass`` 0), no radius and stays where it was; a bone is off in ``bone_on`` (no row,
        and a muscle's command does nothing); a joint no limit and no spring.

    Every array is read-only (writing into one raises ValueError): change per-creature values
    with :meth:`with_values`, which recomputes what derives from them. Caches built from a model
    (the solver's transposed copy, workspaces) belong to that model object, and are not pickled.
    """

    name: str
    bone_a: np.ndarray
    bone_b: np.ndarray
    muscle_bone: np.ndarray
    joint_a: np.ndarray
    joint_c: np.ndarray
    joint_b: np.ndarray
    joint_limited: np.ndarray
    cluster_start: np.ndarray
    cluster_sphere: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    rest_pos: np.ndarray
    mass: np.ndarray
    inv_mass: np.ndarray
    radius: np.ndarray
    friction: np.ndarray
    kinetic_friction: np.ndarray
    restitution: np.ndarray
    bone_rest: np.ndarray
    bone_compliance: np.ndarray
    muscle_strength: np.ndarray
    muscle_rest: np.ndarray
    muscle_range: np.ndarray
    muscle_speed: np.ndarray
    joint_rest: np.ndarray
    joint_min: np.ndarray
    joint_max: np.ndarray
    joint_compliance: np.ndarray
    joint_spring: np.ndarray
    cluster_rest: np.ndarray
    cluster_stiffness: np.ndarray
    bone_soft: np.ndarray = None
    muscle_stretch: np.ndarray = None
    muscle_damping: np.ndarray = None
    bone_wing: np.ndarray = None
    bone_width: np.ndarray = None
    bone_plate: np.ndarray = None
    sphere_on: np.ndarray = None
    bone_on: np.ndarray = None
    joint_on: np.ndarray = None
    #: a graph's model (:func:`build_model`'s ``graph``): each of ``muscle_bone`` a muscle in the
    #: creatures ``muscle_on`` says, a rod in the others
    graph: bool = False
    muscle_on: np.ndarray = None
    #: with parts switched off (``with_values``): the per-creature values as they were set,
    #: before the masks zeroed the parts' (to switch them on again); None when nothing is masked
    unmasked: dict | None = field(default=None, compare=False, repr=False)
    #: what the solvers made from this model for stepping it (:class:`Prepared`)
    prepared: Prepared = field(default_factory=Prepared, init=False, compare=False, repr=False)

    @property
    def batch(self) -> int:
        return self.rest_pos.shape[0]

    @property
    def n_spheres(self) -> int:
        return self.rest_pos.shape[1]

    @property
    def n_bones(self) -> int:
        return self.bone_a.shape[0]

    @property
    def n_muscles(self) -> int:
        return self.muscle_bone.shape[0]

    @property
    def n_joints(self) -> int:
        return self.joint_c.shape[0]

    @property
    def n_clusters(self) -> int:
        return self.cluster_start.shape[0] - 1

    @property
    def bone_max_force(self) -> np.ndarray:
        """The largest force each bone may exert (N), shape (B, E), derived: a muscle's
        strength, ``inf`` for any other bone, 0 for a bone switched off (``bone_on``). The
        solvers read ``muscle_strength`` and the masks themselves."""
        force = np.full(self.bone_on.shape, np.inf)
        force[:, self.muscle_bone] = self.muscle_strength
        return np.where(self.bone_on, force, 0.0)

    def total_mass(self) -> np.ndarray:
        """Mass of each creature (kg), shape (B,)."""
        return self.mass.sum(axis=1)

    def __post_init__(self):
        B = self.rest_pos.shape[0]
        if self.bone_soft is None:  # a model pickled before these fields: derived as it was then
            object.__setattr__(self, "bone_soft", ~np.all(_rigid(self), axis=0))
        E = self.bone_a.shape[0]
        M = self.muscle_bone.shape[0]
        if self.muscle_stretch is None:  # a model of before muscles had springs: the defaults
            object.__setattr__(self, "muscle_stretch", np.full((B, M), MUSCLE_STRETCH))
        if self.muscle_damping is None:
            object.__setattr__(self, "muscle_damping", np.full((B, M), MUSCLE_DAMPING))
        if self.muscle_on is None:   # every muscle a muscle in every creature
            object.__setattr__(self, "muscle_on", np.ones((B, M), dtype=np.bool_))
        if self.bone_wing is None:  # a model of before plates: no wings, default widths
            object.__setattr__(self, "bone_wing", np.zeros(E, dtype=np.bool_))
        if self.bone_width is None:
            object.__setattr__(self, "bone_width", np.zeros((B, E)))
        if self.bone_plate is None:
            object.__setattr__(self, "bone_plate", plate_widths(self.bone_width, self.bone_wing, self.radius,
                                                                self.bone_rest, self.bone_a, self.bone_b))
        for name, size in (("sphere_on", self.rest_pos.shape[1]), ("bone_on", self.bone_a.shape[0]),
                           ("joint_on", self.joint_c.shape[0])):
            if getattr(self, name) is None:
                object.__setattr__(self, name, np.ones((B, size), dtype=np.bool_))
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                value.flags.writeable = False

    def __getstate__(self):
        # the fields but what is prepared for stepping (rebuilt on use)
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "prepared"}

    def __setstate__(self, state):
        for f in fields(self):
            object.__setattr__(self, f.name, state.get(f.name))
        object.__setattr__(self, "prepared", Prepared())
        self.__post_init__()

    def with_values(self, **values) -> "Model":
        """A new model of the same creatures with some per-creature values changed.

        Each keyword is a name of :data:`SETTABLE`; its value broadcasts to (B, X), X the axis
        of its letter (``rest_pos``: (B, P, 2)): a scalar sets every creature's every element,
        shape (X,) every creature alike, (B, X) or (B, 1) creature by creature. Everything
        derived is recomputed: ``inv_mass`` (fixed spheres stay fixed) and ``cluster_rest`` from
        ``mass``, ``joint_compliance`` and
        ``joint_spring`` from ``joint_stiffness``; from ``rest_pos`` every bone's rest length
        (the new distance between its spheres), the muscles' rest lengths, the joints' rest
        angles and the clusters' rest shapes. The masks ``sphere_on``, ``bone_on`` and
        ``joint_on`` switch parts off and on again (see :class:`Model`; a part switched back on
        gets its values back). The new model builds its own hot copy. Raises ValueError for an
        unknown name, a shape that does not broadcast, or a value outside its range (one-line
        reasons, as :func:`build_model`). A state of this model fits the new one.
        """
        B = self.batch
        sizes = {"P": self.n_spheres, "E": self.n_bones, "M": self.n_muscles, "J": self.n_joints,
                 "K": self.n_clusters}
        new = {}
        for name, value in values.items():
            if name not in SETTABLE:
                raise ValueError(f"{name!r} cannot be set; settable: {', '.join(SETTABLE)}")
            axis = SETTABLE[name][0]
            shape = (B, self.n_spheres, 2) if axis == "P2" else (B, sizes[axis])
            dtype = np.bool_ if name in MASKS else np.float64
            try:
                new[name] = np.array(np.broadcast_to(np.asarray(value, dtype=dtype), shape),
                                     order="C", copy=True)
            except ValueError:
                raise ValueError(f"{name}: a value of shape {np.shape(value)} does not fit "
                                 f"{shape}") from None
            if dtype is np.float64 and not np.all(np.isfinite(new[name])):
                raise ValueError(f"{name} must be finite")
        base = self.unmasked or {}

        def get(name):  # a value as set, before the masks
            if name in new:
                return new[name]
            return base[name] if name in base else getattr(self, name)

        # a sphere switched off takes its bones and joints with it
        on_p = get("sphere_on")
        on_e = get("bone_on") & on_p[:, self.bone_a] & on_p[:, self.bone_b]
        on_j = get("joint_on") & on_p[:, self.joint_a] & on_p[:, self.joint_c] & on_p[:, self.joint_b]
        for name in ("mass", "radius"):
            if np.any(~(get(name)[on_p] > 0)):
                raise ValueError(f"{name} must be positive")
        for name in ("muscle_strength", "muscle_speed", "muscle_stretch"):
            if name in new and np.any(~(new[name] > 0)):
                raise ValueError(f"{name} must be positive")
        if "muscle_damping" in new and np.any(~(new["muscle_damping"] >= 0)):
            raise ValueError("muscle_damping must be >= 0")
        # the settable values that are fields as they are; the rest are converted below
        changed = {n: v for n, v in new.items() if n != "joint_stiffness"}
        mu_s, mu_k = get("friction"), get("kinetic_friction")
        if np.any(mu_s < 0) or np.any(mu_k < 0) or np.any(mu_k > mu_s + 1e-12):
            raise ValueError("friction must be >= 0 and kinetic friction at most the static one")
        rest_c = get("restitution")
        if np.any(rest_c < 0) or np.any(rest_c > 1):
            raise ValueError("restitution must be within [0, 1]")
        if np.any(get("bone_compliance") < 0):
            raise ValueError("bone_compliance must be >= 0")
        if np.any(get("bone_width") < 0):
            raise ValueError("bone_width must be >= 0")
        m_range = get("muscle_range")
        if np.any(~((m_range > 0) & (m_range <= MAX_MUSCLE_RANGE))):
            raise ValueError(f"muscle_range must be within (0, {MAX_MUSCLE_RANGE}]")
        if np.any(~((get("cluster_stiffness") > 0) & (get("cluster_stiffness") <= 1))):
            raise ValueError("cluster_stiffness must be within (0, 1]")
        masks = any(m in new for m in MASKS) or bool(base)
        pos = get("rest_pos")
        if "rest_pos" in new:
            d = pos[:, self.bone_a] - pos[:, self.bone_b]
            bone_rest = np.sqrt((d * d).sum(axis=2))
            if np.any(~(bone_rest > 1e-9) & on_e):
                raise ValueError("rest_pos gives a bone zero length")
            changed["bone_rest"] = bone_rest
            changed["muscle_rest"] = np.ascontiguousarray(bone_rest[:, self.muscle_bone])
            u = pos[:, self.joint_a] - pos[:, self.joint_c]
            v = pos[:, self.joint_b] - pos[:, self.joint_c]
            changed["joint_rest"] = np.arctan2(u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0],
                                               u[..., 0] * v[..., 0] + u[..., 1] * v[..., 1])
        if "joint_min" in new or "joint_max" in new or "rest_pos" in new or masks:
            lo, hi = get("joint_min"), get("joint_max")
            rest = changed.get("joint_rest", self.joint_rest)
            bad = self.joint_limited & on_j & ~((-np.pi <= lo) & (lo <= rest + 1e-9) & (rest - 1e-9 <= hi)
                                                & (hi <= np.pi))
            if np.any(bad):
                raise ValueError("joint limits must keep -pi <= min <= the rest angle <= max <= pi")
        mass = get("mass")
        if "mass" in new or "rest_pos" in new or masks:
            fixed = base.get("inv_mass", self.inv_mass) == 0.0
            changed["inv_mass"] = np.where(fixed | ~on_p, 0.0, 1.0 / np.where(on_p, mass, 1.0))
            mass_on = np.where(on_p, mass, 0.0)
            rest = np.array(self.cluster_rest, copy=True)
            for k in range(self.n_clusters):
                q = slice(self.cluster_start[k], self.cluster_start[k + 1])
                idx = self.cluster_sphere[q]
                m = mass_on[:, idx]
                total = m.sum(1)[:, None]
                com = (m[..., None] * pos[:, idx]).sum(1) / np.where(total > 0, total, 1.0)
                rest[:, q] = pos[:, idx] - com[:, None, :]
            changed["cluster_rest"] = rest
        k = None
        if "joint_stiffness" in new:
            k = new["joint_stiffness"]
            if np.any(k < 0):
                raise ValueError("joint_stiffness must be >= 0")
        if not masks:
            if k is not None:
                changed["joint_compliance"] = np.where(k > 0, 1.0 / np.where(k > 0, k, 1.0), 0.0)
                changed["joint_spring"] = k > 0
        else:
            # the values as set, kept for switching parts on again; the fields hold them masked
            raw = {"sphere_on": on_p, "bone_on": get("bone_on"), "joint_on": get("joint_on"), "mass": mass, "inv_mass": base.get("inv_mass", self.inv_mass), "radius": get("radius"),
                   "joint_min": get("joint_min"), "joint_max": get("joint_max"),
                   "joint_compliance": get("joint_compliance"), "joint_spring": get("joint_spring")}
            if k is not None:
                raw["joint_compliance"] = np.where(k > 0, 1.0 / np.where(k > 0, k, 1.0), 0.0)
                raw["joint_spring"] = k > 0
            changed["sphere_on"], changed["bone_on"], changed["joint_on"] = on_p, on_e, on_j
            changed["mass"] = np.where(on_p, raw["mass"], 0.0)
            changed["radius"] = np.where(on_p, raw["radius"], 0.0)
            changed["joint_min"] = np.where(on_j, raw["joint_min"], -np.pi)
            changed["joint_max"] = np.where(on_j, raw["joint_max"], np.pi)
            changed["joint_compliance"] = np.where(on_j, raw["joint_compliance"], 0.0)
            changed["joint_spring"] = on_j & raw["joint_spring"]
        if "bone_width" in new or "radius" in new or "rest_pos" in new:
            changed["bone_plate"] = plate_widths(get("bone_width"), self.bone_wing, get("radius"),
                                                 changed.get("bone_rest", self.bone_rest), self.bone_a,
                                                 self.bone_b)
        if masks:
            for a in raw.values():
                a.flags.writeable = False
        model = replace(self, **changed, unmasked=raw if masks else None)
        object.__setattr__(model, "bone_soft", np.array(self.bone_soft | ~np.all(_rigid(model), axis=0)))
        model.bone_soft.flags.writeable = False
        return model


#: the fields of a :class:`Model` that describe its topology (shared by the batch); every other
#: array field is per creature, with the batch axis first
TOPOLOGY = ("bone_a", "bone_b", "muscle_bone", "joint_a", "joint_c", "joint_b", "joint_limited", "cluster_start",
            "cluster_sphere", "pair_a", "pair_b", "bone_soft", "bone_wing")


def stack_models(models) -> Model:
    """One model of the creatures of ``models`` (models of one topology, each of any batch),
    in order: every per-creature array the rows of theirs, so that each creature is the same,
    bit for bit, as in its own model (a creature is stepped the same whatever shares its batch).
    Raises ValueError for models of different topologies or with parts switched off."""
    models = list(models)
    if not models:
        raise ValueError("no models to stack")
    first = models[0]
    if len(models) == 1:
        return first
    for m in models:
        if m.unmasked is not None:
            raise ValueError("models with parts switched off cannot be stacked")
        if m.graph != first.graph:
            raise ValueError("a graph's model and a topology's cannot be stacked")
        for name in TOPOLOGY:
            a, b = getattr(m, name), getattr(first, name)
            if not (a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()) \
                    and not np.array_equal(a, b):   # (the first test a fifth of the second's time)
                raise ValueError(f"models of different topologies cannot be stacked ({name} differs)")
    stacked = {f.name: np.concatenate([getattr(m, f.name) for m in models])
               for f in fields(Model) if f.name not in TOPOLOGY and isinstance(getattr(first, f.name), np.ndarray)}
    return replace(first, **stacked)


def _rigid(model: Model) -> np.ndarray:
    """Which bones of each creature are rigid, bool (B, E): on, no compliance, not a muscle."""
    rigid = model.bone_on & (model.bone_compliance == 0.0)
    rigid[:, model.muscle_bone] = False
    return rigid


def plate_widths(width, wing, radius, rest, bone_a, bone_b) -> np.ndarray:
    """Each bone's plate width (B, E): ``width`` where it is above 0, else the default (the mean
    diameter of its spheres; a wing's :data:`WING_WIDTH` times its rest length)."""
    default = np.where(wing, WING_WIDTH * rest, radius[:, bone_a] + radius[:, bone_b])
    return np.ascontiguousarray(np.where(width > 0, width, default).reshape(np.shape(rest)))


def _angle(pa, pc, pb) -> float:
    ux, uy = pa[0] - pc[0], pa[1] - pc[1]
    vx, vy = pb[0] - pc[0], pb[1] - pc[1]
    return float(np.arctan2(ux * vy - uy * vx, ux * vx + uy * vy))


def graph_bones(body: Body) -> list[int]:
    """The bones that the model of ``body``'s graph (:func:`build_model` with ``graph``) has as
    its muscles, in order: every bone that is not compliant nor optional (by its own flag or a
    sphere's it joins), a muscle where the body has one and a rod where not."""
    def optional(b):
        return b.optional or body.spheres[b.a].optional or body.spheres[b.b].optional
    return [e for e, b in enumerate(body.bones) if b.compliance == 0.0 and (b.muscle is not None or not optional(b))]


def build_model(body: Body, batch: int = 1, graph: bool = False) -> Model:
    """Replicate ``body`` ``batch`` times into a :class:`Model`.

    With ``graph``, the model of the body's graph (for a growing run, whose bodies differ in
    which bones are muscles): every bone that is not compliant nor optional is one of the
    model's muscles (``muscle_bone``), a muscle where the body has one (``muscle_on``) and a rod
    where not (strength ``inf``, no range), and every bone is solved as a row of its own kind
    creature by creature (physics/skeleton.py), so that bodies of one graph share a batch
    (:func:`stack_models`) and each is stepped the same, bit for bit, whatever its batch. Its
    muscles' commands are the model's, a rod's ignored.

    Raises ValueError with a one-line reason for a body the solver cannot hold (bad indices,
    non-positive masses or radii, zero-length bones, muscle ranges beyond
    :data:`MAX_MUSCLE_RANGE`). Designs are checked more thoroughly, with file positions, by the
    YAML loader; this is the engine's own last line of defence.
    """
    if batch < 1:
        raise ValueError("batch must be at least 1")
    P = len(body.spheres)
    if P == 0:
        raise ValueError("a body needs at least one sphere")
    pos = np.array([s.pos for s in body.spheres], dtype=np.float64).reshape(P, 2)
    mass = np.array([s.mass for s in body.spheres], dtype=np.float64)
    radius = np.array([s.radius for s in body.spheres], dtype=np.float64)
    if not np.all(np.isfinite(pos)):
        raise ValueError("sphere positions must be finite")
    if np.any(~(mass > 0)) or np.any(~(radius > 0)):
        raise ValueError("sphere masses and radii must be positive")
    fixed = np.array([s.fixed for s in body.spheres], dtype=np.bool_)
    mu_s = np.array([s.friction for s in body.spheres], dtype=np.float64)
    mu_k = np.array([s.friction if s.kinetic_friction is None else s.kinetic_friction
                     for s in body.spheres], dtype=np.float64)
    rest_c = np.array([s.restitution for s in body.spheres], dtype=np.float64)
    if np.any(mu_s < 0) or np.any(mu_k < 0) or np.any(mu_k > mu_s + 1e-12):
        raise ValueError("friction must be >= 0 and kinetic friction at most the static one")
    if np.any(rest_c < 0) or np.any(rest_c > 1):
        raise ValueError("restitution must be within [0, 1]")

    def check_sphere(i, what):
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool) or not (0 <= i < P):
            raise ValueError(f"{what} refers to sphere {i}, which does not exist")

    E = len(body.bones)
    bone_a = np.array([b.a for b in body.bones], dtype=np.int64)
    bone_b = np.array([b.b for b in body.bones], dtype=np.int64)
    bone_rest = np.zeros(E)
    bone_comp = np.array([b.compliance for b in body.bones], dtype=np.float64)
    bone_force = np.full(E, np.inf)
    muscles, m_range, m_speed, m_stretch, m_damp = [], [], [], [], []
    for e, bone in enumerate(body.bones):
        if bone.muscle is not None and not (bone.muscle.group is None or isinstance(bone.muscle.group, str)):
            raise ValueError(f"muscle on bone {e}: its group must be a name or none")
        check_sphere(bone.a, f"bone {e}")
        check_sphere(bone.b, f"bone {e}")
        if bone.a == bone.b:
            raise ValueError(f"bone {e} joins sphere {bone.a} to itself")
        length = float(np.hypot(*(pos[bone.a] - pos[bone.b])))
        bone_rest[e] = length if bone.rest is None else bone.rest
        if not bone_rest[e] > 1e-9:
            raise ValueError(f"bone {e} has zero length")
        if bone.compliance < 0:
            raise ValueError(f"bone {e} has negative compliance")
        if bone.width is not None and not (np.isfinite(bone.width) and bone.width > 0):
            raise ValueError(f"bone {e}: width must be positive")
        if bone.muscle is not None:
            m = bone.muscle
            if not (0 < m.range <= MAX_MUSCLE_RANGE):
                raise ValueError(f"muscle on bone {e}: range {m.range} outside (0, {MAX_MUSCLE_RANGE}]")
            if not (m.strength > 0 and m.speed > 0):
                raise ValueError(f"muscle on bone {e}: strength and speed must be positive")
            if not (np.isfinite(m.stretch) and m.stretch > 0 and np.isfinite(m.damping) and m.damping >= 0):
                raise ValueError(f"muscle on bone {e}: stretch must be positive and damping at least 0")
            muscles.append(e)
            m_range.append(m.range)
            m_speed.append(m.speed)
            m_stretch.append(m.stretch)
            m_damp.append(m.damping)
            bone_force[e] = m.strength

    J = len(body.joints)
    joint_rest, joint_min, joint_max, joint_comp, joint_spring, limited = [], [], [], [], [], []
    for j, jt in enumerate(body.joints):
        for i in (jt.a, jt.b, jt.c):
            check_sphere(i, f"joint {j}")
        if len({jt.a, jt.b, jt.c}) != 3:
            raise ValueError(f"joint {j} needs three different spheres")
        if jt.kind not in ("hinge", "free"):
            raise ValueError(f"joint {j}: kind must be 'hinge' or 'free', not {jt.kind!r}")
        rest = _angle(pos[jt.a], pos[jt.c], pos[jt.b])
        lo, hi = float(jt.min_angle), float(jt.max_angle)
        if jt.kind == "hinge":
            if not (-np.pi <= lo <= hi <= np.pi):
                raise ValueError(f"joint {j}: need -180 <= min <= max <= 180 degrees")
            if not (lo - 1e-9 <= rest <= hi + 1e-9):
                raise ValueError(f"joint {j}: its initial angle {np.degrees(rest):.1f} deg is outside its limits")
        joint_rest.append(rest)
        joint_min.append(lo)
        joint_max.append(hi)
        limited.append(jt.kind == "hinge")
        joint_spring.append(jt.stiffness > 0)
        joint_comp.append(1.0 / jt.stiffness if jt.stiffness > 0 else 0.0)

    starts, members, cl_rest, cl_k = [0], [], [], []
    for k, cl in enumerate(body.clusters):
        idx = list(cl.spheres)
        for i in idx:
            check_sphere(i, f"cluster {k}")
        if len(idx) < 2 or len(set(idx)) != len(idx):
            raise ValueError(f"cluster {k} needs two or more different spheres")
        if not (0 < cl.stiffness <= 1):
            raise ValueError(f"cluster {k}: stiffness must be within (0, 1]")
        m = mass[idx]
        com = (m[:, None] * pos[idx]).sum(0) / m.sum()
        members += idx
        cl_rest += list(pos[idx] - com)
        cl_k.append(cl.stiffness)
        starts.append(len(members))

    pairs_a, pairs_b = [], []
    if body.self_collision:
        linked = {(min(a, b), max(a, b)) for a, b in zip(bone_a.tolist(), bone_b.tolist())}
        for jt in body.joints:
            linked.add((min(jt.a, jt.b), max(jt.a, jt.b)))
        for cl in body.clusters:
            for i in cl.spheres:
                for k in cl.spheres:
                    linked.add((min(i, k), max(i, k)))
        for i in range(P):
            for k in range(i + 1, P):
                if (i, k) not in linked:
                    pairs_a.append(i)
                    pairs_b.append(k)

    def rep(a, dtype=np.float64):
        a = np.asarray(a, dtype=dtype)
        out = np.empty((batch,) + a.shape, dtype=dtype)   # (C order; a tenth of broadcast_to's copy)
        out[...] = a
        return out

    # soft: muscles, compliant bones, and bones that may be switched off (their own flag, or a
    # sphere's they join)
    soft = ~(np.isinf(bone_force) & (bone_comp == 0.0))
    for e, bone in enumerate(body.bones):
        if bone.optional or body.spheres[bone.a].optional or body.spheres[bone.b].optional:
            soft[e] = True
    muscle_on = np.ones(len(muscles), dtype=np.bool_)
    if graph:   # every bone not compliant nor optional a muscle or a rod, creature by creature
        real = dict(zip(muscles, zip(m_range, m_speed, m_stretch, m_damp)))
        muscles = graph_bones(body)
        muscle_on = np.array([e in real for e in muscles], dtype=np.bool_)
        rod = (0.0, 0.0, MUSCLE_STRETCH, MUSCLE_DAMPING)
        m_range, m_speed, m_stretch, m_damp = (list(v) for v in zip(*[real.get(e, rod) for e in muscles])) \
            if muscles else ([], [], [], [])
        soft[:] = True
    M = len(muscles)
    ints = lambda v: np.asarray(v, dtype=np.int64).reshape(-1)  # noqa: E731
    return Model(
        name=body.name,
        bone_a=ints(bone_a), bone_b=ints(bone_b), muscle_bone=ints(muscles),
        joint_a=ints([j.a for j in body.joints]), joint_c=ints([j.c for j in body.joints]),
        joint_b=ints([j.b for j in body.joints]), joint_limited=np.asarray(limited, dtype=np.bool_).reshape(J),
        cluster_start=ints(starts), cluster_sphere=ints(members),
        pair_a=ints(pairs_a), pair_b=ints(pairs_b),
        rest_pos=rep(pos), mass=rep(mass), inv_mass=rep(np.where(fixed, 0.0, 1.0 / mass)), radius=rep(radius),
        friction=rep(mu_s), kinetic_friction=rep(mu_k), restitution=rep(rest_c),
        bone_rest=rep(bone_rest.reshape(E)), bone_compliance=rep(bone_comp.reshape(E)),
        muscle_strength=rep(bone_force[np.asarray(muscles, dtype=np.int64)].reshape(M)),
        muscle_rest=rep(bone_rest[np.asarray(muscles, dtype=np.int64)].reshape(M)),
        muscle_range=rep(np.asarray(m_range).reshape(M)), muscle_speed=rep(np.asarray(m_speed).reshape(M)),
        muscle_stretch=rep(np.asarray(m_stretch).reshape(M)), muscle_damping=rep(np.asarray(m_damp).reshape(M)),
        joint_rest=rep(np.asarray(joint_rest).reshape(J)), joint_min=rep(np.asarray(joint_min).reshape(J)),
        joint_max=rep(np.asarray(joint_max).reshape(J)), joint_compliance=rep(np.asarray(joint_comp).reshape(J)),
        joint_spring=rep(np.asarray(joint_spring, dtype=np.bool_).reshape(J), dtype=np.bool_),
        cluster_rest=rep(np.asarray(cl_rest, dtype=np.float64).reshape(len(members), 2)),
        cluster_stiffness=rep(np.asarray(cl_k).reshape(len(cl_k))),
        bone_soft=np.asarray(soft, dtype=np.bool_).reshape(E),
        bone_wing=np.array([bool(b.wing) for b in body.bones], dtype=np.bool_).reshape(E),
        bone_width=rep(np.array([b.width or 0.0 for b in body.bones], dtype=np.float64).reshape(E)),
        graph=bool(graph), muscle_on=rep(muscle_on.reshape(M), dtype=np.bool_),
    )
