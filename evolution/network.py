"""Batched NEAT networks: a generation's brains compiled once into flat arrays, stepped together.

neat-python's ``FeedForwardNetwork.activate`` costs 15-40 us per call: at 150 creatures x 1200
steps it would cost more than the physics. Here every genome is compiled once into arrays, all B
networks are padded into one batch, and one numba kernel call steps them all.

Layout of one network (``CompiledNetworks`` holds B of them, padded to the batch's largest)::

    slots   0 .. I-1            the inputs, in neat's input-key order (-1, -2, ..., -I)
            I .. I+V-1          the V evaluated nodes, in neat's evaluation order (packed
                                genomes': a layer's nodes by key, evolution.packed_networks)
            I+V ..              nodes read but never evaluated (they stay 0.0), then padding
    links   CSR by slot: the links into slot n are link_start[n] .. link_start[n + 1] - 1,
            each a (source slot, weight), in the order neat sums them

Slots are dense and in evaluation order so the kernel walks each network's arrays front to back;
``output_slot`` says where each output ended up.

Why the compiled networks are neat's own: the evaluation order, the links of every node and
their order are read from the ``node_evals`` of neat's ``FeedForwardNetwork.create`` /
``RecurrentNetwork.create``, so they are neat's by construction (what workers receive, a
feed-forward genome as :func:`evolution.chunks.pack_genome`'s tuple, is compiled by a kernel to
the same nodes and links, a layer's nodes in the order of their keys instead of a Python set's:
:mod:`evolution.packed_networks`). Among the subtleties that come
with them: a feed-forward network evaluates a required node without enabled inputs (an output
included) as ``activation(bias + response * aggregation([]))``, while a recurrent network never
evaluates a node without enabled inputs, so such an output reads 0.0 forever; and a recurrent
network's "required" nodes are found through disabled connections too.

Why the kernels are bit-for-bit equal to neat's Python (tested on random genomes):

- every activation and aggregation repeats neat's Python expression in the same order, with
  Python's ``min``/``max`` semantics for NaN (``min(60.0, nan)`` is 60.0);
- ``z ** 2`` and ``z ** 3`` call the C library's ``pow`` as CPython does. glibc's
  ``pow(z, 2.0)`` is not always ``z * z`` (0.08 % of random doubles differ in the last bit), and
  LLVM rewrites ``pow(z, 2.0)`` as ``z * z`` unless told the call is not a builtin: see
  ``_c_pow``;
- ``sum`` adds left to right from 0 as Python 3.11 does; Python 3.12 made ``sum()`` of floats
  compensated (Neumaier), which ``python_sum`` follows on 3.12 and later;
- ``median`` sorts with CPython's algorithm for short lists (the first run, then binary
  insertion), so even NaN, which compares false both ways, lands where Python puts it;
- no fastmath (it would reorder sums), and the same libm ``exp``/``tanh``/``sin``/``log`` Python
  calls.

Known differences: where CPython raises OverflowError (``z ** 2`` or ``z ** 3`` overflowing,
which crashes neat's ``activate``) the kernel gives inf; a median over 64 or more links
containing NaN may differ (CPython merges runs there); and which NaN an operation on two NaNs
gives (sign, payload) is open in IEEE 754, compilers swap the operands of ``+`` and ``*`` freely,
and no activation or aggregation turns a NaN's sign into a number.
"""

from __future__ import annotations

import math
import random
import sys
import time
from dataclasses import dataclass, fields, replace

import neat
import numpy as np
from neat.graphs import required_for_output
from llvmlite import ir
from numba import get_num_threads, njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from .packed_networks import compile_packed

__all__ = ["ACTIVATIONS", "AGGREGATIONS", "CompiledNetworks", "NetworkBatch", "compile_networks",
           "node_slots", "benchmark", "step_range"]

_KINDS = ("feedforward", "recurrent")

#: neat's built-in activations the kernel knows, in id order
ACTIVATIONS = ("sigmoid", "tanh", "sin", "gauss", "relu", "elu", "lelu", "selu", "softplus",
               "identity", "clamped", "inv", "log", "exp", "abs", "hat", "square", "cube")
