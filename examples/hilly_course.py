"""A terrain of your own, drawn in YAML: evolve the walker to run over ``hilly_wall.yaml``.

    python examples/hilly_course.py           # 40 generations of 150
    python examples/hilly_course.py --smoke   # 2 small generations

The same from the command line:

    creatures evolve walker --terrain examples/hilly_wall.yaml --sensors rays

The terrain file is data, never code: it is checked like a design (every problem with its
line and column), and a run or a champion keeps the ground it made as points, so they replay
even where the file is not. ``rays`` adds the built-in distance rays (ground below, ahead-down
and ahead), which help a creature see the wall coming.
"""

import sys
from pathlib import Path

import evolution

COURSE = Path(__file__).with_name("hilly_wall.yaml")


def main(argv):
    from creatures.cli import main as creatures
    # load it as a terrain plug-in, as --terrain does, and say what it is
    ground = evolution.load_terrain_file(COURSE).make(seed=0)
    print(f"{COURSE.name}: {ground.kind}, {ground.xs.size} points, heights "
          f"{ground.ys.min():.2f} to {ground.ys.max():.2f} m; the wall's top at x = "
          f"{ground.xs[ground.ys.argmax()]:.2f} m")
    size = (["--generations", "2", "--population", "12", "--seconds", "4", "--workers", "1"]
            if "--smoke" in argv else ["--generations", "40"])
    return creatures(["evolve", "walker", "--terrain", str(COURSE), "--sensors", "rays", *size,
                      *[a for a in argv if a != "--smoke"]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
