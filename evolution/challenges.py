"""Challenges: a task, its ground and its rules, in a YAML file, and entries verified against them.

A challenge file is data (read like designs and terrain files, :mod:`evolution.yamlread`: every
problem at its line and column, nothing in it runs code)::

    name: sprint
    description: Run as far to the right as you can in 20 s on flat ground, on at most 8 spheres.
    task: run                 # a built-in task
    terrain: flat             # a built-in terrain, {name: hills, seed: 3}, or a terrain file
    seconds: 20
    medium: none              # optional: the task's own (water for swim, air for fly)
    sensors: [clock, muscles, joints, contacts, tilt, height, velocity]   # optional: allowed ones
    body:                     # optional rules, each optional
      spheres: 8              # at most
      bones: 24
      muscles: 8
      mass: [1, 12]           # kg, the whole body, within
      strength: 1200          # N, all muscles together, at most
      design: walker          # brain only: the body must be this design's
    trials: {starts: 10, noise: 0.001, seed: 0}   # optional: how entries are scored (these defaults)

An **entry** is a champion (a JSON file or a card). :meth:`Challenge.verify` checks it against
the challenge's rules (the task, the very ground, the seconds, the physics settings a run of the
task has by default, the sensors, the body), then simulates it again in its own trials: an entry
whose recorded fitness is not exactly what they give is refused (it was edited, or made by other
software). Its **score** is then the mean of its fitness from the challenge's own starts
(``trials``: the same for every entry, :func:`evolution.trials.check_seeds` of the seed, each
sphere moved by ``noise``), so that a board compares like with like and no entry scores by a
lucky start. Each refusal is one line saying why.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

import physics

from . import limits
from .plugins import BUILTINS, PluginError, resolve
from .sensors import DEFAULT_SENSORS
from .tasks import task_sim
from .terrains import TerrainFileError, parse_terrain
from .trials import MAX_NOISE
from .yamlread import Reader, YamlError, read_text, read_top

__all__ = ["Challenge", "BodyRules", "ChallengeError", "Verdict", "parse_challenge", "load_challenge",
           "MAX_CHALLENGE_BYTES"]

#: challenge files larger than this are refused unread
MAX_CHALLENGE_BYTES = 100_000
TOP_KEYS = ("name", "description", "author", "task", "terrain", "seconds", "medium", "sensors", "body", "trials")
TRIAL_KEYS = ("starts", "noise", "seed")
#: how a challenge scores its entries unless it says: the mean from this many starts, each moved
#: by this much (m), made from this seed
CHALLENGE_STARTS, CHALLENGE_NOISE, CHALLENGE_SEED = 10, 1e-3, 0
BODY_KEYS = ("spheres", "bones", "muscles", "mass", "strength", "design")
#: a challenge's name: a short word people type (``creatures challenge verify sprint ...``)
MAX_NAME = 40


class ChallengeError(YamlError):
    """A challenge file that cannot be used, with all its problems (one line each)."""


@dataclass(frozen=True)
class BodyRules:
    """What an entry's body may be: at most so many spheres, bones and muscles, a total mass
    within ``mass`` (kg), muscles of ``strength`` newtons at most together, or exactly the
    body of ``design`` (its name and its :class:`physics.Body`). None: no such rule. The rules
    count every part a body lists (an optional part an evolved body switched off too)."""

    spheres: int | None = None
    bones: int | None = None
    muscles: int | None = None
    mass: tuple | None = None
    strength: float | None = None
    design: str | None = None
    design_body: physics.Body | None = field(default=None, compare=False, repr=False)

    def broken(self, body: physics.Body, evolved: bool = False) -> str | None:
        """Why ``body`` breaks the rules (None: it keeps them). ``evolved``: its shape evolved."""
        muscles = sum(b.muscle is not None for b in body.bones)
        for what, have, most in (("spheres", len(body.spheres), self.spheres),
                                 ("bones", len(body.bones), self.bones), ("muscles", muscles, self.muscles)):
            if most is not None and have > most:
                return f"it has {have} {what}; the challenge allows at most {most}"
        mass = float(sum(s.mass for s in body.spheres))
        if self.mass is not None and not self.mass[0] <= mass <= self.mass[1]:
            return f"it weighs {mass:.4g} kg; the challenge wants {self.mass[0]:g} to {self.mass[1]:g} kg"
        strength = float(sum(b.muscle.strength for b in body.bones if b.muscle is not None))
        if self.strength is not None and strength > self.strength:
            return (f"its muscles pull {strength:.4g} N together; the challenge allows at most "
                    f"{self.strength:g} N")
        if self.design_body is not None:
            if evolved or _shape(body) != _shape(self.design_body):
                return f"its body is not the design {self.design}'s (the challenge evolves brains only)"
        return None

    def describe(self) -> list[str]:
        out = [f"at most {n} {what}" for what, n in (("spheres", self.spheres), ("bones", self.bones),
                                                      ("muscles", self.muscles)) if n is not None]
        if self.mass is not None:
            out.append(f"{self.mass[0]:g} to {self.mass[1]:g} kg")
        if self.strength is not None:
            out.append(f"muscles of at most {self.strength:g} N together")
        if self.design is not None:
            out.append(f"the {self.design} design, brain only")
        return out


def _shape(body: physics.Body) -> dict:
    data = body.to_dict()
    data.pop("name", None)
    return data


@dataclass(frozen=True)
class Verdict:
    """An entry checked against a challenge: ``score`` is its verified fitness (None: refused,
    ``reason`` says why in one line)."""

    score: float | None
    reason: str | None = None

    @property
    def verified(self) -> bool:
        return self.reason is None


@dataclass(frozen=True)
class Challenge:
    """A challenge (see the module docstring). ``terrain`` is the ground itself (points);
    ``terrain_name`` what the file called it, ``terrain_seed`` the seed it was made from (a
    built-in) and ``terrain_file`` the terrain file (None for a built-in)."""

    name: str
    description: str
    task: str
    terrain: physics.Terrain = field(compare=False)
    terrain_name: str
    terrain_seed: int
    terrain_file: str | None
    seconds: float
    medium: str | None
    sensors: tuple
    rules: BodyRules
    author: str = ""
    source: str = ""
    #: how entries are scored: the mean from ``starts`` starts, moved by ``noise`` (m), made from ``seed``
    starts: int = CHALLENGE_STARTS
    noise: float = CHALLENGE_NOISE
    seed: int = CHALLENGE_SEED

    def measures(self) -> str:
        return resolve("task", self.task).sample.measures

    def sim(self) -> physics.SimParams:
        """The physics settings entries must have been scored with: a run's defaults, with the
        task's ground and medium (or the challenge's medium)."""
        return task_sim(resolve("task", self.task).sample, physics.SimParams(), self.medium)

    def summary(self) -> str:
        """One line: the task, ground, medium, seconds and body rules."""
        sim = self.sim()
        where = f"on {self.terrain_name}" if sim.ground else "with no ground"
        if self.terrain_file is None and self.terrain_seed:
            where += f" (seed {self.terrain_seed})"
        if sim.fluid_density > 0:
            where += f" in {physics.medium_name(sim)}"
        rules = self.rules.describe()
        return (f"{self.task} {where}, {self.seconds:g} s" + (f"; {', '.join(rules)}" if rules else "")
                + f"; scored from {self.starts} starts moved {self.noise:g} m")

    def on_ground(self, terrain: physics.Terrain) -> bool:
        """Whether ``terrain`` is the challenge's ground, point for point."""
        return np.array_equal(terrain.xs, self.terrain.xs) and np.array_equal(terrain.ys, self.terrain.ys)

    def broken(self, champion) -> str | None:
        """Why ``champion`` (an :class:`evolution.champion.Champion`) is not an entry of this
        challenge, before any simulation (None: it may be)."""
        earlier = champion.earlier_engine()
        if earlier:
            return earlier
        task = champion.task
        if task.source != "built-in" or task.name != self.task:
            return f"it was scored on the task {task.short}; the challenge's task is {self.task}"
        if champion.seconds != self.seconds:
            return f"it was scored over {champion.seconds:g} s; the challenge lasts {self.seconds:g} s"
        if not self.on_ground(champion.terrain):
            return (f"it was scored on other ground ({champion.terrain_ref.short}); the challenge's is "
                    f"{self.terrain_name}{f' made from seed {self.terrain_seed}' if self.terrain_file is None else ''}")
        want, have = self.sim(), champion.sim
        # without a fluid, the fluid's coefficients move nothing (and their defaults changed)
        ignore = {"engine", *(physics.FLUID_SETTINGS if want.fluid_density == have.fluid_density == 0 else ())}
        for f in dataclasses.fields(want):
            if f.name not in ignore and getattr(want, f.name) != getattr(have, f.name):
                return (f"it was scored with the physics setting {f.name} = {getattr(have, f.name)!r}; the "
                        f"challenge has {getattr(want, f.name)!r}")
        for ref in champion.sensors:
            if ref.source != "built-in" or ref.name not in self.sensors:
                return (f"it senses with {ref.short}, which the challenge does not allow (it allows "
                        f"{', '.join(self.sensors)})")
        return self.rules.broken(champion.body, evolved=bool(champion.genes))

    def verify(self, champion) -> Verdict:
        """Check ``champion`` against the rules, replay it in its own trials (its recorded
        fitness must be what they give), then score it from the challenge's starts: its
        verified score, or why not."""
        from .champion import ChampionError
        reason = self.broken(champion)
        if reason:
            return Verdict(None, reason)
        try:
            replayed = champion.replay()
            if replayed != champion.fitness:
                return Verdict(None, f"its recorded fitness {champion.fitness!r} is not what it scores "
                                     f"({replayed!r}): the file was edited, or scored by other software")
            score = champion.rescore(self.starts, self.noise, self.seed)["mean"]
        except ChampionError as exc:
            return Verdict(None, str(exc))
        return Verdict(score)

    def to_dict(self) -> dict:
        """The challenge as plain data (``creatures challenge ... --json``)."""
        rules = {k: v for k, v in dataclasses.asdict(self.rules).items() if k != "design_body" and v is not None}
        return {"name": self.name, "description": self.description, "author": self.author or None,
                "task": self.task, "measures": self.measures(),
                "terrain": {"name": self.terrain_name, "seed": self.terrain_seed, "file": self.terrain_file},
                "seconds": self.seconds, "medium": physics.medium_name(self.sim()),
                "sensors": list(self.sensors), "body": rules,
                "trials": {"starts": self.starts, "noise": self.noise, "seed": self.seed}}


