"""A creature as a Gymnasium environment, for people who bring their own learner.

    python examples/gym_loop.py               # a hand-made gait for one episode, then a batch
    python examples/gym_loop.py --ppo         # and a few thousand steps of stable-baselines3's PPO
    python examples/gym_loop.py --smoke       # short

The observation is the sensor vector a NEAT brain reads, the action the muscle commands in
[-1, 1], the reward the task's fitness gained in the step (an episode's rewards add up to its
fitness). ``--ppo`` needs ``pip install 'creatures[rl]'`` (stable-baselines3 and PyTorch); without
it the example says so and skips that part.
"""

import argparse
import sys
import time

import gymnasium
import numpy as np

import creatures.envs  # noqa: F401  (registers creatures/Creature-v0)
import evolution


def gait(t: float, muscles: int) -> np.ndarray:
    """A travelling wave over the muscles at 1.5 Hz: a policy made by hand."""
    return np.sin(2 * np.pi * 1.5 * t + np.linspace(0, np.pi, muscles)).astype(np.float32)


def one_episode(seconds: float) -> None:
    env = gymnasium.make("creatures/Creature-v0", design="walker", task="run", seconds=seconds)
    obs, info = env.reset(seed=0)
    total, t, done = 0.0, 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(gait(t, env.action_space.shape[0]))
        total += reward
        t += 1 / 60
        done = terminated or truncated
    print(f"one walker, a hand-made gait: {info['fitness']:+.3f} m in {t:.1f} s "
          f"(the rewards add up to {total:+.3f}); observation {obs.shape}, action {env.action_space.shape}")
    env.close()


def a_batch(num_envs: int, steps: int) -> None:
    envs = gymnasium.make_vec("creatures/Creature-v0", num_envs, vectorization_mode="vector_entry_point",
                              design="walker", task="run")
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    phases = rng.uniform(0, 2 * np.pi, (num_envs, 1)).astype(np.float32)
    t0 = time.perf_counter()
    for k in range(steps):
        actions = np.sin(2 * np.pi * 1.5 * k / 60 + phases + np.linspace(0, np.pi, 6, dtype=np.float32))
        obs, rewards, terminated, truncated, info = envs.step(actions)
    rate = num_envs * steps / (time.perf_counter() - t0)
    best = int(np.argmax(info["fitness"]))
    print(f"{num_envs} walkers in one vector env: {rate:,.0f} env-steps/s; the best phase went "
          f"{info['fitness'][best]:+.3f} m in {steps / 60:.1f} s")
    envs.close()


def ppo(steps: int) -> None:
    try:
        from stable_baselines3 import PPO
    except ImportError:
        print("PPO skipped: stable-baselines3 is not installed (pip install 'creatures[rl]')")
        return
    env = gymnasium.make("creatures/Creature-v0", design="walker", task="run", seconds=5.0)
    model = PPO("MlpPolicy", env, n_steps=512, batch_size=64, seed=0, verbose=0)
    model.learn(total_timesteps=steps)
    obs, _ = env.reset(seed=0)
    done = False
    while not done:
        action, _ = model.predict(obs, deterministic=True)
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    print(f"PPO after {steps} steps: {info['fitness']:+.3f} m in 5 s (a start: it takes ~10^6 steps "
          f"to walk)")
    env.close()


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ppo", action="store_true", help="also train stable-baselines3's PPO briefly")
    parser.add_argument("--smoke", action="store_true", help="short runs")
    args = parser.parse_args(argv)
    evolution.prepare_process()  # once per program, before the first step (see physics' docstring)
    one_episode(2.0 if args.smoke else 10.0)
    a_batch(16 if args.smoke else 256, 60 if args.smoke else 600)
    if args.ppo:
        ppo(1024 if args.smoke else 8192)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
