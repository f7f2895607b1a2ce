"""Share cards (evolution/cards.py): a PNG that shows a champion and holds it. Written and read
with the standard library; a card loads as its champion and replays exactly; what is not a card
is refused in one line (the hostile files themselves: tests/hostile/cards/, run through
``creatures replay`` by tests/creatures/test_hostile_inputs.py)."""

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from evolution.cards import (KEYWORD, MAX_SIDE, SIGNATURE, CardError, card_bytes, champion_text, encode_png,
                             is_png)
from evolution.champion import MAX_BYTES, ChampionError, champion_json, load_champion

REPO = Path(__file__).parents[2]
WALKER = REPO / "saves" / "walker-run.json"


def _picture(width=64, height=36):
    rgb = np.zeros((height, width, 3), np.uint8)
    rgb[..., 0] = np.arange(width, dtype=np.uint8)[None, :]
    rgb[..., 1] = np.arange(height, dtype=np.uint8)[:, None]
    rgb[..., 2] = 77
    return rgb


def test_a_png_of_a_picture_is_that_picture():
    rgb = _picture()
    png = encode_png(rgb)
    assert is_png(png)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(png)).convert("RGB")), rgb)
    with pytest.raises(ValueError):
        encode_png(np.zeros((2, MAX_SIDE + 1, 3), np.uint8))


def test_a_card_is_a_picture_and_its_champion(tmp_path):
    text = WALKER.read_text()
    card = card_bytes(encode_png(_picture()), text)
    image = Image.open(io.BytesIO(card))
    assert image.size == (64, 36) and image.info["creatures-champion"] == text    # any PNG reader sees both
    assert champion_text(card, MAX_BYTES) == text
    # written again over a card: still one champion, the new one
    name = load_champion(WALKER).name
    assert champion_text(card_bytes(card, text.replace(name, "renamed")), MAX_BYTES).count("renamed") == 1
    (tmp_path / "walker.png").write_bytes(card)
    champion = load_champion(tmp_path / "walker.png")
    original = load_champion(WALKER)
    assert champion_json(champion) == champion_json(original)
    assert champion.replay() == champion.fitness == original.fitness


def _with_chunk(png: bytes, kind: bytes, body: bytes) -> bytes:
    head = len(SIGNATURE) + 25
    chunk = struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return png[:head] + chunk + png[head:]


@pytest.mark.parametrize("kind, body, reason", [
    (b"tEXt", KEYWORD + b"\0{}", None),
    (b"iTXt", KEYWORD + b"\0\1\0en\0\0" + zlib.compress(b"{}"), None),
    (b"zTXt", KEYWORD + b"\0\1" + zlib.compress(b"{}"), "compressed by an unknown method"),
    (b"iTXt", KEYWORD + b"\0\7\0", "malformed"),
    (b"zTXt", KEYWORD + b"\0\0" + b"not zlib at all", "does not inflate"),
    (b"zTXt", KEYWORD + b"\0\0" + zlib.compress(b"x" * (MAX_BYTES + 1)), "inflates past"),
    (b"tEXt", KEYWORD + b"\0" + b"x" * (MAX_BYTES + 1), "a champion is at most"),
])
def test_every_kind_of_text_chunk_is_read_within_the_limits(kind, body, reason):
    card = _with_chunk(encode_png(_picture()), kind, body)
    if reason is None:
        assert champion_text(card, MAX_BYTES) == "{}"
        return
    with pytest.raises(CardError) as info:
        champion_text(card, MAX_BYTES)
    assert reason in str(info.value) and "\n" not in str(info.value)


def test_other_text_chunks_are_pictures_only():
    png = _with_chunk(encode_png(_picture()), b"tEXt", b"Comment\0made elsewhere")
    with pytest.raises(CardError, match="no champion"):
        champion_text(png, MAX_BYTES)
    assert champion_text(card_bytes(png, "{}"), MAX_BYTES) == "{}"


@pytest.mark.parametrize("name, says", [
    ("decompression_bomb.png", "inflates past 5000000 bytes"),
    ("truncated.png", "truncated"),
    ("checksum_wrong.png", "fails its checksum"),
    ("dimensions_100000.png", "100000x100000 pixels"),
    ("two_champions.png", "2 champions in it"),
    ("no_champion.png", "no champion in it"),
    ("not_a_png.png", "named .png but not a PNG"),
    ("champion_not_utf8.png", "not text"),
    ("champion_compressed_text_cut.png", "stops short"),
    ("champion_not_json.png", "not valid JSON"),
    ("no_end_chunk.png", "before the PNG's end chunk"),
])
def test_a_hostile_card_is_refused_in_one_line(name, says):
    with pytest.raises(ChampionError) as info:
        load_champion(REPO / "tests" / "hostile" / "cards" / name)
    assert says in str(info.value) and "\n" not in str(info.value)
