"""ricochet: nonsmooth mechanics — things that bounce, impact, stick and are constrained —
in Siconos's formulation (Moreau–Jean time stepping, exact Newton restitution, an LCP per
step), run as Monte Carlo ensembles on a GPU or on all CPU cores.

    >>> import ricochet
    >>> result = ricochet.run("scenarios/bouncing_balls.toml", scenes=1000, backend="cpu")
    >>> result.summary["impacts"].mean()

`run`, `verify`, `bench`, `check` and `templates` are the command line's commands;
results are numpy arrays (`build=` runs scenes your own function makes). The classes of
`ricochet.model` (systems, relations, laws, `Nsds`, `TimeStepping`) build a scene from arrays
and Python functions and step it on the reference stepper. Errors are ValueError (bad input)
or RuntimeError (a failed run).
"""

from . import model
from ._ricochet import Rng, Scenario, __version__
from .ensemble import EnsembleResult, Samples, bench, check, load, run, templates, verify
from .model import *  # noqa: F403 (its __all__)

__all__ = [
    "EnsembleResult",
    "Rng",
    "Samples",
    "Scenario",
    "__version__",
    "bench",
    "check",
    "load",
    "run",
    "templates",
    "verify",
    *model.__all__,
]
