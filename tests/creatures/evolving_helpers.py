"""A creature whose body evolves, and a tiny run of it, for the tests of the commands that show
bodies evolving (watch --race, plot's body chart, evolve's summary, replay)."""


def lively_neat_config() -> str:
    """A neat config whose breeding moves bodies a lot within a few generations (as
    tests/evolution's LIVELY)."""
    from evolution.genomes import neat_config_text
    text = (neat_config_text(1, 1, 10).replace("body_mutate_rate      = 0.2", "body_mutate_rate      = 0.8")
            .replace("body_mutate_power     = 0.1", "body_mutate_power     = 0.3")
            .replace("body_flip_rate        = 0.03", "body_flip_rate        = 0.3"))
    assert "body_flip_rate        = 0.3\n" in text
    return text


def evolving_walker():
    """The walker with a foot's radius, a knee's height and a muscle's strength evolvable, and
    its hip-to-knee bone (bone 10) optional: ``(body, genes)``."""
    import physics
    from evolution.bodygenes import BodyGenes, Gene, Switch
    body = physics.examples.walker()
    body.bones[10].optional = True
    genes = BodyGenes((Gene("foot.radius", "sphere", 5, "radius", 0.05, 0.15, 0.1),
                       Gene("knee.y", "sphere", 4, "y", 0.35, 0.65, 0.5),
                       Gene("shin.strength", "muscle", 7, "strength", 50.0, 300.0, 150.0)),
                      (Switch("hip-knee", "bone", 10),))
    genes.check(body)
    return body, genes


def evolving_run(directory, generations=4):
    """A new run of :func:`evolving_walker` whose body evolves (20 creatures, 1 s each), not
    evolved yet: its Run. (Seed 2 from the exact start: its champion is of the last generation,
    with a body of its own; seed 1's is of the first, with the design's body, since engine
    version 2.)"""
    from evolution.run import Run, RunSettings
    body, genes = evolving_walker()
    settings = RunSettings(design_name="walker", design_text="", generations=generations, population=20,
                           seed=2, workers=1, seconds=1.0, neat_config=lively_neat_config(), noise=0.0)
    return Run.create(directory, settings, body, genes)


def make_evolving_run(directory, generations=4):
    """:func:`evolving_run`, evolved to its last generation: its Run."""
    run = evolving_run(directory, generations)
    run.evolve()
    return run
