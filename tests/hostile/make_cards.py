"""Make tests/hostile/cards/: small PNG files built to break the card reader (evolution/cards.py).
Run it again if the card format changes: ``python tests/hostile/make_cards.py``."""

import pathlib
import struct
import sys
import zlib

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from evolution.cards import KEYWORD, SIGNATURE, _chunk, card_bytes, encode_png  # noqa: E402

OUT = REPO / "tests" / "hostile" / "cards"


def text_chunk(payload: bytes, kind: bytes = b"zTXt") -> bytes:
    """A champion text chunk of ``kind`` holding ``payload`` (already compressed for zTXt)."""
    return _chunk(kind, KEYWORD + b"\0" + (b"\0" if kind == b"zTXt" else b"") + payload)


def main() -> None:
    champion = (REPO / "saves" / "walker-run.json").read_text()
    picture = encode_png(np.full((36, 64, 3), 200, np.uint8))
    card = card_bytes(picture, champion)
    head = len(SIGNATURE) + 12 + 13          # the signature and the header chunk
    files = {
        "decompression_bomb.png": picture[:head] + text_chunk(zlib.compress(b" " * 64_000_000, 9)) + picture[head:],
        "truncated.png": card[:len(card) * 3 // 5],
        "checksum_wrong.png": card[:head + 40] + bytes([card[head + 40] ^ 0xFF]) + card[head + 41:],
        "dimensions_100000.png": (SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0))
                                  + card[head:]),
        "two_champions.png": card[:head] + text_chunk(zlib.compress(champion.encode(), 9)) + card[head:],
        "no_champion.png": picture,
        "not_a_png.png": b"GIF89a this is no PNG, whatever its name says\n",
        "champion_not_utf8.png": picture[:head] + text_chunk(zlib.compress(b"\xff\xfe{" * 100, 9)) + picture[head:],
        "champion_compressed_text_cut.png": (picture[:head] + text_chunk(zlib.compress(champion.encode(), 9)[:500])
                                             + picture[head:]),
        "champion_not_json.png": (picture[:head] + text_chunk(b"print('a card never runs code')", b"tEXt")
                                  + picture[head:]),
        "no_end_chunk.png": card[:-12],
    }
    for name, data in files.items():
        (OUT / name).write_bytes(data)


if __name__ == "__main__":
    main()
