"""Bodies that grow: evolution adds and removes spheres, bones and muscles (``creatures evolve
DESIGN --grow``).

A genome of a growing run carries a :class:`Plan` beside its brain: its spheres and bones as
genes, each with an *innovation number*, as NEAT numbers its connections, so that crossover lines
up the parts two bodies share by history and speciation counts the parts they do not. A sphere
gene is ``(innovation, slot, x, y, radius, mass)``, a bone gene ``(innovation, a, b, muscle)``: the
innovations of its two spheres, and the muscle's slot (-1 for a rigid bone). The design a run
starts from (the *seed*) is the first plan: its spheres are innovations ``0..P-1`` in slots
``0..P-1``, its bones ``P..P+E-1``; a part a mutation makes gets the number its structure has
had in the run (the sphere grown on bone 7's left side is the same innovation in every genome
that grows it), new numbers counting on from the seed's (:class:`Growth` keeps the table; the
checkpoint keeps it, so a resumed run numbers as the uninterrupted one does).

**The brain follows the body through slots.** A growing run's brains have one output per muscle
slot (``--max-muscles``) and one input per input any body of the run may have: the sensors'
inputs of a body with every sphere slot and muscle slot filled (the muscles sensor's ``muscle 3
length``, the contacts sensor's ``sphere 5 contact``...). A body's own sensors and muscles are
wired to the brain by their names (:class:`evolution.rollout.Wiring`): a new muscle takes the
lowest free muscle slot and is driven by that slot's output, its length read by that slot's
input; the inputs of empty slots read 0. Parts keep their slots for life, so a brain's
connections keep meaning the same part through the generations.

**Mutations** (each child, after its brain's, each with its rate of :class:`GrowSettings`): add a
sphere (the apex of a fat triangle on a bone, joined to both its ends: a Henneberg step, which
keeps a rigid body rigid), remove a sphere (with its bones), add a bone between two spheres,
remove one, turn a bone into a muscle or back, split a bone (a sphere in its middle, moved
aside), and move spheres and change their size and mass. In a generation, the children of one
structure that take one kind of change take the same one (a cohort: a new body is tried with
several brains, and shares their batch). A mutation whose body is not valid is not made
(:meth:`Growth.why_invalid`: within the limits the user set, one piece, no sphere inside
another, no triangle of bones flatter than :data:`MIN_ANGLE`, and no freer than the seed: a body that could
fold where no muscle or hinge lets it is never made; the seed's own flat triangles and close
spheres are its own). Every body is valid by construction, so none is refused at evaluation
and none costs a rollout to be found wanting. Hinges the seed has stay while their sphere and
both bones do. Each change of structure is a node of the run's family tree (:meth:`Growth.lineage`).

**A design's ranges and optional parts** keep working (:mod:`evolution.growgenes`): the ranges
of a seed sphere's position, size and mass bound its gene's values; the design's other genes are
carried beside the plan and set on the grown body's seed parts (:func:`grown_plan`); optional
spheres and bones are growth's to remove, as any part, and optional hinges keep their switches.

**Crossover** takes the structure of the fitter parent (as NEAT takes its disjoint genes) and the
values of each sphere the parents share from either; **speciation** adds the body's distance:
the parts not shared, over the larger body's part count, plus the shared spheres' mean
difference (:meth:`Growth.distance`).

Scoring a generation groups its creatures by topology (:func:`grown_runs`, :func:`score_grown`):
each group is one batched rollout of its bodies (each creature its own values,
``physics.stack_models``, and its own wiring to its brain), so each creature is stepped, bit for
bit, as it would be alone: results are the same whatever the workers and however the generation
is cut into chunks, and a champion replays alone exactly (:func:`grown_episode`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, fields, replace

import numpy as np

import physics

from .bodygenes import NO_GENES, BodyGenes, pieces
from .bodyplan import Plan
from .growgenes import seed_genes
from .plugins import PluginError
from .rollout import Episode, WiredBrains, Wiring

__all__ = ["GrowSettings", "Plan", "Growth", "Grown", "grown_episode", "grown_plan", "grown_record", "grown_runs", "score_grown",
           "topology", "part_names", "graph_names", "seed_limits", "RANK_TOL", "MIN_ANGLE"]

#: a rigidity-matrix singular value below this counts as a direction the body can fold in: a
#: triangle flatter than about 6 degrees is not rigid (well conditioned skeletons only)
RANK_TOL = 0.15
#: the shortest bone a body may have (m; and no shorter than half its spheres' radii together;
#: spheres not joined by a bone may overlap by half their radii, not at all with self-collision)
MIN_BONE = 0.05
#: the smallest angle of a triangle of bones (radians): engine 4's exact solve of a flatter one
#: driven by its muscles could blow up, which took 20 degrees; engine 5's holds such a triangle
#: at everyday strengths, and 8 degrees (about where the rigidity rank, RANK_TOL, calls a
#: triangle a fold) grew larger champions on four seeds of six instead of three (measured:
#: docs/evolving.md, "Bodies that grow")
MIN_ANGLE = math.radians(8.0)
#: sphere sizes and masses stay within these factors of the seed's smallest and largest
VALUE_SPREAD = 2.0


@dataclass(frozen=True)
class GrowSettings:
    """What a growing run may make (the user's limits) and how often each mutation happens (per
    child). ``size`` (m, the body's widest rest extent) and ``mass`` (kg, in all) of 0 are
    2.5 times the seed's size (at least 2 m) and 4 times its mass; ``min_mass`` (kg) and
    ``strength`` (N, every muscle's together; 0: no limit) are a challenge's rules. ``variants``:
    how many different changes of one kind the children of one structure take in a generation
    (:meth:`Growth.mutate`). ``plan_weight``: the weight of two body plans' distance in
    speciation (:meth:`Growth.distance`), beside the brains'."""

    spheres: int = 8
    muscles: int = 8
    bones: int = 20
    size: float = 0.0
    mass: float = 0.0
    min_mass: float = 0.0
    strength: float = 0.0
    add_sphere: float = 0.1
    remove_sphere: float = 0.05
    add_bone: float = 0.08
    remove_bone: float = 0.05
    toggle_muscle: float = 0.05
    split_bone: float = 0.03
    move: float = 0.2
    power: float = 0.1
    variants: int = 2
    #: the body plans' distance in speciation, times this: 1 for a run from before it, 6 for a
    #: new run (:func:`seed_limits`), which keeps new body plans in species of their own while
    #: their brains learn to use them: of six seeds of the sprout run, five champions of 4-5
    #: spheres instead of three at 1 and four at 3 (docs/evolving.md)
    plan_weight: float = 1.0
    #: the engine of graphs (``physics.build_model(body, graph=True)``): bodies that differ only
    #: in which bones are muscles share a batch (:func:`grown_runs`). A run's settings say it
    #: (:func:`seed_limits` for a new run); a run from before it, whose settings do not, steps its
    #: bodies' own models as it did
    graph: bool = False

    RATES = ("add_sphere", "remove_sphere", "add_bone", "remove_bone", "toggle_muscle", "split_bone", "move")

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data) -> "GrowSettings":
        """The settings of :meth:`to_dict`'s dict (missing keys: defaults); ValueError (one
        line) for anything else."""
        if not isinstance(data, dict):
            raise ValueError("the growth settings must be an object")
        known = {f.name: f for f in fields(cls)}
        for key in data:
            if key not in known:
                raise ValueError(f"unknown growth setting {key!r}")
        values = {}
        for key, value in data.items():
            if key == "graph":
                if not isinstance(value, bool):
                    raise ValueError("the growth setting graph must be true or false")
            elif key in ("spheres", "muscles", "bones", "variants"):
                if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 64:
                    raise ValueError(f"the growth setting {key} must be a whole number from 1 to 64")
            elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0 or (key in cls.RATES and value > 1):
                raise ValueError(f"the growth setting {key} must be a number >= 0"
                                 + (" and <= 1" if key in cls.RATES else ""))
            values[key] = value
        settings = cls(**values)
        if settings.spheres < 2:
            raise ValueError("a growing body needs room for 2 spheres at least")
        return settings


#: a new run's :attr:`GrowSettings.plan_weight`
NEW_PLAN_WEIGHT = 6.0


def seed_limits(seed: physics.Body, given: dict | None = None) -> dict:
    """Growth settings (:class:`GrowSettings` as a dict) for growing ``seed``: ``given`` (the
    user's), and where it says nothing the default limits raised to the seed's own spheres, bones
    and muscles where it has more (at most 64), so that a design bigger than the defaults (the
    eel's 13 spheres) grows from itself instead of being refused. A new run steps the engine of
    graphs (``graph``) and weighs body plans 6 times in speciation (``plan_weight``) unless
    ``given`` says otherwise."""
    out = dict(given or {})
    out.setdefault("graph", True)
    out.setdefault("plan_weight", NEW_PLAN_WEIGHT)
    default = GrowSettings()
    own = {"spheres": len(seed.spheres), "bones": len(seed.bones),
           "muscles": sum(1 for b in seed.bones if b.muscle is not None)}
    for key, n in own.items():
        if key not in out and n > getattr(default, key):
            out[key] = min(n, 64)
    return out


def _structure(plan: Plan) -> tuple:
    """A plan's structure: which spheres and bones it has, and which bones are muscles."""
    return (frozenset(s[0] for s in plan.spheres), frozenset((b[0], b[3] >= 0) for b in plan.bones))


def part_names(body_slots: tuple, muscle_slots: tuple, joints: tuple) -> dict:
    """The part names of a grown body: its spheres and muscles by slot (``sphere 3``, ``muscle
    2``), its hinges by the seed's joint numbers (``joint 0``)."""
    return {"sphere": [f"sphere {s}" for s in body_slots], "muscle": [f"muscle {m}" for m in muscle_slots],
            "joint": [f"joint {j}" for j in joints]}


def graph_names(body: physics.Body, names: dict) -> dict:
    """``body``'s part ``names`` as its graph's model has its parts (:attr:`GrowSettings.graph`):
    its muscles are :func:`physics.graph_bones`, a rod named ``rod E`` (E its bone)."""
    muscles = iter(names["muscle"])
    return {**names, "muscle": [next(muscles) if body.bones[e].muscle is not None else f"rod {e}"
                                for e in physics.graph_bones(body)]}


class Growth:
    """A growing run's body genetics: the seed design, the settings, and the table of
    innovation numbers (which grows as the run makes new parts)."""

    def __init__(self, seed: physics.Body, settings: GrowSettings = GrowSettings(), genes: BodyGenes = NO_GENES):
        if seed.clusters:
            raise ValueError("a body with rigid clusters cannot grow (--grow): clusters are not part of a "
                             "body plan")
        if seed.grouped:
            raise ValueError("a body whose muscles share commands (groups, invert) cannot grow (--grow): each "
                             "muscle of a grown body is driven on its own")
        P, E = len(seed.spheres), len(seed.bones)
        muscles = [b.muscle for b in seed.bones if b.muscle is not None]
        if not muscles:
            raise ValueError("the design has no muscles: there is nothing for a brain to drive")
        if P > settings.spheres or len(muscles) > settings.muscles or E > settings.bones:
            raise ValueError(f"the design has {P} spheres, {E} bones and {len(muscles)} muscles: more than a "
                             f"grown body may have ({settings.spheres}, {settings.bones}, {settings.muscles}; "
                             f"raise the limits)")
        self.seed, self.settings = seed, settings
        # the design's ranges and optional hinges (evolution.growgenes): bounds on the seed
        # spheres' plan values, and the genes a genome carries beside its plan
        self.genes = seed_genes(genes)
        pos = np.array([s.pos for s in seed.spheres], dtype=np.float64)
        radius = np.array([s.radius for s in seed.spheres])
        mass = np.array([s.mass for s in seed.spheres])
        extent = float(np.ptp(pos, axis=0).max()) + 2.0 * float(radius.max())
        self.max_size = settings.size or max(2.0, 2.5 * extent)
        self.max_mass = settings.mass or 4.0 * float(mass.sum())
        self.radius_range = (float(radius.min()) / VALUE_SPREAD, float(radius.max()) * VALUE_SPREAD)
        self.mass_range = (float(mass.min()) / VALUE_SPREAD, float(mass.max()) * VALUE_SPREAD)
        self.new_radius, self.new_mass = float(radius.mean()), float(mass.mean())
        lengths = [math.dist(seed.spheres[b.a].pos, seed.spheres[b.b].pos) for b in seed.bones]
        self.scale = float(np.mean(lengths)) if lengths else 0.3
        self.template_sphere = next((s for s in seed.spheres if not s.fixed), seed.spheres[0])
        self.template_muscle = muscles[0]
        self.n_seed_spheres, self.n_seed_bones = P, E
        # the innovation table: a structure's key -> its number (the seed's parts first)
        self.table: dict = {}
        for e, b in enumerate(seed.bones):
            self.table[("bone", min(b.a, b.b), max(b.a, b.b))] = P + e
        self.next = P + E
        self.freedom = self._freedom(self.seed_plan())
        self.allowed = self._seed_allowances()
        # the family tree of the bodies' structures: node -> (parent node, the generation it was
        # bred for, its plan then); a genome's ``body_node`` is its body's latest change
        self.history: dict = {0: (None, 0, self.seed_plan())}
        self.next_node = 1
        #: the generation last evaluated (set by the run before it breeds the next one)
        self.generation = 0
        self._menu: dict = {}        # this generation's recipes: (structure, change) -> recipe
        self._menu_generation = None
        self._vocabulary: dict = {}
        self._bodies: dict = {}
        self._models: dict = {}
        self._wirings: dict = {}

    def __getstate__(self):   # (to a worker: without what it makes for itself, or the history)
        return {**self.__dict__, "_vocabulary": {}, "_bodies": {}, "_models": {}, "_wirings": {}, "history": {},
                "_menu": {}}

    # --- the family tree of structures ----------------------------------------------------------
    def changed(self, node: int, before: Plan, after: Plan) -> int:
        """The node of a genome's body after a mutation from ``before`` to ``after``: ``node``
        if its structure is the same (only values moved), else a new node under it."""
        if _structure(before) == _structure(after):
            return node
        new, self.next_node = self.next_node, self.next_node + 1
        self.history[new] = (node, self.generation + 1, after)
        return new

    def adopt(self, plan: Plan) -> int:
        """Take in a plan grown by another run of this seed (a champion evolved further): new
        parts are numbered above its own, its bones keep their numbers for the same structure,
        and it becomes a node of the family tree under the seed. Returns that node. ValueError
        (one line) for a plan this run could not have grown."""
        self.check(plan)
        for innovation, a, b, _ in plan.bones:
            key = ("bone", a, b)
            if self.table.setdefault(key, innovation) != innovation:
                raise ValueError(f"the body plan numbers the bone between spheres {a} and {b} {innovation}, and "
                                 f"the seed numbers it {self.table[key]}")
        self.next = max([self.next] + [s[0] + 1 for s in plan.spheres] + [b[0] + 1 for b in plan.bones])
        if _structure(plan) == _structure(self.seed_plan()):
            return 0
        node, self.next_node = self.next_node, self.next_node + 1
        self.history[node] = (0, 0, plan)
        return node

    def lineage(self, node: int) -> list:
        """``[(generation, plan), ...]``: the structures of a body's ancestry, the seed first,
        each as it was when it changed (the generation it was bred for)."""
        out = []
        while node is not None and node in self.history:
            parent, generation, plan = self.history[node]
            out.append((generation, plan))
            node = parent
        return out[::-1]

    # --- the table of innovations ---------------------------------------------------------------
    def innovation(self, key: tuple) -> int:
        """The number of the part whose structure is ``key`` (a new one the first time)."""
        number = self.table.get(key)
        if number is None:
            number = self.table[key] = self.next
            self.next += 1
        return number

    def state(self, nodes=()) -> dict:
        """The table, and the family tree of the bodies of ``nodes`` (what is still alive), as
        plain data (for checkpoints)."""
        kept = set()
        for node in nodes:
            while node is not None and node in self.history and node not in kept:
                kept.add(node)
                node = self.history[node][0]
        return {"next": self.next, "table": [[*k, v] for k, v in self.table.items()],
                "next_node": self.next_node, "generation": self.generation,
                "history": [[n, p, g, self.history[n][2].to_dict()] for n, (p, g, _) in sorted(self.history.items())
                            if n in kept]}

    def set_state(self, data: dict) -> None:
        """The table and family tree of :meth:`state`'s data. ValueError for anything else."""
        try:
            table = {tuple(row[:-1]): int(row[-1]) for row in data["table"]}
            nxt = int(data["next"])
            history = {int(n): (None if p is None else int(p), int(g), Plan.from_dict(plan))
                       for n, p, g, plan in data.get("history", [])}
            next_node, generation = int(data.get("next_node", 1)), int(data.get("generation", 0))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"the growth innovations are damaged ({exc})") from None
        self.table, self.next = table, nxt
        self.history = history or {0: (None, 0, self.seed_plan())}
        self.next_node, self.generation = next_node, generation

    # --- plans ---------------------------------------------------------------------------------
    def seed_plan(self) -> Plan:
        """The seed design as a plan."""
        spheres = tuple((i, i, float(s.pos[0]), float(s.pos[1]), float(s.radius), float(s.mass))
                        for i, s in enumerate(self.seed.spheres))
        bones, m = [], 0
        for e, b in enumerate(self.seed.bones):
            slot = -1
            if b.muscle is not None:
                slot, m = m, m + 1
            bones.append((self.n_seed_spheres + e, min(b.a, b.b), max(b.a, b.b), slot))
        return Plan(spheres, tuple(bones))

    def body(self, plan: Plan) -> tuple[physics.Body, tuple, dict]:
        """The body of ``plan`` (spheres in slot order, or in a run of the engine of graphs in
        :meth:`graph_order`; bones in the order of their spheres), its shape (a key: bodies of one
        shape share a batch) and its part names. The same plan always makes the same body, to
        the bit."""
        cached = self._bodies.get(plan)
        if cached is not None:
            return cached
        seed = self.seed
        got, off = self.genes.values(plan.values, plan.parts) if self.genes.carried else ({}, ())
        spheres = sorted(plan.spheres, key=lambda s: s[1])
        if self.settings.graph:
            spheres = self.graph_order(plan, spheres)
        index = {s[0]: k for k, s in enumerate(spheres)}
        slot_of = {s[0]: s[1] for s in spheres}
        out_spheres = []
        for innovation, _, x, y, radius, mass in spheres:
            t = seed.spheres[innovation] if innovation < self.n_seed_spheres else self.template_sphere
            friction, kinetic = t.friction, t.kinetic_friction
            if ("sphere", innovation, "friction") in got:   # (a kinetic friction at most the static)
                friction = got["sphere", innovation, "friction"]
                kinetic = None if kinetic is None else min(kinetic, friction)
            out_spheres.append(physics.Sphere((x, y), radius, mass, friction, kinetic, t.restitution,
                                              t.fixed and innovation < self.n_seed_spheres))
        bones = sorted(plan.bones, key=lambda b: (min(index[b[1]], index[b[2]]), max(index[b[1]], index[b[2]])))
        out_bones, shape_bones, muscle_slots = [], [], []
        for innovation, a, b, m in bones:
            own = seed.bones[innovation - self.n_seed_spheres] if self.n_seed_spheres <= innovation < \
                self.n_seed_spheres + self.n_seed_bones else None
            muscle = None
            e = innovation - self.n_seed_spheres   # (a seed bone's index, if it is one)
            if m >= 0:
                t = own.muscle if own is not None and own.muscle is not None else self.template_muscle
                muscle = physics.Muscle(got.get(("muscle", e, "range"), t.range),
                                        got.get(("muscle", e, "strength"), t.strength),
                                        got.get(("muscle", e, "speed"), t.speed), None, False, t.stretch, t.damping)
                muscle_slots.append(m)
            compliance = got.get(("bone", e, "compliance"), own.compliance) if own is not None and m < 0 else 0.0
            width, wing = (got.get(("bone", e, "width"), own.width), own.wing) if own is not None else (None, False)
            ia, ib = sorted((index[a], index[b]))
            out_bones.append(physics.Bone(ia, ib, None, compliance, muscle, False, width, wing))
            shape_bones.append((slot_of[a], slot_of[b], m, compliance > 0, wing))
        linked = {(min(a, b), max(a, b)) for _, a, b, _ in plan.bones}
        joints, joint_ids = [], []
        pos = {s[0]: (s[2], s[3]) for s in spheres}
        for j, jt in enumerate(seed.joints):
            c, a, b = jt.c, jt.a, jt.b
            if not all(k in index for k in (c, a, b)) or (min(c, a), max(c, a)) not in linked \
                    or (min(c, b), max(c, b)) not in linked or j in off:
                continue
            lo, hi = got.get(("joint", j, "min"), jt.min_angle), got.get(("joint", j, "max"), jt.max_angle)
            if jt.kind == "hinge":   # the limits widened to hold the rest angle the positions set
                u = np.subtract(pos[a], pos[c])
                v = np.subtract(pos[b], pos[c])
                rest = math.atan2(u[0] * v[1] - u[1] * v[0], u[0] * v[0] + u[1] * v[1])
                lo, hi = max(min(lo, rest), -math.pi), min(max(hi, rest), math.pi)
            joints.append(physics.Joint(index[c], index[a], index[b], jt.kind, lo, hi,
                                        got.get(("joint", j, "stiffness"), jt.stiffness)))
            joint_ids.append(j)
        slots = tuple(s[1] for s in spheres)
        body = physics.Body(out_spheres, out_bones, joints, [], seed.self_collision, f"{seed.name} (grown)")
        shape = (slots, tuple(shape_bones), tuple(joint_ids),
                 tuple(bool(s.fixed) for s in out_spheres))
        result = (body, shape, part_names(slots, tuple(muscle_slots), tuple(joint_ids)))
        if len(self._bodies) > 4096:
            self._bodies.clear()
        self._bodies[plan] = result
        return result

    def model(self, plan: Plan) -> physics.Model:
        """The model of one creature of ``plan``'s body (:meth:`body`), made once per plan (a
        plan that comes back in a later generation, an elite's or a child's body unchanged, is
        not built again; a model cannot be changed)."""
        model = self._models.get(plan)
        if model is None:
            if len(self._models) > 4096:
                self._models.clear()
            model = self._models[plan] = physics.build_model(self.body(plan)[0], 1, graph=self.settings.graph)
        return model

    def graph_order(self, plan: Plan, spheres: list) -> list:
        """``plan``'s ``spheres`` (in slot order) in the order of their places in its graph, so
        that bodies of one graph numbered by other slots are one graph's bodies (a batch of the
        engine of graphs, :func:`grown_runs`): colour refinement (Weisfeiler and Leman), each
        sphere's colour its fixing, then the colours of its neighbours along bones of each kind,
        until the colours split no further; spheres of one colour in slot order."""
        k_of = {s[0]: k for k, s in enumerate(spheres)}
        P, E0 = self.n_seed_spheres, self.n_seed_bones
        near: list = [[] for _ in spheres]
        for innovation, a, b, m in plan.bones:
            own = self.seed.bones[innovation - P] if P <= innovation < P + E0 else None
            kind = (own is not None and m < 0 and own.compliance > 0, own is not None and bool(own.wing))
            near[k_of[a]].append((k_of[b], kind))
            near[k_of[b]].append((k_of[a], kind))
        colour = [int(s[0] < P and bool(self.seed.spheres[s[0]].fixed)) for s in spheres]
        for _ in range(len(spheres)):
            seen = [(colour[i], tuple(sorted((colour[j], kind) for j, kind in near[i]))) for i in range(len(spheres))]
            rank = {v: r for r, v in enumerate(sorted(set(seen)))}
            split = [rank[v] for v in seen]
            if len(rank) == len(set(colour)):
                break
            colour = split
        return [spheres[i] for i in sorted(range(len(spheres)), key=lambda i: (colour[i], i))]

    # --- validity ------------------------------------------------------------------------------
    def _freedom(self, plan: Plan) -> int:
        """How many ways the body can fold with every bone and muscle held at its length (the
        rigidity matrix's nullity less the 3 rigid motions), a fold under :data:`RANK_TOL`
        counted as free."""
        n = len(plan.spheres)
        if n < 2:
            return 0
        col = {s[0]: k for k, s in enumerate(plan.spheres)}
        pos = {s[0]: (s[2], s[3]) for s in plan.spheres}
        R = np.zeros((max(1, len(plan.bones)), 2 * n))
        for e, (_, a, b, _) in enumerate(plan.bones):
            d = np.subtract(pos[a], pos[b])
            u = d / max(math.hypot(*d), 1e-12)
            R[e, 2 * col[a]:2 * col[a] + 2] = u
            R[e, 2 * col[b]:2 * col[b] + 2] = -u
        s = np.linalg.svd(R, compute_uv=False)
        return 2 * n - 3 - int(np.count_nonzero(s > RANK_TOL))

    def _seed_allowances(self) -> dict:
        """What the seed itself has that a body grown now may not: its flatter triangles (by
        their spheres' innovations) and its closer sphere pairs (by pair), each with how far a
        body may take it (three quarters of the seed's angle or distance). A design is grown
        as it is: rules for new parts are not laws for the design's own."""
        plan = self.seed_plan()
        pos = np.array([(s[2], s[3]) for s in plan.spheres])
        radius = [s[4] for s in plan.spheres]
        pairs = {(b[1], b[2]) for b in plan.bones}
        allowed: dict = {}
        for i in range(len(pos)):
            for k in range(i + 1, len(pos)):
                d = math.dist(pos[i], pos[k])
                linked = (i, k) in pairs
                least = (max(MIN_BONE, 0.5 * (radius[i] + radius[k])) if linked else
                         (radius[i] + radius[k]) * (1.0 if self.seed.self_collision else 0.5))
                if d < least:
                    allowed[(i, k)] = 0.75 * d
        for triangle, angle in _triangles(pos, [(b[1], b[2]) for b in plan.bones]):
            if angle < MIN_ANGLE:
                allowed[frozenset(triangle)] = 0.75 * angle
        return allowed

    def why_invalid(self, plan: Plan) -> str | None:
        """None for a valid plan, else why not (one line)."""
        g = self.settings
        n, E, M = plan.size()
        if not 2 <= n <= g.spheres:
            return f"{n} spheres (2 to {g.spheres})"
        if not 1 <= M <= g.muscles or E > g.bones:
            return f"{E} bones and {M} muscles (at most {g.bones}, 1 to {g.muscles})"
        innovations = [s[0] for s in plan.spheres]
        slots = [s[1] for s in plan.spheres]
        if len(set(innovations)) != n or len(set(slots)) != n or not all(0 <= s < g.spheres for s in slots):
            return "spheres share an innovation or a slot"
        muscle_slots = [b[3] for b in plan.bones if b[3] >= 0]
        if len(set(muscle_slots)) != M or not all(m < g.muscles for m in muscle_slots) \
                or any(b[3] < -1 for b in plan.bones):
            return "muscles share a slot"
        at = {s[0]: s for s in plan.spheres}
        pairs = set()
        for innovation, a, b, _ in plan.bones:
            if a not in at or b not in at or not a < b:
                return f"bone {innovation} joins spheres the body does not have"
            pairs.add((a, b))
        if len(pairs) != E or len({b[0] for b in plan.bones} | set(innovations)) != n + E:
            return "two bones join the same spheres, or parts share an innovation"
        for s in plan.spheres:
            (lo_r, hi_r), (lo_m, hi_m) = self._ranges(s[0])
            if not (lo_r <= s[4] <= hi_r and lo_m <= s[5] <= hi_m):
                return "a sphere's size or mass is out of range"
            if s[0] < self.n_seed_spheres and not all(lo <= v <= hi for (lo, hi), v in zip(self._place(s[0]), s[2:4])):
                return "a sphere is out of its design's range"
        pos = np.array([(s[2], s[3]) for s in plan.spheres])
        radius = np.array([s[4] for s in plan.spheres])
        extent = float(np.ptp(pos, axis=0).max()) + 2.0 * float(radius.max())
        total = sum(s[5] for s in plan.spheres)
        if extent > self.max_size or not g.min_mass <= total <= self.max_mass:
            return "too large, too heavy or too light"
        if g.strength and sum(self._strength(b[0]) for b in plan.bones if b[3] >= 0) > g.strength:
            return "its muscles are stronger together than the limit"
        row = {s[0]: k for k, s in enumerate(plan.spheres)}
        for i in range(n):
            for k in range(i + 1, n):
                d = math.dist(pos[i], pos[k])
                a, b = sorted((plan.spheres[i][0], plan.spheres[k][0]))
                if (a, b) in pairs:
                    least = max(MIN_BONE, 0.5 * (radius[i] + radius[k]))
                else:
                    least = (radius[i] + radius[k]) * (1.0 if self.seed.self_collision else 0.5)
                if d < min(least, self.allowed.get((a, b), least)):
                    return "a bone too short" if (a, b) in pairs else "spheres inside each other"
        if len(set(pieces(n, [(row[a], row[b]) for _, a, b, _ in plan.bones]))) > 1:
            return "in pieces"
        ids = [s[0] for s in plan.spheres]
        for triangle, angle in _triangles(pos, [(row[a], row[b]) for _, a, b, _ in plan.bones]):
            if angle < min(MIN_ANGLE, self.allowed.get(frozenset(ids[k] for k in triangle), MIN_ANGLE)):
                return "a triangle too flat"
        if self._freedom(plan) > self.freedom:
            return "it can fold where no muscle or hinge lets it"
        return None

    def _strength(self, bone: int) -> float:
        """The strength of the muscle bone ``bone`` (an innovation) is made with (the most its
        design's range lets it have, where it has one)."""
        own = bone - self.n_seed_spheres
        if 0 <= own < self.n_seed_bones and self.seed.bones[own].muscle is not None:
            strongest = self.genes.strongest(own)
            return self.seed.bones[own].muscle.strength if strongest is None else strongest
        return self.template_muscle.strength

    def _ranges(self, sphere: int) -> tuple:
        """``((low, high) of its radius, (low, high) of its mass)`` for sphere ``sphere`` (an
        innovation): its design's ranges for a seed sphere that has them, else the run's."""
        bounds = self.genes.bounds
        return (bounds.get((sphere, "radius"), self.radius_range), bounds.get((sphere, "mass"), self.mass_range))

    def _place(self, sphere: int) -> tuple:
        """``((low, high) of x, (low, high) of y)`` for seed sphere ``sphere`` (unbounded: no range)."""
        bounds, free = self.genes.bounds, (-math.inf, math.inf)
        return bounds.get((sphere, "x"), free), bounds.get((sphere, "y"), free)

    def valid(self, plan: Plan) -> bool:
        return self.why_invalid(plan) is None

    def check(self, plan: Plan) -> None:
        """Raise ValueError (one line) unless ``plan`` is a valid body of this run."""
        why = self.why_invalid(plan)
        if why is not None:
            raise ValueError(f"the body plan is not a valid body: {why}")

    # --- breeding (draws from the global random, as neat-python does) ---------------------------
    def crossover(self, fitter: Plan, other: Plan) -> Plan:
        """A child of two plans: the fitter parent's structure; each sphere both have, its values
        from either."""
        theirs = {s[0]: s for s in other.spheres}
        spheres = []
        for s in fitter.spheres:
            t = theirs.get(s[0])
            spheres.append(s if t is None or random.random() > 0.5 else (s[0], s[1], *t[2:]))
        child = Plan(tuple(spheres), fitter.bones)
        return child if child == fitter or self.valid(child) else fitter

    #: the structural mutations, in the order a child may take them
    CHANGES = ("add_sphere", "remove_sphere", "add_bone", "remove_bone", "toggle_muscle", "split_bone")

    def mutate(self, plan: Plan) -> Plan:
        """``plan`` mutated: each structural mutation with its rate, then the spheres' values;
        a mutation that would make an invalid body is not made.

        Within a generation, the children of one structure that take one kind of change take
        one of ``variants`` changes (*recipes*: which bone a sphere grows on and where, which
        bone goes, which becomes a muscle...), drawn by the first ``variants`` of them, the rest
        picking one at random: a new body is tried with as many brains as happen to get it, not
        one, and creatures of one shape share a batch (a body with a batch of its own costs as
        much as dozens in one: docs/performance.md). One variant grew the sprout into triangles
        on five run seeds of six; two (the default) grew bodies of 4-5 spheres on five of six
        (docs/evolving.md, "Bodies that grow")."""
        g = self.settings
        if self._menu_generation != self.generation:
            self._menu, self._menu_generation = {}, self.generation
        for name in self.CHANGES:
            if random.random() < getattr(g, name):
                recipes = self._menu.setdefault((_structure(plan), name), [])
                if len(recipes) < g.variants:
                    recipes.append(getattr(self, "_draw_" + name)(plan))
                    recipe = recipes[-1]
                else:
                    recipe = recipes[int(random.random() * len(recipes))]
                child = None if recipe is None else getattr(self, "_" + name)(plan, recipe)
                if child is not None and self.valid(child):
                    plan = child
        if g.move > 0:
            spheres = list(plan.spheres)
            gauss, step = random.gauss, g.power * self.scale
            for k, (innovation, slot, x, y, radius, mass) in enumerate(plan.spheres):
                if random.random() < g.move:
                    (lo_r, hi_r), (lo_m, hi_m) = self._ranges(innovation)
                    x, y = x + gauss(0.0, step), y + gauss(0.0, step)
                    if innovation < self.n_seed_spheres and self.genes.bounds:   # its design's ranges
                        (lo_x, hi_x), (lo_y, hi_y) = self._place(innovation)
                        x, y = min(hi_x, max(lo_x, x)), min(hi_y, max(lo_y, y))
                    moved = (innovation, slot, x, y,
                             min(hi_r, max(lo_r, radius * math.exp(gauss(0.0, g.power)))),
                             min(hi_m, max(lo_m, mass * math.exp(gauss(0.0, g.power)))))
                    before, spheres[k] = spheres[k], moved
                    if not self.valid(Plan(tuple(spheres), plan.bones)):
                        spheres[k] = before
            plan = Plan(tuple(spheres), plan.bones)
        return plan

    # each change: _draw_NAME(plan) draws a recipe (or None: none can be made), _NAME(plan,
    # recipe) makes it on a plan of the structure it was drawn for (None: it cannot be made there)

    @staticmethod
    def _free(used, limit: int) -> int | None:
        used = set(used)
        return next((k for k in range(limit) if k not in used), None)

    def _muscles(self, plan: Plan, wanted) -> list:
        """Muscle slots for new bones that ``wanted`` one (the lowest free), else -1."""
        used, out = [b[3] for b in plan.bones], []
        for want in wanted:
            slot = self._free(used, self.settings.muscles) if want else None
            out.append(-1 if slot is None else slot)
            used.append(out[-1])
        return out

    @staticmethod
    def _pick(items):
        return items[int(random.random() * len(items))]

    def _draw_apex(self, plan: Plan, height: tuple, muscles: int):
        """Where a new sphere goes on a bone: ``(bone, side, along, height, wants a muscle...)``."""
        bone = self._pick(plan.bones)[0]
        side = 1 if random.random() < 0.5 else -1
        t = 0.25 + 0.5 * random.random()
        h = height[0] + (height[1] - height[0]) * random.random()
        return (bone, side, t, h, *(random.random() < 0.5 for _ in range(muscles)))

    def _apex(self, plan: Plan, recipe: tuple, key: str):
        """The new sphere of an apex ``recipe``: ``(bone, innovation, slot, x, y)``, or None."""
        bone_id, side, t, h = recipe[:4]
        at = {s[0]: s for s in plan.spheres}
        bone = next(b for b in plan.bones if b[0] == bone_id)
        innovation = self.innovation((key, bone_id, side))
        slot = self._free([s[1] for s in plan.spheres], self.settings.spheres)
        if innovation in at or slot is None:
            return None
        a, b = np.array(at[bone[1]][2:4]), np.array(at[bone[2]][2:4])
        base = b - a
        length = math.hypot(*base)
        normal = np.array([-base[1], base[0]]) / length * side
        p = a + t * base + h * length * normal
        return bone, innovation, slot, float(p[0]), float(p[1])

    def _joined(self, ends, innovation: int, muscles) -> tuple:
        """The bones joining new sphere ``innovation`` to spheres ``ends``, muscles as given."""
        return tuple((self.innovation(("bone", min(e, innovation), max(e, innovation))), min(e, innovation),
                      max(e, innovation), m) for e, m in zip(ends, muscles))

    def _draw_add_sphere(self, plan: Plan):
        return self._draw_apex(plan, (0.45, 1.1), 2)

    def _add_sphere(self, plan: Plan, recipe) -> Plan | None:
        apex = self._apex(plan, recipe, "sphere")
        if apex is None:
            return None
        bone, innovation, slot, x, y = apex
        new = self._joined(bone[1:3], innovation, self._muscles(plan, recipe[4:]))
        return Plan(plan.spheres + ((innovation, slot, x, y, self.new_radius, self.new_mass),), plan.bones + new)

    def _draw_remove_sphere(self, plan: Plan):
        return self._pick(plan.spheres)[0] if len(plan.spheres) > 2 else None

    def _remove_sphere(self, plan: Plan, gone) -> Plan | None:
        return Plan(tuple(s for s in plan.spheres if s[0] != gone),
                    tuple(b for b in plan.bones if gone not in (b[1], b[2])))

    def _draw_add_bone(self, plan: Plan):
        linked = {(b[1], b[2]) for b in plan.bones}
        ids = [s[0] for s in plan.spheres]
        free = [(min(a, b), max(a, b)) for i, a in enumerate(ids) for b in ids[i + 1:]
                if (min(a, b), max(a, b)) not in linked]
        return (*self._pick(free), random.random() < 0.5) if free else None

    def _add_bone(self, plan: Plan, recipe) -> Plan | None:
        a, b, want = recipe
        return Plan(plan.spheres, plan.bones + ((self.innovation(("bone", a, b)), a, b,
                                                 self._muscles(plan, [want])[0]),))

    def _draw_remove_bone(self, plan: Plan):
        return self._pick(plan.bones)[0]

    def _remove_bone(self, plan: Plan, gone) -> Plan | None:
        return Plan(plan.spheres, tuple(b for b in plan.bones if b[0] != gone))

    def _draw_toggle_muscle(self, plan: Plan):
        return self._pick(plan.bones)[0]

    def _toggle_muscle(self, plan: Plan, bone_id) -> Plan | None:
        bones = list(plan.bones)
        k = next(k for k, b in enumerate(bones) if b[0] == bone_id)
        innovation, a, b, m = bones[k]
        m = self._muscles(plan, [True])[0] if m < 0 else -1
        if m < 0 and bones[k][3] < 0:
            return None   # no muscle slot free
        bones[k] = (innovation, a, b, m)
        return Plan(plan.spheres, tuple(bones))

    def _draw_split_bone(self, plan: Plan):
        return self._draw_apex(plan, (0.25, 0.5), 1)

    def _split_bone(self, plan: Plan, recipe) -> Plan | None:
        apex = self._apex(plan, recipe, "split")
        if apex is None:
            return None
        bone, innovation, slot, x, y = apex
        kept = Plan(plan.spheres, tuple(b for b in plan.bones if b[0] != bone[0]))
        new = self._joined(bone[1:3], innovation, [bone[3]] + self._muscles(plan, recipe[4:]))
        return Plan(plan.spheres + ((innovation, slot, x, y, self.new_radius, self.new_mass),), kept.bones + new)

    def distance(self, a: Plan, b: Plan) -> float:
        """Two bodies' distance: the parts one has and the other not, and the muscles one has
        where the other has a bone, over the larger body's part count; plus the mean difference
        of the spheres both have (positions in the seed's bone lengths, sizes and masses as
        log ratios); times :attr:`GrowSettings.plan_weight`."""
        if a is b or a == b:
            return 0.0
        sa, sb = {s[0]: s for s in a.spheres}, {s[0]: s for s in b.spheres}
        ba, bb = {e[0]: e[3] >= 0 for e in a.bones}, {e[0]: e[3] >= 0 for e in b.bones}
        disjoint = len(sa.keys() ^ sb.keys()) + len(ba.keys() ^ bb.keys())
        disjoint += sum(1 for k in ba.keys() & bb.keys() if ba[k] != bb[k])
        shared = sa.keys() & sb.keys()
        values = 0.0
        for k in shared:
            p, q = sa[k], sb[k]
            values += (math.hypot(p[2] - q[2], p[3] - q[3]) / self.scale + abs(math.log(p[4] / q[4]))
                       + abs(math.log(p[5] / q[5])))
        parts = max(len(a.spheres) + len(a.bones), len(b.spheres) + len(b.bones))
        return self.settings.plan_weight * (disjoint / parts + (values / len(shared) if shared else 0.0))

    # --- the brain's inputs and outputs ---------------------------------------------------------
    def vocabulary(self, episode: Episode) -> list[str]:
        """The brain's inputs, by name: the sensors' inputs of a body with every slot filled.
        Raises PluginError for sensors whose inputs are not named one by one."""
        known = self._vocabulary.get(id(episode.sensors))
        if known is not None and known[0] is episode.sensors:
            return known[1]
        g, S = self.settings, self.settings.spheres
        angle = [2.0 * math.pi * k / S for k in range(S)]
        R = max(0.5, 0.2 * S / math.pi)
        spheres = [physics.Sphere((R * math.cos(t), R + 1.0 + R * math.sin(t)), 0.05, 1.0) for t in angle]
        pairs = [(k, k + 1) for k in range(S - 1)] + [(i, k) for i in range(S) for k in range(i + 2, S)]
        bones = [physics.Bone(a, b, None, 0.0, physics.Muscle() if e < g.muscles else None)
                 for e, (a, b) in enumerate(pairs[:max(g.muscles, S - 1)])]
        joints = [physics.Joint(j.c, j.a, j.b, "free") for j in self.seed.joints]
        full = physics.Body(spheres, bones, joints)
        names = part_names(tuple(range(S)), tuple(range(g.muscles)), tuple(range(len(joints))))
        labels = replace(episode, body=full, part_names=names, wiring=None, growth=None, genes=NO_GENES,
                         graph=False).input_names()
        if len(set(labels)) != len(labels):
            raise PluginError("the sensors name some of their inputs alike: a growing body's brain wires its "
                              "inputs by name (--grow needs sensors that name each input)")
        self._vocabulary[id(episode.sensors)] = (episode.sensors, labels)
        return labels

    def wiring(self, episode: Episode, body: physics.Body, names: dict, shape: tuple | None = None) -> Wiring:
        """How ``body`` (with part ``names``, :meth:`body`) meets the brain of ``episode``'s run.
        Given its ``shape`` (:meth:`body`'s), made once per shape and episode: the sensors name
        their inputs after the parts they read, not after their sizes or places (as
        :meth:`vocabulary` has them do), so bodies of one shape are wired alike."""
        if shape is not None:
            known = self._wirings.get(id(episode))
            if known is None or known[0] is not episode:
                if len(self._wirings) > 8:
                    self._wirings.clear()
                known = self._wirings[id(episode)] = (episode, {})
            wiring = known[1].get(shape)
            if wiring is None:
                if len(known[1]) > 4096:
                    known[1].clear()
                wiring = known[1][shape] = self.wiring(episode, body, names)
            return wiring
        vocabulary = {label: k for k, label in enumerate(self.vocabulary(episode))}
        labels = replace(episode, body=body, part_names=names, wiring=None, growth=None,
                         genes=NO_GENES, graph=self.settings.graph).input_names()
        missing = [label for label in labels if label not in vocabulary and not label.startswith("rod ")]
        if missing:
            raise PluginError(f"a grown body has the input {missing[0]!r}, which the brain has not: a growing "
                              f"body's brain wires its inputs by name (--grow needs sensors that name each input "
                              f"after the part it reads)")
        # (a graph's rods, their commands and the inputs that read them, are wired to nothing: -1)
        outputs = tuple(int(name.split()[-1]) if name.startswith("muscle ") else -1 for name in names["muscle"])
        return Wiring(len(vocabulary), self.settings.muscles, tuple(vocabulary.get(label, -1) for label in labels),
                      outputs)


