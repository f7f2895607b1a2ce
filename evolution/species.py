"""Speciation with a compatibility threshold that steers the number of species toward a target.

neat-python's ``DefaultSpeciesSet`` splits the population with a fixed compatibility threshold.
Which threshold gives a useful number of species depends on the genomes (their sizes, their
weights, the compatibility coefficients) and drifts as they evolve, so a fixed one is easily
wrong: the walker's genomes start 0.6-1.9 apart and grow to 0.8-2.8 apart over 30 generations,
so with the threshold 3.0 they stay one species for ever, and speciation no longer protects new
structure. NEAT implementations since Stanley's move the threshold instead, after each
speciation, toward a target number of species.

Settings, in the ``[DefaultSpeciesSet]`` section, all optional but ``compatibility_threshold``:

``compatibility_threshold``
    the threshold (with ``target_species``: the threshold the run starts from)
``target_species``
    the number of species to steer toward; 0 (the default) keeps the threshold fixed, exactly as
    neat-python's own ``DefaultSpeciesSet``. A population too small to breed that many species
    (each at least ``min_species_size`` and ``elitism`` genomes) steers toward as many as it can.
``threshold_step``
    how far the threshold moves after a speciation (default 0.1)
``threshold_min``
    the threshold never goes below this (default 0.3)

The rule, after each speciation of a new generation into ``n`` species (as neat-python's
speciation makes them): if ``n`` is below the target, the threshold goes down by a step (not
below ``threshold_min``); if ``n`` is above it and a new species was founded in this speciation,
it goes up by a step; otherwise it stays.

And new species never take the count above the target: when a speciation founds more than
there is room for, the last ones founded are undone and their genomes join the species whose
representative is closest. Without this the count overshoots and stays there. In neat-python a
species lives until stagnation removes it (every species left keeps its closest genome and is
bred at least ``min_species_size`` genomes), so a higher threshold cannot merge species: it only
founds fewer new ones. And genomes' distances bunch up (each is a mean over ~150 genes), so a
threshold a little past the bunch founds many species at once: measured on the walker (target
8, no stop), the count climbed from 1 to 9-17 species within 2-5 generations of the first split,
and there were more than 10 species in 29-52 of 100 generations in four runs of five, until
stagnation removed them (20 generations without improvement by default); the runs evolved worse
than with one species (docs/evolution-results.md, "How well it evolves").
For the same reason the threshold rises only in a speciation that founded a species: raising it
while none is being founded would only wind it up, a step every generation until stagnation
catches up, and then keep the population to too few species for as long again.

The current threshold is part of the run's state: :mod:`evolution.checkpoint` saves it and
restores it, so a resumed run goes on exactly as the uninterrupted one.
"""

from __future__ import annotations

import copy
import math
from itertools import count

import neat
from neat.config import ConfigParameter, DefaultClassConfig
from neat.math_util import mean, stdev
from neat.species import Species

from .breeding import distances_among

__all__ = ["DefaultSpeciesSet", "DYNAMIC_KEYS", "effective_target", "next_threshold", "check_settings"]

#: the settings this module adds to neat-python's ``[DefaultSpeciesSet]``, with their defaults
DYNAMIC_KEYS = {"target_species": 0, "threshold_step": 0.1, "threshold_min": 0.3}


