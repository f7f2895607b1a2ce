"""Bodies that evolve with their brains (:mod:`evolution.bodygenes`): body genes breed within
their ranges, every creature steps with its own body, runs are bit-identical whatever the
workers and after a resume, champions replay exactly, and bodies that are not bodies are scored
as failed and counted, never stopping a run."""

import json
import random
import re
import struct

import numpy as np
import pytest

import physics
from evolution.bodygenes import BodyGenes, Gene, Switch
from evolution.breeding import DefaultGenome, distance_scope, distances_among
from evolution.champion import champion_from_run, load_champion, save_champion
from evolution.genomes import neat_config_text
from evolution.rollout import Episode, EpisodeRun
from evolution.run import Run, RunError
from evolution.tasks import WORST_FITNESS
from evolution_helpers import bits, neat_config, read_stats, run_files, tiny_settings


class Still:
    """Brains that hold every muscle at rest."""

    def __init__(self, outputs: int):
        self.outputs = outputs

    def reset(self):
        pass

    def activate(self, inputs):
        return np.zeros((inputs.shape[0], self.outputs))


def walker_genes() -> tuple[physics.Body, BodyGenes]:
    """The walker with its legs, a foot and two muscles evolvable, and the cross brace (bone
    5, 1-2) and a hip-to-knee bone (bone 10, 1-6) optional."""
    body = physics.examples.walker()
    for e in (5, 10):
        body.bones[e].optional = True
    genes = BodyGenes((Gene("knee.x", "sphere", 4, "x", -0.9, -0.6, -0.75),
                       Gene("knee.y", "sphere", 4, "y", 0.35, 0.65, 0.5),
                       Gene("foot.y", "sphere", 5, "y", 0.06, 0.2, 0.1),
                       Gene("foot.radius", "sphere", 5, "radius", 0.05, 0.15, 0.1),
                       Gene("foot.mass", "sphere", 5, "mass", 0.2, 2.0, 1.0),
                       Gene("shin.strength", "muscle", 7, "strength", 50.0, 300.0, 150.0),
                       Gene("shin.range", "muscle", 7, "range", 0.1, 0.5, 0.2)),
                      (Switch("brace", "bone", 5), Switch("hip-knee", "bone", 10)))
    genes.check(body)
    return body, genes


#: breeding that moves bodies a lot within a few generations
LIVELY = (neat_config_text(1, 1, 10).replace("body_mutate_rate      = 0.2", "body_mutate_rate      = 0.8")
          .replace("body_mutate_power     = 0.1", "body_mutate_power     = 0.3")
          .replace("body_flip_rate        = 0.03", "body_flip_rate        = 0.3"))
assert "body_flip_rate        = 0.3\n" in LIVELY


def _run(directory, generations=4, workers=1, **kw):
    body, genes = walker_genes()
    settings = tiny_settings(generations=generations, population=20, seconds=1.0, workers=workers,
                             neat_config=LIVELY, **kw)
    return Run.create(directory, settings, body, genes)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    directory = tmp_path_factory.mktemp("bodies")
    run = _run(directory)
    best = run.evolve()
    return directory, run, best


def test_body_genes_breed_within_their_ranges_and_parts_flip(tmp_path):
    body, genes = walker_genes()
    config = neat_config(tmp_path / "neat.cfg", 3, 2, 10)
    g = config.genome_config
    g.body_genes, g.body_mutate_rate, g.body_mutate_power, g.body_flip_rate = genes, 1.0, 1.0, 0.5
    random.seed(4)
    a, b = DefaultGenome(1), DefaultGenome(2)
    a.configure_new(g)
    b.configure_new(g)
    assert a.body_values == genes.start_values() and a.body_parts == [True, True]
    seen_off = False
    for _ in range(30):
        a.mutate(g)
        for v, gene in zip(a.body_values, genes.genes):
            assert gene.low <= v <= gene.high
        seen_off |= not all(a.body_parts)
    assert seen_off and a.body_values != genes.start_values()
    a.fitness, b.fitness = 1.0, 0.0
    child = DefaultGenome(3)
    child.configure_crossover(a, b, g)
    assert all(v in (x, y) for v, x, y in zip(child.body_values, a.body_values, b.body_values))
    # the body term of the compatibility distance
    assert a.distance(b, g) > a.brain_distance(b, g)
    assert a.body_distance(a, genes) == 0.0
    # and a list of them at a time (speciation's), the same bits
    pairs = [(a, b), (b, a), (a, child), (child, b), (a, a)]
    with distance_scope(g):
        one_by_one = [x.distance(y, g) for x, y in pairs]
        listed = distances_among([a, b, child], g)(pairs)
    assert [struct.pack("<d", d) for d in listed] == [struct.pack("<d", d) for d in one_by_one]