def _triangles(pos: np.ndarray, links: list):
    """Each triangle of spheres joined pairwise by ``links`` (rows of ``pos``), with its smallest
    angle (radians)."""
    near: dict = {}
    for a, b in links:
        near.setdefault(a, set()).add(b)
        near.setdefault(b, set()).add(a)
    for a, b in links:
        for c in near[a] & near[b]:
            if c > max(a, b):
                worst = math.pi
                for p, q, r in ((a, b, c), (b, c, a), (c, a, b)):
                    u, v = pos[q] - pos[p], pos[r] - pos[p]
                    worst = min(worst, abs(math.atan2(u[0] * v[1] - u[1] * v[0], u[0] * v[0] + u[1] * v[1])))
                yield (a, b, c), worst


def grown_plan(genome) -> Plan:
    """A genome's body genes as its body is built from them: its plan, with the design's genes
    it carries beside it (:mod:`evolution.growgenes`)."""
    return genome.body_plan.with_genes(getattr(genome, "body_values", ()), getattr(genome, "body_parts", ()))


def grown_episode(episode: Episode, growth: Growth, plan: Plan) -> tuple[Episode, tuple, physics.Body]:
    """The episode that scores ``plan``'s body in ``episode``'s run (a growing one): its body,
    part names and wiring; with its shape (bodies of one shape share a batch) and the body."""
    body, shape, names = growth.body(plan)
    if growth.settings.graph:
        names = graph_names(body, names)
    wiring = growth.wiring(episode, body, names, shape)
    grown = replace(episode, body=body, part_names=names, wiring=wiring, varied=True, growth=None,
                    genes=NO_GENES, graph=growth.settings.graph)
    return grown, shape, body


