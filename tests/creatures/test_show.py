"""The viewer's sources: champions replayed for watching end at their recorded fitness bit for
bit; races need one terrain; a followed run switches to each new generation's champion; a
previewed design reloads when saved and shows its problems without losing the last good one."""

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from creatures.design import DESIGN_DIR, DesignError, resolve_design
from creatures.sources import Preview, Race, RunFollower, load_sources
from evolution import Run, RunSettings
from evolution.champion import ChampionError, load_champion

REPO = Path(__file__).parents[2]

SAVES = sorted((REPO / "saves").glob("*.json"))


def _play(source, limit=10**6):
    steps = 0
    while not source.frame().done and steps < limit:
        source.step()
        steps += 1
    return steps


@pytest.mark.parametrize("path", SAVES, ids=lambda p: p.stem)
def test_watching_a_shipped_champion_ends_at_its_recorded_fitness_bit_for_bit(path):
    source = load_sources([str(path)])
    champion = load_champion(path)
    steps = _play(source)
    frame = source.frame()
    assert steps == champion.episode().steps and frame.done
    assert frame.time == pytest.approx(champion.seconds)
    c = frame.creatures[0]
    assert c.fitness == champion.trial_fitness(0) == c.recorded      # its first trial, as recorded
    assert not c.failed


def test_restart_replays_the_same_frames():
    source = load_sources([str(REPO / "saves/hopper-jump.json")])
    for _ in range(50):
        source.step()
    first = source.frame().creatures[0].pos.copy()
    source.reset()
    assert source.frame().step == 0
    for _ in range(50):
        source.step()
    assert np.array_equal(source.frame().creatures[0].pos, first)


def test_a_race_runs_each_champion_as_alone_and_labels_them_apart():
    path = str(REPO / "saves/walker-run.json")
    race = load_sources([path, path])
    alone = load_sources([path])
    for _ in range(120):
        race.step()
        alone.step()
    a, b = race.frame().creatures
    assert np.array_equal(a.pos, alone.frame().creatures[0].pos)
    assert np.array_equal(b.pos, a.pos)
    labels = [c.label for c in race.scene.creatures]
    name = load_champion(path).name
    assert labels == [f"1. {name}", f"2. {name}"]
    assert race.scene.title == "race of 2 - run on flat"


def test_the_leader_is_the_creature_furthest_right():
    race = Race([load_champion(REPO / "saves/walker-run.json"),
                 load_champion(REPO / "saves/walker-run.json")], ["a", "b"])
    race.runs[1].step()  # b one step ahead... then far ahead
    for _ in range(300):
        race.runs[1].step()
    assert race.frame().leader == 1


def test_a_race_needs_one_terrain():
    with pytest.raises(ChampionError, match="a race needs one terrain"):
        load_sources([str(REPO / "saves/walker-run.json"), str(REPO / "saves/walker-climb.json")])


def test_a_bad_champion_file_is_one_line_naming_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(ChampionError) as info:
        load_sources([str(bad)])
    assert str(info.value).startswith(f"{bad}: ") and "\n" not in str(info.value)


def test_brain_lists_inputs_outputs_and_live_values():
    source = load_sources([str(REPO / "saves/walker-run.json")])
    for _ in range(30):
        source.step()
    brain = source.brain(0)
    kinds = [n.kind for n in brain.nodes]
    run = source.runs[0]
    assert kinds.count("input") == run.inputs.shape[1]
    assert kinds.count("output") == run.model.n_muscles
    assert brain.nodes[0].label == "clock sin"
    labels = {n.kind: [] for n in brain.nodes}
    for n in brain.nodes:
        labels[n.kind].append(n.label)
    # named as the design names them: its muscles, its spheres' contacts
    assert labels["output"] == ["shin_hind", "hip_muscle_hind", "knee_muscle_hind",
                                "shin_fore", "hip_muscle_fore", "knee_muscle_fore"]
    assert "shin_hind length" in labels["input"] and "foot_hind contact" in labels["input"]
    assert not any(label.startswith(("muscle ", "sphere ")) for label in labels["input"])
    keys = {n.key for n in brain.nodes}
    assert all(a in keys and b in keys for a, b, _ in brain.edges)
    values = source.brain_values(0)
    for k in range(run.model.n_muscles):  # an output's value is the muscle's command
        assert values[k] == run.outputs[0, k]
    for k in range(run.inputs.shape[1]):  # an input's value is what the brain read
        assert values[-(k + 1)] == run.inputs[0, k]