def test_a_genome_without_body_genes_breeds_with_the_same_random_draws(tmp_path):
    """A fixed design's genomes (no body genes) draw exactly what neat's do: the generator ends
    in the same state as after breeding without the body code."""
    config = neat_config(tmp_path / "neat.cfg", 3, 2, 10)
    g = config.genome_config
    random.seed(9)
    a = DefaultGenome(1)
    a.configure_new(g)
    a.fitness = 0.5
    child = DefaultGenome(2)
    child.configure_crossover(a, a, g)
    child.mutate(g)
    after = random.getstate()
    random.seed(9)
    a2 = DefaultGenome(1)
    a2.configure_new(g)
    a2.fitness = 0.5
    child2 = DefaultGenome(2)
    child2.brain_crossover(a2, a2, g)
    child2.brain_mutate(g)
    assert random.getstate() == after and child.body_values == [] and child.body_parts == []


def test_every_creature_steps_with_its_own_body():
    body, genes = walker_genes()
    rng = np.random.default_rng(2)
    values = [[rng.uniform(g.low, g.high) for g in genes.genes] for _ in range(6)]
    parts = [[True, True], [False, True], [True, False], [False, False], [True, True], [True, True]]
    ep = Episode.make(body, "run", seconds=0.5, genes=genes)

    run = EpisodeRun(ep, Still(ep.n_outputs()), 6, bodies=(values, parts))
    m = run.model
    for b in range(6):
        assert m.rest_pos[b, 4, 0] == values[b][0] and m.rest_pos[b, 5, 1] == values[b][2]
        assert m.radius[b, 5] == values[b][3] and m.mass[b, 5] == values[b][4]
        assert m.bone_on[b, 5] == parts[b][0] and m.bone_on[b, 10] == parts[b][1]
    sizes = run.ctx.body_sizes
    assert sizes.shape == (6,) and len(set(sizes.tolist())) > 1   # each body's own scale
    # each creature stands on the ground: its lowest sphere just above it
    bottom = (run.state.pos[..., 1] - m.radius).min(axis=1)
    np.testing.assert_allclose(bottom, 1e-4, atol=1e-12)


def test_one_and_two_workers_give_the_same_run(straight, tmp_path):
    _run(tmp_path, workers=2).evolve()
    two, one = run_files(tmp_path), run_files(straight[0])
    del two["settings.json"], one["settings.json"]   # which says how many workers
    assert two == one


def test_the_bodies_did_evolve(straight):
    directory = straight[0]
    last = json.loads((directory / "best" / "gen_0004.json").read_text())
    bodies = last["population_bodies"]
    assert len(bodies) == 20
    values = np.array([b["values"] for b in bodies])
    assert (values.std(axis=0) > 0).sum() >= 5           # the population's bodies differ
    assert any(not all(b["parts"]) for b in bodies)       # and some switched parts off


@pytest.mark.parametrize("stop", [1, 3])
def test_a_stopped_run_resumes_exactly(straight, tmp_path, stop):
    _run(tmp_path, generations=stop).evolve()
    run = Run.open(tmp_path)
    run.set_generations(4)
    run.evolve()
    assert run_files(tmp_path) == run_files(straight[0])


def test_a_run_cannot_resume_with_other_ranges(straight, tmp_path):
    import shutil
    shutil.copytree(straight[0], tmp_path / "run")
    path = tmp_path / "run" / "body.json"
    data = json.loads(path.read_text())
    data["evolve"]["genes"][0]["high"] = -0.5
    path.write_text(json.dumps(data))
    run = Run.open(tmp_path / "run")
    run.set_generations(5)
    with pytest.raises(RunError, match="its ranges changed\\): it cannot be resumed") as exc:
        run.evolve()
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("generation", [1, 2, 3, 4])
def test_champions_replay_to_their_recorded_fitness_bit_for_bit(straight, tmp_path, generation):
    champion = champion_from_run(straight[0], generation)
    assert champion.genes and "body" in champion.genome
    path = tmp_path / "champion.json"
    save_champion(champion, path)
    data = json.loads(path.read_text())
    # (version 3: a body that evolved; 5 with trials, which the default scores over)
    assert data["version"] == (5 if "trials" in data else 3) and data["creature"]["evolve"]["genes"][0]["label"] == "knee.x"
    loaded = load_champion(path)
    # the file's body is the champion's own
    values = champion.genome["body"]["values"]
    assert loaded.body.spheres[5].radius == values[3] and loaded.body.spheres[4].pos[0] == values[0]
    assert bits(loaded.replay()) == bits(champion.fitness)


