"""The README and the documentation in ``docs/`` stay true: the design example is a valid design
that moves, and the outputs they show of deterministic commands are what those commands print now.
The README is the landing page (the tour); the reference, the measurements and the engineering notes
are pages of ``docs/``, built by MkDocs (``test_docs.py``)."""

import re
import shlex
from pathlib import Path

import pytest

from creatures.design import parse_design
from creatures.simulation import run_simulation

README = Path(__file__).parents[2] / "README.md"
DOCS = README.parent / "docs"


def _text() -> str:
    """The README and then every page of ``docs/``: where the outputs they show are looked for."""
    return "\n".join([README.read_text(encoding="utf-8")]
                     + [page.read_text(encoding="utf-8") for page in sorted(DOCS.glob("*.md"))])


def test_readme_design_example_is_valid_and_moves():
    blocks = re.findall(r"```yaml\n(.*?)```", (DOCS / "designs.md").read_text(), flags=re.S)
    assert blocks, "the documentation should show a design"
    design = parse_design(blocks[0], "docs/designs.md")
    summary = run_simulation(design.body, seconds=5.0, muscles="sine")
    assert summary["finite"] and summary["broken"] is None
    assert abs(summary["distance"]) > 0.1


# --- what a newcomer sees first, and links that lead somewhere ----------------------------------

REPO = README.parent


def _first_screen() -> str:
    """The README's first 60 lines: what a newcomer reads before scrolling far."""
    return "\n".join(README.read_text().splitlines()[:60])


def test_the_first_screen_shows_a_creature_moving():
    gifs = re.findall(r"!\[[^\]]*\]\((saves/[^)\s]+\.gif)\)", _first_screen())
    assert gifs, "the first 60 lines should show a GIF of a creature"
    assert all((REPO / gif).is_file() for gif in gifs), gifs


def test_the_first_screen_says_how_creatures_gets_on_the_path():
    """The set-up installs ``creatures`` into the venv; the examples and the program's hints say
    bare ``creatures``, so the first screen says how to reach it, and then to play."""
    top = _first_screen()
    assert ". .venv/bin/activate" in top and ".venv/bin/creatures play" in top
    assert top.index(". .venv/bin/activate") < top.index("\ncreatures play")


def test_the_readme_shows_the_test_command_ci_runs():
    """``.ci/run`` runs the README's test command verbatim, so a newcomer runs what CI runs."""
    command = (REPO / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert command.startswith("sh .ci/system-packages")
    assert f"\n{command}\n" in README.read_text()


def _outside_code(text: str) -> str:
    """``text`` without its fenced code blocks and inline code spans."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M))


def test_every_file_the_readme_links_to_exists():
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", _outside_code(README.read_text()))
    local = [t for t in targets if not re.match(r"[a-z]+://", t)]
    assert local, "the README links its pictures and files"
    assert [t for t in local if not (REPO / t).exists()] == []


def _github_anchors(text: str) -> set:
    """The anchors GitHub makes of the headings: lower case, punctuation gone, spaces to hyphens,
    a repeated one numbered."""
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        name, k = slug, 0
        while name in anchors:
            k += 1
            name = f"{slug}-{k}"
        anchors.add(name)
    return anchors


def test_every_link_within_the_readme_leads_to_a_heading():
    text = README.read_text()
    links = set(re.findall(r"\]\(#([^)]+)\)", _outside_code(text)))
    assert links, "the README links its own sections"
    assert sorted(links - _github_anchors(text)) == []


def test_every_link_from_the_readme_into_the_docs_leads_to_a_heading():
    """``docs/PAGE.md#anchor``: the page exists and has that heading (MkDocs makes the same anchors
    of these headings as GitHub; ``mkdocs build --strict`` checks the links among the pages)."""
    links = re.findall(r"\]\((docs/[^)#\s]+\.md)(?:#([^)]*))?\)", _outside_code(README.read_text()))
    assert len(links) >= 10, "the README links the reference, the measurements and the notes"
    broken = [(page, a) for page, a in links
              if not (REPO / page).is_file() or (a and a not in _github_anchors((REPO / page).read_text()))]
    assert broken == []


def test_the_readme_is_a_landing_page():
    """Under 400 lines, the two set-up commands at its top as they have always been, and a link to
    every page of the documentation."""
    text = README.read_text()
    assert len(text.splitlines()) < 400
    top = "\n".join(text.splitlines()[:25])
    assert ("```sh\n# set up and run the main job on the built-in default: evolve the walker's brain to run\n"
            "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/creatures evolve\n```") in top
    assert ("```sh\n# set up and run the tests on every core (the first part apt-installs Mesa's EGL and Xvfb "
            "where missing, for the viewer's tests)\nsh .ci/system-packages && python3 -m venv .venv && "
            ".venv/bin/pip install -q -e \".[test]\" && .venv/bin/python -m pytest -q\n```") in top
    linked = set(re.findall(r"\]\(docs/([^)#\s]+\.md)", text))
    assert {p.name for p in DOCS.glob("*.md")} - linked == set()


def test_the_readme_names_no_internal_issue_numbers():
    """A reader has no use for the tracker's numbers ("done (issue 7)"), in the README or the docs."""
    assert re.findall(r".{0,30}\bissues? #?\d+.{0,30}", _text(), flags=re.I) == []


# --- the README's deterministic command outputs, re-run --------------------------------------------

#: commands whose output does not depend on the machine or the time, as the README shows them
DETERMINISTIC = ("creatures designs", "creatures designs walker",
                 "creatures simulate walker --muscles random --seconds 20",
                 "creatures tasks", "creatures tasks --check my_task.py:Upright",
                 "creatures challenge board sprint saves", "creatures random --count 3 --seed 1 --out zoo")


