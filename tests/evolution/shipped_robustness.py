"""How the shipped champions keep their fitness when their start moves: each from 12 starts moved
1e-6 m and 12 moved 1e-3 m (`creatures replay NAME --starts 12 --noise N`, the check seeds of 0),
their mean and worst as % of its fresh-start mean and of its selection score. saves/README.md
holds the table; tests/evolution/test_saves.py checks it is what the champions do now."""

from pathlib import Path

from evolution.champion import load_champion

SAVES = Path(__file__).parents[2] / "saves"
NOISES = (1e-6, 1e-3)
STARTS = 12


def percentages(path) -> dict:
    """``{noise: (mean %, worst %) of the fresh-start mean, ...}`` and the same of the selection
    score under ``("selection", noise)``."""
    champion = load_champion(path)
    fresh, selection = champion.post.summary["mean"], champion.fitness
    out = {}
    for noise in NOISES:
        r = champion.rescore(STARTS, noise=noise, seed=0)
        out[noise] = (100 * r["mean"] / fresh, 100 * r["worst"] / fresh)
        out[("selection", noise)] = (100 * r["mean"] / selection, 100 * r["worst"] / selection)
    return out


def row(path) -> str:
    p = percentages(path)
    cells = [f"{p[n][0]:.0f} / {p[n][1]:.0f} ({p[('selection', n)][0]:.0f} / {p[('selection', n)][1]:.0f})" for n in NOISES]
    return f"| `{Path(path).stem}` | " + " | ".join(cells) + " |"


def table_rows() -> list[str]:
    return [row(p) for p in sorted(SAVES.glob("*.json"))]
