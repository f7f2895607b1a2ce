"""A share card's picture: the creature mid-stride, what it is and did, and a strip of its motion.

:func:`card_picture` steps nothing itself: it is handed the source's frames as pictures
(:class:`~render.Snapshot` takes them) and lays them out with the card's words::

    +--------------------------------------------------------------+
    | walker run gen 40                                      32.72 |  title, and the fitness
    | walker . run on flat . 20 s          metres travelled right |  what it is, what it measures
    |                                                              |
    |                 the creature, mid-stride                     |
    |                                                              |
    | [0 s] [4 s] [8 s] [12 s] [16 s] [20 s]                       |  its motion
    | generation 40 . by Ada . champion 899759c68f85 . design ...  |  where it came from
    +--------------------------------------------------------------+

The words are drawn in DejaVu Sans, the font matplotlib ships (so a card looks the same on every
machine), or Pillow's own when it is missing. :func:`draw_card` takes the snapshots and lays
them out in one call.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["CardText", "card_picture", "draw_card", "strip_steps", "layout"]

BACK = (24, 28, 36)
TITLE = (244, 246, 250)
DIM = (168, 176, 190)
SCORE = (250, 196, 92)
FRAME_EDGE = (64, 72, 88)


@dataclass(frozen=True)
class CardText:
    """The words on a card.

    ``title``: its name; ``subtitle``: what it is (design, task, ground, seconds); ``score``:
    its fitness as a number; ``measures``: what that number measures; ``facts``: short texts
    for the bottom line (generation, author, hashes), joined with dots and wrapped."""

    title: str
    subtitle: str
    score: str
    measures: str
    facts: tuple = field(default_factory=tuple)


def strip_steps(total_steps: int, frames: int) -> list[int]:
    """The steps of the motion strip: ``frames`` moments evenly spread over the episode, its
    first and its last included."""
    if frames < 2:
        return [0]
    return [round(i * total_steps / (frames - 1)) for i in range(frames)]


def layout(size) -> dict:
    """The card's regions ``(left, top, width, height)`` in pixels, top-left origin: ``head``,
    ``picture``, ``strip`` (the row of motion frames), ``foot``; and ``frames``: how many fit."""
    w, h = size
    head = max(36, round(h * 0.15))
    foot = max(22, round(h * 0.1))
    strip = max(30, round(h * 0.19))
    frames = max(2, min(8, w // max(1, round(strip * 16 / 9))))
    picture = h - head - foot - strip
    if picture < 16:
        raise ValueError(f"a card of {w}x{h} pixels is too small for its words and pictures; "
                         f"at least {w}x{h - picture + 16}")
    return {"head": (0, 0, w, head), "picture": (0, head, w, picture),
            "strip": (0, head + picture, w, strip), "foot": (0, h - foot, w, foot), "frames": frames}


def _font_file(bold: bool) -> str | None:
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    return str(path) if path.is_file() else None


def _font(px: int, bold: bool = False):
    from PIL import ImageFont
    path = _font_file(bold)
    size = max(6, int(px))
    return ImageFont.truetype(path, size) if path else ImageFont.load_default(size)


def _fit(draw, text: str, font, width: float) -> str:
    """``text`` cut (with an ellipsis) to ``width`` pixels."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _fit_sentence(draw, text: str, font, width: float, most: float) -> str:
    """A sentence in ``width`` pixels, whole if it can be: it may take up to ``most`` pixels
    (what is beside it is cut instead), then loses its asides in brackets ("the highest step
    stood on in metres (plus 1 % of the distance)"); only then is it cut, with an ellipsis."""
    import re
    for candidate in (text, re.sub(r"\s*\([^()]*\)", "", text).strip()):
        if draw.textlength(candidate, font=font) <= most:
            return candidate
    return _fit(draw, text, font, width)


def _wrap(draw, parts, font, width: float, lines: int) -> list[str]:
    """``parts`` joined with `` · `` into at most ``lines`` lines of ``width`` pixels."""
    out, line = [], ""
    for part in parts:
        candidate = f"{line} · {part}" if line else part
        if draw.textlength(candidate, font=font) <= width or not line:
            line = candidate
        else:
            out.append(line)
            line = part
    out.append(line)
    if len(out) > lines:
        out = out[:lines - 1] + [" · ".join(out[lines - 1:])]
    return [_fit(draw, s, font, width) for s in out]


def card_picture(size, picture: np.ndarray, strip: list, text: CardText, strip_labels=()) -> np.ndarray:
    """The card of ``size`` (W, H): ``picture`` (the creature: bytes of the shape of the
    ``picture`` region of :func:`layout`, (H', W, 3)) and the motion ``strip`` (pictures of
    one size, each labelled with ``strip_labels``) laid out with ``text``. (H, W, 3) uint8,
    top row first."""
    from PIL import Image, ImageDraw
    w, h = size
    regions = layout(size)
    _, top, _, ph = regions["picture"]
    if picture.shape[:2] != (ph, w):
        raise ValueError(f"a {w}x{h} card's picture is {w}x{ph} pixels, not {picture.shape[1]}x{picture.shape[0]}")
    card = Image.new("RGB", (w, h), BACK)
    draw = ImageDraw.Draw(card)
    card.paste(Image.fromarray(np.ascontiguousarray(picture)), (0, top))
    _head(draw, regions["head"], text)
    _strip(card, draw, regions["strip"], strip, strip_labels)
    _foot(draw, regions["foot"], text)
    return np.asarray(card, dtype=np.uint8).copy()


