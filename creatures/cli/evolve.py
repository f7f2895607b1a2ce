"""Evolve NEAT brains for a creature on a task, headless, a whole generation batched.

Every option has a default: ``creatures evolve`` alone evolves the walker to run on flat ground.
The run's defaults are :class:`evolution.run.RunSettings`' own
(:meth:`~evolution.run.RunSettings.defaults`): the options take theirs from there, and their
help shows them.
"""

from __future__ import annotations

import errno
import shlex
import sys
import time
from pathlib import Path

import physics
from evolution import DEFAULT_SENSORS, PluginError, sensor_list
from evolution.evaluator import worker_count
from evolution.growth import GrowSettings, seed_limits
from evolution.genomes import NETWORK_KINDS, NeatConfigError, read_neat_config
from evolution.run import RUN_FILES, GenerationStats, Run, RunError, RunSettings, WriteError
from evolution.rundir import champion_record
from evolution.tasks import WORST_FITNESS
from evolution.trials import MAX_NOISE, MAX_TRIALS, POST_STARTS, STATISTICS

from ..design import DesignError, design_error, resolve_design
from ..kernels import COMPILING, kernels_missing, kernels_to_compile
from ..runs import MAX_SECONDS, StartError, create_run, default_out, task_slug
from .args import Terminated, plugin_error, stopping

EXAMPLES = """examples:
  creatures evolve                                                the walker learns to run, 50 generations
  creatures evolve quadruped --task jump --generations 100 --population 300
  creatures evolve <DESIGN.yaml> --task climb --terrain steps --seconds 30 --seed 7
  creatures evolve worm --workers 1 --out runs/worm-1
  creatures evolve walker --task examples/flag_task.py:ReachFlag --sensors examples/flag_sensor.py:FlagSensor
  creatures evolve walker --terrain examples/hilly_wall.yaml --sensors rays
  creatures evolve walker --sensors -default,clock,muscles,rays   exactly these sensors
  creatures evolve walker --network recurrent --neat-config <NEAT.cfg>
  creatures evolve walker --backend ray --address auto            on a Ray cluster
  creatures evolve eel --task swim                                swim in deep water
  creatures evolve bird --task fly --medium air,flow_x=2          fly into a head wind
  creatures evolve walker --challenge sprint                      an entry to a challenge (creatures challenges)
  creatures evolve walker --trials 4 --noise 0.01                 each genome scored from 4 starts moved 1 cm
  creatures evolve sprout --grow --generations 100                grow a body from two spheres and a muscle
  creatures evolve walker --grow --max-spheres 12                 the walker may gain and lose parts
"""

BAR_WIDTH = 30
#: every setting's default, from their one owner (the seconds and the task are these when
#: neither the option nor a challenge says: their options default to None, to tell them apart)
DEFAULTS = RunSettings.defaults()
#: piped (no terminal to count on), a line this often while the first generation compiles
STILL_COMPILING_EVERY = 30.0
#: seconds without progress in the first generation after which it must be compiling
COMPILE_HINT_AFTER = 5.0
#: said once above the generation lines: their median leaves the failed creatures out, since
#: those all score the same -1000 and half a generation failing would make it -500
MEDIAN_NOTE = (f"median: of the creatures that did not fail (a failed one scores {WORST_FITNESS:g}; "
               f"'N failed' counts them); fresh: the best one from {POST_STARTS} fresh starts, on average")


