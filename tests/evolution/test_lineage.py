"""Lineage: a champion records the hash of its design, of its run's settings and of the champion
its run started from; a champion's own hash is of what it does (evolution/lineage.py)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from evolution import Run, lineage
from evolution.cards import card_bytes, encode_png
from evolution.champion import champion_from_run, champion_json, load_champion
from evolution.run import RunSettings
from evolution_helpers import design, tiny_settings

import numpy as np


@pytest.fixture(scope="module")
def champion(tmp_path_factory):
    directory = tmp_path_factory.mktemp("lineage_run")
    settings = tiny_settings(generations=1, population=6, seed=3)
    Run.create(directory, settings, design(settings.design_name).body).evolve()
    return champion_from_run(directory), RunSettings.read(directory / "settings.json")


def test_a_champion_of_a_run_records_its_design_and_settings_hash(champion):
    c, settings = champion
    assert c.design_hash == lineage.design_hash(settings.design_text)
    assert c.settings_hash == lineage.settings_hash(dataclasses.asdict(settings))
    assert c.parent is None and c.seed == 3
    assert c.lineage_line() == (f"design {lineage.short(c.design_hash)}, run seed 3, settings "
                                f"{lineage.short(c.settings_hash)}, evolved from scratch")
    doc = c.to_dict()
    assert doc["lineage"] == {"design": c.design_hash, "settings": c.settings_hash, "parent": None}


def test_the_settings_hash_follows_what_decides_the_generations_only(champion):
    _, settings = champion
    as_dict = dataclasses.asdict(settings)
    same = lineage.settings_hash(as_dict)
    for key, value in (("generations", 500), ("workers", 2), ("backend", "ray"), ("address", "auto")):
        assert lineage.settings_hash({**as_dict, key: value}) == same, key
    for key, value in (("seed", 4), ("population", 7), ("seconds", 2.5), ("task", "jump"),
                       ("trials", 3), ("noise", 0.5), ("statistic", "min")):
        assert lineage.settings_hash({**as_dict, key: value}) != same, key
    before_trials = {k: v for k, v in as_dict.items() if k not in lineage.TRIAL_SETTINGS}
    assert lineage.settings_hash(before_trials) == lineage.digest({k: as_dict[k] for k in lineage.RESULT_SETTINGS})


def test_a_champion_hash_is_the_same_in_a_file_a_card_and_with_its_fitness_edited(champion, tmp_path):
    c, _ = champion
    text = champion_json(c)
    (tmp_path / "c.json").write_text(text)
    (tmp_path / "c.png").write_bytes(card_bytes(encode_png(np.zeros((4, 4, 3), np.uint8)), text))
    edited = json.loads(text)
    edited["recorded"]["fitness"] += 100.0
    edited.update(name="renamed", author="Someone")
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    hashes = {load_champion(tmp_path / n).hash() for n in ("c.json", "c.png", "edited.json")}
    assert hashes == {c.hash()}
    other = json.loads(text)
    other["brain"]["genome"]["connections"][0]["weight"] += 1e-9
    (tmp_path / "other.json").write_text(json.dumps(other))
    assert load_champion(tmp_path / "other.json").hash() != c.hash()


def test_a_champion_from_before_lineage_was_recorded_still_loads(champion, tmp_path):
    c, _ = champion
    doc = json.loads(champion_json(c))
    del doc["lineage"]
    (tmp_path / "old.json").write_text(json.dumps(doc))
    old = load_champion(tmp_path / "old.json")
    assert (old.settings_hash, old.parent, old.design_hash) == (None, None, c.design_hash)
    assert old.lineage_line().endswith("run seed 3 (the run's settings were not recorded)")
    assert old.hash() == c.hash()


def test_author_is_saved_and_read_back(champion, tmp_path):
    c, _ = champion
    authored = dataclasses.replace(c, author="Ada L.")
    (tmp_path / "a.json").write_text(champion_json(authored))
    assert load_champion(tmp_path / "a.json").author == "Ada L."
    assert "author" not in json.loads(champion_json(c))


def test_a_run_setting_parent_must_be_a_hash():
    assert tiny_settings(parent="sha256:" + "a" * 64).parent == "sha256:" + "a" * 64
    with pytest.raises(ValueError, match="the setting parent must be 'sha256:' and 64 hex digits"):
        tiny_settings(parent="a" * 64)


def test_hashes_are_canonical():
    assert lineage.digest({"b": 1.5, "a": [1, 2]}) == lineage.digest({"a": [1, 2], "b": 1.5})
    assert lineage.short("sha256:" + "0123456789ab" + "f" * 52) == "0123456789ab"
    assert lineage.short(None) == "-"