(SIGMOID, TANH, SIN, GAUSS, RELU, ELU, LELU, SELU, SOFTPLUS,
 IDENTITY, CLAMPED, INV, LOG, EXP, ABS, HAT, SQUARE, CUBE) = range(len(ACTIVATIONS))

#: neat's built-in aggregations the kernel knows, in id order
AGGREGATIONS = ("sum", "product", "max", "min", "maxabs", "median", "mean")
(SUM, PRODUCT, MAX, MIN, MAXABS, MEDIAN, MEAN) = range(len(AGGREGATIONS))

# neat's function objects -> our ids. By identity, not by name: a config may register its own
# function under a built-in name, and that one the kernel does not know.
_ACTIVATION_IDS = {getattr(neat.activations, f"{name}_activation"): i
                   for i, name in enumerate(ACTIVATIONS)}
_AGGREGATION_IDS = {getattr(neat.aggregations, f"{name}_aggregation"): i
                    for i, name in enumerate(AGGREGATIONS)}

# the constants of neat's selu_activation, as written there
_SELU_LAMBDA = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717

#: Python 3.12 made sum() of floats compensated (Neumaier); neat's sum and mean use sum()
COMPENSATED_SUM = sys.version_info >= (3, 12)


# --- compiling genomes ------------------------------------------------------------------------

@dataclass(frozen=True)
class CompiledNetworks:
    """B networks as flat arrays, padded to the batch's largest (see the module docstring).

    Attributes
    ----------
    kind : str
        ``"feedforward"`` or ``"recurrent"``.
    num_inputs, num_outputs : int
        I and O, the same for every network.
    eval_count : ndarray, shape (B,), int64
        Network b evaluates slots ``I .. I + eval_count[b] - 1``, in that order.
    bias, response : ndarray, shape (B, N), float64
        Of the node in each evaluated slot; 0.0 elsewhere.
    activation : ndarray, shape (B, N), int64
        Index into ``ACTIVATIONS`` of each evaluated slot's node; 0 elsewhere.
    aggregation : ndarray, shape (B, N), int64
        Index into ``AGGREGATIONS`` of each evaluated slot's node; 0 elsewhere.
    link_start : ndarray, shape (B, N + 1), int64
        The links into slot n are ``link_start[b, n] .. link_start[b, n + 1] - 1``; inputs,
        unevaluated slots and padding have none.
    link_source : ndarray, shape (B, C), int64
        The slot each link reads; 0 in padding.
    link_weight : ndarray, shape (B, C), float64
        Each link's weight; 0.0 in padding.
    output_slot : ndarray, shape (B, O), int64
        The slot holding each output.
    max_links : int
        The most links into one node of the batch (at least 1): the kernel's scratch size.
    """

    kind: str
    num_inputs: int
    num_outputs: int
    eval_count: np.ndarray
    bias: np.ndarray
    response: np.ndarray
    activation: np.ndarray
    aggregation: np.ndarray
    link_start: np.ndarray
    link_source: np.ndarray
    link_weight: np.ndarray
    output_slot: np.ndarray
    max_links: int

    @property
    def batch(self) -> int:
        return len(self.eval_count)

    def take(self, index) -> "CompiledNetworks":
        """The networks ``index`` picks (an int array), in its order, repeats allowed: a genome
        scored over several trials is compiled once and stepped as many times."""
        index = np.asarray(index, dtype=np.int64)
        rows = {f.name: np.ascontiguousarray(getattr(self, f.name)[index]) for f in fields(self)
                if isinstance(getattr(self, f.name), np.ndarray)}
        return replace(self, **rows)

    @property
    def slots(self) -> int:
        return self.bias.shape[1]


@dataclass
class _FlatNetwork:
    """One network before padding: its evaluated nodes in order, slot I + k for the k-th."""

    bias: list[float]
    response: list[float]
    activation: list[int]
    aggregation: list[int]
    links: list[list[tuple[int, float]]]   # per evaluated node: (source slot, weight)
    output_slot: list[int]
    slot_count: int
    slots: dict = None                      # node key -> slot


