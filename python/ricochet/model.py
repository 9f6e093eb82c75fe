"""Models from Python with numpy arrays, stepped by the f64 reference stepper: the Siconos
vocabulary's linear Lagrangian system, the Lagrangian system with Python functions for M(q),
F_int(q, v, t) (and its Jacobians, or central differences) and F_ext(t), the linear relation
and the laws (Newton impact, Newton impact with Coulomb friction, equality,
complementarity), linked in an `Nsds` and run by `TimeStepping`, whose trajectory
comes back as arrays. An exception raised in one of your functions stops the run and is
raised again, unchanged, by `TimeStepping.run`.

    >>> ball = LagrangianLinearTIDS(q0=[1.0], v0=[0.0], mass=[[1.0]], fext=[-9.81])
    >>> nsds = Nsds()
    >>> b = nsds.add("ball", ball)
    >>> nsds.link("floor", NewtonImpactNSL(0.9), LagrangianLinearTIR([[1.0]]), [b])
    >>> trajectory = TimeStepping(nsds, h=1e-3).run(2.0)
    >>> trajectory.q[:, 0]  # the height at every step
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._ricochet import (
    ComplementarityConditionNSL,
    EqualityConditionNSL,
    LagrangianDS,
    LagrangianLinearTIDS,
    LagrangianLinearTIR,
    NewtonImpactFrictionNSL,
    NewtonImpactNSL,
    Nsds,
)
from ._ricochet import TimeStepping as _TimeStepping

__all__ = [
    "ComplementarityConditionNSL",
    "EqualityConditionNSL",
    "LagrangianDS",
    "LagrangianLinearTIDS",
    "LagrangianLinearTIR",
    "NewtonImpactFrictionNSL",
    "NewtonImpactNSL",
    "Nsds",
    "TimeStepping",
    "Trajectory",
]


@dataclass(frozen=True)
class Trajectory:
    """One sample per step, the start included: `t[k]`, the coordinates `q[k, i]` and
    velocities `v[k, i]` of the systems in the order they were added, the impulse `p[k, i]`
    (Hᵀ λ of the step), the interactions' outputs `y[k, r]` and rates `ydot[k, r]`, the
    multipliers `lambda_[k, r]` (rows in the order of the links) and the mechanical
    `energy[k]`."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    p: np.ndarray
    y: np.ndarray
    ydot: np.ndarray
    lambda_: np.ndarray
    energy: np.ndarray


class TimeStepping:
    """The reference time stepping of `nsds` from `t0` by steps of `h`: `integrator`
    "moreau_jean" (θ-method, `theta`) or "rattle" (nonsmooth RATTLE, second order between
    impacts), an LCP per step solved by `solver` ("lemke", Siconos's default; "pgs",
    "jacobi", "enumerative"). Bad input raises ValueError."""

    def __init__(
        self,
        nsds: Nsds,
        h: float,
        t0: float = 0.0,
        integrator: str = "moreau_jean",
        theta: float = 0.5,
        solver: str = "lemke",
    ) -> None:
        self._sim = _TimeStepping(nsds, h, t0, integrator, theta, solver)

    @property
    def time(self) -> float:
        """The current time."""
        return self._sim.time

    def run(self, t_final: float) -> Trajectory:
        """Steps to `t_final` (the GIL released) and returns the samples of every step."""
        raw = self._sim.run(t_final)
        arrays = {name: np.frombuffer(data, dtype=np.float64).reshape(shape) for name, (data, shape) in raw.items()}
        arrays["lambda_"] = arrays.pop("lambda")
        return Trajectory(**arrays)
