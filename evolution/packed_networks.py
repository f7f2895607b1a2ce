"""Feed-forward networks compiled straight from :func:`evolution.chunks.pack_genome`'s tuples
(what the workers of a run receive), a batch in one numba call.

:func:`evolution.network.compile_networks` compiles a genome as neat-python builds its network:
its ``FeedForwardNetwork.create``'s ``node_evals``, in Python, about 0.3 ms a genome (several
passes over a genome's hundred-odd connections, each a few Python operations a connection): 5 % of a
worker's generation. Here the same networks, node for node and link for link, are made in one
kernel for the whole batch, from flat arrays of the genomes' nodes and connections:

- the nodes neat evaluates: those an output needs (``neat.graphs.required_for_output``: the
  outputs and every non-input node with a path of enabled connections to one), in neat's layers
  (``feed_forward_layers``: first the needed nodes no enabled connection enters, then, layer by
  layer, each needed node fed by the layers before whose needed inputs are all there);
- each node's links: the enabled connections into it from an input or a needed node, in the
  genome's order (the order neat sums them);
- its bias, response, activation and aggregation.

One thing differs: neat evaluates the nodes of a layer in the order Python iterates a set of
their keys; here a layer's nodes go in the order of their keys. A node reads only nodes of the
layers before it, so the order within a layer changes no value: the networks give the same
outputs to the bit, and a slot holds the same node's value, wherever it is (slots are numbered in
evaluation order, so a node's slot may differ from the one its genome's own network gives it:
:func:`evolution.network.node_slots` says those, for the genome's network).

Anything out of the ordinary (input or output keys other than neat's ``-1 .. -I`` and ``0 ..
O - 1``, a connection into an input or from or to a node the genome has not, an activation or
aggregation the kernels do not know on a node that is evaluated) is left to the genome's own
path (:func:`compile_packed` returns None), which compiles it as neat does or says why not. (A
needed node that never gets into a layer, on a cycle, is read as 0.0 by both, as that path's
docstring says.)
"""

from __future__ import annotations

from itertools import chain

import numpy as np
from numba import njit

__all__ = ["compile_packed"]


def compile_packed(genomes: list, genome_config, activation_ids: dict, aggregation_ids: dict):
    """``(eval_count, bias, response, activation, aggregation, link_start, link_source,
    link_weight, output_slot, max_links)`` of :class:`evolution.network.CompiledNetworks` for
    feed-forward genomes given as :func:`evolution.chunks.pack_genome`'s tuples, or None where
    the module docstring says (the caller compiles them as neat does). ``activation_ids`` and
    ``aggregation_ids``: neat's function objects -> the kernels' ids."""
    inputs, outputs = list(genome_config.input_keys), list(genome_config.output_keys)
    I, O = len(inputs), len(outputs)
    if inputs != list(range(-1, -I - 1, -1)) or outputs != list(range(O)):
        return None
    nodes = list(chain.from_iterable(g[1] for g in genomes))
    connections = list(chain.from_iterable(g[2] for g in genomes))
    node_start = np.zeros(len(genomes) + 1, np.int64)
    node_start[1:] = np.cumsum([len(g[1]) for g in genomes])
    conn_start = np.zeros(len(genomes) + 1, np.int64)
    conn_start[1:] = np.cumsum([len(g[2]) for g in genomes])
    if nodes:
        key, bias, response, act, agg = list(zip(*nodes))[:5]
    else:
        key = bias = response = act = agg = ()
    ids = {}
    for name in set(act):
        ids["a", name] = activation_ids.get(genome_config.activation_defs.get(name), -1)
    for name in set(agg):
        ids["g", name] = aggregation_ids.get(genome_config.aggregation_function_defs.get(name), -1)
    if connections:
        c_in, c_out, c_weight, c_on = list(zip(*connections))[:4]
    else:
        c_in = c_out = c_weight = c_on = ()
    out = _compile(I, O, node_start, np.array(key, np.int64), np.array(bias, np.float64),
                   np.array(response, np.float64), np.array([ids["a", a] for a in act], np.int64),
                   np.array([ids["g", g] for g in agg], np.int64), conn_start, np.array(c_in, np.int64),
                   np.array(c_out, np.int64), np.array(c_weight, np.float64), np.array(c_on, np.bool_))
    return None if out[0][0] < 0 else out[1:]


