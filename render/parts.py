"""A screen made of parts (the viewer's camera, HUD, ...; the editor's panel, bars, ...) shows
some of their attributes as its own: :func:`part_property`."""

from __future__ import annotations

__all__ = ["part_property"]


def part_property(component: str, name: str, doc: str, settable: bool = False) -> property:
    """A property of a view that is attribute ``name`` of its part ``component`` (read-only
    unless ``settable``)."""
    def get(self):
        return getattr(getattr(self, component), name)

    def set_(self, value):
        setattr(getattr(self, component), name, value)
    return property(get, set_ if settable else None, doc=doc)