class DefaultSpeciesSet(neat.DefaultSpeciesSet):
    """neat-python's ``DefaultSpeciesSet`` with an optional dynamic compatibility threshold.

    It has neat-python's class name on purpose: ``neat.Config`` reads a species set's settings
    from the section named after its class, so every neat config, the ones runs already hold
    and the ones users bring, keeps its ``[DefaultSpeciesSet]`` section and reads as before.
    Without ``target_species`` (or with 0) it is neat-python's class, unchanged: the same
    threshold, the same species, bit for bit. With it, the threshold it speciates with is its
    own (:attr:`compatibility_threshold`, starting at the config's: the config stays as read),
    moved after each speciation, and new species stop at the target (the module's docstring).
    """

    @classmethod
    def parse_config(cls, param_dict):
        return DefaultClassConfig(param_dict,
                                  [ConfigParameter("compatibility_threshold", float),
                                   ConfigParameter("target_species", int, DYNAMIC_KEYS["target_species"]),
                                   ConfigParameter("threshold_step", float, DYNAMIC_KEYS["threshold_step"]),
                                   ConfigParameter("threshold_min", float, DYNAMIC_KEYS["threshold_min"])],
                                  "DefaultSpeciesSet")

    def __init__(self, config, reporters):
        super().__init__(config, reporters)
        # neat's speciate reads the threshold from its config: give this species set a copy of
        # its own to move, so that the config (shared by the run, and read again on resuming)
        # keeps the threshold to start from
        self.species_set_config = copy.copy(config)

    @property
    def dynamic(self) -> bool:
        """Whether the threshold steers toward a number of species."""
        return getattr(self.species_set_config, "target_species", 0) > 0

    @property
    def compatibility_threshold(self) -> float:
        """The threshold the next speciation uses."""
        return self.species_set_config.compatibility_threshold

    @compatibility_threshold.setter
    def compatibility_threshold(self, value: float) -> None:
        self.species_set_config.compatibility_threshold = float(value)

    def speciate(self, config, population, generation):
        if not self.dynamic:
            return self._speciate(config, population, generation)
        before = set(self.species)
        self._speciate(config, population, generation)
        founded = sorted(set(self.species) - before)  # in the order they were founded
        settings = self.species_set_config
        target = effective_target(config, settings)
        self.compatibility_threshold = next_threshold(settings, self.compatibility_threshold,
                                                      len(self.species), len(founded), target)
        room = max(0, target - len(before))
        if len(founded) > room:
            self._merge(config, population, founded[room:])
        return None

    def _speciate(self, config, population, generation) -> None:
        """neat-python 2.0's ``DefaultSpeciesSet.speciate`` as written there, its distances taken a
        list at a time (:func:`evolution.breeding.distances_among`: one kernel call for a
        representative against every genome, or a genome against every representative, instead
        of one a pair) through a cache that is its ``GenomeDistanceCache``, filled in the same
        order: the same species, representatives, members and report, bit for bit."""
        assert isinstance(population, dict)
        compatibility_threshold = self.species_set_config.compatibility_threshold
        unspeciated = list(sorted(population.keys()))
        batch = distances_among([s.representative for s in self.species.values()] + list(population.values()),
                                config.genome_config)
        cache = {}

        def distances(pairs):   # GenomeDistanceCache's, a list of pairs with different keys at a time
            found = [cache.get((g0.key, g1.key)) for g0, g1 in pairs]
            missing = [k for k, d in enumerate(found) if d is None]
            for k, d in zip(missing, batch([pairs[k] for k in missing]) if missing else ()):
                g0, g1 = pairs[k]
                found[k] = cache[g0.key, g1.key] = d
                cache[g1.key, g0.key] = d
            return found

        new_representatives = {}
        new_members = {}
        for sid in sorted(self.species.keys()):
            s = self.species[sid]
            genomes = [population[gid] for gid in unspeciated]
            candidates = list(zip(distances([(s.representative, g) for g in genomes]), genomes))
            ignored_rdist, new_rep = min(candidates, key=lambda x: x[0])
            new_rid = new_rep.key
            new_representatives[sid] = new_rid
            new_members[sid] = [new_rid]
            unspeciated.remove(new_rid)

        while unspeciated:
            gid = unspeciated.pop(0)
            g = population[gid]
            sids = list(new_representatives)
            found = distances([(population[new_representatives[sid]], g) for sid in sids])
            candidates = [(d, sid) for d, sid in zip(found, sids) if d < compatibility_threshold]
            if candidates:
                ignored_sdist, sid = min(candidates, key=lambda x: x[0])
                new_members[sid].append(gid)
            else:
                sid = next(self.indexer)
                new_representatives[sid] = gid
                new_members[sid] = [gid]

        self.genome_to_species = {}
        for sid in sorted(new_representatives.keys()):
            rid = new_representatives[sid]
            s = self.species.get(sid)
            if s is None:
                s = Species(sid, generation)
                self.species[sid] = s
            members = new_members[sid]
            for gid in members:
                self.genome_to_species[gid] = sid
            member_dict = {gid: population[gid] for gid in members}
            s.update(population[rid], member_dict)

        if len(population) > 1:
            gdmean = mean(cache.values())
            gdstdev = stdev(cache.values())
            self.reporters.info(f"Mean genetic distance {gdmean:.3f}, standard deviation {gdstdev:.3f}")

    def _merge(self, config, population, dropped: list) -> None:
        """Undo the founding of the species ``dropped`` (the last ones founded): each of their
        genomes joins the species whose representative is closest to it (the lower id on a tie),
        and the species ids they took are given out again."""
        gone = set(dropped)
        kept = [(sid, self.species[sid]) for sid in sorted(self.species) if sid not in gone]
        moved = sorted(gid for sid in dropped for gid in self.species.pop(sid).members)
        genome_config = config.genome_config
        for gid in moved:
            genome = population[gid]
            _, sid, s = min(((s.representative.distance(genome, genome_config), sid, s)
                             for sid, s in kept), key=lambda c: c[:2])
            s.members[gid] = genome
            self.genome_to_species[gid] = sid
        self.indexer = count(min(dropped))


def effective_target(config, settings) -> int:
    """The number of species to steer toward: ``target_species``, or fewer if the population
    cannot breed that many (neat-python breeds every species at least ``min_species_size`` and
    ``elitism`` genomes, and stops the run if it cannot): a config written for a larger
    population still works with a smaller one. ``config``: the whole neat config; ``settings``:
    its ``[DefaultSpeciesSet]``."""
    repro = config.reproduction_config
    smallest = max(getattr(repro, "min_species_size", 1), getattr(repro, "elitism", 0), 1)
    return max(1, min(settings.target_species, config.pop_size // smallest))


def next_threshold(settings, threshold: float, species: int, founded: int, target: int) -> float:
    """The threshold after a speciation that left ``species`` species, ``founded`` of them new,
    steering toward ``target`` (the rule in the module's docstring); ``settings``: the
    ``[DefaultSpeciesSet]`` config (its step and floor)."""
    if species < target:
        return max(settings.threshold_min, threshold - settings.threshold_step)
    if species > target and founded:
        return threshold + settings.threshold_step
    return threshold


def check_settings(settings) -> str | None:
    """What is wrong with a ``[DefaultSpeciesSet]`` config's dynamic-threshold settings, in a
    few words (None if nothing): the target not negative; the step and the floor finite and
    not negative, and with a target the threshold too. (A target larger than the population can
    breed is not wrong: :func:`effective_target` lowers it.)"""
    target = getattr(settings, "target_species", 0)
    if target < 0:
        return f"target_species must be 0 (a fixed threshold) or more, not {target}"
    threshold = settings.compatibility_threshold
    if target and not (math.isfinite(threshold) and threshold >= 0):  # (a fixed one may be inf)
        return f"compatibility_threshold must be a finite number, 0 or more, with target_species, not {threshold}"
    for key in ("threshold_step", "threshold_min"):
        value = getattr(settings, key, DYNAMIC_KEYS[key])
        if not (math.isfinite(value) and value >= 0):
            return f"{key} must be a finite number, 0 or more, not {value}"
    return None
