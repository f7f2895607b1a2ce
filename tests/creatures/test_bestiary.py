"""The built-in designs: each loads, is physically sensible, stands still, and moves when driven.

Thresholds (from the design brief): with muscles at rest for 5 s no rigid bone strays 1 % from
its length and the centre of mass stays at 70 % of its height or more; driven by the sine pattern
for 10 s everything stays finite, no rigid bone strays 5 %, and the creature travels or rises
more than 5 cm.
"""

import itertools
import math
import re

import numpy as np
import pytest

import physics

from creatures import cli
from creatures.design import DESIGN_DIR, builtin_names, resolve_design
from creatures.simulation import run_simulation

NAMES = builtin_names()
BESTIARY = {"walker", "worm", "biped", "quadruped", "spider", "hopper"}
G = 9.81


@pytest.fixture(scope="module", params=NAMES)
def design(request):
    return resolve_design(request.param)


def test_the_bestiary_is_built_in():
    assert BESTIARY <= set(NAMES)
    assert NAMES == sorted(NAMES)


def test_builtin_design_loads_with_its_metadata(design):
    assert design.source == str(DESIGN_DIR / f"{design.name}.yaml")
    assert design.author == "creatures team"
    assert design.licence == "CC0-1.0"
    sentences = re.findall(r"[.!?](?:\s|$)", design.description.strip())
    assert 1 <= len(sentences) <= 2, design.description
    assert design.muscle_ids, "a creature needs muscles to move"


def test_builtin_design_starts_standing_on_the_ground(design):
    bottoms = [s.pos[1] - s.radius for s in design.body.spheres]
    assert min(bottoms) == pytest.approx(0.0, abs=1e-3)


def _flies(design) -> bool:
    """A design with wings: light, with strong fast flight muscles (as birds are: a pigeon's
    flight muscles are a third of its mass and beat its wings eight times a second). The
    side-view bird (a 2.5 m wing under 0.35 kg) needs 100 N muscles shortening up to 20 rest
    lengths a second: in its first layouts, with 40-60 N no open-loop beat of a sweep of
    frequencies, phases and pitches lifted it (engine 3's plate law; flight muscles pull with many
    body weights in birds as well), and with engine 4's muscles (springs and dashpots, which
    resist a fast stroke) at the speeds it had then (10 and 8) the best such beat climbs 0.3 m
    in 10 s, at 20 and 15 30 m (creatures/designs/bird.yaml)."""
    return any(b.wing for b in design.body.bones)


def _swims_or_flies(design) -> bool:
    """A design for a fluid: its spheres may be small (a swimmer's are as dense as the water,
    so light; a flier's light), for every sphere is a bluff body the fluid drags on."""
    return _flies(design) or any(b.width is not None for b in design.body.bones)


def test_builtin_design_has_a_sensible_size_and_mass(design):
    spheres = design.body.spheres
    mass = sum(s.mass for s in spheres)
    assert (0.3 if _flies(design) else 1.0) <= mass <= 10.0
    assert all((0.03 if _swims_or_flies(design) else 0.05) <= s.radius <= 0.15 for s in spheres)
    xs = [x for s in spheres for x in (s.pos[0] - s.radius, s.pos[0] + s.radius)]
    ys = [y for s in spheres for y in (s.pos[1] - s.radius, s.pos[1] + s.radius)]
    assert 0.5 <= max(max(xs) - min(xs), max(ys) - min(ys)) <= 2.0


def test_muscles_are_as_strong_as_one_to_three_body_weights(design):
    weight = G * sum(s.mass for s in design.body.spheres)
    for bone in design.body.bones:
        if bone.muscle is not None:
            strongest, fastest = (30.0, 20.0) if _flies(design) else (3.0, 6.0 if _swims_or_flies(design) else 3.0)
            assert 1.0 * weight <= bone.muscle.strength <= strongest * weight
            assert 1.0 <= bone.muscle.speed <= fastest


