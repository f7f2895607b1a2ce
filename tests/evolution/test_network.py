"""Batched networks against neat-python's own: the same outputs, bit for bit.

Random genomes come from neat itself (hidden nodes and partial connectivity from the start, then
many mutations, every activation and aggregation on offer); inputs include large values, to
reach the clamps, and signed zeros. Bits are compared, not values: ``==`` would let -0.0 pass
for 0.0 and never pass NaN. Any NaN equals any NaN, though: which NaN an operation on two NaNs
returns depends on the operand order the compiler picks for a commutative add or multiply (IEEE
754 leaves it open), and no activation or aggregation turns a NaN's sign into a number.
"""

import math
import random

import neat
import numpy as np
import pytest

from evolution import network
from evolution.network import ACTIVATIONS, AGGREGATIONS, NetworkBatch, compile_networks

NUM_INPUTS = 5
NUM_OUTPUTS = 3
GENOMES = 200
MUTATIONS = 40   # each genome gets between 0 and this many
STEPS = 20

CONFIG_TEXT = """
[NEAT]
fitness_criterion     = max
fitness_threshold     = 1e9
no_fitness_termination = True
pop_size              = 10
reset_on_extinction   = False

[DefaultGenome]
num_inputs            = {num_inputs}
num_outputs           = {num_outputs}
num_hidden            = 3
feed_forward          = {feed_forward}
initial_connection    = partial_direct 0.6
activation_default    = random
activation_mutate_rate = 0.2
activation_options    = {activations}
aggregation_default   = random
aggregation_mutate_rate = 0.2
aggregation_options   = {aggregations}
bias_init_mean        = 0.0
bias_init_stdev       = 1.0
bias_init_type        = gaussian
bias_max_value        = 30.0
bias_min_value        = -30.0
bias_mutate_power     = 0.5
bias_mutate_rate      = 0.5
bias_replace_rate     = 0.1
response_init_mean    = 1.0
response_init_stdev   = 0.5
response_init_type    = gaussian
response_max_value    = 30.0
response_min_value    = -30.0
response_mutate_power = 0.5
response_mutate_rate  = 0.3
response_replace_rate = 0.05
weight_init_mean      = 0.0
weight_init_stdev     = 1.0
weight_init_type      = gaussian
weight_max_value      = 30
weight_min_value      = -30
weight_mutate_power   = 0.5
weight_mutate_rate    = 0.8
weight_replace_rate   = 0.1
enabled_default       = True
enabled_mutate_rate   = 0.05
compatibility_disjoint_coefficient = 1.0
compatibility_weight_coefficient   = 0.5
conn_add_prob         = 0.5
conn_delete_prob      = 0.2
node_add_prob         = 0.3
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

KINDS = ("feedforward", "recurrent")


# --- helpers -------------------------------------------------------------------------------------

def make_config(path, kind):
    """A neat.Config offering every activation and aggregation, with nonzero mutation rates."""
    path.write_text(CONFIG_TEXT.format(num_inputs=NUM_INPUTS, num_outputs=NUM_OUTPUTS,
                                       feed_forward=kind == "feedforward",
                                       activations=" ".join(ACTIVATIONS),
                                       aggregations=" ".join(AGGREGATIONS)))
    config = neat.Config(neat.DefaultGenome, neat.DefaultReproduction, neat.DefaultSpeciesSet,
                         neat.DefaultStagnation, str(path))
    config.genome_config.innovation_tracker = neat.innovation.InnovationTracker()
    return config


def random_genomes(config, count, seed):
    """neat genomes of many shapes: configured new, then mutated 0..MUTATIONS times."""
    saved = random.getstate()
    random.seed(seed)
    try:
        genomes = []
        for key in range(count):
            genome = neat.DefaultGenome(key)
            genome.configure_new(config.genome_config)
            for _ in range(random.randrange(MUTATIONS + 1)):
                genome.mutate(config.genome_config)
            genomes.append(genome)
        return genomes
    finally:
        random.setstate(saved)


def input_rows(batch, seed, steps=STEPS):
    """(T, B, I) inputs: mostly moderate, some large enough for every clamp, one row of signed
    zeros."""
    scales = [1.0, 0.3, 3.0, 100.0, 0.0, 1e4, 10.0, 1.0, 30.0, 0.1]
    rng = np.random.default_rng(seed)
    return np.stack([rng.normal(size=(batch, NUM_INPUTS)) * scales[t % len(scales)]
                     for t in range(steps)])


def neat_network(genome, config, kind):
    if kind == "feedforward":
        return neat.nn.FeedForwardNetwork.create(genome, config)
    return neat.nn.RecurrentNetwork.create(genome, config)


def neat_outputs(genome, config, kind, rows):
    """neat's outputs (T, O) for one genome over ``rows`` (T, I), and how many steps neat got
    through: where Python raises OverflowError (``z ** 2`` or ``z ** 3`` too large), neat's
    activate dies."""
    net = neat_network(genome, config, kind)
    out = np.full((len(rows), NUM_OUTPUTS), np.nan)
    for t, x in enumerate(rows.tolist()):
        try:
            out[t] = net.activate(x)
        except OverflowError:
            return out, t
    return out, len(rows)


def our_outputs(batch, rows):
    """Our outputs (T, B, O) over ``rows`` (T, B, I)."""
    return np.stack([batch.activate(x) for x in rows])


def bits(a):
    return np.asarray(a, dtype=np.float64).view(np.uint64)


def assert_same_bits(ours, theirs, what=""):
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    differ = (bits(ours) != bits(theirs)) & ~(np.isnan(ours) & np.isnan(theirs))
    assert not differ.any(), (f"{what}: {differ.sum()} differ; first at {np.argwhere(differ)[0]}: "
                              f"ours {ours[differ][0]!r}, neat {theirs[differ][0]!r}")


@pytest.fixture(scope="module")
def configs(tmp_path_factory):
    return {kind: make_config(tmp_path_factory.mktemp(kind) / "neat.cfg", kind) for kind in KINDS}


@pytest.fixture(scope="module")
def genomes(configs):
    return {kind: random_genomes(configs[kind], GENOMES, seed=11 + i)
            for i, kind in enumerate(KINDS)}


def one_genome(config, connections, activation="sigmoid", aggregation="sum", hidden=()):
    """A hand-made genome: outputs (and ``hidden`` nodes) with bias 0.5, response 1.5;
    ``connections`` is a list of (in, out, weight, enabled)."""
    genome = neat.DefaultGenome(0)
    for key in [*range(NUM_OUTPUTS), *hidden]:
        node = neat.genome.DefaultNodeGene(key)
        node.bias, node.response = 0.5, 1.5
        node.activation, node.aggregation = activation, aggregation
        genome.nodes[key] = node
    for innovation, (i, o, weight, enabled) in enumerate(connections):
        gene = neat.genome.DefaultConnectionGene((i, o), innovation=innovation)
        gene.weight, gene.enabled = weight, enabled
        genome.connections[(i, o)] = gene
    return genome


# --- the networks equal neat's -------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_outputs_equal_neat_bit_for_bit(kind, configs, genomes):
    config, batch_genomes = configs[kind], genomes[kind]
    rows = input_rows(len(batch_genomes), seed=3)
    ours = our_outputs(NetworkBatch(compile_networks(batch_genomes, config, kind)), rows)
    compared = 0
    for b, genome in enumerate(batch_genomes):
        theirs, steps = neat_outputs(genome, config, kind, rows[:, b])
        assert_same_bits(ours[:steps, b], theirs[:steps], f"{kind} genome {b}")
        compared += steps
    # neat's own OverflowErrors must not leave the comparison toothless
    assert compared >= 0.8 * GENOMES * STEPS


@pytest.mark.parametrize("kind", KINDS)
def test_random_genomes_reach_every_function_and_shape(kind, configs, genomes):
    """The genomes of the test above are diverse enough to mean something."""
    nets = compile_networks(genomes[kind], configs[kind], kind)
    evaluated = np.arange(nets.slots) < (NUM_INPUTS + nets.eval_count)[:, None]
    evaluated[:, :NUM_INPUTS] = False
    assert set(nets.activation[evaluated].tolist()) == set(range(len(ACTIVATIONS)))
    assert set(nets.aggregation[evaluated].tolist()) == set(range(len(AGGREGATIONS)))
    assert nets.eval_count.min() < 4 and nets.eval_count.max() > 10
    assert any(not c.enabled for g in genomes[kind] for c in g.connections.values())
    assert (nets.response[evaluated] != 1.0).any()
    links = np.diff(nets.link_start, axis=1)[evaluated]
    if kind == "feedforward":
        assert (links == 0).any()  # required nodes without enabled inputs are evaluated
    else:
        assert (links > 0).all()   # recurrent networks evaluate only nodes with enabled inputs


@pytest.mark.parametrize("kind", KINDS)
def test_parallel_kernel_gives_the_serial_bits(kind, configs, genomes):
    rows = input_rows(GENOMES, seed=5)
    nets = compile_networks(genomes[kind], configs[kind], kind)
    serial = our_outputs(NetworkBatch(nets), rows)
    parallel = our_outputs(NetworkBatch(nets, parallel=True), rows)
    assert_same_bits(parallel, serial, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_padding_causes_no_cross_talk(kind, configs, genomes):
    """A network gives the same bits alone as in a batch of networks of other sizes."""
    config, some = configs[kind], genomes[kind][:40]
    rows = input_rows(len(some), seed=8)
    together = our_outputs(NetworkBatch(compile_networks(some, config, kind)), rows)
    for b, genome in enumerate(some):
        alone = our_outputs(NetworkBatch(compile_networks([genome], config, kind)),
                            rows[:, b:b + 1])
        assert_same_bits(together[:, b], alone[:, 0], f"{kind} genome {b}")


def test_reset_starts_recurrent_networks_over(configs, genomes):
    config, some = configs["recurrent"], genomes["recurrent"][:50]
    rows = input_rows(len(some), seed=9, steps=7)  # odd: the second run starts on the other buffer
    batch = NetworkBatch(compile_networks(some, config, "recurrent"))
    first = our_outputs(batch, rows)
    unreset = our_outputs(batch, rows)
    batch.reset()
    second = our_outputs(batch, rows)
    assert_same_bits(second, first, "after reset")
    assert (bits(unreset) != bits(first)).any()  # the state did matter


@pytest.mark.parametrize("kind", KINDS)
def test_disabled_connections_are_ignored(kind, configs):
    config = configs[kind]
    links = [(-1, 0, 0.7, True), (-2, 0, -1.3, True), (-3, 1, 0.4, True), (-1, 2, 2.0, True)]
    disabled = [(-4, 0, 25.0, False), (-5, 1, -25.0, False), (-2, 2, 25.0, False)]
    rows = input_rows(1, seed=10)
    with_disabled = one_genome(config, links + disabled)
    without = one_genome(config, links)
    ours = our_outputs(NetworkBatch(compile_networks([with_disabled], config, kind)), rows)
    plain = our_outputs(NetworkBatch(compile_networks([without], config, kind)), rows)
    theirs, _ = neat_outputs(with_disabled, config, kind, rows[:, 0])
    assert_same_bits(ours[:, 0], theirs, kind)
    assert_same_bits(ours, plain, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_disconnected_output_gives_what_neat_gives(kind, configs):
    """Output 1 has no enabled input. neat evaluates it in a feed-forward network (to
    sigmoid(bias + response * sum([])) = sigmoid(0.5)), never in a recurrent one (0.0)."""
    config = configs[kind]
    genome = one_genome(config, [(-1, 0, 0.7, True), (-2, 2, -1.1, True), (-3, 1, 3.0, False)])
    rows = input_rows(1, seed=12)
    ours = our_outputs(NetworkBatch(compile_networks([genome], config, kind)), rows)[:, 0]
    theirs, _ = neat_outputs(genome, config, kind, rows[:, 0])
    assert_same_bits(ours, theirs, kind)
    expected = neat.activations.sigmoid_activation(0.5) if kind == "feedforward" else 0.0
    assert_same_bits(ours[:, 1], np.full(STEPS, expected), kind)


def test_feedforward_hidden_chain_is_evaluated_in_order(configs):
    """A chain input -> 5 -> 6 -> output 0 with 6 listed first: one step carries the input
    through the whole chain, as neat's layers do."""
    config = configs["feedforward"]
    genome = one_genome(config, [(6, 0, 1.0, True), (5, 6, 1.0, True), (-1, 5, 1.0, True)],
                        activation="identity", hidden=(6, 5))
    rows = input_rows(1, seed=13)
    ours = our_outputs(NetworkBatch(compile_networks([genome], config, "feedforward")), rows)
    theirs, _ = neat_outputs(genome, config, "feedforward", rows[:, 0])
    assert_same_bits(ours[:, 0], theirs)
    assert ours[1, 0, 0] == 0.5 + 1.5 * (0.5 + 1.5 * (0.5 + 1.5 * rows[1, 0, 0]))


