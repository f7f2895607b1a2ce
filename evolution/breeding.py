"""neat-python's genome, bred and speciated faster, bit for bit the same.

A generation of ``creatures evolve`` breeds 150 genomes of ~130 connections and speciates them in
pure Python, and neat-python's ``DefaultGenome`` spends most of that time in generic code: a
cycle check per inherited gene (``creates_cycle`` rescans the child's connections: O(n^2) per
child), per gene and attribute a ``getattr`` of a computed config name and a method call, and
thousands of compatibility distances a generation, each a walk over two genomes' genes.
:class:`DefaultGenome` here is neat's, with ``configure_crossover``, ``mutate`` and ``distance``
written out for neat's own genes (``DefaultNodeGene``: bias, response, activation, aggregation,
time_constant; ``DefaultConnectionGene``: weight, enabled). They draw the same numbers from
``random`` in the same order, make the same genes in the same dict orders and compute the same
floating-point distances with the same operations in the same order, so a run is the same, bit
for bit (``tests/evolution/test_breeding.py`` breeds with both side by side).

- **Crossover.** Every connection a child inherits has the key of a connection of the fitter
  parent (a matching gene has the same key in both parents; a disjoint one comes from the fitter
  parent), so when the fitter parent's connections have no cycle, no subset of them has one, and
  neat's per-gene ``creates_cycle`` check is always False. That parent is checked once, in O(n);
  if it has a cycle (or the child is not empty), neat's own code breeds the child. The genes are
  walked in neat's order: the set of the parents' innovation numbers, built as neat builds it.
- **Gene mutation and crossover** read the config's values once per genome instead of once per
  gene, and write in neat's ``FloatAttribute`` / ``BoolAttribute`` / ``StringAttribute``
  ``mutate_value``, ``init_value`` and ``clamp``, ``BaseGene.crossover`` / ``copy`` and (where
  this Python's is the one copied here) ``random.gauss``. Any config's values are honoured
  (rates, powers, ranges, options, init types); the fast path is taken only for neat 2.0's gene
  classes with their own attributes and methods, which is checked once when a config is parsed
  (``parse_config``): anything else breeds through neat's generic code.
- **Distances** are computed by a numba kernel on arrays while a :class:`DistanceScope` is open
  (:class:`SpeciationScope`, a neat reporter, opens one for each generation's breeding and
  speciation), else in Python: both as neat computes them (see ``_distance``).

The class is named ``DefaultGenome`` as neat's is, because neat-python reads a genome's config
from the section named after its class: configs and run directories keep their
``[DefaultGenome]`` section. It is a subclass, so ``isinstance(g, neat.DefaultGenome)`` holds, and
genomes are the same plain data (:mod:`evolution.genomes`, :mod:`evolution.checkpoint`).
"""

from __future__ import annotations

import dis
import math
import random as _random_module
import warnings
from contextlib import contextmanager

try:  # what random.Random.gauss computes with (see _GAUSS_INLINE)
    from random import TWOPI, _cos, _log, _sin, _sqrt
except ImportError:  # another Python's random module: gauss is called
    TWOPI = _cos = _log = _sin = _sqrt = None

import neat
import numpy as np
from neat.attributes import BoolAttribute, FloatAttribute, StringAttribute
from neat.genes import BaseGene, DefaultConnectionGene, DefaultNodeGene
from numba import njit

__all__ = ["BODY_KEYS", "DefaultGenome", "DistancePool", "DistanceScope", "SpeciationScope", "distance_scope",
           "distances_among", "fast_breeding", "FAST", "SCOPE"]

#: the genome config's attribute that says whether its genes can be bred by the fast path
FAST = "creatures_fast_breeding"

# neat draws from the global generator through these bound methods (``from random import ...``)
_random = _random_module.random
_gauss = _random_module.gauss
_choice = _random_module.choice

#: the genes' attributes the fast path is written for, in neat's order
_NODE_ATTRIBUTES = [(FloatAttribute, "bias"), (FloatAttribute, "response"),
                    (StringAttribute, "activation"), (StringAttribute, "aggregation"),
                    (FloatAttribute, "time_constant")]
_CONNECTION_ATTRIBUTES = [(FloatAttribute, "weight"), (BoolAttribute, "enabled")]

#: neat's functions as they were when this module was imported: a replaced one (a patched neat)
#: turns the fast path off
_ORIGINALS = {(cls, name): cls.__dict__[name] for cls, names in (
    (BaseGene, ("mutate", "crossover", "copy", "init_attributes")),
    (FloatAttribute, ("mutate_value", "clamp", "init_value")),
    (BoolAttribute, ("mutate_value",)),
    (StringAttribute, ("mutate_value",)),
    (DefaultNodeGene, ("distance", "__init__")),
    (DefaultConnectionGene, ("distance", "__init__")),
    (neat.DefaultGenome, ("configure_crossover", "mutate", "distance", "mutate_add_node",
                          "mutate_add_connection", "mutate_delete_node", "mutate_delete_connection")),
) for name in names}


