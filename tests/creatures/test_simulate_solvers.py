"""``creatures simulate --solver ... --contacts ...`` and ``creatures bench --solvers``'s tables."""

import json

import physics
from creatures.bench import solvers as bench_solvers
from creatures.cli.simulate import format_summary
from creatures.design import DESIGN_DIR, resolve_design
from creatures.simulation import run_simulation


def test_run_simulation_takes_the_solver_and_contact_model():
    body = resolve_design("walker").body
    for solver in physics.SOLVERS:
        for contacts in physics.CONTACT_MODELS:
            s = run_simulation(body, 1.0, "sine", physics.SimParams(solver=solver, contacts=contacts))
            assert s["finite"] and (s["solver"], s["contacts"]) == (solver, contacts)
            assert s["broken"] is None, (solver, contacts, s["broken"])


def test_default_summary_does_not_mention_the_engine():
    s = run_simulation(resolve_design("walker").body, 0.5, "none")
    assert "solver" not in format_summary(s) and "contacts" not in format_summary(s)
    s = run_simulation(resolve_design("walker").body, 0.5, "none", physics.SimParams(solver="witkin"))
    assert "muscles: none, solver witkin\n" in format_summary(s)


def test_simulate_with_witkin_and_dem_prints_one_json_summary(run_creatures):
    r = run_creatures("simulate", "worm", "--solver", "witkin", "--contacts", "dem", "--json", "--seconds", "1")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["solver"] == "witkin" and summary["contacts"] == "dem"
    assert summary["finite"] is True


def test_simulate_refuses_an_unknown_solver_with_the_choices(run_creatures):
    r = run_creatures("simulate", "walker", "--solver", "verlet")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "verlet" in r.stderr and "pbd" in r.stderr and "witkin" in r.stderr


def test_simulate_refuses_a_design_the_solver_cannot_hold_in_one_line(run_creatures, tmp_path):
    """A cluster softer than rigid has no exact-constraint meaning under Witkin's method."""
    text = (DESIGN_DIR / "hopper.yaml").read_text().replace(
        "spheres: [tail, rump, hip, chest]}", "spheres: [tail, rump, hip, chest], stiffness: 0.5}")
    path = tmp_path / "soft_hopper.yaml"
    path.write_text(text)
    assert run_creatures("simulate", path, "--seconds", "0.5").returncode == 0
    r = run_creatures("simulate", path, "--solver", "witkin")
    assert r.returncode == 2
    assert r.stdout == "" and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "witkin" in lines[0] and "stiffness" in lines[0]


def test_solver_tables_have_a_row_per_scene_and_solver():
    rows = [bench_solvers.pendulum(solver, batch=2, seconds=4.0) for solver in physics.SOLVERS]
    rows.append(bench_solvers.walker("witkin", True, batch=2, seconds=0.5))
    table = bench_solvers.format_solvers(rows).splitlines()
    assert table[0].startswith("| scene | solver |") and len(table) == 2 + len(rows)
    assert all(r["finite"] and r["creature_steps_per_s"] > 0 for r in rows)
    pendulum_pbd, pendulum_witkin = rows[0], rows[1]
    assert pendulum_witkin["bone_error_max"] < 2e-3       # the integrator's h^2 v^2 / L, fed back
    assert abs(pendulum_pbd["energy_drift"]) < 1e-2
    assert rows[2]["energy_drift"] is None and "n/a" in table[-1]


def test_pile_table_reports_a_blown_up_run():
    row = bench_solvers.pile("dem", n=10, seconds=0.5)
    blown = dict(row, finite=False, blew_up_at_s=0.25, kinetic_energy_end=None)
    table = bench_solvers.format_pile([row, blown]).splitlines()
    assert len(table) == 4 and "blew up after 0.25 s" in table[-1]
    assert row["finite"] and row["substeps"] == physics.substeps_for(
        physics.build_model(bench_solvers.worm_body(), 1), physics.SimParams(contacts="dem"))