def load_challenge(path, design_body=None) -> Challenge:
    """Read and check a challenge file (:func:`parse_challenge`). A terrain file it names is
    found next to it."""
    text = read_text(path, MAX_CHALLENGE_BYTES, ChallengeError, "challenge file")
    return parse_challenge(text, str(path), Path(path).parent, design_body)


def parse_challenge(text: str, source: str = "<challenge>", folder=None, design_body=None) -> Challenge:
    """Parse and check a challenge's text. Raises :class:`ChallengeError` with every problem at
    its line and column. ``folder``: where its terrain file is (default: the working
    directory). ``design_body(name)``: the :class:`physics.Body` of the design a ``body: design:``
    rule names, or a ValueError saying why there is none (without it, such a rule is a problem)."""
    r, root, top = read_top(text, source, MAX_CHALLENGE_BYTES, ChallengeError, "challenge", TOP_KEYS)
    for key in ("name", "task", "terrain", "seconds"):
        if key not in top:
            r.problem(root, f"a challenge needs '{key}'")
    name = _text(r, top, "name", MAX_NAME)
    if name is not None and not all(c.isalnum() or c in "-_" for c in name):
        r.problem(top["name"][1], "'name' must be a word of letters, digits, '-' and '_' (it is typed in commands)")
    description = _text(r, top, "description", 2000) or ""
    author = _text(r, top, "author", limits.MAX_TEXT) or ""
    task = _builtin(r, top, "task")
    seconds = r.number(top["seconds"][1], "'seconds'") if "seconds" in top else None
    if seconds is not None and not 0 < seconds <= 3600:
        r.problem(top["seconds"][1], "'seconds' must be more than 0 and at most 3600")
    medium = None
    if "medium" in top:
        medium = r.string(top["medium"][1], "'medium'")
        if medium is not None:
            try:
                physics.medium_settings(medium)
            except ValueError as exc:
                r.problem(top["medium"][1], f"'medium': {exc}")
    sensors = tuple(DEFAULT_SENSORS)
    if "sensors" in top:
        nodes = r.sequence(top["sensors"][1], "'sensors'")
        found = [r.string(n, "a sensor") for n in nodes]
        for node, s in zip(nodes, found):
            if s is not None and s not in BUILTINS["sensor"]:
                r.problem(node, f"unknown sensor '{s}': a challenge allows built-in sensors "
                                f"({', '.join(BUILTINS['sensor'])})")
        sensors = tuple(dict.fromkeys(s for s in found if s))
        if not sensors and not r.problems:
            r.problem(top["sensors"][1], "'sensors' must allow at least one sensor")
    terrain = _terrain(r, top.get("terrain"), source, folder)
    rules = _rules(r, top.get("body"), design_body)
    trials = _trials(r, top.get("trials"))
    if task is not None and medium is not None:
        try:
            task_sim(resolve("task", task).sample, physics.SimParams(), medium)
        except (ValueError, PluginError) as exc:
            r.problem(top["medium"][1], str(exc))
    if r.problems:
        raise ChallengeError(source, r.problems)
    ground, terrain_name, seed, file = terrain
    return Challenge(name=name, description=description, task=task, terrain=ground, terrain_name=terrain_name,
                     terrain_seed=seed, terrain_file=file, seconds=float(seconds), medium=medium,
                     sensors=sensors, rules=rules, author=author, source=source, **trials)


