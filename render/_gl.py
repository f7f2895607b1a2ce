"""Batched geometry for the viewer: all line segments in one draw call, filled triangles in another.

Arcade's ``draw_lines`` draws every segment of one call in a single colour and width, and
``draw_circle_filled`` costs a draw call per shape (measured on Mesa llvmpipe: 200 circles and 300
lines drawn one by one took ~55 ms a frame). Here a segment is one instance of a four-vertex strip
with its own colour and width (pixels), fed from a numpy array, so bones, muscles (each coloured by
its contraction), ticks and brain edges go out in one call whatever their number. The fragment
shader measures each pixel's distance to the segment: the ends are round (bones join smoothly, a
segment of zero length is a disc: the brain panel's nodes), and the last pixel fades out, which
antialiases without multisampling. (Measured on llvmpipe, 140 bones of 10 walkers: this one
call 1.1-1.4 ms; ``arcade.draw_lines`` in 10 colour bins 1.9-2.1 ms.)

Shaders read arcade's ``WindowBlock`` (projection and view), so they draw through whichever
:class:`arcade.camera.Camera2D` is in use: world units (metres) or screen pixels alike.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SEGMENT", "VERTEX", "Segments", "Triangles", "rects"]

#: one segment: its ends (world units), colour (RGBA bytes) and width (pixels)
SEGMENT = np.dtype([("seg", "f4", 4), ("color", "u1", 4), ("width", "f4")])
#: one vertex of a filled triangle: position and colour
VERTEX = np.dtype([("pos", "f4", 2), ("color", "u1", 4)])

_SEGMENT_VS = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;
uniform float pixel;        // world units per screen pixel

in vec2 in_corner;          // (0 or 1 along the segment, -1 or +1 across it)
in vec4 in_seg;             // x0, y0, x1, y1
in vec4 in_color;
in float in_width;          // pixels

out vec4 v_color;
out vec2 v_local;           // pixels from the start: along the segment, across it
out float v_length;         // the segment's length (pixels)
out float v_half;           // half the width (pixels)

void main() {
    vec2 a = in_seg.xy;
    vec2 d = in_seg.zw - a;
    float len = length(d);
    vec2 t = len > 0.0 ? d / len : vec2(1.0, 0.0);
    vec2 n = vec2(-t.y, t.x);
    float half_px = 0.5 * in_width + 1.0;       // one more pixel to fade out
    float len_px = len / pixel;
    vec2 local = vec2(mix(-half_px, len_px + half_px, in_corner.x), in_corner.y * half_px);
    vec2 p = a + (t * local.x + n * local.y) * pixel;
    gl_Position = window.projection * window.view * vec4(p, 0.0, 1.0);
    v_color = in_color;
    v_local = local;
    v_length = len_px;
    v_half = 0.5 * in_width;
}
"""

_SEGMENT_FS = """
#version 330
in vec4 v_color;
in vec2 v_local;
in float v_length;
in float v_half;
out vec4 f_color;

void main() {
    // distance to the segment: a capsule, so ends are round and a zero-length segment is a disc
    float d = length(vec2(v_local.x - clamp(v_local.x, 0.0, v_length), v_local.y));
    float cover = clamp(v_half + 0.5 - d, 0.0, 1.0);
    if (cover <= 0.0) discard;
    f_color = vec4(v_color.rgb, v_color.a * cover);
}
"""

_TRIANGLE_VS = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;
in vec2 in_pos;
in vec4 in_color;
out vec4 v_color;

void main() {
    gl_Position = window.projection * window.view * vec4(in_pos, 0.0, 1.0);
    v_color = in_color;
}
"""

_TRIANGLE_FS = """
#version 330
in vec4 v_color;
out vec4 f_color;