def _distance_constraints(design):
    """(a, b, is_muscle, (shortest, rest, longest)) for every bone and every pair in a cluster."""
    body = design.body
    pos = np.array([s.pos for s in body.spheres])
    out = []
    for bone in body.bones:
        rest = float(np.linalg.norm(pos[bone.a] - pos[bone.b]))
        r = bone.muscle.range if bone.muscle else 0.0
        out.append((bone.a, bone.b, bone.muscle is not None, (rest * (1 - r), rest, rest * (1 + r))))
    for cluster in body.clusters:
        for a, b in itertools.combinations(cluster.spheres, 2):
            rest = float(np.linalg.norm(pos[a] - pos[b]))
            out.append((a, b, False, (rest, rest, rest)))
    return pos, out


def test_no_muscle_fights_the_skeleton(design):
    """Every muscle constrains a degree of freedom nothing else does: removing it from the
    rigidity matrix lowers the rank. Redundant constraints may only be rigid (and consistent)."""
    pos, cons = _distance_constraints(design)
    rows = np.zeros((len(cons), pos.size))
    for k, (a, b, _, _) in enumerate(cons):
        u = (pos[a] - pos[b]) / np.linalg.norm(pos[a] - pos[b])
        rows[k, 2 * a:2 * a + 2] = u
        rows[k, 2 * b:2 * b + 2] = -u
    rank = np.linalg.matrix_rank(rows)
    for k, (a, b, muscle, _) in enumerate(cons):
        if muscle:
            others = np.delete(rows, k, axis=0)
            assert np.linalg.matrix_rank(others) == rank - 1, (
                f"muscle {design.sphere_ids[a]}-{design.sphere_ids[b]} is redundant")


def test_muscle_ranges_keep_every_triangle_well_shaped(design):
    """For every triangle of linked spheres with a muscle in it, at every combination of its
    muscles' extreme lengths: each side is at most 90 % of the other two together (no joint within
    10 % of straight, where a muscle has no lever arm) and no angle closes below 10 degrees."""
    pos, cons = _distance_constraints(design)
    sides = {frozenset((a, b)): (muscle, lengths) for a, b, muscle, lengths in cons}
    for tri in itertools.combinations(range(len(pos)), 3):
        keys = [frozenset(pair) for pair in itertools.combinations(tri, 2)]
        if not all(k in sides for k in keys) or not any(sides[k][0] for k in keys):
            continue
        choices = [(sides[k][1][0], sides[k][1][2]) if sides[k][0] else (sides[k][1][1],) for k in keys]
        name = "-".join(design.sphere_ids[i] for i in tri)
        for a, b, c in itertools.product(*choices):
            for x, y, z in ((a, b, c), (b, c, a), (c, a, b)):
                assert x <= 0.9 * (y + z), f"triangle {name} nearly straight"
                angle = math.degrees(math.acos((y * y + z * z - x * x) / (2 * y * z)))
                assert angle >= 10.0, f"triangle {name} nearly folded flat"


def _designs_table(capsys) -> dict:
    """``creatures designs``: {name: (its five counts, its description as the lines wrap it)}."""
    assert cli.main(["designs"]) == 0
    rows, name = {}, None
    for line in capsys.readouterr().out.splitlines()[1:]:
        if line.startswith(" "):          # the description goes on
            rows[name][1].append(line.strip())
            continue
        name, *numbers = line.split()[:6]
        rows[name] = ([int(n) for n in numbers], [line.split(None, 6)[6]])
    return rows


def test_every_builtin_design_is_listed_with_its_counts(capsys):
    rows = _designs_table(capsys)
    assert sorted(rows) == NAMES
    for name in NAMES:
        c = resolve_design(name).counts()
        assert rows[name][0] == [c["spheres"], c["bones"], c["muscles"], c["joints"], c["clusters"]]