def grown_record(episode: Episode, growth: Growth, plan: Plan) -> dict:
    """What a champion of ``plan``'s body carries besides it (:class:`Grown`), as plain data."""
    grown, shape, _ = grown_episode(episode, growth, plan)
    return Grown(grown.wiring, shape[0], growth.settings.spheres, growth.body(plan)[2], growth.settings.to_dict(),
                 growth.genes.carried).to_dict()


def topology(body: physics.Body, graph: bool = False) -> tuple:
    """What a batch of bodies must share (``physics.stack_models``): spheres, bones (their
    spheres, muscle or not, compliant or not, wing or not) and joints by index, and whether
    spheres collide with each other; with ``graph`` (their graph's models) not which bones are
    muscles. Grown bodies of one topology wired to their brains by different slots share a batch."""
    return (len(body.spheres), tuple((b.a, b.b, b.muscle is not None and not graph, b.compliance > 0, b.wing)
                                     for b in body.bones),
            tuple((j.c, j.a, j.b, j.kind) for j in body.joints), body.self_collision,
            tuple(bool(s.fixed) for s in body.spheres))


def grown_runs(episode: Episode, growth: Growth, plans: list, networks, starts=None) -> list:
    """``(EpisodeRun, creatures (B_k,) ints)`` for creatures of grown bodies: creature ``c`` has
    body ``plans[c]`` and brain ``c`` of ``networks`` (:class:`evolution.network.CompiledNetworks`),
    from the start moved by ``starts[c]`` ((C, S, 2) by sphere slot; None: the exact start).
    Creatures of one topology (:func:`topology`; of one graph, in a run of the engine of graphs:
    :attr:`GrowSettings.graph`) are one batch, each wired to its brain by its own slots
    (:class:`evolution.rollout.WiredBrains`): each steps, bit for bit, as it would alone. What
    evolution scores (:func:`score_grown`) and the play window's crowd steps."""
    from .network import NetworkBatch
    from .rollout import EpisodeRun
    groups: dict = {}
    for c, plan in enumerate(plans):
        grown, shape, body = grown_episode(episode, growth, plan)
        group = groups.setdefault(topology(body, growth.settings.graph), (grown, [], [], [], []))
        for items, item in zip(group[1:], (c, growth.model(plan), grown.wiring, shape[0])):
            items.append(item)
    out = []
    for grown, members, models, wirings, slots in groups.values():
        idx = np.asarray(members, dtype=np.int64)
        B = len(members)
        offsets = None
        if starts is not None:
            offsets = np.ascontiguousarray(np.asarray(starts)[idx[:, None], np.asarray(slots, dtype=np.int64)])
        brains = WiredBrains(NetworkBatch(networks.take(idx)), grown.wiring.n_inputs,
                             [w.inputs for w in wirings], [w.outputs for w in wirings], B)
        out.append((EpisodeRun(replace(grown, wiring=None), brains, B, False, models, offsets), idx))
    return out


