"""Genomes as plain JSON data, and the neat config a run is made with."""

import json

import neat
import numpy as np
import pytest

from evolution import NETWORK_KINDS, genome_from_dict, genome_to_dict, neat_config_text
from evolution.genomes import load_neat_config
from evolution.network import NetworkBatch, compile_networks
from evolution_helpers import bits, neat_config, varied_genomes

N_IN, N_OUT = 7, 3
COUNT = 40


@pytest.fixture(scope="module", params=NETWORK_KINDS)
def kind(request):
    return request.param


@pytest.fixture(scope="module")
def config(kind, tmp_path_factory):
    return neat_config(tmp_path_factory.mktemp(kind) / "neat.cfg", N_IN, N_OUT, COUNT, kind)


@pytest.fixture(scope="module")
def genomes(config):
    return varied_genomes(config, COUNT, seed=4)


def _through_json(genome):
    return genome_from_dict(json.loads(json.dumps(genome_to_dict(genome))))


def test_genomes_under_test_have_grown_and_been_bred(genomes):
    """The genomes are diverse enough for the round trips below to mean something."""
    assert max(len(g.nodes) for g in genomes) > N_OUT + 3
    assert any(not c.enabled for g in genomes for c in g.connections.values())
    assert any(list(g.connections) != sorted(g.connections, key=lambda k: g.connections[k].innovation)
               for g in genomes)


def test_dict_survives_json_exactly(genomes):
    for g in genomes:
        d = genome_to_dict(g)
        assert genome_to_dict(genome_from_dict(json.loads(json.dumps(d)))) == d


def test_round_trip_keeps_every_gene_value(genomes):
    for g in genomes:
        back = _through_json(g)
        assert back.key == g.key and back.fitness == g.fitness
        assert set(back.nodes) == set(g.nodes)
        for key, node in g.nodes.items():
            for field in ("bias", "response", "activation", "aggregation", "time_constant"):
                assert getattr(back.nodes[key], field) == getattr(node, field), (g.key, key, field)
        for key, conn in g.connections.items():
            other = back.connections[key]
            assert (other.weight, other.enabled, other.innovation) == \
                   (conn.weight, conn.enabled, conn.innovation), (g.key, key)


def test_round_trip_keeps_float_bits(genomes):
    for g in genomes:
        back = _through_json(g)
        ours = [c.weight for c in back.connections.values()] + [n.bias for n in back.nodes.values()]
        theirs = [c.weight for c in g.connections.values()] + [g.nodes[k].bias for k in back.nodes]
        assert np.array_equal(bits(ours), bits(theirs))


def test_round_trip_preserves_connection_order(genomes):
    for g in genomes:
        assert list(_through_json(g).connections) == list(g.connections)


def test_reloaded_genomes_compile_to_bit_identical_networks(kind, config, genomes):
    rows = np.random.default_rng(2).normal(scale=2.0, size=(15, len(genomes), N_IN))
    original = NetworkBatch(compile_networks(genomes, config, kind))
    reloaded = NetworkBatch(compile_networks([_through_json(g) for g in genomes], config, kind))
    for x in rows:
        assert np.array_equal(bits(original.activate(x)), bits(reloaded.activate(x)))


def test_genomes_with_nodes_out_of_key_order_reload_to_the_same_networks(kind, config, genomes):
    """genome_to_dict lists nodes by key; a genome holding them in another order (neat does not
    promise any) still reloads to a network with the same bits."""
    shuffled = []
    for g in genomes:
        copy = genome_from_dict(genome_to_dict(g))
        copy.nodes = dict(reversed(list(copy.nodes.items())))
        shuffled.append(copy)
    rows = np.random.default_rng(6).normal(scale=2.0, size=(15, len(genomes), N_IN))
    original = NetworkBatch(compile_networks(shuffled, config, kind))
    reloaded = NetworkBatch(compile_networks([_through_json(g) for g in shuffled], config, kind))
    for x in rows:
        assert np.array_equal(bits(original.activate(x)), bits(reloaded.activate(x)))


def test_reloaded_genome_gives_neats_own_outputs(kind, config, genomes):
    """neat's Python network of the reloaded genome, against neat's of the original."""
    make = neat.nn.FeedForwardNetwork.create if kind == "feedforward" else neat.nn.RecurrentNetwork.create
    rows = np.random.default_rng(3).normal(size=(10, N_IN)).tolist()
    for g in genomes[:10]:
        a, b = make(g, config), make(_through_json(g), config)
        for x in rows:
            assert np.array_equal(bits(a.activate(x)), bits(b.activate(x))), g.key


def test_dict_is_plain_json_data(genomes):
    d = genome_to_dict(genomes[0])
    assert set(d) == {"key", "fitness", "nodes", "connections"}
    assert set(d["connections"][0]) == {"in", "out", "weight", "enabled", "innovation"}
    assert {"key", "bias", "response", "activation", "aggregation"} <= set(d["nodes"][0])
    assert json.loads(json.dumps(d)) == d


def test_genome_without_fitness_round_trips_to_none(config):
    g = neat.DefaultGenome(3)
    g.configure_new(config.genome_config)
    assert g.fitness is None
    d = genome_to_dict(g)
    assert d["fitness"] is None
    assert genome_from_dict(json.loads(json.dumps(d))).fitness is None


def test_missing_time_constant_reads_as_one(genomes):
    d = genome_to_dict(genomes[0])
    for node in d["nodes"]:
        del node["time_constant"]
    assert all(n.time_constant == 1.0 for n in genome_from_dict(d).nodes.values())


# --- the neat config -------------------------------------------------------------------------------

@pytest.mark.parametrize("network", NETWORK_KINDS)
def test_neat_config_text_loads_with_neat(network, tmp_path):
    text = neat_config_text(11, 4, 37, network)
    config = load_neat_config(text, tmp_path / "neat.cfg")
    assert isinstance(config, neat.Config)
    assert config.genome_config.num_inputs == 11
    assert config.genome_config.num_outputs == 4
    assert config.pop_size == 37
    assert config.genome_config.feed_forward == (network == "feedforward")
    assert (tmp_path / "neat.cfg").read_text() == text


@pytest.mark.parametrize("network", NETWORK_KINDS)
def test_new_genomes_start_fully_connected_inputs_to_outputs(network, tmp_path):
    """No hidden nodes; every input feeds every output (neat adds the outputs' self-loops to a
    recurrent genome as well)."""
    config = neat_config(tmp_path / "neat.cfg", 5, 2, 10, network)
    g = neat.DefaultGenome(0)
    g.configure_new(config.genome_config)
    assert sorted(g.nodes) == [0, 1]
    direct = {(i, o) for i in range(-5, 0) for o in range(2)}
    assert set(g.connections) - direct == (set() if network == "feedforward" else {(0, 0), (1, 1)})
    assert direct <= set(g.connections)


def test_neat_config_refuses_an_unknown_network_kind():
    with pytest.raises(ValueError, match="network kind"):
        neat_config_text(3, 1, 10, "spiking")


def test_broken_neat_config_text_is_refused(tmp_path):
    with pytest.raises(Exception):
        load_neat_config("[NEAT\npop_size = 3\n", tmp_path / "neat.cfg")
