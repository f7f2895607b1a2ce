"""The Gymnasium environments (``creatures.envs``): Gymnasium's checker, names, determinism,
rewards against fitness, truncation, and the vector environment against single ones, creature for
creature, bit for bit, across autoresets. Arcade renders headless: the switch is set before
anything imports arcade or pyglet."""

import os

os.environ["ARCADE_HEADLESS"] = "1"

import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

import creatures.envs as envs  # noqa: E402
from creatures.design import DESIGN_DIR  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: tasks written into a temporary folder, as a user would write them
TASKS = '''
import numpy as np
import evolution
import physics


class Height(evolution.Task):
    """Fitness: the centre of mass's height now."""
    measures = "metres of height"

    def setup(self, ctx):
        self.y = np.zeros(ctx.batch)

    def reset(self, state, which):
        self.y[which] = physics.centre_of_mass(self.ctx.model, state)[which, 1]

    def update(self, state, clock):
        self.y[:] = physics.centre_of_mass(self.ctx.model, state)[:, 1]

    def fitness(self):
        return self.y.copy()


class Drift(evolution.Task):
    """Fitness: the centre of mass's travel to the right. A creature that has moved 2 cm to the
    right has ended; one that has moved 2 cm to the left has failed."""
    measures = "metres"
    limit = 0.02

    def setup(self, ctx):
        self.start = np.zeros(ctx.batch)
        self.now = np.zeros(ctx.batch)

    def reset(self, state, which):
        x = physics.centre_of_mass(self.ctx.model, state)[:, 0]
        self.start[which] = x[which]
        self.now[which] = x[which]

    def update(self, state, clock):
        self.now[:] = physics.centre_of_mass(self.ctx.model, state)[:, 0]

    def fitness(self):
        return self.now - self.start

    def ended(self):
        return self.now - self.start > self.limit

    def failed(self):
        return self.now - self.start < -self.limit


class Restless(Drift):
    """A creature that has moved 2 cm either way has failed; none ends."""

    def ended(self):
        return np.zeros(self.now.shape[0], dtype=np.bool_)

    def failed(self):
        return np.abs(self.now - self.start) > self.limit
'''


@pytest.fixture
def tasks(tmp_path):
    path = tmp_path / "tasks.py"
    path.write_text(TASKS)
    return path


def _actions(seed: int, steps: int, m: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1.0, 1.0, (steps, m)).astype(np.float32)


def _check(env) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity.*")  # muscles and height are unbounded
        check_env(env)


# --- Gymnasium's checker, rendering -------------------------------------------------------------

@pytest.mark.parametrize("cls", [envs.CreatureEnv, envs.CreatureVectorEnv])
def test_an_environments_defaults_are_a_runs(cls):
    """One owner: an environment's task, seconds and start noise default to ``RunSettings``'."""
    import inspect

    from evolution.run import RunSettings
    d = RunSettings.defaults()
    params = inspect.signature(cls).parameters
    names = ("task", "seconds", "noise")
    assert {k: params[k].default for k in names} == {k: d[k] for k in names}
    assert (params["terrain"].default, params["sensors"].default) == (d["terrain"], d["sensors"])


def test_check_env_passes():
    env = gymnasium.make(envs.ENV_ID, design="walker", task="run")
    assert isinstance(env.unwrapped, envs.CreatureEnv)
    _check(env.unwrapped)
    M = env.unwrapped.run.model.n_muscles
    assert env.action_space == gymnasium.spaces.Box(-1.0, 1.0, (M,), np.float32)
    assert env.observation_space.shape == (len(env.unwrapped.run.episode.input_names()),)
    assert env.observation_space.dtype == np.float32
    env.close()


def test_the_observation_space_is_bounded_where_the_sensors_are():
    env = envs.CreatureEnv(design="worm", sensors="rays")
    low, high = env.run.input_bounds()
    assert np.array_equal(env.observation_space.low, low.astype(np.float32))
    assert np.array_equal(env.observation_space.high, high.astype(np.float32))
    names = env.run.episode.input_names()
    bounded = {n for n, lo, hi in zip(names, low, high) if np.isfinite(lo) and np.isfinite(hi)}
    assert {"clock sin", "speed x", "ray 0 deg"} <= bounded and "height" not in bounded