def score_grown(episode: Episode, growth: Growth, plans: list, networks, starts=None, report=None, every: int = 30):
    """Score creatures of grown bodies (:func:`grown_runs` says which and how), each batch to the
    episode's end. ``report(creature_steps)`` every ``every`` steps, if given. Returns ``(fitness,
    failed, nonfinite, warnings)`` in creature order."""
    C = len(plans)
    fitness, failed, nonfinite = np.zeros(C), np.zeros(C, dtype=np.bool_), np.zeros(C, dtype=np.bool_)
    warnings: list = []
    for run, idx in grown_runs(episode, growth, plans, networks, starts):
        run.run_to_end(report, every)
        fitness[idx], failed[idx], nonfinite[idx] = run.fitness(), run.failed, run.nonfinite
        warnings += [w for w in run.warnings if w not in warnings]
    return fitness, failed, nonfinite, warnings


@dataclass(frozen=True)
class Grown:
    """What a grown champion carries besides its body (a fixed body, to the bit the one it was
    scored with): how its brain is wired to it, which sphere slot each of its spheres is (a
    trial's start moves spheres by slot), how many slots its run had, its parts' names, and its
    run's growth settings (:class:`GrowSettings` as a dict: a run that evolves it further grows
    as that one did; None in a file from before they were recorded), and the design's genes its
    genome carries beside its plan (:mod:`evolution.growgenes`; its body has their values)."""

    wiring: Wiring
    slots: tuple
    slot_count: int
    names: dict
    settings: dict | None = None
    genes: BodyGenes = NO_GENES

    @property
    def graph(self) -> bool:
        """Whether its run stepped its graph's model (:attr:`GrowSettings.graph`): it replays so."""
        return bool(self.settings and self.settings.get("graph"))

    def offsets(self, offsets) -> np.ndarray:
        """Starts made for every slot ((K, slot_count, 2)) as this body's ((K, P, 2))."""
        return np.ascontiguousarray(np.asarray(offsets)[:, list(self.slots)])

    def to_dict(self) -> dict:
        return {"wiring": self.wiring.to_dict(), "slots": list(self.slots), "slot_count": self.slot_count,
                "names": {k: list(v) for k, v in self.names.items()},
                **({"grow": dict(self.settings)} if self.settings is not None else {}),
                **({"genes": self.genes.to_dict()} if self.genes else {})}

    @classmethod
    def from_dict(cls, data, body: physics.Body) -> "Grown":
        """The record of :meth:`to_dict`'s dict for ``body``; ValueError (one line) otherwise."""
        if not isinstance(data, dict):
            raise ValueError("'grown' must be an object")
        wiring = Wiring.from_dict(data.get("wiring"))
        slots, count = data.get("slots"), data.get("slot_count")
        if isinstance(count, bool) or not isinstance(count, int) or not 2 <= count <= 64:
            raise ValueError("the grown body's slot_count must be a whole number from 2 to 64")
        if not isinstance(slots, list) or len(slots) != len(body.spheres) or len(set(slots)) != len(slots) \
                or any(isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < count for s in slots):
            raise ValueError("the grown body's slots must be one different slot per sphere")
        names = data.get("names")
        if not isinstance(names, dict) or not all(isinstance(v, list) and all(isinstance(x, str) for x in v)
                                                  for v in names.values()):
            raise ValueError("the grown body's names must be lists of names")
        settings = data.get("grow")
        if settings is not None:
            GrowSettings.from_dict(settings)   # (one line)
            settings = dict(settings)
        muscles = sum(1 for b in body.bones if b.muscle is not None)
        driven = sum(1 for k in wiring.outputs if k >= 0)
        # (its graph's model drives its muscles and holds its other bones as rods: physics.graph_bones)
        bones = len(physics.graph_bones(body)) if settings and settings.get("graph") else muscles
        if driven != muscles or len(wiring.outputs) != bones:
            raise ValueError(f"the grown body's wiring drives {driven} muscles of {len(wiring.outputs)}; it has "
                             f"{muscles} of {bones}")
        genes = BodyGenes.from_dict(data["genes"]) if "genes" in data else NO_GENES
        return cls(wiring, tuple(slots), count, {k: list(v) for k, v in names.items()}, settings, genes)
