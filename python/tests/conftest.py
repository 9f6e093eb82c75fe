"""Shared fixtures: the repository's root, and the `ricochet` command line built by `cargo
test` (or named by RICOCHET_BIN) to compare with. Under CI=true a missing binary fails the
tests that need it; elsewhere they skip."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


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
