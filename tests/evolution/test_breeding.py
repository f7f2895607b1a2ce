"""evolution.breeding breeds and speciates as neat-python does, bit for bit: both side by side
from the same seed, generation after generation, with the same random fitness; the genomes (their
genes' values and dict orders), the species and the random generator's state compared after each."""

import random
import struct
import warnings

import neat
import numpy as np
import pytest
from neat.attributes import FloatAttribute

from evolution import breeding
from evolution.breeding import FAST, SCOPE, SpeciationScope, distance_scope, distances_among, fast_breeding
from evolution.chunks import pack_genome, unpack_genome
from evolution.genomes import genome_from_dict, genome_to_dict, load_neat_config, neat_config_text
from evolution_helpers import varied_genomes

N_IN, N_OUT, POPULATION = 12, 4, 60

#: a config far from the default one: other rates, powers, ranges, init types, options
VARIED = {
    "activation_default": "random", "activation_options": "sigmoid tanh relu identity clamped",
    "activation_mutate_rate": "0.3", "aggregation_default": "random",
    "aggregation_options": "sum product max min mean", "aggregation_mutate_rate": "0.2",
    "bias_init_type": "uniform", "bias_mutate_rate": "0.9", "bias_replace_rate": "0.05",
    "bias_max_value": "2.0", "bias_min_value": "-2.0", "bias_mutate_power": "1.5",
    "response_mutate_rate": "0.3", "response_mutate_power": "0.2", "response_replace_rate": "0.1",
    "response_init_stdev": "0.5", "weight_max_value": "1.5", "weight_min_value": "-1.5",
    "weight_mutate_power": "2.0", "weight_replace_rate": "0.3", "weight_mutate_rate": "0.5",
    "weight_init_type": "uniform", "enabled_default": "random", "enabled_mutate_rate": "0.2",
    "enabled_rate_to_true_add": "0.1", "enabled_rate_to_false_add": "0.05",
    "conn_add_prob": "0.8", "conn_delete_prob": "0.3", "node_add_prob": "0.4", "node_delete_prob": "0.2",
    "compatibility_weight_coefficient": "0.8", "compatibility_disjoint_coefficient": "1.3",
    "time_constant_mutate_rate": "0.5", "time_constant_mutate_power": "0.1",
    "time_constant_replace_rate": "0.1", "num_hidden": "2", "initial_connection": "partial_direct 0.7",
    "compatibility_threshold": "4.5", "target_species": "0",
}
#: one structural mutation at a time, made surer (a present connection re-enabled)
SINGLE = {"single_structural_mutation": "True", "structural_mutation_surer": "True",
          "node_add_prob": "0.3", "conn_add_prob": "0.6", "initial_connection": "full_nodirect",
          "num_hidden": "1"}


def _config_text(kind: str, changes: dict | None = None) -> str:
    """The run's default config (``changes`` applied to [DefaultGenome], added if missing)."""
    text = neat_config_text(N_IN, N_OUT, POPULATION, kind)
    changes = dict(changes or {})
    lines = []
    for line in text.splitlines():
        key = line.split("=")[0].strip() if "=" in line else None
        if key in changes:
            line = f"{key} = {changes.pop(key)}"
        lines.append(line)
        if line.strip() == "[DefaultGenome]":
            lines += [f"{k} = {v}" for k, v in changes.items() if k.startswith("time_constant")
                      or k in ("single_structural_mutation", "structural_mutation_surer",
                               "enabled_rate_to_true_add", "enabled_rate_to_false_add")]
    return "\n".join(lines) + "\n"


def _configs(text: str, tmp_path):
    """neat's own breeding (its genome class, the fast path off) and ours, from one text."""
    fast = load_neat_config(text, tmp_path / "fast.cfg")
    slow = load_neat_config(text, tmp_path / "slow.cfg")
    slow.genome_type = neat.DefaultGenome
    setattr(slow.genome_config, FAST, False)
    assert getattr(fast.genome_config, FAST) is True
    return slow, fast


def _f(x) -> str:
    return x.hex() if isinstance(x, float) else repr(x)


def _genome(g) -> tuple:
    """Everything of a genome, in its dicts' orders, floats as exact hex."""
    return (g.key, _f(g.fitness) if g.fitness is not None else None,
            [(k, _f(n.bias), _f(n.response), n.activation, n.aggregation, _f(n.time_constant))
             for k, n in g.nodes.items()],
            [(k, c.innovation, _f(c.weight), c.enabled) for k, c in g.connections.items()])


def _snapshot(population) -> tuple:
    species = population.species
    return ([_genome(g) for g in population.population.values()],
            [(sid, s.created, s.last_improved, s.representative.key, list(s.members),
              [_f(f) for f in s.fitness_history]) for sid, s in species.species.items()],
            list(species.genome_to_species.items()),
            sorted(population.reproduction.ancestors.items()),
            population.reproduction.innovation_tracker.global_counter,
            random.getstate())