def fast_breeding(genome_config) -> bool:
    """Whether genomes of ``genome_config`` (a ``DefaultGenomeConfig``) can be bred by the fast
    path: neat-python 2.0's own gene classes, attributes and methods."""
    if not str(getattr(neat, "__version__", "")).startswith("2.0."):
        return False
    if (getattr(genome_config, "node_gene_type", None) is not DefaultNodeGene
            or getattr(genome_config, "connection_gene_type", None) is not DefaultConnectionGene):
        return False
    for gene, expected in ((DefaultNodeGene, _NODE_ATTRIBUTES), (DefaultConnectionGene, _CONNECTION_ATTRIBUTES)):
        if [(type(a), a.name) for a in gene._gene_attributes] != expected:
            return False
    for (cls, name), function in _ORIGINALS.items():
        if cls.__dict__.get(name) is not function:
            return False
    return all(getattr(c, name) is f for c, name, f in
               ((DefaultNodeGene, "mutate", BaseGene.mutate), (DefaultNodeGene, "crossover", BaseGene.crossover),
                (DefaultNodeGene, "copy", BaseGene.copy),
                (DefaultConnectionGene, "mutate", BaseGene.mutate),
                (DefaultConnectionGene, "crossover", BaseGene.crossover),
                (DefaultConnectionGene, "copy", BaseGene.copy)))


def _acyclic(connections) -> bool:
    """Whether the directed graph of the connection keys ``(a, b)`` has no cycle (a self-loop is
    one), as neat's ``creates_cycle`` sees them: disabled connections count."""
    successors = {}
    indegree = {}
    for a, b in connections:
        if a == b:
            return False
        successors.setdefault(a, []).append(b)
        indegree[b] = indegree.get(b, 0) + 1
    ready = [a for a in successors if a not in indegree]
    seen = 0
    while ready:
        a = ready.pop()
        for b in successors.get(a, ()):
            seen += 1
            d = indegree[b] - 1
            indegree[b] = d
            if d == 0:
                ready.append(b)
    return seen == len(connections)


_new = object.__new__


#: the settings this module adds to neat's ``[DefaultGenome]`` for body genes, with their defaults:
#: the chance that a child's evolvable value mutates, the mutation's standard deviation as a
#: fraction of the value's range, the chance that an optional part flips, and the body term's
#: weight in the compatibility distance (:meth:`DefaultGenome.body_distance`)
BODY_KEYS = {"body_mutate_rate": 0.2, "body_mutate_power": 0.1, "body_flip_rate": 0.03,
             "compatibility_body_coefficient": 1.0}