def compile_networks(genomes, config, kind: str) -> CompiledNetworks:
    """Compile neat ``DefaultGenome``s (with their ``neat.Config``) into one batch of ``kind``
    networks, ``"feedforward"`` or ``"recurrent"``, each exactly as neat-python would build it.
    A feed-forward genome may also be :func:`evolution.chunks.pack_genome`'s tuple (what workers
    receive): a batch of those is compiled in one kernel, without making the genome's objects
    (:mod:`evolution.packed_networks`), to networks of the same outputs (a layer's nodes by key);
    one the kernel leaves to neat's way (:func:`_packed_node_evals`) to the same networks.

    Raises ValueError for an unknown kind, no genomes, or a node whose activation or aggregation
    function is not one of neat's built-ins listed in ``ACTIVATIONS`` / ``AGGREGATIONS``."""
    if kind not in _KINDS:
        raise ValueError(f"network kind must be one of {', '.join(_KINDS)}, not {kind!r}")
    genomes = list(genomes)
    if not genomes:
        raise ValueError("compile_networks needs at least one genome")
    genome_config = config.genome_config
    if kind == "feedforward" and all(isinstance(genome, tuple) for genome in genomes):
        arrays = compile_packed(genomes, genome_config, _ACTIVATION_IDS, _AGGREGATION_IDS)
        if arrays is not None:
            return CompiledNetworks(kind, len(genome_config.input_keys), len(genome_config.output_keys), *arrays)
    flats = []
    for genome in genomes:
        if isinstance(genome, tuple) and kind == "feedforward":
            key, nodes = genome[0], {int(n[0]): n for n in genome[1]}
            names = {k: (n[3], n[4]) for k, n in nodes.items()}
            flats.append(_flatten(key, names, genome_config, _packed_node_evals(nodes, genome[2], genome_config)))
            continue
        if isinstance(genome, tuple):
            raise ValueError("a recurrent network is compiled from its genome (evolution.chunks.unpack_genome), "
                             "not from its tuples")
        names = {k: (n.activation, n.aggregation) for k, n in genome.nodes.items()}
        flats.append(_flatten(genome.key, names, genome_config, _neat_network(genome, config, kind).node_evals))
    return _pack(flats, kind, len(genome_config.input_keys), len(genome_config.output_keys))


def _neat_network(genome, config, kind: str):
    """neat-python's own network for the genome: its node_evals are the spec we compile."""
    if kind == "feedforward":
        return neat.nn.FeedForwardNetwork.create(genome, config)
    return neat.nn.RecurrentNetwork.create(genome, config)


def _packed_node_evals(nodes: dict, connections, genome_config) -> list:
    """neat's ``FeedForwardNetwork.create(genome, config).node_evals`` for a genome given as
    :func:`evolution.chunks.pack_genome`'s nodes (by key) and connections (in the genome's
    order), the same tuples in the same order: the layers of :func:`_feed_forward_layers`
    (neat's), each node's links the enabled connections into it from a required node or an
    input, in the genome's order (neat looks each up in the whole list; here they are sorted
    by node once)."""
    enabled = [(int(i), int(o), float(w)) for i, o, w, on, _ in connections if bool(on)]
    keys = [(i, o) for i, o, _ in enabled]
    layers, required = _feed_forward_layers(genome_config.input_keys, genome_config.output_keys, keys)
    readable = required.union(set(genome_config.input_keys))
    into: dict = {}
    for i, o, w in enabled:
        if i in readable:
            into.setdefault(o, []).append((i, w))
    node_evals = []
    for layer in layers:
        for node in layer:
            _, bias, response, activation, aggregation, _ = nodes[node]
            node_evals.append((node, genome_config.activation_defs.get(activation),
                               genome_config.aggregation_function_defs.get(aggregation), bias, response,
                               into.get(node, [])))
    return node_evals