class _Side:
    """One population bred in its own random stream (states swapped in and out)."""

    def __init__(self, config, seed: int, scoped: bool):
        self.config = config
        random.seed(seed)
        if scoped:
            with distance_scope(config.genome_config):
                self.population = neat.Population(config)
            self.population.add_reporter(SpeciationScope())
        else:
            self.population = neat.Population(config)
        self.state = random.getstate()

    def generation(self, fitness: np.ndarray) -> tuple:
        def evaluate(genomes, config):
            for (_, g), f in zip(genomes, fitness):
                g.fitness = float(f) + 0.05 * len(g.connections) + 0.2 * len(g.nodes)  # grow

        random.setstate(self.state)
        self.population.run(evaluate, 1)
        snapshot = _snapshot(self.population)
        self.state = random.getstate()
        return snapshot


def _side_by_side(text: str, tmp_path, generations: int, seed: int) -> int:
    """Breed both for ``generations``, comparing after each; the species count at the end."""
    slow_config, fast_config = _configs(text, tmp_path)
    slow, fast = _Side(slow_config, seed, scoped=False), _Side(fast_config, seed, scoped=True)
    random.setstate(slow.state)
    assert _snapshot(slow.population) == _snapshot(fast.population)
    rng = np.random.default_rng(seed)
    for generation in range(generations):
        fitness = rng.normal(size=POPULATION)
        a, b = slow.generation(fitness), fast.generation(fitness)
        assert a[0] == b[0], f"generation {generation}: the genomes differ"
        assert a == b, f"generation {generation}: the species or the random state differ"
        assert getattr(fast_config.genome_config, SCOPE) is None  # closed after each generation
    assert all(type(g) is breeding.DefaultGenome for g in fast.population.population.values())
    assert all(type(g) is neat.DefaultGenome for g in slow.population.population.values())
    assert max(len(g.connections) for g in fast.population.population.values()) > 30
    return len(fast.population.species.species)


