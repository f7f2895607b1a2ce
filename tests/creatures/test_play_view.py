"""The evolution screen (render/play.py) on a champion file, offscreen: no chart before a run
exists, and E turns it into a run's screen (its buttons, its chart)."""

import os

os.environ.setdefault("ARCADE_HEADLESS", "1")  # before anything imports arcade: draw offscreen

from pathlib import Path  # noqa: E402

REPO = Path(__file__).parents[2]


def test_a_champion_file_becomes_a_run_on_E(tmp_path, monkeypatch):
    import arcade

    from creatures.session import PlaySession
    from evolution.champion import load_champion
    from render.play import PlayView
    monkeypatch.chdir(tmp_path)
    try:
        window = arcade.get_window()
    except RuntimeError:
        window = arcade.Window(640, 360, "play view", visible=False)
    champion = load_champion(REPO / "saves" / "walker-run.json")
    session = PlaySession(workers=1, champion=champion, out_dir=str(tmp_path / "runs"))
    drawn = []
    try:
        view = PlayView(session, window=window, on_quit=lambda: None)
        view.chart.draw = lambda: drawn.append(1)
        view.on_update(1 / 60)
        view.on_draw()
        assert set(view.buttons) == {"evolve", "card", "hall", "help"} and not drawn and view.mode == "champion"
        assert "a champion file" in view.status
        view.on_key_press(arcade.key.E, 0)
        assert session.state == "evolving" and session.run_dir is not None
        assert {"pause", "ghosts", "race", "save", "card", "hall", "help"} == set(view.buttons)
        view.on_draw()
        assert drawn and view.mode == "live" and "evolving" in view.status
    finally:
        session.close()
