"""``creatures evolve DESIGN --grow``: a growing run is the same bit for bit on one worker or
two, resumes after kill -9 to the run that was never stopped, and its champion replays exactly;
bad growth options and designs that cannot grow are one-line refusals."""

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from test_resume_cmd import _files, _read_until

REPO = Path(__file__).parents[2]
GENERATIONS = 6
ARGS = ("evolve", "sprout", "--grow", "--generations", GENERATIONS, "--population", 24, "--seconds", 2,
        "--seed", 5)


def _run(run_creatures, out, *extra):
    return run_creatures(*ARGS, *extra, "--out", out, timeout=600)


@pytest.fixture(scope="module")
def straight(tmp_path_factory, run_creatures):
    out = tmp_path_factory.mktemp("grow") / "run"
    r = _run(run_creatures, out, "--workers", 2)
    assert r.returncode == 0, r.stderr
    return out


def test_a_growing_run_grows_bodies_and_records_their_sizes(straight):
    first = (straight / "settings.json").read_text()
    assert json.loads(first)["grow"] == {"graph": True, "plan_weight": 6.0}   # (a new run: the engine of graphs)
    sizes = [s for g in range(1, GENERATIONS + 1)
             for s in json.loads((straight / "best" / f"gen_{g:04d}.json").read_text())["population_sizes"]]
    assert max(s[0] for s in sizes) >= 3 and min(s[0] for s in sizes) == 2
    best = json.loads((straight / "best" / f"gen_{GENERATIONS:04d}.json").read_text())
    assert "plan" in best["genome"]["body"] and "wiring" in best["grown"]
    history = best["body_history"]   # the structures of its ancestry, the seed's first
    assert history[0][0] == 0 and len(history[0][1]["spheres"]) == 2
    assert len(history[-1][1]["spheres"]) == len(best["genome"]["body"]["plan"]["spheres"])


def test_one_worker_gives_the_two_workers_run_bit_for_bit(straight, tmp_path, run_creatures):
    r = _run(run_creatures, tmp_path / "run", "--workers", 1)
    assert r.returncode == 0, r.stderr
    one, two = _files(tmp_path / "run"), _files(straight)
    assert json.loads(one.pop("settings.json"))["workers"] == 1 and json.loads(two.pop("settings.json"))["workers"] == 2
    assert one == two


def test_a_killed_growing_run_resumes_to_the_straight_run(straight, tmp_path, run_creatures):
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "creatures", *map(str, ARGS), "--workers", "2", "--out", str(out)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    _read_until(proc, 3)
    import os
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=120)
    done = json.loads((out / "checkpoint.json").read_text())["generation"]
    assert 2 <= done <= GENERATIONS
    r = run_creatures("resume", out)
    assert r.returncode == 0, r.stderr
    assert _files(out) == _files(straight)


def test_the_champion_of_a_growing_run_replays_exactly(straight, tmp_path, run_creatures):
    champion = tmp_path / "champ.json"
    r = run_creatures("export", straight, "--out", champion)
    assert r.returncode == 0, r.stderr
    data = json.loads(champion.read_text())
    assert data["version"] == 7 and "grown" in data["creature"]   # (a run of the engine of graphs)
    r = run_creatures("replay", champion, "--starts", 3, "--noise", 1e-6)
    assert r.returncode == 0, r.stderr
    assert "(identical)" in r.stdout


@pytest.mark.parametrize("args, message", [
    (("walker", "--max-spheres", "9"), "--max-spheres is for --grow"),
    (("sprout", "--grow", "--max-spheres", "1"), "--max-spheres must be a whole number from 2 to 64, not 1"),
    (("sprout", "--grow", "--max-muscles", "0"), "--max-muscles must be a whole number from 1 to 64, not 0"),
    (("hopper", "--grow"), "rigid clusters cannot grow"),
    (("worm", "--grow", "--max-spheres", "8"), "more than a grown body may have"),
])
def test_bad_growth_is_a_one_line_refusal(tmp_path, run_creatures, args, message):
    r = run_creatures("evolve", *args, "--generations", 1, "--population", 4, "--seconds", 0.5,
                      "--out", tmp_path / "run")
    assert r.returncode == 2
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_a_growing_challenge_run_grows_within_the_challenges_rules(tmp_path, run_creatures):
    r = run_creatures("evolve", "sprout", "--grow", "--challenge", "sprint", "--generations", 2, "--population", 8,
                      "--workers", 1, "--out", tmp_path / "run")
    assert r.returncode == 0, r.stderr
    grow = json.loads((tmp_path / "run" / "settings.json").read_text())["grow"]
    assert grow == {"spheres": 8, "min_mass": 1.0, "mass": 12.0, "strength": 1200.0, "graph": True, "plan_weight": 6.0}
    assert "verified" in r.stdout


