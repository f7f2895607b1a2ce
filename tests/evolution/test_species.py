"""The dynamic compatibility threshold (evolution/species.py): it steers the number of species
toward the target; a config without it speciates bit for bit as neat-python's own
DefaultSpeciesSet; a run resumed from its checkpoint goes on with the threshold it had reached;
bad values are refused with one line."""

import json
import random
import re
from types import SimpleNamespace

import neat
import pytest

from evolution.breeding import SpeciationScope
from evolution.checkpoint import CheckpointError, dumps, loads, population_state, restore_population
from evolution.genomes import (NeatConfigError, check_neat_config, genome_to_dict, load_neat_config,
                               neat_config_text, read_neat_config, target_species)
from evolution.run import Run, RunError
from evolution.species import DefaultSpeciesSet, effective_target, next_threshold
from evolution_helpers import design, read_stats, run_files, tiny_settings


def _species_lines(text: str, **values) -> str:
    """``text`` with [DefaultSpeciesSet] keys set (a value None drops the key's line)."""
    for key, value in values.items():
        line = "" if value is None else f"{key} = {value}\n"
        text, n = re.subn(rf"^{key}\s*=.*\n", line, text, flags=re.M)
        if n == 0 and value is not None:
            text = text.replace("[DefaultSpeciesSet]\n", f"[DefaultSpeciesSet]\n{line}")
    return text


def _old_config(n_inputs=4, n_outputs=2, population=40, threshold=1.0) -> str:
    """A config as runs wrote them before the dynamic threshold: no target_species, step, min."""
    text = _species_lines(neat_config_text(n_inputs, n_outputs, population), target_species=None,
                          threshold_step=None, threshold_min=None, compatibility_threshold=threshold)
    assert not re.search(r"^(target_species|threshold_step|threshold_min)", text, flags=re.M)
    return text


def _evolve_randomly(config, generations: int, seed: int = 5, scoped: bool = False):
    """neat's own loop with random fitness (from a generator of its own: neat's ``random`` is
    neat's); yields the population after each speciation, the first one included. ``scoped``:
    with the run's distance scopes (evolution.breeding.SpeciationScope: distances on arrays)."""
    random.seed(seed)
    scores = random.Random(seed + 1)
    population = neat.Population(config)
    if scoped:
        population.add_reporter(SpeciationScope())
    yield population

    def fitness(genomes, _config):
        for _, g in genomes:
            g.fitness = scores.uniform(0.0, 10.0)

    for _ in range(generations):
        population.run(fitness, 1)
        yield population


def _snapshot(population) -> tuple:
    """Everything speciation decides, comparable across two runs."""
    s = population.species
    return ([(sid, sp.representative.key, list(sp.members), sp.created, sp.last_improved)
             for sid, sp in s.species.items()],
            sorted(s.genome_to_species.items()),
            [genome_to_dict(g) for g in population.population.values()])


# --- the rule ------------------------------------------------------------------------------------

SETTINGS = SimpleNamespace(target_species=8, threshold_step=0.1, threshold_min=0.3)


@pytest.mark.parametrize("species, founded, expected", [
    (3, 0, 1.9), (3, 2, 1.9), (7, 1, 1.9),     # too few: down a step
    (8, 0, 2.0), (8, 1, 2.0),                  # on target: stays
    (12, 1, 2.1), (9, 3, 2.1),                 # too many and still splitting: up a step
    (12, 0, 2.0),                              # too many, none new: raising would only wind it up
])
def test_the_threshold_steps_toward_the_target(species, founded, expected):
    assert next_threshold(SETTINGS, 2.0, species, founded, 8) == pytest.approx(expected)


def test_the_threshold_never_goes_below_its_floor():
    assert next_threshold(SETTINGS, 0.35, 1, 0, 8) == 0.3
    assert next_threshold(SETTINGS, 0.3, 1, 0, 8) == 0.3


def test_a_population_too_small_for_the_target_steers_toward_as_many_as_it_can(tmp_path):
    """8 species of at least 2 genomes do not fit in 10: neat-python would stop the run."""
    text = _species_lines(neat_config_text(4, 2, 150), compatibility_threshold=0.05, target_species=8)
    text = re.sub(r"^pop_size .*$", "pop_size = 10", text, flags=re.M)
    config = load_neat_config(text, tmp_path / "neat.cfg")
    check_neat_config(config)
    assert effective_target(config, config.species_set_config) == 5
    counts = [len(p.species.species) for p in _evolve_randomly(config, 6)]
    assert counts[0] == 5 and max(counts) == 5


def test_the_written_config_targets_8_species_for_150_genomes_and_fewer_for_fewer(tmp_path):
    assert [target_species(p) for p in (2, 10, 24, 50, 100, 150, 1000)] == [1, 1, 1, 3, 6, 8, 8]
    config = load_neat_config(neat_config_text(21, 6, 150), tmp_path / "neat.cfg")
    s = config.species_set_config
    assert (s.target_species, s.threshold_step, s.threshold_min) == (8, 0.1, 0.3)
    assert config.species_set_type is DefaultSpeciesSet
    assert DefaultSpeciesSet.__name__ == neat.DefaultSpeciesSet.__name__  # the section's name