def _feed_forward_layers(inputs, outputs, connections):
    """``neat.graphs.feed_forward_layers``: the same sets, built by the same operations in the
    same order (so that they iterate alike, and the nodes of a layer are evaluated in neat's
    order), without its scan of every connection for each candidate node of each layer."""
    required = required_for_output(inputs, outputs, connections)
    nodes_with_inputs = set()
    incoming: dict = {}
    for a, b in connections:
        nodes_with_inputs.add(b)
        incoming.setdefault(b, []).append(a)
    bias_neurons = required - nodes_with_inputs
    layers = []
    potential_input = set(inputs) | bias_neurons
    if bias_neurons:
        layers.append(bias_neurons.copy())
    while True:
        c = {b for (a, b) in connections if a in potential_input and b not in potential_input}
        next_layer = set()
        for n in c:
            if n in required and all(a in potential_input for a in incoming[n] if a in required):
                next_layer.add(n)
        if not next_layer:
            break
        layers.append(next_layer)
        potential_input = potential_input.union(next_layer)
    return layers, required


def _flatten(key, names: dict, genome_config, node_evals) -> _FlatNetwork:
    """Dense slots for one neat network's node_evals, keeping their order and link order
    (``names``: each node's activation and aggregation names, for errors)."""
    slot = {k: i for i, k in enumerate(genome_config.input_keys)}
    for node, *_ in node_evals:
        slot[node] = len(slot)

    def slot_of(k):  # nodes read but never evaluated get a slot of their own, forever 0.0
        if k not in slot:
            slot[k] = len(slot)
        return slot[k]

    flat = _FlatNetwork([], [], [], [], [], [], 0)
    for node, act, agg, bias, response, links in node_evals:
        activation, aggregation = names[node]
        flat.activation.append(_function_id(_ACTIVATION_IDS, act, "activation", activation, key, node))
        flat.aggregation.append(_function_id(_AGGREGATION_IDS, agg, "aggregation", aggregation, key, node))
        flat.bias.append(float(bias))
        flat.response.append(float(response))
        flat.links.append([(slot_of(source), float(weight)) for source, weight in links])
    flat.output_slot = [slot_of(k) for k in genome_config.output_keys]
    flat.slot_count = len(slot)
    flat.slots = slot
    return flat


def node_slots(genome, config, kind: str) -> dict:
    """Node key -> slot of the genome's compiled network (inputs included): where
    ``NetworkBatch.values`` holds each node's value, for a viewer's brain panel."""
    names = {k: (n.activation, n.aggregation) for k, n in genome.nodes.items()}
    return dict(_flatten(genome.key, names, config.genome_config,
                         _neat_network(genome, config, kind).node_evals).slots)


def _function_id(ids: dict, function, what: str, name: str, genome_key, node) -> int:
    if function not in ids:
        known = ACTIVATIONS if what == "activation" else AGGREGATIONS
        raise ValueError(f"genome {genome_key}, node {node}: {what} {name!r} is not supported by "
                         f"the batched networks (neat's built-in {', '.join(known)} are)")
    return ids[function]


def _pack(flats: list[_FlatNetwork], kind: str, num_inputs: int,
          num_outputs: int) -> CompiledNetworks:
    """Pad the flattened networks to one batch (padding is never evaluated)."""
    B = len(flats)
    N = max(f.slot_count for f in flats)
    C = max(1, max(sum(len(links) for links in f.links) for f in flats))
    eval_count = np.zeros(B, np.int64)
    bias = np.zeros((B, N))
    response = np.zeros((B, N))
    activation = np.zeros((B, N), np.int64)
    aggregation = np.zeros((B, N), np.int64)
    link_start = np.zeros((B, N + 1), np.int64)
    link_source = np.zeros((B, C), np.int64)
    link_weight = np.zeros((B, C))
    output_slot = np.zeros((B, num_outputs), np.int64)
    max_links = 1
    for b, f in enumerate(flats):
        V = len(f.bias)
        evaluated = slice(num_inputs, num_inputs + V)
        eval_count[b] = V
        bias[b, evaluated] = f.bias
        response[b, evaluated] = f.response
        activation[b, evaluated] = f.activation
        aggregation[b, evaluated] = f.aggregation
        counts = np.zeros(N, np.int64)
        counts[evaluated] = [len(links) for links in f.links]
        link_start[b, 1:] = np.cumsum(counts)
        links = [link for node_links in f.links for link in node_links]
        if links:
            link_source[b, :len(links)] = [source for source, _ in links]
            link_weight[b, :len(links)] = [weight for _, weight in links]
            max_links = max(max_links, int(counts.max()))
        output_slot[b] = f.output_slot
    return CompiledNetworks(kind, num_inputs, num_outputs, eval_count, bias, response, activation,
                            aggregation, link_start, link_source, link_weight, output_slot,
                            max_links)


