"""Bodies that grow (evolution/growth.py): plans make the bodies they say, mutations make only
valid bodies, parts are numbered by their structure, crossover lines parts up by history, and a
creature of a grown body scores the same, bit for bit, alone or in any batch of any shapes."""

import math
import random

import numpy as np
import pytest

import physics
from evolution.growth import MIN_ANGLE, GrowSettings, Growth, Plan, graph_names, grown_episode, score_grown
from evolution.network import compile_networks
from evolution.rollout import Episode, run_episode
from evolution_helpers import bits, design, neat_config

#: rates high enough that a few dozen mutations change every kind of part
BUSY = GrowSettings(add_sphere=0.4, remove_sphere=0.1, add_bone=0.3, remove_bone=0.1, toggle_muscle=0.2,
                    split_bone=0.2, move=0.3, power=0.2)


def _growth(settings=BUSY, name="sprout"):
    return Growth(design(name).body, settings)


def _growing_episode(growth, seconds):
    """The episode of a growing run of ``growth`` (the sprout's), ``seconds`` long: its
    ``wiring`` the seed body's (its input and output counts the brains')."""
    import dataclasses
    base = Episode.make(design("sprout").body, seconds=seconds)
    seed, _, _ = grown_episode(base, growth, growth.seed_plan())
    return dataclasses.replace(base, wiring=seed.wiring, growth=growth)


def _plans(growth, count, seed, steps=(3, 25)):
    saved = random.getstate()
    random.seed(seed)
    try:
        plans = []
        for _ in range(count):
            plan = growth.seed_plan()
            for _ in range(random.randint(*steps)):
                plan = growth.mutate(plan)
            plans.append(plan)
        return plans
    finally:
        random.setstate(saved)


def test_the_seed_plan_makes_the_seed_body():
    g = _growth()
    body, shape, names = g.body(g.seed_plan())
    seed = design("sprout").body
    assert [s.pos for s in body.spheres] == [s.pos for s in seed.spheres]
    assert [(b.a, b.b, b.muscle is not None) for b in body.bones] == [(0, 1, True)]
    assert body.bones[0].muscle.strength == seed.bones[0].muscle.strength
    assert names == {"sphere": ["sphere 0", "sphere 1"], "muscle": ["muscle 0"], "joint": []}
    assert g.why_invalid(g.seed_plan()) is None


def test_mutations_make_only_valid_bodies_of_every_size_within_the_limits():
    g = _growth()
    plans = _plans(g, 300, seed=1)
    assert all(g.why_invalid(p) is None for p in plans)
    sizes = {p.size()[0] for p in plans}
    assert min(sizes) <= 3 and max(sizes) == BUSY.spheres
    for plan in plans:
        body = g.body(plan)[0]
        physics.build_model(body, 1)   # the engine takes it
        pos = np.array([s.pos for s in body.spheres])
        assert np.ptp(pos, axis=0).max() <= g.max_size
        assert sum(1 for b in body.bones if b.muscle is not None) >= 1


def test_a_plan_makes_the_same_body_every_time_and_after_a_round_trip_through_json():
    g = _growth()
    for plan in _plans(g, 20, seed=2):
        again = Plan.from_dict(plan.to_dict())
        assert again == plan
        assert Growth(design("sprout").body, BUSY).body(again)[0] == g.body(plan)[0]


def test_the_same_structure_gets_the_same_innovation_number():
    g = _growth()
    a = g.innovation(("sphere", 2, 1))
    assert g.innovation(("sphere", 2, 1)) == a and g.innovation(("sphere", 2, -1)) == a + 1
    assert g.innovation(("bone", 0, 1)) == 2   # the seed's bone
    restored = _growth()
    restored.set_state(g.state())
    assert restored.table == g.table and restored.next == g.next


