"""Models from Python with numpy arrays and functions, stepped by the f64 reference stepper,
in Siconos's vocabulary:

- systems (`DynamicalSystem`): `LagrangianLinearTIDS`; `LagrangianDS` with Python functions
  for M(q), F_int(q, v, t), F_gyr(q, v) (and their Jacobians, or central differences),
  F_ext(t) and a discrete state z; `FirstOrderLinearDS` (ẋ = A x + b(t) + r);
- relations (`Relation`): `LagrangianLinearTIR` (and its `sphere_plane`),
  `LagrangianCompliantLinearTIR`, `LagrangianScleronomousR` and `LagrangianRheonomousR` with
  Python functions, `PfaffianR` (a(q) v = 0), `FirstOrderLinearTIR`, the contact geometry
  `SphereSphereR`, `DiskDiskR`, `SphereLDSSphereLDSR`, `PlanarContactR`, and Exudyn's
  `CoordinateVectorConstraint`;
- laws (`NonSmoothLaw`): `NewtonImpactNSL`, `NewtonImpactFrictionNSL`, `EqualityConditionNSL`,
  `ComplementarityConditionNSL`, `MixedComplementarityConditionNSL`, `RelayNSL`;

linked in an `Nsds` and run by `TimeStepping` (Moreau–Jean, Euler–Moreau, nonsmooth RATTLE),
whose trajectory comes back as arrays. An exception raised in one of your functions stops
the run and is raised again, unchanged, by `TimeStepping.run`, with what the run had
recorded before it as the exception's `trajectory`.

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
    CoordinateVectorConstraint,
    DiskDiskR,
    DynamicalSystem,
    EqualityConditionNSL,
    FirstOrderLinearDS,
    FirstOrderLinearTIR,
    LagrangianCompliantLinearTIR,
    LagrangianDS,
    LagrangianLinearTIDS,
    LagrangianLinearTIR,
    LagrangianRheonomousR,
    LagrangianScleronomousR,
    MixedComplementarityConditionNSL,
    NewtonImpactFrictionNSL,
    NewtonImpactNSL,
    NonSmoothLaw,
    Nsds,
    PfaffianR,
    PlanarContactR,
    Relation,
    RelayNSL,
    SphereLDSSphereLDSR,
    SphereSphereR,
)
from ._ricochet import TimeStepping as _TimeStepping

__all__ = [
    "ComplementarityConditionNSL",
    "CoordinateVectorConstraint",
    "DiskDiskR",
    "DynamicalSystem",
    "EqualityConditionNSL",
    "FirstOrderLinearDS",
    "FirstOrderLinearTIR",
    "LagrangianCompliantLinearTIR",
    "LagrangianDS",
    "LagrangianLinearTIDS",
    "LagrangianLinearTIR",
    "LagrangianRheonomousR",
    "LagrangianScleronomousR",
    "MixedComplementarityConditionNSL",
    "NewtonImpactFrictionNSL",
    "NewtonImpactNSL",
    "NonSmoothLaw",
    "Nsds",
    "PfaffianR",
    "PlanarContactR",
    "Relation",
    "RelayNSL",
    "SphereLDSSphereLDSR",
    "SphereSphereR",
    "TimeStepping",
    "Trajectory",
]


@dataclass(frozen=True)
class Trajectory:
    """One sample per step, the start included: `t[k]`, the coordinates `q[k, i]` (the state x
    of first-order systems) and velocities `v[k, i]` (none for first-order systems) of the
    systems in the order they were added, the input `p[k, i]` of the step (Hᵀ λ, or r = B λ),
    the interactions' outputs `y[k, r]` and rates `ydot[k, r]` (Lagrangian), the multipliers
    `lambda_[k, r]` (rows in the order of the links; NaN at the start), the systems' discrete
    states `z[k, j]`, the mechanical `energy[k]` and the `constraint_residual[k]`, max |g(q)|
    over the holonomic equalities; with `locate_impacts`, the located `impacts[i]`: time,
    row, ẏ before, ẏ after and impulse λ of each (shape (0, 5) without)."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    p: np.ndarray
    y: np.ndarray
    ydot: np.ndarray
    lambda_: np.ndarray
    z: np.ndarray
    energy: np.ndarray
    constraint_residual: np.ndarray
    impacts: np.ndarray


class TimeStepping:
    """The reference time stepping of `nsds` from `t0` by steps of `h`.

    `integrator`: "moreau_jean" (θ-method with `theta`; a contact is active where
    y + γ h ẏ ≤ 0 with γ = `gamma` (default ½), y taken at q_k (`activation="current"`) or at
    q_k + h v_k ("predicted")), "euler_moreau" (first-order systems; θ = `theta`, the relation
    imposed at x_{k+γ}, γ = `gamma` or 1) or "rattle" (nonsmooth RATTLE, second order between
    impacts). An LCP per step solved by `solver` ("lemke", Siconos's default; "pgs",
    "jacobi", "enumerative"). Equality constraints drift at O(h) unless `stabilization` is
    "baumgarte" (gain `beta` ∈ (0, 1]) or "projection" (onto g(q) = 0 after every step).
    `locate_impacts=True` (Moreau–Jean) applies each impact at its time inside the step
    instead of at the step's end, and records it in the trajectory's `impacts`.
    Bad input raises ValueError."""

    def __init__(
        self,
        nsds: Nsds,
        h: float,
        t0: float = 0.0,
        integrator: str = "moreau_jean",
        theta: float = 0.5,
        gamma: float | None = None,
        activation: str = "current",
        solver: str = "lemke",
        stabilization: str = "none",
        beta: float = 0.5,
        locate_impacts: bool = False,
    ) -> None:
        self._sim = _TimeStepping(
            nsds, h, t0, integrator, theta, gamma, activation, solver, stabilization, beta, locate_impacts
        )

    @property
    def time(self) -> float:
        """The current time."""
        return self._sim.time

    def run(self, t_final: float) -> Trajectory:
        """Steps to `t_final` (the GIL released) and returns the samples of every step, the
        current time's included. A run that fails (a function of yours that raised, a solver
        that did not converge: RuntimeError) raises with the samples before the failure as the
        exception's `trajectory`."""
        raw, error = self._sim.run(t_final)
        trajectory = None
        if raw is not None:
            arrays = {name: np.frombuffer(data, dtype=np.float64).reshape(shape) for name, (data, shape) in raw.items()}
            arrays["lambda_"] = arrays.pop("lambda")
            trajectory = Trajectory(**arrays)
        if error is not None:
            error.trajectory = trajectory
            raise error
        return trajectory

    def z(self, system: int) -> np.ndarray:
        """The discrete state z of system `system` (an index from `Nsds.add`)."""
        return np.array(self._sim.z(system))

    def set_z(self, system: int, z) -> None:
        """Sets the discrete state z of system `system` (same size): its functions and the
        relations' see it from the next step on — a sampled control, a switched parameter."""
        self._sim.set_z(system, list(np.asarray(z, dtype=np.float64)))

    def set_active(self, interaction: int, active: bool) -> None:
        """Switches the coordinate-vector constraint `interaction` (an index from
        `Nsds.link`) on or off."""
        self._sim.set_active(interaction, active)

    def constraint_residual(self) -> float:
        """max |g(q)| over the holonomic equality constraints now."""
        return self._sim.constraint_residual()
