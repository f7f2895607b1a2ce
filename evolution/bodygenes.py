"""Bodies that evolve with their brains: a design's evolvable values and optional parts as genes.

A design may write some of its numbers as ranges (``radius: {evolve: [0.05, 0.12]}``) and mark
parts ``optional: true`` (``creatures.design``). Here they are :class:`BodyGenes`: each
evolvable value a :class:`Gene` (which number of which part, its range, its start), each
optional part a :class:`Switch`. A genome carries one value per gene and one on/off flag per
switch (:class:`evolution.breeding.DefaultGenome`'s ``body_values`` and ``body_parts``), and
:meth:`BodyGenes.model` turns a batch of them into one :class:`physics.Model` whose creatures
each have their own body (``Model.with_values``: everything derived, inverse masses, rest
lengths and angles, cluster shapes, recomputed), so a whole chunk still steps in one batched
call: parts switched off stay in the arrays, masked.

A genome's body is *repaired* where that is a matter of course (a hinge's limits widened to
hold a rest angle the evolved positions moved; a kinetic friction lowered to an evolved static
one) and *refused* where it is not a body at all: active parts falling apart into pieces, a
bone of zero length, spheres overlapping that collide (``self_collision``). A refused body is
stepped as the design's starting body and scored as failed (``WORST_FITNESS``), counted with the
generation's failed creatures; it never stops a run.

Units are the engine's: metres, kilograms, radians (designs write angles in degrees).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import physics

__all__ = ["Gene", "Switch", "BodyGenes", "FIELDS", "BOUNDS", "POSITIVE", "PARTS", "NO_GENES", "pieces"]

#: what may evolve, by part: the design's key for each (positions evolve component by component)
FIELDS = {"sphere": ("x", "y", "radius", "mass", "friction"),
          "bone": ("compliance", "width"),
          "muscle": ("strength", "range", "speed"),
          "joint": ("min", "max", "stiffness")}
#: the parts that may be optional
PARTS = ("sphere", "bone", "joint")


@dataclass(frozen=True)
class Gene:
    """One evolvable number: ``field`` of part ``index`` (a sphere, bone or joint of the body;
    a muscle is named by its bone), within ``[low, high]``, starting at ``start``. ``label``
    names it for people (``foot.radius``, ``hip.x``, ``knee.min``)."""

    label: str
    part: str
    index: int
    field: str
    low: float
    high: float
    start: float

    @property
    def width(self) -> float:
        return self.high - self.low


@dataclass(frozen=True)
class Switch:
    """An optional part: sphere, bone or joint ``index``; ``label`` is its id."""

    label: str
    part: str
    index: int


@dataclass(frozen=True)
class BodyGenes:
    """A design's evolvable values and optional parts. Empty (falsy) for a fixed design."""

    genes: tuple = ()
    switches: tuple = ()

    def __bool__(self) -> bool:
        return bool(self.genes or self.switches)

    @property
    def n_values(self) -> int:
        return len(self.genes)

    @property
    def n_parts(self) -> int:
        return len(self.switches)

    def start_values(self) -> list[float]:
        return [g.start for g in self.genes]

    def start_parts(self) -> list[bool]:
        return [True] * len(self.switches)

    # --- plain data ---------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"genes": [{"label": g.label, "part": g.part, "index": g.index, "field": g.field,
                           "low": g.low, "high": g.high, "start": g.start} for g in self.genes],
                "switches": [{"label": s.label, "part": s.part, "index": s.index} for s in self.switches]}

    @classmethod
    def from_dict(cls, data) -> "BodyGenes":
        """The genes of :meth:`to_dict`'s dict. Raises ValueError (one line) for anything else;
        :meth:`check` checks them against a body."""
        if not isinstance(data, dict) or not isinstance(data.get("genes", []), list) \
                or not isinstance(data.get("switches", []), list):
            raise ValueError("body genes must be an object with lists 'genes' and 'switches'")
        genes, switches = [], []
        for k, g in enumerate(data.get("genes", [])):
            try:
                genes.append(Gene(str(g["label"]), str(g["part"]), _int(g["index"]), str(g["field"]),
                                  _num(g["low"]), _num(g["high"]), _num(g["start"])))
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"body gene {k + 1}: {_why(exc)}") from None
        for k, s in enumerate(data.get("switches", [])):
            try:
                switches.append(Switch(str(s["label"]), str(s["part"]), _int(s["index"])))
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"optional part {k + 1}: {_why(exc)}") from None
        return cls(tuple(genes), tuple(switches))

    def check(self, body: physics.Body) -> None:
        """Raise ValueError (one line) unless every gene and switch names a part of ``body``
        with a range the engine can hold, its start within it."""
        counts = {"sphere": len(body.spheres), "bone": len(body.bones), "joint": len(body.joints)}
        seen = set()
        for g in self.genes:
            where = f"body gene '{g.label}'"
            if g.part not in FIELDS or g.field not in FIELDS[g.part]:
                raise ValueError(f"{where}: {g.part} {g.field} cannot evolve")
            part = "bone" if g.part == "muscle" else g.part
            if not 0 <= g.index < counts[part]:
                raise ValueError(f"{where}: there is no {part} {g.index}")
            if g.part == "muscle" and body.bones[g.index].muscle is None:
                raise ValueError(f"{where}: bone {g.index} is not a muscle")
            if (g.part, g.index, g.field) in seen:
                raise ValueError(f"{where}: evolves a value another gene evolves")
            seen.add((g.part, g.index, g.field))
            if not (math.isfinite(g.low) and math.isfinite(g.high) and g.low <= g.high
                    and g.low <= g.start <= g.high):
                raise ValueError(f"{where}: needs low <= start <= high")
            lo, hi = BOUNDS[(g.part, g.field)]
            if not (lo <= g.low and g.high <= hi) or (g.field in POSITIVE and not g.low > 0):
                raise ValueError(f"{where}: the range [{g.low:g}, {g.high:g}] is outside what the engine "
                                 f"can hold")
        for s in self.switches:
            if s.part not in PARTS or not 0 <= s.index < counts[s.part]:
                raise ValueError(f"optional part '{s.label}': there is no {s.part} {s.index}")

    # --- bodies -------------------------------------------------------------------------------
    def model(self, body: physics.Body, values, parts) -> tuple[physics.Model, np.ndarray]:
        """One model of ``len(values)`` creatures of ``body``'s topology, creature b with the
        values ``values[b]`` (one per gene) and the parts ``parts[b]`` (one flag per switch),
        and which creatures' bodies were refused (bool, shape (B,): stepped as the design's
        start, to be scored as failed). Bit for bit the same for a creature whatever others
        share its batch."""
        B = len(values)
        values = np.asarray(values, dtype=np.float64).reshape(B, self.n_values)
        parts = np.asarray(parts, dtype=np.bool_).reshape(B, self.n_parts)
        base = physics.build_model(body, B)
        arrays, refused = self._arrays(base, body, values, parts)
        start = None
        if refused.any():  # those creatures get the design's start body
            start, _ = self._arrays(physics.build_model(body, 1), body,
                                    np.asarray([self.start_values()], dtype=np.float64).reshape(1, -1),
                                    np.ones((1, self.n_parts), dtype=np.bool_))
            for name, a in arrays.items():
                a[refused] = start[name][0]
        return base.with_values(**arrays), refused

    def _arrays(self, base: physics.Model, body: physics.Body, values, parts):
        """The keyword arrays of ``base.with_values`` for creatures with ``values`` and
        ``parts``, repaired, and which of them are refused."""
        B = base.batch
        arrays: dict[str, np.ndarray] = {}

        def array(name):
            if name not in arrays:
                arrays[name] = np.array(getattr(base, name), copy=True)
            return arrays[name]

        muscle_of = {int(e): m for m, e in enumerate(base.muscle_bone)}
        for k, g in enumerate(self.genes):
            v = np.clip(values[:, k], g.low, g.high)
            if g.part == "sphere":
                if g.field in ("x", "y"):
                    array("rest_pos")[:, g.index, 0 if g.field == "x" else 1] = v
                else:
                    array(g.field)[:, g.index] = v
                    if g.field == "friction" and body.spheres[g.index].kinetic_friction is None:
                        array("kinetic_friction")[:, g.index] = v  # it follows the static one
            elif g.part == "bone":
                array("bone_" + g.field)[:, g.index] = v
            elif g.part == "muscle":
                name = {"strength": "muscle_strength", "range": "muscle_range", "speed": "muscle_speed"}[g.field]
                if name not in arrays:
                    arrays[name] = np.array(getattr(base, name), copy=True)
                arrays[name][:, muscle_of[g.index]] = v
            else:  # joint
                if g.field == "stiffness":
                    if "joint_stiffness" not in arrays:
                        arrays["joint_stiffness"] = np.array(
                            [[j.stiffness for j in body.joints]] * B, dtype=np.float64).reshape(B, -1)
                    arrays["joint_stiffness"][:, g.index] = v
                else:
                    array("joint_" + g.field)[:, g.index] = v
        if "kinetic_friction" in arrays or "friction" in arrays:  # repaired: at most the static one
            arrays["kinetic_friction"] = np.minimum(array("kinetic_friction"), array("friction"))

        refused = np.zeros(B, dtype=np.bool_)
        pos = arrays.get("rest_pos", base.rest_pos)
        radius = arrays.get("radius", base.radius)
        sphere_on, bone_on, joint_on = self._masks(base, parts)
        if self.switches:
            arrays.update(sphere_on=sphere_on, bone_on=bone_on, joint_on=joint_on)
        if "rest_pos" in arrays:
            d = pos[:, base.bone_a] - pos[:, base.bone_b]
            refused |= np.any(~(np.sqrt((d * d).sum(axis=2)) > 1e-6) & bone_on, axis=1)
        if "rest_pos" in arrays or "joint_min" in arrays or "joint_max" in arrays:
            # a hinge's limits widened to hold its rest angle (which the positions set)
            u = pos[:, base.joint_a] - pos[:, base.joint_c]
            v = pos[:, base.joint_b] - pos[:, base.joint_c]
            rest = np.arctan2(u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0],
                              u[..., 0] * v[..., 0] + u[..., 1] * v[..., 1])
            lo, hi = array("joint_min"), array("joint_max")
            hinge = base.joint_limited[None, :]
            arrays["joint_min"] = np.where(hinge, np.maximum(np.minimum(lo, rest), -np.pi), lo)
            arrays["joint_max"] = np.where(hinge, np.minimum(np.maximum(hi, rest), np.pi), hi)
        if self.switches:
            refused |= self._in_pieces(base, sphere_on, bone_on)
        if body.self_collision and base.pair_a.size and ("rest_pos" in arrays or "radius" in arrays):
            d = pos[:, base.pair_a] - pos[:, base.pair_b]
            gap = np.sqrt((d * d).sum(axis=2)) - radius[:, base.pair_a] - radius[:, base.pair_b]
            both = sphere_on[:, base.pair_a] & sphere_on[:, base.pair_b]
            refused |= np.any((gap < -1e-9) & both, axis=1)
        return arrays, refused

    def _masks(self, base: physics.Model, parts):
        """Each creature's sphere, bone and joint masks: its switches, a sphere switched off
        taking its bones and joints along, a bone its joints."""
        B = base.batch
        sphere_on = np.ones((B, base.n_spheres), dtype=np.bool_)
        bone_on = np.ones((B, base.n_bones), dtype=np.bool_)
        joint_on = np.ones((B, base.n_joints), dtype=np.bool_)
        table = {"sphere": sphere_on, "bone": bone_on, "joint": joint_on}
        for k, s in enumerate(self.switches):
            table[s.part][:, s.index] = parts[:, k]
        bone_on &= sphere_on[:, base.bone_a] & sphere_on[:, base.bone_b]
        if base.n_joints:
            bone_of = {}
            for e, (a, b) in enumerate(zip(base.bone_a.tolist(), base.bone_b.tolist())):
                bone_of[(a, b)] = bone_of[(b, a)] = e
            for j in range(base.n_joints):
                c, a, b = int(base.joint_c[j]), int(base.joint_a[j]), int(base.joint_b[j])
                joint_on[:, j] &= sphere_on[:, a] & sphere_on[:, c] & sphere_on[:, b]
                for pair in ((c, a), (c, b)):
                    if pair in bone_of:
                        joint_on[:, j] &= bone_on[:, bone_of[pair]]
        return sphere_on, bone_on, joint_on

    @staticmethod
    def _in_pieces(base: physics.Model, sphere_on, bone_on) -> np.ndarray:
        """Creatures whose spheres switched on are not one piece through their bones switched on
        and their clusters."""
        ends = list(zip(base.bone_a.tolist(), base.bone_b.tolist()))
        clusters = [base.cluster_sphere[base.cluster_start[k]:base.cluster_start[k + 1]].tolist()
                    for k in range(base.n_clusters)]
        out = np.zeros(sphere_on.shape[0], dtype=np.bool_)
        for b in range(out.size):
            on_e = bone_on[b]
            roots = pieces(sphere_on.shape[1], [e for e, on in zip(ends, on_e) if on], clusters)
            out[b] = len({roots[i] for i in np.flatnonzero(sphere_on[b])}) > 1
        return out

    def body(self, body: physics.Body, values, parts) -> physics.Body:
        """The body of one creature with ``values`` and ``parts``, as a plain
        :class:`physics.Body` (the values set and repaired, as :meth:`model` steps it); the
        parts switched off are still listed (their ``optional`` flag set): :meth:`off` names them.
        A refused body is the design's start."""
        model, refused = self.model(body, [values], [parts])
        if refused[0]:
            values, parts = self.start_values(), self.start_parts()
            model, _ = self.model(body, [values], [parts])
        raw = model.unmasked or {}

        def get(name):
            return (raw[name] if name in raw else getattr(model, name))[0]

        pos, radius, mass = get("rest_pos"), get("radius"), get("mass")
        spheres = [physics.Sphere((float(pos[i, 0]), float(pos[i, 1])), float(radius[i]), float(mass[i]),
                                  float(model.friction[0, i]),
                                  None if s.kinetic_friction is None and model.kinetic_friction[0, i]
                                  == model.friction[0, i] else float(model.kinetic_friction[0, i]),
                                  s.restitution, s.fixed, s.optional) for i, s in enumerate(body.spheres)]
        strength = get("muscle_strength")
        widths = {g.index for g in self.genes if g.part == "bone" and g.field == "width"}
        bones = []
        m = 0
        for e, bone in enumerate(body.bones):
            muscle = None
            if bone.muscle is not None:
                muscle = physics.Muscle(float(model.muscle_range[0, m]), float(strength[m]),
                                        float(model.muscle_speed[0, m]))
                m += 1
            width = float(model.bone_width[0, e]) if (bone.width is not None or e in widths) else None
            bones.append(physics.Bone(bone.a, bone.b, bone.rest, float(model.bone_compliance[0, e]), muscle,
                                      bone.optional, width, bone.wing))
        jmin, jmax = get("joint_min"), get("joint_max")
        # a stiffness as its gene has it (1 / (1 / k) need not be k to the last bit)
        stiffness = [j.stiffness for j in body.joints]
        for g, v in zip(self.genes, values):
            if g.part == "joint" and g.field == "stiffness":
                stiffness[g.index] = float(np.clip(v, g.low, g.high))
        joints = [physics.Joint(j.c, j.a, j.b, j.kind, float(jmin[k]) if j.kind == "hinge" else j.min_angle,
                                float(jmax[k]) if j.kind == "hinge" else j.max_angle, stiffness[k], j.optional)
                  for k, j in enumerate(body.joints)]
        return physics.Body(spheres, bones, joints, list(body.clusters), body.self_collision, body.name)

    def off(self, parts) -> list[str]:
        """The labels of the switches ``parts`` has off."""
        return [s.label for s, on in zip(self.switches, parts) if not on]


