"""Type stubs of the extension `ricochet._ricochet` (the Rust half of the package; use the
functions of `ricochet` rather than these)."""

from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

__version__: str

class Scenario:
    """A parsed and checked scenario."""

    def __init__(self, source: str, kind: str, scenes: Optional[int] = None, seed: Optional[int] = None) -> None:
        """`source` is a path (`kind="path"`), a TOML text (`"toml"`) or the JSON of a dict of
        the TOML's shape (`"json"`); `scenes` and `seed` replace its own before it is
        checked. Raises ValueError naming what is wrong."""
    def with_size(self, scenes: Optional[int] = None, seed: Optional[int] = None) -> Scenario:
        """This scenario with another number of scenes or seed (checked again)."""
    @property
    def units(self) -> str:
        """The units of its summary columns whose unit is known, as JSON."""
    @property
    def stop(self) -> Optional[str]:
        """Its stop rule as JSON, or None."""
    @property
    def name(self) -> str: ...
    @property
    def scenes(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def steps(self) -> int:
        """Steps per scene."""
    @property
    def fingerprint(self) -> str:
        """A hash of everything the scenario says (as `run.json`'s)."""
    @property
    def records(self) -> Tuple[bool, bool]:
        """Whether it records impact events, stroboscopic samples."""

class Job:
    """A command running on a thread of its own (the GIL stays free)."""

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits up to `timeout` seconds (forever with None), the GIL released; whether the
        command has finished."""
    def status(self) -> Tuple[str, int, int, int]:
        """(name, scene-steps done, scenes, steps per scene) of the run under way."""
    def cancel(self) -> None:
        """Asks the command to stop (within a few hundred steps)."""
    def result(self) -> Any:
        """The finished command's result, once; its error as ValueError or RuntimeError."""

def start_run(
    scenario: Scenario,
    backend: str = "auto",
    shard: str = "0/1",
    chunk: Optional[int] = None,
    checkpoints: Optional[str] = None,
    resume: bool = False,
) -> Job:
    """Starts an ensemble; its result is a dict of `.npy` bytes and numbers."""

def summarise(scenario: Scenario, columns: list[str], values: bytes) -> tuple[str, Optional[str]]:
    """The statistics' JSON and a Saltelli design's indices' JSON (or None) of a summary given
    as its column names and its rows × columns f64 values: what a run computes of its rows."""

def write_run(scenario: Scenario, dir: str, tables: list[Optional[tuple[list[str], bytes]]], run: str) -> list[str]:
    """Writes `ricochet run`'s files for a run's tables (summary, trajectories, strobe, events)."""

def read_run(dir: str) -> dict[str, Any]:
    """A run directory's tables (`.npy` bytes), run.json, statistics and indices (JSON)."""

def start_large_run(text: str, origin: str, out: str, backend: str = "auto") -> Job:
    """Starts a large-scene run writing into `out`; its result is the run's JSON."""

def start_verify(scenario: Scenario, scenes: int = 8, max_time: Optional[float] = None) -> Job:
    """Starts `verify`; its result is the verdict's JSON."""

def start_bench(
    scenario: Scenario,
    sizes: list[int],
    reference_up_to: int = 1000,
    repeat: int = 3,
    precisions: list[str] = ["auto"],
) -> Job:
    """Starts `bench`; its result is the rows' JSON."""

def start_check(scenario: Scenario) -> Job:
    """Starts `check`; its result is the findings' JSON."""

def templates() -> str:
    """Every template with its parameters, defaults and units, as JSON."""

def shipped_scenarios() -> Dict[str, str]:
    """The shipped scenarios, `{name: TOML text}`."""

Vector = Sequence[float]
Matrix = Sequence[Sequence[float]]
Function = Callable[..., Any]

class DynamicalSystem:
    """A dynamical system (the base of the systems `Nsds.add` takes)."""

class LagrangianLinearTIDS(DynamicalSystem):
    """M v̇ = F_ext − K q − C v + p, with constant M, K, C and F_ext."""

    def __init__(
        self,
        q0: Vector,
        v0: Vector,
        mass: Matrix,
        stiffness: Optional[Matrix] = None,
        damping: Optional[Matrix] = None,
        fext: Optional[Vector] = None,
    ) -> None: ...

class LagrangianDS(DynamicalSystem):
    """M(q) v̇ + F_gyr(q, v) + F_int(q, v, t) = F_ext(t) + p: `mass` a matrix or M(q), `fint`
    F_int(q, v, t) and `fgyr` F_gyr(q, v) with optional Jacobians (∂/∂q, ∂/∂v) of the same
    arguments, `fext` a vector or F_ext(t); with `z`, every function also gets z last. An
    exception raised in a function is raised again by `TimeStepping.run`."""

    def __init__(
        self,
        q0: Vector,
        v0: Vector,
        mass: Union[Matrix, Function],
        fint: Optional[Function] = None,
        fint_jacobians: Optional[Tuple[Function, Function]] = None,
        fgyr: Optional[Function] = None,
        fgyr_jacobians: Optional[Tuple[Function, Function]] = None,
        fext: Union[None, Vector, Function] = None,
        z: Optional[Vector] = None,
    ) -> None: ...

class FirstOrderLinearDS(DynamicalSystem):
    """ẋ = A x + b + r, `b` a vector or b(t) (b(t, z) with `z`)."""

    def __init__(self, x0: Vector, a: Matrix, b: Union[None, Vector, Function] = None, z: Optional[Vector] = None) -> None: ...

class Relation:
    """A relation (the base of the relations `Nsds.link` takes)."""

class LagrangianLinearTIR(Relation):
    """y = H q + b (+ F z), p = Hᵀ λ."""

    def __init__(self, h: Matrix, b: Optional[Vector] = None, f: Optional[Matrix] = None) -> None: ...
    @staticmethod
    def sphere_plane(dim: int, ndof: int, normal: Vector, d: float, radius: float) -> LagrangianLinearTIR:
        """The gap y = n·x − d − r of a sphere above the plane n·x = d (n normalised)."""

class LagrangianCompliantLinearTIR(Relation):
    """y = H q + b + D λ, p = Hᵀ λ (D the compliance)."""

    def __init__(self, h: Matrix, b: Vector, compliance: Matrix) -> None: ...

class LagrangianScleronomousR(Relation):
    """y = h(q), G0(q) = ∂h/∂q (with `takes_z`: h(q, z), G0(q, z))."""

    def __init__(self, h: Function, jacobian: Function, takes_z: bool = False) -> None: ...

class LagrangianRheonomousR(Relation):
    """y = h(q, t), G0(q, t), ∂h/∂t(q, t) (with `takes_z`: z last)."""

    def __init__(self, h: Function, jacobian: Function, hdot: Function, takes_z: bool = False) -> None: ...

class PfaffianR(Relation):
    """a(q) v = 0 (with `EqualityConditionNSL`)."""

    def __init__(self, a: Function) -> None: ...

class FirstOrderLinearTIR(Relation):
    """y = C x + D λ + e (+ F z), r = B λ."""

    def __init__(
        self, c: Matrix, b: Matrix, d: Optional[Matrix] = None, e: Optional[Vector] = None, f: Optional[Matrix] = None
    ) -> None: ...

class SphereSphereR(Relation):
    """y = ‖x₁ − x₀‖ − (r₀ + r₁), the centres the first `dim` coordinates."""

    def __init__(self, dim: int, coordinates: Tuple[int, int], radii: float) -> None: ...
    @staticmethod
    def fixed(dim: int, n: int, centre: Vector, radii: float) -> SphereSphereR:
        """Against a sphere fixed at `centre`."""

class DiskDiskR(Relation):
    """Two rotating discs (x, y, θ, …) in frictional contact: rows (normal, tangent)."""

    def __init__(self, coordinates: Tuple[int, int], radius: Tuple[float, float]) -> None: ...

class SphereLDSSphereLDSR(Relation):
    """Two spheres (x, y, z, φ_x, φ_y, φ_z, …) in frictional contact: rows (normal, t₁, t₂)."""

    def __init__(self, coordinates: Tuple[int, int], radius: Tuple[float, float]) -> None: ...

class PlanarContactR(Relation):
    """A planar body's point (rounded by `radius`) against the line normal·p = offset."""

    def __init__(
        self, ndof: int, point: Tuple[float, float], normal: Tuple[float, float], offset: float = 0.0, radius: float = 0.0
    ) -> None: ...

class CoordinateVectorConstraint(Relation):
    """Exudyn's X₁ q₁ + Y₁ q₁² − X₀ q₀ − Y₀ q₀² − v_off = 0 (or c(t, q) with its Jacobian)."""

    def __init__(
        self,
        coordinates: Tuple[int, int],
        x0: Optional[Matrix] = None,
        x1: Optional[Matrix] = None,
        y0: Optional[Matrix] = None,
        y1: Optional[Matrix] = None,
        offset: Optional[Vector] = None,
        velocity_level: bool = False,
        active: bool = True,
        constraint: Optional[Function] = None,
        jacobian: Optional[Function] = None,
        size: Optional[int] = None,
        name: str = "coordinate vector",
    ) -> None: ...

class NonSmoothLaw:
    """A nonsmooth law (the base of the laws `Nsds.link` takes)."""

class NewtonImpactNSL(NonSmoothLaw):
    """Newton's impact law with restitution e ∈ [0, 1]."""

    def __init__(self, e: float, size: int = 1) -> None: ...

class NewtonImpactFrictionNSL(NonSmoothLaw):
    """Newton impact and Coulomb friction on (normal, tangents): e_N, e_T, μ, size 2 or 3."""

    def __init__(self, e_n: float, e_t: float, mu: float, size: int = 2) -> None: ...

class EqualityConditionNSL(NonSmoothLaw):
    """y = 0 on `size` rows."""

    def __init__(self, size: int = 1) -> None: ...

class ComplementarityConditionNSL(NonSmoothLaw):
    """0 ≤ y ⟂ λ ≥ 0 on `size` rows."""

    def __init__(self, size: int = 1) -> None: ...

class MixedComplementarityConditionNSL(NonSmoothLaw):
    """Equalities on the first rows, complementarity on the others."""

    def __init__(self, complementarities: int, equalities: int) -> None: ...

class RelayNSL(NonSmoothLaw):
    """−y ∈ N_[lb, ub](λ)."""

    def __init__(self, size: int = 1, lb: float = -1.0, ub: float = 1.0) -> None: ...

class Nsds:
    """Systems linked by interactions (one scene)."""

    def __init__(self) -> None: ...
    def add(self, name: str, system: DynamicalSystem) -> int: ...
    def link(self, name: str, law: NonSmoothLaw, relation: Relation, systems: Sequence[int]) -> int: ...

class TimeStepping:
    """The reference time stepping (use `ricochet.TimeStepping`, which returns a Trajectory)."""

    def __init__(
        self,
        nsds: Nsds,
        h: float,
        t0: float = 0.0,
        integrator: str = "moreau_jean",
        theta: float = 0.5,
        gamma: Optional[float] = None,
        activation: str = "current",
        solver: str = "lemke",
        stabilization: str = "none",
        beta: float = 0.5,
        locate_impacts: bool = False,
    ) -> None: ...
    @property
    def time(self) -> float: ...
    def run(
        self, t_final: float
    ) -> Tuple[Optional[Dict[str, Tuple[bytes, Tuple[int, ...]]]], Optional[BaseException]]: ...
    def z(self, system: int) -> list[float]: ...
    def set_z(self, system: int, z: Vector) -> None: ...
    def set_active(self, interaction: int, active: bool) -> None: ...
    def constraint_residual(self) -> float: ...

class Rng:
    """A scene's own random stream (ChaCha8 on stream `index` of the seed)."""

    def random(self) -> float:
        """Uniform in [0, 1)."""
    def uniform(self, low: float, high: float) -> float:
        """Uniform in [low, high)."""
    def normal(self, mean: float, std: float) -> float:
        """Normal of mean `mean` and standard deviation `std` ≥ 0."""
    def integers(self, low: int, high: int) -> int:
        """An integer in [low, high)."""

def custom_scenario(settings: str, kind: str, build: Callable[[int, Rng], Any]) -> Scenario:
    """A scenario whose scenes `build(index, rng)` makes; `settings` is the scenario's table
    without `[scene]` as JSON (`kind="json"`) or TOML (`"toml"`)."""