def add_arguments(parser) -> None:
    parser.add_argument("design", nargs="?", default="walker",
                        help="a built-in design name or a YAML file (default: walker)")
    add_plugin_arguments(parser)
    d = DEFAULTS
    parser.add_argument("--seconds", type=float, default=None,
                        help=f"simulated seconds per evaluation (default {d['seconds']:g})")
    parser.add_argument("--generations", type=int, default=d["generations"],
                        help=f"generations (default {d['generations']})")
    parser.add_argument("--population", type=int, default=d["population"],
                        help=f"genomes per generation (default {d['population']})")
    parser.add_argument("--seed", type=int, default=d["seed"], help=f"seed for everything random (default {d['seed']})")
    parser.add_argument("--workers", type=int, default=d["workers"],
                        help="processes that evaluate a generation: 0 (the default) is one per core, "
                             "1 is this process alone; results do not depend on it")
    parser.add_argument("--network", choices=NETWORK_KINDS, default=d["network"],
                        help=f"network kind (default {d['network']})")
    add_trial_arguments(parser)
    parser.add_argument("--neat-config", metavar="FILE", default=None,
                        help="your own neat-python config (its input/output counts and population are set for you)")
    add_backend_arguments(parser)
    parser.add_argument("--out", metavar="RUN_DIR", default=None,
                        help="run directory (default runs/DESIGN-TASK-DATE-TIME)")
    add_grow_arguments(parser)
    parser.add_argument("--challenge", metavar="CHALLENGE", default=None,
                        help="evolve an entry to a challenge (a built-in's name, creatures challenges lists "
                             "them, or a challenge file): its task, ground, seconds, medium and sensors, the "
                             "design checked against its body rules first; the champion is written to "
                             "RUN_DIR/entry.json, verified")


def add_grow_arguments(parser) -> None:
    """--grow and its limits: bodies that grow (:mod:`evolution.growth`)."""
    g = GrowSettings()
    parser.add_argument("--grow", action="store_true",
                        help="let evolution add and remove spheres, bones and muscles, starting from the design "
                             "(sprout, two spheres and a muscle, grows from scratch)")
    parser.add_argument("--max-spheres", type=int, default=None, metavar="N",
                        help=f"with --grow: the most spheres a body may have (default {g.spheres})")
    parser.add_argument("--max-muscles", type=int, default=None, metavar="N",
                        help=f"with --grow: the most muscles a body may have, the brain's outputs (default {g.muscles})")
    parser.add_argument("--max-bones", type=int, default=None, metavar="N",
                        help=f"with --grow: the most bones, muscles included (default {g.bones})")


def grow_settings(args) -> tuple[dict | None, str | None]:
    """``creatures evolve``'s growth settings (None: no --grow), or what is wrong with them."""
    limits_ = {"spheres": args.max_spheres, "muscles": args.max_muscles, "bones": args.max_bones}
    if not args.grow:
        given = [f"--max-{k}" for k, v in limits_.items() if v is not None]
        return None, (f"{given[0]} is for --grow" if given else None)
    for name, value in limits_.items():
        low = 2 if name == "spheres" else 1
        if value is not None and not low <= value <= 64:
            return None, f"--max-{name} must be a whole number from {low} to 64, not {value}"
    return {k: v for k, v in limits_.items() if v is not None}, None


def challenge_growth(challenge, grow: dict) -> tuple[dict | None, str | None]:
    """A growing run's limits within a challenge's body rules (they are the run's limits too, so
    that its champion is an entry), or why it cannot grow for it."""
    rules = challenge.rules
    if rules.design is not None:
        return None, f"--challenge {challenge.name} evolves the {rules.design} design's brain only: it cannot --grow"
    limits_ = dict(grow)
    default = GrowSettings()
    for key in ("spheres", "bones", "muscles"):
        most = getattr(rules, key)
        if most is not None:
            limits_[key] = min(limits_.get(key, getattr(default, key)), most)
    if rules.mass is not None:
        limits_["min_mass"], limits_["mass"] = float(rules.mass[0]), float(rules.mass[1])
    if rules.strength is not None:
        limits_["strength"] = float(rules.strength)
    return limits_, None


def add_trial_arguments(parser) -> None:
    """--trials, --noise and --score: how each genome is scored (:mod:`evolution.trials`)."""
    d = DEFAULTS
    parser.add_argument("--trials", type=int, default=d["trials"],
                        help=f"episodes each genome is scored over, each from a start moved by --noise "
                             f"(default {d['trials']}; the starts are new every generation and the same for all "
                             f"its genomes)")
    parser.add_argument("--noise", type=float, default=d["noise"], metavar="METRES",
                        help=f"how far each trial's start moves every sphere (Gaussian, upward only; default "
                             f"{d['noise']:g} m, 0: the design's exact start)")
    parser.add_argument("--score", choices=STATISTICS, default=d["statistic"],
                        help=f"what a genome's trials make its fitness (default {d['statistic']})")


