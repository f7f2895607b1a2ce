"""The viewer's sources hand it the episode's medium (``Scene.medium``, ``ground``,
``fluid_density``, ``flow``) and each creature's plates and wings (``CreatureShape.bone_width``,
``wing``); champions in different media cannot race."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import physics
from creatures.sources import Preview, Race, creature_shape
from evolution.champion import ChampionError, load_champion
from evolution.plugins import resolve
from evolution.rollout import Episode

REPO = Path(__file__).parents[2]


def _champion_in(task: str, **sim):
    """The shipped walker champion, as if it had been evolved for ``task`` (its medium and its
    ground), with ``sim`` changed on top."""
    champion = load_champion(REPO / "saves/walker-run.json")
    settings = Episode.make(champion.body, task).sim
    return dataclasses.replace(champion, task=resolve("task", task).ref,
                               sim=dataclasses.replace(settings, **sim))


def test_a_swimmer_is_shown_in_water_with_no_ground():
    race = Race([_champion_in("swim")])
    scene = race.scene
    assert (scene.medium, scene.ground, scene.fluid_density, scene.flow) == ("water", False, 1000.0, (0.0, 0.0))
    assert scene.title == "walker - swim in water"
    assert race.runs[0].episode.sim.ground is False       # the very episode it plays


def test_a_flyer_is_shown_in_air_and_a_wind_with_its_speed():
    scene = Race([_champion_in("fly")]).scene
    assert (scene.medium, scene.ground, scene.fluid_density) == ("air", True, 1.2)
    assert scene.title.endswith("fly on flat")
    scene = Race([_champion_in("fly", flow_x=3.0)]).scene
    assert scene.medium == "air, wind 3 m/s" and scene.flow == (3.0, 0.0)


def test_a_champion_on_land_and_a_preview_have_no_medium():
    scene = Race([load_champion(REPO / "saves/walker-run.json")]).scene
    assert (scene.medium, scene.ground, scene.fluid_density, scene.flow) == ("none", True, 0.0, (0.0, 0.0))
    scene = Preview("walker").scene
    assert (scene.medium, scene.ground) == ("none", True)
    assert scene.creatures[0].wing is not None and not scene.creatures[0].wing.any()


def test_champions_in_different_media_cannot_race():
    land = load_champion(REPO / "saves/walker-run.json")
    with pytest.raises(ChampionError, match=r"is in water, no ground and .* in none: a race needs one medium"):
        Race([land, _champion_in("swim")], ["land", "sea"])
    with pytest.raises(ChampionError, match="a race needs one medium"):
        Race([_champion_in("fly"), _champion_in("fly", flow_x=3.0)], ["calm", "windy"])
    assert Race([_champion_in("swim"), _champion_in("swim")], ["a", "b"]).scene.medium == "water"


def test_a_shape_has_its_plates_and_wings():
    spheres = [physics.Sphere((0.0, 1.0), 0.1), physics.Sphere((1.0, 1.0), 0.1),
               physics.Sphere((-0.8, 1.0), 0.06), physics.Sphere((0.0, 1.5), 0.1)]
    bones = [physics.Bone(0, 1, wing=True, width=0.3), physics.Bone(0, 2, wing=True),
             physics.Bone(0, 3), physics.Bone(1, 3, width=0.05)]
    model = physics.build_model(physics.Body(spheres, bones, name="bird"), 2)
    model = model.with_values(bone_width=np.array([[0.3, 0.0, 0.0, 0.05], [0.6, 0.0, 0.0, 0.05]]))
    first, second = creature_shape(model), creature_shape(model, b=1)
    assert first.wing.tolist() == [True, True, False, False]
    assert first.bone_width == pytest.approx(model.bone_plate[0])
    assert first.bone_width[0] == 0.3 and second.bone_width[0] == 0.6       # each its own
    assert first.bone_width[1] == pytest.approx(physics.WING_WIDTH * 0.8)   # a wing's default
    assert first.bone_width[2] == pytest.approx(0.2) and first.bone_width[3] == 0.05


def test_an_environments_pictures_are_in_its_medium():
    pytest.importorskip("gymnasium")
    from creatures.envs import CreatureEnv, _EnvSource
    env = CreatureEnv(design="walker", task="swim", seconds=1.0)
    scene = _EnvSource(env.run, "walker", 1).scene
    assert (scene.medium, scene.ground) == ("water", False)
