"""Evolution: sensors, batched networks, tasks and fitness, NEAT driving (arrives with issue 4)."""

__all__: list[str] = []
