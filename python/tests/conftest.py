"""Shared fixtures: the repository's root, the `ricochet` command line built by `cargo test`
(or named by RICOCHET_BIN) to compare with, and Siconos's reference trajectories (from
../shared/data/siconos or RICOCHET_SICONOS_DATA). Under CI=true a missing binary or missing
data fails the tests that need it; elsewhere they skip."""

import os
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = pathlib.Path(os.environ.get("RICOCHET_SICONOS_DATA", ROOT.parent / "shared/data/siconos"))


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    named = os.environ.get("RICOCHET_BIN")
    candidates = [pathlib.Path(named)] if named else [ROOT / "target/debug/ricochet", ROOT / "target/release/ricochet"]
    for path in candidates:
        if path.is_file():
            return path
    message = f"no ricochet binary at {', '.join(map(str, candidates))} (run `cargo test` or set RICOCHET_BIN)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def siconos():
    """`siconos(name)`: a Siconos `.ref` trajectory as an array (its first line, rows and
    columns, skipped)."""

    def load(name: str) -> np.ndarray:
        path = DATA / "tutorials-ref" / name
        if not path.is_file():
            message = f"Siconos's reference data not found at {path} (set RICOCHET_SICONOS_DATA)"
            if os.environ.get("CI") == "true":
                pytest.fail(message)
            pytest.skip(message)
        return np.loadtxt(path, skiprows=1)

    return load
