"""A body written as a design file: the YAML text whose loaded body is the body itself.

:func:`design_text` is the loader (:mod:`.loader`) run backwards. Every number is written with
``repr``, which Python's ``float()`` (what the loader reads numbers with) turns back into the
same float, bit for bit; a key is written only where the value differs from what the loader
gives when the key is missing (a kinetic friction whenever the body has one of its own, since
``None`` and a number equal to the friction are different bodies). So a body from a design, a
random creature, an evolved champion or a grown one round-trips: ``parse_design(design_text(body,
body.name)).body.to_dict() == body.to_dict()``.

Three things a design cannot say exactly:

- some hinge limits. Designs write them in degrees and the loader turns them into radians with
  ``math.radians`` (``d * (pi / 180)``, rounded), and no text of a number reads as anything but a
  float; near a half turn consecutive floats of degrees land up to 1.12 units in the last place
  (ulp) of the radians apart, so about one radian value in eleven (measured over -pi..pi) is no
  ``math.radians`` of any float. Such a limit is written as the nearest value outward (a ``min``
  the largest one below it, a ``max`` the smallest one above: the hinge only ever gets wider),
  at most one ulp away (:func:`limit_degrees`). Limits that came from a design's degrees, and
  the engine's +-pi, are exact; a limit evolved or widened to a grown body's rest angle, in
  radians, may be one ulp wider.
- a bone's own rest length (:attr:`physics.Bone.rest`): a design's bones rest at their spheres'
  distance. A rest length equal to that distance (as :func:`physics.build_model` works it out)
  is left out, and the loaded bone says ``None``: the same model. Any other is a ValueError.
- a free joint's limits, which the engine ignores: the loaded joint has the loader's +-180
  degrees.

Looks (colours, eyes) are not the body's: they are not written.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import yaml

import physics

from .schema import ITEMS

__all__ = ["design_text", "valid_name", "valid_id", "limit_degrees", "yaml_scalar", "ID_KINDS"]

#: a scalar written as it is (no quotes) when it reads back as the same text
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_RESOLVER = yaml.resolver.Resolver()
#: what an id or a name may hold unchanged (the rest become '_' in an id, '-' in a name)
_ID_CHARS = re.compile(r"[^A-Za-z0-9_\-]+")
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.\-]+")
#: the kinds of part :func:`design_text`'s ``ids`` may name, each a list in the body's order
#: (``muscle``: the bones that are muscles, in order; it names them before ``bone`` does)
ID_KINDS = ("sphere", "bone", "muscle", "joint", "cluster")


def _d(item: str, key: str):
    """What the loader gives ``key`` of an ``item`` that does not say it."""
    return ITEMS[item][key].default


def _number(value) -> str:
    """A float as text that ``float()`` reads back to the same bits."""
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"a design holds finite numbers, not {value!r}")
    return repr(value)


def _same(value, default) -> bool:
    """Whether ``value`` is the loader's ``default`` to the bit (0.0 and -0.0 differ)."""
    return default is not None and _number(value) == _number(default)


def yaml_scalar(text: str, flow: bool = True) -> str:
    """A string as a YAML scalar: plain when it reads back as the same string where it goes (in
    a flow mapping, or as a top-level value with ``flow`` False), else double-quoted (JSON's
    escapes are YAML's). The editor writes its ids with it too."""
    if _PLAIN.fullmatch(text) and _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)).endswith(":str"):
        return text
    if text and text.isprintable() and text == text.strip():   # (a newline is not printable)
        probe = f"{{k: {text}}}" if flow else f"k: {text}\n"
        try:
            if yaml.safe_load(probe) == {"k": text}:
                return text
        except yaml.YAMLError:
            pass
    return json.dumps(text, ensure_ascii=False)


def valid_name(text: str, fallback: str = "creature") -> str:
    """``text`` as a design's name that is also a good file name: runs of anything but letters,
    digits, ``_``, ``-`` and ``.`` become ``-`` (``sprout (grown)`` -> ``sprout-grown``), and it
    neither starts nor ends with ``-`` or ``.``; ``fallback`` if nothing is left."""
    name = _NAME_CHARS.sub("-", text).strip("-.")
    return name[:80].strip("-.") or fallback


def valid_id(text: str, fallback: str) -> str:
    """``text`` as an id people type: runs of anything but letters, digits, ``_`` and ``-``
    become ``_`` (``sphere 3`` -> ``sphere_3``); it starts with a letter or ``_`` (else
    ``fallback`` goes first); ``fallback`` if nothing is left."""
    ident = _ID_CHARS.sub("_", text).strip("_")[:60]
    if not ident:
        return fallback
    return ident if _PLAIN.fullmatch(ident) else f"{fallback}_{ident}"


