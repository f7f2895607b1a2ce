"""Evolution: sensors, batched networks, tasks and fitness, NEAT driving, evaluators, runs.

Imports ``physics`` (never ``render`` or ``creatures``).
"""

from .champion import Champion, ChampionError, champion_from_run, load_champion, save_champion
from .evaluator import BACKENDS, Evaluation, Evaluator, make_evaluator
from .genomes import NETWORK_KINDS, genome_from_dict, genome_to_dict, neat_config_text
from .network import ACTIVATIONS, AGGREGATIONS, CompiledNetworks, NetworkBatch, compile_networks
from .rollout import Episode, run_episode
from .run import GenerationStats, Run, RunSettings
from .sensors import Sensors, input_names
from .tasks import TASKS, WORST_FITNESS, Task, describe_fitness

__all__ = ["Champion", "ChampionError", "champion_from_run", "load_champion", "save_champion",
           "BACKENDS", "Evaluation", "Evaluator", "make_evaluator", "NETWORK_KINDS",
           "genome_from_dict", "genome_to_dict", "neat_config_text", "Episode", "run_episode",
           "GenerationStats", "Run", "RunSettings",
           "Sensors", "input_names", "TASKS", "WORST_FITNESS", "Task", "describe_fitness",
           "ACTIVATIONS", "AGGREGATIONS", "CompiledNetworks", "NetworkBatch", "compile_networks"]
