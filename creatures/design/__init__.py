"""The design format: creatures in YAML, their loader and the built-in designs.

- :mod:`.loader`: the format and every check a design must pass (:func:`load_design`,
  :func:`parse_design` -> :class:`Design`, or :class:`DesignError` with every problem's line and
  column);
- :mod:`.bestiary`: the built-in designs (``creatures/designs/NAME.yaml``) and
  :func:`resolve_design`, which takes a built-in name or a file;
- :mod:`.writer`: :func:`design_text`, a body written as a design file (the loader backwards:
  the loaded body is the body).
"""

from .bestiary import DESIGN_DIR, builtin_names, design_error, resolve_design
from .loader import MAX_DESIGN_BYTES, Design, DesignError, Problem, load_design, parse_design
from .writer import design_text

__all__ = ["DESIGN_DIR", "MAX_DESIGN_BYTES", "Design", "DesignError", "Problem", "builtin_names", "design_error",
           "design_text", "load_design", "parse_design", "resolve_design"]