@pytest.mark.parametrize("plan, why", [
    (Plan(((0, 0, 0.0, 0.1, 0.08, 0.5),), ()), "1 spheres"),
    (Plan(((0, 0, 0.0, 0.1, 0.08, 0.5), (1, 1, 0.4, 0.1, 0.08, 0.5)), ((2, 0, 1, -1),)), "0 muscles"),
    (Plan(((0, 0, 0.0, 0.1, 0.08, 0.5), (1, 1, 0.4, 0.1, 0.08, 0.5), (3, 2, 1.0, 0.1, 0.08, 0.5)),
          ((2, 0, 1, 0),)), "in pieces"),
    (Plan(((0, 0, 0.0, 0.1, 0.08, 0.5), (1, 1, 0.4, 0.1, 0.08, 0.5), (3, 2, 0.2, 0.12, 0.08, 0.5)),
          ((2, 0, 1, 0), (4, 0, 3, -1), (5, 1, 3, 1))), "too flat"),
    (Plan(((0, 0, 0.0, 0.1, 0.08, 0.5), (1, 1, 0.4, 0.1, 0.08, 0.5), (3, 2, 0.05, 0.1, 0.08, 0.5)),
          ((2, 0, 1, 0), (5, 1, 3, 1))), "inside each other"),
    (Plan(((0, 0, 0.0, 0.1, 0.08, 0.5), (1, 1, 0.4, 0.1, 0.08, 0.5), (3, 2, 0.2, 0.4, 0.08, 0.5)),
          ((2, 0, 1, 0), (5, 1, 3, 1))), "fold"),
    (Plan(((0, 0, 0.0, 0.1, 0.08, 0.5), (1, 0, 0.4, 0.1, 0.08, 0.5)), ((2, 0, 1, 0),)), "slot"),
    (Plan(((0, 0, 0.0, 0.1, 0.08, 0.5), (1, 1, 0.4, 0.1, 0.08, 50.0)), ((2, 0, 1, 0),)), "mass"),
])
def test_invalid_bodies_are_refused_saying_why(plan, why):
    g = _growth()
    assert why in g.why_invalid(plan)
    with pytest.raises(ValueError, match="not a valid body"):
        g.check(plan)


def test_a_triangle_of_bones_is_never_flatter_than_the_limit():
    g = _growth()
    for plan in _plans(g, 200, seed=3):
        pos = {s[0]: np.array(s[2:4]) for s in plan.spheres}
        linked = {(b[1], b[2]) for b in plan.bones}
        for a, b in linked:
            for c in pos:
                if c > b and (a, c) in linked and (b, c) in linked:
                    for p, q, r in ((a, b, c), (b, c, a), (c, a, b)):
                        u, v = pos[q] - pos[p], pos[r] - pos[p]
                        angle = math.acos(np.clip(u @ v / np.linalg.norm(u) / np.linalg.norm(v), -1, 1))
                        assert angle >= MIN_ANGLE - 1e-9


def test_crossover_takes_the_fitter_parents_structure_and_shared_spheres_from_either():
    g = _growth()
    plans = _plans(g, 20, seed=4, steps=(6, 10))
    a, b = next((p, q) for p in plans for q in plans
                if any(s[0] == t[0] and s[2:] != t[2:] for s in p.spheres for t in q.spheres))
    random.seed(0)
    children = [g.crossover(a, b) for _ in range(20)]
    assert all(c.bones == a.bones and [s[:2] for s in c.spheres] == [s[:2] for s in a.spheres] for c in children)
    shared = {s[0] for s in a.spheres} & {s[0] for s in b.spheres}
    theirs = {s[0]: s[2:] for s in b.spheres}
    taken = {s[0] for c in children for s in c.spheres if s[0] in shared and s[2:] == theirs[s[0]]}
    assert shared and taken   # some shared spheres came from the other parent


def test_distance_is_zero_for_the_same_body_and_grows_with_the_parts_not_shared():
    g = _growth()
    seed = g.seed_plan()
    plans = _plans(g, 30, seed=5)
    assert g.distance(seed, seed) == 0.0
    for p in plans:
        assert g.distance(p, seed) == pytest.approx(g.distance(seed, p))
    one = Plan(seed.spheres, ((2, 0, 1, 0),))
    moved = Plan(((0, 0, -0.25, 0.08, 0.08, 0.5),) + seed.spheres[1:], seed.bones)
    assert 0.0 < g.distance(seed, moved) < g.distance(seed, p := max(plans, key=lambda q: q.size()[0]))
    assert g.distance(seed, one) == 0.0 and p.size()[0] >= 5


