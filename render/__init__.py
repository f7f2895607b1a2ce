"""The arcade viewer and offscreen recording (arrives with issue 6)."""

__all__: list[str] = []
