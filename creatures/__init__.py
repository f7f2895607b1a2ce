"""creatures: the product. Designs, the built-in creatures, and the ``creatures`` command."""

__version__ = "0.1.0"

__all__ = ["__version__"]