class DefaultGenome(neat.DefaultGenome):
    """neat-python's ``DefaultGenome``, bred faster with the same results (module docstring),
    with body genes beside the brain's.

    ``body_values`` (one float per evolvable value of the design) and ``body_parts`` (one bool
    per optional part) follow the genome config's ``body_genes``
    (:class:`evolution.bodygenes.BodyGenes`, set by the run; empty for a fixed design: then the
    genome is neat's, drawing no more random numbers). A new genome starts with the design's
    start values and every part on; a child inherits each body gene from either parent (as neat
    inherits a node's attributes), then each value mutates with probability
    ``body_mutate_rate`` by a Gaussian step of ``body_mutate_power`` times its range, clamped to
    the range, and each part flips with probability ``body_flip_rate``. The compatibility
    distance adds ``compatibility_body_coefficient`` times the mean difference of the body
    genes (values as fractions of their ranges, parts 0 or 1).
    """

    def __init__(self, key):
        super().__init__(key)
        self.body_values = []
        self.body_parts = []
        self.body_plan = None   # a grown body's genes (evolution.growth.Plan), in a growing run
        self.body_node = None   # and its latest change in the run's family tree of structures

    @classmethod
    def parse_config(cls, param_dict):
        param_dict = dict(param_dict)
        body = {}
        for name, default in BODY_KEYS.items():
            text = param_dict.pop(name, None)
            try:
                body[name] = default if text is None else float(text)
            except ValueError:
                raise RuntimeError(f"{name} must be a number, not {text!r}") from None
            if not (math.isfinite(body[name]) and body[name] >= 0.0):
                raise RuntimeError(f"{name} must be a number >= 0, not {text!r}")
        config = super().parse_config(param_dict)   # the [DefaultGenome] section: see above
        setattr(config, FAST, fast_breeding(config))
        for name, value in body.items():
            setattr(config, name, value)
        # The design's body genes (evolution.bodygenes.BodyGenes) ride on the genome config: set
        # by the run (Run.__init__) for a design with evolvable values or parts. neat-python
        # hands each genome method (configure_new, configure_crossover, mutate, distance) this
        # object and nothing else, so it is the only per-run channel to them; anything else (a
        # class attribute, a module registry) would be global, shared by every run in a process.
        config.body_genes = None
        # likewise a growing run's body genetics (evolution.growth.Growth), set by the run
        config.growth = None
        return config

    def configure_new(self, config):
        super().configure_new(config)
        genes = getattr(config, "body_genes", None)
        if genes:
            self.body_values = genes.start_values()
            self.body_parts = genes.start_parts()
        growth = getattr(config, "growth", None)
        if growth is not None:
            self.body_plan, self.body_node = growth.seed_plan(), 0

    # --- crossover -----------------------------------------------------------------------------

    def configure_crossover(self, genome1, genome2, config):
        self.brain_crossover(genome1, genome2, config)
        genes = getattr(config, "body_genes", None)
        if genes:
            parent1, parent2 = (genome1, genome2) if genome1.fitness > genome2.fitness else (genome2, genome1)
            random = _random
            self.body_values = [a if random() > 0.5 else b
                                for a, b in zip(parent1.body_values, parent2.body_values)]
            self.body_parts = [a if random() > 0.5 else b
                               for a, b in zip(parent1.body_parts, parent2.body_parts)]
        growth = getattr(config, "growth", None)
        if growth is not None:
            parent1, parent2 = (genome1, genome2) if genome1.fitness > genome2.fitness else (genome2, genome1)
            self.body_plan = growth.crossover(parent1.body_plan, parent2.body_plan)
            self.body_node = parent1.body_node

    def brain_crossover(self, genome1, genome2, config):
        """The crossover of the brain's genes alone (neat-python's, drawing the same random numbers)."""
        if not getattr(config, FAST, False) or self.connections or self.nodes:
            return super().configure_crossover(genome1, genome2, config)
        if genome1.fitness > genome2.fitness:
            parent1, parent2 = genome1, genome2
        else:
            parent1, parent2 = genome2, genome1
        scope = getattr(config, SCOPE, None)
        if scope is not None:   # the parents' walks, taken once a generation
            acyclic, parent1_innovations, set1 = scope.parent(parent1, config.feed_forward)
            _, parent2_innovations, set2 = scope.parent(parent2, False)
        else:
            acyclic = not config.feed_forward or _acyclic(parent1.connections)
            parent1_innovations = {cg.innovation: cg for cg in parent1.connections.values()}
            parent2_innovations = {cg.innovation: cg for cg in parent2.connections.values()}
            set1, set2 = set(parent1_innovations.keys()), set(parent2_innovations.keys())
        if config.feed_forward and not acyclic:
            return super().configure_crossover(genome1, genome2, config)

        # neat's walk, in its order: the union of the parents' innovation numbers as a set, made
        # as neat makes it (a set's order depends on how it was built). neat unites two sets even
        # when both parents are one genome, and ``a | b`` may grow the table where ``a | a`` does
        # not (set_merge sizes it for both): then the order differs.
        if set2 is set1:
            set2 = set(parent2_innovations.keys())
        all_innovations = set1 | set2
        connections = self.connections
        random = _random
        Connection = DefaultConnectionGene
        for innovation_num in all_innovations:
            cg1 = parent1_innovations.get(innovation_num)
            if cg1 is None:
                continue  # only in the less fit parent: not inherited
            cg2 = parent2_innovations.get(innovation_num)
            new = _new(Connection)
            new.key = key = cg1.key
            new.innovation = cg1.innovation
            if cg2 is None:
                new.weight = cg1.weight
                new.enabled = cg1.enabled
            elif key != cg2.key:
                warnings.warn(
                    f"Innovation number collision: innovation {innovation_num} assigned to both "
                    f"{cg1.key} and {cg2.key}. Treating as disjoint genes.",
                    RuntimeWarning
                )
                new.weight = cg1.weight
                new.enabled = cg1.enabled
            else:  # BaseGene.crossover: each attribute from either parent, then the 75% rule
                new.weight = cg1.weight if random() > 0.5 else cg2.weight
                new.enabled = cg1.enabled if random() > 0.5 else cg2.enabled
                if not cg1.enabled or not cg2.enabled:
                    if random() < 0.75:
                        new.enabled = False
            connections[key] = new

        nodes = self.nodes
        Node = DefaultNodeGene
        parent2_nodes = parent2.nodes
        for key, ng1 in parent1.nodes.items():
            ng2 = parent2_nodes.get(key)
            new = _new(Node)
            new.key = key
            if ng2 is None:
                new.bias = ng1.bias
                new.response = ng1.response
                new.activation = ng1.activation
                new.aggregation = ng1.aggregation
                new.time_constant = ng1.time_constant
            else:
                new.bias = ng1.bias if random() > 0.5 else ng2.bias
                new.response = ng1.response if random() > 0.5 else ng2.response
                new.activation = ng1.activation if random() > 0.5 else ng2.activation
                new.aggregation = ng1.aggregation if random() > 0.5 else ng2.aggregation
                new.time_constant = ng1.time_constant if random() > 0.5 else ng2.time_constant
            nodes[key] = new

    # --- mutation ------------------------------------------------------------------------------

    def mutate(self, config):
        self.brain_mutate(config)
        genes = getattr(config, "body_genes", None)
        if genes:
            random, gauss = _random, _gauss
            rate, power, flip = config.body_mutate_rate, config.body_mutate_power, config.body_flip_rate
            values = self.body_values
            for k, g in enumerate(genes.genes):
                if random() < rate:
                    values[k] = min(g.high, max(g.low, values[k] + gauss(0.0, power * (g.high - g.low))))
            parts = self.body_parts
            for k in range(len(parts)):
                if random() < flip:
                    parts[k] = not parts[k]
        growth = getattr(config, "growth", None)
        if growth is not None:
            before, self.body_plan = self.body_plan, growth.mutate(self.body_plan)
            self.body_node = growth.changed(self.body_node, before, self.body_plan)

    def brain_mutate(self, config):
        """The mutation of the brain's genes alone (neat-python's, drawing the same random numbers)."""
        if not getattr(config, FAST, False):
            return super().mutate(config)
        random = _random
        # the structural mutations: neat's DefaultGenome.mutate, as written there
        if config.single_structural_mutation:
            div = max(1, (config.node_add_prob + config.node_delete_prob +
                          config.conn_add_prob + config.conn_delete_prob))
            r = random()
            if r < (config.node_add_prob / div):
                self.mutate_add_node(config)
            elif r < ((config.node_add_prob + config.node_delete_prob) / div):
                self.mutate_delete_node(config)
            elif r < ((config.node_add_prob + config.node_delete_prob +
                       config.conn_add_prob) / div):
                self.mutate_add_connection(config)
            elif r < ((config.node_add_prob + config.node_delete_prob +
                       config.conn_add_prob + config.conn_delete_prob) / div):
                self.mutate_delete_connection()
        else:
            if random() < config.node_add_prob:
                self.mutate_add_node(config)

            if random() < config.node_delete_prob:
                self.mutate_delete_node(config)

            if random() < config.conn_add_prob:
                self.mutate_add_connection(config)

            if random() < config.conn_delete_prob:
                self.mutate_delete_connection()

        _mutate_connections(self.connections, config)
        _mutate_nodes(self.nodes, config)

    # --- speciation ----------------------------------------------------------------------------

    def distance(self, other, config):
        d = self.brain_distance(other, config)
        genes = getattr(config, "body_genes", None)
        if genes:
            d += config.compatibility_body_coefficient * self.body_distance(other, genes)
        growth = getattr(config, "growth", None)
        if growth is not None:
            d += config.compatibility_body_coefficient * growth.distance(self.body_plan, other.body_plan)
        return d

    def body_distance(self, other, genes) -> float:
        """The mean difference of two genomes' body genes: values as fractions of their ranges,
        parts 0 (the same) or 1."""
        total = 0.0
        for g, a, b in zip(genes.genes, self.body_values, other.body_values):
            if a != b:
                total += abs(a - b) / (g.high - g.low)
        for a, b in zip(self.body_parts, other.body_parts):
            if a != b:
                total += 1.0
        return total / max(1, genes.n_values + genes.n_parts)

    def brain_distance(self, other, config):
        """The compatibility distance of the brains alone (neat-python's)."""
        if not getattr(config, FAST, False):
            return super().distance(other, config)
        scope = getattr(config, SCOPE, None)
        if scope is not None:
            a, b = scope.row(self), scope.row(other)
            return _distance(a[1], a[2], b[1], b[2], b[3], config.compatibility_weight_coefficient,
                             config.compatibility_disjoint_coefficient)
        return _python_distance(self, other, config)