def hand_made(config):
    """The hand-made genomes of the tests above: disabled links, a disconnected output, a chain
    listed backwards."""
    links = [(-1, 0, 0.7, True), (-2, 0, -1.3, True), (-3, 1, 0.4, True), (-1, 2, 2.0, True)]
    return [one_genome(config, links + [(-4, 0, 25.0, False), (-2, 2, 25.0, False)]),
            one_genome(config, [(-1, 0, 0.7, True), (-2, 2, -1.1, True), (-3, 1, 3.0, False)]),
            one_genome(config, [(6, 0, 1.0, True), (5, 6, 1.0, True), (-1, 5, 1.0, True)],
                       activation="identity", hidden=(6, 5))]


def test_packed_genomes_compile_to_networks_that_give_the_genomes_outputs(configs, genomes):
    """What workers receive (pack_genome's tuples) compiles, without making the genome's objects
    and in one kernel for the batch, to networks whose outputs are neat's to the bit: the same
    nodes evaluated, the same links; a layer's nodes by key (neat's order within a layer is a
    set's, and changes no value), so slots may differ. A recurrent one only from its genome."""
    from evolution import packed_networks
    from evolution.chunks import pack_genome
    kind = "feedforward"
    with pytest.raises(ValueError, match="recurrent"):
        compile_networks([pack_genome(genomes["recurrent"][0])], configs["recurrent"], "recurrent")
    config = configs[kind]
    batch = list(genomes[kind]) + hand_made(config)
    packed = [pack_genome(g) for g in batch]
    assert packed_networks.compile_packed(packed, config.genome_config, network._ACTIVATION_IDS,
                                          network._AGGREGATION_IDS) is not None   # (the kernel's, not neat's path)
    ours = compile_networks(packed, config, kind)
    theirs = compile_networks(batch, config, kind)
    for name in ("eval_count", "max_links", "num_inputs", "num_outputs", "kind"):
        assert np.array_equal(getattr(ours, name), getattr(theirs, name)), name
    assert ours.slots == theirs.slots and ours.link_source.shape == theirs.link_source.shape
    # each slot's links and node, up to the order of a layer's nodes: the same multiset per network
    for b in range(len(batch)):
        def nodes(net):
            return sorted((net.bias[b, s], net.response[b, s], net.activation[b, s], net.aggregation[b, s],
                           net.link_start[b, s + 1] - net.link_start[b, s])
                          for s in range(net.num_inputs, net.num_inputs + net.eval_count[b]))
        assert nodes(ours) == nodes(theirs), b
        assert sorted(ours.link_weight[b].tolist()) == sorted(theirs.link_weight[b].tolist()), b
    rows = input_rows(len(batch), seed=5, steps=40)
    assert_same_bits(our_outputs(NetworkBatch(ours), rows), our_outputs(NetworkBatch(theirs), rows), "packed")
    reordered = sum(not np.array_equal(ours.link_source[b], theirs.link_source[b]) for b in range(len(batch)))
    assert reordered > 0   # (layers of several nodes in another order than neat's: the test has teeth)


