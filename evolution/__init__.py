"""Evolution: sensors, batched networks, tasks and fitness, NEAT driving, evaluators, runs.

The extension API: :class:`Task`, :class:`Sensor` and :class:`TerrainMaker` are plug-in base
classes (the built-in tasks, sensors and terrains are plug-ins too), found by name, file, module
or entry point (:mod:`evolution.plugins`), and run by :class:`Episode` / :class:`EpisodeRun`
with a :class:`Context` and a :class:`Clock`.

Imports ``physics`` (never ``render`` or ``creatures``). Importing it changes nothing outside it;
a program calls :func:`prepare_process` once before it runs anything (as for ``physics``).
"""

from .backends import BACKENDS, make_evaluator
from .champion import Champion, ChampionError, champion_from_run, load_champion, save_champion
from .chunks import Evaluation
from .evaluator import Evaluator
from .genomes import NETWORK_KINDS, genome_from_dict, genome_to_dict, neat_config_text
from .network import ACTIVATIONS, AGGREGATIONS, CompiledNetworks, NetworkBatch, compile_networks
from .plugins import KINDS, Plugin, PluginError, PluginRef, available, load_ref, load_terrain_file, register, resolve
from .process import prepare_process
from .rollout import Clock, Context, Episode, EpisodeRun, run_episode
from .run import GenerationStats, Run, RunSettings
from .sensors import DEFAULT_SENSORS, Sensor, sensor_list
from .tasks import WORST_FITNESS, Task, describe_fitness, task_sim
from .terrains import TerrainFileError, TerrainMaker

__all__ = ["prepare_process", "Champion", "ChampionError", "champion_from_run", "load_champion", "save_champion",
           "BACKENDS", "Evaluation", "Evaluator", "make_evaluator", "NETWORK_KINDS",
           "genome_from_dict", "genome_to_dict", "neat_config_text",
           "ACTIVATIONS", "AGGREGATIONS", "CompiledNetworks", "NetworkBatch", "compile_networks",
           "KINDS", "Plugin", "PluginError", "PluginRef", "available", "load_ref", "register", "resolve",
           "Clock", "Context", "Episode", "EpisodeRun", "run_episode",
           "GenerationStats", "Run", "RunSettings",
           "DEFAULT_SENSORS", "Sensor", "sensor_list",
           "WORST_FITNESS", "Task", "describe_fitness", "task_sim",
           "TerrainFileError", "TerrainMaker", "load_terrain_file"]