def test_frames_carry_contraction_contacts_and_joint_angles():
    source = load_sources([str(REPO / "saves/quadruped-obstacle.json")])
    for _ in range(200):
        source.step()
    c = source.frame().creatures[0]
    shape = source.scene.creatures[0]
    assert c.pos.shape == (len(shape.radius), 2)
    assert c.contraction.shape == shape.muscle_bone.shape
    assert np.all(np.abs(c.contraction) <= 1.0) and np.any(c.contraction != 0.0)
    assert c.contact.any()


# --- following a run -------------------------------------------------------------------------------

def _tiny_run(directory, generations):
    d = resolve_design("worm")
    settings = RunSettings(design_name=d.name, design_text=d.text, seconds=0.5, generations=generations,
                           population=8, seed=2, workers=1)
    run = Run.create(directory, settings, d.body)
    run.evolve()
    return run


def test_following_a_run_switches_to_each_new_generations_champion(tmp_path):
    _tiny_run(tmp_path, 1)
    follower = RunFollower(tmp_path)
    assert follower.generation == 1 and follower.message is None
    assert follower.scene.creatures[0].info["generation"] == 1
    assert not follower.poll()
    run = Run.open(tmp_path)
    run.set_generations(3)
    run.evolve()
    assert follower.poll()
    assert follower.generation == 3
    assert follower.scene.creatures[0].label == "worm run gen 3"
    _play(follower)
    assert follower.frame().creatures[0].fitness == json.loads(
        (tmp_path / "best" / "gen_0003.json").read_text())["fitness"]


def test_following_a_run_before_its_first_generation_waits(tmp_path):
    d = resolve_design("worm")
    settings = RunSettings(design_name=d.name, design_text=d.text, seconds=0.5, generations=1,
                           population=8, seed=2, workers=1)
    run = Run.create(tmp_path, settings, d.body)
    follower = RunFollower(tmp_path)
    assert follower.message.startswith("waiting for the first generation")
    assert follower.scene.creatures == [] and follower.frame().creatures == []
    follower.step()  # nothing to step, no error
    run.evolve()
    assert follower.poll() and follower.message is None and len(follower.scene.creatures) == 1


def test_follow_needs_one_run_directory(tmp_path):
    with pytest.raises(ChampionError, match="--follow takes one run directory"):
        load_sources([str(REPO / "saves/walker-run.json")], follow=True)
    with pytest.raises(ChampionError, match="not a run directory"):
        load_sources([str(tmp_path)], follow=True)


# --- previewing a design ---------------------------------------------------------------------------

def test_preview_of_a_builtin_design_moves_its_muscles_on_a_sine():
    p = Preview("walker")
    assert p.message is None and p.scene.duration is None
    assert not p.poll()
    for _ in range(30):
        p.step()
    c = p.frame().creatures[0]
    assert np.any(np.abs(c.contraction) > 0.05)
    assert not p.frame().done


