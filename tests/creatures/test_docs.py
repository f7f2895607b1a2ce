"""The documentation site builds: ``mkdocs build --strict`` (MkDocs, Material and mkdocstrings are in
the ``test`` extra) fails on a broken link, a missing anchor, a page left out of the nav or an API
object mkdocstrings cannot find."""

import os
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).parents[2]


def test_mkdocs_build_strict_passes(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"),
                        "-d", str(tmp_path / "site")], cwd=REPO, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    for page in ("index.html", "commands/index.html", "evolving/index.html", "api/index.html"):
        assert (tmp_path / "site" / page).is_file(), page
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("SimParams", "build_model", "Task", "Sensor", "TerrainMaker", "CreatureEnv"):
        assert name in api, name
    # the docstrings' Sphinx cross-references show as code names, without their role (docs/hooks.py)
    assert "<code>build_model</code>" in api and ":func:<code>" not in api and ":class:<code>" not in api


def test_every_page_is_in_the_nav():
    """A page of ``docs/`` is reachable from the site's navigation."""
    class Loader(yaml.SafeLoader):
        pass
    Loader.add_multi_constructor("", lambda loader, suffix, node: None)   # !!python/name: tags
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)

    def pages(nav):
        for item in nav:
            if isinstance(item, str):
                yield item
            else:
                for value in item.values():
                    yield from ([value] if isinstance(value, str) else pages(value))

    assert sorted(pages(config["nav"])) == sorted(p.name for p in (REPO / "docs").glob("*.md"))
