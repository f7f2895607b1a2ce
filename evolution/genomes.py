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
import re
import tempfile
from pathlib import Path

import neat

from . import limits
from .bodyplan import Plan
from .breeding import BODY_KEYS, DefaultGenome
from .jsonread import is_int, is_number
from .species import DefaultSpeciesSet, check_settings

__all__ = ["genome_to_dict", "genome_from_dict", "neat_config_text", "load_neat_config",
           "NETWORK_KINDS", "NeatConfigError", "read_neat_config", "check_neat_config",
           "MAX_NEAT_CONFIG_BYTES", "NEAT_SECTIONS"]

#: a neat config file is refused unread beyond this (ours is under 2 kB)
MAX_NEAT_CONFIG_BYTES = 100_000
#: the sections a neat config must have
NEAT_SECTIONS = ("NEAT", "DefaultGenome", "DefaultSpeciesSet", "DefaultStagnation", "DefaultReproduction")


class NeatConfigError(ValueError):
    """A neat-python config that cannot be used; ``str()`` is one line."""

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
    data = {"key": int(genome.key),
            "fitness": None if fitness is None or not math.isfinite(fitness) else float(fitness),
            "nodes": nodes, "connections": conns}
    body = body_of_genome(genome)
    if body is not None:
        data["body"] = body
    return data


def body_of_genome(genome) -> dict | None:
    """A genome's body genes as plain data, ``{"values": [...], "parts": [...]}`` (None for a
    genome without any: a fixed design's)."""
    values, parts = getattr(genome, "body_values", None), getattr(genome, "body_parts", None)
    plan = getattr(genome, "body_plan", None)
    if not values and not parts and plan is None:
        return None
    body = {"values": [float(v) for v in values or ()], "parts": [bool(p) for p in parts or ()]}
    if plan is not None:   # a grown body (evolution.growth), and its place in the family tree
        body["plan"] = plan.to_dict()
        if getattr(genome, "body_node", None) is not None:
            body["node"] = int(genome.body_node)
    return body


def check_body(body, genes) -> None:
    """Raise ValueError (one line) unless ``body`` (a genome dict's ``"body"``, or None) holds
    one value within its range per gene of ``genes`` (a :class:`evolution.bodygenes.BodyGenes`
    or None: no body genes) and one true or false per optional part."""
    n_values, n_parts = (genes.n_values, genes.n_parts) if genes else (0, 0)
    if body is None:
        if n_values or n_parts:
            raise ValueError(f"it has no body genes; the design evolves {n_values} values and {n_parts} parts")
        return
    if not isinstance(body, dict) or set(body) - {"values", "parts", "plan", "node"}:
        raise ValueError("'body' must be an object with 'values' and 'parts'")
    if "plan" in body:
        Plan.from_dict(body["plan"])
    values, parts = body.get("values", []), body.get("parts", [])
    if not isinstance(values, list) or not isinstance(parts, list):
        raise ValueError("the body's 'values' and 'parts' must be lists")
    if len(values) != n_values or len(parts) != n_parts:
        raise ValueError(f"it has {len(values)} body values and {len(parts)} parts; the design evolves "
                         f"{n_values} values and {n_parts} optional parts")
    for v, g in zip(values, genes.genes if genes else ()):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not g.low <= v <= g.high:
            raise ValueError(f"its body value for {g.label} is {v!r}, not a number within "
                             f"[{g.low:g}, {g.high:g}]")
    if not all(isinstance(p, bool) for p in parts):
        raise ValueError("its body parts must be true or false")


def set_body(genome, body: dict | None) -> None:
    """Give ``genome`` the body genes of :func:`body_of_genome`'s dict (None: none)."""
    body = body or {}
    genome.body_values = [float(v) for v in body.get("values", ())]
    genome.body_parts = [bool(p) for p in body.get("parts", ())]
    if body.get("plan") is not None:
        genome.body_plan = Plan.from_dict(body["plan"])
        node = body.get("node")
        genome.body_node = node if isinstance(node, int) and not isinstance(node, bool) else None
    else:
        genome.body_plan = genome.body_node = None


