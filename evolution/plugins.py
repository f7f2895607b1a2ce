"""Plug-ins: tasks, sensors and terrains, found by name, by file, by module or by entry point.

Every task, sensor and terrain, the built-in ones included, is a plug-in of one of three kinds
(:data:`KINDS`). Wherever one is named (``creatures evolve --task T --terrain R --sensors S``,
``Episode.make``, the Gymnasium environment), the name takes one of these forms:

==========================  ===================================================================
form                        where the plug-in comes from
==========================  ===================================================================
``run``                     a registered name: built in, registered from Python with
                            :func:`register`, or announced by an installed package in the
                            entry-point group ``creatures.tasks`` / ``creatures.sensors`` /
                            ``creatures.terrains``
``path/to/file.py:Name``    a Python file (it is read, hashed and run as a module)
``package.module:Name``     an importable module
``path/to/course.yaml``     terrains only: a terrain file (data, never code;
                            :mod:`evolution.terrains`)
==========================  ===================================================================

``Name`` is a class (a subclass of :class:`evolution.Task`, :class:`evolution.Sensor` or
:class:`evolution.TerrainMaker`), or for terrains also a function ``f(seed) -> physics.Terrain``
or a ``physics.Terrain``; a zero-argument function that returns a task or sensor instance works
too (a configured variant).

Resolving a name gives a :class:`Plugin`: the thing itself and a :class:`PluginRef`, the plain
data that runs and champion files record (the name, the source, the location and, for a file, a
SHA-256 of its bytes). :func:`load_ref` finds a recorded plug-in again and refuses, in one line,
one that is missing or whose file has changed. Plug-ins are code the user chose to run: a file
or module named in a champion file is never loaded unless the user names it again
(``allow_code``).

Worker processes receive plug-ins pickled: a file plug-in travels as its source text (checked
against its hash on arrival), anything else as a reference to its class.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import importlib
import importlib.metadata
import os
import sys
import traceback
import types
from dataclasses import dataclass
from pathlib import Path

import physics

from .bases import PluginError, Sensor, Task, TerrainMaker
from .terrains import MAX_TERRAIN_BYTES, MAX_TERRAIN_POINTS, TerrainFileError, parse_terrain
from .yamlread import read_data

__all__ = ["KINDS", "ENTRY_POINT_GROUPS", "SOURCES", "BUILTINS", "PluginError", "PluginRef", "Plugin",
           "register", "resolve", "load_ref", "available", "plugin_failure", "load_terrain_file",
           "MAX_PLUGIN_BYTES"]

KINDS = ("task", "sensor", "terrain")
#: the entry-point groups installed packages announce their plug-ins in
ENTRY_POINT_GROUPS = {"task": "creatures.tasks", "sensor": "creatures.sensors",
                      "terrain": "creatures.terrains"}
#: where a plug-in can come from (``PluginRef.source``)
SOURCES = ("built-in", "registered", "entry point", "file", "module")
#: plug-in files larger than this are refused unread
MAX_PLUGIN_BYTES = 2_000_000

#: our own packages: a plug-in whose class lives here is a built-in
_OURS = ("evolution", "physics")

#: The built-in plug-ins, by where they are (``module:name``), as Gymnasium lists its
#: environments: the registry imports them when it is first asked for a plug-in, so the modules
#: that define them need nothing of the registry (they subclass :mod:`evolution.bases`).
BUILTINS = {
    "task": {**{name: f"evolution.tasks:{name.capitalize()}"
                for name in ("run", "jump", "climb", "obstacle", "swim", "fly")},
             "fly-far": "evolution.tasks:FlyFar"},
    "sensor": {name: f"evolution.sensors:{name.capitalize()}"
               for name in ("clock", "muscles", "joints", "contacts", "tilt", "height", "velocity", "rays")},
    "terrain": {name: f"evolution.terrains:{name}" for name in ("flat", "slope", "steps", "hills", "hurdles")},
}


@dataclass(frozen=True)
class PluginRef:
    """Where a plug-in came from, as plain data (what runs and champion files record).

    Attributes
    ----------
    kind : str
        ``task``, ``sensor`` or ``terrain``.
    name : str
        As the user named it: ``run``, ``flag.py:ReachFlag``, ``mypkg.tasks:Flag``,
        ``course.yaml``.
    source : str
        One of :data:`SOURCES`.
    location : str
        A file's absolute path; a module's ``module:attribute``; an entry point's value and its
        package (``mypkg.tasks:Flag (mypkg 1.2)``); for built-in and registered plug-ins the
        ``module:qualname`` of the class.
    sha256 : str
        The hash of a file's bytes (files, and the module file of a module plug-in), else ``""``.
    """

    kind: str
    name: str
    source: str
    location: str = ""
    sha256: str = ""

    def to_dict(self) -> dict:
        out = {"name": self.name, "source": self.source}
        if self.location and self.source != "built-in":
            out["location"] = self.location
        if self.sha256:
            out["sha256"] = self.sha256
        return out

    @classmethod
    def from_dict(cls, kind: str, data) -> "PluginRef":
        """Check and rebuild a recorded reference. Raises :class:`PluginError`."""
        if not isinstance(data, dict):
            raise PluginError(f"a recorded {kind} is not an object")
        values = {}
        for key, required in (("name", True), ("source", True), ("location", False), ("sha256", False)):
            v = data.get(key, "")
            if not isinstance(v, str) or (required and not v) or len(v) > 4096 or not v.isprintable():
                raise PluginError(f"a recorded {kind} has no proper '{key}'")
            values[key] = v
        if values["source"] not in SOURCES:
            raise PluginError(f"{kind} '{values['name']}' comes from an unknown source "
                              f"'{values['source']}'")
        return cls(kind, **values)

    @property
    def short(self) -> str:
        """The name without a file's folder (``flag_task.py:ReachFlag``), for titles."""
        if self.source == "file":
            left, _, attr = self.name.rpartition(":")
            return f"{Path(left).name}:{attr}" if left else Path(self.name).name
        return self.name

    def describe(self) -> str:
        """``task 'flag.py:ReachFlag' (file, /home/me/flag.py)``."""
        where = f", {self.location}" if self.location and self.source != "built-in" else ""
        return f"{self.kind} '{self.name}' ({self.source}{where})"