def _trials(r: Reader, entry) -> dict:
    """``{"starts", "noise", "seed"}``: the challenge's own, or the defaults."""
    if entry is None:
        return {}
    parts = r.mapping(entry[1], "'trials'", TRIAL_KEYS)
    if parts is None:
        return {}
    found = {}
    if "starts" in parts:
        found["starts"] = r.integer(parts["starts"][1], "'trials.starts'")
        if found["starts"] is not None and not 1 <= found["starts"] <= 100:
            r.problem(parts["starts"][1], "'trials.starts' must be a whole number from 1 to 100")
    if "noise" in parts:
        found["noise"] = r.number(parts["noise"][1], "'trials.noise'")
        if found["noise"] is not None and not 0 <= found["noise"] <= MAX_NOISE:
            r.problem(parts["noise"][1], f"'trials.noise' must be a number of metres from 0 to {MAX_NOISE:g}")
    if "seed" in parts:
        found["seed"] = r.integer(parts["seed"][1], "'trials.seed'")
        if found["seed"] is not None and not 0 <= found["seed"] < 2**63:
            r.problem(parts["seed"][1], "'trials.seed' must be 0 or more")
    return {k: (float(v) if k == "noise" else v) for k, v in found.items() if v is not None}


def _text(r: Reader, top: dict, key: str, limit: int):
    if key not in top:
        return None
    value = r.string(top[key][1], f"'{key}'")
    if value is None:
        return None
    flat = " ".join(value.split()) if key == "description" else value
    if len(flat) > limit or not flat.isprintable():
        r.problem(top[key][1], f"'{key}' must be printable text of at most {limit} characters"
                               f"{'' if key == 'description' else ', on one line'}")
        return None
    return flat