@pytest.mark.parametrize("kind", ["feedforward", "recurrent"])
@pytest.mark.parametrize("changes", [None, VARIED, SINGLE], ids=["default", "varied", "single"])
def test_breeds_and_speciates_as_neat_does(kind, changes, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # neat's innovation collisions, if any
        _side_by_side(_config_text(kind, changes), tmp_path, generations=12, seed=7)


def test_breeding_that_calls_random_gauss_is_the_same(tmp_path, monkeypatch):
    """Where this Python's ``random.gauss`` is not the one the fast path writes in, it calls it."""
    monkeypatch.setattr(breeding, "_GAUSS_INLINE", False)
    _side_by_side(_config_text("feedforward", VARIED), tmp_path, generations=6, seed=11)


def test_many_species_on_arrays(tmp_path):
    """A low fixed threshold: many species, so thousands of distances on arrays a generation."""
    text = _config_text("feedforward", {"compatibility_threshold": "1.5", "target_species": "0"})
    assert _side_by_side(text, tmp_path, generations=8, seed=3) > 10


def test_crossover_of_a_genome_with_itself_keeps_neats_order(tmp_path):
    """neat unites two equal sets of innovation numbers when both parents are one genome; the
    union may grow its table (a | b) where a | a would not, which changes the set's order once the
    numbers pass the table's size. The fast path must walk the genes in neat's order."""
    slow_config, fast_config = _configs(_config_text("feedforward"), tmp_path)
    for config in (slow_config, fast_config):
        config.genome_config.innovation_tracker = neat.innovation.InnovationTracker()
    parent = neat.DefaultGenome(1)
    parent.fitness = 1.0
    parent.nodes = {k: neat.DefaultGenome.create_node(slow_config.genome_config, k) for k in range(N_OUT)}
    for n, innovation in enumerate([*range(200, 300), 400, 517, 1000]):  # 103: the union is resized
        key = (-(1 + n), n % N_OUT)
        gene = neat.genes.DefaultConnectionGene(key, innovation=innovation)
        gene.weight, gene.enabled = float(n), n % 3 > 0
        parent.connections[key] = gene
    for scoped in (False, True):
        children = []
        for config, genome_type in ((slow_config, neat.DefaultGenome), (fast_config, breeding.DefaultGenome)):
            random.seed(5)
            child = genome_type(2)
            if scoped and genome_type is breeding.DefaultGenome:
                with distance_scope(config.genome_config):
                    child.configure_crossover(parent, parent, config.genome_config)
            else:
                child.configure_crossover(parent, parent, config.genome_config)
            children.append((_genome(child), random.getstate()))
        assert children[0] == children[1]
        order = [k for k, *_ in children[0][0][3]]
        assert order != list(parent.connections)  # neat's order is the resized set's


def test_a_feed_forward_parent_with_a_cycle_is_bred_by_neats_code(tmp_path):
    """A cycle in the fitter parent (which neat never makes, but a genome file could hold): neat's
    per-gene check drops a gene; so does the fast path, which hands such a child to neat."""
    slow_config, fast_config = _configs(_config_text("feedforward"), tmp_path)
    genomes = []
    for config, genome_type in ((slow_config, neat.DefaultGenome), (fast_config, breeding.DefaultGenome)):
        data = {"key": 1, "fitness": 2.0,
                "nodes": [{"key": k, "bias": 0.1 * k, "response": 1.0, "activation": "tanh",
                           "aggregation": "sum"} for k in range(N_OUT + 2)],
                "connections": [{"in": a, "out": b, "weight": 0.5, "enabled": True, "innovation": i}
                                for i, (a, b) in enumerate([(-1, 4), (4, 5), (5, 4), (5, 0), (-2, 1)])]}
        p1 = genome_from_dict(data)
        p2 = genome_from_dict({**data, "key": 2, "fitness": 1.0})
        random.seed(1)
        child = genome_type(3)
        child.configure_crossover(p1, p2, config.genome_config)
        genomes.append((_genome(child), random.getstate()))
    assert genomes[0] == genomes[1]
    assert len(genomes[0][0][3]) == 4  # neat dropped the gene that closes the cycle


def test_the_fast_path_is_off_for_genes_neat_does_not_ship(tmp_path, monkeypatch):
    _, fast_config = _configs(_config_text("feedforward"), tmp_path)
    assert fast_breeding(fast_config.genome_config)
    original = FloatAttribute.mutate_value
    monkeypatch.setattr(FloatAttribute, "mutate_value", lambda self, v, c: original(self, v, c))
    assert not fast_breeding(fast_config.genome_config)
    config = load_neat_config(_config_text("feedforward"), tmp_path / "patched.cfg")
    assert getattr(config.genome_config, FAST) is False
    monkeypatch.undo()
    monkeypatch.setattr(neat.genes.DefaultConnectionGene, "_gene_attributes",
                        [*neat.genes.DefaultConnectionGene._gene_attributes, FloatAttribute("gain")])
    assert not fast_breeding(fast_config.genome_config)


def test_a_patched_neat_breeds_through_neats_code(tmp_path, monkeypatch):
    """With the fast path off (here: a patched attribute), the genome class is neat's, exactly."""
    calls = []
    original = FloatAttribute.mutate_value

    def counted(self, value, config):
        calls.append(self.name)
        return original(self, value, config)

    monkeypatch.setattr(FloatAttribute, "mutate_value", counted)
    config = load_neat_config(_config_text("recurrent"), tmp_path / "neat.cfg")
    population = neat.Population(config, seed=1)
    population.run(lambda genomes, config: [setattr(g, "fitness", 1.0) for _, g in genomes], 1)
    assert "weight" in calls and "bias" in calls


def test_distances_are_neats_to_the_bit(tmp_path):
    for kind, changes in (("feedforward", None), ("recurrent", VARIED)):
        config = load_neat_config(_config_text(kind, changes), tmp_path / f"{kind}.cfg")
        config.genome_config.innovation_tracker = neat.innovation.InnovationTracker()
        genomes = [genome_from_dict(genome_to_dict(g)) for g in varied_genomes(config, 30, seed=2)]
        gc = config.genome_config
        expected = [[neat.DefaultGenome.distance(a, b, gc) for b in genomes] for a in genomes]
        scope_free = [[a.distance(b, gc) for b in genomes] for a in genomes]
        with distance_scope(gc):
            scoped = [[a.distance(b, gc) for b in genomes] for a in genomes]
        with distance_scope(gc):   # a list at a time (speciation's), the pairs' rows made by the list
            among = distances_among(genomes, gc)
            listed = [among([(a, b) for b in genomes]) for a in genomes]
        pack = lambda rows: [struct.pack("<d", d) for row in rows for d in row]  # noqa: E731
        assert pack(scoped) == pack(expected)
        assert pack(listed) == pack(expected)
        assert pack(scope_free) == pack(expected)
        assert any(d > 0 for row in expected for d in row)


def test_packed_genomes_are_the_dict_round_trip(tmp_path):
    config = load_neat_config(_config_text("recurrent", VARIED), tmp_path / "neat.cfg")
    config.genome_config.innovation_tracker = neat.innovation.InnovationTracker()
    for g in varied_genomes(config, 20, seed=9):
        via_dict = genome_from_dict(genome_to_dict(g))
        via_pack = unpack_genome(pack_genome(g))
        via_dict.fitness = None
        assert _genome(via_pack) == _genome(via_dict)
        assert type(via_pack) is type(via_dict) is breeding.DefaultGenome


def test_a_run_tunes_the_garbage_collector_only_while_it_evolves():
    import gc

    from evolution.run import _steady_heap

    before = gc.get_threshold()
    with _steady_heap():
        assert gc.get_freeze_count() > 0 and gc.get_threshold()[0] >= 10_000
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    gc.freeze()  # a program that froze objects itself is left as it is
    try:
        frozen = gc.get_freeze_count()
        with _steady_heap():
            assert gc.get_freeze_count() == frozen and gc.get_threshold() == before
    finally:
        gc.unfreeze()