def test_check_env_has_nothing_to_say_when_every_sensor_is_bounded():
    bounded = "-default,clock,joints,contacts,tilt,velocity,rays"
    env = gymnasium.make(envs.ENV_ID, design="worm", sensors=bounded)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # gymnasium's checker warns about unbounded spaces
        check_env(env.unwrapped)
    env.close()


def test_check_env_with_rendering_and_render_draws():
    env = gymnasium.make(envs.ENV_ID, render_mode="rgb_array", size=(320, 180))
    _check(env.unwrapped)
    env.reset(seed=0)
    for a in _actions(0, 10, env.action_space.shape[0]):
        env.step(a)
    img = env.render()
    assert img.shape == (180, 320, 3) and img.dtype == np.uint8
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10
    env.close()
    env.close()     # twice is fine


def test_vector_env_renders_its_creatures_on_one_terrain():
    venv = envs.CreatureVectorEnv(3, render_mode="rgb_array", size=(320, 180))
    venv.reset(seed=0)
    venv.step(np.zeros(venv.action_space.shape, np.float32))
    img = venv.render()
    assert img.shape == (180, 320, 3) and img.dtype == np.uint8
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10
    venv.close()


def test_several_environments_render_and_close_in_any_order():
    a = envs.CreatureEnv(seconds=0.5, render_mode="rgb_array", size=(160, 90))
    b = envs.CreatureEnv(design="worm", seconds=0.5, render_mode="rgb_array", size=(200, 100))
    a.reset(seed=0), b.reset()
    first = a.render()
    assert b.render().shape == (100, 200, 3)
    a.close()
    b.step(np.ones(b.action_space.shape, np.float32))
    assert b.render().shape == (100, 200, 3)
    b.close()
    c = envs.CreatureEnv(seconds=0.5, render_mode="rgb_array", size=(160, 90))
    c.reset(seed=0)
    assert np.array_equal(c.render(), first)       # the same frame draws the same pixels
    c.close()


def test_no_rendering_without_render_mode():
    env = envs.CreatureEnv(seconds=0.1)
    env.reset()
    assert env.render() is None
    env.close()


# --- names --------------------------------------------------------------------------------------

def test_make_by_design_file_and_task_file(tmp_path, tasks):
    design = tmp_path / "my hopper.yaml"
    shutil.copy(DESIGN_DIR / "hopper.yaml", design)
    env = gymnasium.make(envs.ENV_ID, design=str(design), task=f"{tasks}:Height", seconds=0.25)
    u = env.unwrapped
    assert u.design.name == "hopper" and u.action_space.shape == (3,)
    obs, info = env.reset(seed=0)
    start = info["fitness"]
    assert 0.1 < start < 1.0                          # the centre of mass's height at rest
    total = 0.0
    for a in _actions(1, u.run.episode.steps, 3):
        obs, reward, terminated, truncated, info = env.step(a)
        total += reward
    assert truncated and not terminated
    assert total == pytest.approx(info["fitness"], abs=1e-12)   # the first reward has the start
    env.close()


@pytest.mark.parametrize("kwargs, words", [
    ({"design": "no-such-design"}, "no built-in design"),
    ({"design": "/no/such/file.yaml"}, "file.yaml"),
    ({"task": "no-such-task"}, "no-such-task"),
    ({"terrain": "no-such-terrain"}, "no-such-terrain"),
    ({"sensors": ["clock", "no-such-sensor"]}, "no-such-sensor"),
    ({"task": "missing.py:Task"}, "missing.py"),
    ({"seconds": 0}, "seconds"),
    ({"design": 3}, "design"),
])
def test_bad_names_raise_one_line_value_errors(kwargs, words):
    with pytest.raises(ValueError) as exc:
        gymnasium.make(envs.ENV_ID, **kwargs)
    assert "\n" not in str(exc.value) and words in str(exc.value)
    with pytest.raises(ValueError):
        envs.CreatureVectorEnv(2, **kwargs)


def test_bad_render_options():
    for kwargs in ({"render_mode": "ansi"}, {"size": (3, 3)}):
        with pytest.raises(ValueError):
            envs.CreatureEnv(**kwargs)
        with pytest.raises(ValueError):
            envs.CreatureVectorEnv(2, **kwargs)


