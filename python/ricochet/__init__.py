"""ricochet: nonsmooth mechanics — things that bounce, impact, stick and are constrained —
in Siconos's formulation (Moreau–Jean time stepping, exact Newton restitution, an LCP per
step), run as Monte Carlo ensembles on a GPU or on all CPU cores.

    >>> import ricochet
    >>> result = ricochet.run("scenarios/bouncing_balls.toml", scenes=1000, backend="cpu")
    >>> result.summary["impacts"].mean()

`run`, `verify`, `bench`, `check` and `templates` are the command line's commands;
results are numpy arrays. `LagrangianLinearTIDS`, `LagrangianLinearTIR`, `NewtonImpactNSL`,
`Nsds` and `TimeStepping` build a scene from arrays and step it on the reference stepper. Errors are ValueError (bad input) or RuntimeError (a failed run).
"""

from ._ricochet import Rng, Scenario, __version__
from .ensemble import EnsembleResult, Samples, bench, check, load, run, templates, verify
from .model import (
    ComplementarityConditionNSL,
    EqualityConditionNSL,
    LagrangianDS,
    LagrangianLinearTIDS,
    LagrangianLinearTIR,
    NewtonImpactFrictionNSL,
    NewtonImpactNSL,
    Nsds,
    TimeStepping,
    Trajectory,
)

__all__ = [
    "ComplementarityConditionNSL",
    "EnsembleResult",
    "EqualityConditionNSL",
    "LagrangianDS",
    "LagrangianLinearTIDS",
    "LagrangianLinearTIR",
    "NewtonImpactFrictionNSL",
    "NewtonImpactNSL",
    "Rng",
    "Nsds",
    "TimeStepping",
    "Trajectory",
    "Samples",
    "Scenario",
    "__version__",
    "bench",
    "check",
    "load",
    "run",
    "templates",
    "verify",
]