def test_packed_genomes_out_of_the_ordinary_are_compiled_as_neat_does(tmp_path):
    """A genome the kernel leaves alone (a function it does not know on a node it evaluates, a
    connection from a node the genome has not) is compiled by neat's path: the same networks or
    the same refusal."""
    from evolution.chunks import pack_genome
    config = make_config(tmp_path / "neat.cfg", "feedforward")
    config.genome_config.add_activation("twice", lambda z: 2.0 * z)
    odd = one_genome(config, [(-1, 0, 1.0, True)], activation="twice")
    with pytest.raises(ValueError, match="activation 'twice'"):
        compile_networks([pack_genome(odd)], config, "feedforward")
    unused = one_genome(config, [(-1, 0, 1.0, True), (-2, 1, 1.0, True), (-3, 2, 1.0, True)], hidden=(7,))
    unused.nodes[7].activation = "twice"     # never evaluated (nothing needs it): compiled by the kernel
    ghost = one_genome(config, [(-1, 0, 1.0, True), (9, 1, 2.0, True)])   # node 9 is not the genome's
    for genome in (unused, ghost):
        try:
            theirs = compile_networks([genome], config, "feedforward")
        except Exception as exc:   # noqa: BLE001 (whatever neat's path says, the packed one says too)
            with pytest.raises(type(exc)):
                compile_networks([pack_genome(genome)], config, "feedforward")
            continue
        ours = compile_networks([pack_genome(genome)], config, "feedforward")
        rows = input_rows(1, seed=2)
        assert_same_bits(our_outputs(NetworkBatch(ours), rows), our_outputs(NetworkBatch(theirs), rows))


