"""Share cards of champions: what ``creatures card`` and the play window's "save as card" write.

A card is a PNG (``render.card`` lays it out: the creature mid-stride, its name, what it is, its
fitness and what that measures, its generation, author and lineage, and a strip of its motion)
holding the champion file in a compressed text chunk (``evolution.cards``)."""

from __future__ import annotations

import math

import physics
from evolution.champion import Champion
from evolution.lineage import short

__all__ = ["card_text", "score_text", "make_card"]


def score_text(fitness: float) -> str:
    """A fitness as a card writes it: two decimals, or four significant digits when large."""
    if not math.isfinite(fitness):
        return str(fitness)
    return f"{fitness:.2f}" if abs(fitness) < 1e5 else f"{fitness:.4g}"


def card_text(champion: Champion, trial: int = 0):
    """The words on ``champion``'s card (a ``render.card.CardText``), pictured in its trial
    ``trial`` (from 0)."""
    from render.card import CardText
    where = f"on {champion.terrain.kind}" if champion.sim.ground else "with no ground"
    if champion.sim.fluid_density > 0:
        where += f" in {physics.medium_name(champion.sim)}"
    subtitle = f"{champion.body.name or 'creature'} · {champion.task.short} {where} · {champion.seconds:g} s"
    facts = [f"generation {champion.generation}"]
    if champion.post is not None:
        post = champion.post.summary
        facts.append(f"{len(champion.post.seeds)} fresh starts {score_text(post['mean'])} (worst {score_text(post['worst'])})")
    if champion.trial_label(trial):
        facts.append(f"shown: {champion.trial_label(trial)}")
    if champion.author:
        facts.append(f"by {champion.author}")
    facts += [f"champion {short(champion.hash())}", f"design {short(champion.design_hash)}",
              f"seed {champion.seed}"]
    if champion.settings_hash:
        facts.append(f"settings {short(champion.settings_hash)}")
        facts.append(f"from {short(champion.parent)}" if champion.parent else "from scratch")
    return CardText(title=champion.name or champion.body.name or "champion", subtitle=subtitle,
                    score=score_text(champion.fitness), measures=champion.measures, facts=tuple(facts))


def make_card(champion: Champion, source, size=(800, 450), at: float | None = None) -> bytes:
    """The card's bytes: ``source`` (the champion's, from ``creatures.sources``) pictured at
    ``at`` seconds (default: halfway) and along its episode, with the champion inside. Draws
    offscreen, on the open window if there is one (``render.Snapshot``)."""
    from evolution.cards import card_bytes, encode_png
    from evolution.champion import champion_json
    from render.card import draw_card
    dt = source.scene.dt
    total = int(round(champion.seconds / dt))
    at_step = min(total, int(round((champion.seconds / 2 if at is None else at) / dt)))
    digits = 0 if champion.seconds >= 10 else 1

    def label(step, frame):   # the time, and the fitness so far
        so_far = frame.creatures[frame.leader].fitness
        return f"{step * dt:.{digits}f} s" + (f" \u00b7 {score_text(so_far)}" if so_far is not None and step else "")
    picture = draw_card(source, card_text(champion, getattr(source, "trial", 0)), size=size, at_step=at_step,
                        total_steps=total, labels=label)
    return card_bytes(encode_png(picture), champion_json(champion))