def test_bad_design_file_and_design_without_muscles(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nspheres:\n  - {id: a, position: [0, 0.1]}\n  - {id: a}\nbones: 3\n")
    with pytest.raises(ValueError) as exc:
        envs.CreatureEnv(design=str(bad))
    assert "\n" not in str(exc.value)
    still = tmp_path / "still.yaml"
    still.write_text("name: still\nspheres:\n  - {id: a, position: [0, 0.1], radius: 0.1}\n"
                     "  - {id: b, position: [0.3, 0.1], radius: 0.1}\n"
                     "bones:\n  - {id: ab, spheres: [a, b]}\n")
    with pytest.raises(ValueError, match="no muscles"):
        envs.CreatureEnv(design=str(still))


def test_missing_gymnasium_is_one_line():
    code = "import sys; sys.modules['gymnasium'] = None; import creatures.envs"
    got = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         timeout=120)
    assert got.returncode != 0
    assert "ImportError: creatures.envs needs gymnasium: pip install 'creatures[gym]'" in got.stderr


# --- episodes -----------------------------------------------------------------------------------

def _episode(env, seed, actions):
    obs, _ = env.reset(seed=seed)
    out = [obs]
    for a in actions:
        obs, reward, terminated, truncated, info = env.step(a)
        out.append((obs, reward, terminated, truncated, info["fitness"], info["failed"]))
    return out


def _same(a, b) -> bool:
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.tobytes() == b.tobytes()
    return type(a) is type(b) and a == b


def test_seeded_reset_gives_the_same_episode_twice():
    env = envs.CreatureEnv(seconds=0.5)
    actions = _actions(7, 40, env.action_space.shape[0])   # past the end: the flags too
    first = _episode(env, 3, actions)
    second = _episode(env, 3, actions)
    other = _episode(envs.CreatureEnv(seconds=0.5), 3, actions)
    assert _same(first, second) and _same(first, other)
    assert not _same(first, _episode(env, 3, _actions(8, 40, env.action_space.shape[0])))


def test_rewards_add_up_to_fitness_and_truncation_at_the_episode_length():
    env = envs.CreatureEnv(seconds=0.5)
    steps = env.run.episode.steps
    assert steps == 30
    env.reset(seed=0)
    total = 0.0
    for t, a in enumerate(_actions(2, steps, env.action_space.shape[0]), start=1):
        obs, reward, terminated, truncated, info = env.step(a)
        assert isinstance(reward, float) and obs.dtype == np.float32
        assert env.observation_space.contains(obs)
        total += reward
        assert not terminated
        assert truncated == (t == steps)
    assert total == pytest.approx(info["fitness"], abs=1e-12)
    assert info["fitness"] != 0.0 and info["failed"] is False


def test_a_failing_creature_terminates_with_the_worst_fitness(tasks):
    env = envs.CreatureEnv(task=f"{tasks}:Restless", seconds=4.0)
    env.reset(seed=0)
    total, rng = 0.0, np.random.default_rng(0)
    for t in range(env.run.episode.steps):
        if t % 10 == 0:   # (held a sixth of a second: flipped every step, the walker stays put)
            action = rng.uniform(-1, 1, 6).astype(np.float32)
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        if terminated:
            break
    assert terminated and not truncated
    assert info["failed"] and info["fitness"] == -1000.0
    assert total == pytest.approx(-1000.0)


# --- the vector environment ---------------------------------------------------------------------

def _single_like_vector(env, actions):
    """One env driven as a NEXT_STEP vector env drives each sub-environment."""
    obs, _ = env.reset(seed=0)
    out, ended = [obs], False
    for a in actions:
        if ended:
            obs, _ = env.reset()
            reward, terminated, truncated = 0.0, False, False
        else:
            obs, reward, terminated, truncated, _ = env.step(a)
        ended = terminated or truncated
        out.append((obs, reward, terminated, truncated))
    return out


