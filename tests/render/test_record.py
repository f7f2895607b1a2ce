"""Offscreen recording: the files it writes (frames, size, loop, pixels), its argument checks,
atomic writes, the frame-time measurement, and use from a fresh process without a display."""

import importlib
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from PIL import Image
from render_helpers import PhysicsSource, near

from render import measure_frame_time, record
from render.theme import SKY, SPHERE

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def gif_frames(path):
    with Image.open(path) as im:
        frames = []
        for k in range(im.n_frames):
            im.seek(k)
            frames.append(np.asarray(im.convert("RGB")))
        return frames, im.size, im.info


def test_gif_has_the_frames_size_loop_and_the_sphere_where_the_state_puts_it(window, tmp_path):
    source = PhysicsSource(duration=2.0)
    out = tmp_path / "walk.gif"
    cam, zoom, size, fps = (0.0, 0.9), 100.0, (480, 270), 20
    info = record(source, out, seconds=0.5, size=size, fps=fps, follow=False, camera=cam, zoom=zoom)
    frames, got_size, meta = gif_frames(out)
    assert info["frames"] == len(frames) == 10
    assert got_size == size and frames[0].shape == (270, 480, 3)
    assert meta["loop"] == 0
    assert info["bytes"] == os.path.getsize(out) and info["path"] == str(out)
    # the first frame is 1/fps s in: 3 steps of 1/60 s
    replica = PhysicsSource(duration=2.0)
    for _ in range(3):
        replica.step()
    pos = replica.frame().creatures[0].pos
    r = replica.scene.creatures[0].radius
    for i in range(len(pos)):
        d = np.hypot(*(pos - pos[i]).T)
        d[i] = np.inf
        if np.all(d > r + r[i] + 0.02):
            break
    sx = (pos[i, 0] - cam[0]) * zoom + size[0] / 2
    sy = (pos[i, 1] - cam[1]) * zoom + size[1] / 2
    assert near(frames[0][size[1] - 1 - int(sy), int(sx)], SPHERE, tol=8)
    assert near(frames[0][120, size[0] - 20], SKY, tol=4)
    # and the animation moves
    assert np.any(frames[-1] != frames[0])


def test_gif_keeps_every_frame_even_when_nothing_moves(window, tmp_path):
    source = PhysicsSource(duration=0.1)           # done after 0.1 s: the rest is still
    info = record(source, tmp_path / "still.gif", seconds=1.0, size=(160, 90), fps=10, follow=False)
    frames, _, meta = gif_frames(tmp_path / "still.gif")
    assert len(frames) == info["frames"] == 10
    assert np.array_equal(frames[-1], frames[-2])


def test_gif_frames_add_up_to_the_playback_time(window, tmp_path):
    record(PhysicsSource(duration=None), tmp_path / "t.gif", seconds=1.0, size=(160, 90), fps=30)
    with Image.open(tmp_path / "t.gif") as im:
        total = 0
        for k in range(im.n_frames):
            im.seek(k)
            total += im.info["duration"]
    assert total == 1000


def test_seconds_default_to_the_scene_duration(window, tmp_path):
    info = record(PhysicsSource(duration=0.4), tmp_path / "d.gif", size=(160, 90), fps=10)
    assert info["frames"] == 4 and info["seconds"] == pytest.approx(0.4)


def test_mp4_has_the_frames_and_size(window, tmp_path):
    ffmpeg = pytest.importorskip("imageio_ffmpeg")
    out = tmp_path / "walk.mp4"
    info = record(PhysicsSource(duration=2.0), out, seconds=0.5, size=(320, 180), fps=20)
    assert info["frames"] == 10
    frames, secs = ffmpeg.count_frames_and_secs(str(out))
    assert frames == 10 and secs == pytest.approx(0.5, abs=0.05)
    reader = ffmpeg.read_frames(str(out))
    meta = next(reader)
    assert tuple(meta["size"]) == (320, 180)
    first = np.frombuffer(next(reader), np.uint8).reshape(180, 320, 3)
    reader.close()
    assert near(first[100, 310], SKY, tol=8)


@pytest.mark.parametrize("kwargs, message", [
    (dict(out_path="a.avi"), "must end in .gif or .mp4"),
    (dict(size=(0, 100)), "size must be"),
    (dict(size=(320.5, 100)), "size must be"),
    (dict(size=320), "size must be"),
    (dict(fps=0), "fps must be"),
    (dict(fps=12.5), "fps must be"),
    (dict(fps=60), "fps must be"),                   # a GIF's delays are in 1/100 s
    (dict(seconds=-1.0), "seconds must be"),
    (dict(seconds=float("nan")), "seconds must be"),
    (dict(speed=0), "speed must be"),
    (dict(out_path="a.mp4", size=(321, 180)), "even width and height"),
    (dict(out_path="no/such/folder/a.gif"), "no such folder"),
])
def test_bad_arguments_are_refused_clearly(tmp_path, kwargs, message):
    kwargs = {"out_path": "a.gif", **kwargs}
    kwargs["out_path"] = str(tmp_path / kwargs["out_path"])
    with pytest.raises(ValueError, match=message):
        record(PhysicsSource(duration=1.0), **kwargs)
    assert os.listdir(tmp_path) == []