class Plugin:
    """A resolved plug-in: its :class:`PluginRef` and the target (a class, a factory, or for
    terrains a ``physics.Terrain``). Tasks and sensors are made with :meth:`create`, terrains
    with :meth:`make`."""

    def __init__(self, ref: PluginRef, target, text: str | None = None, problem: str | None = None):
        self.ref = ref
        self.target = target
        self._text = text          # a file plug-in's source, for workers
        self._sample = None
        #: why an installed plug-in cannot be used (listed by :func:`available`, not loadable)
        self.problem = problem

    kind = property(lambda self: self.ref.kind)
    name = property(lambda self: self.ref.name)

    def __repr__(self) -> str:
        return f"Plugin({self.ref.describe()})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Plugin) and other.ref == self.ref

    def __hash__(self) -> int:
        return hash(self.ref)

    def __reduce__(self):
        if self._text is not None:
            return (_plugin_from_text, (self.ref, self._text))
        if self.ref.source == "entry point":
            return (_plugin_from_entry_point, (self.ref,))
        return (Plugin, (self.ref, self.target))

    # --- tasks and sensors ----------------------------------------------------------------
    def create(self):
        """A new instance of the task or sensor (one per episode batch)."""
        base = {"task": Task, "sensor": Sensor}[self.kind]
        try:
            obj = self.target()
        except Exception as exc:
            raise plugin_failure(self.ref, "__init__()", exc) from None
        if not isinstance(obj, base):
            raise PluginError(f"{self.ref.describe()} made a {type(obj).__name__}, not an "
                              f"evolution.{base.__name__}")
        obj.name = self.name
        return obj

    @property
    def sample(self):
        """An instance to read descriptions from (made once)."""
        if self._sample is None:
            self._sample = self.create()
        return self._sample

    @property
    def description(self) -> str:
        if self.kind == "terrain":
            return _describe_target(self.target)
        return str(getattr(self.sample, "description", "") or _describe_target(type(self.sample)))

    # --- terrains -------------------------------------------------------------------------
    def make(self, seed: int = 0):
        """The terrain (a ``physics.Terrain``) for ``seed``, checked."""
        ref, target = self.ref, self.target
        try:
            if isinstance(target, physics.Terrain):
                terrain = target
            elif isinstance(target, TerrainMaker):
                terrain = target.make(seed)
            elif isinstance(target, type) and issubclass(target, TerrainMaker):
                terrain = target().make(seed)
            else:
                terrain = target(seed)
        except PluginError:
            raise
        except Exception as exc:
            raise plugin_failure(ref, "make", exc) from None
        if not isinstance(terrain, physics.Terrain):
            raise PluginError(f"{ref.describe()} made a {type(terrain).__name__}, not a physics.Terrain")
        if terrain.xs.size > MAX_TERRAIN_POINTS:
            raise PluginError(f"{ref.describe()} made a terrain of {terrain.xs.size} points; "
                              f"at most {MAX_TERRAIN_POINTS}")
        return terrain