def _builtin(r: Reader, top: dict, key: str):
    """A built-in task's name (a challenge never names code)."""
    if key not in top:
        return None
    value = r.string(top[key][1], f"'{key}'")
    if value is not None and value not in BUILTINS[key]:
        r.problem(top[key][1], f"unknown {key} '{value}': a challenge names a built-in {key} "
                               f"({', '.join(BUILTINS[key])})")
        return None
    return value


def _terrain(r: Reader, entry, source: str, folder):
    """``(terrain, name, seed, file)``, or None (a problem said why)."""
    if entry is None:
        return None
    knode, node = entry
    seed, name_node = 0, node
    if not (hasattr(node, "value") and isinstance(node.value, str)):
        parts = r.mapping(node, "'terrain'", ("name", "seed"))
        if parts is None:
            return None
        if "name" not in parts:
            r.problem(node, "'terrain' needs a 'name'")
            return None
        name_node = parts["name"][1]
        if "seed" in parts:
            seed = r.integer(parts["seed"][1], "'terrain.seed'")
            if seed is not None and not 0 <= seed < 2**63:
                r.problem(parts["seed"][1], "'terrain.seed' must be 0 or more")
                seed = None
    name = r.string(name_node, "'terrain'")
    if name is None or seed is None:
        return None
    if name.lower().endswith((".yaml", ".yml")):
        if Path(name).name != name or name.startswith("."):
            r.problem(name_node, f"the terrain file '{name}' must lie next to the challenge (a file name, no folders)")
            return None
        path = Path(folder or ".") / name
        try:
            terrain_text = read_text(path, 2_000_000, TerrainFileError, "terrain file")
            made = parse_terrain(terrain_text, str(path))
        except TerrainFileError as exc:
            r.problem(name_node, f"its terrain file: {exc.problems[0].format(exc.source)}")
            return None
        return made.make(0), made.name, 0, str(path)
    if name not in BUILTINS["terrain"]:
        r.problem(name_node, f"unknown terrain '{name}': a challenge names a built-in terrain "
                             f"({', '.join(BUILTINS['terrain'])}) or a terrain file (.yaml)")
        return None
    return resolve("terrain", name).make(seed), name, seed, None