def _python_distance(self, other, config) -> float:
    """neat's ``DefaultGenome.distance`` with the genes' ``distance`` methods written in: the
    same operations in the same order."""
    weight_coefficient = config.compatibility_weight_coefficient
    disjoint_coefficient = config.compatibility_disjoint_coefficient
    nodes, other_nodes = self.nodes, other.nodes
    node_distance = 0.0
    if nodes or other_nodes:
        disjoint_nodes = 0
        for k2 in other_nodes:
            if k2 not in nodes:
                disjoint_nodes += 1
        for k1, n1 in nodes.items():
            n2 = other_nodes.get(k1)
            if n2 is None:
                disjoint_nodes += 1
            else:
                d = abs(n1.bias - n2.bias) + abs(n1.response - n2.response)
                d += abs(n1.time_constant - n2.time_constant)
                if n1.activation != n2.activation:
                    d += 1.0
                if n1.aggregation != n2.aggregation:
                    d += 1.0
                node_distance += d * weight_coefficient
        max_nodes = max(len(nodes), len(other_nodes))
        node_distance = (node_distance + (disjoint_coefficient * disjoint_nodes)) / max_nodes

    connections, other_connections = self.connections, other.connections
    connection_distance = 0.0
    if connections or other_connections:
        disjoint_connections = 0
        for k2 in other_connections:
            if k2 not in connections:
                disjoint_connections += 1
        for k1, c1 in connections.items():
            c2 = other_connections.get(k1)
            if c2 is None:
                disjoint_connections += 1
            else:
                d = abs(c1.weight - c2.weight)
                if c1.enabled != c2.enabled:
                    d += 1.0
                connection_distance += d * weight_coefficient
        max_conn = max(len(connections), len(other_connections))
        connection_distance = (connection_distance
                               + (disjoint_coefficient * disjoint_connections)) / max_conn

    return node_distance + connection_distance


