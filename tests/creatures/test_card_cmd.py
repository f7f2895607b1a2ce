"""``creatures card``: a PNG that shows a champion and holds it; every command that reads a
champion reads it (replay, watch's and record's sources, export's champion files)."""

import json
from pathlib import Path

import numpy as np
from PIL import Image

from evolution.champion import load_champion

REPO = Path(__file__).resolve().parents[2]


def test_a_card_of_a_shipped_champion_replays_exactly(run_creatures, tmp_path):
    out = tmp_path / "walker.png"
    r = run_creatures("card", "saves/walker-run.json", "--out", out)
    assert r.returncode == 0, r.stderr
    generation = load_champion(REPO / "saves/walker-run.json").generation
    assert r.stdout.startswith(f"{out}: a card of walker run gen {generation}") and "pictured at 10 s" in r.stdout
    picture = np.asarray(Image.open(out).convert("RGB"))
    assert picture.shape == (450, 800, 3) and len(np.unique(picture.reshape(-1, 3), axis=0)) > 20   # a picture
    r = run_creatures("replay", out)
    assert r.returncode == 0, r.stderr
    assert "(identical)" in r.stdout
    # a card of a card, by a shipped name, at another moment and size
    again = tmp_path / "again.png"
    r = run_creatures("card", out, "--out", again, "--at", "3", "--size", "320x180")
    assert r.returncode == 0, r.stderr
    assert Image.open(again).size == (320, 180)
    assert load_champion(again).fitness == load_champion(out).fitness
    r = run_creatures("card", "walker-run", "--out", tmp_path / "named.png", "--at", "0")
    assert r.returncode == 0, r.stderr


def test_a_card_is_refused_in_one_line_where_it_cannot_be_made(run_creatures, tmp_path):
    for args, says in ((["saves/walker-run.json", "--out", tmp_path / "x.gif"], "--out must end in .png"),
                       (["saves/walker-run.json", "--out", tmp_path / "x.png", "--at", "25"], "--at must be within"),
                       (["nowhere.json", "--out", tmp_path / "x.png"], "nowhere.json"),
                       (["saves/walker-run.json", "--out", tmp_path / "no" / "x.png"], "cannot write")):
        r = run_creatures("card", *args)
        assert r.returncode == 2 and r.stdout == "", r.stdout
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("creatures card: ") and says in lines[0], r.stderr
    assert not (tmp_path / "x.png").exists()


def test_a_card_names_its_author_and_replay_shows_the_lineage(run_creatures, tmp_path):
    out = tmp_path / "eel.png"
    r = run_creatures("card", "eel-swim", "--out", out, "--author", "Ada L.", "--size", "480x270")
    assert r.returncode == 0, r.stderr
    champion = load_champion(out)
    assert champion.author == "Ada L." and champion.hash() == load_champion("saves/eel-swim.json").hash()
    r = run_creatures("replay", out)
    assert r.returncode == 0, r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith(f"  champion {champion.hash()[7:19]} by Ada L., generation {champion.generation}; design "
                           f"{champion.design_hash[7:19]}, run seed {champion.seed}"), last
    r = run_creatures("replay", out, "--json")
    data = json.loads(r.stdout)
    assert data["author"] == "Ada L." and data["hash"] == champion.hash()
    assert data["lineage"] == {"design": champion.design_hash, "seed": champion.seed, "settings": champion.settings_hash,
                               "parent": None}
    r = run_creatures("card", "eel-swim", "--out", tmp_path / "x.png", "--author", "A" * 61)
    assert r.returncode == 2 and "--author is 61 characters long; at most 60" in r.stderr


def test_export_takes_the_champion_file_out_of_a_card(run_creatures, tmp_path):
    from evolution.cards import champion_text
    out = tmp_path / "walker.json"
    r = run_creatures("export", "saves/walker-runner.png", "--out", out)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == champion_text((REPO / "saves" / "walker-runner.png").read_bytes(), 5_000_000)
    r = run_creatures("export", "saves/walker-runner.png", "--generation", 3, "--out", tmp_path / "x.json")
    assert r.returncode == 2 and "--generation is for a run directory" in r.stderr
    r = run_creatures("export", "saves/play-hall.png", "--out", tmp_path / "x.json")
    assert r.returncode == 2 and r.stderr.strip() == ("creatures export: saves/play-hall.png: a card that cannot be "
                                                      "read: a PNG with no champion in it (no 'creatures-champion' "
                                                      "text chunk): not a card")
    assert not (tmp_path / "x.json").exists()