def _rules(r: Reader, entry, design_body) -> BodyRules:
    if entry is None:
        return BodyRules()
    parts = r.mapping(entry[1], "'body'", BODY_KEYS)
    if parts is None:
        return BodyRules()
    found = {}
    for key in ("spheres", "bones", "muscles"):
        if key in parts:
            found[key] = r.integer(parts[key][1], f"'body.{key}'")
            if found[key] is not None and found[key] < 1:
                r.problem(parts[key][1], f"'body.{key}' must be 1 or more")
    if "strength" in parts:
        found["strength"] = r.number(parts["strength"][1], "'body.strength'")
        if found["strength"] is not None and found["strength"] <= 0:
            r.problem(parts["strength"][1], "'body.strength' must be more than 0 (newtons)")
    if "mass" in parts:
        node = parts["mass"][1]
        if isinstance(node, yaml.SequenceNode):
            values = [r.number(n, "'body.mass'") for n in node.value]
            if None in values:
                found["mass"] = None           # a number's problem is said
            elif len(values) != 2 or not 0 <= values[0] <= values[1]:
                r.problem(node, "'body.mass' must be [least, most] in kilograms, least <= most")
            else:
                found["mass"] = (float(values[0]), float(values[1]))
        else:
            r.problem(node, "'body.mass' must be [least, most] in kilograms, least <= most")
    if "design" in parts:
        node = parts["design"][1]
        name = r.string(node, "'body.design'")
        if name is not None:
            if design_body is None:
                r.problem(node, "'body.design' names a design, and nothing here can load designs")
            else:
                try:
                    found["design_body"] = design_body(name)
                    found["design"] = name
                except ValueError as exc:
                    r.problem(node, f"'body.design': {' '.join(str(exc).split())}")
    if any(v is None for v in found.values()):
        return BodyRules()     # the problems are said: the challenge is refused
    return BodyRules(**found)
