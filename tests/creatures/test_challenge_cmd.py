"""``creatures challenges``, ``creatures challenge verify/board`` and ``creatures evolve
--challenge``: the built-in challenges, entries verified or refused in one line each, a folder
ranked, and a run that ends with a verified entry."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from creatures.challenge import builtin_challenges, resolve_challenge
from evolution.cards import card_bytes, encode_png
from evolution.champion import load_champion

REPO = Path(__file__).resolve().parents[2]
SAVES = REPO / "saves"


@pytest.mark.parametrize("name, entries", [("sprint", ["walker-run", "walker-evolving-run"]),
                                           ("hurdles", ["quadruped-obstacle"]), ("swim", ["eel-swim", "fish-swim"])])
def test_each_built_in_challenge_verifies_the_shipped_champions_made_for_it(name, entries):
    challenge = resolve_challenge(name)
    for entry in entries:
        champion = load_champion(SAVES / f"{entry}.json")
        verdict = challenge.verify(champion)
        want = champion.rescore(challenge.starts, challenge.noise, challenge.seed)["mean"]
        assert verdict.verified and verdict.score == want, (entry, verdict)
    assert builtin_challenges() == ["sprint", "hurdles", "swim"]


def test_challenges_lists_the_built_in_ones_and_checks_files(run_creatures, tmp_path):
    r = run_creatures("challenges")
    assert r.returncode == 0, r.stderr
    heads = [line.split(":")[0] for line in r.stdout.splitlines() if not line.startswith(" ")]
    assert heads == ["sprint", "hurdles", "swim"]
    assert "sprint: run on flat, 20 s; at most 8 spheres, 1 to 12 kg, muscles of at most 1200 N together" in r.stdout
    r = run_creatures("challenges", "--json", "examples/hill_sprint.yaml")
    data = json.loads(r.stdout)
    assert data[0]["terrain"] == {"name": "hills", "seed": 3, "file": None} and "rays" in data[0]["sensors"]
    (tmp_path / "bad.yaml").write_text("name: x\ntask: run\nterrain: flat\nseconds: -1\n")
    r = run_creatures("challenges", tmp_path / "bad.yaml")
    assert r.returncode == 2 and r.stderr.strip() == f"{tmp_path / 'bad.yaml'}:4:10: 'seconds' must be more than 0 and at most 3600"


def _score(champion) -> float:
    """Its score in the sprint: its mean from the challenge's own starts."""
    c = resolve_challenge("sprint")
    return champion.rescore(c.starts, c.noise, c.seed)["mean"]