def _describe_target(target) -> str:
    text = getattr(target, "description", "") or ""
    if not text:
        doc = getattr(target, "__doc__", None) or ""
        if isinstance(target, types.FunctionType) or isinstance(target, type):
            text = doc.strip().split("\n\n")[0].replace("\n", " ")
    return " ".join(str(text).split())


# --- the registry ---------------------------------------------------------------------------------

_REGISTRY: dict[str, dict[str, Plugin]] = {k: {} for k in KINDS}
_ENTRY_POINTS: dict[str, dict] | None = None


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"unknown plug-in kind {kind!r} (choose from {', '.join(KINDS)})")


def register(kind: str, name: str, target) -> Plugin:
    """Make ``target`` available under ``name`` (a built-in's name too: the user's plug-in replaces it).

    ``target`` is a class (or a zero-argument factory) for tasks and sensors; for terrains a
    :class:`evolution.TerrainMaker` subclass, a function ``f(seed) -> physics.Terrain`` or a
    ``physics.Terrain``. Names are words (letters, digits, ``-``, ``_``, ``.``); registering a
    name again replaces it."""
    _check_kind(kind)
    if not name or not all(c.isalnum() or c in "-_." for c in name):
        raise ValueError(f"a {kind} name is a word of letters, digits, '-', '_' or '.', not {name!r}")
    module = getattr(target, "__module__", None) or type(target).__module__
    qualname = getattr(target, "__qualname__", None) or type(target).__qualname__
    source = "built-in" if module.split(".")[0] in _OURS else "registered"
    plugin = Plugin(PluginRef(kind, name, source, f"{module}:{qualname}"), target)
    _REGISTRY[kind][name] = plugin
    return plugin


_BUILTINS_LOADED = False


def _builtins_loaded() -> None:
    """The built-ins (:data:`BUILTINS`) in the registry, imported the first time (a name the user
    registered first keeps the user's plug-in, as registering after them replaces them)."""
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    for kind, names in BUILTINS.items():
        for name, location in names.items():
            module, attr = location.split(":")
            target = getattr(importlib.import_module(module), attr)
            _REGISTRY[kind].setdefault(name, Plugin(PluginRef(kind, name, "built-in", location), target))
    _BUILTINS_LOADED = True


