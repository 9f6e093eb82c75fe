"""Monte Carlo ensembles from Python: the `ricochet` command line's `run`, `verify`,
`bench`, `check` and `templates`, in-process, with numpy arrays for results."""

from __future__ import annotations

import io
import json
import math
import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _ricochet
from ._progress import drive

#: A scenario: a path to a TOML file, a TOML text, a dict of the TOML's shape, or a
#: `Scenario` from `load`.
ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any], "_ricochet.Scenario"]


#: Builds scene `index` of a custom ensemble from its random stream `rng` (a
#: `ricochet.Rng`): returns an `Nsds`, or `(Nsds, {name: value})` with the values it drew
#: (summary columns, the same names for every scene).
Build = Callable[[int, "_ricochet.Rng"], Any]


def _to_json(scenario: Mapping[str, Any]) -> str:
    """A dict of the TOML's shape as JSON, numpy numbers and arrays taken as plain ones: a
    ValueError names a key whose number is NaN or infinite or whose value is not a TOML value
    (a bad scenario, as every other)."""

    def plain(value: Any, path: str) -> Any:
        if isinstance(value, Mapping):
            return {str(k): plain(v, f"{path}.{k}" if path else str(k)) for k, v in value.items()}
        if isinstance(value, np.ndarray):
            value = value.tolist()
        if isinstance(value, (list, tuple)):
            return [plain(v, f"{path}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if isinstance(value, (int, np.integer)):
            return int(value)
        if isinstance(value, (float, np.floating)):
            if not math.isfinite(value):
                raise ValueError(f"scenario: `{path}` = {value}: not a finite number")
            return float(value)
        if isinstance(value, str):
            return value
        raise ValueError(
            f"scenario: `{path}`: {type(value).__name__} is not a TOML value "
            "(numbers, strings, booleans, lists and tables are)"
        )

    return json.dumps(plain(scenario, ""))


def scenarios() -> Dict[str, str]:
    """The scenarios shipped with ricochet (the repository's `scenarios/*.toml`, compiled
    into the package), `{name: TOML text}`: `run("bouncing_balls")` runs one by name."""
    return dict(_ricochet.shipped_scenarios())


def _shipped(scenario: Union[str, "os.PathLike[str]"]) -> Optional[str]:
    """The text of the shipped scenario `scenario` names where no such file exists: its name
    (`"bouncing_balls"`) or a path under a `scenarios` directory
    (`"scenarios/bouncing_balls.toml"`, the README's, from anywhere)."""
    path = os.fspath(scenario)
    if os.path.isfile(path) or "\n" in path or "=" in path:
        return None
    parent, name = os.path.split(path)
    stem, extension = os.path.splitext(name)
    if (parent and os.path.basename(parent) != "scenarios") or extension not in ("", ".toml"):
        return None
    return _ricochet.shipped_scenarios().get(stem)


def load(scenario: ScenarioLike, build: Optional[Build] = None) -> Any:
    """Parses and checks a scenario: a path to a TOML file, a TOML text (anything with a
    newline or an `=` that is not an existing file), or a dict of the TOML's shape (as
    `tomllib.load` gives). Raises ValueError naming the key, line or file that is wrong.

    With `build`, the scenes are your own: `build(index, rng)` makes scene `index` and the
    scenario holds the rest (`name`, `scenes`, `seed`, `time`, `solver`, `record`,
    `observe`, `strobe`, `events`; no `scene`).

    A run's directory (one holding `run.json`: `ricochet run`'s, `ricochet merge`'s or
    `EnsembleResult.save`'s) is read back as its `EnsembleResult` instead."""
    if isinstance(scenario, (str, os.PathLike)) and build is None and os.path.isfile(os.path.join(scenario, "run.json")):
        return _load_run(os.fspath(scenario))
    if isinstance(scenario, _ricochet.Scenario):
        if build is not None:
            raise ValueError("a parsed Scenario already has its scenes: give build with a dict or a TOML text")
        return scenario
    if build is not None:
        if isinstance(scenario, Mapping):
            return _ricochet.custom_scenario(_to_json(scenario), "json", build)
        if isinstance(scenario, (str, os.PathLike)) and os.path.isfile(scenario):
            with open(scenario, encoding="utf-8") as f:
                return _ricochet.custom_scenario(f.read(), "toml", build)
        if isinstance(scenario, str) and ("\n" in scenario or "=" in scenario):
            return _ricochet.custom_scenario(scenario, "toml", build)
        raise ValueError(f"scenario {os.fspath(scenario)!r}: no such file (with build: a dict, a TOML text or a file)")
    if isinstance(scenario, Mapping):
        return _ricochet.Scenario(_to_json(scenario), "json")
    if isinstance(scenario, (str, os.PathLike)):
        shipped = _shipped(scenario)
        if shipped is not None:
            return _ricochet.Scenario(shipped, "toml")
    if isinstance(scenario, os.PathLike):
        return _ricochet.Scenario(os.fspath(scenario), "path")
    if isinstance(scenario, str):
        if os.path.isfile(scenario) or not ("\n" in scenario or "=" in scenario):
            return _ricochet.Scenario(scenario, "path")
        return _ricochet.Scenario(scenario, "toml")
    raise TypeError(f"a scenario is a path, a TOML text, a dict or a Scenario, not {type(scenario).__name__}")


def _table(data: Optional[bytes]) -> Optional[np.ndarray]:
    """A structured array from the bytes of a `.npy` file."""
    if data is None:
        return None
    return np.load(io.BytesIO(data), allow_pickle=False, max_header_size=len(data))


def _tables(read: Dict[str, Any]) -> Dict[str, Any]:
    """The result's tables, statistics and indices from the library's dict of `.npy` bytes
    (`summary`, `trajectories`, `strobe`, `events`) and JSON (`stats`, `sensitivity`)."""
    strobe = _table(read["strobe"])
    return {
        "summary": _table(read["summary"]),
        "trajectories": Samples.of(_table(read["trajectories"])),
        "strobe": None if strobe is None else Samples.of(strobe),
        "events": _table(read["events"]),
        "stats": json.loads(read["stats"]),
        "sensitivity": None if read["sensitivity"] is None else json.loads(read["sensitivity"]),
    }


def _columns(table: np.ndarray) -> Tuple[List[str], bytes]:
    """A structured array as its column names and its rows × columns doubles (the library's
    tables: counts and flags are whole numbers, exact as doubles)."""
    names = list(table.dtype.names)
    values = np.stack([table[n].astype(np.float64) for n in names], axis=-1) if len(table) else np.zeros((0, len(names)))
    return names, np.ascontiguousarray(values).tobytes()


def _load_run(directory: str) -> "EnsembleResult":
    """The run directory `directory` (see `EnsembleResult.save`) as an `EnsembleResult`."""
    read = _ricochet.read_run(directory)
    info = json.loads(read["info"])
    provenance_path = os.path.join(directory, "provenance.json")
    provenance: Dict[str, Any] = {}
    if os.path.isfile(provenance_path):
        with open(provenance_path, encoding="utf-8") as f:
            provenance = json.load(f)
    # A merge's provenance holds its parts' ([directory, provenance or null] each).
    parts = [p[1] for p in provenance.get("parts") or [] if isinstance(p, list) and len(p) == 2 and isinstance(p[1], dict)]
    sources = [provenance] if "scenario_text" in provenance else parts
    text = next((p.get("scenario_text") for p in sources if p.get("scenario_text")), None)
    if not text:
        raise ValueError(
            f"{directory}: its provenance.json holds no scenario text (a result of scenes built by a Python"
            " function, or files from elsewhere): the result cannot be rebuilt"
        )
    stop = info.get("stop")
    # The scenes run.json ran (a stop rule's cap), as --scenes and --seed set them.
    scenes = stop["max_scenes"] if stop else info["scenes"]
    scenario = _ricochet.Scenario(text, "toml", scenes, info["seed"])
    if scenario.fingerprint != info["scenario_hash"]:
        raise ValueError(f"{directory}: the scenario in provenance.json is not the one run.json ran (fingerprints differ)")

    def number(part: Dict[str, Any], key: str) -> float:
        value = part.get(key)
        return float("nan") if value is None else float(value)

    seconds = sum(number(p, "seconds") for p in sources)
    scene_steps = sum(number(p, "seconds") * number(p, "scene_steps_per_second") for p in sources)
    return EnsembleResult(
        **_tables(read),
        engine=", ".join(sorted({str(p.get("engine", "")) for p in sources})),
        arithmetic=info["arithmetic"],
        notice=None,
        seconds=seconds,
        device_seconds=None,
        scene_steps=int(round(scene_steps)) if math.isfinite(scene_steps) else 0,
        failures={},
        scenario=scenario,
        stop=stop,
        shard=tuple(info["shard"]),
    )


@dataclass(frozen=True)
class Samples:
    """States sampled at common times, per scene: `values[scene, sample, coordinate]` at
    `t[sample]` for the scenes `scenes`, the coordinates named by `names` (the scene's
    coordinates, then their velocities). `table` is the same as one row per (scene, time)."""

    t: np.ndarray
    scenes: np.ndarray
    names: List[str]
    values: np.ndarray
    table: np.ndarray

    @staticmethod
    def of(table: np.ndarray) -> "Samples":
        names = [n for n in table.dtype.names if n not in ("scene", "t")]
        scenes = np.unique(table["scene"])
        count = len(table) // max(len(scenes), 1)
        values = np.stack([table[n] for n in names], axis=-1).reshape(len(scenes), count, len(names))
        t = table["t"][:count].copy()
        return Samples(t=t, scenes=scenes, names=names, values=values, table=table)


@dataclass(frozen=True)
class EnsembleResult:
    """What `run` returns.

    - `summary`: one row per scene (a numpy structured array: `scene`, the drawn
      parameters, the observables, `impacts`, …, the same numbers and types as the command
      line's `summary.parquet`); `to_pandas()` makes it a DataFrame.
    - `trajectories`: the recorded scenes' `Samples` every `record.stride` steps.
    - `strobe`: every scene's `Samples` at the `[strobe]` times (None without `[strobe]`).
    - `events`: one row per impact (`scene, t, row, ydot_before, ydot_after, impulse`; None
      without `[events]`).
    - `stats`: `stats.json`'s content: `rows`, and `columns[name]`: count, missing, mean,
      std, min, max, quantiles, histogram.
    - `engine` (the backend, described), `arithmetic` (`cpu f64`, `gpu f32`, …), `notice`
      (why `auto` chose what it chose), `seconds` (wall clock), `device_seconds`,
      `scene_steps`.
    - `failures`: `{scene: exception}` for the scenes whose Python functions raised (their
      summary rows have `finite` = 0; the other scenes' results stand). `run` warns when there
      are any.
    - `stop`: where a stop rule (`[stop]`, or `run`'s `stop`) ended the run, as `run.json`
      has it — `scenes`, `max_scenes`, `met`, and `targets` (each `column`, `count`, `mean`,
      `half_width`, `wanted`, `met`); None without a rule.
    - `sensitivity`: a Saltelli design's (`design = "saltelli"`) Sobol indices, as
      `sensitivity.json` has them: `{output: {parameter: {"S1", "S1_ci95", "ST",
      "ST_ci95"}}}` (first-order and total, 95 % bootstrap intervals); None without one.
    - `shard`: (i, n), the shard of the scenes these are.
    - `intervals`, `indices`: `stats`' intervals and the Sobol indices as structured arrays;
      `to_pandas()` and `to_xarray()` (with units) the summary as a DataFrame or a Dataset.

    `save(dir)` writes the files `ricochet run` writes; `ricochet.load(dir)` reads such a
    directory (the command line's, a merge's or a saved one) back into an `EnsembleResult`.
    - `unhealthy`: the scenes that did not converge or became NaN or infinite (`converged`
      or `finite` = 0; their rows are kept); `run` warns when there are any, as the command
      line does.
    """

    summary: np.ndarray
    trajectories: Samples
    strobe: Optional[Samples]
    events: Optional[np.ndarray]
    stats: Dict[str, Any]
    engine: str
    arithmetic: str
    notice: Optional[str]
    seconds: float
    device_seconds: Optional[float]
    scene_steps: int
    failures: Dict[int, BaseException]
    scenario: "_ricochet.Scenario" = field(repr=False)
    stop: Optional[Dict[str, Any]] = None
    sensitivity: Optional[Dict[str, Dict[str, Dict[str, Any]]]] = None
    shard: Tuple[int, int] = (0, 1)

    @property
    def unhealthy(self) -> np.ndarray:
        """The scene indices whose rows have `converged` = 0 or `finite` = 0."""
        summary = self.summary
        bad = (summary["converged"] == 0) | (summary["finite"] == 0)
        return summary["scene"][bad]

    def save(self, directory: Union[str, os.PathLike], formats: Optional[Sequence[str]] = None) -> List[str]:
        """Writes the files `ricochet run` writes into `directory` (the tables summary,
        trajectories, strobe and events in each of `formats` — "csv", "npy", "parquet";
        by default the scenario's `[output] formats`, Parquet unless it says otherwise —,
        stats.json, run.json, sensitivity.json, and a provenance.json holding the scenario as
        TOML; not the pictures), replacing an earlier run's; `ricochet.load(directory)` reads
        them back. Returns the paths written."""
        tables = [self.summary, self.trajectories.table, None if self.strobe is None else self.strobe.table, self.events]
        run = {
            "engine": self.engine,
            "arithmetic": self.arithmetic,
            "seconds": self.seconds,
            "scene_steps": self.scene_steps,
            "shard": list(self.shard),
            "stop": self.stop,
            "formats": None if formats is None else list(formats),
        }
        columns = [None if t is None else _columns(t) for t in tables]
        return _ricochet.write_run(self.scenario, os.fspath(directory), columns, json.dumps(run))

    @property
    def intervals(self) -> np.ndarray:
        """`stats`' estimates with their 95 % intervals as arrays: one row per summary column
        (but `scene`) with `column`, `count`, `mean`, `sem`, `mean_lo`, `mean_hi` (Student's
        t), and for a column of zeros and ones `probability`, `probability_lo`,
        `probability_hi` (Wilson's; NaN for other columns)."""
        fields = ["mean", "sem", "mean_lo", "mean_hi", "probability", "probability_lo", "probability_hi"]
        columns = self.stats["columns"]
        names = [n for n in self.summary.dtype.names if n in columns]
        width = max([len(n) for n in names] + [1])
        table = np.zeros(len(names), dtype=[("column", f"U{width}"), ("count", np.int64)] + [(f, np.float64) for f in fields])

        def number(value: Any) -> float:
            return float("nan") if value is None else float(value)

        for i, name in enumerate(names):
            c = columns[name]
            mean_ci = c.get("mean_ci95") or [None, None]
            p_ci = c.get("probability_ci95") or [None, None]
            values = [c.get("mean"), c.get("sem"), *mean_ci, c.get("probability"), *p_ci]
            table[i] = (name, c["count"], *[number(v) for v in values])
        return table

    @property
    def indices(self) -> Optional[np.ndarray]:
        """A Saltelli design's Sobol indices as arrays (None without one): one row per output
        and parameter with `output`, `parameter`, `S1`, `S1_lo`, `S1_hi`, `ST`, `ST_lo`,
        `ST_hi` (95 % bootstrap intervals)."""
        if self.sensitivity is None:
            return None
        rows = [(output, parameter, x) for output, by in self.sensitivity.items() for parameter, x in by.items()]
        width = max([len(r[0]) for r in rows] + [len(r[1]) for r in rows] + [1])
        fields = ["S1", "S1_lo", "S1_hi", "ST", "ST_lo", "ST_hi"]
        table = np.zeros(len(rows), dtype=[("output", f"U{width}"), ("parameter", f"U{width}")] + [(f, np.float64) for f in fields])
        for i, (output, parameter, x) in enumerate(rows):
            values = [x["S1"], *x["S1_ci95"], x["ST"], *x["ST_ci95"]]
            table[i] = (output, parameter, *[float("nan") if v is None else v for v in values])
        return table

    def to_pandas(self) -> Any:
        """The summary as a pandas DataFrame (pandas must be installed)."""
        import pandas

        return pandas.DataFrame(self.summary)

    def to_xarray(self) -> Any:
        """The summary as an xarray Dataset over the dimension `scene` (xarray must be
        installed): a variable per column with its `units` attribute where known, and the
        scenario's name, seed and fingerprint as the dataset's attributes."""
        import xarray

        units = json.loads(self.scenario.units)
        scenes = self.summary["scene"]
        variables = {
            name: xarray.Variable("scene", self.summary[name], attrs={"units": units[name]} if name in units else {})
            for name in self.summary.dtype.names
            if name != "scene"
        }
        attrs = {"scenario": self.scenario.name, "seed": self.scenario.seed, "fingerprint": self.scenario.fingerprint}
        return xarray.Dataset(variables, coords={"scene": scenes}, attrs=attrs)

    def __repr__(self) -> str:
        return (
            f"EnsembleResult({self.scenario.name!r}: {len(self.summary)} scenes on {self.engine}, "
            f"{self.seconds:.3g} s)"
        )


class _Guard:
    """A user's `build` wrapped so that the first exception it raises is kept: the run's
    error is then raised from it (chained), and a KeyboardInterrupt or SystemExit raised in
    `build` comes back as itself, not as a ValueError."""

    def __init__(self, build: Optional[Build]) -> None:
        self.first: Optional[BaseException] = None
        self.build = None if build is None else self._call(build)

    def _call(self, build: Build) -> Build:
        def call(index: int, rng: "_ricochet.Rng") -> Any:
            try:
                return build(index, rng)
            except BaseException as e:
                if self.first is None:
                    self.first = e
                raise

        return call

    def call(self, f: Callable[[], Any]) -> Any:
        """`f()` (a load, which builds scene 0; a job), its error raised from `build`'s own
        exception."""
        try:
            return f()
        except (ValueError, RuntimeError) as error:
            first = self.first
            if first is None:
                raise
            if not isinstance(first, Exception):
                raise first from None
            raise error from first

    def drive(self, job: Callable[[], Any], progress: bool) -> Any:
        """`drive(job(), progress)`, its error raised from `build`'s own exception."""
        return self.call(lambda: drive(job(), progress))


#: The largest count the engine takes (an unsigned 64-bit integer).
_MAX_COUNT = 2**64 - 1


def _count(name: str, value: Any, minimum: int = 0, optional: bool = True) -> Optional[int]:
    """`value` as a whole number in [minimum, 2⁶⁴ − 1], or None where allowed: a TypeError
    for a bool, a float or anything else that is not an integer, a ValueError out of range,
    each naming the argument."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number, not {type(value).__name__} ({value!r})")
    value = int(value)
    if not minimum <= value <= _MAX_COUNT:
        raise ValueError(f"{name} = {value} is out of range: it must be in [{minimum}, 2**64 - 1]")
    return value


def _shard(shard: Union[None, str, Tuple[int, int]]) -> str:
    if shard is None:
        return "0/1"
    if isinstance(shard, str):
        return shard
    if not isinstance(shard, (tuple, list)) or len(shard) != 2:
        raise TypeError(f"shard must be (i, n) or \"i/n\", not {shard!r}")
    index, count = _count("shard's i", shard[0]), _count("shard's n", shard[1], minimum=1)
    if index >= count:
        raise ValueError(f"shard = ({index}, {count}): i must be below n")
    return f"{index}/{count}"


def _health(result: "EnsembleResult") -> None:
    """Warns, as the command line does, when some scene did not converge or became NaN or
    infinite (their rows are kept: `result.unhealthy` lists them)."""
    # (Scenes whose Python functions raised are warned of with their exception.)
    bad = [int(s) for s in result.unhealthy if int(s) not in result.failures]
    if not bad:
        return
    summary = result.summary
    finite = dict(zip(summary["scene"].tolist(), summary["finite"].tolist()))
    nonfinite = sum(1 for s in bad if finite[s] == 0)
    warnings.warn(
        f"{len(bad)} scene(s) are unhealthy ({nonfinite} became NaN or infinite, the others did not "
        f"converge; the first: scene {bad[0]}); their rows are kept: see result.unhealthy and the "
        f"`converged` and `finite` columns",
        RuntimeWarning,
        stacklevel=3,
    )


def run(
    scenario: ScenarioLike,
    scenes: Optional[int] = None,
    seed: Optional[int] = None,
    backend: str = "auto",
    shard: Union[None, str, Tuple[int, int]] = None,
    progress: bool = True,
    chunk: Optional[int] = None,
    build: Optional[Build] = None,
    checkpoints: Union[None, str, os.PathLike] = None,
    resume: bool = False,
    stop: Optional[Dict[str, Any]] = None,
    client: Any = None,
    shards: Optional[int] = None,
    retries: int = 1,
) -> EnsembleResult:
    """Runs a Monte Carlo ensemble, as `ricochet run` does, and returns its results as numpy
    arrays (`EnsembleResult`).

    scenario: a path to a scenario TOML file, a TOML text, or a dict of the same shape.
    scenes, seed: override the scenario's.
    backend: "auto" (a hardware GPU, else all CPU cores), "gpu", "cpu" or "reference".
    shard: (i, n) or "i/n": runs scenes ⌊N i/n⌋ .. ⌊N (i+1)/n⌋ only.
    progress: a progress bar (tqdm when installed, else a line on stderr).
    chunk: scenes stepped at a time (results do not depend on it).
    build: your own scenes (see `load`): `build(index, rng)` returns scene `index` as an
        `Nsds`, or `(Nsds, {name: value})`. They run batched where their systems reduce to
        step operators (the linear systems and relations of `ricochet.model` do), else on
        the reference stepper; `build` itself runs with the GIL, one scene at a time.
    checkpoints: a directory where each finished chunk is kept, so that an interrupted run
        (Ctrl-C, a killed kernel) can be continued: the same call with `resume=True` runs
        only the chunks not kept, and its results are those of an uninterrupted run.
        Without `resume` a run starts afresh there.
    stop: run until precise, as a scenario's `[stop]` table: `{"min_scenes": 1000,
        "every": 1000, "max_scenes": 10**6, "target": [{"column": "impacts", "half_width":
        0.01}]}` stops at the first test point (min_scenes, then every `every` scenes) where
        each target column's mean has a 95 % interval no wider than ± `half_width` (or ±
        `relative` × |mean|); `scenes` (or `max_scenes`) is the cap. The result's `stop` says
        where and why. Not with `shard`.
    client: a `dask.distributed.Client`: the scenes run as `shards` Dask tasks (default: one
        per worker), each shard's rows computed where Dask puts it and retried up to
        `retries` times where its worker fails; the result is the one a single process gives
        (the same summary bytes, statistics and indices). A shard that still fails raises
        RuntimeError naming its scenes. The workers need ricochet installed (and a scenario
        file's path, or use a TOML text or dict); each uses its own cores or GPU (pick one per
        worker with `RICOCHET_ADAPTER`). Not with `shard`, `stop` or `checkpoints`; no
        progress bar.

    The same scenario and seed give the same numbers as the command line, bit for bit, on
    the same backend. The GIL is released while the scenes are stepped; Ctrl-C stops the run
    within a few hundred steps and raises KeyboardInterrupt. Raises ValueError for a bad
    scenario or argument, RuntimeError for a run that fails.
    """
    scenes, seed = _count("scenes", scenes, minimum=1), _count("seed", seed)
    chunk = _count("chunk", chunk, minimum=1)
    if stop is not None:
        if not isinstance(stop, dict):
            raise TypeError(f"stop must be a dict of [stop]'s keys, not {type(stop).__name__}")
        for key in ("min_scenes", "every", "max_scenes"):
            _count(f"stop's {key}", stop.get(key), minimum=1, optional=key != "min_scenes")
    if client is not None:
        given = {
            "shard": shard is not None,
            "stop": stop is not None,
            "checkpoints": checkpoints is not None,
            "resume": resume,
        }
        if any(given.values()):
            named = ", ".join(k for k, v in given.items() if v)
            raise ValueError(f"client: {named} cannot be given with a Dask client (it shards the run itself)")
        shards = _count("shards", shards, minimum=1)
        retries = _count("retries", retries, optional=False)
    guard = _Guard(build)
    if stop is not None and scenes is not None and stop.get("max_scenes", scenes) != scenes:
        raise ValueError(f"stop: max_scenes = {stop['max_scenes']} and scenes = {scenes}: give the cap once")

    def parse() -> "_ricochet.Scenario":
        # (The scenes first: the stop rule is checked against the cap they set.)
        parsed = load(scenario, guard.build)
        if isinstance(parsed, EnsembleResult):
            raise ValueError(f"{os.fspath(scenario)}: a run's directory is a result (ricochet.load reads it), not a scenario to run")
        parsed = parsed.with_size(scenes, seed)
        return parsed if stop is None else parsed.with_stop(json.dumps(stop))

    parsed = guard.call(parse)
    if client is not None and parsed.stop is not None:
        raise ValueError(f"client: scenario `{parsed.name}` has a [stop] rule, which needs every scene before a test point: run it in one process")
    if client is not None:
        from ._cluster import run_on

        # (Workers get the parsed scenario, which pickles, unless `build` makes the scenes.)
        job = (scenario if build is not None else parsed, parsed, build)
        sizes = (scenes, seed) if build is not None else (None, None)
        ensemble = guard.call(lambda: run_on(client, job, sizes, (backend, chunk), shards, retries))
        _health(ensemble)
        return ensemble
    directory = None if checkpoints is None else os.fspath(checkpoints)
    result = guard.drive(lambda: _ricochet.start_run(parsed, backend, _shard(shard), chunk, directory, resume), progress)
    failures = dict(result["failures"])
    if failures:
        scene, error = next(iter(failures.items()))
        warnings.warn(
            f"{len(failures)} scene(s) stopped on an exception raised by your functions (their summary rows "
            f"have finite = 0; the other scenes' results stand); the first, scene {scene}: "
            f"{type(error).__name__}: {error}. All are in the result's `failures`.",
            RuntimeWarning,
            stacklevel=2,
        )
    ensemble = EnsembleResult(
        **_tables(result),
        engine=result["engine"],
        arithmetic=result["arithmetic"],
        notice=result["notice"],
        seconds=result["seconds"],
        device_seconds=result["device_seconds"],
        scene_steps=result["scene_steps"],
        failures=failures,
        scenario=parsed,
        stop=None if result["stop"] is None else json.loads(result["stop"]),
        shard=tuple(result["shard"]),
    )
    _health(ensemble)
    return ensemble


def verify(
    scenario: ScenarioLike,
    scenes: int = 8,
    max_time: Optional[float] = None,
    progress: bool = True,
    build: Optional[Build] = None,
) -> Dict[str, Any]:
    """Runs the first `scenes` scenes (to `max_time` at most) on the reference stepper, the
    CPU backend and the GPU, as `ricochet verify`, and returns the verdict: `{"scenario",
    "scenes", "engines": [{"engine", "tolerance", "columns": [{"column", "deviation",
    "ok"}]}], "skipped": [...], "ok"}` (deviations relative to 1 + |reference|)."""
    scenes = _count("scenes", scenes, minimum=1, optional=False)
    guard = _Guard(build)
    parsed = guard.call(lambda: load(scenario, guard.build))
    return json.loads(guard.drive(lambda: _ricochet.start_verify(parsed, scenes, max_time), progress))


def run_large_scene(
    scenario: Union[str, "os.PathLike[str]"],
    out: Union[str, "os.PathLike[str]"],
    backend: str = "auto",
    progress: bool = True,
    resume: bool = False,
) -> Dict[str, Any]:
    """Runs a large-scene scenario (a `[large_scene]` table: one scene of many discs or
    spheres, as `ricochet run` does) and writes its files into `out`: `series.csv`,
    `final.csv` and, with `[output] snapshots`, VTK snapshots indexed by `snapshots.pvd`.

    scenario: a path to its TOML file, a shipped scenario's name (`"hopper_2d"`) or a TOML text.
    backend: "auto" (a hardware GPU, else all CPU cores), "gpu" or "cpu".
    resume: continue the run an interruption (Ctrl-C, a killed kernel) left in `out` from its
        last checkpoint (`[output] checkpoint` steps apart); the files end as an
        uninterrupted run's, byte for byte. Without it a run starts afresh there.

    Returns the run (`engine`, `notice`, `bodies`, `steps`, `resumed_steps`, `seconds`, `contact_iterations`,
    `unconverged_steps`, `files`) with `series` and `final`, the two CSV files as numpy
    structured arrays (one field per column). Raises ValueError for a bad scenario."""
    if isinstance(scenario, (str, os.PathLike)) and os.path.isfile(scenario):
        origin = os.fspath(scenario)
        with open(origin, encoding="utf-8") as f:
            text = f.read()
    else:
        shipped = _shipped(scenario)
        text = shipped if shipped is not None else os.fspath(scenario)
        origin = os.fspath(scenario) if shipped is not None else "<text>"
    result = json.loads(drive(_ricochet.start_large_run(text, origin, os.fspath(out), backend, resume), progress))
    for name in ("series", "final"):
        result[name] = np.genfromtxt(os.path.join(os.fspath(out), f"{name}.csv"), delimiter=",", names=True)
    return result


def bench(
    scenario: ScenarioLike,
    sizes: Sequence[int] = (1000,),
    reference_up_to: int = 1000,
    progress: bool = True,
    repeat: int = 3,
    precision: str = "auto",
) -> List[Dict[str, Any]]:
    """Every backend's throughput at each ensemble size, as `ricochet bench`: one dict per
    (backend, size) with `backend`, `adapter`, `driver`, `precision`, `scenes`, `steps`,
    `seconds` (the median of `repeat` runs), `runs`, `spread`, `scene_steps_per_second`,
    `device_seconds`, `warmup_seconds`; the GPU at `precision` ("auto", "f32", "f64" or
    "both", a row each)."""
    sizes = [_count("sizes", n, minimum=1, optional=False) for n in sizes]
    reference_up_to = _count("reference_up_to", reference_up_to, optional=False)
    repeat = _count("repeat", repeat, minimum=1, optional=False)
    if precision not in ("auto", "f32", "f64", "both"):
        raise ValueError(f"precision {precision!r}: expected 'auto', 'f32', 'f64' or 'both'")
    precisions = ["f32", "f64"] if precision == "both" else [precision]
    job = _ricochet.start_bench(load(scenario), sizes, reference_up_to, repeat, precisions)
    return json.loads(drive(job, progress))


def check(scenario: ScenarioLike, progress: bool = False, build: Optional[Build] = None) -> Dict[str, Any]:
    """A dry run, as `ricochet check`: every scene built (a bad draw raises ValueError naming
    it), the drawn parameters' ranges, the size, what is recorded, and per backend an
    estimate of the run's time from a short timed sample."""
    guard = _Guard(build)
    parsed = guard.call(lambda: load(scenario, guard.build))
    return json.loads(guard.drive(lambda: _ricochet.start_check(parsed), progress))


def templates() -> List[Dict[str, Any]]:
    """Every scene template: `{"name", "parameters": [{"name", "default", "unit"}]}`, the
    parameters in the order the template asks for them; a default is a float, or a string
    where it is not a number (`required` for a matrix without one)."""

    def number(text: str) -> Union[float, str]:
        try:
            return float(text)
        except ValueError:
            return text

    listed = json.loads(_ricochet.templates())
    for template in listed:
        for parameter in template["parameters"]:
            parameter["default"] = number(parameter["default"])
    return listed
