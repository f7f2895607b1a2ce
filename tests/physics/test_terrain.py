"""Terrain: heights of the stock terrains, the engine's closest-point query against a numpy
reference, and the errors for bad vertices."""

import numpy as np
import pytest

from physics import Terrain, make_terrain
from physics.terrain import closest_on_terrain
from physics_helpers import polyline_distance

REACH = 0.5

TERRAINS = {
    "slope": (Terrain.slope(degrees=25.0), -2.0),
    "downhill": (Terrain.slope(degrees=-15.0, start=1.0), -1.0),
    "steps": (Terrain.steps(), 1.0),
    "hills": (Terrain.hills(seed=4, amplitude=0.5, wavelength=2.0), 2.0),
}


def test_slope_rises_by_the_tangent_of_its_angle_after_its_start():
    terrain = Terrain.slope(degrees=10.0, start=1.0)
    x = np.linspace(-5.0, 10.0, 151)
    expected = np.where(x > 1.0, (x - 1.0) * np.tan(np.radians(10.0)), 0.0)
    np.testing.assert_allclose(terrain.height(x), expected, atol=1e-12)


def test_steps_rise_by_one_step_height_per_step():
    """On the tread of step k (between its riser and the next) the height is (k + 1) * height."""
    terrain = Terrain.steps(height=0.15, depth=1.0, count=5, start=2.0, riser=0.01)
    k = np.arange(5)
    treads = 2.0 + k + 0.5
    np.testing.assert_allclose(terrain.height(treads), (k + 1) * 0.15, atol=1e-12)
    assert terrain.height(1.9) == 0.0 and terrain.height(50.0) == pytest.approx(0.75)


def test_hills_are_flat_before_their_start_and_reproducible_from_their_seed():
    a, b, c = Terrain.hills(seed=1), Terrain.hills(seed=1), Terrain.hills(seed=2)
    assert np.array_equal(a.ys, b.ys) and not np.array_equal(a.ys, c.ys)
    assert np.all(a.height(np.linspace(-10.0, 2.0, 50)) == 0.0)


@pytest.mark.parametrize("kind", list(TERRAINS))
def test_closest_distance_matches_the_exact_polyline_distance(kind):
    """For 2000 points near the terrain, the engine's signed distance (positive above) equals the
    brute-force distance to the polyline computed in numpy, wherever that is within reach."""
    terrain, x0 = TERRAINS[kind]
    rng = np.random.default_rng(3)
    px = rng.uniform(x0 - 1.0, x0 + 5.0, 2000)
    py = terrain.height(px) + rng.uniform(-0.4, 0.4, px.size)
    ref = polyline_distance(terrain.xs, terrain.ys, px, py)
    got = np.array([closest_on_terrain(terrain.table, x, y, REACH)[0] for x, y in zip(px, py)])
    near = np.abs(ref) <= REACH
    assert near.sum() > 1500
    worst = np.abs(got - ref)[near].max()
    assert worst < 1e-12, f"off by {worst:.3e} m at {px[near][np.argmax(np.abs(got - ref)[near])]:.3f}"


@pytest.mark.parametrize("kind", list(TERRAINS))
def test_closest_point_lies_on_the_terrain_along_the_normal(kind):
    """The engine's normal is a unit vector, and stepping back the signed distance along it from
    the point lands on the polyline."""
    terrain, x0 = TERRAINS[kind]
    rng = np.random.default_rng(5)
    px = rng.uniform(x0 - 1.0, x0 + 5.0, 500)
    py = terrain.height(px) + rng.uniform(-0.3, 0.3, px.size)
    d, nx, ny = np.array([closest_on_terrain(terrain.table, x, y, REACH) for x, y in zip(px, py)]).T
    np.testing.assert_allclose(np.hypot(nx, ny), 1.0, atol=1e-12)
    on = polyline_distance(terrain.xs, terrain.ys, px - d * nx, py - d * ny)
    assert np.abs(on).max() < 1e-9


BAD_VERTICES = {
    "x going back": ([0.0, 1.0, 0.5], [0.0, 0.0, 0.0], "strictly increasing"),
    "x repeated": ([0.0, 1.0, 1.0], [0.0, 0.0, 0.0], "strictly increasing"),
    "more ys than xs": ([0.0, 1.0], [0.0, 0.0, 0.0], "same shape"),
    "one vertex": ([0.0], [0.0], "N >= 2"),
    "two-dimensional": ([[0.0, 1.0]], [[0.0, 0.0]], "same shape"),
    "x not a number": ([0.0, np.nan], [0.0, 0.0], "finite"),
    "infinite y": ([0.0, 1.0], [0.0, np.inf], "finite"),
}


@pytest.mark.parametrize("case", list(BAD_VERTICES))
def test_terrain_rejects_bad_vertices(case):
    xs, ys, message = BAD_VERTICES[case]
    with pytest.raises(ValueError, match=message):
        Terrain(np.array(xs), np.array(ys))


def test_make_terrain_rejects_an_unknown_kind():
    with pytest.raises(ValueError, match="unknown terrain 'lava'"):
        make_terrain("lava")


def test_height_at_is_np_interp_bit_for_bit():
    """The scalar height query gives exactly numpy's interpolation, on every built-in terrain,
    at random points, the vertices themselves, between them and beyond both ends."""
    from physics.terrain import height_at
    rng = np.random.default_rng(3)
    for kind in ("flat", "slope", "steps", "hills"):
        t = make_terrain(kind, seed=2)
        xs = np.concatenate([rng.uniform(-1200, 1200, 2000), rng.uniform(-3, 10, 2000), t.xs,
                             np.nextafter(t.xs, np.inf), np.nextafter(t.xs, -np.inf),
                             [-1e9, 1e9, np.nan]])
        ours = np.array([height_at(t.xs, t.ys, x) for x in xs])
        assert np.array_equal(ours.view(np.uint64), np.interp(xs, t.xs, t.ys).view(np.uint64)), kind


@pytest.mark.parametrize("height, extent", [(0.0, 1000.0), (0.3, 10.5), (-2.0, 7.25)])
def test_the_level_ground_query_is_the_general_one_bit_for_bit(height, extent):
    """find_contacts asks level ground (one flat segment) in lane loops of its own
    (physics.contacts._level_query): the same plane, to the bit, as the broad phase's
    terrain_top and closest_on_terrain give, for points above, on, just off and below the
    ground, within and out of reach, and past its ends (where a block may hold no ground)."""
    from physics.contacts import _level_ground, _level_query
    from physics.terrain import terrain_top
    terrain = Terrain.flat(height, extent)
    rng = np.random.default_rng(4)
    xs = np.concatenate([rng.uniform(-1.3 * extent, 1.3 * extent, 400), [0.0, extent, -extent, extent + 0.6]])
    ys = np.concatenate([height + rng.uniform(-0.5, 0.5, 300), height + rng.uniform(-1e-9, 1e-9, 100),
                         [height, height + 1e-12, height - 1e-10, height]])
    reach = rng.uniform(0.05, 0.6, xs.size)
    ground = _level_ground(terrain.table, terrain.blocks)
    for x, y, r in zip(xs, ys, reach):
        skip, dist, gx, gy = _level_query(x, y, r, ground)
        assert skip == (y - r > terrain_top(terrain.blocks, x - r, x + r))
        if not skip:
            want = closest_on_terrain(terrain.table, x, y, r)
            assert np.array([dist, gx, gy]).tobytes() == np.array(want).tobytes(), (x, y, r)
