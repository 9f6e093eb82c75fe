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

import os as _os


def _private_runtime_dir() -> None:
    """Where `XDG_RUNTIME_DIR` is unset or not a directory (batch jobs, containers, CI),
    points it at a private directory removed at exit, as the command line does: Mesa's Vulkan
    drivers otherwise print `error: XDG_RUNTIME_DIR is invalid or not set` for every GPU
    instance a run creates."""
    current = _os.environ.get("XDG_RUNTIME_DIR")
    if current and _os.path.isdir(current):
        return
    import atexit
    import shutil
    import tempfile

    private = tempfile.mkdtemp(prefix="ricochet-runtime-")
    _os.environ["XDG_RUNTIME_DIR"] = private
    atexit.register(shutil.rmtree, private, True)


_private_runtime_dir()

from . import model  # noqa: E402 (after the runtime directory is set)
from ._ricochet import Rng, Scenario, __version__  # noqa: E402
from .ensemble import (  # noqa: E402
    EnsembleResult,
    Samples,
    bench,
    check,
    load,
    run,
    run_large_scene,
    scenarios,
    templates,
    verify,
)
from .model import *  # noqa: E402, F403 (its __all__)

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
    "run_large_scene",
    "scenarios",
    "templates",
    "verify",
    *model.__all__,
]
