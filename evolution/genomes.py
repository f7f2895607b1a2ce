"""NEAT genomes as plain JSON-able dicts, and the neat-python config a run is made with.

neat-python's own checkpoints are pickles; ours are plain data. A genome becomes::

    {"key": 17, "fitness": 3.2,
     "nodes": [{"key": 0, "bias": 0.1, "response": 1.0, "activation": "tanh",
                "aggregation": "sum", "time_constant": 1.0}, ...],
     "connections": [{"in": -1, "out": 0, "weight": 0.5, "enabled": true,
                      "innovation": 3}, ...]}

Floats survive the trip exactly (JSON writes the shortest repr that reads back the same double).
"""

from __future__ import annotations

import configparser
import io
import math
from pathlib import Path

import neat

__all__ = ["genome_to_dict", "genome_from_dict", "neat_config_text", "load_neat_config",
           "NETWORK_KINDS"]

NETWORK_KINDS = ("feedforward", "recurrent")

_NODE_FIELDS = ("bias", "response", "activation", "aggregation", "time_constant")


def genome_to_dict(genome) -> dict:
    """A neat ``DefaultGenome`` as a dict of plain values (nodes by key, connections in the
    genome's order; checkpoints keep the nodes' order too: see :mod:`evolution.checkpoint`)."""
    nodes = []
    for key in sorted(genome.nodes):
        ng = genome.nodes[key]
        nodes.append({"key": int(key), **{f: _plain(getattr(ng, f)) for f in _NODE_FIELDS if hasattr(ng, f)}})
    conns = []
    for key, cg in genome.connections.items():  # in the genome's own order: see genome_from_dict
        conns.append({"in": int(key[0]), "out": int(key[1]), "weight": float(cg.weight),
                      "enabled": bool(cg.enabled), "innovation": int(cg.innovation)})
    fitness = genome.fitness
    return {"key": int(genome.key),
            "fitness": None if fitness is None or not math.isfinite(fitness) else float(fitness),
            "nodes": nodes, "connections": conns}


def genome_from_dict(data: dict, genome_config=None):
    """Rebuild a neat ``DefaultGenome`` from :func:`genome_to_dict`'s dict. The connections keep
    their order, which is the order a network sums its inputs in: floating-point sums in another
    order would replay a champion slightly differently from how evolution scored it."""
    genome = neat.DefaultGenome(int(data["key"]))
    for nd in data["nodes"]:
        ng = neat.genome.DefaultNodeGene(int(nd["key"]))
        for f in _NODE_FIELDS:
            if f in nd:
                setattr(ng, f, nd[f])
            elif f == "time_constant":
                ng.time_constant = 1.0
        genome.nodes[ng.key] = ng
    for cd in data["connections"]:
        key = (int(cd["in"]), int(cd["out"]))
        cg = neat.genome.DefaultConnectionGene(key, innovation=int(cd["innovation"]))
        cg.weight = float(cd["weight"])
        cg.enabled = bool(cd["enabled"])
        genome.connections[key] = cg
    f = data.get("fitness")
    genome.fitness = None if f is None else float(f)
    return genome


def _plain(v):
    return float(v) if isinstance(v, float) else v


def neat_config_text(n_inputs: int, n_outputs: int, population: int, kind: str = "feedforward") -> str:
    """The neat-python config a run uses unless the user brings their own: tanh outputs in
    [-1, 1] are muscle commands; networks start fully connected from inputs to outputs, with no
    hidden nodes, and grow."""
    if kind not in NETWORK_KINDS:
        raise ValueError(f"network kind must be one of {', '.join(NETWORK_KINDS)}")
    return f"""# neat-python config written by creatures; edit a copy and pass it with --neat-config
[NEAT]
fitness_criterion     = max
fitness_threshold     = 1e9
no_fitness_termination = True
pop_size              = {population}
reset_on_extinction   = True

[DefaultGenome]
num_inputs            = {n_inputs}
num_outputs           = {n_outputs}
num_hidden            = 0
feed_forward          = {kind == "feedforward"}
initial_connection    = full_direct
activation_default    = tanh
activation_mutate_rate = 0.05
activation_options    = tanh sigmoid sin gauss relu
aggregation_default   = sum
aggregation_mutate_rate = 0.0
aggregation_options   = sum
bias_init_mean        = 0.0
bias_init_stdev       = 1.0
bias_init_type        = gaussian
bias_max_value        = 30.0
bias_min_value        = -30.0
bias_mutate_power     = 0.5
bias_mutate_rate      = 0.7
bias_replace_rate     = 0.1
response_init_mean    = 1.0
response_init_stdev   = 0.0
response_init_type    = gaussian
response_max_value    = 30.0
response_min_value    = -30.0
response_mutate_power = 0.0
response_mutate_rate  = 0.0
response_replace_rate = 0.0
weight_init_mean      = 0.0
weight_init_stdev     = 1.0
weight_init_type      = gaussian
weight_max_value      = 30
weight_min_value      = -30
weight_mutate_power   = 0.5
weight_mutate_rate    = 0.8
weight_replace_rate   = 0.1
enabled_default       = True
enabled_mutate_rate   = 0.01
compatibility_disjoint_coefficient = 1.0
compatibility_weight_coefficient   = 0.5
conn_add_prob         = 0.5
conn_delete_prob      = 0.2
node_add_prob         = 0.2
node_delete_prob      = 0.1

[DefaultSpeciesSet]
compatibility_threshold = 3.0

[DefaultStagnation]
species_fitness_func = max
max_stagnation       = 20
species_elitism      = 2

[DefaultReproduction]
elitism            = 2
survival_threshold = 0.2
min_species_size   = 2
"""


def load_neat_config(text: str, path: Path):
    """A ``neat.Config`` from config text (written to ``path`` first: neat reads files)."""
    configparser.ConfigParser().read_file(io.StringIO(text))  # a clear error for broken text
    path.write_text(text)
    return neat.Config(neat.DefaultGenome, neat.DefaultReproduction, neat.DefaultSpeciesSet,
                       neat.DefaultStagnation, str(path))
