"""The hall of fame of ``creatures play`` (``render.game.Hall``): the built-in challenges' boards of
a folder of entries, verified as ``creatures challenge board`` verifies them, and the entries
raced as ghosts, with the player's own champion when there is one."""

from __future__ import annotations

from pathlib import Path

from evolution.challenges import ChallengeError
from evolution.champion import ChampionError, load_champion
from evolution.lineage import short
from render.game import Board, BoardEntry, GameError, Pick

from .challenge import board_rows, builtin_challenges, resolve_challenge
from .sources import Race

__all__ = ["PlayHall"]


class PlayHall:
    """The hall: the built-in challenges, a folder of entries (default: the working directory)
    and ``session``'s champion (``render.game.Session``; None: the player has none) to race."""

    def __init__(self, folder: str = ".", session=None):
        self.folder = str(folder)
        self.session = session
        self._challenges = {}
        self.challenges = []
        for name in builtin_challenges():
            challenge = resolve_challenge(name)
            self._challenges[name] = challenge
            self.challenges.append(Pick(name, challenge.summary()))
        self.mine = None
        if session is not None and (session.state == "champion" or session.done > 0):
            self.mine = session.title

    def challenge(self, name: str):
        try:
            return self._challenges[name]
        except KeyError:
            raise GameError(f"no challenge {name!r}") from None

    def board(self, challenge: str, folder: str) -> Board:
        c = self.challenge(challenge)
        path = Path(folder)
        if not path.is_dir():
            raise GameError(f"{folder} is not a folder")
        try:
            ranked, refused, pictures = board_rows(c, path)
        except (ValueError, OSError, ChallengeError) as exc:
            raise GameError(str(getattr(exc, "strerror", None) or exc)) from None
        entries = [BoardEntry(file=r["file"], rank=r.get("rank", 0), score=r["score"], name=r["name"] or "",
                              author=r["author"] or "", generation=r["generation"],
                              champion=short(r["hash"]) if r["hash"] else "", reason=r["reason"])
                   for r in ranked + refused]
        return Board(challenge=c.name, summary=c.summary(), measures=c.measures(), folder=str(folder),
                     entries=tuple(entries), pictures=pictures)

    def watch(self, files: list, mine: bool = False) -> Race:
        champions, labels = [], []
        try:
            for f in files:
                champion = load_champion(f)
                champions.append(champion)
                labels.append(f"{champion.name or Path(f).stem}" + (f" ({champion.author})" if champion.author else ""))
            if mine and self.mine is not None:
                champions.append(self.session.chosen_champion())
                labels.append(f"yours: {champions[-1].name or 'champion'}")
            if len(set(labels)) < len(labels):
                labels = [f"{k + 1}. {label}" for k, label in enumerate(labels)]
            return Race(champions, labels)
        except ChampionError as exc:
            raise GameError(str(exc)) from None
