"""Offscreen recording (animated GIF or MP4) and frame-time measurement, with the viewer's drawing.

Both draw a :class:`~render.viewer.Viewer` into an offscreen framebuffer of the asked size, so no
display is needed (with no ``DISPLAY`` pyglet is switched to headless EGL before it loads)::

    from render import record
    info = record(source, "champion.gif", seconds=8, size=(800, 450), fps=30)

Each output frame advances the playback by ``speed / fps`` seconds, stepping the source at its
fixed ``scene.dt`` exactly as the viewer does, then draws and reads the pixels. The first frame
is therefore ``speed / fps`` seconds in, and the last one is at ``seconds``: a recording of a
whole episode ends on its final state (the HUD's fitness equal to the recorded one).

GIFs are written frame by frame (constant memory) with one palette for the whole animation,
without dithering (flat colours stay flat and compress well), each frame cropped to what changed
since the previous one; they loop forever. MP4s are H.264 (yuv420p, so the size must be even)
through the ``imageio-ffmpeg`` package. Files are written to a temporary name beside the target,
flushed to the disk, and moved into place when complete, the folder flushed too (as
``evolution.files.write_atomic`` does; ``render`` imports nothing of ours), so a crash or a power
cut leaves the old file or the new one, and a full disk leaves the old one and no temporary file.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from .offscreen import check_number, check_size, draw_into, offscreen, read_pixels

__all__ = ["record", "measure_frame_time", "FORMATS"]

#: output file suffixes record() writes
FORMATS = (".gif", ".mp4")
TRANSPARENT = 255                       # the GIF palette's index for "as in the previous frame"
MAX_FPS = {".gif": 50, ".mp4": 120}     # GIF delays are in 1/100 s; browsers slow down below 2/100


def _fsync(path, directory: bool = False) -> None:
    """Flush a file (or a directory's entries: a rename) to the disk. A directory is skipped
    quietly where the platform cannot open or sync one."""
    try:
        fd = os.open(path, os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0))
    except OSError:
        if directory:
            return
        raise
    try:
        os.fsync(fd)
    except OSError:
        if not directory:
            raise
    finally:
        os.close(fd)


def _check_mp4_writer():
    try:
        import imageio_ffmpeg
    except ImportError:
        raise RuntimeError("writing MP4 needs the imageio-ffmpeg package (pip install imageio-ffmpeg); "
                           "or record a .gif") from None
    return imageio_ffmpeg


class _GifWriter:
    """Writes an animated GIF frame by frame: one global palette (from the first frame and the
    viewer's colours), no dithering, each frame cropped to the box that changed and, inside it,
    the unchanged pixels transparent (they show the previous frame)."""

    def __init__(self, fp, size, fps):
        self.fp = fp
        self.size = size
        self.fps = fps
        self.palette = None
        self.previous = None
        self.count = 0

    def _make_palette(self, first):
        from PIL import Image

        from . import theme as v
        from .overlay import MESSAGE_BACK

        # the colours the viewer draws with, so that later frames (muscles at full contraction,
        # other hues) find themselves in the palette even if the first frame lacks them
        swatch = [v.SKY, v.GROUND, v.GROUND_EDGE, v.TICK, v.BONE_RIGID, v.BONE_SOFT, v.SPHERE,
                  v.CONTACT, v.TEXT[:3], v.PANEL_BACK[:3], v.PANEL_TEXT[:3], MESSAGE_BACK[:3],
                  v.WATER_SHALLOW, v.WATER, v.WATER_DEEP, v.WING]
        swatch += [tuple(c) for c in v.muscle_colors(np.linspace(-1.0, 1.0, 9))]
        swatch += [tuple(c) for c in v.value_colors(np.linspace(-1.0, 1.0, 9))]
        strip = np.repeat(np.array(swatch, np.uint8)[None, :, :], 4, axis=0)
        strip = np.repeat(strip, 8, axis=1)
        w = first.shape[1]
        rows = np.zeros((4, w, 3), np.uint8) + np.array(v.SKY, np.uint8)
        rows[:, :min(w, strip.shape[1])] = strip[:, :w]
        probe = Image.fromarray(np.concatenate([first, rows], axis=0))
        # 255 colours: frames quantized with it never use index 255, the GIF's "unchanged"
        return probe.quantize(colors=255, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)

    def add(self, rgb: np.ndarray) -> None:
        from PIL import GifImagePlugin, Image

        if self.palette is None:
            self.palette = self._make_palette(rgb)
        frame = Image.fromarray(rgb).quantize(palette=self.palette, dither=Image.Dither.NONE)
        index = np.asarray(frame)
        if self.previous is None:
            header, _ = GifImagePlugin.getheader(frame, info={"loop": 0, "duration": 1})
            for part in header:
                self.fp.write(part)
            box = (0, 0, self.size[0], self.size[1])
        else:
            changed = index != self.previous
            rows, cols = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
            if rows.size:
                box = (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)
            else:
                box = (0, 0, 1, 1)    # nothing changed: one pixel, so every frame is kept
        crop = frame.crop(box)
        params = {}
        if self.previous is not None:
            # pixels that did not change become transparent: long runs of one index, which LZW
            # compresses far better than the picture itself
            same = index[box[1]:box[3], box[0]:box[2]] == self.previous[box[1]:box[3], box[0]:box[2]]
            cropped = np.asarray(crop).copy()
            cropped[same] = TRANSPARENT
            crop = Image.frombuffer("P", crop.size, cropped.tobytes(), "raw", "P", 0, 1)
            crop.putpalette(self.palette.getpalette("RGB"), "RGB")
            params["transparency"] = TRANSPARENT
        self.previous = index
        # delays in 1/100 s that add up to count / fps exactly
        k = self.count
        delay = 10 * (round(100 * (k + 1) / self.fps) - round(100 * k / self.fps))
        for part in GifImagePlugin.getdata(crop, offset=box[:2], duration=delay, disposal=1, **params):
            self.fp.write(part)
        self.count += 1

    def close(self) -> None:
        self.fp.write(b";")


def record(source, out_path, seconds=None, size=(800, 450), fps=30, speed=1.0, **options) -> dict:
    """Render ``source`` offscreen to an animated GIF or an MP4 (by the suffix of ``out_path``).

    Parameters
    ----------
    source : Source
        Played from its start (``source.reset()`` first).
    out_path : str or path
        ``NAME.gif`` or ``NAME.mp4``; written atomically (a temporary file, then renamed).
    seconds : float, optional
        Playback length; defaults to ``scene.duration`` (10 s for a source without one).
    size : (int, int)
        Pixels; an MP4 needs both even.
    fps : int
        Output frames per second (at most 50 for a GIF).
    speed : float
        Playback speed: each output frame advances ``speed / fps`` seconds of the episode.
    options
        More :class:`~render.viewer.Viewer` options (``show_brain``, ``show_sensors``, ``zoom``...).

    Returns
    -------
    dict
        ``path``, ``frames``, ``seconds`` (of playback), ``fps``, ``size``, ``bytes``, ``format``.
    """
    path = os.fspath(out_path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in FORMATS:
        raise ValueError(f"the output must end in .gif or .mp4, not {os.path.basename(path)!r}")
    size = check_size(size)
    fps = int(check_number("fps", fps, 1, MAX_FPS[suffix], whole=True))
    speed = float(check_number("speed", speed, 1.0 / 64.0, 64.0))
    if seconds is None:
        duration = getattr(source.scene, "duration", None)
        seconds = float(duration) if duration else 10.0
    seconds = float(check_number("seconds", seconds, 1.0 / fps, 3600.0))
    if suffix == ".mp4" and (size[0] % 2 or size[1] % 2):
        raise ValueError(f"an MP4 (H.264) needs an even width and height, not {size[0]}x{size[1]}")
    ffmpeg = _check_mp4_writer() if suffix == ".mp4" else None
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"no such folder for the output: {folder}")
    frames = max(1, int(round(seconds * fps)))
    dt = source.scene.dt
    steps_per_frame = speed / (fps * dt)
    options.setdefault("interpolate", abs(steps_per_frame - round(steps_per_frame)) > 1e-9)

    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=suffix, dir=folder)
    os.close(fd)
    try:
        with offscreen(size) as (window, fbo):
            from .viewer import Viewer

            source.reset()
            options.setdefault("hint", False)
            options.setdefault("text_budget", None)     # every frame's numbers exact
            viewer = Viewer(source, size=size, speed=speed, poll_interval=None, max_lag=None,
                            close_on_quit=False, window=window, **options)
            viewer.speed = speed        # exactly as asked, even outside the keys' 1/4x..16x
            if suffix == ".gif":
                with open(tmp, "wb") as fp:
                    writer = _GifWriter(fp, size, fps)
                    for _ in range(frames):
                        viewer.on_update(1.0 / fps)
                        draw_into(viewer, fbo)
                        writer.add(read_pixels(fbo, size))
                    writer.close()
            else:
                gen = ffmpeg.write_frames(tmp, size, fps=fps, codec="libx264", pix_fmt_in="rgb24",
                                          pix_fmt_out="yuv420p", macro_block_size=1, quality=None,
                                          output_params=["-crf", "20", "-preset", "medium",
                                                         "-movflags", "+faststart"],
                                          ffmpeg_log_level="error")
                gen.send(None)
                try:
                    for _ in range(frames):
                        viewer.on_update(1.0 / fps)
                        draw_into(viewer, fbo)
                        gen.send(read_pixels(fbo, size).tobytes())
                finally:
                    gen.close()
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp made it private; the output is an ordinary file
        _fsync(tmp)
        os.replace(tmp, path)
        _fsync(folder, directory=True)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return {"path": path, "frames": frames, "seconds": frames / fps, "fps": fps, "size": size,
            "bytes": os.path.getsize(path), "format": suffix[1:]}


def measure_frame_time(source, size=(1280, 720), frames=120, warmup=10, **options) -> dict:
    """Milliseconds per frame of the viewer at ``size``: ``on_update(1/60)`` (stepping the
    source at speed 1), drawing everything, and ``ctx.finish()`` (waiting for the GPU, here
    the software rasteriser, to be done), offscreen. The source restarts when it is done.

    Returns ``median_ms``, ``p90_ms``, ``mean_ms``, ``max_ms``, ``update_ms`` and ``draw_ms``
    (medians of the two parts), ``frames``, ``size``, ``renderer``.
    """
    size = check_size(size)
    frames = int(check_number("frames", frames, 1, 100000, whole=True))
    with offscreen(size) as (window, fbo):
        from .viewer import Viewer

        ctx = window.ctx
        viewer = Viewer(source, size=size, poll_interval=None, close_on_quit=False, window=window,
                        **options)
        total, update, draw = [], [], []
        for k in range(warmup + frames):
            if viewer.frame.done:
                viewer.restart()
            t0 = time.perf_counter()
            viewer.on_update(1.0 / 60.0)
            t1 = time.perf_counter()
            draw_into(viewer, fbo)
            ctx.finish()
            t2 = time.perf_counter()
            if k >= warmup:
                total.append(t2 - t0)
                update.append(t1 - t0)
                draw.append(t2 - t1)
        renderer = ctx.info.RENDERER
    ms = np.array(total) * 1000.0
    return {"median_ms": float(np.median(ms)), "p90_ms": float(np.percentile(ms, 90)),
            "mean_ms": float(ms.mean()), "max_ms": float(ms.max()),
            "update_ms": float(np.median(update) * 1000.0), "draw_ms": float(np.median(draw) * 1000.0),
            "frames": frames, "size": size, "renderer": renderer}