def test_a_new_run_weighs_body_plans_six_times_and_a_run_from_before_it_once():
    import dataclasses
    from evolution.growth import NEW_PLAN_WEIGHT, seed_limits
    g = _growth()
    heavy = Growth(design("sprout").body, dataclasses.replace(BUSY, plan_weight=NEW_PLAN_WEIGHT))
    seed = g.seed_plan()
    for p in _plans(g, 10, seed=3):
        assert heavy.distance(seed, p) == NEW_PLAN_WEIGHT * g.distance(seed, p) > 0.0
    assert GrowSettings.from_dict(seed_limits(design("sprout").body)).plan_weight == NEW_PLAN_WEIGHT == 6.0
    assert GrowSettings.from_dict({"graph": True}).plan_weight == 1.0   # (a run's settings from before it)
    with pytest.raises(ValueError, match="plan_weight must be a number >= 0"):
        GrowSettings.from_dict({"plan_weight": -1})


def test_a_design_that_cannot_grow_says_why_in_one_line():
    for name, words in (("hopper", "clusters"), ("walker-evolving", None)):
        body = design(name).body
        if words is None:
            continue
        with pytest.raises(ValueError, match=words):
            Growth(body)
    with pytest.raises(ValueError, match="more than a grown body may have"):
        Growth(design("worm").body)
    Growth(design("worm").body, GrowSettings(spheres=14, bones=30))


@pytest.fixture(scope="module", params=[False, True], ids=["topology", "graph"])
def grown_generation(tmp_path_factory, request):
    """Twelve creatures of grown bodies of several shapes with random brains, on a growing
    episode: (episode, growth, plans, networks); stepped as their own models (topology) and as
    their graphs' (graph: the engine of graphs, ``GrowSettings.graph``)."""
    import dataclasses
    g = _growth(dataclasses.replace(BUSY, graph=request.param))
    plans = _plans(g, 12, seed=6)
    episode = _growing_episode(g, 1.5)
    config = neat_config(tmp_path_factory.mktemp("cfg") / "neat.cfg", episode.wiring.n_inputs,
                         episode.wiring.n_outputs, 12)
    random.seed(7)
    genomes = []
    for key in range(12):
        genome = config.genome_type(key)
        genome.configure_new(config.genome_config)
        for _ in range(5):
            genome.mutate(config.genome_config)
        genomes.append(genome)
    return episode, g, plans, compile_networks(genomes, config, "feedforward")


def test_grown_creatures_score_the_same_alone_as_in_a_batch_of_many_shapes(grown_generation):
    episode, g, plans, networks = grown_generation
    assert len({g.body(p)[1] for p in plans}) >= 4
    fitness, failed, _, _ = score_grown(episode, g, plans, networks)
    assert np.isfinite(fitness).all()
    for c in (0, 5, 11):
        alone, _, _, _ = score_grown(episode, g, [plans[c]], networks.take(np.array([c])))
        assert bits(alone[0]) == bits(fitness[c])
    order = np.arange(12)[::-1]
    again, _, _, _ = score_grown(episode, g, [plans[c] for c in order], networks.take(order))
    assert (bits(again) == bits(fitness[order])).all()


def test_a_grown_body_is_wired_to_its_brain_by_part_slots(grown_generation):
    episode, g, plans, _ = grown_generation
    vocabulary = g.vocabulary(episode)
    assert len(vocabulary) == episode.n_inputs() == len(set(vocabulary))
    assert "sphere 7 contact" in vocabulary and "muscle 7 length" in vocabulary
    for plan in plans:
        grown, shape, body = grown_episode(episode, g, plan)
        names = grown.input_names()
        assert [vocabulary[k] for k in grown.wiring.inputs if k >= 0] == [n for n in names if not n.startswith("rod ")]
        muscle_slots = sorted(b[3] for b in plan.bones if b[3] >= 0)
        assert sorted(k for k in grown.wiring.outputs if k >= 0) == muscle_slots
        # a graph's rods: their commands and lengths wired to nothing
        rods = len(body.bones) - len(muscle_slots) if g.settings.graph else 0
        assert list(grown.wiring.outputs).count(-1) == rods == list(grown.wiring.inputs).count(-1)
        assert len([name for name in names if name.startswith("rod ")]) == rods
        brain_in, brain_out = grown.brain_names()
        assert len(brain_in) == episode.n_inputs() and len(brain_out) == BUSY.muscles