def _unique(names: list[str]) -> list[str]:
    """``names`` with a repeated one made ``name_2``, ``name_3``... (not taken by another)."""
    taken, out = set(names), []
    seen: set = set()
    for name in names:
        if name in seen:
            k = 2
            while f"{name}_{k}" in taken or f"{name}_{k}" in seen:
                k += 1
            name = f"{name}_{k}"
        seen.add(name)
        out.append(name)
    return out


def _ids(kind: str, count: int, given, fallback: str) -> list[str | None]:
    """``count`` names for parts of ``kind``: ``given`` (one per part, or None) made valid ids."""
    if given is None:
        return [None] * count
    given = list(given)
    if len(given) != count:
        raise ValueError(f"ids['{kind}'] names {len(given)} parts; the body has {count}")
    return [valid_id(str(g), fallback) for g in given]


def _part_ids(body: physics.Body, ids: dict | None) -> dict[str, list[str]]:
    """Every part's id: ``ids``' names made valid, else ``sphere_1``, ``bone_1``, ``muscle_1``...;
    unique within their kind (muscles are bones)."""
    ids = ids or {}
    unknown = set(ids) - set(ID_KINDS)
    if unknown:
        raise ValueError(f"ids names parts of no kind {sorted(unknown)}; the kinds are {', '.join(ID_KINDS)}")
    sizes = {"sphere": len(body.spheres), "bone": len(body.bones), "joint": len(body.joints),
             "cluster": len(body.clusters)}
    out = {}
    for kind, size in sizes.items():
        names = _ids(kind, size, ids.get(kind), kind)
        out[kind] = [n or f"{kind}_{k + 1}" for k, n in enumerate(names)]
    muscles = [e for e, b in enumerate(body.bones) if b.muscle is not None]
    named = _ids("muscle", len(muscles), ids.get("muscle"), "muscle")
    for k, (e, name) in enumerate(zip(muscles, named)):
        if name is not None:
            out["bone"][e] = name
        elif ids.get("bone") is None:
            out["bone"][e] = f"muscle_{k + 1}"
    return {kind: _unique(names) for kind, names in out.items()}


def limit_degrees(angle: float, outward: int = 0) -> float:
    """The degrees a design writes for a hinge limit of ``angle`` radians: the float ``d`` with
    ``math.radians(d) == angle`` (the shortest in decimal digits), as the loader reads it. Where
    there is none (module docstring), the nearest outward: ``outward`` -1 (a ``min``) the largest
    ``d`` whose radians are below ``angle``, +1 (a ``max``) the smallest above; 0 raises ValueError."""
    angle = float(angle)

    def exact(d: float) -> bool:   # to the bit: -0.0 is not 0.0
        r = math.radians(d)
        return r == angle and math.copysign(1.0, r) == math.copysign(1.0, angle)

    def shortest(d: float) -> float | None:   # (17 digits are d itself)
        return next((c for c in (float(f"{d:.{n}g}") for n in range(1, 18)) if exact(c)), None)

    found = shortest(math.degrees(angle))
    if found is not None:
        return found
    d = math.degrees(angle)   # the largest float of degrees whose radians are at most the angle
    while math.radians(d) > angle:
        d = math.nextafter(d, -math.inf)
    while math.radians(math.nextafter(d, math.inf)) <= angle:
        d = math.nextafter(d, math.inf)
    found = shortest(d)
    if found is not None:
        return found
    if outward < 0:
        return d
    if outward > 0:
        return math.nextafter(d, math.inf)
    raise ValueError(f"no number of degrees is {angle!r} radians")


def _rest_length(body: physics.Body, bone: physics.Bone) -> float:
    """A bone's rest length as :func:`physics.build_model` works it out from its spheres."""
    pos = np.array([s.pos for s in body.spheres], dtype=np.float64)
    return float(np.hypot(*(pos[bone.a] - pos[bone.b])))