def test_bodies_that_fall_apart_are_scored_as_failed_and_counted(tmp_path):
    """A walker whose two muscles to its left foot (bones 7, 4-5, and 9, 0-5) are optional: a
    creature that switches both off is in two pieces, stepped as the design's start and scored
    as failed, never an error."""
    body = physics.examples.walker()
    body.bones[7].optional = True
    body.bones[9].optional = True
    genes = BodyGenes((), (Switch("shin", "bone", 7), Switch("hip-foot", "bone", 9)))
    ep = Episode.make(body, "run", seconds=0.5, genes=genes)

    run = EpisodeRun(ep, Still(ep.n_outputs()), 4, bodies=([[]] * 4, [[True, True], [False, True], [True, False],
                                                         [False, False]]))
    assert run.refused.tolist() == [False, False, False, True]
    while not run.done:
        run.step()
    f = run.fitness()
    assert f[3] == WORST_FITNESS and run.failed[3] and np.isfinite(f[:3]).all() and not run.failed[:3].any()


def test_a_design_without_body_genes_writes_no_body_genes(tmp_path):
    run = Run.create(tmp_path, tiny_settings(generations=1), physics.examples.walker())
    run.evolve()
    assert "evolve" not in json.loads((tmp_path / "body.json").read_text())
    best = json.loads((tmp_path / "best" / "gen_0001.json").read_text())
    assert "body" not in best["genome"] and "population_bodies" not in best
    assert "body_genes" not in json.loads((tmp_path / "checkpoint.json").read_text())
    assert re.search(r"^body_mutate_rate\s*=", (tmp_path / "neat.cfg").read_text(), re.M)


def test_the_evolved_body_steps_as_the_design_with_the_genes_bit_for_bit():
    """A champion file holds the evolved body (:meth:`BodyGenes.body`), and its replay applies
    the genes to that body: every array of that model is bit for bit the one evolution stepped
    (the design's body with the genes), for every kind of gene (positions, radius, mass,
    friction, compliance, muscle values, joint limits and stiffness) and switched-off parts."""
    from evolution_helpers import design
    worm = design("worm").body
    body = physics.Body.from_dict(worm.to_dict())
    body.bones[5].optional = True
    body.joints[2].optional = True
    genes = BodyGenes((Gene("foot1.x", "sphere", 2, "x", 0.7, 0.9, 0.8),
                       Gene("hump2.y", "sphere", 3, "y", 0.1, 0.2, 0.15),
                       Gene("hump2.radius", "sphere", 3, "radius", 0.05, 0.09, 0.07),
                       Gene("head.mass", "sphere", 0, "mass", 0.1, 0.5, 0.2),
                       Gene("tail.friction", "sphere", 10, "friction", 0.3, 1.2, 0.8),
                       Gene("b0.compliance", "bone", 0, "compliance", 0.0, 1e-3, 0.0),
                       Gene("belly1.speed", "muscle", 2, "speed", 1.0, 4.0, 2.0),
                       Gene("belly3.range", "muscle", 8, "range", 0.1, 0.4, 0.2),
                       Gene("j0.stiffness", "joint", 0, "stiffness", 0.5, 9.0, 3.0),
                       Gene("j1.min", "joint", 1, "min", np.radians(20), np.radians(80), np.radians(30)),
                       Gene("j3.max", "joint", 3, "max", np.radians(100), np.radians(170), np.radians(150))),
                      (Switch("belly2", "bone", 5), Switch("j2", "joint", 2)))
    genes.check(body)
    rng = np.random.default_rng(11)
    for _ in range(20):
        values = [float(rng.uniform(g.low, g.high)) for g in genes.genes]
        parts = [bool(rng.random() < 0.5), bool(rng.random() < 0.5)]
        stepped, refused = genes.model(body, [values], [parts])
        evolved = genes.body(body, values, parts)
        replayed, refused_again = genes.model(evolved, [values], [parts])
        assert refused.tolist() == refused_again.tolist()
        for name in stepped.__dataclass_fields__:
            a, b = getattr(stepped, name), getattr(replayed, name)
            if isinstance(a, np.ndarray):
                assert a.dtype == b.dtype and a.shape == b.shape, name
                assert np.array_equal(a.view(np.uint8), b.view(np.uint8)), name