def load_terrain_file(path, name: str | None = None) -> Plugin:
    """A terrain file (:mod:`evolution.terrains`) as a terrain plug-in. Raises
    :class:`evolution.terrains.TerrainFileError` with every problem (file:line:column) or for a
    file that cannot be read."""
    path = Path(path)
    source = str(path)
    data, text = read_data(path, MAX_TERRAIN_BYTES, TerrainFileError, "terrain file")
    terrain = parse_terrain(text, source, default_name=path.stem)
    sha = hashlib.sha256(data).hexdigest()  # of the bytes, as for every file plug-in
    ref = PluginRef("terrain", name or source, "file", str(path.expanduser().resolve()), sha)
    return Plugin(ref, terrain)


def _entry_points() -> dict:
    """``{kind: {name: EntryPoint}}`` of the installed packages (read once)."""
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        found = {k: {} for k in KINDS}
        for kind, group in ENTRY_POINT_GROUPS.items():
            try:
                eps = importlib.metadata.entry_points(group=group)
            except Exception:  # a broken installation's metadata: no entry points
                eps = ()
            for ep in eps:
                found[kind].setdefault(ep.name, ep)
        _ENTRY_POINTS = found
    return _ENTRY_POINTS


def _entry_point_ref(kind: str, ep) -> PluginRef:
    dist = getattr(ep, "dist", None)
    package = f" ({dist.name} {dist.version})" if dist is not None else ""
    return PluginRef(kind, ep.name, "entry point", f"{ep.value}{package}")


def _load_entry_point(kind: str, ep) -> Plugin:
    ref = _entry_point_ref(kind, ep)
    try:
        target = ep.load()
    except Exception as exc:
        raise plugin_failure(ref, "loading", exc) from None
    return Plugin(ref, target)


def _plugin_from_entry_point(ref: PluginRef) -> Plugin:
    ep = _entry_points()[ref.kind].get(ref.name)
    if ep is None:
        raise PluginError(f"{ref.describe()} is not installed here")
    return _load_entry_point(ref.kind, ep)


def available(kind: str) -> list[Plugin]:
    """Every registered and installed plug-in of ``kind``: built-ins first, then registered,
    then entry points, loaded (one that fails to load is listed with its :attr:`Plugin.problem`;
    one whose name is already taken is listed, and loses to the other when named)."""
    _check_kind(kind)
    _builtins_loaded()
    plugins = sorted(_REGISTRY[kind].values(), key=lambda p: (p.ref.source != "built-in", p.name))
    for name, ep in sorted(_entry_points()[kind].items()):
        try:
            plugins.append(_load_entry_point(kind, ep))
        except PluginError as exc:
            plugins.append(Plugin(_entry_point_ref(kind, ep), None, problem=str(exc)))
    return plugins


# --- resolving a name ---------------------------------------------------------------------------------

def _looks_like_path(text: str) -> bool:
    return text.endswith(".py") or "/" in text or os.sep in text


def resolve(kind: str, spec: str) -> Plugin:
    """The plug-in of ``kind`` named ``spec`` (see the module docstring for the forms).
    Raises :class:`PluginError` with one line."""
    _check_kind(kind)
    if not isinstance(spec, str) or not spec.strip():
        raise PluginError(f"an empty {kind} name")
    spec = spec.strip()
    if kind == "terrain" and spec.lower().endswith((".yaml", ".yml")):
        return load_terrain_file(spec)
    if ":" in spec:
        left, attr = spec.rsplit(":", 1)
        if not attr.isidentifier():
            raise PluginError(f"{kind} '{spec}': after the ':' comes a class or function name, "
                              f"not '{attr}'")
        if _looks_like_path(left):
            return _from_file(kind, spec, Path(left), attr)
        return _from_module(kind, spec, left, attr)
    if _looks_like_path(spec):
        raise PluginError(_file_without_name(kind, spec))
    _builtins_loaded()
    plugin = _REGISTRY[kind].get(spec)
    if plugin is not None:
        return plugin
    ep = _entry_points()[kind].get(spec)
    if ep is not None:
        return _load_entry_point(kind, ep)
    names = sorted(set(_REGISTRY[kind]) | set(_entry_points()[kind]))
    close = difflib.get_close_matches(spec, names, n=1, cutoff=0.6)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    more = " or a terrain file (.yaml)" if kind == "terrain" else ""
    raise PluginError(f"unknown {kind} '{spec}'{hint}: choose from {', '.join(names)}, "
                      f"or name a file (path/to/file.py:ClassName){more} or a module "
                      f"(package.module:ClassName)")