def _flow(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"


def _sphere(ident: str, s: physics.Sphere) -> str:
    x, y = s.pos
    pairs = [("id", yaml_scalar(ident)), ("position", f"[{_number(x)}, {_number(y)}]")]
    for key in ("radius", "mass", "friction", "kinetic_friction", "restitution"):
        value = getattr(s, key)
        if value is not None and not _same(value, _d("sphere", key)):
            pairs.append((key, _number(value)))
    if s.fixed:
        pairs.append(("fixed", "true"))
    if s.optional:
        pairs.append(("optional", "true"))
    return _flow(pairs)


def _muscle(m: physics.Muscle) -> str:
    pairs = [(key, _number(getattr(m, key))) for key in ("range", "strength", "speed", "stretch", "damping")
             if not _same(getattr(m, key), _d("muscle", key))]
    if m.group is not None:
        pairs.append(("group", yaml_scalar(str(m.group))))
    if m.invert:
        pairs.append(("invert", "true"))
    return _flow(pairs) if pairs else "true"


def _bone(body: physics.Body, e: int, ident: str, sphere_ids: list[str]) -> str:
    b = body.bones[e]
    if b.rest is not None and float(b.rest) != _rest_length(body, b):
        raise ValueError(f"bone {e} ('{ident}') rests at {float(b.rest)!r} m, not its spheres' distance "
                         f"{_rest_length(body, b)!r} m: a design's bones rest at their spheres' distance")
    pairs = [("id", yaml_scalar(ident)), ("spheres", f"[{yaml_scalar(sphere_ids[b.a])}, {yaml_scalar(sphere_ids[b.b])}]")]
    if not _same(b.compliance, _d("bone", "compliance")):
        pairs.append(("compliance", _number(b.compliance)))
    if b.muscle is not None:
        pairs.append(("muscle", _muscle(b.muscle)))
    if b.optional:
        pairs.append(("optional", "true"))
    if b.width is not None:
        pairs.append(("width", _number(b.width)))
    if b.wing:
        pairs.append(("wing", "true"))
    return _flow(pairs)


def _joint(body: physics.Body, k: int, ident: str, ids: dict) -> str:
    j = body.joints[k]
    by_ends = {(min(b.a, b.b), max(b.a, b.b)): e for e, b in enumerate(body.bones)}
    bones = [by_ends.get((min(j.c, o), max(j.c, o))) for o in (j.a, j.b)]
    if None in bones:
        raise ValueError(f"joint {k} ('{ident}') is at sphere {j.c} between spheres {j.a} and {j.b}, but no bone "
                         f"joins sphere {j.c} to {j.a if bones[0] is None else j.b}: a design's joints are "
                         f"between two bones")
    pairs = [("id", yaml_scalar(ident)), ("sphere", yaml_scalar(ids["sphere"][j.c])),
             ("bones", f"[{yaml_scalar(ids['bone'][bones[0]])}, {yaml_scalar(ids['bone'][bones[1]])}]")]
    if j.kind != _d("joint", "kind"):
        pairs.append(("kind", yaml_scalar(str(j.kind))))
    if j.kind == "hinge":
        for key, value, outward in (("min", j.min_angle, -1), ("max", j.max_angle, 1)):
            if float(value) != math.radians(_d("joint", key)):
                pairs.append((key, _number(limit_degrees(value, outward))))
    if not _same(j.stiffness, _d("joint", "stiffness")):
        pairs.append(("stiffness", _number(j.stiffness)))
    if j.optional:
        pairs.append(("optional", "true"))
    return _flow(pairs)


def _cluster(c: physics.Cluster, ident: str, sphere_ids: list[str]) -> str:
    pairs = [("id", yaml_scalar(ident)), ("spheres", "[" + ", ".join(yaml_scalar(sphere_ids[i]) for i in c.spheres) + "]")]
    if not _same(c.stiffness, _d("cluster", "stiffness")):
        pairs.append(("stiffness", _number(c.stiffness)))
    return _flow(pairs)


def design_text(body: physics.Body, name: str, description: str = "", ids: dict | None = None,
                author: str = "", licence: str = "") -> str:
    """The YAML text of a design named ``name`` whose loaded body is ``body`` (named ``name``),
    every value to the bit but what the module docstring lists. ``ids``: names of the parts,
    ``{kind: [name, ...]}`` for the kinds ``sphere``, ``bone``, ``muscle`` (the bones that are
    muscles), ``joint`` and ``cluster``, each one name per part in the body's order (a
    :class:`evolution.growth.Grown`'s ``names`` are); they are made valid ids
    (:func:`valid_id`) and unique. A part not named is ``sphere_1``, ``bone_1``, ``muscle_1``...

    Raises ValueError for a body a design cannot hold (a bone's own rest length, a joint
    without its two bones, a number that is not finite) or ``ids`` that do not fit it. The text
    is not checked here: :func:`creatures.design.parse_design` says whether it is a valid design
    (a body made in code may break the format's rules, a muscle inverted outside a group...)."""
    part_ids = _part_ids(body, ids)
    lines = [f"name: {yaml_scalar(name, flow=False)}"]
    for key, value in (("description", description), ("author", author), ("licence", licence)):
        if value:
            lines.append(f"{key}: {yaml_scalar(value, flow=False)}")
    lines.append(f"self_collision: {'true' if body.self_collision else 'false'}")
    lines.append("spheres:")
    lines += [f"  - {_sphere(ident, s)}" for ident, s in zip(part_ids["sphere"], body.spheres)]
    if body.bones:
        lines.append("bones:")
        lines += [f"  - {_bone(body, e, ident, part_ids['sphere'])}" for e, ident in enumerate(part_ids["bone"])]
    if body.joints:
        lines.append("joints:")
        lines += [f"  - {_joint(body, k, ident, part_ids)}" for k, ident in enumerate(part_ids["joint"])]
    if body.clusters:
        lines.append("clusters:")
        lines += [f"  - {_cluster(c, ident, part_ids['sphere'])}"
                  for c, ident in zip(body.clusters, part_ids["cluster"])]
    return "\n".join(lines) + "\n"