def _shown_commands() -> dict:
    """``{command: its output as shown}`` for the README's text blocks of deterministic commands."""
    shown = {}
    for block in re.findall(r"```text\n(.*?)```", _text(), flags=re.S):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command in DETERMINISTIC:
                    shown[command] = "\n".join(output)
                command, output = line[2:].split("  #")[0].strip(), []
            else:
                output.append(line)
        if command in DETERMINISTIC:
            shown[command] = "\n".join(output)
    return shown


def test_the_readme_shows_the_deterministic_commands():
    assert set(_shown_commands()) == set(DETERMINISTIC)


@pytest.mark.parametrize("command", DETERMINISTIC)
def test_readme_outputs_are_what_the_commands_print_now(command, tmp_path, run_creatures):
    python = re.findall(r"```python\n(import numpy as np\n\nimport evolution\n\n\nclass Upright.*?)```",
                        _text(), flags=re.S)
    (tmp_path / "my_task.py").write_text(python[0])
    (tmp_path / "saves").symlink_to(REPO / "saves")     # the shipped champions, as in a clone
    r = run_creatures(*shlex.split(command)[1:], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip("\n") == _shown_commands()[command]


def test_readme_shows_the_end_of_a_run_as_creatures_evolve_prints_it():
    """The README's runs end with the files and the next steps exactly as :func:`drive` words them
    for that run directory (the numbers above them are the machine's)."""
    from creatures.cli.evolve import next_steps
    from creatures.runs import task_slug
    text = _text()
    runs = re.findall(r"\$ creatures evolve (\S+) --task (\S+) .*?-> (\S+)\n(.*?)```", text, flags=re.S)
    assert len(runs) >= 2
    for design, task, out, output in runs:
        expected = next_steps(Path(out), f"{design}-{task_slug(task)}.json")
        assert output.rstrip("\n").endswith(expected), out


# --- the README's evolution runs, re-run --------------------------------------------------------

#: a generation line or the last line of a run, without its seconds (the machine's, not the run's)
RUN_LINE = re.compile(r"^(gen +\d+ .*?|done in) +[\d.]+ s(?: eval +[\d.]+ s wall)?(.*)$")


def _run_lines(text: str) -> dict:
    """``{generation or 'done': the line without its time}`` of the lines of a run's output."""
    lines = {}
    for line in text.splitlines():
        m = RUN_LINE.match(line)
        if m:
            key = "done" if m.group(1) == "done in" else int(m.group(1).split()[1])
            lines[key] = (m.group(1) + m.group(2)).strip()
    return lines


def _evolve(run_creatures, tmp_path, *args) -> dict:
    r = run_creatures("evolve", *args, "--out", tmp_path / "run", cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stderr
    return _run_lines(r.stdout)


def _blocks_after(command: str) -> str:
    """The output the README or the docs show under ``$ command`` (up to the next command or block
    end)."""
    text = _text()
    start = text.index(f"$ {command}\n") + len(command) + 3
    return text[start:re.compile(r"^(\$ |```)", re.M).search(text, start).start()]


def test_readme_evolution_runs_are_what_seed_0_runs_print_now(tmp_path, run_creatures):
    """The walker run the README shows (seed 0, 50 generations), and the stopped-and-resumed run
    (the same seed: the same generations 37 and 38), line for line but for the seconds."""
    real = _evolve(run_creatures, tmp_path, "walker", "--task", "run", "--generations", "50")
    shown = _run_lines(_blocks_after("creatures evolve walker --task run --generations 50"))
    shown.update(_run_lines(_blocks_after("creatures evolve walker --generations 100 --out runs/w1")))
    shown.update(_run_lines(_blocks_after("creatures resume runs/w1")))
    assert {1, 2, 37, 38, "done"} <= set(shown)
    for key, line in shown.items():
        assert line == real[key], key


def test_readme_plug_in_run_is_what_a_seed_0_run_prints_now(tmp_path, run_creatures):
    python = re.findall(r"```python\n(import numpy as np\n\nimport evolution\n\n\nclass Upright.*?)```",
                        _text(), flags=re.S)
    (tmp_path / "my_task.py").write_text(python[0])
    real = _evolve(run_creatures, tmp_path, "walker", "--task", "my_task.py:Upright", "--generations", "30")
    shown = _run_lines(_blocks_after("creatures evolve walker --task my_task.py:Upright --generations 30 "
                                     "--out runs/upright"))
    assert {1, 2, 30, "done"} <= set(shown)
    for key, line in shown.items():
        assert line == real[key], key


def test_readme_evolving_body_run_is_what_a_seed_0_run_prints_now(tmp_path, run_creatures):
    """The walker-evolving run the README shows (seed 0, 10 generations): its generation lines,
    and the champion's body against the design's start, as the run prints them now."""
    command = "creatures evolve walker-evolving --task run --generations 10 --out runs/legs"
    r = run_creatures("evolve", "walker-evolving", "--task", "run", "--generations", "10",
                      "--out", tmp_path / "run", cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stderr
    shown_text = _blocks_after(command)
    shown, real = _run_lines(shown_text), _run_lines(r.stdout)
    assert {1, 10, "done"} <= set(shown)
    for key, line in shown.items():
        assert line == real[key], key

    def body_table(text):
        lines = text.splitlines()
        start = next(k for k, line in enumerate(lines) if line.startswith("the champion's body"))
        end = next(k for k, line in enumerate(lines) if line.startswith("results in"))
        return lines[start:end]

    assert len(body_table(shown_text)) == 1 + 16
    assert body_table(shown_text) == body_table(r.stdout)