# --- stepping a batch --------------------------------------------------------------------------

class NetworkBatch:
    """B compiled networks with their node values, stepped together: ``activate(inputs)``.
    Network b's outputs at step t are the bits neat's network for genome b gives at its step t.

    Attributes
    ----------
    networks : CompiledNetworks
    values : ndarray, shape (B, 2, N) recurrent, (B, 1, N) feed-forward, float64
        Node values by slot. A recurrent network keeps two buffers as neat's does: each step
        reads one and writes the other, so every node sees its inputs' values of the previous
        step. A feed-forward network reads what it writes, in evaluation order.
    active : int
        The buffer the next recurrent step reads (0 for feed-forward).
    parallel : bool
        Step the networks on numba's threads (``prange``). Off by default: evolution runs one
        process per core already.
    """

    def __init__(self, networks: CompiledNetworks, parallel: bool = False):
        self.networks = networks
        self.parallel = parallel
        buffers = 2 if networks.kind == "recurrent" else 1
        self.values = np.zeros((networks.batch, buffers, networks.slots))
        self.active = 0
        self._scratch = np.zeros((networks.batch, networks.max_links))

    @classmethod
    def from_genomes(cls, genomes, config, kind: str, parallel: bool = False) -> "NetworkBatch":
        return cls(compile_networks(genomes, config, kind), parallel)

    def reset(self) -> None:
        """Every node back to 0.0, as neat's ``RecurrentNetwork.reset`` (feed-forward networks
        carry nothing from one step to the next anyway)."""
        self.values[:] = 0.0
        self.active = 0

    def activate(self, inputs) -> np.ndarray:
        """One step of every network: ``inputs`` (B, I) float64 -> outputs (B, O) float64."""
        nets = self.networks
        inputs = np.ascontiguousarray(inputs, dtype=np.float64)
        if inputs.shape != (nets.batch, nets.num_inputs):
            raise ValueError(f"inputs must have shape (B, I) = ({nets.batch}, {nets.num_inputs}), "
                             f"not {inputs.shape}")
        read = self.active
        write = 1 - read if nets.kind == "recurrent" else read
        outputs = np.empty((nets.batch, nets.num_outputs))
        args = (inputs, self.values, read, write, nets.eval_count, nets.bias, nets.response,
                nets.activation, nets.aggregation, nets.link_start, nets.link_source,
                nets.link_weight, nets.output_slot, self._scratch, outputs)
        if self.parallel:
            _step_networks_parallel(min(nets.batch, get_num_threads()), *args)
        else:
            _step_networks(*args)
        self.active = write
        return outputs


@njit(cache=True)
def _step_networks(inputs, values, read, write, eval_count, bias, response, activation,
                   aggregation, link_start, link_source, link_weight, output_slot, scratch,
                   outputs):
    """One step of all B networks, one after the other (the kernel creatures.kernels names)."""
    step_range(0, inputs.shape[0], inputs, values, read, write, eval_count, bias, response, activation,
               aggregation, link_start, link_source, link_weight, output_slot, scratch, outputs)


@njit(cache=True, parallel=True)
def _step_networks_parallel(parts, inputs, values, read, write, eval_count, bias, response, activation,
                            aggregation, link_start, link_source, link_weight, output_slot, scratch,
                            outputs):
    """One step of all B networks in ``parts`` runs of networks (numba's threads: each network
    is independent)."""
    B = inputs.shape[0]
    for k in prange(parts):
        step_range(k * B // parts, (k + 1) * B // parts, inputs, values, read, write, eval_count, bias, response,
                   activation, aggregation, link_start, link_source, link_weight, output_slot, scratch,
                   outputs)