def test_a_brain_only_challenge_cannot_grow(tmp_path, run_creatures):
    r = run_creatures("evolve", "quadruped", "--grow", "--challenge", "hurdles", "--out", tmp_path / "run")
    assert r.returncode == 2 and "cannot --grow" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_design_with_flat_triangles_of_its_own_grows_and_its_champion_loads(tmp_path, run_creatures):
    """The walker's braced torso has triangles flatter than a grown body may make: they are its
    own, so it grows, and its champion is a champion like any other."""
    r = run_creatures("evolve", "walker", "--grow", "--generations", 2, "--population", 8, "--seconds", 1,
                      "--workers", 1, "--out", tmp_path / "run")
    assert r.returncode == 0, r.stderr
    r = run_creatures("export", tmp_path / "run", "--out", tmp_path / "champ.json", "--yaml", tmp_path / "champ.yaml")
    assert r.returncode == 0, r.stderr
    r = run_creatures("validate", tmp_path / "champ.yaml")
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_design_bigger_than_the_default_limits_grows_from_itself(tmp_path, run_creatures):
    r = run_creatures("evolve", "worm", "--grow", "--max-muscles", 6, "--generations", 1, "--population", 6,
                      "--seconds", 0.5, "--workers", 1, "--out", tmp_path / "run")
    assert r.returncode == 0, r.stderr
    grow = json.loads((tmp_path / "run" / "settings.json").read_text())["grow"]
    assert grow == {"muscles": 6, "spheres": 11, "graph": True, "plan_weight": 6.0}


def test_a_design_with_ranges_and_optional_parts_grows_and_keeps_them(tmp_path, run_creatures):
    """walker-evolving (knees and feet placed within ranges, foot sizes and muscle strengths
    ranged) and worm-evolving (two optional muscles) grow: the ranges bound what growth does to
    the seed's spheres, the strengths are genes the genome carries beside its plan, set on the
    grown body, and the champion replays exactly and charts its body genes."""
    r = run_creatures("evolve", "walker-evolving", "--grow", "--generations", 3, "--population", 24, "--seconds", 2,
                      "--workers", 2, "--out", tmp_path / "run")
    assert r.returncode == 0, r.stderr
    assert "6 body values, 10 sphere values within their ranges" in r.stdout
    best = json.loads((tmp_path / "run" / "best" / "gen_0003.json").read_text())
    assert len(best["genome"]["body"]["values"]) == 6 and best["grown"]["genes"]["genes"][0]["field"] == "strength"
    assert len(best["population_bodies"]) == 24
    r = run_creatures("export", tmp_path / "run", "--out", tmp_path / "champ.json", "--yaml", tmp_path / "champ.yaml")
    assert r.returncode == 0, r.stderr
    champion = json.loads((tmp_path / "champ.json").read_text())
    strengths = sorted(b["muscle"]["strength"] for b in champion["creature"]["body"]["bones"] if b["muscle"])
    values = best["genome"]["body"]["values"]
    assert all(80 <= s <= 300 for s in strengths) and set(strengths) <= set(values) | {150.0}
    r = run_creatures("replay", tmp_path / "champ.json")
    assert r.returncode == 0, r.stderr
    assert "(identical)" in r.stdout
    assert run_creatures("validate", tmp_path / "champ.yaml").returncode == 0
    r = run_creatures("plot", tmp_path / "run", "--out", tmp_path / "charts")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "charts" / "body.png").is_file() and (tmp_path / "charts" / "body_size.png").is_file()
    r = run_creatures("evolve", "worm-evolving", "--grow", "--generations", 1, "--population", 8, "--seconds", 1,
                      "--workers", 1, "--out", tmp_path / "worm")
    assert r.returncode == 0, r.stderr
