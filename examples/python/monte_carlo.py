# %% [markdown]
# # A restitution sweep of bouncing balls, from Python
#
# A notebook-style script (cells marked `# %%`, as VS Code and Jupytext read them): 20 000
# balls dropped from uncertain heights onto a floor, their restitution swept over a grid,
# run as one ensemble on the best backend, then a histogram of the impacts and a scatter of
# the energy lost against the restitution. Run it with `python examples/python/monte_carlo.py
# [--out DIR] [--scenes N]` after `pip install ./python matplotlib`.

# %%
import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import ricochet  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("results-python"))
parser.add_argument("--scenes", type=int, default=20_000, help="a multiple of 100 (the grid's points)")
parser.add_argument("--backend", default="auto")
args, _ = parser.parse_known_args()

# %% The scenario, as a dict of the TOML's shape.
scenario = {
    "name": "restitution_sweep",
    "scenes": args.scenes,
    "seed": 2026,
    "scene": {
        "template": "bouncing_ball",
        "radius": 0.1,
        "height": {"uniform": [1.0, 2.0]},
        # 100 restitutions from 0.5 to 0.95, each with scenes / 100 drawn heights.
        "restitution": {"grid": [0.5, 0.95, 100]},
    },
    "time": {"step": 1e-3, "final": 3.0},
    # The time of the first impact (the first step with an impulse on the floor row).
    "observe": [{"name": "first_impact", "signal": "lambda0", "reduce": "first_above", "threshold": 0.0}],
}

# %% Run it.
result = ricochet.run(scenario, backend=args.backend)
summary = result.summary
print(result)
print(f"mean impacts {summary['impacts'].mean():.3f}, first impact at {summary['first_impact'].mean():.3f} s on average")

# %% A histogram of the impacts, and the energy lost against the restitution.
args.out.mkdir(parents=True, exist_ok=True)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
counts = summary["impacts"]
left.hist(counts, bins=np.arange(counts.min(), counts.max() + 2) - 0.5, color="tab:blue")
left.set_xlabel("impacts in 3 s")
left.set_ylabel("scenes")
left.set_title(f"{len(summary)} balls")
lost = -summary["energy_change"] / summary["energy_initial"]
right.scatter(summary["restitution"], lost, s=2, alpha=0.3, color="tab:red")
right.set_xlabel("restitution e")
right.set_ylabel("energy lost / initial energy")
right.set_title("each impact keeps e² of the kinetic energy")
fig.tight_layout()
path = args.out / "restitution_sweep.png"
fig.savefig(path, dpi=120)
print(f"wrote {path}")