# (one call for all the networks of a step, each one's step written in the loop: called once a
# network, even inlined (numba's inline="always"), numba counted the references of its arrays at
# every network, and views of a network's rows are references counted too, twice each and
# atomically: 85 walker brains 23.9 -> 15.0 us a step. The links' indices unsigned, so that
# numba does not check each for a negative index: 54 -> 27 us a step for 75 walker brains.)
@njit(cache=True)
def step_range(first_b, end_b, inputs, values, read, write, eval_count, bias, response, activation,
               aggregation, link_start, link_source, link_weight, output_slot, scratch, outputs):
    """Networks ``first_b .. end_b - 1`` one step each, as neat's ``activate``: inputs into both
    buffers, then each node in order: weighted inputs from the read buffer, aggregate,
    activate, into the write buffer (the same buffer for feed-forward)."""
    num_inputs = inputs.shape[1]
    for b in range(first_b, end_b):
        # neat writes the inputs into both buffers (only the read one is ever read)
        for i in range(num_inputs):
            values[b, read, i] = inputs[b, i]
            values[b, write, i] = inputs[b, i]
        for n in range(num_inputs, num_inputs + eval_count[b]):
            first = link_start[b, n]
            count = link_start[b, n + 1] - first
            kind = aggregation[b, n]
            if kind == SUM and not COMPENSATED_SUM:
                # the common case, summed as gathered: python_sum without the trip through scratch
                s = 0.0
                for j in range(np.uint64(first), np.uint64(first + count)):
                    s += values[b, read, np.uint64(link_source[b, j])] * link_weight[b, j]
            else:
                for j in range(count):
                    scratch[b, j] = values[b, read, link_source[b, first + j]] * link_weight[b, first + j]
                s = apply_aggregation(kind, scratch[b], count)
            values[b, write, n] = apply_activation(activation[b, n], bias[b, n] + response[b, n] * s)
        for o in range(outputs.shape[1]):
            outputs[b, o] = values[b, write, output_slot[b, o]]


# --- neat's functions, operation for operation -------------------------------------------------

@njit(cache=True)
def _python_min(a, b):
    """Python's ``min(a, b)``: b only if b < a (so ``min(60.0, nan)`` is 60.0)."""
    return b if b < a else a


@njit(cache=True)
def _python_max(a, b):
    """Python's ``max(a, b)``: b only if b > a."""
    return b if b > a else a