def test_feed_forward_layers_are_neats_in_neats_order(configs, genomes):
    """The layers the packed genomes are compiled by are neat-python's, each layer's nodes in the
    order neat iterates them (the order a layer's nodes are evaluated)."""
    from neat.graphs import feed_forward_layers
    config = configs["feedforward"]
    keys = config.genome_config.input_keys, config.genome_config.output_keys
    layered = 0
    for genome in list(genomes["feedforward"]) + hand_made(config):
        connections = [cg.key for cg in genome.connections.values() if cg.enabled]
        theirs, their_required = feed_forward_layers(*keys, connections)
        ours, our_required = network._feed_forward_layers(*keys, connections)
        assert [list(layer) for layer in ours] == [list(layer) for layer in theirs]
        assert our_required == their_required
        layered += len(theirs) > 1
    assert layered >= 10   # hidden nodes in many genomes, not one layer of outputs each time


# --- neat's functions, one by one ----------------------------------------------------------------

EDGE_VALUES = [0.0, -0.0, 1.0, -1.0, 1e-7, -1e-7, 5e-324, -5e-324, 1e-300, 0.2, -0.2, 3.4, -3.4,
               3.41, 12.0, -12.0, 12.000001, 24.0, -24.0, 60.0, -60.0, 61.0, 700.0, -700.0, 1e100,
               -1e100, 1e154, 1e200, -1e200, 1.7e308, math.inf, -math.inf, math.nan, -math.nan]


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_equals_neat_bit_for_bit(name):
    rng = np.random.default_rng(ACTIVATIONS.index(name))
    values = EDGE_VALUES + (rng.normal(size=3000) * 10.0 ** rng.integers(-3, 4, 3000)).tolist()
    theirs_fn = getattr(neat.activations, f"{name}_activation")
    kind = ACTIVATIONS.index(name)
    for z in values:
        try:
            theirs = theirs_fn(z)
        except OverflowError:  # neat's activate would die; we give inf
            assert math.isinf(network.apply_activation(kind, z))
            continue
        assert_same_bits(network.apply_activation(kind, z), theirs, f"{name}({z!r})")