# --- compatibility distances on arrays, while a speciation runs ----------------------------------
#
# neat's speciation computes thousands of distances a generation (every genome against every
# species' representative, old and new), each a walk over two genomes' genes: ~70 us in Python.
# Within a :class:`DistanceScope` each genome is written once into arrays (its genes in its own
# order; the genes' keys as columns of a table shared by the scope) and a distance is one call of
# a numba kernel that walks them exactly as :func:`_python_distance` walks the dicts: the same
# floating-point operations in the same order (no fastmath), so the same bits.
#
# A genome's arrays are taken at its first distance in the scope: the scope is for a stretch in
# which genomes do not change, neat's reproduce-then-speciate (children are complete before
# speciation measures them). :class:`SpeciationScope` opens one when a generation has been
# evaluated and closes it when the next one has been speciated.

#: the genome config's attribute holding the open :class:`DistanceScope` (None: none open)
SCOPE = "creatures_distance_scope"


class DistanceScope:
    """Genomes as arrays for :func:`_distance`, each written at its first use."""

    def __init__(self):
        self.columns = {}   # a connection's key (a tuple) or a node's key (an int) -> column
        self.names = {}     # an activation or aggregation name -> a number
        self.rows = {}      # id(genome) -> (genome, ints, floats, positions)
        self.parents = {}   # id(genome) -> (genome, acyclic or None, innovations, their set)

    def parent(self, genome, feed_forward: bool):
        """A parent's ``(acyclic, {innovation: gene}, set of innovations)`` for crossover, as
        neat builds them; ``acyclic`` is None unless asked for (``feed_forward``)."""
        entry = self.parents.get(id(genome))
        if entry is None or entry[0] is not genome:
            innovations = {cg.innovation: cg for cg in genome.connections.values()}
            entry = [genome, None, innovations, set(innovations.keys())]
            self.parents[id(genome)] = entry
        if feed_forward and entry[1] is None:
            entry[1] = _acyclic(genome.connections)
        return entry[1], entry[2], entry[3]

    def row(self, genome):
        """``(genome, ints, floats, positions)``: :meth:`_arrays`, taken at the first call."""
        row = self.rows.get(id(genome))
        if row is None or row[0] is not genome:
            row = self.rows[id(genome)] = (genome, *self._arrays(genome))
        return row

    def _arrays(self, genome):
        """``ints``: connections n, nodes m, then the connections' columns (n) and enabled
        flags (n), the nodes' columns (m), activations (m) and aggregations (m); ``floats``: the
        weights (n), then the nodes' biases, responses and time constants (m each); ``positions``:
        column -> the gene's index in its genome's connections or nodes (-1: not in it)."""
        columns, names = self.columns, self.names
        connections, nodes = genome.connections, genome.nodes
        n, m = len(connections), len(nodes)
        connection_columns = [columns.setdefault(k, len(columns)) for k in connections]
        node_columns = [columns.setdefault(k, len(columns)) for k in nodes]
        genes = list(connections.values())
        node_genes = list(nodes.values())
        ints = np.array([n, m, *connection_columns, *[c.enabled for c in genes], *node_columns,
                         *[names.setdefault(g.activation, len(names)) for g in node_genes],
                         *[names.setdefault(g.aggregation, len(names)) for g in node_genes]], np.int64)
        floats = np.array([*[c.weight for c in genes], *[g.bias for g in node_genes],
                           *[g.response for g in node_genes], *[g.time_constant for g in node_genes]],
                          np.float64)
        positions = np.full(len(columns), -1, np.int64)
        positions[connection_columns] = np.arange(n)
        positions[node_columns] = np.arange(m)
        return ints, floats, positions