#: the engine's bounds on each evolvable value (positions: as designs allow)
BOUNDS = {("sphere", "x"): (-1e4, 1e4), ("sphere", "y"): (-1e4, 1e4), ("sphere", "radius"): (0.0, 1e6),
           ("sphere", "mass"): (0.0, 1e6), ("sphere", "friction"): (0.0, 1e6),
           ("bone", "compliance"): (0.0, 1e6), ("bone", "width"): (0.0, 1e6), ("muscle", "strength"): (0.0, 1e9),
           ("muscle", "range"): (0.0, physics.MAX_MUSCLE_RANGE), ("muscle", "speed"): (0.0, 1e6),
           ("joint", "min"): (-math.pi - 1e-12, math.pi + 1e-12),
           ("joint", "max"): (-math.pi - 1e-12, math.pi + 1e-12), ("joint", "stiffness"): (0.0, 1e9)}
#: values that must stay above 0 (their range's low end too)
POSITIVE = {"radius", "mass", "strength", "range", "speed", "width"}

NO_GENES = BodyGenes()


def pieces(n: int, links, groups=()) -> list[int]:
    """Which piece each of ``n`` spheres is in (a representative sphere's index per sphere),
    joined by ``links`` (pairs of spheres: bones) and ``groups`` (lists of spheres: clusters)."""
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, k in links:
        parent[find(i)] = find(k)
    for members in groups:
        for i in members[1:]:
            parent[find(i)] = find(members[0])
    return [find(i) for i in range(n)]


def _num(v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError("values must be finite numbers")
    return float(v)


def _int(v) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError("an index must be a whole number")
    return v


def _why(exc: Exception) -> str:
    return f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