def add_plugin_arguments(parser) -> None:
    """--task, --terrain and --sensors: each a registered name (creatures tasks / terrains /
    sensors list them), a file (path/to/file.py:Name, or a .yaml terrain) or a module."""
    parser.add_argument("--task", default=None, metavar="TASK",
                        help="what to evolve for: a name (creatures tasks lists them: run, jump, climb, "
                             f"obstacle...), path/to/file.py:Class or package.module:Class "
                             f"(default {DEFAULTS['task']})")
    parser.add_argument("--terrain", default=None, metavar="TERRAIN",
                        help="the ground: a name (creatures terrains lists them: flat, slope, steps, hills, "
                             "hurdles...), a terrain file (.yaml), file.py:Name or module:Name "
                             "(default: the task's own)")
    parser.add_argument("--sensors", default=None, metavar="S1,S2",
                        help="sensors to add to the default ones (clock, muscles, joints, contacts, tilt, "
                             "height, velocity): names (creatures sensors lists them, e.g. rays), "
                             "file.py:Class or module:Class, comma-separated; -NAME takes one away, "
                             "-default takes away all the defaults")
    parser.add_argument("--medium", default=None, metavar="MEDIUM",
                        help="the fluid the creatures are in: none, water, air, or numbers after a name or "
                             "alone, e.g. water,flow_x=0.5 or density=800,drag_normal=2 (default: the task's "
                             "own: water for swim, air for fly, none for the others)")


def add_backend_arguments(parser, default: str | None = DEFAULTS["backend"]) -> None:
    parser.add_argument("--backend", choices=("local", "ray"), default=default,
                        help="where generations are evaluated: worker processes here (local, the default) "
                             "or tasks on a Ray cluster (ray; pip install 'creatures[cluster]'); "
                             "the results are the same")
    parser.add_argument("--address", default=None,
                        help="the Ray cluster: auto (a cluster started on this machine with ray start), "
                             "HOST:6379, or ray://HOST:10001 (default: start Ray here)")


def _fail(message: str) -> int:
    print(f"creatures evolve: {message}", file=sys.stderr)
    return 2


def check_numbers(args) -> str | None:
    """What is wrong with the numbers of ``creatures evolve``'s options, naming the option
    (None: nothing)."""
    if args.seconds is None:
        args.seconds = DEFAULTS["seconds"]
    if not (0 < args.seconds < MAX_SECONDS):  # also refuses nan
        return f"--seconds must be a number of seconds above 0 and below {MAX_SECONDS:.0f}, not {args.seconds:g}"
    if args.generations < 1:
        return f"--generations must be 1 or more, not {args.generations}"
    if args.population < 2:
        return f"--population must be 2 or more, not {args.population}"
    if args.workers < 0:
        return f"--workers must be 1 or more (or 0: one per core), not {args.workers}"
    if args.seed < 0:
        return f"--seed must be 0 or more, not {args.seed}"
    if not 1 <= args.trials <= MAX_TRIALS:
        return f"--trials must be a whole number from 1 to {MAX_TRIALS}, not {args.trials}"
    if not 0 <= args.noise <= MAX_NOISE:  # also refuses nan
        return f"--noise must be a number of metres from 0 to {MAX_NOISE:g}, not {args.noise:g}"
    return None


