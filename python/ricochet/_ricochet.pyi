"""Type stubs of the extension `ricochet._ricochet` (the Rust half of the package; use the
functions of `ricochet` rather than these)."""

from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

__version__: str

class Scenario:
    """A parsed and checked scenario."""

    def __init__(self, source: str, kind: str) -> None:
        """`source` is a path (`kind="path"`), a TOML text (`"toml"`) or the JSON of a dict of
        the TOML's shape (`"json"`). Raises ValueError naming what is wrong."""
    def with_size(self, scenes: Optional[int] = None, seed: Optional[int] = None) -> Scenario:
        """This scenario with another number of scenes or seed (checked again)."""
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

def start_run(scenario: Scenario, backend: str = "auto", shard: str = "0/1", chunk: Optional[int] = None) -> Job:
    """Starts an ensemble; its result is a dict of `.npy` bytes and numbers."""

def start_verify(scenario: Scenario, scenes: int = 8, max_time: Optional[float] = None) -> Job:
    """Starts `verify`; its result is the verdict's JSON."""

def start_bench(scenario: Scenario, sizes: list[int], reference_up_to: int = 1000) -> Job:
    """Starts `bench`; its result is the rows' JSON."""

def start_check(scenario: Scenario) -> Job:
    """Starts `check`; its result is the findings' JSON."""

def templates() -> str:
    """Every template with its parameters, defaults and units, as JSON."""

class LagrangianLinearTIDS:
    """M v̇ = F_ext − K q − C v + p, with constant M, K, C and F_ext."""

    def __init__(
        self,
        q0: Sequence[float],
        v0: Sequence[float],
        mass: Sequence[Sequence[float]],
        stiffness: Optional[Sequence[Sequence[float]]] = None,
        damping: Optional[Sequence[Sequence[float]]] = None,
        fext: Optional[Sequence[float]] = None,
    ) -> None: ...

class LagrangianDS:
    """M(q) v̇ = F_ext(t) − F_int(q, v, t) + p: `mass` a matrix or a function of q, `fint` a
    function of (q, v, t) with optional Jacobians (∂/∂q, ∂/∂v), `fext` a vector or a function
    of t. An exception raised in a function is raised again by `TimeStepping.run`."""

    def __init__(
        self,
        q0: Sequence[float],
        v0: Sequence[float],
        mass: Union[Sequence[Sequence[float]], Callable[[Any], Any]],
        fint: Optional[Callable[[Any, Any, float], Any]] = None,
        fint_jacobians: Optional[Tuple[Callable[[Any, Any, float], Any], Callable[[Any, Any, float], Any]]] = None,
        fext: Union[None, Sequence[float], Callable[[float], Any]] = None,
    ) -> None: ...

class LagrangianLinearTIR:
    """y = H q + b, p = Hᵀ λ."""

    def __init__(self, h: Sequence[Sequence[float]], b: Optional[Sequence[float]] = None) -> None: ...

class NewtonImpactNSL:
    """Newton's impact law with restitution e ∈ [0, 1]."""

    def __init__(self, e: float, size: int = 1) -> None: ...

class NewtonImpactFrictionNSL:
    """Newton impact and Coulomb friction on (normal, tangents): e_N, e_T, μ, size 2 or 3."""

    def __init__(self, e_n: float, e_t: float, mu: float, size: int = 2) -> None: ...

class EqualityConditionNSL:
    """y = 0 on `size` rows."""

    def __init__(self, size: int = 1) -> None: ...

class ComplementarityConditionNSL:
    """0 ≤ y ⟂ λ ≥ 0 on `size` rows."""

    def __init__(self, size: int = 1) -> None: ...

Law = Union[NewtonImpactNSL, NewtonImpactFrictionNSL, EqualityConditionNSL, ComplementarityConditionNSL]

class Nsds:
    """Systems linked by interactions (one scene)."""

    def __init__(self) -> None: ...
    def add(self, name: str, system: Union[LagrangianLinearTIDS, LagrangianDS]) -> int: ...
    def link(self, name: str, law: Law, relation: LagrangianLinearTIR, systems: Sequence[int]) -> int: ...

class TimeStepping:
    """The reference time stepping (use `ricochet.TimeStepping`, which returns a Trajectory)."""

    def __init__(
        self, nsds: Nsds, h: float, t0: float = 0.0, integrator: str = "moreau_jean", theta: float = 0.5, solver: str = "lemke"
    ) -> None: ...
    @property
    def time(self) -> float: ...
    def run(self, t_final: float) -> Dict[str, Tuple[bytes, Tuple[int, ...]]]: ...

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
