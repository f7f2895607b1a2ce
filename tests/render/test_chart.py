"""The game window's chart (render/chart.py): where it puts generations and fitness, what a click
means, how it copes with no, one, many, negative, failed and missing numbers, the species stack,
and what it draws (read back from an offscreen framebuffer)."""

import dataclasses

import numpy as np
import pytest
from arcade.camera import Camera2D
from arcade.types import LBWH

from render.chart import BEST, FAILED, HANDLE, LEGEND, MEDIAN, WORST_FITNESS, ZERO, Chart, nice_ticks, species_colour
from render.game import Progress

BOX = (20, 16, 420, 260)          # the chart's panel (left, bottom, width, height)
SIZE = (460, 292)                 # the framebuffer it is drawn into
BACKGROUND = (90, 120, 60)        # a colour the chart never draws


def make_progress(G, K=12, population=150, seed=0, offset=0.0, measures="metres to the right"):
    """G generations of a run whose fitness grows like a log; K species, each alive over a
    stretch (the first from start to end), sharing ``population`` creatures every generation."""
    rng = np.random.default_rng(seed)
    g = np.arange(1, G + 1)
    base = offset + 2.0 * np.log1p(g)
    noise = np.abs(rng.normal(0.0, 0.3, G))
    birth = np.sort(rng.integers(1, max(G, 1) + 1, K))
    birth[0] = 1
    life = rng.integers(max(G // 3, 1), max(G, 1) + 1, K)
    alive = (g >= birth[:, None]) & (g < (birth + life)[:, None])
    alive[0] = True
    weight = alive * rng.uniform(0.5, 2.0, (K, 1))
    sizes = np.floor(weight / weight.sum(axis=0) * population).astype(np.int64)
    sizes[0] += population - sizes.sum(axis=0)
    return Progress(g, base + 3.0 + noise, base + 1.5, base + 0.7, base, base - 0.7, base - 1.5,
                    base - 3.0 - noise, 3 * np.arange(K) + 1, sizes, measures)


def first(progress, n):
    """The first ``n`` generations of ``progress``."""
    cut = {f: getattr(progress, f)[:n] for f in ("generation", "best", "p90", "p75", "median", "p25",
                                                 "p10", "worst")}
    return dataclasses.replace(progress, species_sizes=progress.species_sizes[:, :n], **cut)


def make_chart(window, progress, total=None, selected=None, box=BOX):
    chart = Chart(window.ctx)
    chart.set_progress(progress)
    chart.total = total
    chart.selected = selected
    chart.layout(*box)
    return chart


def render(window, chart, size=SIZE):
    """Draw ``chart`` into an offscreen framebuffer through a camera in screen pixels; its
    pixels, shape (H, W, 3), indexed ``[y, x]`` from the bottom left like the screen."""
    ctx = window.ctx
    texture = ctx.texture(size, components=4)
    fbo = ctx.framebuffer(color_attachments=[texture])
    camera = Camera2D(viewport=LBWH(0, 0, *size), render_target=fbo, window=window)
    camera.position = (size[0] / 2, size[1] / 2)
    try:
        with camera.activate():
            fbo.clear(color=BACKGROUND + (255,))
            chart.draw()
            return np.frombuffer(fbo.read(components=3), np.uint8).reshape(size[1], size[0], 3).copy()
    finally:
        ctx.screen.use()


def count(pixels, colour, tol=2) -> int:
    """How many pixels are ``colour`` (within ``tol`` per channel)."""
    return int(np.all(np.abs(pixels.astype(int) - np.asarray(colour[:3], int)) <= tol, axis=2).sum())


def inside(pixels, box):
    """The pixels of a box (left, bottom, width, height) of the screen."""
    left, bottom, w, h = (int(v) for v in box)
    return pixels[bottom:bottom + h, left:left + w]


def geometry_is_finite(chart) -> bool:
    triangles, segments = chart.drawing()
    return bool(np.isfinite(triangles["pos"]).all() and np.isfinite(segments["seg"]).all()
                and np.isfinite(segments["width"]).all())


# mapping ------------------------------------------------------------------------------------------
def test_lines_put_each_generation_at_its_column_and_each_fitness_at_its_height(window):
    p = make_progress(40)
    chart = make_chart(window, p, total=50)
    x0, y0, w, h = chart.plot_box
    for name in ("best", "p90", "median", "p10", "worst"):
        pts = chart.lines[name]
        assert pts.shape == (40, 2)
        np.testing.assert_allclose(pts[:, 0], x0 + (p.generation - 0.5) / 50 * w)
        np.testing.assert_allclose(pts[:, 1], chart.fitness_y(getattr(p, name)))
        assert np.all((pts[:, 1] >= y0) & (pts[:, 1] <= y0 + h))
    lo, hi = chart.y_range
    assert lo < p.worst.min() and hi > p.best.max()
    assert chart.fitness_y(lo) == pytest.approx(y0) and chart.fitness_y(hi) == pytest.approx(y0 + h)


def test_best_line_is_above_the_median_and_the_median_above_the_worst(window):
    chart = make_chart(window, make_progress(30))
    assert np.all(chart.lines["best"][:, 1] > chart.lines["median"][:, 1])
    assert np.all(chart.lines["median"][:, 1] > chart.lines["worst"][:, 1])
    assert np.all(chart.lines["p90"][:, 1] > chart.lines["p10"][:, 1])


def test_x_axis_spans_the_total_or_the_last_generation_whichever_is_more(window):
    chart = make_chart(window, make_progress(30), total=100)
    x0, _, w, _ = chart.plot_box
    assert chart.generation_x(100.5) == pytest.approx(x0 + w)
    chart.total = 10                      # fewer than have run: the last one sets the axis
    assert chart.generation_x(30.5) == pytest.approx(x0 + w)
    assert chart.generation_x(0.5) == pytest.approx(x0)


def test_generation_at_inverts_the_x_mapping_on_the_charts_and_the_scrubber(window):
    chart = make_chart(window, make_progress(30), total=60)
    column = chart.plot_box[2] / 60
    rows = [chart.plot_box[1] + chart.plot_box[3] / 2,           # the fitness chart
            chart.species_box[1] + chart.species_box[3] / 2,     # the species stack
            chart.scrubber_box[1] + chart.scrubber_box[3] / 2]   # the scrubber
    for y in rows:
        for g in (1, 2, 7, 15, 29, 30):
            x = chart.generation_x(g)
            assert chart.generation_at(x, y) == g
            assert chart.generation_at(x - 0.45 * column, y) == g
            assert chart.generation_at(x + 0.45 * column, y) == g
        # past the latest finished generation: the latest
        assert chart.generation_at(chart.generation_x(50), y) == 30


def test_generation_at_is_none_off_the_charts_unless_clamped(window):
    chart = make_chart(window, make_progress(30), total=60)
    x0, y0, w, h = chart.plot_box
    assert chart.generation_at(x0 + w / 2, y0 + h + 30) is None      # above the panel
    assert chart.generation_at(x0 - 20, y0 + h / 2) is None          # over the y labels
    assert chart.generation_at(x0 - 20, y0 + h / 2, clamp=True) == 1
    assert chart.generation_at(x0 + w + 500, 0, clamp=True) == 30
    assert chart.contains(x0 + 1, y0 + 1) and not chart.contains(BOX[0] - 1, BOX[1])


def test_nice_ticks_are_round_numbers_inside_the_range():
    ticks, step = nice_ticks(-3.2, 17.9, 4)
    assert step == 5.0 and list(ticks) == [0.0, 5.0, 10.0, 15.0]
    ticks, step = nice_ticks(0.013, 0.094, 4)
    assert step == 0.02 and ticks == pytest.approx([0.02, 0.04, 0.06, 0.08])
    ticks, step = nice_ticks(1, 7, 10, whole=True)
    assert step == 1.0 and list(ticks) == [1, 2, 3, 4, 5, 6, 7]
    ticks, step = nice_ticks(1, 2000, 4, whole=True)
    assert step == 500.0 and list(ticks) == [500, 1000, 1500, 2000]
    ticks, step = nice_ticks(-12.0, -1.0, 4)
    assert step == 2.5 and list(ticks) == [-10.0, -7.5, -5.0, -2.5]


# awkward runs -------------------------------------------------------------------------------------
def test_no_generation_yet_says_it_is_waiting(window):
    chart = make_chart(window, Progress.empty("metres to the right"), total=50, selected=3)
    assert chart.generation_at(*chart.generation_x(1).reshape(1), chart.plot_box[1] + 5) is None
    assert all(pts.shape == (0, 2) for pts in chart.lines.values())
    assert chart.texts()["message"] == "waiting for the first generation"
    assert geometry_is_finite(chart)
    pixels = render(window, chart)
    assert count(inside(pixels, chart.plot_box), BEST) == 0     # (the legend's "best" is orange)
    assert chart.title == "fitness: metres to the right"


def test_one_generation_is_drawn_as_points(window):
    chart = make_chart(window, make_progress(1), total=50)
    pixels = render(window, chart)
    assert chart.texts()["message"] == ""
    assert chart.lines["best"].shape == (1, 2)
    segments = chart.drawing()[1]
    seg = segments["seg"]
    discs = segments[(seg[:, 0] == seg[:, 2]) & (seg[:, 1] == seg[:, 3])]
    assert len(discs) == 5                                # a disc (a segment of no length) a line
    x, y = chart.lines["best"][0]
    assert tuple(pixels[int(y), int(x)]) == BEST[:3]
    assert chart.generation_at(x, y) == 1


def test_many_generations_and_species_stay_a_few_thousand_shapes(window):
    p = make_progress(2000, K=300, seed=3)
    chart = make_chart(window, p, total=2000, selected=1500)
    assert chart.lines["best"].shape == (2000, 2)
    segments = chart.drawing()[1]
    columns = int(chart.plot_box[2])
    assert segments.size < 5 * 2 * columns + 200          # thinned: two points a pixel column
    alive = int((p.species_sizes > 0).sum(axis=0).max())
    assert chart.species_rects.shape[0] <= 2 * alive * columns  # averaged into pixel columns
    assert geometry_is_finite(chart)
    pixels = render(window, chart)
    assert count(inside(pixels, chart.plot_box), BEST) > 50


def test_negative_fitness_gets_negative_ticks_and_a_zero_line(window):
    chart = make_chart(window, make_progress(30, offset=-8.0))
    lo, hi = chart.y_range
    assert lo < -5.0 and hi > 0.0
    labels = chart.texts()["y_labels"]
    values = [float(s) for s in labels]
    assert any(s.startswith("-") for s in labels) and 0.0 in values
    assert values == sorted(values)
    assert all(lo <= v <= hi for v in values)
    seg = chart.drawing()[1]
    zero = seg[np.all(seg["color"] == ZERO, axis=1)]
    assert len(zero) == 1 and zero["seg"][0, 1] == pytest.approx(chart.fitness_y(0.0), abs=0.5)


def test_failed_creatures_are_left_below_the_chart(window):
    p = make_progress(20)
    p = dataclasses.replace(p, worst=np.full(20, WORST_FITNESS))
    chart = make_chart(window, p)
    assert chart.y_range[0] > p.p10.min() - 2.0                 # fitted to the others
    assert chart.texts()["note"]
    np.testing.assert_allclose(chart.lines["worst"][:, 1], chart.plot_box[1])    # along the bottom


def with_failures(p, share):
    """``p`` where ``share`` of each generation failed: the plain percentiles dragged down to
    the failure value, the ones of the creatures that did not fail as ``p`` had them."""
    low = np.where(share >= 0.5, WORST_FITNESS, p.p10)
    ok = {f"ok_{n}": getattr(p, n) for n in ("p90", "p75", "median", "p25", "p10", "worst")}
    return dataclasses.replace(p, median=np.where(share >= 0.5, WORST_FITNESS / 2, p.median), p25=low, p10=low,
                               worst=np.where(share > 0, WORST_FITNESS, p.worst), failed=share, **ok)


def test_the_percentiles_of_the_creatures_that_did_not_fail_are_drawn(window):
    """Half of every other generation failed: the lines are the others' (not the plain median,
    which dives towards the failure value), and the range is fitted to them alone."""
    p = make_progress(20)
    share = np.where(np.arange(20) % 2, 0.5, 0.0)
    chart = make_chart(window, with_failures(p, share))
    np.testing.assert_allclose(chart.lines["median"][:, 1], chart.fitness_y(p.median))
    assert chart.y_range[0] > p.worst.min() - 2.0 and not chart.texts()["note"]


def test_the_share_that_failed_is_a_strip_of_its_own_under_the_fitness(window):
    p = make_progress(20)
    share = np.where(np.arange(20) % 4 == 1, 0.5, 0.0)
    share[7] = 1.0
    chart = make_chart(window, with_failures(p, share), total=20)
    fx, fb, fw, fh = chart.failed_box
    px, pb, pw, ph = chart.plot_box
    assert (fx, fw) == (px, pw) and fh >= 10 and fb + fh < pb and fb > sum(chart.species_box[1::2])
    bars = chart.failed_rects
    assert len(bars) == int((share > 0).sum())
    np.testing.assert_allclose(bars[:, 3], share[share > 0] * fh)
    np.testing.assert_allclose(bars[:, 0] + bars[:, 2] / 2, chart.generation_x(np.flatnonzero(share) + 1))
    assert count(inside(render(window, chart), chart.failed_box), FAILED) > 0


def test_no_failure_no_strip(window):
    chart = make_chart(window, dataclasses.replace(make_progress(20), failed=np.zeros(20)))
    assert chart.failed_box[3] == 0 and len(chart.failed_rects) == 0
    assert count(render(window, chart), FAILED) == 0


def test_percentiles_not_known_are_gaps_not_dives(window):
    p = make_progress(20)
    ok = p.median.copy()
    ok[5:8] = np.nan
    chart = make_chart(window, dataclasses.replace(p, median=np.full(20, -300.0), ok_median=ok))
    assert np.isnan(chart.lines["median"][5:8]).all() and np.isfinite(chart.lines["median"][8:]).all()
    assert geometry_is_finite(chart)


def test_missing_values_leave_gaps_and_no_nan_in_the_geometry(window):
    p = make_progress(30)
    best = p.best.copy()
    best[[3, 4, 17]] = np.nan
    best[20] = np.inf
    p10 = p.p10.copy()
    p10[10] = np.nan
    chart = make_chart(window, dataclasses.replace(p, best=best, p10=p10), selected=4)
    assert np.isnan(chart.lines["best"][[3, 4, 17, 20]]).all()
    assert np.isfinite(chart.lines["best"][[0, 5, 16, 18, 21]]).all()
    assert geometry_is_finite(chart)
    render(window, chart)


def test_all_values_missing_still_draws(window):
    p = make_progress(5)
    nan = np.full(5, np.nan)
    p = dataclasses.replace(p, best=nan, p90=nan, p75=nan, median=nan, p25=nan, p10=nan, worst=nan)
    chart = make_chart(window, p)
    assert geometry_is_finite(chart)
    assert count(inside(render(window, chart), chart.plot_box), BEST) == 0


# species ------------------------------------------------------------------------------------------
def test_species_stack_is_as_high_as_the_population(window):
    p = make_progress(40, K=15)
    chart = make_chart(window, p, total=40)
    boxes = chart.species_rects
    x0, y0, w, h = chart.species_box
    assert chart.species_top == 150
    for g in (1, 10, 25, 40):
        x = chart.generation_x(g)
        inside = (boxes[:, 0] < x) & (boxes[:, 0] + boxes[:, 2] > x)
        assert boxes[inside, 3].sum() == pytest.approx(h)             # the whole population
        assert (boxes[inside, 1] + boxes[inside, 3]).max() == pytest.approx(chart.count_y(150))
        # each species' cell is as tall as its members
        ids = chart.species_cells[inside]
        rows = np.searchsorted(p.species_ids, ids)
        np.testing.assert_allclose(boxes[inside, 3], p.species_sizes[rows, g - 1] / 150 * h)


def test_species_stack_follows_a_changing_population(window):
    p = make_progress(10, K=4)
    sizes = p.species_sizes.copy()
    sizes[0, 5:] += 50                                 # 200 creatures from generation 6 on
    chart = make_chart(window, dataclasses.replace(p, species_sizes=sizes))
    assert chart.species_top == 200
    boxes = chart.species_rects
    x = chart.generation_x(2)
    inside = (boxes[:, 0] < x) & (boxes[:, 0] + boxes[:, 2] > x)
    assert (boxes[inside, 1] + boxes[inside, 3]).max() == pytest.approx(chart.count_y(150))


def test_species_colour_is_deterministic_and_agrees_with_creatures_plot():
    from creatures.charts import species_colour as plot_colour

    for sid in range(300):
        c = species_colour(sid)
        assert c == species_colour(sid) == plot_colour(sid)
        assert all(0.0 <= v <= 1.0 for v in c)
    assert species_colour(1) != species_colour(2)


def test_worst_fitness_agrees_with_evolution():
    from evolution.tasks import WORST_FITNESS as evolution_worst

    assert WORST_FITNESS == evolution_worst


# pixels -------------------------------------------------------------------------------------------
def test_rendered_chart_shows_the_best_line_the_median_and_the_species(window):
    p = make_progress(30, K=6)
    chart = make_chart(window, p, total=40, selected=12)
    pixels = render(window, chart)
    assert count(inside(pixels, chart.plot_box), BEST) > 30
    assert count(inside(pixels, chart.plot_box), MEDIAN) > 30
    biggest = int(p.species_ids[np.argmax(p.species_sizes.sum(axis=1))])
    colour = tuple(round(255 * v) for v in species_colour(biggest))
    assert count(inside(pixels, chart.species_box), colour) > 100
    # the best line is where chart.lines says
    x, y = chart.lines["best"][15]
    patch = pixels[int(y) - 2:int(y) + 3, int(x) - 2:int(x) + 3]
    assert count(patch, BEST, tol=40) > 0
    # the panel covers its box, the background shows around it
    assert tuple(pixels[BOX[1] - 3, BOX[0] + 10]) == BACKGROUND
    assert tuple(pixels[BOX[1] + 3, BOX[0] + 3]) != BACKGROUND


def test_handle_is_drawn_at_the_selected_generation(window):
    chart = make_chart(window, make_progress(30), total=40, selected=12)
    x = int(chart.generation_x(12))
    y = int(chart.scrubber_box[1] + chart.scrubber_box[3] / 2)
    assert count(render(window, chart)[y - 1:y + 2, x - 1:x + 2], HANDLE) > 0
    chart.selected = None
    assert count(render(window, chart)[y - 1:y + 2, x - 1:x + 2], HANDLE) == 0


def test_closing_frees_the_picture_and_drawing_again_makes_it(window):
    chart = make_chart(window, make_progress(10))
    render(window, chart)
    chart.close()
    assert not chart.has_picture
    assert count(inside(render(window, chart), chart.plot_box), BEST) > 0


def test_drawing_leaves_the_framebuffer_and_camera_in_use(window):
    ctx = window.ctx
    chart = make_chart(window, make_progress(10))
    texture = ctx.texture(SIZE, components=4)
    fbo = ctx.framebuffer(color_attachments=[texture])
    camera = Camera2D(viewport=LBWH(0, 0, *SIZE), render_target=fbo, window=window)
    camera.position = (SIZE[0] / 2, SIZE[1] / 2)
    try:
        with camera.activate():
            projection, view, blend = ctx.projection_matrix, ctx.view_matrix, ctx.blend_func
            chart.draw()                                  # paints its cached picture first
            assert ctx.active_framebuffer is fbo
            assert ctx.projection_matrix == projection and ctx.view_matrix == view
            assert ctx.blend_func == blend
            assert fbo.viewport == (0, 0, *SIZE)
    finally:
        ctx.screen.use()


# changes ------------------------------------------------------------------------------------------
def test_geometry_is_rebuilt_only_when_the_numbers_change(window):
    p = make_progress(31)
    chart = make_chart(window, first(p, 30))
    render(window, chart)
    lines = chart.lines
    chart.set_progress(first(p, 30))                      # a new object with the same numbers
    chart.selected = 5                                    # only the handle moves
    render(window, chart)
    assert chart.lines is lines
    chart.set_progress(p)                                 # a new generation
    render(window, chart)
    assert chart.lines is not lines and chart.lines["best"].shape == (31, 2)
    assert chart.texts()["last"] == "gen 31"


def test_title_and_legend(window):
    chart = make_chart(window, make_progress(3, measures="metres to the right"))
    assert chart.title == "fitness: metres to the right"
    chart.title = "walker: run"
    render(window, chart)
    assert chart.texts()["title"] == "walker: run"
    assert [label for label, _ in chart.legend] == ["best", "90%", "median", "10%", "worst"]
    assert chart.legend == LEGEND and dict(LEGEND)["best"] == BEST


def test_a_small_chart_still_draws(window):
    chart = make_chart(window, make_progress(20), total=20, selected=20, box=(0, 0, 140, 90))
    assert chart.scrubber_box[3] > 0 and chart.plot_box[3] > 0
    assert geometry_is_finite(chart)
    render(window, chart)