@njit(cache=True)
def _local(k, I, keys):
    """A key's number in its genome: an input's ``-k - 1``, a node's ``I +`` its place in the
    genome's nodes; -1 if the genome has no such input or node."""
    if k < 0:
        return -k - 1 if -k <= I else -1
    for n in range(keys.shape[0]):
        if keys[n] == k:
            return I + n
    return -1


@njit(cache=True)
def _by_key(order, start, stop, keys, I):
    """Sort ``order[start:stop]`` (nodes by their numbers in the genome) by the nodes' keys."""
    for j in range(start + 1, stop):
        v = order[j]
        i = j - 1
        while i >= start and keys[order[i] - I] > keys[v - I]:
            order[i + 1] = order[i]
            i -= 1
        order[i + 1] = v


@njit(cache=True)
def _plan(I, O, keys, node_act, node_agg, c_in, c_out, c_on, src, dst, order, readable, slot):
    """One genome's network: ``src``/``dst`` each connection's source and target numbers,
    ``order`` the nodes evaluated (by number) in order, ``readable`` whether a node's value may be
    read (an input or a needed node), ``slot`` each node's slot. Returns ``(evaluated, slots,
    links, most links into one node)``, or ``evaluated = -1`` for a genome left to neat's path."""
    V = I + keys.shape[0]
    for k in range(c_in.shape[0]):
        src[k] = _local(c_in[k], I, keys)
        dst[k] = _local(c_out[k], I, keys)
        if src[k] < 0 or dst[k] < I:     # from a node it has not, into an input or a node it has not
            return -1, 0, 0, 0
    required = readable                  # the needed nodes (neat's required_for_output)
    required[:] = False
    for o in range(O):
        v = _local(o, I, keys)
        if v < 0:
            return -1, 0, 0, 0
        required[v] = True
    changed = True
    while changed:
        changed = False
        for k in range(c_in.shape[0]):
            if c_on[k] and required[dst[k]] and src[k] >= I and not required[src[k]]:
                required[src[k]] = True
                changed = True
    ready = np.zeros(V, np.bool_)        # neat's potential_input: the inputs, then each layer
    ready[:I] = True
    entered = np.zeros(V, np.bool_)
    for k in range(c_in.shape[0]):
        if c_on[k]:
            entered[dst[k]] = True
    count = 0
    for v in range(I, V):                # first the needed nodes nothing enters (neat's bias neurons)
        if required[v] and not entered[v]:
            order[count] = v
            count += 1
    _by_key(order, 0, count, keys, I)
    for j in range(count):
        ready[order[j]] = True
    fed = np.zeros(V, np.bool_)
    held = np.zeros(V, np.bool_)
    while True:                          # then layer by layer, each layer's nodes by key
        fed[:] = False
        held[:] = False
        for k in range(c_in.shape[0]):
            if c_on[k]:
                if ready[src[k]]:
                    fed[dst[k]] = True
                elif required[src[k]]:
                    held[dst[k]] = True
        start = count
        for v in range(I, V):
            if required[v] and not ready[v] and fed[v] and not held[v]:
                order[count] = v
                count += 1
        if count == start:
            break
        _by_key(order, start, count, keys, I)
        for j in range(start, count):
            ready[order[j]] = True
    for j in range(count):
        if node_act[order[j] - I] < 0 or node_agg[order[j] - I] < 0:
            return -1, 0, 0, 0           # a function the kernels do not know, on a node evaluated
    readable[:I] = True                  # (an input, or a needed node)
    slot[:] = -1
    for v in range(I):
        slot[v] = v
    for j in range(count):
        slot[order[j]] = I + j
    used = I + count
    links = 0
    most = 0
    for j in range(count):   # nodes read but never evaluated get slots next, then outputs never evaluated
        into = 0
        for k in range(c_in.shape[0]):
            if c_on[k] and dst[k] == order[j] and readable[src[k]]:
                into += 1
                if slot[src[k]] < 0:
                    slot[src[k]] = used
                    used += 1
        links += into
        most = max(most, into)
    for o in range(O):
        v = _local(o, I, keys)
        if slot[v] < 0:
            slot[v] = used
            used += 1
    return count, used, links, most


