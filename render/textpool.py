"""Text objects of one style in one batch, reused frame after frame (:class:`TextPool`): what the
viewer's HUD, labels and panels, and the other screens, write with."""

from __future__ import annotations

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402

__all__ = ["TextPool"]


class TextPool:
    """Text objects of one style in one batch, created as needed and reused; the ones past the
    count in use are hidden."""

    def __init__(self, batch, **style):
        self.batch = batch
        self.style = style
        self.items: list[arcade.Text] = []
        self.used = 0

    def get(self, i: int) -> arcade.Text:
        while len(self.items) <= i:
            self.items.append(arcade.Text("", 0, 0, batch=self.batch, **self.style))
        t = self.items[i]
        if not t.visible:
            t.visible = True
        self.used = max(self.used, i + 1)
        return t

    def finish(self, n: int) -> None:
        """Hide every text from ``n`` on."""
        for t in self.items[n:self.used]:
            if t.visible:
                t.visible = False
        self.used = n