#: the class a plug-in of each kind subclasses (for naming the likely ones in a file)
_BASES = {"task": "Task", "sensor": "Sensor", "terrain": "TerrainMaker"}


def _file_without_name(kind: str, spec: str) -> str:
    """Why a plug-in file named without what in it to use (``--task my_task.py``) is refused:
    the form expected, and the classes the file defines, those of ``kind`` first (read with
    :mod:`ast`: nothing in the file runs)."""
    form = f"{spec}:{'Name' if kind == 'terrain' else 'ClassName'}"
    message = f"{kind} '{spec}' names a file but not what in it to use: write {form}"
    try:
        data, _ = _read_file(kind, Path(spec), f"{kind} '{spec}'")
        tree = ast.parse(data)
    except PluginError as exc:
        return f"{exc} (and a plug-in file is named with what in it to use: {form})"
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return message
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    base = lambda b: b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", None)  # noqa: E731
    ours = [c.name for c in classes if any(base(b) == _BASES[kind] for b in c.bases)]
    names = ours or [c.name for c in classes]
    if names:
        message += f" (it defines {', '.join(names)}: {spec}:{names[0]}, say)"
    return message


def _read_file(kind: str, path: Path, what: str) -> tuple[bytes, Path]:
    try:
        path = path.expanduser().resolve()
        size = path.stat().st_size
        if not path.is_file():
            raise PluginError(f"{kind} file {path} is not a file")
        if size > MAX_PLUGIN_BYTES:
            raise PluginError(f"{kind} file {path} is {size} bytes; plug-ins are at most {MAX_PLUGIN_BYTES}")
        return path.read_bytes(), path
    except FileNotFoundError:
        raise PluginError(f"{what}: no such file {path}") from None
    except OSError as exc:
        raise PluginError(f"{what}: cannot read {path}: {exc.strerror or exc}") from None


def _from_file(kind: str, spec: str, path: Path, attr: str, expect_sha: str | None = None) -> Plugin:
    data, path = _read_file(kind, path, f"{kind} '{spec}'")
    sha = hashlib.sha256(data).hexdigest()
    ref = PluginRef(kind, spec, "file", str(path), sha)
    if expect_sha is not None and sha != expect_sha:
        raise PluginError(f"{kind} '{spec}': {path} has changed since it was recorded "
                          f"(sha256 {sha[:12]}..., recorded {expect_sha[:12]}...)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PluginError(f"{kind} file {path} is not UTF-8 text") from None
    module = _exec_module(ref, text)
    return Plugin(ref, _attribute(ref, module, attr), text)


def _plugin_from_text(ref: PluginRef, text: str) -> Plugin:
    """A file plug-in received as text (in a worker): checked against its hash, run once."""
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != ref.sha256:
        raise PluginError(f"{ref.describe()}: the code received does not match its hash")
    module = _exec_module(ref, text)
    return Plugin(ref, _attribute(ref, module, ref.name.rsplit(":", 1)[1]), text)


def _exec_module(ref: PluginRef, text: str) -> types.ModuleType:
    """Run a plug-in file's text as a module (once per file and content: cached by both)."""
    path = Path(ref.location)
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    where = hashlib.sha256(ref.location.encode("utf-8", "replace")).hexdigest()[:8]
    name = f"creatures_plugin_{stem}_{where}_{ref.sha256[:12]}"
    if name in sys.modules:
        return sys.modules[name]
    try:
        code = compile(text, str(path), "exec")
    except SyntaxError as exc:
        raise PluginError(f"{path}:{exc.lineno}:{exc.offset or 0}: {ref.kind} plug-in has a syntax "
                          f"error: {exc.msg}") from None
    except ValueError as exc:  # null bytes
        raise PluginError(f"{ref.kind} file {path} cannot be compiled: {exc}") from None
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    folder = str(path.parent)
    added = folder not in sys.path
    if added:  # as Python does for a script: modules beside it can be imported
        sys.path.insert(0, folder)
    try:
        exec(code, module.__dict__)
    except BaseException as exc:
        del sys.modules[name]
        if not isinstance(exc, Exception):
            raise
        raise plugin_failure(ref, "loading", exc) from None
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)
    return module


