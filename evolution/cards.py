"""Share cards: a PNG that is a picture of a champion and the champion itself.

The champion's JSON (exactly what :func:`evolution.champion.save_champion` writes) rides in one
compressed text chunk (``zTXt``) with the keyword :data:`KEYWORD`, right after the PNG's header,
so any image viewer shows the picture and every command that reads a champion reads the card.

Both directions use the standard library (``struct``, ``zlib``), not Pillow: a card is read as a
list of chunks, never decoded as an image, so the reader does only what it must and bounds each
step itself: the file's size (:data:`MAX_CARD_BYTES`), every chunk's length against the bytes
that are there, every chunk's CRC, the picture's declared size (:data:`MAX_SIDE`), and the
champion's inflated size (the JSON limit of a champion file, inflated in one bounded call: a
decompression bomb stops at the limit). Pillow's own limits (``MAX_TEXT_CHUNK``) are for its
image decoder and would still decode the pixels; here the pixels are never touched. Anything
wrong is a :class:`CardError` with a one-line reason.
"""

from __future__ import annotations

import struct
import zlib

__all__ = ["CardError", "KEYWORD", "MAX_CARD_BYTES", "MAX_SIDE", "SIGNATURE", "card_bytes", "champion_text",
           "encode_png", "is_png"]

SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: the text chunk's keyword that marks the champion
KEYWORD = b"creatures-champion"
#: a card's largest file: the picture and the compressed champion together
MAX_CARD_BYTES = 16 * 1024 * 1024
#: the largest width or height a card's picture may declare (pixels)
MAX_SIDE = 4096
_TEXT = (b"tEXt", b"zTXt", b"iTXt")


class CardError(Exception):
    """A card that cannot be read, with a one-line reason."""


def is_png(head: bytes) -> bool:
    """Whether a file's first bytes are the PNG signature."""
    return head[:len(SIGNATURE)] == SIGNATURE


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def encode_png(rgb) -> bytes:
    """A PNG of the picture ``rgb`` (an ``(height, width, 3)`` array of uint8, top row first):
    8-bit RGB, every row unfiltered, compressed at zlib's level 9."""
    height, width = rgb.shape[0], rgb.shape[1]
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE) or rgb.shape[2:] != (3,) or rgb.dtype.itemsize != 1:
        raise ValueError(f"a card's picture is RGB bytes, at most {MAX_SIDE}x{MAX_SIDE} pixels")
    rows = b"".join(b"\0" + rgb[y].tobytes() for y in range(height))
    return (SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(rows, 9)) + _chunk(b"IEND", b""))


def card_bytes(png: bytes, champion_json: str) -> bytes:
    """The PNG ``png`` with the champion's JSON text put in after its header, compressed (one
    ``zTXt`` chunk); any champion chunk it had is left out (a card holds one)."""
    chunks = list(_chunks(png))
    head = chunks[0]
    out = [SIGNATURE, _chunk(head[0], head[1]),
           _chunk(b"zTXt", KEYWORD + b"\0\0" + zlib.compress(champion_json.encode("utf-8"), 9))]
    out += [_chunk(kind, body) for kind, body in chunks[1:] if not (kind in _TEXT and _keyword(body) == KEYWORD)]
    return b"".join(out) + _chunk(b"IEND", b"")


def _keyword(body: bytes) -> bytes:
    return body.split(b"\0", 1)[0]


def _chunks(data: bytes):
    """``(type, body)`` of each chunk of the PNG ``data`` up to ``IEND``, checked: the signature,
    each length against what is there, each CRC, an ``IHDR`` first and within :data:`MAX_SIDE`."""
    if not is_png(data):
        raise CardError("not a PNG (its first bytes are not the PNG signature)")
    pos = len(SIGNATURE)
    first = True
    while True:
        if pos + 8 > len(data):
            raise CardError(f"truncated: it ends at byte {len(data)} before the PNG's end chunk")
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if pos + 12 + length > len(data):
            raise CardError(f"truncated: a {kind.decode('latin-1')!r} chunk of {length} bytes at byte {pos} "
                            f"runs past the end ({len(data)} bytes)")
        body = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise CardError(f"corrupt: the {kind.decode('latin-1')!r} chunk at byte {pos} fails its checksum")
        if first:
            if kind != b"IHDR" or length != 13:
                raise CardError("corrupt: a PNG starts with its header chunk (IHDR)")
            width, height = struct.unpack(">II", body[:8])
            if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
                raise CardError(f"its picture is {width}x{height} pixels; a card's is at most {MAX_SIDE}x{MAX_SIDE}")
            first = False
        pos += 12 + length
        if kind == b"IEND":
            return
        yield kind, body


def _inflate(compressed: bytes, limit: int) -> bytes:
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(compressed, limit + 1)
    except zlib.error:
        raise CardError("corrupt: its champion's compressed text does not inflate") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise CardError(f"its champion inflates past {limit} bytes, the most a champion may be "
                        "(a decompression bomb?)")
    if not inflater.eof:
        raise CardError("truncated: its champion's compressed text stops short")
    return out


def _champion_bytes(kind: bytes, body: bytes, limit: int) -> bytes:
    """The text of a champion chunk (``tEXt``, ``zTXt`` or ``iTXt`` with :data:`KEYWORD`)."""
    rest = body[len(KEYWORD) + 1:]
    if kind == b"tEXt":
        text = rest
    elif kind == b"zTXt":
        if rest[:1] != b"\0":
            raise CardError("corrupt: its champion is compressed by an unknown method")
        text = _inflate(rest[1:], limit)
    else:   # iTXt: compression flag, method, language tag\0, translated keyword\0, text
        flag, method = rest[:1], rest[1:2]
        parts = rest[2:].split(b"\0", 2)
        if len(parts) < 3 or flag not in (b"\0", b"\1") or (flag == b"\1" and method != b"\0"):
            raise CardError("corrupt: its champion's text chunk is malformed")
        text = _inflate(parts[2], limit) if flag == b"\1" else parts[2]
    if len(text) > limit:
        raise CardError(f"its champion is {len(text)} bytes; a champion is at most {limit}")
    return text


def holds_champion(data: bytes) -> bool:
    """Whether the PNG ``data`` has a champion text chunk (a picture that is no card has none).
    Raises :class:`CardError` for a file that is not a sound PNG."""
    if len(data) > MAX_CARD_BYTES:
        raise CardError(f"it is {len(data)} bytes; a card is at most {MAX_CARD_BYTES}")
    return any(kind in _TEXT and _keyword(body) == KEYWORD for kind, body in _chunks(data))


def champion_text(data: bytes, limit: int) -> str:
    """The champion's JSON text held by the card ``data`` (the whole file), at most ``limit``
    bytes once inflated. Raises :class:`CardError`: not a PNG, truncated, corrupt, a picture
    too large, no champion, two champions, a champion too large or not UTF-8."""
    if len(data) > MAX_CARD_BYTES:
        raise CardError(f"it is {len(data)} bytes; a card is at most {MAX_CARD_BYTES}")
    found = [_champion_bytes(kind, body, limit) for kind, body in _chunks(data)
             if kind in _TEXT and _keyword(body) == KEYWORD]
    if not found:
        raise CardError("a PNG with no champion in it (no 'creatures-champion' text chunk): not a card")
    if len(found) > 1:
        raise CardError(f"{len(found)} champions in it; a card holds one")
    try:
        return found[0].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CardError(f"its champion is not text (byte {exc.start} is not UTF-8)") from None