def test_bodies_of_one_shape_share_a_wiring_that_is_each_ones_own(grown_generation):
    """The wiring is made once per shape (the sensors name inputs after parts, not sizes): a body
    moved, resized and made heavier has its shape's wiring, the one it would get on its own."""
    episode, g, plans, _ = grown_generation
    for plan in plans:
        moved = Plan(tuple((i, slot, x + 0.01, y + 0.02, r * 1.1, m * 1.2) for i, slot, x, y, r, m in plan.spheres),
                     plan.bones)
        grown, shape, _ = grown_episode(episode, g, plan)
        body, moved_shape, names = g.body(moved)
        assert moved_shape == shape
        assert grown_episode(episode, g, moved)[0].wiring is grown.wiring
        assert g.wiring(episode, body, graph_names(body, names) if g.settings.graph else names) == grown.wiring


def test_a_plans_model_is_built_once_and_each_run_steps_a_copy_of_its_own(grown_generation):
    """A plan's one-creature model is kept (a plan back in a later generation is not built again),
    equal to a fresh build; a run handed it alone steps its own copy (the same arrays, the
    stepping caches its own), and the generation scores as before."""
    import dataclasses
    episode, g, plans, networks = grown_generation
    model = g.model(plans[0])
    assert g.model(plans[0]) is model and model.batch == 1
    fresh = physics.build_model(g.body(plans[0])[0], 1, graph=g.settings.graph)
    for f in dataclasses.fields(physics.Model):
        if isinstance(getattr(fresh, f.name), np.ndarray):
            assert np.array_equal(getattr(model, f.name), getattr(fresh, f.name)), f.name
    grown, _, _ = grown_episode(episode, g, plans[0])
    own, _ = grown.model(1, [model])
    assert own is not model and own.prepared is not model.prepared and own.rest_pos is model.rest_pos
    first = score_grown(episode, g, plans, networks)[0]
    assert (bits(score_grown(episode, g, plans, networks)[0]) == bits(first)).all()


def test_a_growing_runs_chunk_scores_the_same_from_packed_tuples_as_from_genomes(tmp_path):
    """What workers receive (pack_genome's tuples, compiled without genome objects) scores a
    growing run's creatures to the bits its genomes do."""
    from evolution.chunks import evaluate_chunk, pack_genome
    from evolution.genomes import genome_to_dict
    g = _growth()
    plans = _plans(g, 6, seed=3)
    episode = _growing_episode(g, 0.5)
    config = neat_config(tmp_path / "neat.cfg", episode.wiring.n_inputs, episode.wiring.n_outputs, 6)
    random.seed(8)
    genomes = []
    for key, plan in enumerate(plans):
        genome = config.genome_type(key)
        genome.configure_new(config.genome_config)
        for _ in range(4):
            genome.mutate(config.genome_config)
        genome.body_plan = plan
        genomes.append(genome)
    creatures = (np.array([0, 1, 1, 2, 3, 4, 5, 5]), np.zeros((8, BUSY.spheres, 2)))
    ours = evaluate_chunk(episode, config, "feedforward", [pack_genome(x) for x in genomes], creatures=creatures)
    theirs = evaluate_chunk(episode, config, "feedforward", [genome_to_dict(x) for x in genomes], creatures=creatures)
    assert (bits(ours[0]) == bits(theirs[0])).all() and np.isfinite(ours[0]).all()
    del genomes[2].body_plan
    with pytest.raises(ValueError, match="no body plan"):
        evaluate_chunk(episode, config, "feedforward", [pack_genome(x) for x in genomes], creatures=creatures)