@intrinsic
def _c_pow(typingctx, x, y):
    """The C library's ``pow(x, y)``, the function CPython's float ``**`` calls.

    numba's ``**`` becomes LLVM's pow, which LLVM rewrites as ``x * x`` when y is 2.0; glibc's
    pow(x, 2.0) is not always that (it misrounds about 1 in 1200 random doubles), and Python
    uses glibc's. Declaring ``pow`` ourselves as ``nobuiltin`` keeps LLVM's hands off the call."""
    sig = types.float64(types.float64, types.float64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.DoubleType(), [ir.DoubleType(), ir.DoubleType()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "pow")
        fn.attributes.add("nobuiltin")
        return builder.call(fn, args)

    return sig, codegen


@njit(cache=True)
def _python_pow(z, p):
    """CPython's ``z ** p`` for a float z and a positive int p (``float_pow``): special values
    first, then the C library's pow of |z|, negated for an odd power of a negative z. Where
    CPython raises OverflowError this gives inf."""
    odd = p % 2 == 1
    if z != z:
        return z
    if z == 0.0 or math.isinf(z):
        return z if odd else abs(z)
    r = _c_pow(abs(z), float(p))
    return -r if odd and z < 0.0 else r


@njit(cache=True)
def apply_activation(kind, z):
    """neat's activation function ``kind`` (an index into ACTIVATIONS), as neat computes it."""
    if kind == SIGMOID:
        z = _python_max(-60.0, _python_min(60.0, 5.0 * z))
        return 1.0 / (1.0 + math.exp(-z))
    if kind == TANH:
        z = _python_max(-60.0, _python_min(60.0, 2.5 * z))
        return math.tanh(z)
    if kind == SIN:
        z = _python_max(-60.0, _python_min(60.0, 5.0 * z))
        return math.sin(z)
    if kind == GAUSS:
        z = _python_max(-3.4, _python_min(3.4, z))
        return math.exp(-5.0 * _python_pow(z, 2))
    if kind == RELU:
        return z if z > 0.0 else 0.0
    if kind == ELU:
        return z if z > 0.0 else math.exp(z) - 1.0
    if kind == LELU:
        return z if z > 0.0 else 0.005 * z
    if kind == SELU:
        return _SELU_LAMBDA * z if z > 0.0 else _SELU_LAMBDA * _SELU_ALPHA * (math.exp(z) - 1.0)
    if kind == SOFTPLUS:
        z = _python_max(-60.0, _python_min(60.0, 5.0 * z))
        return 0.2 * math.log(1.0 + math.exp(z))
    if kind == IDENTITY:
        return z
    if kind == CLAMPED:
        return _python_max(-1.0, _python_min(1.0, z))
    if kind == INV:
        return 0.0 if z == 0.0 else 1.0 / z   # neat catches the ZeroDivisionError of 1.0 / 0.0
    if kind == LOG:
        return math.log(_python_max(1e-7, z))
    if kind == EXP:
        return math.exp(_python_max(-60.0, _python_min(60.0, z)))
    if kind == ABS:
        return abs(z)
    if kind == HAT:
        return _python_max(0.0, 1.0 - abs(z))
    if kind == SQUARE:
        return _python_pow(z, 2)
    if kind == CUBE:
        return _python_pow(z, 3)
    return math.nan


@njit(cache=True)
def apply_aggregation(kind, x, n):
    """neat's aggregation function ``kind`` (an index into AGGREGATIONS) of ``x[:n]``, as neat
    computes it. May reorder ``x[:n]`` (median sorts it)."""
    if kind == SUM:
        return python_sum(x, n, COMPENSATED_SUM)
    if kind == PRODUCT:  # reduce(mul, x, 1.0)
        total = 1.0
        for j in range(n):
            total = total * x[j]
        return total
    if n == 0:  # neat's max, min, maxabs, median and mean of nothing
        return 0.0
    if kind == MAX or kind == MIN or kind == MAXABS:
        return _python_extreme(kind, x, n)
    if kind == MEDIAN:
        return _python_median2(x, n)
    if kind == MEAN:
        return python_sum(x, n, COMPENSATED_SUM) / n
    return math.nan


@njit(cache=True)
def python_sum(x, n, compensated):
    """Python's ``sum(x[:n])``: from the int 0, left to right; compensated as Python 3.12+
    (``builtin_sum_impl``: ``0 + x[0]``, then Neumaier's algorithm, the compensation added last
    unless it is zero or not finite)."""
    if not compensated:
        total = 0.0
        for j in range(n):
            total += x[j]
        return total
    if n == 0:
        return 0.0
    total = 0.0 + x[0]
    c = 0.0
    for j in range(1, n):
        t = total + x[j]
        if abs(total) >= abs(x[j]):
            c += (total - t) + x[j]
        else:
            c += (x[j] - t) + total
        total = t
    if c != 0.0 and math.isfinite(c):
        total += c
    return total


@njit(cache=True)
def _python_extreme(kind, x, n):
    """Python's ``max(x)``, ``min(x)`` or ``max(x, key=abs)`` of ``x[:n]``, n >= 1: the first
    item, replaced only by a strictly greater (smaller) one, so NaN is kept only if first."""
    best = x[0]
    for j in range(1, n):
        v = x[j]
        if kind == MAX:
            better = v > best
        elif kind == MIN:
            better = v < best
        else:
            better = abs(v) > abs(best)
        if better:
            best = v
    return best


@njit(cache=True)
def _python_median2(x, n):
    """neat's ``median2`` of ``x[:n]``, n >= 1: the mean of up to two, else the middle of the
    sorted list (the mean of the two middle ones for even n)."""
    if n <= 2:
        return python_sum(x, n, COMPENSATED_SUM) / n
    _python_sort(x, n)
    if n % 2 == 1:
        return x[n // 2]
    i = n // 2
    return (x[i - 1] + x[i]) / 2.0


@njit(cache=True)
def _python_sort(x, n):
    """``list.sort()`` of ``x[:n]`` in place, as CPython does it for fewer than 64 items: the
    first run (reversed if strictly descending), then binary insertion of the rest, comparing
    with ``<`` only. The result is stable, so with 64 or more items (which CPython merges) it
    still agrees unless a NaN is present."""
    if n < 2:
        return
    run = 2
    if x[1] < x[0]:
        while run < n and x[run] < x[run - 1]:
            run += 1
        i, j = 0, run - 1
        while i < j:
            x[i], x[j] = x[j], x[i]
            i += 1
            j -= 1
    else:
        while run < n and not x[run] < x[run - 1]:
            run += 1
    for start in range(run, n):
        pivot = x[start]
        lo, hi = 0, start
        while lo < hi:
            mid = lo + ((hi - lo) >> 1)
            if pivot < x[mid]:
                hi = mid
            else:
                lo = mid + 1
        for p in range(start, lo, -1):
            x[p] = x[p - 1]
        x[lo] = pivot


# --- measuring ---------------------------------------------------------------------------------

def benchmark(batch: int = 150, steps: int = 1200, inputs: int = 12, outputs: int = 8,
              kind: str = "feedforward", mutations: int = 30, parallel: bool = False,
              seed: int = 0) -> dict:
    """Network-steps per second of neat-python's ``activate`` loop and of ``NetworkBatch``, for
    ``batch`` genomes of the run's default neat config each mutated ``mutations`` times (so they
    grow hidden nodes), over ``steps`` steps of random inputs. A figure to quote, not a test.

    Returns ``{"neat": rate, "ours": rate, "compile_seconds": s, "hidden": mean hidden nodes,
    "links": mean enabled links}``."""
    import tempfile
    from pathlib import Path

    from .genomes import load_neat_config, neat_config_text

    with tempfile.TemporaryDirectory() as tmp:
        config = load_neat_config(neat_config_text(inputs, outputs, batch, kind),
                                  Path(tmp) / "neat.cfg")
    saved = random.getstate()
    random.seed(seed)
    try:
        config.genome_config.innovation_tracker = neat.innovation.InnovationTracker()
        genomes = []
        for key in range(batch):
            genome = config.genome_type(key)  # evolution.breeding.DefaultGenome
            genome.configure_new(config.genome_config)
            for _ in range(mutations):
                genome.mutate(config.genome_config)
            genomes.append(genome)
    finally:
        random.setstate(saved)
    rows = np.random.default_rng(seed).normal(size=(steps, batch, inputs))

    nets = [_neat_network(genome, config, kind) for genome in genomes]
    t0 = time.perf_counter()
    for t in range(steps):
        for net, x in zip(nets, rows[t].tolist()):
            net.activate(x)
    neat_seconds = time.perf_counter() - t0

    t0 = time.perf_counter()
    ours = NetworkBatch.from_genomes(genomes, config, kind, parallel)
    compile_seconds = time.perf_counter() - t0
    ours.activate(rows[0])  # load or compile the kernel outside the timing
    ours.reset()
    t0 = time.perf_counter()
    for t in range(steps):
        ours.activate(rows[t])
    ours_seconds = time.perf_counter() - t0

    hidden = [len(g.nodes) - outputs for g in genomes]
    links = [sum(c.enabled for c in g.connections.values()) for g in genomes]
    return {"neat": batch * steps / neat_seconds, "ours": batch * steps / ours_seconds,
            "compile_seconds": compile_seconds, "hidden": float(np.mean(hidden)),
            "links": float(np.mean(links))}