def random_lists(seed, count=3000):
    """Lists of 0..9 floats (and a few of 70), with ties, signed zeros, infinities and NaN."""
    rng = np.random.default_rng(seed)
    pool = [0.0, -0.0, 1.0, -1.0, 2.5, math.inf, -math.inf, math.nan, -math.nan, 1e308]
    lists = []
    for k in range(count):
        n = 70 if k % 100 == 0 else int(rng.integers(0, 10))
        x = (rng.normal(size=n) * 10.0 ** rng.integers(-2, 3, n)).tolist()
        for j in range(n):
            if rng.random() < 0.15:
                x[j] = pool[rng.integers(len(pool))]
        if n >= 2 and rng.random() < 0.3:
            x[-1] = x[0]
        lists.append(x)
    return lists


@pytest.mark.parametrize("name", AGGREGATIONS)
def test_aggregation_equals_neat_bit_for_bit(name):
    theirs_fn = getattr(neat.aggregations, f"{name}_aggregation")
    kind = AGGREGATIONS.index(name)
    for x in random_lists(AGGREGATIONS.index(name)):
        if name == "median" and len(x) >= 64 and any(v != v for v in x):
            continue  # the one documented difference: CPython merges runs there
        theirs = theirs_fn(list(x))
        ours = network.apply_aggregation(kind, np.array(x + [7.0]), len(x))  # a spare slot beyond n
        assert_same_bits(ours, theirs, f"{name}({x!r})")