def _head(draw, region, text: CardText) -> None:
    left, top, w, h = region
    pad = max(6, round(h * 0.14))
    big, small = _font(h * 0.36, bold=True), _font(h * 0.22)
    score_w = draw.textlength(text.score, font=big)
    measures = _fit_sentence(draw, text.measures, small, w * 0.45, w * 0.6)
    right_w = max(score_w, draw.textlength(measures, font=small))
    room = w - 3 * pad - right_w
    draw.text((left + pad, top + pad), _fit(draw, text.title, big, room), font=big, fill=TITLE)
    draw.text((left + pad, top + h - pad), _fit(draw, text.subtitle, small, room), font=small, fill=DIM,
              anchor="ls")
    draw.text((left + w - pad, top + pad), text.score, font=big, fill=SCORE, anchor="ra")
    draw.text((left + w - pad, top + h - pad), measures, font=small, fill=DIM, anchor="rs")


def _strip(card, draw, region, frames, labels) -> None:
    """The motion frames side by side, each with its label under it."""
    from PIL import Image
    left, top, w, h = region
    if not frames:
        return
    gap = _gap(h)
    fh, fw = frames[0].shape[:2]
    total = len(frames) * fw + (len(frames) - 1) * gap
    x = left + (w - total) // 2
    font = _font(_label_height(h) * 0.85)
    for k, rgb in enumerate(frames):
        y = top + gap
        card.paste(Image.fromarray(np.ascontiguousarray(rgb)), (x, y))
        draw.rectangle((x - 1, y - 1, x + fw, y + fh), outline=FRAME_EDGE)
        if k < len(labels) and labels[k]:
            draw.text((x + fw / 2, y + fh + 2), _fit(draw, labels[k], font, fw + gap), font=font, fill=DIM,
                      anchor="ma")
        x += fw + gap


def _gap(h: int) -> int:
    return max(2, round(h * 0.06))


def _label_height(h: int) -> int:
    return max(8, round(h * 0.2))


def _foot(draw, region, text: CardText) -> None:
    """The facts on one line, or on two in smaller letters when one is not enough."""
    left, top, w, h = region
    if not text.facts:
        return
    pad = max(6, round(h * 0.3))
    font = _font(h * 0.4)
    lines = _wrap(draw, text.facts, font, w - 2 * pad, 1)
    if lines[0].endswith("…"):
        font = _font(h * 0.3)
        lines = _wrap(draw, text.facts, font, w - 2 * pad, 2)
    for k, line in enumerate(lines):
        draw.text((left + pad, top + h * (k + 1) / (len(lines) + 1)), line, font=font, fill=DIM, anchor="lm")


def strip_frame_size(size) -> tuple[int, int]:
    """The pixel size of one frame of the motion strip on a card of ``size``."""
    regions = layout(size)
    _, _, w, h = regions["strip"]
    n = regions["frames"]
    gap = _gap(h)
    fh = h - 2 * gap - _label_height(h)
    fw = min((w - (n + 1) * gap) // n, round(fh * 16 / 9))
    return max(16, fw), max(16, fh)


def _extent(frame) -> float:
    """The size of the leading creature (m): the larger side of the box around its spheres."""
    pos = np.asarray(frame.creatures[frame.leader].pos, dtype=np.float64)
    pos = pos[np.isfinite(pos).all(axis=1)]
    return float((pos.max(axis=0) - pos.min(axis=0)).max()) if len(pos) else 1.0


def draw_card(source, text: CardText, size=(800, 450), at_step: int = 0, total_steps: int = 0,
              labels=None, **options) -> np.ndarray:
    """Step ``source`` from its start (``reset()``) through ``total_steps``, picturing it at
    ``at_step`` (the card's picture) and at :func:`strip_steps` (its motion strip, each frame
    labelled with ``labels(step, frame)``: the time, the fitness so far...), and lay the card
    out (:func:`card_picture`).
    ``options`` go to the viewer (see :class:`~render.Snapshot`)."""
    from .offscreen import check_size
    from .snapshot import Snapshot
    size = check_size(size)
    regions = layout(size)
    picture_size = (size[0], regions["picture"][3])
    steps = strip_steps(total_steps, regions["frames"])
    wanted = sorted(set(steps) | {at_step})
    pictures, strip, names = {}, [], []
    source.reset()
    extent = _extent(source.frame())
    frame_size = strip_frame_size(size)
    options.setdefault("hud", False)
    with Snapshot(source, size=picture_size, zoom=picture_size[1] / max(2.0, 2.6 * extent), **options) as big, \
            Snapshot(source, size=frame_size, zoom=frame_size[1] / max(1.0, 1.4 * extent), **options) as small:
        done = 0
        for step in wanted:
            while done < step:
                source.step()
                done += 1
            if step == at_step:
                pictures["main"] = big.take()
            if step in steps:
                strip.append(small.take())
                names.append(labels(step, source.frame()) if labels else "")
    return card_picture(size, pictures["main"], strip, text, names)
