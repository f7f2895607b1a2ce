"""Fixtures for the render tests. Arcade renders headless (EGL, Mesa's software GL): the switch
must be set before anything imports arcade or pyglet, hence at the very top of this file."""

import os

os.environ["ARCADE_HEADLESS"] = "1"

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def window():
    """One hidden 640x360 window for the whole session (arcade keeps one window per process)."""
    import arcade

    try:
        win = arcade.get_window()
    except RuntimeError:
        win = arcade.Window(640, 360, "render tests", visible=False)
    yield win