def genome_from_dict(data: dict, genome_config=None):
    """Rebuild a neat ``DefaultGenome`` from :func:`genome_to_dict`'s dict. The connections keep
    their order, which is the order a network sums its inputs in: floating-point sums in another
    order would replay a champion slightly differently from how evolution scored it. The genome is
    an :class:`evolution.breeding.DefaultGenome` (a ``neat.DefaultGenome`` that breeds faster)."""
    genome = DefaultGenome(int(data["key"]))
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
    set_body(genome, data.get("body"))
    return genome


def _plain(v):
    return float(v) if isinstance(v, float) else v


#: the written config's species settings (:mod:`evolution.species`): the threshold it starts from
#: (the walker's new genomes are 0.6-1.9 apart, median 1.1: 1.3 makes 3 species of them), its step
#: and its floor; chosen by measuring the walker's run (docs/evolution-results.md, "How well it evolves")
THRESHOLD, THRESHOLD_STEP, THRESHOLD_MIN = 1.3, 0.1, 0.3


def target_species(population: int) -> int:
    """The number of species the written config steers toward: 8 for 150 genomes, fewer for a
    smaller population (one species per 16 genomes, at least 1)."""
    return max(1, min(8, population // 16))


def neat_config_text(n_inputs: int, n_outputs: int, population: int, kind: str = "feedforward") -> str:
    """The neat-python config a run uses unless the user brings their own: tanh outputs in
    [-1, 1] are muscle commands; networks start fully connected from inputs to outputs, with no
    hidden nodes, and grow; the compatibility threshold moves to keep about
    :func:`target_species` species."""
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
# body genes, for designs with evolvable values or optional parts (ignored without): the chance
# a value mutates, its step as a fraction of its range, the chance an optional part flips
body_mutate_rate      = {BODY_KEYS['body_mutate_rate']}
body_mutate_power     = {BODY_KEYS['body_mutate_power']}
body_flip_rate        = {BODY_KEYS['body_flip_rate']}
compatibility_body_coefficient = {BODY_KEYS['compatibility_body_coefficient']}

[DefaultSpeciesSet]
# the threshold moves to keep target_species species: after each speciation it goes down by
# threshold_step while there are fewer (not below threshold_min), and up by a step when the
# speciation founded species past the target; new species never take the count past it.
# compatibility_threshold is where it starts; without target_species (or 0) it stays there.
compatibility_threshold = {THRESHOLD}
target_species          = {target_species(population)}
threshold_step          = {THRESHOLD_STEP}
threshold_min           = {THRESHOLD_MIN}

[DefaultStagnation]
species_fitness_func = max
max_stagnation       = 20
species_elitism      = 2

[DefaultReproduction]
elitism            = 2
survival_threshold = 0.2
min_species_size   = 2
"""


def _one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line, cut to ``limit`` characters (a value pasted 5000 characters long
    is not worth more: the line also names the file, whose path can be long)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def load_neat_config(text: str, path: Path, source: str = "the neat config"):
    """A ``neat.Config`` from config text (written to ``path`` first: neat reads files). Raises
    :class:`NeatConfigError` (one line, starting with ``source``) for text that neat-python
    cannot read: broken syntax, a missing section or key, a value of the wrong kind."""
    parser = configparser.ConfigParser()
    try:
        parser.read_file(io.StringIO(text))
    except configparser.Error as exc:  # its messages hold the line number
        message = _one_line(getattr(exc, "message", exc))
        for noise in ("While reading from '<???>' ", "file: '<???>', "):
            message = message.replace(noise, "")
        message = re.sub(r"^\[line +(\d+)\]", r"line \1", message)
        raise NeatConfigError(f"{source}: {message}") from None
    missing = [name for name in NEAT_SECTIONS if not parser.has_section(name)]
    if missing:
        raise NeatConfigError(f"{source}: no [{'], ['.join(missing)}] section"
                              f"{'s' if len(missing) > 1 else ''} (a neat-python config has "
                              f"{', '.join(f'[{n}]' for n in NEAT_SECTIONS)})")
    path.write_text(text, encoding="utf-8")
    try:
        return neat.Config(DefaultGenome, neat.DefaultReproduction, DefaultSpeciesSet,
                           neat.DefaultStagnation, str(path))
    except (RuntimeError, ValueError, TypeError, KeyError, AttributeError, AssertionError,
            ArithmeticError, configparser.Error, neat.config.UnknownConfigItemError) as exc:
        detail = _one_line(exc) or type(exc).__name__
        if isinstance(exc, AssertionError) or detail == "AssertionError":
            detail = "a value neat-python does not accept (initial_connection?)"
        raise NeatConfigError(f"{source}: neat-python refuses it: {detail}") from None


def check_neat_config(config, source: str = "the neat config") -> None:
    """Raise :class:`NeatConfigError` for a ``neat.Config`` beyond :mod:`evolution.limits`: a
    population beyond :data:`~evolution.limits.MAX_POPULATION`, new genomes beyond the genome
    limits, or a new population of more than :data:`~evolution.limits.MAX_GENERATION_GENES` genes."""
    g = config.genome_config
    population = config.pop_size
    if not 2 <= population <= limits.MAX_POPULATION:
        raise NeatConfigError(f"{source}: pop_size must be 2 to {limits.MAX_POPULATION}, not {population}")
    n_in, n_out, hidden = g.num_inputs, g.num_outputs, g.num_hidden
    if not 0 <= hidden <= limits.MAX_GENOME_NODES:
        raise NeatConfigError(f"{source}: num_hidden must be 0 to {limits.MAX_GENOME_NODES}, not {hidden}")
    nodes = n_out + hidden
    connections = n_in * hidden + hidden * n_out + n_in * n_out  # at most, whatever initial_connection
    if g.initial_connection == "unconnected":
        connections = 0
    if nodes > limits.MAX_GENOME_NODES or connections > limits.MAX_GENOME_CONNECTIONS:
        raise NeatConfigError(f"{source}: a new genome would have {nodes} nodes and up to {connections} "
                              f"connections; at most {limits.MAX_GENOME_NODES} and "
                              f"{limits.MAX_GENOME_CONNECTIONS} (fewer num_hidden)")
    min_species = config.reproduction_config.min_species_size
    if min_species > population:
        raise NeatConfigError(f"{source}: min_species_size is {min_species}, more than the population "
                              f"({population}): neat-python could not breed it")
    wrong = check_settings(config.species_set_config)
    if wrong:
        raise NeatConfigError(f"{source}: {wrong}")
    genes = population * (nodes + connections)
    if genes > limits.MAX_GENERATION_GENES:
        raise NeatConfigError(f"{source}: {population} new genomes of up to {nodes + connections} genes "
                              f"each are {genes} genes; at most {limits.MAX_GENERATION_GENES} (a smaller "
                              f"population or fewer num_hidden)")


_CONTROL = re.compile(r"[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def read_neat_config(path, source: str | None = None, population: int = 2) -> str:
    """The text of a neat-python config file, checked: at most :data:`MAX_NEAT_CONFIG_BYTES`,
    UTF-8 text (a byte order mark dropped), no control characters, and a config neat-python
    reads and can breed ``population`` genomes with (1 input and 1 output stand in for the
    sizes, which a run sets). Raises :class:`NeatConfigError` with one line naming the file."""
    source = str(path) if source is None else source
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_NEAT_CONFIG_BYTES + 1)
    except OSError as exc:
        raise NeatConfigError(f"cannot read {source}: {exc.strerror or exc}") from None
    if len(data) > MAX_NEAT_CONFIG_BYTES:
        raise NeatConfigError(f"{source}: it is larger than {MAX_NEAT_CONFIG_BYTES} bytes, the most a "
                              f"neat config may be")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NeatConfigError(f"{source}: not a text file (byte {exc.start} is not UTF-8)") from None
    bad = _CONTROL.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise NeatConfigError(f"{source}:{line}:{column}: holds a control character "
                              f"(#x{ord(bad.group()):04x}); a neat config is plain text")
    if not text.strip():
        raise NeatConfigError(f"{source}: the file is empty")
    sized = []
    for line in text.splitlines():  # the sizes a run sets: any stand-in will do to check the rest
        key = line.split("=")[0].strip() if "=" in line else None
        sized.append({"num_inputs": "num_inputs = 1", "num_outputs": "num_outputs = 1",
                      "pop_size": f"pop_size = {population}"}.get(key, line))
    with tempfile.TemporaryDirectory() as tmp:
        config = load_neat_config("\n".join(sized) + "\n", Path(tmp) / "neat.cfg", source)
    check_neat_config(config, source)
    config.pop_size = max(2, config.reproduction_config.min_species_size)  # enough to try it
    _try_population(config, source)
    return text


def _try_population(config, source: str) -> None:
    """Make a population of ``config`` (some values are only checked then: the stagnation's
    fitness function, the genes' init types), leaving Python's ``random`` as it was."""
    import random
    state = random.getstate()
    try:
        neat.Population(config)
    except (RuntimeError, ValueError, TypeError, KeyError, AttributeError, AssertionError,
            ArithmeticError) as exc:
        raise NeatConfigError(f"{source}: neat-python refuses it: "
                              f"{_one_line(exc) or type(exc).__name__}") from None
    finally:
        random.setstate(state)


# --- checking a genome read from a file ----------------------------------------------------------

_NODE_NUMBERS = ("bias", "response")


def check_genome(data, n_inputs: int | None, n_outputs: int, kind: str = "feedforward") -> None:
    """Raise ValueError (one line) for a genome dict (:func:`genome_to_dict`'s form) that does
    not fit a creature of ``n_inputs`` inputs and ``n_outputs`` outputs, or that is beyond
    :mod:`evolution.limits`: fields of the wrong type, nodes or connections repeated, too
    many, a connection from or to a node that does not exist, an output node missing, a cycle
    in a feed-forward genome, or a network that neat-python would take too long to build.
    (Its ``key`` and ``fitness`` are its caller's to check.) ``n_inputs`` None: not known yet,
    any negative key stands for an input."""
    if not isinstance(data, dict):
        raise ValueError("the genome is not an object")
    if n_inputs is None:
        n_inputs = limits.MAX_NODE_KEY
    nodes, connections = data.get("nodes"), data.get("connections")
    if not isinstance(nodes, list) or not isinstance(connections, list):
        raise ValueError("the genome has no 'nodes' and 'connections' lists")
    if len(nodes) > limits.MAX_GENOME_NODES or len(connections) > limits.MAX_GENOME_CONNECTIONS:
        raise ValueError(f"the genome has {len(nodes)} nodes and {len(connections)} connections; at most "
                         f"{limits.MAX_GENOME_NODES} and {limits.MAX_GENOME_CONNECTIONS}")
    keys = set()
    for n in nodes:
        if not isinstance(n, dict):
            raise ValueError("a genome node is not an object")
        for f, ok in (("key", is_int), ("bias", is_number), ("response", is_number),
                      ("activation", lambda v: isinstance(v, str)), ("aggregation", lambda v: isinstance(v, str))):
            if not ok(n.get(f)):
                raise ValueError(f"a genome node lacks a proper '{f}'")
        if "time_constant" in n and not is_number(n["time_constant"]):
            raise ValueError("a genome node lacks a proper 'time_constant'")
        key = n["key"]
        if not 0 <= key <= limits.MAX_NODE_KEY:
            raise ValueError(f"the genome has a node key {key}; node keys are 0 to {limits.MAX_NODE_KEY}")
        if key in keys:
            raise ValueError(f"the genome has node {key} twice")
        keys.add(key)
    pairs, enabled = set(), []
    for c in connections:
        if not isinstance(c, dict):
            raise ValueError("a genome connection is not an object")
        i, o = c.get("in"), c.get("out")
        if not is_int(i) or not is_int(o):
            raise ValueError("a genome connection lacks a proper 'in' or 'out'")
        if not ((-n_inputs <= i < 0) or i in keys) or o not in keys:
            raise ValueError(f"the genome has a connection {i} -> {o} between nodes that do not exist")
        if not is_number(c.get("weight")) or not isinstance(c.get("enabled"), bool):
            raise ValueError("the genome has a connection with a bad weight or flag")
        if not is_int(c.get("innovation")):
            raise ValueError(f"the genome's connection {i} -> {o} lacks a proper 'innovation'")
        if (i, o) in pairs:
            raise ValueError(f"the genome has the connection {i} -> {o} twice")
        pairs.add((i, o))
        if c["enabled"]:
            enabled.append((i, o))
    missing = set(range(n_outputs)) - keys
    if missing:
        raise ValueError(f"the genome lacks output nodes {sorted(missing)[:10]} for the creature's "
                         f"{n_outputs} outputs (one per muscle, or per muscle group)")
    if kind == "feedforward":
        node = _in_a_cycle(keys, enabled)
        if node is not None:
            raise ValueError(f"the genome is feed-forward, but its enabled connections go round in a "
                             f"cycle (through node {node})")
    work = network_work(n_outputs, list(pairs), enabled, kind)
    if work > limits.MAX_NETWORK_WORK:
        raise ValueError(f"the genome's network is too large or too deep to build ({len(keys)} nodes, "
                         f"{len(enabled)} enabled connections: neat-python would take over "
                         f"{limits.MAX_NETWORK_WORK} steps)")


def _in_a_cycle(keys: set, edges: list):
    """A node on a cycle of ``edges`` (pairs of node keys; inputs are negative), or None."""
    indegree = dict.fromkeys(keys, 0)
    out = {}
    for a, b in edges:
        if a >= 0:
            indegree[b] += 1
            out.setdefault(a, []).append(b)
    ready = [k for k, d in indegree.items() if d == 0]
    while ready:
        k = ready.pop()
        for b in out.get(k, ()):
            indegree[b] -= 1
            if indegree[b] == 0:
                ready.append(b)
    left = [k for k, d in indegree.items() if d > 0]
    return min(left) if left else None


def network_work(n_outputs: int, connections: list, enabled: list, kind: str,
                 limit: int = limits.MAX_NETWORK_WORK) -> int:
    """About how many connections neat-python visits to build a genome's network (its graph
    algorithms rescan every connection once per layer, and once per node a layer waits for),
    worked out in time proportional to the genome's size; counting stops past ``limit``.
    Negative keys are inputs."""
    inputs = {a for a, _ in connections if a < 0}
    conns = enabled if kind == "feedforward" else connections
    C = len(conns)
    preds, succs = {}, {}
    for a, b in conns:
        preds.setdefault(b, []).append(a)
        succs.setdefault(a, []).append(b)
    # required_for_output: one rescan a level, walking back from the outputs
    outputs = set(range(n_outputs))
    s, required, frontier, work = set(outputs), set(outputs), set(outputs), 0
    while work <= limit:
        work += C + len(s)
        t = {a for b in frontier for a in preds.get(b, ()) if a not in s}
        layer = t - inputs
        if not t or not layer:
            break
        required |= layer
        s |= t
        frontier = t
    if kind != "feedforward" or work > limit:
        return work
    # feed_forward_layers: a rescan a layer, and one for each candidate node of the layer
    has_inputs = {b for _, b in conns}
    ready = inputs | (required - has_inputs)
    evaluated = len(required - has_inputs)
    pending = {}
    for a, b in conns:
        if a in required and a not in ready:
            pending[b] = pending.get(b, 0) + 1
    candidates = {b for a in ready for b in succs.get(a, ()) if b not in ready}
    while work <= limit:
        work += C + len(candidates) * C
        layer = {n for n in candidates if n in required and not pending.get(n)}
        if not layer:
            break
        evaluated += len(layer)
        ready |= layer
        candidates -= layer
        for n in layer:
            for b in succs.get(n, ()):
                pending[b] = pending.get(b, 0) - 1
                if b not in ready:
                    candidates.add(b)
    return work + evaluated * C  # FeedForwardNetwork.create rescans them for every node