def test_a_torn_muscle_fails_the_creature():
    """A triangle of a rigid bone and two muscles of a thousand tonnes' strength, the muscles'
    bones nearly in line: the skeleton's exact solve of it still blows up under random commands
    (docs/limits.md; at everyday strengths it holds: tests/physics/test_bones.py), and the
    episode's rules fail it (a muscle past its range by its rest length) instead of scoring the
    explosion."""
    body = physics.Body([physics.Sphere((0.2, 0.08), 0.08, 0.5), physics.Sphere((0.097, -0.223), 0.08, 0.5),
                         physics.Sphere((0.21, 0.169), 0.076, 0.66)],
                        [physics.Bone(0, 1), physics.Bone(0, 2, muscle=physics.Muscle(0.3, 1e7, 2.0)),
                         physics.Bone(1, 2, muscle=physics.Muscle(0.3, 1e7, 2.0))])

    class Kicks:
        def __init__(self):
            self.rng = np.random.default_rng(0)

        def reset(self):
            pass

        def activate(self, inputs):
            return self.rng.uniform(-1.0, 1.0, (inputs.shape[0], 2))

    space = physics.SimParams(gravity=0.0, ground=False)
    _, run = run_episode(Episode.make(body, seconds=20.0, sim=space), Kicks(), 1)
    assert run.failed[0] and not run.nonfinite[0]


def test_the_family_tree_records_each_change_of_structure_and_survives_a_checkpoint():
    g = _growth()
    random.seed(8)
    plan, node = g.seed_plan(), 0
    changes = 0
    for generation in range(30):
        g.generation = generation
        before, plan = plan, g.mutate(plan)
        new = g.changed(node, before, plan)
        changes += new != node
        assert (new != node) == ((before.size(), {s[0] for s in before.spheres}, {b[:1] + (b[3] >= 0,) for b in before.bones})
                                 != (plan.size(), {s[0] for s in plan.spheres}, {b[:1] + (b[3] >= 0,) for b in plan.bones}))
        node = new
    lineage = g.lineage(node)
    assert len(lineage) == changes + 1 and lineage[0] == (0, g.seed_plan())
    assert [gen for gen, _ in lineage] == sorted(gen for gen, _ in lineage)
    assert lineage[-1][1].size() == plan.size()
    restored = _growth()
    restored.set_state(g.state([node]))
    assert restored.lineage(node) == lineage and restored.next_node == g.next_node
    assert len(restored.history) == len(lineage) <= len(g.history)


def test_every_design_that_can_grow_is_a_valid_start_as_it_is():
    """A design's own flat triangles and close spheres are its own: the rules hold new parts to
    them, not the design (the walker's braced torso has triangles flatter than the limit)."""
    from creatures.design import builtin_names
    grown = 0
    for name in builtin_names():
        try:
            g = Growth(design(name).body, GrowSettings(spheres=64, bones=64, muscles=64))
        except ValueError:
            continue
        assert g.why_invalid(g.seed_plan()) is None, name
        plans = _plans(g, 10, seed=9, steps=(1, 6))
        assert all(g.why_invalid(p) is None for p in plans)
        grown += 1
    assert grown >= 6


def test_in_a_generation_one_structure_takes_a_few_changes_of_each_kind():
    """Children of one body plan that take the same kind of change in one generation take one
    of ``variants`` changes (few new shapes, each tried with many brains); the next generation
    draws again."""
    one_change = dict(add_sphere=1.0, remove_sphere=0.0, add_bone=0.0, remove_bone=0.0, toggle_muscle=0.0,
                      split_bone=0.0, move=0.0)
    for variants in (1, 2, 3):
        g = _growth(GrowSettings(**one_change, variants=variants))
        random.seed(10)
        g.generation = 1
        children = [g.mutate(g.seed_plan()) for _ in range(30)]
        assert len(set(children)) == variants   # (two recipes may make one shape in other places)
        assert len({g.body(c)[1] for c in children}) <= variants
    g = _growth(GrowSettings(**one_change, variants=1))
    first = {g.body(g.mutate(g.seed_plan()))[1] for _ in range(20)}
    shapes = set(first)
    for generation in range(2, 12):
        g.generation = generation
        shapes.add(g.body(g.mutate(g.seed_plan()))[1])
    assert len(shapes) > 2