def test_the_table_shows_every_description_whole_within_its_width(capsys):
    from creatures.cli.designs import WIDTH
    rows = _designs_table(capsys)
    for name in NAMES:
        assert " ".join(rows[name][1]) == " ".join(resolve_design(name).description.split()), name
    assert cli.main(["designs"]) == 0
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) <= WIDTH   # not a terminal here


def test_one_design_is_shown_whole_with_its_counts(capsys):
    assert cli.main(["designs", "walker-evolving"]) == 0
    out = capsys.readouterr().out
    design = resolve_design("walker-evolving")
    c = design.counts()
    assert out.splitlines()[0] == (f"walker-evolving: {c['spheres']} spheres, {c['bones']} bones, "
                                   f"{c['muscles']} muscles, {c['joints']} joints, {c['clusters']} clusters")
    assert f"its body evolves: {design.genes.n_values} values" in out
    assert " ".join(design.description.split()) in " ".join(out.split())
    assert "creatures preview walker-evolving" in out


def test_one_design_as_json_is_one_object(capsys):
    import json
    assert cli.main(["designs", "worm", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    worm = resolve_design("worm")
    assert row["name"] == "worm" and row["description"] == " ".join(worm.description.split())
    assert row["muscles"] == worm.counts()["muscles"] and "evolving" not in row


def test_builtin_design_stands_with_its_muscles_at_rest(design):
    s = run_simulation(design.body, seconds=5.0, muscles="none")
    assert s["finite"]
    assert s["max_bone_strain"] < 0.01
    assert s["com_end"][1] >= 0.7 * s["com_start"][1]
    assert abs(s["distance"]) < 0.05, "it should not creep away while standing still"


#: designs that are seeds to grow bodies from (creatures evolve SEED --grow), not creatures that walk
SEEDS = ("sprout",)


def test_builtin_design_moves_when_its_muscles_are_driven(design):
    """A walker's slow sine moves it; a flier's (a 1 Hz beat, in air) moves its wing but lifts
    nothing (flight takes beats several times faster, and a brain that pitches the wing with
    them), so for a flier the wing has to sweep at least 5 cm."""
    params = physics.SimParams(fluid_density=1.2) if _flies(design) else None
    s = run_simulation(design.body, seconds=10.0, muscles="sine", params=params)
    if design.name in SEEDS:   # one muscle pulls both its spheres alike: a sine only rocks it
        assert s["finite"] and s["broken"] is None and abs(s["distance"]) < 0.05
        return
    assert s["finite"]
    assert s["broken"] is None, s["broken"]   # evolution's rule: it held together
    rise = s["max_height"] - s["com_start"][1]
    if _flies(design):
        model = physics.build_model(design.body, 1)
        state = physics.initial_state(model, params)
        t = np.arange(1, 121)[:, None, None] / 60.0
        cmds = np.sin(2 * np.pi * t + np.arange(model.n_muscles)[None, None, :])
        _, frames = physics.rollout(model, state, cmds, params, every=1)
        wing = [b for b, bone in enumerate(design.body.bones) if bone.wing]
        ends = [design.body.bones[b].a for b in wing] + [design.body.bones[b].b for b in wing]
        sweep = np.linalg.norm(frames[:, 0, ends] - frames[:1, 0, ends], axis=-1).max()
        assert sweep > 0.05, sweep
    else:
        assert abs(s["distance"]) > 0.05 or rise > 0.05, (s["distance"], rise)


def test_the_bestiary_uses_hinges_clusters_and_self_collision():
    designs = {name: resolve_design(name) for name in NAMES}
    assert any(j.kind == "hinge" and (j.min_angle > -math.pi or j.max_angle < math.pi)
               for d in designs.values() for j in d.body.joints)
    assert any(d.body.clusters for d in designs.values())
    worm = designs["worm"].body
    assert worm.self_collision
    for a, b in itertools.combinations(worm.spheres, 2):     # not even linked spheres overlap
        assert math.dist(a.pos, b.pos) >= a.radius + b.radius