@pytest.mark.parametrize("made", [False, True])
def test_vector_env_equals_single_envs_across_autoresets(tasks, made):
    N, seconds, steps = 3, 0.25, 40                    # 15 steps an episode: ~2.5 episodes
    kw = dict(task=f"{tasks}:Drift", seconds=seconds, noise=0.0)   # every start the design's
    if made:
        venv = gymnasium.make_vec(envs.ENV_ID, num_envs=N, vectorization_mode="vector_entry_point",
                                  **kw)
    else:
        venv = envs.CreatureVectorEnv(N, **kw)
    assert venv.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    M = venv.single_action_space.shape[0]
    assert venv.action_space.shape == (N, M) and venv.observation_space.shape[0] == N
    actions = np.stack([_actions(100 + k, steps, M) for k in range(N)], axis=1)   # (T, N, M)
    obs, _ = venv.reset(seed=0)
    got = [[obs[k]] for k in range(N)]
    for a in actions:
        obs, rewards, terminated, truncated, info = venv.step(a)
        assert rewards.dtype == np.float64 and terminated.dtype == truncated.dtype == np.bool_
        for k in range(N):
            got[k].append((obs[k], float(rewards[k]), bool(terminated[k]), bool(truncated[k])))
    kinds = set()
    for k in range(N):
        want = _single_like_vector(envs.CreatureEnv(**kw), actions[:, k])
        assert _same(got[k], want), f"creature {k} differs"
        for o, r, te, tr in want[1:]:
            kinds.add("failed" if te and r < -100 else "ended" if te else
                      "truncated" if tr else None)
    assert {"failed", "ended", "truncated"} <= kinds    # every way an episode ends was crossed
    venv.close()


def test_vector_env_with_a_batch_stepped_on_threads_equals_single_envs():
    N, steps = 40, 45                   # 40 creatures: physics spreads them over its threads
    venv = envs.CreatureVectorEnv(N, seconds=0.5, noise=0.0)
    actions = np.stack([_actions(200 + k, steps, 6) for k in range(N)], axis=1)
    obs, _ = venv.reset(seed=0)
    got = {k: [obs[k]] for k in (0, N - 1)}
    for a in actions:
        obs, rewards, terminated, truncated, _ = venv.step(a)
        for k in got:
            got[k].append((obs[k], float(rewards[k]), bool(terminated[k]), bool(truncated[k])))
    for k in got:
        assert _same(got[k], _single_like_vector(envs.CreatureEnv(seconds=0.5, noise=0.0), actions[:, k]))


@pytest.mark.parametrize("noise", [0.0, 1e-3])
def test_vector_reset_mask_restarts_only_those(noise):
    venv = envs.CreatureVectorEnv(3, seconds=1.0, noise=noise)
    start, _ = venv.reset(seed=0)
    moved = venv.run.start_state.pos.copy()
    for a in _actions(5, 10, 3 * 6).reshape(10, 3, 6):
        obs, *_ = venv.step(a)
    again, info = venv.reset(options={"reset_mask": np.array([False, True, False])})
    assert _same(again[[0, 2]], obs[[0, 2]])
    assert info["fitness"][1] == 0.0 and venv.run.clock.step.tolist() == [10, 0, 10]
    pos = venv.run.start_state.pos
    assert np.array_equal(pos[[0, 2]], moved[[0, 2]])     # the others keep the start they ran from
    assert _same(again[1], start[1]) == (noise == 0.0)   # the restarted one: a fresh start
    assert np.array_equal(pos[1], moved[1]) == (noise == 0.0)
    venv.close()


def test_noise_moves_each_reset_start_by_about_noise():
    design = envs.CreatureEnv(seconds=0.5, noise=0.0)
    design.reset(seed=0)
    exact = design.run.start_state.pos[0].copy()
    env = envs.CreatureEnv(seconds=0.5, noise=1e-3)
    env.reset(seed=0)
    first = env.run.start_state.pos[0].copy()
    env.reset()
    second = env.run.start_state.pos[0].copy()
    env.reset(seed=0)
    assert np.array_equal(env.run.start_state.pos[0], first)   # a seed repeats the start
    for pos in (first, second):
        d = pos - exact
        assert 1e-5 < np.abs(d).max() < 1e-2 and (d[:, 1] >= 0).all()   # up, never into the ground
    assert not np.array_equal(first, second)
    for bad in (-1e-3, 1.0, "1mm", True):
        with pytest.raises(ValueError, match="noise must be"):
            envs.CreatureEnv(noise=bad)


def test_measure_env_speed_reports_steps_per_second():
    from creatures.bench.envs import format_env_speed, measure_env_speed

    got = measure_env_speed(num_envs=(1, 4), steps=10, warmup=2, repeats=1)
    assert got["single"] > 0 and set(got["vector"]) == set(got["sync"]) == {1, 4}
    assert all(v > 0 for v in [*got["vector"].values(), *got["sync"].values()])
    assert "| CreatureVectorEnv | 4 |" in format_env_speed(got)