@njit(cache=True)
def _compile(I, O, node_start, node_key, node_bias, node_response, node_act, node_agg, conn_start, c_in, c_out,
             c_weight, c_on):
    """:func:`compile_packed`'s kernel: ``(ok, eval_count, bias, response, activation,
    aggregation, link_start, link_source, link_weight, output_slot, max_links)`` (``ok[0]`` -1:
    a genome left to neat's path, the rest empty)."""
    B = node_start.shape[0] - 1
    ok = np.zeros(1, np.int64)
    src = np.empty(c_in.shape[0], np.int64)
    dst = np.empty(c_in.shape[0], np.int64)
    order = np.empty(node_key.shape[0], np.int64)
    number = np.zeros(B + 1, np.int64)      # where each genome's inputs and nodes start in the flat arrays
    for b in range(B):
        number[b + 1] = number[b] + I + node_start[b + 1] - node_start[b]
    readable = np.zeros(number[B], np.bool_)
    slot = np.zeros(number[B], np.int64)
    eval_count = np.zeros(B, np.int64)
    slots = 0
    most_links = 1
    width = 1
    for b in range(B):
        n0, n1, k0, k1, v0, v1 = node_start[b], node_start[b + 1], conn_start[b], conn_start[b + 1], number[b], \
            number[b + 1]
        count, used, links, most = _plan(I, O, node_key[n0:n1], node_act[n0:n1], node_agg[n0:n1], c_in[k0:k1],
                                         c_out[k0:k1], c_on[k0:k1], src[k0:k1], dst[k0:k1], order[n0:n1],
                                         readable[v0:v1], slot[v0:v1])
        if count < 0:
            ok[0] = -1
            empty_i, empty_f = np.zeros((0, 0), np.int64), np.zeros((0, 0))
            return ok, eval_count, empty_f, empty_f, empty_i, empty_i, empty_i, empty_i, empty_f, empty_i, 0
        eval_count[b] = count
        slots = max(slots, used)
        width = max(width, links)
        most_links = max(most_links, most)
    bias = np.zeros((B, slots))
    response = np.zeros((B, slots))
    activation = np.zeros((B, slots), np.int64)
    aggregation = np.zeros((B, slots), np.int64)
    link_start = np.zeros((B, slots + 1), np.int64)
    link_source = np.zeros((B, width), np.int64)
    link_weight = np.zeros((B, width))
    output_slot = np.zeros((B, O), np.int64)
    for b in range(B):
        n0, k0, k1, v0 = node_start[b], conn_start[b], conn_start[b + 1], number[b]
        at = 0
        for j in range(eval_count[b]):
            v = order[n0 + j]
            n = n0 + v - I
            s = I + j
            bias[b, s] = node_bias[n]
            response[b, s] = node_response[n]
            activation[b, s] = node_act[n]
            aggregation[b, s] = node_agg[n]
            for k in range(k0, k1):
                if c_on[k] and dst[k] == v and readable[v0 + src[k]]:
                    link_source[b, at] = slot[v0 + src[k]]
                    link_weight[b, at] = c_weight[k]
                    at += 1
            link_start[b, s + 1] = at
        for s in range(I + eval_count[b] + 1, slots + 1):
            link_start[b, s] = at
        for o in range(O):
            output_slot[b, o] = slot[v0 + _local(o, I, node_key[n0:node_start[b + 1]])]
    return ok, eval_count, bias, response, activation, aggregation, link_start, link_source, link_weight, \
        output_slot, most_links