@contextmanager
def distance_scope(genome_config):
    """Distances on arrays for the ``with`` block (genomes must not change in it)."""
    previous = getattr(genome_config, SCOPE, None)
    setattr(genome_config, SCOPE, DistanceScope())
    try:
        yield
    finally:
        setattr(genome_config, SCOPE, previous)


class SpeciationScope(neat.reporting.BaseReporter):
    """A neat reporter that opens a :class:`DistanceScope` when a generation has been evaluated
    and closes it when the next one has been speciated (or the run stops there): the stretch of
    neat's ``Population.run`` in which it breeds and speciates."""

    def post_evaluate(self, config, population, species, best_genome):
        setattr(config.genome_config, SCOPE, DistanceScope())

    def end_generation(self, config, population, species_set):
        setattr(config.genome_config, SCOPE, None)

    def found_solution(self, config, generation, best):
        setattr(config.genome_config, SCOPE, None)

    @staticmethod
    def close(genome_config) -> None:
        setattr(genome_config, SCOPE, None)


def distances_among(genomes, config):
    """A function ``pairs -> [a.distance(b, config) for a, b in pairs]`` for pairs of
    ``genomes``, bit for bit: where a :class:`DistanceScope` is open and every genome is this
    module's, the brains' distances of a whole list in one kernel call (:class:`DistancePool`; a
    call a pair cost ~3 us, most of it the call), the body's terms added as
    :meth:`DefaultGenome.distance` adds them."""
    genomes = list(genomes)
    scope = getattr(config, SCOPE, None)
    if scope is None or not getattr(config, FAST, False) or not all(
            type(g).distance is DefaultGenome.distance for g in genomes):
        return lambda pairs: [a.distance(b, config) for a, b in pairs]
    pool = DistancePool(scope, genomes)
    return lambda pairs: pool.distances(pairs, config)


class DistancePool:
    """Genomes' rows of a :class:`DistanceScope` (:meth:`DistanceScope.row`) side by side in
    three arrays, for distances between them a list at a time (:meth:`distances`)."""

    def __init__(self, scope: DistanceScope, genomes):
        rows = [scope.row(g) for g in genomes]
        self.index = {id(row[0]): k for k, row in enumerate(rows)}
        self.ints, self.int_start = _side_by_side([row[1] for row in rows], np.int64)
        self.floats, self.float_start = _side_by_side([row[2] for row in rows], np.float64)
        self.positions, self.position_start = _side_by_side([row[3] for row in rows], np.int64)

    def distances(self, pairs: list, config) -> list[float]:
        """``[a.distance(b, config) for a, b in pairs]`` for genomes of the pool."""
        index = self.index
        a = np.array([index[id(g)] for g, _ in pairs], np.int64)
        b = np.array([index[id(g)] for _, g in pairs], np.int64)
        out = np.empty(len(pairs), np.float64)
        _distances(self.ints, self.int_start, self.floats, self.float_start, self.positions, self.position_start,
                   a, b, config.compatibility_weight_coefficient, config.compatibility_disjoint_coefficient, out)
        found = out.tolist()
        genes = getattr(config, "body_genes", None)
        growth = getattr(config, "growth", None)
        if genes or growth is not None:   # DefaultGenome.distance's terms, in its order
            coefficient = config.compatibility_body_coefficient
            for k, (g, other) in enumerate(pairs):
                d = found[k]
                if genes:
                    d += coefficient * g.body_distance(other, genes)
                if growth is not None:
                    d += coefficient * growth.distance(g.body_plan, other.body_plan)
                found[k] = d
        return found


def _side_by_side(arrays: list, dtype) -> tuple[np.ndarray, np.ndarray]:
    """``arrays`` one after the other, and where each starts (one more: the end)."""
    start = np.zeros(len(arrays) + 1, np.int64)
    np.cumsum([len(a) for a in arrays], out=start[1:])
    return (np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.zeros(0, dtype)), start


@njit(cache=True)
def _distances(ints, int_start, floats, float_start, positions, position_start, a, b, weight_coefficient,
               disjoint_coefficient, out):
    """:func:`_distance` of the pool's genomes ``a[k]`` and ``b[k]`` into ``out[k]``."""
    for k in range(a.shape[0]):
        i, j = a[k], b[k]
        out[k] = _distance(ints[int_start[i]:int_start[i + 1]], floats[float_start[i]:float_start[i + 1]],
                           ints[int_start[j]:int_start[j + 1]], floats[float_start[j]:float_start[j + 1]],
                           positions[position_start[j]:position_start[j + 1]], weight_coefficient,
                           disjoint_coefficient)


