"""The shape of the code (DEVELOPERS.md's architecture), read from the source with ``ast``:

- the layering: ``physics`` imports nothing of ours, ``evolution`` only ``physics``, ``render``
  nothing of ours, nothing imports ``creatures`` but ``creatures`` itself, and nothing outside
  ``creatures/cli`` imports it;
- no import circle among our modules;
- no source file over 1000 lines, no class over 700;
- no module importing another one's private names (``from .other import _name``).

An import anywhere in a module counts (inside a function too: it is still a dependency).
What breaks a rule today is listed below by name, so that nothing new can join it and each
entry has to go when its cause does (the test fails on a listed one that no longer breaks the
rule): issue 27 takes the lists down to nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("physics", "evolution", "render", "creatures")
MAX_FILE_LINES = 1000
MAX_CLASS_LINES = 700

#: which of our packages each package may import
ALLOWED = {"physics": set(), "evolution": {"physics"}, "render": set(),
           "creatures": {"physics", "evolution", "render"}}

#: today's exceptions (issue 27)
LONG_FILES: set[str] = set()
LONG_CLASSES: set[str] = set()
#: (a circle is named by every module on it; a package is its ``__init__``, which imports the
#: modules that would import it back)
CIRCLES: set[frozenset[str]] = set()


def _modules(root: Path = ROOT, packages=PACKAGES) -> dict[str, Path]:
    """Every module of ours: dotted name -> file."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ours that module ``name`` imports, anywhere in it. ``from a import b``
    imports ``a.b`` when that is a module, else ``a``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            # the module itself, or the nearest package of ours that holds it
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    return {name: _imports(name, path, modules) for name, path in modules.items()}


GRAPH = _graph(MODULES)


def _circles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The graph's strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), set()

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _top(name: str) -> str:
    return name.split(".")[0]


def test_the_packages_import_only_what_the_layering_allows():
    wrong = sorted(f"{name} imports {target}" for name, targets in GRAPH.items() for target in targets
                   if _top(target) != _top(name) and _top(target) not in ALLOWED[_top(name)])
    assert not wrong, wrong


def test_nothing_outside_the_command_line_imports_it():
    wrong = sorted(f"{name} imports {target}" for name, targets in GRAPH.items() for target in targets
                   if target.startswith("creatures.cli") and not name.startswith("creatures.cli")
                   and name not in ("creatures.__main__",))
    assert not wrong, wrong


def test_no_import_circles_but_the_listed_ones():
    circles = _circles(GRAPH)
    assert circles <= CIRCLES, sorted(sorted(c) for c in circles - CIRCLES)
    assert CIRCLES <= circles, ("no longer a circle, take it off the list", sorted(sorted(c) for c in CIRCLES - circles))


def _private_imports(modules: dict[str, Path]) -> set[str]:
    """``module imports other._name``: a private name (one underscore) taken from another module
    of ours (``from .other import _name``), anywhere in the module."""
    out = set()
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")
                source = ".".join(base[:len(base) - (node.level - 1)] + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] not in {m.split(".")[0] for m in modules}:
                continue
            out |= {f"{name} imports {source}.{alias.name}" for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")}
    return out


def _names(module: str, source: str, *names: str) -> set[str]:
    return {f"{module} imports {source}.{name}" for name in names}


#: today's exceptions (issue 27)
PRIVATE_IMPORTS: set[str] = set()


def test_no_module_imports_another_ones_private_names():
    found = _private_imports(MODULES)
    assert found <= PRIVATE_IMPORTS, sorted(found - PRIVATE_IMPORTS)
    assert PRIVATE_IMPORTS <= found, ("no longer imported, take it off the list", sorted(PRIVATE_IMPORTS - found))


def _long_files() -> set[str]:
    return {path.relative_to(ROOT).as_posix() for path in MODULES.values()
            if len(path.read_text(encoding="utf-8").splitlines()) > MAX_FILE_LINES}


def _long_classes() -> set[str]:
    out = set()
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES:
                out.add(f"{path.relative_to(ROOT).as_posix()}:{node.name}")
    return out


@pytest.mark.parametrize("measure, listed, what", [(_long_files, LONG_FILES, f"files over {MAX_FILE_LINES} lines"),
                                                   (_long_classes, LONG_CLASSES, f"classes over {MAX_CLASS_LINES} lines")])
def test_no_file_or_class_too_long_but_the_listed_ones(measure, listed, what):
    found = measure()
    assert found <= listed, (what, sorted(found - listed))
    assert listed <= found, ("no longer too long, take it off the list", sorted(listed - found))


def test_the_shape_rules_see_what_they_look_for(tmp_path):
    """The readers find what they are for, in a made-up package: relative and absolute imports,
    an import inside a function, a name imported from a package (the package counts), a
    circle, and a module that imports nothing of ours."""
    files = {"pkg/__init__.py": "from .a import thing\n",
             "pkg/a.py": "import os\nthing = 1\ndef f():\n    from . import b\n",
             "pkg/b.py": "from pkg.a import thing\nfrom pkg import helper\n",
             "pkg/sub/__init__.py": "",
             "pkg/sub/c.py": "from ..b import x\nimport numpy\n",
             "other/__init__.py": "import pkg.sub.c\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    modules = _modules(tmp_path, ("pkg", "other"))
    graph = _graph(modules)
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a", "pkg"}, "pkg.sub": set(),
                     "pkg.sub.c": {"pkg.b"}, "other": {"pkg.sub.c"}}
    assert _circles(graph) == {frozenset({"pkg", "pkg.a", "pkg.b"})}
