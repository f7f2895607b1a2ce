"""Finding plug-ins: by registered name, by file, by module and by entry point; what a resolved
plug-in records (its reference), finding a recorded one again, and one-line errors for every
way a plug-in can be missing, changed or wrong."""

from __future__ import annotations

import hashlib
import pickle
import textwrap

import pytest

import evolution
import evolution.plugins as plugins
from evolution import DEFAULT_SENSORS, PluginError, PluginRef, Sensor, Task, load_ref, resolve, sensor_list
from plugin_helpers import sensors_file, tasks_file, write

BUILTIN = {"task": {"run", "jump", "climb", "obstacle", "swim", "fly", "fly-far"},
           "sensor": {"clock", "muscles", "joints", "contacts", "tilt", "height", "velocity", "rays"},
           "terrain": {"flat", "slope", "steps", "hills", "hurdles"}}


def _one_line(exc) -> str:
    text = str(exc.value)
    assert "\n" not in text and "Traceback" not in text
    return text


# --- registered names ------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["task", "sensor", "terrain"])
def test_the_builtins_are_registered_plugins_of_their_kind(kind):
    builtins = {p.name: p for p in evolution.available(kind) if p.ref.source == "built-in"}
    assert set(builtins) == BUILTIN[kind]
    for name, plugin in builtins.items():
        assert resolve(kind, name) is plugin
        assert plugin.description, name
        assert plugin.ref.to_dict() == {"name": name, "source": "built-in"}


def test_builtin_tasks_and_sensors_are_instances_of_the_public_base_classes():
    for name in BUILTIN["task"]:
        assert isinstance(resolve("task", name).create(), Task)
    for name in BUILTIN["sensor"]:
        assert isinstance(resolve("sensor", name).create(), Sensor)


def test_register_makes_a_user_class_available_by_name(tmp_path):
    class Still(Task):
        measures = "nothing"

        def fitness(self):
            return 0.0

    plugin = evolution.register("task", "test-still", Still)
    try:
        assert resolve("task", "test-still") is plugin
        assert plugin.ref.source == "registered"
        assert plugin.ref.location.endswith(":test_register_makes_a_user_class_available_by_name.<locals>.Still")
        assert "test-still" in {p.name for p in evolution.available("task")}
    finally:
        del plugins._REGISTRY["task"]["test-still"]


@pytest.mark.parametrize("name", ["", "two words", "a/b", "x:y"])
def test_register_refuses_names_that_are_not_words(name):
    with pytest.raises(ValueError):
        evolution.register("task", name, Task)


def test_an_unknown_name_lists_what_there_is():
    with pytest.raises(PluginError) as exc:
        resolve("sensor", "eyes")
    text = _one_line(exc)
    assert text.startswith("unknown sensor 'eyes'")
    assert "clock" in text and "rays" in text and "path/to/file.py:ClassName" in text


# --- files -------------------------------------------------------------------------------------------

def test_a_file_plugin_records_its_path_and_hash(tmp_path):
    path = tasks_file(tmp_path)
    plugin = resolve("task", f"{path}:Rise")
    assert plugin.ref == PluginRef("task", f"{path}:Rise", "file", str(path.resolve()),
                                   hashlib.sha256(path.read_bytes()).hexdigest())
    task = plugin.create()
    assert isinstance(task, Task) and task.name == f"{path}:Rise"
    assert plugin.sample.measures == "metres of rise"
    assert plugin.description == "Rise: lift the centre of mass."


def test_a_relative_file_path_works(tmp_path, monkeypatch):
    tasks_file(tmp_path)
    monkeypatch.chdir(tmp_path)
    plugin = resolve("task", "./my_tasks.py:Rise")
    assert plugin.ref.location == str((tmp_path / "my_tasks.py").resolve())


def test_a_factory_function_makes_a_configured_plugin(tmp_path):
    path = tasks_file(tmp_path)
    assert type(resolve("task", f"{path}:factory").create()).__name__ == "Rise"


def test_a_file_is_run_once_however_often_it_is_named(tmp_path):
    path = write(tmp_path, "counted.py", """
        import evolution
        import builtins
        builtins.COUNTED = getattr(builtins, "COUNTED", 0) + 1

        class T(evolution.Task):
            def fitness(self):
                return 0
        """)
    import builtins
    before = getattr(builtins, "COUNTED", 0)
    a, b = resolve("task", f"{path}:T"), resolve("task", f"{path}:T")
    assert a.target is b.target and builtins.COUNTED == before + 1


