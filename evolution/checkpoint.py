"""Checkpoints: the whole state of a NEAT run between two generations, as plain JSON.

neat-python's own checkpoints are pickles (unsafe to open, and tied to one version of the
classes). Ours hold exactly what decides the rest of a run, so that a resumed run goes on bit
for bit as the uninterrupted one would have:

- ``random``'s state (neat-python draws all its randomness from it) and numpy's global state;
- the population, in its dict order, each genome with its nodes and connections in the genome's
  own order (mutations pick from ``list(genome.nodes)``, crossover walks the parents' dicts);
- the species: ids, creation and last-improved generations, representatives, members in order,
  fitness histories (stagnation reads them), and the species id counter; and with a dynamic
  compatibility threshold (:mod:`evolution.species`), the threshold it has moved to
  (``species.threshold``; a checkpoint without it starts from the config's);
- the reproduction's genome id counter, the innovation tracker (global counter and this
  generation's innovations) and the genome config's node id counter;
- the best genome seen so far.

A checkpoint is taken after a generation has been evaluated and the next one bred and
speciated, i.e. at the point where neat's ``Population.run`` loop would start the next
generation; ``generation`` is the number of generations evaluated so far.
"""

from __future__ import annotations

import json
import random
from itertools import count

import neat
import numpy as np

from . import limits
from .bodyplan import Plan
from .genomes import body_of_genome, check_body, check_genome, genome_from_dict

#: node genes as rows, in this order (rows, not objects: a checkpoint is rewritten every generation)
NODE_ROW = ("key", "bias", "response", "activation", "aggregation")
#: connection genes as rows
CONNECTION_ROW = ("in", "out", "weight", "enabled", "innovation")

__all__ = ["CheckpointError", "population_state", "restore_population", "generation_genomes", "dumps",
           "loads", "FORMAT", "VERSION"]

FORMAT = "creatures-checkpoint"
VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that cannot be read; the message is one line."""


def _peek(counter) -> int:
    """The next value of an ``itertools.count`` without consuming it: the caller must put
    ``count(value)`` back in its place (see :func:`population_state`)."""
    return next(counter)


def _genome_row(genome) -> dict:
    """A genome with its genes as rows (:data:`NODE_ROW`, :data:`CONNECTION_ROW`), nodes and
    connections in the genome's own order."""
    fitness = genome.fitness
    return {"key": int(genome.key), "fitness": None if fitness is None else float(fitness),
            "nodes": [[int(k), float(n.bias), float(n.response), n.activation, n.aggregation]
                      for k, n in genome.nodes.items()],
            # connection genes hold plain ints, floats and bools by construction (neat makes
            # them so, genome_from_dict converts): no conversions, the bulk of a checkpoint
            "connections": [[k[0], k[1], c.weight, c.enabled, c.innovation]
                            for k, c in genome.connections.items()],
            **({"body": body} if (body := body_of_genome(genome)) is not None else {})}


def _genome_from_row(data: dict, config=None):
    """The genome of a row (:func:`_genome_row`); with ``config``, checked against it first
    (:func:`evolution.genomes.check_genome`: a checkpoint may have been edited by hand)."""
    genome = {
        "key": data["key"], "fitness": data["fitness"],
        "nodes": [dict(zip(NODE_ROW, row, strict=True)) for row in data["nodes"]],
        "connections": [dict(zip(CONNECTION_ROW, row, strict=True)) for row in data["connections"]]}
    if "body" in data:
        genome["body"] = data["body"]
    if config is not None:
        g = config.genome_config
        try:
            check_body(data.get("body"), getattr(g, "body_genes", None))
            growth = getattr(g, "growth", None)
            if growth is not None:
                plan = (data.get("body") or {}).get("plan")
                if plan is None:
                    raise ValueError("it has no body plan, and the run grows its bodies")
                growth.check(Plan.from_dict(plan))
        except ValueError as exc:
            raise CheckpointError(f"genome {genome['key']}: {exc}") from None
        if not (isinstance(genome["key"], int) and not isinstance(genome["key"], bool)):
            raise CheckpointError("a genome's key is not a whole number")
        fitness = genome["fitness"]
        if fitness is not None and (isinstance(fitness, bool) or not isinstance(fitness, (int, float))):
            raise CheckpointError(f"genome {genome['key']}'s fitness is not a number")
        try:
            check_genome(genome, g.num_inputs, g.num_outputs,
                         "feedforward" if g.feed_forward else "recurrent")
        except ValueError as exc:
            raise CheckpointError(f"genome {genome['key']}: {exc}") from None
    return genome_from_dict(genome)