def _from_module(kind: str, spec: str, module_name: str, attr: str) -> Plugin:
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise PluginError(f"{kind} '{spec}': no module named '{module_name}' (for a file, "
                              f"write its path: ./{module_name.replace('.', '/')}.py:{attr})") from None
        raise plugin_failure(PluginRef(kind, spec, "module", spec), "loading", exc) from None
    except Exception as exc:
        raise plugin_failure(PluginRef(kind, spec, "module", spec), "loading", exc) from None
    sha = ""
    file = getattr(module, "__file__", None)
    if file:
        try:
            sha = hashlib.sha256(Path(file).read_bytes()).hexdigest()
        except OSError:
            pass
    ref = PluginRef(kind, spec, "module", f"{module_name}:{attr}", sha)
    return Plugin(ref, _attribute(ref, module, attr))


def _attribute(ref: PluginRef, module, attr: str):
    """``module.attr``, checked to be something of the plug-in's kind."""
    where = ref.location if ref.source == "file" else module.__name__
    try:
        target = getattr(module, attr)
    except AttributeError:
        names = [n for n, v in vars(module).items() if not n.startswith("_") and isinstance(v, type)]
        close = difflib.get_close_matches(attr, names, n=1, cutoff=0.6)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise PluginError(f"{ref.kind} '{ref.name}': {where} has no '{attr}'{hint}") from None
    base = {"task": Task, "sensor": Sensor, "terrain": TerrainMaker}[ref.kind]
    if isinstance(target, type):
        if not issubclass(target, base):
            raise PluginError(f"{ref.kind} '{ref.name}': {attr} in {where} is not a {ref.kind} "
                              f"(make it a subclass of evolution.{base.__name__})")
        return target
    if ref.kind == "terrain" and isinstance(target, (physics.Terrain, TerrainMaker)):
        return target
    if callable(target):
        return target
    raise PluginError(f"{ref.kind} '{ref.name}': {attr} in {where} is a {type(target).__name__}, "
                      f"not a {ref.kind} (a subclass of evolution.{base.__name__})")


# --- finding a recorded plug-in again --------------------------------------------------------------