def test_modules_beside_a_plugin_file_can_be_imported(tmp_path):
    write(tmp_path, "helper_for_plugin.py", "MEASURES = 'from a helper'\n")
    path = write(tmp_path, "uses_helper.py", """
        import evolution
        from helper_for_plugin import MEASURES

        class T(evolution.Task):
            measures = MEASURES
        """)
    assert resolve("task", f"{path}:T").sample.measures == "from a helper"


@pytest.mark.parametrize("spec, message", [
    ("{dir}/nowhere.py:Rise", "task '{dir}/nowhere.py:Rise': no such file {dir}/nowhere.py"),
    ("{dir}/my_tasks.py:Ryse", "has no 'Ryse' (did you mean 'Rise'?)"),
    ("{dir}/my_tasks.py:NotATask", "NotATask in {dir}/my_tasks.py is not a task (make it a subclass of evolution.Task)"),
    ("{dir}/my_tasks.py:1x", "after the ':' comes a class or function name, not '1x'"),
])
def test_file_mistakes_are_one_line_errors(tmp_path, spec, message):
    tasks_file(tmp_path)
    d = str(tmp_path.resolve())
    with pytest.raises(PluginError) as exc:
        resolve("task", spec.format(dir=d))
    assert message.format(dir=d) in _one_line(exc)


def test_a_sensor_class_named_as_a_task_is_refused(tmp_path):
    path = sensors_file(tmp_path)
    with pytest.raises(PluginError) as exc:
        resolve("task", f"{path}:ComX")
    assert "is not a task" in _one_line(exc)


def test_a_factory_that_makes_the_wrong_thing_is_refused(tmp_path):
    path = tasks_file(tmp_path)
    with pytest.raises(PluginError) as exc:
        resolve("task", f"{path}:not_a_factory").create()
    assert "made a int, not an evolution.Task" in _one_line(exc)


def test_a_syntax_error_names_the_file_line_and_column(tmp_path):
    path = write(tmp_path, "broken.py", "import evolution\n\nclass T(evolution.Task)\n    pass\n")
    with pytest.raises(PluginError) as exc:
        resolve("task", f"{path}:T")
    text = _one_line(exc)
    assert text.startswith(f"{path.resolve()}:3:") and "syntax error" in text


def test_an_exception_while_loading_names_the_file_and_line(tmp_path):
    path = write(tmp_path, "raises.py", "import evolution\nx = 1\ny = x / 0\n")
    with pytest.raises(PluginError) as exc:
        resolve("task", f"{path}:T")
    text = _one_line(exc)
    assert "failed in loading: ZeroDivisionError: division by zero" in text
    assert text.endswith(f"at {path.resolve()}:3")


def test_a_binary_file_is_refused(tmp_path):
    path = tmp_path / "binary.py"
    path.write_bytes(b"\xff\xfe\x00\x01" * 10)
    with pytest.raises(PluginError) as exc:
        resolve("task", f"{path}:T")
    assert "is not UTF-8 text" in _one_line(exc)


def test_a_huge_file_is_refused_unread(tmp_path):
    path = tmp_path / "huge.py"
    path.write_bytes(b"#" * (plugins.MAX_PLUGIN_BYTES + 1))
    with pytest.raises(PluginError) as exc:
        resolve("task", f"{path}:T")
    assert "plug-ins are at most" in _one_line(exc)


def test_a_file_plugin_travels_to_workers_as_its_text(tmp_path):
    path = tasks_file(tmp_path)
    plugin = resolve("task", f"{path}:Rise")
    data = pickle.dumps(plugin)
    path.unlink()  # a worker does not read the file: it gets the text, checked by its hash
    again = pickle.loads(data)
    assert again.ref == plugin.ref and again.create().measures == "metres of rise"


def test_text_that_does_not_match_its_hash_is_refused(tmp_path):
    path = tasks_file(tmp_path)
    plugin = resolve("task", f"{path}:Rise")
    data = pickle.dumps(plugin)                      # as it travels to a worker, then changed on the way
    assert data.count(b"metres of rise") == 1
    with pytest.raises(PluginError, match="does not match its hash"):
        pickle.loads(data.replace(b"metres of rise", b"metres of fall"))