def run(args) -> int:
    try:
        design = resolve_design(args.design)
    except DesignError as exc:
        print(design_error("evolve", exc), file=sys.stderr)
        return 2
    challenge = None
    if args.challenge is not None:
        from .challenge_entry import apply_challenge
        challenge, problem = apply_challenge(args, design)
        if problem:
            print(problem, file=sys.stderr)
            return 2
    args.task = args.task or DEFAULTS["task"]
    wrong = check_numbers(args)
    if wrong:
        return _fail(wrong)
    if args.address is not None and args.backend != "ray":
        return _fail("--address is for --backend ray")
    neat_text = None
    if args.neat_config:
        try:  # read and checked here, so that a problem names the file
            neat_text = read_neat_config(args.neat_config, population=args.population)
        except NeatConfigError as exc:
            return _fail(str(exc))
    if args.medium is not None:
        try:
            physics.medium_settings(args.medium)
        except ValueError as exc:
            return _fail(f"--medium: {exc}")
    try:
        sensors = list(challenge.sensors) if challenge else sensor_list(args.sensors)
    except ValueError as exc:
        return _fail(f"--sensors: {exc}")
    grow, wrong = grow_settings(args)
    if wrong:
        return _fail(wrong)
    if grow is not None:   # limits not given: the defaults, or the design's own where it has more
        grow = seed_limits(design.body, grow)
    if grow is not None and challenge is not None:
        grow, wrong = challenge_growth(challenge, grow)
        if wrong:
            return _fail(wrong)
    out = Path(args.out or default_out(design.name, args.task))
    try:
        run_ = create_run(out, design, grow=grow, task=args.task, terrain=args.terrain, sensors=sensors,
                          seconds=args.seconds, generations=args.generations, population=args.population,
                          seed=args.seed, workers=args.workers, network=args.network, neat_config=neat_text,
                          backend=args.backend, address=args.address, medium=args.medium, trials=args.trials,
                          noise=args.noise, statistic=args.score)
    except StartError as exc:
        print(start_error("evolve", exc), file=sys.stderr)
        return 2

    settings = run_.settings
    ep = run_.episode
    where = f"on {ep.terrain.kind} ground" if ep.sim.ground else "with no ground"
    if ep.sim.fluid_density > 0:
        where += f" in {physics.medium_name(ep.sim)}"
    senses = "" if sensors == list(DEFAULT_SENSORS) else f", sensors {', '.join(p.ref.short for p in ep.sensors)}"
    g = design.genes
    evolving = f", {count(g.n_values, 'body value')}, {count(g.n_parts, 'optional part')}" if g else ""
    if g and run_.growth is not None:   # the ranges of its spheres' places and sizes bound growth's values
        bounded = len(run_.growth.genes.bounds)
        said = [count(run_.genes.n_values, 'body value') if run_.genes.n_values else "",
                count(run_.genes.n_parts, 'optional hinge') if run_.genes.n_parts else "",
                f"{count(bounded, 'sphere value')} within {'its range' if bounded == 1 else 'their ranges'}"
                if bounded else ""]
        evolving = "".join(f", {x}" for x in said if x)
    muscles = count(len(design.muscle_ids), "muscle")
    if design.body.grouped:  # muscles sharing brain outputs
        muscles += f" on {count(ep.n_outputs(), 'output')}"
    if run_.growth is not None:
        limit = run_.growth.settings
        muscles = (f"{muscles}, growing to at most {count(limit.spheres, 'sphere')}, {count(limit.bones, 'bone')} "
                   f"and {count(limit.muscles, 'muscle')}")
    print(f"evolving {design.name} ({count(ep.n_inputs(), 'input')}, {muscles}"
          f"{evolving}) to {ep.task.ref.short} {where}{senses}: {count(settings.generations, 'generation')} "
          f"of {settings.population}, {settings.seconds:g} s each, {settings.trial_spec.describe()}, "
          f"seed {settings.seed}, {settings.network} networks{where_evaluated(settings)} -> {out}", flush=True)
    status = drive(run_, out)
    if status == 0 and challenge is not None:
        from .challenge_entry import write_entry
        return write_entry(challenge, args.challenge, out)
    return status