def population_state(population: neat.Population) -> dict:
    """Everything that decides the rest of a run, as plain data (see the module docstring)."""
    repro, species_set = population.reproduction, population.species
    gconf = population.config.genome_config

    # counters: read their next value, and put a fresh counter back that starts there
    genome_next = _peek(repro.genome_indexer)
    repro.genome_indexer = count(genome_next)
    species_next = _peek(species_set.indexer)
    species_set.indexer = count(species_next)
    node_next = None
    if gconf.node_indexer is not None:
        node_next = _peek(gconf.node_indexer)
        gconf.node_indexer = count(node_next)

    tracker = repro.innovation_tracker
    version, mt, gauss = random.getstate()
    np_name, np_keys, np_pos, np_has_gauss, np_gauss = np.random.get_state()
    species = []
    for sid, s in species_set.species.items():
        rep = s.representative
        species.append({
            "key": int(sid), "created": int(s.created), "last_improved": int(s.last_improved),
            "representative": (int(rep.key) if population.population.get(rep.key) is rep
                               else _genome_row(rep)),
            "members": [int(g) for g in s.members],
            "fitness": s.fitness, "adjusted_fitness": s.adjusted_fitness,
            "fitness_history": list(s.fitness_history)})
    best = population.best_genome
    genes = getattr(gconf, "body_genes", None)
    growth = getattr(gconf, "growth", None)
    return {
        "format": FORMAT, "version": VERSION,
        **({"body_genes": genes.to_dict()} if genes else {}),
        **({"growth": {"settings": growth.settings.to_dict(), **growth.state(_living_nodes(population))}}
           if growth is not None else {}),
        "generation": int(population.generation),
        "random": {"version": version, "state": list(mt), "gauss_next": gauss},
        "numpy_random": {"name": np_name, "keys": np_keys.tolist(), "pos": int(np_pos),
                         "has_gauss": int(np_has_gauss), "cached_gaussian": float(np_gauss)},
        "genome_next": int(genome_next),
        "node_next": node_next,
        "innovation": {"counter": int(tracker.global_counter),
                       "generation": [[int(k[0]), int(k[1]), str(k[2]), int(v)]
                                      for k, v in tracker.generation_innovations.items()]},
        "population": [_genome_row(g) for g in population.population.values()],
        "ancestors": [[int(k), [int(p) for p in repro.ancestors.get(k, ())]] for k in population.population],
        "species": {"next": int(species_next), "species": species,
                    "genome_to_species": [[int(g), int(s)] for g, s in species_set.genome_to_species.items()],
                    **_threshold_state(species_set)},
        "best": None if best is None else _genome_row(best),
    }


def _living_nodes(population) -> list:
    """The family-tree nodes of every genome a checkpoint keeps (population, species'
    representatives, the best)."""
    genomes = list(population.population.values()) + [s.representative for s in population.species.species.values()]
    if population.best_genome is not None:
        genomes.append(population.best_genome)
    return [g.body_node for g in genomes if getattr(g, "body_node", None) is not None]


def restore_population(config, state: dict) -> neat.Population:
    """A ``neat.Population`` in exactly the state :func:`population_state` recorded; the global
    ``random`` and numpy generators are restored too. Raises :class:`CheckpointError` for a state
    that does not fit together."""
    try:
        return _restore(config, state)
    except CheckpointError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as exc:
        detail = " ".join(str(exc).split())[:200]
        raise CheckpointError(f"the checkpoint is damaged ({type(exc).__name__}: {detail})") from None


def generation_genomes(config, state: dict) -> tuple[list, dict]:
    """The genomes of a checkpoint's population (the generation after the ``generation``
    evaluated ones: the one being evaluated next), in the population's order and checked
    against ``config``, and genome key -> species id. Unlike :func:`restore_population` it
    leaves the random generators alone (to watch a generation, not to go on evolving).
    Raises :class:`CheckpointError` (one line)."""
    try:
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise CheckpointError("not a creatures checkpoint")
        rows = state["population"]
        if len(rows) > limits.MAX_POPULATION:
            raise CheckpointError(f"the checkpoint holds {len(rows)} genomes; at most {limits.MAX_POPULATION}")
        genomes = [_genome_from_row(d, config) for d in rows]
        species = {int(g): int(s) for g, s in state["species"]["genome_to_species"]}
    except CheckpointError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as exc:
        detail = " ".join(str(exc).split())[:200]
        raise CheckpointError(f"the checkpoint is damaged ({type(exc).__name__}: {detail})") from None
    return genomes, species