def test_bodies_of_one_topology_wired_by_other_slots_share_a_batch_and_score_as_alone(grown_generation):
    from evolution.growth import grown_runs, topology
    episode, g, _, networks = grown_generation
    spheres = ((0, 0, -0.2, 0.08, 0.08, 0.5), (1, 1, 0.2, 0.08, 0.08, 0.5), (3, 2, 0.0, 0.4, 0.08, 0.5))
    a = Plan(spheres, ((2, 0, 1, 0), (4, 0, 3, 1), (5, 1, 3, -1)))
    b = Plan(spheres, ((2, 0, 1, 1), (4, 0, 3, 0), (5, 1, 3, -1)))
    c = Plan(spheres[:2] + ((3, 5, 0.0, 0.4, 0.08, 0.5),), a.bones)   # the third sphere in another slot
    assert all(g.why_invalid(p) is None for p in (a, b, c))
    bodies = [g.body(p) for p in (a, b, c)]
    assert len({topology(body) for body, _, _ in bodies}) == 1 and len({shape for _, shape, _ in bodies}) == 3
    index = np.array([0, 1, 2, 3])
    plans = [a, b, c, a]
    starts = np.random.default_rng(0).uniform(0.0, 0.01, (4, BUSY.spheres, 2))
    runs = grown_runs(episode, g, plans, networks.take(index), starts)
    assert len(runs) == 1
    together, _, _, _ = score_grown(episode, g, plans, networks.take(index), starts)
    for k, plan in enumerate(plans):
        alone, _, _, _ = score_grown(episode, g, [plan], networks.take(index[k:k + 1]), starts[k:k + 1])
        assert bits(alone[0]) == bits(together[k])
    assert len(set(together.tolist())) >= 3   # other wirings, other creatures


def test_a_plan_from_another_run_of_the_seed_is_taken_in_and_grows_on_without_clashing():
    g = _growth()
    random.seed(11)
    plan = g.seed_plan()
    for generation in range(12):
        g.generation = generation
        plan = g.mutate(plan)
    assert plan.size()[0] >= 3
    fresh = _growth()
    node = fresh.adopt(plan)
    assert node > 0 and fresh.lineage(node) == [(0, fresh.seed_plan()), (0, plan)]
    used = {s[0] for s in plan.spheres} | {b[0] for b in plan.bones}
    assert fresh.next > max(used)
    for generation in range(12):
        fresh.generation = generation
        plan = fresh.mutate(plan)
        assert fresh.why_invalid(plan) is None
    seed = _growth().seed_plan()
    clash = Plan(seed.spheres, tuple((b[0] + 1000,) + b[1:] for b in seed.bones))   # the seed's bone, renumbered
    with pytest.raises(ValueError, match="numbers the bone"):
        _growth().adopt(clash)


# --- a design's ranges and optional hinges (evolution/growgenes.py) -----------------------------

def test_a_designs_ranges_bound_growth_and_its_other_genes_are_carried():
    """walker-evolving's knee and foot places and foot sizes bound the plan's values of those
    spheres through every mutation; its muscles' strengths are carried genes, set on the grown
    body's seed muscles wherever they still are."""
    from evolution.growgenes import seed_genes
    genes = design("walker-evolving").genes
    split = seed_genes(genes)
    assert len(split.bounds) == 10 and split.carried.n_values == 6 and not split.carried.switches
    g = Growth(design("walker-evolving").body, BUSY, genes)
    assert g.why_invalid(g.seed_plan()) is None
    for plan in _plans(g, 120, seed=3):
        assert g.why_invalid(plan) is None
        for s in plan.spheres:
            for k, field in enumerate(("x", "y", "radius", "mass")):
                lo, hi = split.bounds.get((s[0], field), (-math.inf, math.inf))
                assert lo <= s[2 + k] <= hi
    plan = g.seed_plan()
    values = [80.0, 90.0, 100.0, 110.0, 120.0, 300.0]
    body = g.body(plan.with_genes(values))[0]
    assert sorted(b.muscle.strength for b in body.bones if b.muscle is not None) == values   # (bones by slot)
    assert [b.muscle.strength for b in g.body(plan)[0].bones if b.muscle is not None] == [150.0] * 6
    assert Plan.from_dict(plan.with_genes(values).to_dict()) == plan.with_genes(values)
    seed_bounds = {k: v for k, v in split.bounds.items() if k[1] == "x"}
    outside = Plan(tuple((s[0], s[1], s[2] + 1.0 if (s[0], "x") in seed_bounds else s[2], *s[3:]) for s in plan.spheres),
                   plan.bones)
    assert g.why_invalid(outside) == "a sphere is out of its design's range"


