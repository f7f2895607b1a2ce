"""Editing a design file as ``creatures edit`` does: every change a patch of the YAML text that
keeps the user's comments, order and layout.

- :mod:`.text`: the YAML tree (items with their spans), the editable fields of each item and the
  :class:`~.text.Patcher` that writes a change into the text;
- :mod:`.document`: :class:`DesignDocument`, the open file with its undo history, its problems
  (the loader's, checked live) and saving.
"""

from .document import UNDO_LEVELS, DesignDocument, LivePreview

__all__ = ["DesignDocument", "LivePreview", "UNDO_LEVELS"]