def _touch_later(path: Path, text: str) -> None:
    """Rewrite a file with a later modification time (file systems can have coarse clocks)."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 10**9, before + 10**9))


def test_preview_reloads_a_saved_file_and_keeps_the_last_good_version_on_errors(tmp_path):
    path = tmp_path / "mine.yaml"
    shutil.copy(DESIGN_DIR / "worm.yaml", path)
    p = Preview(str(path))
    good = p.scene
    for _ in range(10):
        p.step()

    broken = path.read_text().replace("spheres:", "spheres: [", 1)
    _touch_later(path, broken)
    assert not p.poll()                       # the scene did not change...
    assert p.message and str(path) in p.message
    assert ":" in p.message.split(str(path))[1]  # ...and the problem says where (line:column)
    assert p.scene is good
    p.step()                                  # the last good version goes on
    assert p.frame().step == 11

    walker = (DESIGN_DIR / "walker.yaml").read_text()
    _touch_later(path, walker)
    assert p.poll()
    assert p.message is None and p.scene is not good
    assert len(p.scene.creatures[0].radius) == len(resolve_design("walker").body.spheres)
    assert p.frame().step == 0


def test_preview_of_a_broken_file_refuses_with_the_problems(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nspheres: 3\n")
    with pytest.raises(DesignError):
        Preview(str(path))


def test_following_a_damaged_run_directory_is_one_line(tmp_path):
    (tmp_path / "settings.json").write_text("{broken")
    with pytest.raises(ChampionError, match=r"settings.json:1:2: not valid JSON") as info:
        RunFollower(tmp_path)
    assert "\n" not in str(info.value)


# --- bodies that evolve ----------------------------------------------------------------------------

def test_a_creatures_shape_is_its_own_body_with_its_parts_switched_off():
    from evolving_helpers import evolving_walker

    from creatures.sources import creature_shape
    body, genes = evolving_walker()
    model, refused = genes.model(body, [[0.1, 0.5, 150.0], [0.14, 0.6, 90.0]], [[True], [False]])
    assert not refused.any()
    first, second = creature_shape(model, "a"), creature_shape(model, "b", b=1)
    assert first.radius[5] == 0.1 and second.radius[5] == 0.14
    assert first.sphere_on is None and first.bone_on is None     # nothing off: no masks
    assert second.bone_on.tolist() == [e != 10 for e in range(len(body.bones))]
    assert second.sphere_on.all() and second.joint_on.all()


def test_a_shapes_clusters_follow_its_own_rest_shape():
    import physics
    from creatures.sources import creature_shape
    spheres = [physics.Sphere((x, y), radius=0.05) for x, y in ((0, 1), (1, 1), (1, 2), (0, 2))]
    model = physics.build_model(physics.Body(spheres, [], clusters=[physics.Cluster([0, 1, 2, 3])]), 2)
    pos = np.array(model.rest_pos)
    pos[1] = pos[1, [2, 3, 0, 1]]          # creature 1's spheres go round the other way
    model = model.with_values(rest_pos=pos)
    assert creature_shape(model, b=0).clusters[0].tolist() != creature_shape(model, b=1).clusters[0].tolist()


def test_racing_generations_of_a_run_each_with_its_own_body(evolved_run):
    from evolution.champion import champion_from_run
    race = load_sources([str(evolved_run)], generations=[1, "last"])
    first, last = champion_from_run(evolved_run, 1), champion_from_run(evolved_run, 4)
    assert [c.label for c in race.scene.creatures] == ["gen 1", "gen 4"]
    assert race.scene.title == "walker - gen 1 vs gen 4 - run on flat"
    shapes = race.scene.creatures
    assert shapes[0].radius[5] == first.genome["body"]["values"][0] == 0.1
    assert shapes[1].radius[5] == last.genome["body"]["values"][0] != 0.1
    assert [s.info["generation"] for s in shapes] == [1, 4]
    _play(race)
    frame = race.frame()
    assert [c.fitness for c in frame.creatures] == [first.fitness, last.fitness]   # bit for bit
    assert [c.recorded for c in frame.creatures] == [first.fitness, last.fitness]


def test_racing_the_best_of_a_run_and_the_same_generation_twice(evolved_run):
    from evolution.champion import champion_from_run
    best = champion_from_run(evolved_run)
    race = load_sources([str(evolved_run)], generations=["best", best.generation])
    assert [c.label for c in race.scene.creatures] == [f"best, gen {best.generation}", f"gen {best.generation}"]
    assert race.scene.title == f"walker - gen {best.generation} - run on flat"
    race = load_sources([str(evolved_run)], generations=[2, 2])
    assert [c.label for c in race.scene.creatures] == ["1. gen 2", "2. gen 2"]


def test_following_an_evolving_run_plays_the_champion_with_its_own_body(evolved_run):
    follower = RunFollower(evolved_run)
    _play(follower)
    recorded = json.loads((evolved_run / "best" / "gen_0004.json").read_text())
    assert follower.frame().creatures[0].fitness == recorded["fitness"]
    assert follower.scene.creatures[0].radius[5] == recorded["genome"]["body"]["values"][0]


@pytest.mark.parametrize("text, wanted", [("1,last", [1, "last"]), (" 3 , BEST ", [3, "best"]), ("2", [2])])
def test_race_generations_are_numbers_last_or_best(text, wanted):
    from creatures.sources import parse_generations
    assert parse_generations(text) == wanted


@pytest.mark.parametrize("text", ["", "0", "-1", "1,,2", "first", "1.5", ",".join(["1"] * 17)])
def test_bad_race_generations_are_one_line(text):
    from creatures.sources import parse_generations
    with pytest.raises(ValueError) as exc:
        parse_generations(text)
    assert "\n" not in str(exc.value) and "--race" in str(exc.value)


def test_a_race_of_generations_needs_one_run_that_has_them(evolved_run, tmp_path):
    with pytest.raises(ChampionError, match="--race takes one run directory"):
        load_sources([str(REPO / "saves/walker-run.json")], generations=[1])
    with pytest.raises(ChampionError, match="--race takes one run directory"):
        load_sources([str(evolved_run), str(evolved_run)], generations=[1])
    with pytest.raises(ChampionError, match="not a run directory"):
        load_sources([str(tmp_path)], generations=[1])
    with pytest.raises(ChampionError, match=r"has no generation 9 \(it has 1 to 4\)"):
        load_sources([str(evolved_run)], generations=[1, 9])
    with pytest.raises(ChampionError, match="--follow and --race do not go together"):
        load_sources([str(evolved_run)], follow=True, generations=[1])