def _restore(config, state: dict) -> neat.Population:
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError("not a creatures checkpoint")
    if state.get("version") != VERSION:
        raise CheckpointError(f"checkpoint version {state.get('version')!r} is not supported (this is {VERSION})")
    genes = getattr(config.genome_config, "body_genes", None)
    recorded = state.get("body_genes")
    if (recorded or None) != (genes.to_dict() if genes else None):
        raise CheckpointError("the run's design evolves other values or optional parts than its checkpoint "
                              "was made with (its ranges changed): it cannot be resumed; start a new run")
    growth = getattr(config.genome_config, "growth", None)
    recorded = state.get("growth")
    if (recorded is None) != (growth is None) or (growth is not None
                                                 and recorded.get("settings") != growth.settings.to_dict()):
        raise CheckpointError("the run grows its bodies otherwise than its checkpoint was made with (its growth "
                              "settings changed): it cannot be resumed; start a new run")
    if growth is not None:
        try:
            growth.set_state(recorded)
        except ValueError as exc:
            raise CheckpointError(str(exc)) from None
    genomes = {}
    if len(state["population"]) > limits.MAX_POPULATION:
        raise CheckpointError(f"the checkpoint holds {len(state['population'])} genomes; at most "
                              f"{limits.MAX_POPULATION}")
    for d in state["population"]:
        g = _genome_from_row(d, config)
        if g.key in genomes:
            raise CheckpointError(f"genome {g.key} appears twice")
        genomes[g.key] = g
    if not genomes:
        raise CheckpointError("the checkpoint holds no genomes")

    species_set = config.species_set_type(config.species_set_config, None)
    sdata = state["species"]
    species_set.indexer = count(int(sdata["next"]))
    for sd in sdata["species"]:
        s = neat.species.Species(int(sd["key"]), int(sd["created"]))
        s.last_improved = int(sd["last_improved"])
        rep = sd["representative"]
        rep = _genome_from_row(rep, config) if isinstance(rep, dict) else genomes[int(rep)]
        s.update(rep, {int(k): genomes[int(k)] for k in sd["members"]})
        s.fitness = _number(sd["fitness"])
        s.adjusted_fitness = _number(sd["adjusted_fitness"])
        s.fitness_history = [float(f) for f in sd["fitness_history"]]
        species_set.species[s.key] = s
    species_set.genome_to_species = {int(g): int(s) for g, s in sdata["genome_to_species"]}
    _restore_threshold(species_set, sdata)

    population = neat.Population(config, (genomes, species_set, int(state["generation"])))
    repro = population.reproduction
    repro.genome_indexer = count(int(state["genome_next"]))
    repro.ancestors = {int(k): tuple(int(p) for p in parents) for k, parents in state["ancestors"]}
    tracker = neat.innovation.InnovationTracker(int(state["innovation"]["counter"]))
    tracker.generation_innovations = {(int(i), int(o), str(t)): int(n)
                                      for i, o, t, n in state["innovation"]["generation"]}
    repro.innovation_tracker = tracker
    config.genome_config.innovation_tracker = tracker
    node_next = state["node_next"]
    config.genome_config.node_indexer = None if node_next is None else count(int(node_next))

    best = state["best"]
    if best is not None:
        b = _genome_from_row(best, config)
        # the best genome is often an elite still in the population: keep them one object, as
        # in the uninterrupted run
        same = genomes.get(b.key)
        population.best_genome = same if same is not None and _genome_row(same) == best else b

    r = state["random"]
    random.setstate((int(r["version"]), tuple(int(x) for x in r["state"]), _number(r["gauss_next"])))
    n = state["numpy_random"]
    np.random.set_state((str(n["name"]), np.array(n["keys"], dtype=np.uint32), int(n["pos"]),
                         int(n["has_gauss"]), float(n["cached_gaussian"])))
    return population


def _threshold_state(species_set) -> dict:
    """The moving compatibility threshold, if the species set has one (configs without
    ``target_species`` write checkpoints as before)."""
    if not getattr(species_set, "dynamic", False):
        return {}
    return {"threshold": float(species_set.compatibility_threshold)}


def _restore_threshold(species_set, sdata: dict) -> None:
    """Put back the threshold :func:`_threshold_state` saved (absent: the config's, where a
    run starts; ignored if the config no longer moves it)."""
    if "threshold" not in sdata or not getattr(species_set, "dynamic", False):
        return
    value = sdata["threshold"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1e300:
        raise CheckpointError("the species' compatibility threshold (species.threshold) is not a "
                              "finite number, 0 or more")
    species_set.compatibility_threshold = float(value)


def _number(v):
    return None if v is None else float(v)


def dumps(state: dict) -> str:
    """Compact JSON (a checkpoint is rewritten every generation); non-finite numbers refused."""
    return json.dumps(state, separators=(",", ":"), allow_nan=False)


def loads(text: str) -> dict:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"the checkpoint is not valid JSON ({exc})") from None