# --- modules ------------------------------------------------------------------------------------------

@pytest.fixture
def package(tmp_path, monkeypatch):
    """An importable package ``flagpkg`` with a task module, on sys.path."""
    (tmp_path / "flagpkg").mkdir()
    (tmp_path / "flagpkg" / "__init__.py").write_text("")
    tasks_file(tmp_path / "flagpkg")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path / "flagpkg"


def test_a_module_plugin_records_the_module_and_its_files_hash(package):
    plugin = resolve("task", "flagpkg.my_tasks:Rise")
    assert plugin.ref.source == "module"
    assert plugin.ref.location == "flagpkg.my_tasks:Rise"
    assert plugin.ref.sha256 == hashlib.sha256((package / "my_tasks.py").read_bytes()).hexdigest()


def test_a_missing_module_is_one_line_with_a_hint_for_files(package):
    with pytest.raises(PluginError) as exc:
        resolve("task", "flagpkg.nothing:Rise")
    text = _one_line(exc)
    assert "no module named 'flagpkg.nothing'" in text and "./flagpkg/nothing.py:Rise" in text


# --- entry points -----------------------------------------------------------------------------------------

@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A distribution 'creatures-flag 1.2' on sys.path announcing a task, a sensor and a broken
    terrain through the entry-point groups."""
    (tmp_path / "src").mkdir()
    tasks_file(tmp_path / "src")
    sensors_file(tmp_path / "src")
    dist = tmp_path / "src" / "creatures_flag-1.2.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: creatures-flag\nVersion: 1.2\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent("""\
        [creatures.tasks]
        rise = my_tasks:Rise
        run = my_tasks:Rise
        [creatures.sensors]
        comx = my_sensors:ComX
        [creatures.terrains]
        broken = no_such_module:Ground
        """))
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.setattr(plugins, "_ENTRY_POINTS", None)
    yield
    plugins._ENTRY_POINTS = None


def test_an_installed_package_announces_plugins_by_entry_point(installed):
    plugin = resolve("task", "rise")
    assert plugin.ref.source == "entry point"
    assert plugin.ref.location == "my_tasks:Rise (creatures-flag 1.2)"
    assert resolve("sensor", "comx").create().size(None) == 1
    listed = {p.name: p for p in evolution.available("task")}
    assert listed["rise"].ref.source == "entry point" and listed["rise"].problem is None


def test_an_entry_point_cannot_take_a_builtin_name(installed):
    assert resolve("task", "run").ref.source == "built-in"


def test_a_broken_entry_point_is_listed_with_its_problem_and_refused_with_one_line(installed):
    listed = {p.name: p for p in evolution.available("terrain")}
    assert "No module named 'no_such_module'" in listed["broken"].problem
    with pytest.raises(PluginError) as exc:
        resolve("terrain", "broken")
    assert "terrain 'broken' (entry point, no_such_module:Ground (creatures-flag 1.2)) failed in loading" in _one_line(exc)


def test_a_recorded_entry_point_that_is_not_installed_says_so():
    ref = PluginRef("task", "rise", "entry point", "my_tasks:Rise (creatures-flag 1.2)")
    with pytest.raises(PluginError) as exc:
        load_ref(ref)
    assert _one_line(exc) == "task 'rise' (entry point, my_tasks:Rise (creatures-flag 1.2)) is not installed here"


# --- finding a recorded plug-in again -------------------------------------------------------------------

def test_a_recorded_file_is_found_again_while_it_is_unchanged(tmp_path):
    path = tasks_file(tmp_path)
    ref = resolve("task", f"{path}:Rise").ref
    assert load_ref(ref).ref == ref


def test_a_recorded_file_that_changed_is_refused(tmp_path):
    path = tasks_file(tmp_path)
    ref = resolve("task", f"{path}:Rise").ref
    path.write_text(path.read_text() + "\n# edited\n")
    with pytest.raises(PluginError) as exc:
        load_ref(ref)
    assert "has changed since it was recorded" in _one_line(exc)


def test_a_recorded_file_that_is_gone_says_where_it_was_expected(tmp_path):
    path = tasks_file(tmp_path)
    ref = resolve("task", f"{path}:Rise").ref
    path.unlink()
    with pytest.raises(PluginError) as exc:
        load_ref(ref)
    assert f"no such file {path.resolve()}" in _one_line(exc)


def test_shared_files_never_load_code_unless_named(tmp_path):
    path = tasks_file(tmp_path)
    ref = resolve("task", f"{path}:Rise").ref
    with pytest.raises(PluginError) as exc:
        load_ref(ref, allow_code=False)
    assert _one_line(exc) == (f"task '{path}:Rise' (file, {path.resolve()}) is code, and a shared file never "
                              f"runs code by itself: if you trust it, name it with --plugin {path.resolve()}")
    assert load_ref(ref, allow_code=False, named=[str(path)]).ref == ref
    assert load_ref(ref, allow_code=False, named=[f"{path}:Rise"]).ref == ref


def test_a_named_file_elsewhere_stands_for_the_recorded_one_if_it_is_the_same(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ref = resolve("task", f"{tasks_file(tmp_path / 'a')}:Rise").ref
    copy = tasks_file(tmp_path / "b")
    assert load_ref(ref, allow_code=False, named=[str(copy)]).ref.sha256 == ref.sha256
    copy.write_text(copy.read_text() + "\n# not the same\n")
    with pytest.raises(PluginError) as exc:
        load_ref(ref, allow_code=False, named=[str(copy)])
    assert "is not the one recorded" in _one_line(exc)


def test_a_recorded_builtin_that_this_version_lacks_says_so():
    with pytest.raises(PluginError) as exc:
        load_ref(PluginRef("task", "dance", "built-in"))
    assert _one_line(exc) == "task 'dance' (built-in) is not a built-in of this version of creatures"


def test_a_plugin_file_without_its_class_says_the_form_and_the_classes_in_it(tmp_path):
    path = write(tmp_path, "two.py", """
        import evolution

        class Helper:
            pass

        class Upright(evolution.Task):
            pass
    """)
    with pytest.raises(PluginError) as exc:
        resolve("task", str(path))
    assert _one_line(exc) == (f"task '{path}' names a file but not what in it to use: write {path}:ClassName "
                              f"(it defines Upright: {path}:Upright, say)")


def test_a_plugin_file_without_its_class_is_never_run(tmp_path):
    marker = tmp_path / "ran"
    path = write(tmp_path, "loud.py", f"open({str(marker)!r}, 'w').close()\n")
    with pytest.raises(PluginError, match="names a file but not what in it to use"):
        resolve("sensor", str(path))
    assert not marker.exists()


def test_a_missing_plugin_file_without_its_class_says_both(tmp_path):
    with pytest.raises(PluginError) as exc:
        resolve("task", str(tmp_path / "nope.py"))
    assert "no such file" in _one_line(exc) and f"{tmp_path / 'nope.py'}:ClassName" in _one_line(exc)


@pytest.mark.parametrize("data, message", [
    ("run", "a recorded task is not an object"),
    ({"name": "run"}, "has no proper 'source'"),
    ({"name": "run", "source": "web"}, "comes from an unknown source 'web'"),
    ({"name": "x" * 5000, "source": "built-in"}, "has no proper 'name'"),
    ({"name": "run", "source": "file", "sha256": 5}, "has no proper 'sha256'"),
])
def test_bad_recorded_references_are_refused(data, message):
    with pytest.raises(PluginError, match=message):
        PluginRef.from_dict("task", data)


# --- the sensor list of a command line -------------------------------------------------------------------

@pytest.mark.parametrize("text, names", [
    (None, list(DEFAULT_SENSORS)),
    ("", list(DEFAULT_SENSORS)),
    ("rays", [*DEFAULT_SENSORS, "rays"]),
    ("-default,clock,rays", ["clock", "rays"]),
    ("-contacts, rays", [n for n in DEFAULT_SENSORS if n != "contacts"] + ["rays"]),
    ("f.py:Flag", [*DEFAULT_SENSORS, "f.py:Flag"]),
])
def test_sensor_lists_add_to_the_defaults_and_take_away_with_a_minus(text, names):
    assert sensor_list(text) == names


@pytest.mark.parametrize("text, message", [
    ("clock", "sensor 'clock' is already on"),
    ("-rays", "cannot take away sensor 'rays': it is not on"),
    ("rays,,tilt", "an empty sensor name"),
    ("-default", "no sensors left"),
])
def test_bad_sensor_lists_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        sensor_list(text)