def load_ref(ref: PluginRef, allow_code: bool = True, named=()) -> Plugin:
    """The plug-in a run or a champion recorded, found again: the same name from the same
    source, and for a file or module the same bytes. Raises :class:`PluginError` with one line
    saying which plug-in is missing or changed and where it was expected.

    ``allow_code=False`` (a champion file, which anyone may have sent) loads only built-ins and
    installed entry points, and files or modules the user named again: ``named`` holds the
    user's ``--plugin`` values (``path/to/flag.py``, ``path/to/flag.py:ReachFlag``,
    ``package.module``...). A named file stands for a recorded one of the same file name, and
    must have the recorded hash."""
    mine = _named_for(ref, named)
    if mine is not None:
        return mine
    if ref.source == "built-in":
        _builtins_loaded()
        plugin = _REGISTRY[ref.kind].get(ref.name)
        if plugin is None or plugin.ref.source != "built-in":
            raise PluginError(f"{ref.describe()} is not a built-in of this version of creatures")
        return plugin
    if ref.source == "registered":
        plugin = _REGISTRY[ref.kind].get(ref.name)
        if plugin is None:
            raise PluginError(f"{ref.describe()} was registered from Python and is not registered "
                              f"now (register it again, or name its module)")
        return plugin
    if ref.source == "entry point":
        return _plugin_from_entry_point(ref)
    if not allow_code:
        where = ref.location.rsplit(":", 1)[0] if ref.source == "module" else ref.location
        raise PluginError(f"{ref.describe()} is code, and a shared file never runs code by itself: "
                          f"if you trust it, name it with --plugin {where}")
    if ref.source == "file":
        if ref.kind == "terrain" and ref.name.lower().endswith((".yaml", ".yml")):
            plugin = load_terrain_file(ref.location, name=ref.name)
            if ref.sha256 and plugin.ref.sha256 != ref.sha256:
                raise PluginError(f"{ref.describe()}: the file has changed since it was recorded")
            return plugin
        return _from_file(ref.kind, ref.name, Path(ref.location), ref.name.rsplit(":", 1)[1],
                          expect_sha=ref.sha256 or None)
    module_name, attr = ref.location.rsplit(":", 1)
    plugin = _from_module(ref.kind, ref.name, module_name, attr)
    if ref.sha256 and plugin.ref.sha256 != ref.sha256:
        raise PluginError(f"{ref.describe()}: the module's file has changed since it was recorded")
    return plugin


def _named_for(ref: PluginRef, named) -> Plugin | None:
    """The plug-in the user named (``--plugin``) that stands for ``ref``, if any."""
    if ref.source not in ("file", "module") or not named:
        return None
    recorded_attr = ref.location.rsplit(":", 1)[1] if ref.source == "module" else ref.name.rsplit(":", 1)[-1]
    for spec in named:
        left, attr = (spec.rsplit(":", 1) if ":" in spec and not spec.endswith(":") else (spec, None))
        if attr is not None and attr != recorded_attr:
            continue
        if ref.source == "file" and _looks_like_path(left) and Path(left).name == Path(ref.location).name:
            if ref.kind == "terrain" and left.lower().endswith((".yaml", ".yml")):
                plugin = load_terrain_file(left, name=ref.name)
            else:
                plugin = _from_file(ref.kind, ref.name, Path(left), recorded_attr)
            if ref.sha256 and plugin.ref.sha256 != ref.sha256:
                raise PluginError(f"{ref.describe()}: the file you named ({plugin.ref.location}) is not "
                                  f"the one recorded (its sha256 differs: it has changed)")
            return plugin
        if ref.source == "module" and left == ref.location.rsplit(":", 1)[0]:
            plugin = _from_module(ref.kind, ref.name, left, recorded_attr)
            if ref.sha256 and plugin.ref.sha256 != ref.sha256:
                raise PluginError(f"{ref.describe()}: the module you named is not the one recorded "
                                  f"(its file's sha256 differs)")
            return plugin
    return None


# --- errors inside a plug-in -------------------------------------------------------------------------

def plugin_failure(ref: PluginRef, method: str, exc: BaseException) -> PluginError:
    """One line for an exception raised inside a plug-in's ``method``: which plug-in, what went
    wrong, and the file and line it happened at (the innermost frame of the plug-in's own file,
    or else the innermost frame outside this package)."""
    frames = traceback.extract_tb(exc.__traceback__)
    here = ""
    ours = str(Path(__file__).parent)
    mine = [f for f in frames if ref.location and f.filename == ref.location]
    outside = [f for f in frames if not f.filename.startswith(ours)]
    frame = (mine or outside or frames or [None])[-1]
    if frame is not None:
        here = f" at {frame.filename}:{frame.lineno}"
    message = str(exc).splitlines()[0] if str(exc) else ""
    what = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return PluginError(f"{ref.describe()} failed in {method}: {what}{here}")