def test_a_population_of_one_species_splits_toward_the_target(tmp_path):
    text = _species_lines(neat_config_text(4, 2, 60), compatibility_threshold=3.0, target_species=5,
                          threshold_step=0.2, threshold_min=0.3)
    config = load_neat_config(text, tmp_path / "neat.cfg")
    history = [(len(p.species.species), p.species.compatibility_threshold)
               for p in _evolve_randomly(config, 20)]
    counts, thresholds = zip(*history)
    assert counts[0] == 1 and thresholds[0] == pytest.approx(2.8)
    first = next(k for k, n in enumerate(counts) if n >= 5)  # it gets there...
    assert all(thresholds[k] < thresholds[k - 1] for k in range(1, first))  # ...going down
    assert max(counts) == 5 and counts[-1] >= 3  # ...and never past it
    assert config.species_set_config.compatibility_threshold == 3.0  # the config keeps its own


def test_a_threshold_that_would_found_too_many_species_goes_up(tmp_path):
    text = _species_lines(neat_config_text(4, 2, 60), compatibility_threshold=0.9, target_species=2,
                          threshold_step=0.2, threshold_min=0.3)
    config = load_neat_config(text, tmp_path / "neat.cfg")
    history = [(len(p.species.species), p.species.compatibility_threshold)
               for p in _evolve_randomly(config, 6)]
    assert history[0] == (2, pytest.approx(1.1))
    assert history[-1][1] > 1.1 and {n for n, _ in history} == {2}


def _check_species(species_set, population):
    """Every genome in exactly one species, as genome_to_species says; species ids 1, 2, ..."""
    members = [gid for s in species_set.species.values() for gid in s.members]
    assert sorted(members) == sorted(population)
    assert species_set.genome_to_species == {gid: sid for sid, s in species_set.species.items()
                                             for gid in s.members}
    assert all(s.representative.key in s.members for s in species_set.species.values())


def test_species_founded_beyond_the_target_are_merged_into_the_closest(tmp_path):
    """A threshold below every distance: neat would make each genome a species of its own."""
    text = _species_lines(neat_config_text(4, 2, 40), compatibility_threshold=0.05, target_species=3,
                          threshold_step=0.1, threshold_min=0.01)
    config = load_neat_config(text, tmp_path / "neat.cfg")
    population = next(_evolve_randomly(config, 0))
    species_set, genomes = population.species, population.population
    assert sorted(species_set.species) == [1, 2, 3]
    assert [s.representative.key for _, s in sorted(species_set.species.items())] == sorted(genomes)[:3]
    _check_species(species_set, genomes)
    reps = [(sid, s.representative) for sid, s in sorted(species_set.species.items())]
    for gid, genome in genomes.items():
        distances = [(rep.distance(genome, config.genome_config), sid) for sid, rep in reps]
        assert species_set.genome_to_species[gid] == min(distances)[1]
    assert next(species_set.indexer) == 4  # the ids the merged species took are given out again
    for later in list(_evolve_randomly(config, 5))[1:]:  # (and on, with those genomes breeding)
        assert len(later.species.species) == 3
        _check_species(later.species, later.population)


# --- configs without it: neat-python's species, bit for bit ------------------------------------

@pytest.mark.parametrize("threshold", [3.0, 1.0])
def test_a_config_without_a_target_speciates_exactly_as_neat_python(tmp_path, threshold):
    text = _old_config(threshold=threshold)
    ours = load_neat_config(text, tmp_path / "ours.cfg")
    (tmp_path / "neat.cfg").write_text(text)
    theirs = neat.Config(neat.DefaultGenome, neat.DefaultReproduction, neat.DefaultSpeciesSet,
                         neat.DefaultStagnation, str(tmp_path / "neat.cfg"))
    assert ours.species_set_type is not theirs.species_set_type
    a = [_snapshot(p) for p in _evolve_randomly(ours, 8)]
    random_after = random.getstate()
    b = [_snapshot(p) for p in _evolve_randomly(theirs, 8)]
    assert a == b and random.getstate() == random_after
    # with the run's distance scopes (speciation's distances a list at a time, on arrays)
    again = load_neat_config(text, tmp_path / "again.cfg")   # (a config's innovation numbers go on)
    assert [_snapshot(p) for p in _evolve_randomly(again, 8, scoped=True)] == b
    if threshold == 1.0:  # the comparison covered several species
        assert max(len(species) for species, _, _ in a) >= 3


def test_target_species_0_is_a_fixed_threshold(tmp_path):
    config = load_neat_config(_species_lines(_old_config(threshold=1.0), target_species=0),
                              tmp_path / "neat.cfg")
    assert {p.species.compatibility_threshold for p in _evolve_randomly(config, 4)} == {1.0}