@njit(cache=True)
def _distance(a, af, b, bf, b_position, weight_coefficient, disjoint_coefficient):
    """:func:`_python_distance` of the genomes written as :meth:`DistanceScope._arrays`."""
    na, ma = a[0], a[1]
    nb, mb = b[0], b[1]
    node_distance = 0.0
    if ma > 0 or mb > 0:
        matches = 0
        for j in range(ma):
            column = a[2 + 2 * na + j]
            k = b_position[column] if column < b_position.shape[0] else -1
            if k >= 0:
                matches += 1
                d = abs(af[na + j] - bf[nb + k]) + abs(af[na + ma + j] - bf[nb + mb + k])
                d += abs(af[na + 2 * ma + j] - bf[nb + 2 * mb + k])
                if a[2 + 2 * na + ma + j] != b[2 + 2 * nb + mb + k]:
                    d += 1.0
                if a[2 + 2 * na + 2 * ma + j] != b[2 + 2 * nb + 2 * mb + k]:
                    d += 1.0
                node_distance += d * weight_coefficient
        disjoint = (ma - matches) + (mb - matches)
        node_distance = (node_distance + (disjoint_coefficient * disjoint)) / max(ma, mb)
    connection_distance = 0.0
    if na > 0 or nb > 0:
        matches = 0
        for j in range(na):
            column = a[2 + j]
            k = b_position[column] if column < b_position.shape[0] else -1
            if k >= 0:
                matches += 1
                d = abs(af[j] - bf[k])
                if a[2 + na + j] != b[2 + nb + k]:
                    d += 1.0
                connection_distance += d * weight_coefficient
        disjoint = (na - matches) + (nb - matches)
        connection_distance = (connection_distance + (disjoint_coefficient * disjoint)) / max(na, nb)
    return node_distance + connection_distance


def _initializer(attribute, config):
    """``attribute.init_value(config)`` (a ``FloatAttribute``'s new value, as a replacing mutation
    draws it) as a function of nothing, with the config's values read once: neat's expressions,
    in its order."""
    mean = getattr(config, attribute.init_mean_name)
    stdev = getattr(config, attribute.init_stdev_name)
    init_type = getattr(config, attribute.init_type_name).lower()
    min_value = getattr(config, attribute.min_value_name)
    max_value = getattr(config, attribute.max_value_name)
    gauss = _gauss
    if ('gauss' in init_type) or ('normal' in init_type):
        def new():
            v = gauss(mean, stdev)
            if max_value < v:
                v = max_value
            if min_value > v:
                v = min_value
            return v
        return new
    if 'uniform' in init_type:
        low, high = max(min_value, (mean - (2 * stdev))), min(max_value, (mean + (2 * stdev)))
        uniform = _random_module.uniform
        return lambda: uniform(low, high)
    return lambda: attribute.init_value(config)  # neat raises for an unknown init_type


def _mutate_connections(connections: dict, config) -> None:
    """``cg.mutate(config)`` for every connection gene, in order: ``FloatAttribute`` weight, then
    ``BoolAttribute`` enabled, drawing as neat's ``mutate_value`` does. neat's clamp
    ``max(min(v, high), low)`` is written as the comparisons ``min`` and ``max`` make (``high < v``,
    then ``low > v``): the same value, NaN included, without two calls per gene; and where this
    Python's ``random.gauss`` is the one :func:`_reference_gauss` copies, its body is written in
    (the weights' mutations are most of a generation's normal draws)."""
    if not _GAUSS_INLINE:
        return _mutate_connections_calling_gauss(connections, config)
    random, generator = _random, _random_module._inst
    mutate_rate = config.weight_mutate_rate
    replace_limit = config.weight_replace_rate + mutate_rate
    power = config.weight_mutate_power
    low, high = config.weight_min_value, config.weight_max_value
    new_weight = _initializer(DefaultConnectionGene._gene_attributes[0], config)
    flip_rate = config.enabled_mutate_rate
    flip_when_true = flip_rate + config.enabled_rate_to_false_add
    flip_when_false = flip_rate + config.enabled_rate_to_true_add
    for cg in connections.values():
        r = random()
        if r < mutate_rate:
            # gauss(0.0, power), as random.Random.gauss computes it
            z = generator.gauss_next
            generator.gauss_next = None
            if z is None:
                x2pi = random() * TWOPI
                g2rad = _sqrt(-2.0 * _log(1.0 - random()))
                z = _cos(x2pi) * g2rad
                generator.gauss_next = _sin(x2pi) * g2rad
            w = cg.weight + (0.0 + z * power)
            if high < w:   # max(min(w, high), low), as neat clamps, without the calls
                w = high
            if low > w:
                w = low
            cg.weight = w
        elif r < replace_limit:
            cg.weight = new_weight()
        rate = flip_when_true if cg.enabled else flip_when_false
        if rate > 0:
            r = random()
            if r < rate:
                cg.enabled = random() < 0.5