def test_an_optional_hinge_keeps_its_switch_and_optional_bones_are_growths_to_remove():
    from evolution.bodygenes import BodyGenes, Switch
    body = design("biped").body
    assert body.joints, "the biped has hinges"
    hinge = Switch("knee", "joint", 0)
    bone = Switch("a bone", "bone", 0)
    g = Growth(body, GrowSettings(spheres=12), BodyGenes((), (hinge, bone)))
    assert g.genes.carried.switches == (hinge,)
    plan = g.seed_plan()
    assert len(g.body(plan)[0].joints) == len(body.joints)
    assert len(g.body(plan.with_genes((), (False,)))[0].joints) == len(body.joints) - 1


def test_the_engine_of_graphs_batches_bodies_that_differ_in_their_muscles_each_scored_as_alone(grown_generation):
    """A run of the engine of graphs (new runs: ``seed_limits``; a run from before it steps its
    bodies' own models) puts bodies that differ only in which bones are muscles in one batch,
    each creature scored to the bit as alone; the generation is fewer batches than by topology."""
    import dataclasses
    from evolution.growth import grown_runs, seed_limits, topology
    episode, g, plans, networks = grown_generation
    assert GrowSettings.from_dict({}).graph is False and seed_limits(g.seed)["graph"] is True
    spheres = ((0, 0, -0.2, 0.08, 0.08, 0.5), (1, 1, 0.2, 0.08, 0.08, 0.5), (3, 2, 0.0, 0.4, 0.08, 0.5))
    a = Plan(spheres, ((2, 0, 1, 0), (4, 0, 3, 1), (5, 1, 3, -1)))
    b = Plan(spheres, ((2, 0, 1, -1), (4, 0, 3, 0), (5, 1, 3, 1)))
    c = Plan(spheres, ((2, 0, 1, 2), (4, 0, 3, -1), (5, 1, 3, -1)))
    assert all(g.why_invalid(p) is None for p in (a, b, c))
    index = np.array([0, 1, 2, 3])
    mixed = [a, b, c, a]
    starts = np.random.default_rng(1).uniform(0.0, 0.01, (4, BUSY.spheres, 2))
    # (a run from before the engine of graphs: a batch per topology, here one per muscles' layout)
    assert len(grown_runs(episode, g, mixed, networks.take(index), starts)) == (1 if g.settings.graph else 3)
    if not g.settings.graph:
        return
    together, _, _, _ = score_grown(episode, g, mixed, networks.take(index), starts)
    for k, plan in enumerate(mixed):
        alone, _, _, _ = score_grown(episode, g, [plan], networks.take(index[k:k + 1]), starts[k:k + 1])
        assert bits(alone[0]) == bits(together[k])
    assert len(set(together.tolist())) >= 3
    by_topology = Growth(g.seed, dataclasses.replace(g.settings, graph=False))
    assert len(grown_runs(episode, g, plans, networks)) < len(grown_runs(episode, by_topology, plans, networks))
    # one rhombus of two triangles, its spheres in other slots: numbered by their places in the graph
    left, bottom, top, right = (-0.25, 0.3), (0.0, 0.1), (0.0, 0.5), (0.25, 0.3)
    sphere = lambda i, slot, xy: (i, slot, xy[0], xy[1], 0.06, 0.5)   # noqa: E731
    one = Plan((sphere(0, 0, left), sphere(1, 1, bottom), sphere(3, 2, top), sphere(6, 3, right)),
               ((2, 0, 1, 0), (4, 0, 3, -1), (5, 1, 3, 1), (7, 1, 6, -1), (8, 3, 6, -1)))
    other = Plan((sphere(0, 0, bottom), sphere(1, 1, left), sphere(3, 2, right), sphere(6, 3, top)),
                 ((2, 0, 1, -1), (4, 1, 6, 0), (5, 0, 6, 1), (7, 0, 3, -1), (8, 3, 6, -1)))
    assert g.why_invalid(one) is None and g.why_invalid(other) is None
    assert topology(g.body(one)[0], True) == topology(g.body(other)[0], True)
    assert topology(by_topology.body(one)[0], True) != topology(by_topology.body(other)[0], True)
