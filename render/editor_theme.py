"""The editor's look (``creatures edit``): the colours of the canvas (the ground, the grid, the
design's items and their marks) and of the interface around it (the toolbar, the side panel,
the status strip, the messages). :mod:`render.editor` re-exports all of it."""

from __future__ import annotations

from .theme import GROUND, SPHERE

__all__ = ["GROUND_FILL", "GROUND_LINE", "GRID", "GRID_MAJOR", "MUSCLE", "SPHERE_RIM", "JOINT", "JOINT_WEDGE",
           "CLUSTER_FILL", "CLUSTER_EDGE", "SELECT", "PROBLEM", "PROBLEM_RIM", "EVOLVE", "HANDLE_CORE",
           "BOX_FILL", "BOX_EDGE", "TOOLBAR_BACK", "BUTTON", "BUTTON_ON", "BUTTON_TEXT", "BUTTON_OFF_TEXT",
           "PANEL_LABEL", "PANEL_MUTED", "PANEL_ERROR", "ROW_FOCUS", "ROW_HOVER", "FIELD", "FIELD_SELECTED",
           "STRIP_BACK", "STRIP_EDGE", "PROBLEM_TEXT", "VALID_TEXT", "HINT_TEXT", "MESSAGE_BACK",
           "ERROR_BACK", "MESSAGE_TEXT"]

# the canvas ---------------------------------------------------------------------------------------
GROUND_FILL = tuple(int(c + (255 - c) * 0.5) for c in GROUND)   # under y = 0: the viewer's, paler
GROUND_LINE = (72, 104, 58)
GRID = (190, 212, 229)
GRID_MAJOR = (164, 192, 214)            # every metre
MUSCLE = (214, 70, 56)                  # a muscle at rest, distinct from the dark bones
SPHERE_RIM = tuple(int(c * 150 / 255) for c in SPHERE)     # as the viewer's disc texture tints it
JOINT = (36, 128, 188)
JOINT_WEDGE = (36, 128, 188, 46)        # a hinge's range, filled
CLUSTER_FILL = (122, 96, 214, 64)
CLUSTER_EDGE = (104, 80, 196, 200)
SELECT = (37, 99, 235)                  # the selection's halo (the menu's highlight)
PROBLEM = (222, 38, 38)                 # items a problem is about
PROBLEM_RIM = (150, 20, 20)
EVOLVE = (150, 62, 204)                 # items that evolve: dashed ring, badges
HANDLE_CORE = (255, 255, 255)
BOX_FILL = (37, 99, 235, 36)
BOX_EDGE = (37, 99, 235, 200)

# the interface ------------------------------------------------------------------------------------
TOOLBAR_BACK = (24, 28, 36, 255)
BUTTON = (62, 70, 88, 255)
BUTTON_ON = (37, 99, 235, 255)          # the tool in use, snap on, the live test
BUTTON_TEXT = (236, 240, 246, 255)
BUTTON_OFF_TEXT = (130, 136, 150, 255)  # undo / redo with nothing to undo
PANEL_LABEL = (176, 184, 198, 255)
PANEL_MUTED = (126, 132, 146, 255)      # values that come from defaults
PANEL_ERROR = (255, 120, 110, 255)
ROW_FOCUS = (52, 60, 78, 255)
ROW_HOVER = (40, 46, 60, 255)
FIELD = (250, 251, 253, 255)
FIELD_SELECTED = (196, 218, 252, 255)   # the entry's text before the first key replaces it
STRIP_BACK = (244, 246, 250, 255)
STRIP_EDGE = (206, 212, 222, 255)
PROBLEM_TEXT = (190, 28, 28, 255)
VALID_TEXT = (26, 140, 58, 255)
HINT_TEXT = (40, 48, 62, 200)
MESSAGE_BACK = (30, 36, 48, 235)
ERROR_BACK = (196, 36, 36, 240)
MESSAGE_TEXT = (255, 255, 255, 255)
