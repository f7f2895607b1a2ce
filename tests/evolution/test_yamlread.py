"""Reading YAML files people write (:mod:`evolution.yamlread`): a tab, which YAML refuses for
indentation, is said to be one, at its place, whichever parser read the file (libyaml's and
PyYAML's own say it in words that do not name it, or name another problem on its line)."""

import pytest
import yaml

from evolution import yamlread
from evolution.yamlread import YamlError, compose

PARSERS = ["pyyaml"] + (["libyaml"] if getattr(yaml, "__with_libyaml__", False) else [])
INDENTATION = "tabs are not allowed for indentation, use spaces"


@pytest.fixture(params=PARSERS)
def parser(request, monkeypatch):
    source = yaml.CSafeLoader if request.param == "libyaml" else yaml.SafeLoader
    monkeypatch.setattr(yamlread, "_EventSource", source)


def _problem(text: str) -> str:
    with pytest.raises(YamlError) as info:
        compose(text, "f.yaml", 10_000)
    return str(info.value)


@pytest.mark.parametrize("text, place", [
    ("spheres:\n\t- {id: a}\n", "2:1"),             # a list item indented with a tab
    ("a:\n  b: 1\n\tc: 2\n", "3:1"),                # a key of a mapping indented with spaces
    ("a:\n \tb: 1\n", "2:2"),                       # a space, then a tab
    ("a: 1\n  \tb: 2\n", "2:3"),                    # libyaml speaks of mapping values here
    ("a: |\n\tx\n", "2:1"),                         # a block of text
])
def test_a_tab_in_the_indentation_is_said_to_be_one(parser, text, place):
    assert _problem(text) == f"f.yaml:{place}: {INDENTATION}"


def test_a_tab_after_a_list_dash_is_said_to_be_one(parser):
    assert _problem("a:\n  - 1\n  -\t2\n") == "f.yaml:3:4: a tab is not allowed here, use spaces"


def test_a_syntax_error_with_no_tab_keeps_its_words(parser):
    assert _problem("a: {b: 1\n").startswith("f.yaml:2:1: YAML syntax: ")


def test_tabs_inside_text_are_text(parser):
    assert compose('a: "x\ty"\n', "f.yaml", 10_000).value[0][1].value == "x\ty"