def _mutate_connections_calling_gauss(connections: dict, config) -> None:
    """:func:`_mutate_connections` calling ``random.gauss``."""
    random, gauss = _random, _gauss
    mutate_rate = config.weight_mutate_rate
    replace_limit = config.weight_replace_rate + mutate_rate
    power = config.weight_mutate_power
    low, high = config.weight_min_value, config.weight_max_value
    new_weight = _initializer(DefaultConnectionGene._gene_attributes[0], config)
    flip_rate = config.enabled_mutate_rate
    flip_when_true = flip_rate + config.enabled_rate_to_false_add
    flip_when_false = flip_rate + config.enabled_rate_to_true_add
    for cg in connections.values():
        r = random()
        if r < mutate_rate:
            w = cg.weight + gauss(0.0, power)
            if high < w:
                w = high
            if low > w:
                w = low
            cg.weight = w
        elif r < replace_limit:
            cg.weight = new_weight()
        rate = flip_when_true if cg.enabled else flip_when_false
        if rate > 0:
            r = random()
            if r < rate:
                cg.enabled = random() < 0.5


def _reference_gauss(self, mu=0.0, sigma=1.0):
    # CPython 3.11's random.Random.gauss, as written there (its comments and docstring left out)
    random = self.random
    z = self.gauss_next
    self.gauss_next = None
    if z is None:
        x2pi = random() * TWOPI
        g2rad = _sqrt(-2.0 * _log(1.0 - random()))
        z = _cos(x2pi) * g2rad
        self.gauss_next = _sin(x2pi) * g2rad

    return mu + z * sigma


def _instructions(function) -> list:
    """A function's bytecode as (operation, argument value) pairs: names and constants by value,
    so two functions compiled from the same statements compare equal whatever their docstrings."""
    return [(i.opname, i.argval if i.opname not in ("RESUME",) else None)
            for i in dis.get_instructions(function) if i.opname not in ("CACHE", "NOP")]


#: whether random.Random.gauss is the function _mutate_connections writes in: the same
#: statements (and so the same draws and arithmetic) as _reference_gauss, on the same generator
_GAUSS_INLINE = (TWOPI is not None and _gauss == _random_module._inst.gauss
                 and getattr(_gauss, "__func__", None) is _random_module.Random.gauss
                 and type(_random_module._inst) is _random_module.Random
                 and _instructions(_random_module.Random.gauss) == _instructions(_reference_gauss))


def _mutate_nodes(nodes: dict, config) -> None:
    """``ng.mutate(config)`` for every node gene, in order: bias, response (floats), activation,
    aggregation (strings), time_constant (float)."""
    random, gauss, choice = _random, _gauss, _choice
    attributes = DefaultNodeGene._gene_attributes
    floats = []
    for a in (attributes[0], attributes[1], attributes[4]):
        rate = getattr(config, a.mutate_rate_name)
        floats.append((rate, getattr(config, a.replace_rate_name) + rate, getattr(config, a.mutate_power_name),
                       getattr(config, a.min_value_name), getattr(config, a.max_value_name),
                       _initializer(a, config)))
    (b_rate, b_limit, b_power, b_low, b_high, b_new), (r_rate, r_limit, r_power, r_low, r_high, r_new), \
        (t_rate, t_limit, t_power, t_low, t_high, t_new) = floats
    act_rate, act_options = config.activation_mutate_rate, config.activation_options
    agg_rate, agg_options = config.aggregation_mutate_rate, config.aggregation_options
    for ng in nodes.values():
        r = random()
        if r < b_rate:
            v = ng.bias + gauss(0.0, b_power)
            if b_high < v:
                v = b_high
            if b_low > v:
                v = b_low
            ng.bias = v
        elif r < b_limit:
            ng.bias = b_new()
        r = random()
        if r < r_rate:
            v = ng.response + gauss(0.0, r_power)
            if r_high < v:
                v = r_high
            if r_low > v:
                v = r_low
            ng.response = v
        elif r < r_limit:
            ng.response = r_new()
        if act_rate > 0:
            r = random()
            if r < act_rate:
                ng.activation = choice(act_options)
        if agg_rate > 0:
            r = random()
            if r < agg_rate:
                ng.aggregation = choice(agg_options)
        r = random()
        if r < t_rate:
            v = ng.time_constant + gauss(0.0, t_power)
            if t_high < v:
                v = t_high
            if t_low > v:
                v = t_low
            ng.time_constant = v
        elif r < t_limit:
            ng.time_constant = t_new()
