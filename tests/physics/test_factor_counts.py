"""docs/performance.md's count of the skeleton's factor against Baraff's augmented system stays
what the current plans give: the multiply-adds of eliminating ``J M^-1 J^T`` (its assembly
included, the rows in :func:`physics.skeleton.plan_skeleton`'s order) against those of
``[[M, J^T], [J, 0]]`` (each sphere a 2 x 2 block, each row 1 x 1) in a greedy minimum-fill
order. A symbolic count: nothing is factored."""

import itertools
import re
from pathlib import Path

import physics
from creatures.design.bestiary import resolve_design
from creatures.design.random_design import random_design
from physics.hot import hot_of

PERFORMANCE = Path(__file__).parents[2] / "docs" / "performance.md"


def _eliminate(adj, size, order):
    """Multiply-adds of eliminating the graph ``adj`` (node -> neighbours; ``size``: each node's
    block size) in ``order``: a pivot block costs its size cubed, and each pair of its neighbours
    the product of the three sizes."""
    adj = {v: set(n) for v, n in adj.items()}
    total = 0
    for v in order:
        nb = adj.pop(v)
        total += size[v] ** 3 + sum(size[a] * size[b] * size[v]
                                    for a, b in itertools.combinations_with_replacement(sorted(nb), 2))
        for a in nb:
            adj[a].discard(v)
            adj[a].update(nb - {a})
    return total


def _min_fill(adj, size):
    """A greedy order: each time the node whose elimination costs least (ties: the smallest)."""
    adj = {v: set(n) for v, n in adj.items()}
    order = []
    while adj:
        v = min(adj, key=lambda v: (size[v] * sum(size[a] * size[b] for a, b in
                                                   itertools.combinations_with_replacement(sorted(adj[v]), 2)), v))
        nb = adj.pop(v)
        for a in nb:
            adj[a].discard(v)
            adj[a].update(nb - {a})
        order.append(v)
    return order


def counts(body) -> tuple:
    """(rows, spheres, our elimination, our assembly, our elimination with every row free to go
    anywhere, the augmented system's elimination) for ``body``."""
    model = physics.build_model(body, 1)
    plan = hot_of(model)
    rows: dict = {}
    for leg, sphere in zip(plan.leg_row, plan.leg_sphere):
        rows.setdefault(int(leg), set()).add(int(sphere))
    shared = {k: {j for j in rows if j != k and rows[j] & rows[k]} for k in rows}
    ones = dict.fromkeys(rows, 1)
    spheres = set().union(*rows.values())
    assembly = sum(2 * n * (n + 1) // 2 for n in (sum(s in r for r in rows.values()) for s in spheres))
    ours = _eliminate(shared, ones, sorted(rows))
    free = _eliminate(shared, ones, _min_fill(shared, ones))
    augmented, size = {}, {}
    for k, ends in rows.items():
        augmented.setdefault(("row", k), set())
        size[("row", k)] = 1
        for s in ends:
            augmented.setdefault(("sphere", s), set()).add(("row", k))
            augmented[("row", k)].add(("sphere", s))
            size[("sphere", s)] = 2
    return len(rows), model.n_spheres, ours, assembly, free, _eliminate(augmented, size, _min_fill(augmented, size))


def _shown() -> dict:
    rows = re.findall(r"^\| (\w[\w ,()-]*?) \| (\d+) \| (\d+) \| ([\d,]+) \| ([\d,]+) \|$",
                      PERFORMANCE.read_text(encoding="utf-8"), flags=re.M)
    return {name: tuple(int(x.replace(",", "")) for x in numbers) for name, *numbers in rows}


def test_the_docs_count_of_the_factor_against_the_augmented_system_is_the_plans():
    shown = _shown()
    bodies = {name: resolve_design(name).body for name in ("walker", "quadruped", "hopper", "eel", "fish", "bird")}
    bodies["random shape (6 spheres, 9 rows)"] = random_design(11, 4)[0].body
    assert set(bodies) <= set(shown)
    for name, body in bodies.items():
        rows, spheres, ours, assembly, _, augmented = counts(body)
        assert shown[name] == (rows, spheres, ours + assembly, augmented), name
    # and the sentence on the muscles last: the walker's elimination, in a free order and in ours
    _, _, ours, _, free, _ = counts(bodies["walker"])
    text = " ".join(PERFORMANCE.read_text(encoding="utf-8").split())
    assert f"eliminates the walker's in {free} against our {ours}" in text