def _entry(tmp_path: Path, name: str, change=None, source: str = "walker-run") -> Path:
    doc = json.loads((SAVES / f"{source}.json").read_text())
    if change:
        change(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_verify_says_the_score_or_one_line_why_for_each_entry(run_creatures, tmp_path):
    """The bar: an entry that breaks a body rule, one scored on another terrain and one whose
    recorded fitness was edited are each refused in one line; exit status 1."""
    big = _entry(tmp_path, "big.json", lambda d: d["creature"]["body"]["bones"][7]["muscle"].update(strength=900.0))
    hills = _entry(tmp_path, "hills.json", lambda d: d["terrain"].update(name="hills", kind="hills", xs=[-10.0, 0.0, 10.0],
                                                                          ys=[0.0, 0.5, 0.0]))
    edited = _entry(tmp_path, "edited.json", lambda d: d["recorded"].update(fitness=99.5))
    r = run_creatures("challenge", "verify", "sprint", "saves/walker-run.json", big, hills, edited, "nowhere.json")
    assert r.returncode == 1 and r.stderr == ""
    lines = r.stdout.splitlines()
    assert lines[0].startswith("sprint: run on flat, 20 s; at most 8 spheres")
    walker = load_champion(SAVES / "walker-run.json")
    fitness, score = walker.fitness, _score(walker)
    assert lines[1] == (f"saves/walker-run.json: verified {score!r} (walker run gen {walker.generation}, "
                        f"champion {walker.hash().removeprefix('sha256:')[:12]})")
    assert lines[2] == f"{big}: refused: its muscles pull 1650 N together; the challenge allows at most 1200 N"
    assert lines[3] == f"{hills}: refused: it was scored on other ground (hills); the challenge's is flat made from seed 0"
    assert lines[4] == (f"{edited}: refused: its recorded fitness 99.5 is not what it scores ({fitness!r}): the file "
                        f"was edited, or scored by other software")
    assert lines[5].startswith("nowhere.json: refused: cannot read it") and len(lines) == 6
    r = run_creatures("challenge", "verify", "sprint", "saves/walker-run.json", "--json")
    assert r.returncode == 0
    data = json.loads(r.stdout)
    assert data["challenge"]["name"] == "sprint" and data["entries"][0]["score"] == score
    assert data["entries"][0]["verified"] and data["entries"][0]["hash"] == walker.hash()


def test_board_ranks_a_folder_verified_each_champion_once(run_creatures, tmp_path):
    folder = tmp_path / "entries"
    folder.mkdir()
    for name in ("walker-run", "walker-evolving-run", "eel-swim"):
        shutil.copy(SAVES / f"{name}.json", folder)
    png = encode_png(np.zeros((8, 8, 3), np.uint8))
    (folder / "walker-card.png").write_bytes(card_bytes(png, (SAVES / "walker-run.json").read_text()))
    (folder / "a-picture.png").write_bytes(png)
    _entry(folder, "edited.json", lambda d: d["recorded"].update(fitness=50.0))
    (folder / "notes.txt").write_text("not an entry")
    r = run_creatures("challenge", "board", "sprint", folder)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1] == f"2 verified of 5 entries in {folder} (and 1 pictures that are not cards)"
    assert lines[2].split() == ["rank", "score", "name", "author", "gen", "champion", "file"]
    scores = {n: _score(load_champion(SAVES / f"{n}.json")) for n in ("walker-run", "walker-evolving-run")}
    ranked = sorted(scores, key=scores.get, reverse=True)
    files = {"walker-run": "walker-card.png", "walker-evolving-run": "walker-evolving-run.json"}
    for rank, (line, n) in enumerate(zip(lines[3:5], ranked), start=1):
        assert line.split()[:2] == [str(rank), f"{scores[n]:.4f}"] and line.endswith(files[n]), line
    refused = lines[lines.index("refused:") + 1:]
    assert [line.split(":")[0].strip() for line in refused] == [str(folder / n) for n in ("edited.json", "eel-swim.json", "walker-run.json")]
    assert refused[2].endswith("the same champion as " + str(folder / "walker-card.png") + " (listed once)")
    r = run_creatures("challenge", "board", "sprint", folder, "--json")
    data = json.loads(r.stdout)
    assert [e["rank"] for e in data["ranked"]] == [1, 2] and len(data["refused"]) == 3
    r = run_creatures("challenge", "board", "sprint", tmp_path / "nowhere")
    assert r.returncode == 2 and r.stderr.strip().endswith("nowhere is not a folder")


def test_evolve_within_a_challenge_ends_with_a_verified_entry(run_creatures, tmp_path):
    out = tmp_path / "run"
    r = run_creatures("evolve", "walker", "--challenge", "sprint", "--generations", 2, "--population", 8,
                      "--workers", 1, "--out", out)
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith("evolving walker (") and "to run on flat ground: 2 generations of 8, 20 s each" in first
    entry = out / "entry.json"
    assert f"entry to sprint: {entry}, verified " in r.stdout
    champion = load_champion(entry)
    assert resolve_challenge("sprint").verify(champion).verified and champion.settings_hash is not None
    r = run_creatures("challenge", "verify", "sprint", entry)
    assert r.returncode == 0 and "verified" in r.stdout


@pytest.mark.parametrize("args, says", [
    (["spider", "--challenge", "sprint"], "spider breaks the rules of the challenge sprint: it has 11 spheres; "
                                          "the challenge allows at most 8"),
    (["walker", "--challenge", "sprint", "--task", "jump", "--seconds", "5"],
     "--challenge sprint sets the task, ground, seconds, medium and sensors; leave out --task, --seconds"),
    (["walker", "--challenge", "examples/hill_sprint.yaml"], "the ground of the challenge hill-sprint is hills made "
                                                             "from seed 3, and a run makes its ground from its own seed: "
                                                             "evolve with --seed 3"),
    (["walker", "--challenge", "sprnt"], "sprnt: no built-in challenge of that name and no such file (did you mean 'sprint'?)"),
])
def test_evolve_refuses_a_challenge_it_cannot_keep_in_one_line(run_creatures, tmp_path, args, says):
    r = run_creatures("evolve", *args, "--out", tmp_path / "run")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("creatures evolve: ") and says in r.stderr, r.stderr
    assert not (tmp_path / "run").exists()