def count(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless ``n`` is 1: "1 generation", "50 generations"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def where_evaluated(settings: RunSettings) -> str:
    """Where a run's generations are evaluated, as its first line says (``--workers 0``: one
    process per core, and how many that is here); nothing for the Ray backend (the cluster's)."""
    if settings.backend == "ray":
        return ""
    n = worker_count(settings.workers)
    return ", in this process" if n == 1 else f", on {n} worker processes"


def start_error(command: str, exc: StartError) -> str:
    """What ``creatures COMMAND`` prints for a run that cannot start."""
    return plugin_error(command, exc.plugin) if exc.plugin is not None else f"creatures {command}: {exc}"


def drive(run_: Run, out: Path, command: str = "evolve") -> int:
    """Evolve ``run_`` to its last generation, printing a line per generation, its median that of
    the creatures that did not fail (:data:`MEDIAN_NOTE` says so above the first), and a progress
    bar on a terminal (piped, just the lines). Before a first generation that compiles the
    kernels, it says so (and on a terminal counts the seconds). Ctrl-C stops it cleanly and says
    how to go on; so does a file it cannot write (a full disk). At the end: what to do next.
    Shared with ``resume`` (``command`` names it in messages)."""
    settings = run_.settings
    tty = sys.stdout.isatty()
    started = time.perf_counter()
    status = {"width": 0, "shown": "", "compiling": False, "first": True, "since": started}

    def show(text: str) -> None:  # the progress line, on a terminal only
        if text != status["shown"]:
            print("\r" + text.ljust(status["width"]), end="", flush=True)
            status["width"], status["shown"] = max(status["width"], len(text)), text

    def clear() -> None:
        if tty and status["width"]:
            print("\r" + " " * status["width"] + "\r", end="", flush=True)
            status["width"], status["shown"] = 0, ""

    def say_compiling(names=()) -> None:
        clear()
        status["compiling"] = True
        status["said"] = time.perf_counter()
        print(COMPILING + (f": {', '.join(names)}" if names else ""), flush=True)

    if kernels_to_compile(settings.sim, settings.network):
        say_compiling(kernels_missing(settings.sim, settings.network))

    def on_progress(done, total):
        waited = time.perf_counter() - status["since"]
        if done == 0 and status["first"]:
            if not status["compiling"] and waited > COMPILE_HINT_AFTER:
                say_compiling()  # not foreseen (a kernel compiled for new types, say)
            if status["compiling"] and tty:
                show(f"  compiling: {waited:.0f} s")
                return
            if status["compiling"] and time.perf_counter() - status["said"] >= STILL_COMPILING_EVERY:
                status["said"] = time.perf_counter()   # piped: a line now and then, not a counter
                print(f"  still compiling: {waited:.0f} s", flush=True)
        if tty:
            filled = int(BAR_WIDTH * done / max(total, 1))
            show(f"  [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {100 * done / max(total, 1):5.1f} %")

    warned = set()

    def on_generation(s):
        clear()
        if status["first"]:
            print(MEDIAN_NOTE)
        status["first"] = False
        failed = f", {s.failed} failed" if s.failed else ""
        print(f"gen {s.generation:4d}  best {s.best:8.3f}  fresh {s.post_mean:8.3f}  median {s.ok_median:8.3f}  "
              f"species {s.species:3d}{failed}  {s.eval_seconds:5.2f} s eval  {s.wall_seconds:5.2f} s wall",
              flush=True)
        for w in s.warnings:
            if w not in warned:
                warned.add(w)
                print(f"warning: {w}", file=sys.stderr, flush=True)

    quoted = shlex.quote(str(out))
    try:
        run_.evolve(on_generation, on_progress)
    except KeyboardInterrupt as exc:   # Ctrl-C, or SIGTERM (args.Terminated)
        stopping()
        clear()
        done = run_.generations_done
        print(f"\nstopped after generation {done} of {settings.generations}; everything up to it is "
              f"saved in {out}.\nto go on: creatures resume {quoted}", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130
    except WriteError as exc:  # a full disk, say: the last checkpoint is whole, the run resumes from it
        clear()
        why = "free some space" if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)) else "fix that"
        print(f"creatures {command}: {exc} (the run is intact up to {_saved(run_)}; "
              f"{why} and run creatures resume {quoted})", file=sys.stderr)
        return 2
    except PluginError as exc:  # raised inside a plug-in: the generation is lost, not the run
        clear()
        done = run_.generations_done
        print(f"creatures: {exc}\nthe run stopped after generation {done} of {settings.generations}; "
              f"everything up to it is saved in {out}.\nonce the plug-in is fixed: creatures resume "
              f"{quoted} --reload-plugins", file=sys.stderr)
        return 2
    except (RunError, ImportError, ConnectionError) as exc:  # the last two: the ray backend
        if isinstance(exc, BrokenPipeError):  # our own output's reader went away (| head): cli's
            raise
        clear()
        print(f"creatures {command}: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # a Ray task that failed
        if settings.backend != "ray":
            raise
        clear()
        print(f"creatures {command}: {exc}", file=sys.stderr)
        return 2
    top = champion_stats(run_.history)
    fresh = "" if top.post_mean != top.post_mean else f"; from fresh starts {top.post_mean:.3f}, worst {top.post_worst:.3f}"
    print(f"done in {time.perf_counter() - started:.1f} s: best fitness {top.best:.3f} "
          f"(generation {top.generation}{fresh}); fitness is {run_.episode.task.sample.measures}")
    for line in body_summary(run_, top.generation):
        print(line)
    print(next_steps(out, f"{settings.design_name}-{task_slug(settings.task)}.json"))
    return 0


def champion_stats(history: list) -> GenerationStats:
    """The row of the run's champion's generation: the one :func:`evolution.rundir.champion_record`
    picks (best and most reliable from fresh starts), from the rows (NaN ``post_mean``: a run from before them)."""
    rows = {s.generation: s for s in history}
    records = [{"generation": s.generation, "fitness": s.best,
                **({"post": {"mean": s.post_mean, "sd": s.post_sd}} if s.post_mean == s.post_mean else {})}
               for s in history]
    return rows[champion_record(records)["generation"]]


def body_summary(run_: Run, generation: int) -> list[str]:
    """For a run whose body evolves, the lines that show the champion's body (the best genome of
    ``generation``) against the design's start: each evolvable value ``start -> evolved``, its
    range and units (angles in degrees), then each optional part ``on -> on|off``. Nothing for a
    fixed body, or if the generation's best file cannot be read."""
    genes = getattr(run_, "genes", None)
    if not genes:
        return []
    from evolution.rundir import RunFileError, read_best

    from ..charts import gene_unit, in_units
    try:
        body = read_best(run_.dir / "best" / f"gen_{generation:04d}.json")["genome"]["body"]
        values, parts = list(body["values"]), list(body["parts"])
    except (RunFileError, KeyError, TypeError):
        return []
    if len(values) != genes.n_values or len(parts) != genes.n_parts:
        return []
    rows = []
    for g, v in zip(genes.genes, values):
        start, now, low, high = (float(in_units(g, x)) for x in (g.start, v, g.low, g.high))
        unit = gene_unit(g)
        rows.append((g.label, f"{start:.4g}", f"{now:.4g}", f"[{low:.4g}, {high:.4g}]" + (f" {unit}" if unit else "")))
    rows += [(s.label, "on", "on" if on else "off", "") for s, on in zip(genes.switches, parts)]
    width = [max(len(r[k]) for r in rows) for k in range(3)]
    lines = [f"the champion's body (generation {generation}) against the design's start:"]
    lines += [f"  {a.ljust(width[0])}   {b.rjust(width[1])} -> {c.ljust(width[2])}   {d}".rstrip()
              for a, b, c, d in rows]
    return lines


def next_steps(out: Path, champion_file: str) -> str:
    """The end of a run's output: its files, and the commands that use it."""
    run_dir = shlex.quote(str(out))
    commands = [(f"creatures watch {run_dir}", "watch its champion"),
                (f"creatures plot {run_dir}", "chart its fitness and species"),
                (f"creatures export {run_dir} --out {shlex.quote(champion_file)}",
                 "write its champion to a file to share or replay")]
    width = max(len(c) for c, _ in commands)
    return "\n".join([f"results in {out}: {', '.join(RUN_FILES)}", "next:",
                      *(f"  {c.ljust(width)}   {what}" for c, what in commands)])


def _saved(run_: Run) -> str:
    """``generation N``, the one the run's checkpoint holds (or its last checkpoint, unread)."""
    try:
        return f"generation {run_.generations_done}"
    except Exception:  # noqa: BLE001 - only to word a message
        return "its last checkpoint"
