"""How fast the Gymnasium environments step: ``python -m creatures.bench.envs``.

Env-steps per second (one creature advanced by one step is one env-step) with random actions
(drawn beforehand), no rendering, after a warm-up, for:

- ``single``: one :class:`~creatures.envs.CreatureEnv`, reset when its episode is over;
- ``vector``: :class:`~creatures.envs.CreatureVectorEnv` of N creatures (one physics call per
  step, next-step autoreset);
- ``sync``: Gymnasium's ``SyncVectorEnv`` over N single environments, for comparison.

Each figure is the median of ``repeats`` timings.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

__all__ = ["measure_env_speed", "format_env_speed"]


def _rate(step, n_envs: int, steps: int, warmup: int, repeats: int) -> float:
    for _ in range(warmup):
        step()
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        rates.append(n_envs * steps / (time.perf_counter() - t0))
    return statistics.median(rates)


def measure_env_speed(num_envs=(1, 16, 256), steps: int = 300, warmup: int = 30, repeats: int = 3,
                      design: str = "walker", task: str = "run", sync: bool = True) -> dict:
    """Env-steps per second: ``{"single": float, "vector": {N: float}, "sync": {N: float},
    "steps": steps, "design": design, "task": task}`` (``sync`` empty unless asked).
    ``steps`` are steps of the environment (a vector step counts N env-steps)."""
    import gymnasium

    from ..envs import CreatureEnv, CreatureVectorEnv

    rng = np.random.default_rng(0)
    out = {"single": 0.0, "vector": {}, "sync": {}, "steps": steps, "design": design, "task": task}

    env = CreatureEnv(design, task)
    M = env.action_space.shape[0]
    acts = rng.uniform(-1.0, 1.0, (64, M)).astype(np.float32)
    env.reset(seed=0)
    k = [0]

    def single_step():
        k[0] += 1
        _, _, terminated, truncated, _ = env.step(acts[k[0] % 64])
        if terminated or truncated:
            env.reset()

    out["single"] = _rate(single_step, 1, steps, warmup, repeats)
    env.close()

    for n in num_envs:
        venv = CreatureVectorEnv(n, design, task)
        batch = rng.uniform(-1.0, 1.0, (8, n, M)).astype(np.float32)
        venv.reset(seed=0)
        j = [0]

        def vector_step():
            j[0] += 1
            venv.step(batch[j[0] % 8])

        out["vector"][n] = _rate(vector_step, n, steps, warmup, repeats)
        venv.close()
        if sync:
            senv = gymnasium.vector.SyncVectorEnv([lambda: CreatureEnv(design, task)] * n)
            senv.reset(seed=0)

            def sync_step():
                j[0] += 1
                senv.step(batch[j[0] % 8])

            # at least ~300 env-steps per timing, but not thousands of steps of a big batch
            out["sync"][n] = _rate(sync_step, n, max(1, min(steps, 3000 // n)), warmup, repeats)
            senv.close()
    return out


def format_env_speed(result: dict) -> str:
    """A markdown table of :func:`measure_env_speed`'s result."""
    lines = ["| environment | creatures | env-steps/s |", "|---|---|---|",
             f"| CreatureEnv | 1 | {result['single']:,.0f} |"]
    for n, rate in result["vector"].items():
        lines.append(f"| CreatureVectorEnv | {n} | {rate:,.0f} |")
    for n, rate in result["sync"].items():
        lines.append(f"| SyncVectorEnv of CreatureEnv | {n} | {rate:,.0f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    import os

    import evolution

    evolution.prepare_process()  # as the creatures command does: OMP_WAIT_POLICY, numba's caches
    r = measure_env_speed()
    print(f"env-steps/s: {r['design']} on {r['task']}, random actions, no rendering, "
          f"{os.cpu_count()} cores\n")
    print(format_env_speed(r))