void main() {
    f_color = v_color;
}
"""


def _programs(ctx):
    """The two programs, compiled once per context."""
    cache = getattr(ctx, "_creatures_programs", None)
    if cache is None:
        cache = (ctx.program(vertex_shader=_SEGMENT_VS, fragment_shader=_SEGMENT_FS),
                 ctx.program(vertex_shader=_TRIANGLE_VS, fragment_shader=_TRIANGLE_FS))
        ctx._creatures_programs = cache
    return cache


def _grow(ctx, buffer, n, itemsize):
    """``buffer``, or a larger one if it cannot hold ``n`` items; returns (buffer, replaced).
    Sizes are whole items (arcade checks that a buffer is a multiple of its stride)."""
    if buffer is not None and buffer.size >= n * itemsize:
        return buffer, False
    items = 64
    while items < n:
        items *= 2
    return ctx.buffer(reserve=items * itemsize, usage="dynamic"), True


class Segments:
    """Line segments with their own colour and width, drawn in one call.

    Fill :attr:`data` (a structured array of :data:`SEGMENT`) through :meth:`reserve`, then call
    :meth:`upload`, and :meth:`draw` with the size of a screen pixel in the camera's units.
    """

    def __init__(self, ctx):
        from arcade.gl import BufferDescription

        self.ctx = ctx
        self.program = _programs(ctx)[0]
        corners = np.array([0, -1, 0, 1, 1, -1, 1, 1], dtype="f4")
        self._corners = BufferDescription(ctx.buffer(data=corners.tobytes()), "2f", ["in_corner"])
        self._buffer = None
        self._geometry = None
        self.data = np.zeros(0, dtype=SEGMENT)
        self.count = 0

    def reserve(self, n: int) -> np.ndarray:
        """Room for ``n`` segments: returns the array to fill (its first ``n`` rows count)."""
        if self.data.shape[0] < n:
            self.data = np.zeros(max(n, 2 * self.data.shape[0], 64), dtype=SEGMENT)
        self.count = n
        return self.data[:n]

    def upload(self) -> None:
        """Send the first :attr:`count` rows of :attr:`data` to the GPU (static segments, like the
        terrain's edge, are uploaded once and drawn every frame)."""
        from arcade.gl import BufferDescription

        n = self.count
        if n <= 0:
            return
        self._buffer, replaced = _grow(self.ctx, self._buffer, n, SEGMENT.itemsize)
        if replaced or self._geometry is None:
            self._geometry = self.ctx.geometry(
                [self._corners,
                 BufferDescription(self._buffer, "4f 4f1 1f", ["in_seg", "in_color", "in_width"],
                                   instanced=True)],
                mode=self.ctx.TRIANGLE_STRIP)
        self._buffer.write(self.data[:n].tobytes())

    def draw(self, pixel: float) -> None:
        """Draw the uploaded segments; ``pixel`` is the size of a screen pixel in the camera's
        units (``1 / zoom`` for a world camera, 1 for the screen)."""
        if self.count <= 0 or self._geometry is None:
            return
        self.program["pixel"] = float(pixel)
        self.ctx.enable(self.ctx.BLEND)
        self._geometry.render(self.program, vertices=4, instances=self.count)


class Triangles:
    """Filled triangles (or a triangle strip) with per-vertex colours, drawn in one call. Set once
    with :meth:`set` for static shapes (the terrain), or again each frame (overlay boxes)."""

    def __init__(self, ctx, strip: bool = False):
        self.ctx = ctx
        self.program = _programs(ctx)[1]
        self.mode = ctx.TRIANGLE_STRIP if strip else ctx.TRIANGLES
        self._buffer = None
        self._geometry = None
        self.count = 0

    def set(self, vertices: np.ndarray) -> None:
        """Upload ``vertices``, a structured array of :data:`VERTEX`."""
        from arcade.gl import BufferDescription

        self.count = int(vertices.shape[0])
        if self.count == 0:
            return
        self._buffer, replaced = _grow(self.ctx, self._buffer, self.count, VERTEX.itemsize)
        if replaced or self._geometry is None:
            self._geometry = self.ctx.geometry(
                [BufferDescription(self._buffer, "2f 4f1", ["in_pos", "in_color"])], mode=self.mode)
        self._buffer.write(np.ascontiguousarray(vertices).tobytes())

    def draw(self, blend: bool = True) -> None:
        """Draw the triangles; ``blend=False`` for opaque ones (a backdrop): they overwrite the
        pixels, which a software rasteriser does faster than blending."""
        if self.count <= 0:
            return
        if blend:
            self.ctx.enable(self.ctx.BLEND)
            self._geometry.render(self.program, vertices=self.count)
            return
        self.ctx.disable(self.ctx.BLEND)
        try:
            self._geometry.render(self.program, vertices=self.count)
        finally:
            self.ctx.enable(self.ctx.BLEND)


def rects(boxes, colors) -> np.ndarray:
    """Two triangles per box ``(left, bottom, width, height)`` with colour ``(r, g, b, a)``, as
    :data:`VERTEX` rows for :class:`Triangles`."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    colors = np.broadcast_to(np.asarray(colors, dtype=np.uint8).reshape(-1, 4), (boxes.shape[0], 4))
    out = np.zeros(6 * boxes.shape[0], dtype=VERTEX)
    l, b, w, h = boxes.T
    corners = [(l, b), (l + w, b), (l + w, b + h), (l, b), (l + w, b + h), (l, b + h)]
    for k, (x, y) in enumerate(corners):
        out["pos"][k::6, 0] = x
        out["pos"][k::6, 1] = y
        out["color"][k::6] = colors
    return out
