"""Ensembles spread over a Dask cluster: `run(..., client=)` runs the scenes as shards, one
Dask task each (retried by Dask where a worker fails), and puts the shards back together
into the result one process gives — the same summary bytes, statistics and indices."""

import dataclasses
import json
import time
from typing import Any, List, Optional, Tuple

import numpy as np

from . import _ricochet


def _shard(source: Any, sizes: Tuple[Optional[int], Optional[int]], build: Any, where: Tuple[int, int], options: Tuple[str, Optional[int]]) -> Any:
    """Runs shard `where` = (i, n) of the scenario on a worker (no progress bar)."""
    from .ensemble import run

    (scenes, seed), (backend, chunk) = sizes, options
    result = run(source, scenes=scenes, seed=seed, backend=backend, shard=where, progress=False, chunk=chunk, build=build)
    # (A scenario whose scenes `build` makes does not pickle: the client has it.)
    return dataclasses.replace(result, scenario=None)


def _range(scenes: int, index: int, count: int) -> Tuple[int, int]:
    """Scenes ⌊N i/n⌋ .. ⌊N (i+1)/n⌋ of shard i of n (as the library cuts them)."""
    return scenes * index // count, scenes * (index + 1) // count


def _concatenate(tables: List[Optional[np.ndarray]]) -> Optional[np.ndarray]:
    if tables[0] is None:
        return None
    return np.concatenate(tables)


def run_on(client: Any, job: Tuple[Any, Any, Any], sizes: Tuple[Optional[int], Optional[int]], options: Tuple[str, Optional[int]], shards: Optional[int], retries: int) -> Any:
    """The ensemble of `job` = (source, parsed scenario, build) run as `shards` Dask tasks on
    `client` (default: one per worker), merged."""
    from .ensemble import EnsembleResult, Samples, _columns

    source, parsed, build = job
    if shards is None:
        shards = max(1, len(client.nthreads()))
    started = time.perf_counter()
    futures = [
        client.submit(_shard, source, sizes, build, (i, shards), options, pure=False, retries=retries)
        for i in range(shards)
    ]
    parts = []
    for i, future in enumerate(futures):
        try:
            parts.append(future.result())
        except (ValueError, TypeError, KeyboardInterrupt, SystemExit):
            # (Bad input is the same error as at home; Ctrl-C stops waiting.)
            client.cancel(futures)
            raise
        except Exception as error:
            client.cancel(futures)
            lo, hi = _range(parsed.scenes, i, shards)
            raise RuntimeError(
                f"shard {i}/{shards} (scenes {lo}..{hi}) of `{parsed.name}` failed on the cluster"
                f" after {retries} retries: {type(error).__name__}: {error}"
            ) from error
    arithmetic = {p.arithmetic for p in parts}
    if len(arithmetic) > 1:
        raise RuntimeError(
            f"the shards of `{parsed.name}` were computed by {sorted(arithmetic)}: their rows differ in"
            " rounding; give every worker the same backend (backend=\"cpu\", or one GPU kind)"
        )
    summary = np.concatenate([p.summary for p in parts])
    stats, sensitivity = _ricochet.summarise(parsed, *_columns(summary))
    strobe = _concatenate([None if p.strobe is None else p.strobe.table for p in parts])
    device = [p.device_seconds for p in parts]
    failures = {}
    for p in parts:
        failures.update(p.failures)
    return EnsembleResult(
        summary=summary,
        trajectories=Samples.of(np.concatenate([p.trajectories.table for p in parts])),
        strobe=None if strobe is None else Samples.of(strobe),
        events=_concatenate([p.events for p in parts]),
        stats=json.loads(stats),
        engine=f"{parts[0].engine}, {shards} shards on Dask",
        arithmetic=parts[0].arithmetic,
        notice=parts[0].notice,
        seconds=time.perf_counter() - started,
        device_seconds=None if None in device else sum(device),
        scene_steps=sum(p.scene_steps for p in parts),
        failures=failures,
        scenario=parsed,
        sensitivity=None if sensitivity is None else json.loads(sensitivity),
    )