def test_compensated_sum_follows_cpython_3_12():
    """Python 3.12's sum() of floats (Neumaier), written out from builtin_sum_impl, against the
    kernel's version for 3.12 (the one 3.11 does not run)."""
    def cpython_312_sum(x):
        if not x:
            return 0
        total, c = 0 + x[0], 0.0
        for v in x[1:]:
            t = total + v
            c += (total - t) + v if abs(total) >= abs(v) else (v - t) + total
            total = t
        return total + c if c and math.isfinite(c) else total

    for x in random_lists(99):
        ours = network.python_sum(np.array(x + [7.0]), len(x), True)
        assert_same_bits(ours, cpython_312_sum(x), repr(x))


def test_python_sum_of_this_interpreter_is_the_kernels():
    """Whichever Python runs the tests, the kernel sums as its sum() does."""
    for x in random_lists(98):
        ours = network.python_sum(np.array(x + [7.0]), len(x), network.COMPENSATED_SUM)
        assert_same_bits(ours, sum(x), repr(x))


def test_glibc_square_is_not_a_product_and_we_follow_python():
    """Why ``_c_pow`` exists: some z have z ** 2 != z * z in Python, and ours equal Python's."""
    zs = np.random.default_rng(1).normal(size=20000).tolist()
    odd = [z for z in zs if z ** 2 != z * z]
    assert odd, "this C library's pow(z, 2.0) is exact: the test proves nothing here"
    for z in odd:
        assert_same_bits(network.apply_activation(network.SQUARE, z), z ** 2, repr(z))


# --- refusals ------------------------------------------------------------------------------------

def test_custom_activation_is_refused(tmp_path):
    config = make_config(tmp_path / "neat.cfg", "feedforward")
    config.genome_config.add_activation("twice", lambda z: 2.0 * z)
    genome = one_genome(config, [(-1, 0, 1.0, True)], activation="twice")
    with pytest.raises(ValueError, match="activation 'twice'"):
        compile_networks([genome], config, "feedforward")


def test_custom_aggregation_is_refused(tmp_path):
    config = make_config(tmp_path / "neat.cfg", "recurrent")
    config.genome_config.add_aggregation("first", lambda x: x[0] if x else 0.0)
    genome = one_genome(config, [(-1, 0, 1.0, True)], aggregation="first")
    with pytest.raises(ValueError, match="aggregation 'first'"):
        compile_networks([genome], config, "recurrent")


def test_unknown_kind_is_refused(configs, genomes):
    with pytest.raises(ValueError, match="network kind"):
        compile_networks(genomes["feedforward"][:1], configs["feedforward"], "spiking")


def test_no_genomes_is_refused(configs):
    with pytest.raises(ValueError, match="at least one genome"):
        compile_networks([], configs["feedforward"], "feedforward")


def test_inputs_of_the_wrong_shape_are_refused(configs, genomes):
    batch = NetworkBatch(compile_networks(genomes["feedforward"][:3], configs["feedforward"],
                                          "feedforward"))
    with pytest.raises(ValueError, match=r"inputs must have shape \(B, I\) = \(3, 5\)"):
        batch.activate(np.zeros((3, 4)))