def test_a_missing_mp4_writer_is_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)    # import fails
    with pytest.raises(RuntimeError, match="imageio-ffmpeg") as err:
        record(PhysicsSource(duration=1.0), tmp_path / "a.mp4")
    assert "\n" not in str(err.value)
    assert os.listdir(tmp_path) == []


def test_a_failure_leaves_neither_file_nor_temporary(window, tmp_path):
    class Failing(PhysicsSource):
        def step(self):
            if self.steps == 5:
                raise RuntimeError("boom")
            super().step()

    (tmp_path / "keep.gif").write_bytes(b"old")
    with pytest.raises(RuntimeError, match="boom"):
        record(Failing(duration=2.0), tmp_path / "keep.gif", seconds=1.0, size=(160, 90), fps=10)
    assert os.listdir(tmp_path) == ["keep.gif"]
    assert (tmp_path / "keep.gif").read_bytes() == b"old"      # the old file is untouched


@pytest.mark.parametrize("where", ["fsync", "replace"])
def test_a_full_disk_leaves_the_old_file_and_no_temporary(window, tmp_path, monkeypatch, where):
    import errno

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    (tmp_path / "keep.gif").write_bytes(b"old")
    monkeypatch.setattr(os, where, full)
    with pytest.raises(OSError) as info:
        record(PhysicsSource(duration=1.0), tmp_path / "keep.gif", seconds=0.2, size=(160, 90), fps=10)
    monkeypatch.undo()
    assert info.value.errno == errno.ENOSPC
    assert os.listdir(tmp_path) == ["keep.gif"]
    assert (tmp_path / "keep.gif").read_bytes() == b"old"


def test_a_recording_is_fsynced_then_its_folder(window, tmp_path, monkeypatch):
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs /proc/self/fd to name a file descriptor")
    synced, real = [], os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), real(fd))[1])
    record(PhysicsSource(duration=1.0), tmp_path / "new.gif", seconds=0.2, size=(160, 90), fps=10)
    assert len(synced) == 2
    assert os.path.basename(synced[0]).startswith(".new.gif.") and synced[1] == str(tmp_path)


def test_record_plays_from_the_start(window, tmp_path):
    source = PhysicsSource(duration=1.0)
    for _ in range(30):
        source.step()
    record(source, tmp_path / "s.gif", seconds=0.5, size=(160, 90), fps=10)
    assert source.resets == 1 and source.frame().step == 30


def test_measure_frame_time_reports_medians(window):
    result = measure_frame_time(PhysicsSource(n=2, duration=0.1), size=(320, 180), frames=12, warmup=2)
    assert result["frames"] == 12 and result["size"] == (320, 180)
    assert 0 < result["median_ms"] <= result["p90_ms"] <= result["max_ms"]
    assert result["update_ms"] > 0 and result["draw_ms"] > 0
    assert isinstance(result["renderer"], str)


def test_record_module_is_reachable_despite_the_function_of_the_same_name():
    import render

    assert callable(render.record)
    assert importlib.import_module("render.record").record is render.record


def test_fresh_process_without_display_records_and_watches(tmp_path):
    """``import render`` loads no arcade; record() then works with no DISPLAY (headless chosen by
    itself) and closes its own window; watch() runs a few frames in a new window after it."""
    script = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{HERE!r}, {ROOT!r}]
        import render
        assert "arcade" not in sys.modules and "pyglet" not in sys.modules
        from render_helpers import PhysicsSource
        info = render.record(PhysicsSource(duration=0.5), {str(tmp_path / "f.gif")!r},
                             size=(160, 90), fps=10)
        assert info["frames"] == 5, info
        import pyglet
        assert pyglet.options.headless
        render.watch(PhysicsSource(duration=None), size=(320, 180), _frames=3)
        try:
            render.watch(PhysicsSource(duration=None))
        except RuntimeError as err:
            assert "needs a display" in str(err)
        else:
            raise AssertionError("watch ran headless without a frame limit")
        print("ok")
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "ARCADE_HEADLESS", "WAYLAND_DISPLAY")}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                          timeout=240, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")