def test_a_fixed_threshold_checkpoint_is_written_as_before(tmp_path):
    config = load_neat_config(_old_config(), tmp_path / "neat.cfg")
    population = next(_evolve_randomly(config, 0))
    assert "threshold" not in population_state(population)["species"]


# --- exact resume ---------------------------------------------------------------------------------

GENERATIONS = 8

# a threshold far from where it settles, moving in big steps: the species come and go
MOVING_CONFIG = _species_lines(neat_config_text(1, 1, 24, "recurrent"), compatibility_threshold=2.0,
                               target_species=4, threshold_step=0.25, threshold_min=0.3)


def _create(directory, generations):
    # (from the exact start: the species' course below is this run's)
    settings = tiny_settings(generations=generations, population=24, seconds=0.5, network="recurrent",
                             neat_config=MOVING_CONFIG, noise=0.0)
    return Run.create(directory, settings, design("walker").body)


def _threshold(directory) -> float:
    return json.loads((directory / "checkpoint.json").read_text())["species"]["threshold"]


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    directory = tmp_path_factory.mktemp("straight")
    run = _create(directory, GENERATIONS)
    best = run.evolve()
    return directory, run, best


def test_the_moving_run_moves_its_threshold_and_its_species(straight, tmp_path):
    """Down while there are too few species, then up when a speciation would found too many
    (and the species beyond the target are merged): every part of the rule is in the run."""
    species = [int(r["species"]) for r in read_stats(straight[0])]
    assert species[0] == 1 and max(species) == 4
    _create(tmp_path, 2).evolve()   # (down to 1.25 by then; up again to 1.5 at the third)
    assert 2.0 > _threshold(straight[0]) > _threshold(tmp_path)


@pytest.mark.parametrize("stop", [1, 3, 6])
def test_a_run_resumed_with_its_threshold_equals_the_straight_run(straight, tmp_path, stop):
    _create(tmp_path, stop).evolve()
    run = Run.open(tmp_path)
    run.set_generations(GENERATIONS)
    best = run.evolve()
    assert run_files(tmp_path) == run_files(straight[0])
    assert best.key == straight[2].key and best.fitness == straight[2].fitness


def test_the_threshold_round_trips_through_the_checkpoint(straight):
    directory, run = straight[:2]
    text = (directory / "checkpoint.json").read_text()
    population = restore_population(run.config, loads(text))
    assert population.species.compatibility_threshold == _threshold(directory)
    assert dumps(population_state(population)) == text


def test_a_checkpoint_without_a_threshold_starts_from_the_configs(straight):
    directory, run = straight[:2]
    state = json.loads((directory / "checkpoint.json").read_text())
    del state["species"]["threshold"]
    assert restore_population(run.config, state).species.compatibility_threshold == 2.0


@pytest.mark.parametrize("value", ["high", -0.5, True, None, [1.0], 1e400])
def test_a_damaged_threshold_in_a_checkpoint_gives_one_line(straight, tmp_path, value):
    _create(tmp_path, 1).evolve()
    path = tmp_path / "checkpoint.json"
    state = json.loads(path.read_text())
    state["species"]["threshold"] = value
    path.write_text(json.dumps(state))
    run = Run.open(tmp_path)
    run.set_generations(2)
    with pytest.raises((RunError, CheckpointError)) as info:
        run.evolve()
    text = str(info.value)
    assert "threshold" in text and "\n" not in text and str(path) in text


# --- hostile values -------------------------------------------------------------------------------

@pytest.mark.parametrize("key, value, message", [
    ("target_species", "-1", "target_species must be 0 (a fixed threshold) or more"),
    ("target_species", "eight", "target_species"),
    ("target_species", "2.5", "target_species"),
    ("target_species", "9" * 5000, "target_species"),
    ("threshold_step", "nan", "threshold_step must be a finite number"),
    ("threshold_step", "-0.1", "threshold_step must be a finite number, 0 or more"),
    ("threshold_step", "1e400", "threshold_step must be a finite number"),
    ("threshold_step", "fast", "threshold_step"),
    ("threshold_min", "-inf", "threshold_min must be a finite number"),
    ("threshold_min", "nan", "threshold_min must be a finite number"),
    ("compatibility_threshold", "nan", "compatibility_threshold must be a finite number"),
    ("compatibility_threshold", "-1", "compatibility_threshold must be a finite number, 0 or more"),
    ("target_specie", "8", "Unknown configuration item target_specie"),
])
def test_bad_species_settings_are_refused_with_one_line(tmp_path, key, value, message):
    path = tmp_path / "mine.cfg"
    path.write_text(_species_lines(neat_config_text(3, 2, 150), **{key: value}))
    with pytest.raises(NeatConfigError) as info:
        read_neat_config(path, population=150)
    text = str(info.value)
    assert message in text and "\n" not in text and text.startswith(str(path)) and len(text) < 400


def test_a_fixed_threshold_may_still_be_infinite(tmp_path):
    """(One species for ever: a fixed threshold is checked as neat-python checks it.)"""
    path = tmp_path / "mine.cfg"
    path.write_text(_old_config(threshold="inf"))
    read_neat_config(path, population=150)
