"""Your own system as an ensemble from Python: scenes built by a function, run through the
ensemble machinery on the batched CPU engine and the reference stepper."""

import math
import warnings

import numpy as np
import pytest

import ricochet

G, RADIUS = 9.81, 0.1

SETTINGS = {
    "name": "my_balls",
    "scenes": 48,
    "seed": 3,
    "time": {"step": 1e-3, "final": 1.5},
    "observe": [{"name": "first_impact", "signal": "lambda0", "reduce": "first_above", "threshold": 0.0}],
}


def ball(index, rng):
    """A ball of drawn height and restitution, in the model's vocabulary (y = z − R)."""
    height, e = rng.uniform(1.0, 2.0), rng.uniform(0.5, 0.9)
    nsds = ricochet.Nsds()
    b = nsds.add("ball", ricochet.LagrangianLinearTIDS(q0=[height], v0=[0.0], mass=[[1.0]], fext=[-G]))
    nsds.link("floor", ricochet.NewtonImpactNSL(e), ricochet.LagrangianLinearTIR([[1.0]], b=[-RADIUS]), [b])
    return nsds, {"height": height, "e": e}


def test_a_custom_ensemble_follows_the_physics_on_every_engine():
    cpu = ricochet.run(SETTINGS, build=ball, backend="cpu", progress=False)
    reference = ricochet.run(SETTINGS, build=ball, backend="reference", progress=False)
    summary = cpu.summary
    assert cpu.arithmetic == "cpu f64" and len(summary) == 48
    assert summary.dtype.names[:3] == ("scene", "height", "e")
    assert np.all((1.0 <= summary["height"]) & (summary["height"] < 2.0))
    assert np.all((0.5 <= summary["e"]) & (summary["e"] < 0.9))
    # The ball reaches the floor at √(2 (h − R)/g); the impulse comes in the step that
    # crosses it or the next (the contact activates on the predicted gap), and the
    # observable's time ends that step: within (0, 2h] after.
    fall = np.sqrt(2 * (summary["height"] - RADIUS) / G)
    late = summary["first_impact"] - fall
    assert late.min() > 0 and late.max() <= 2e-3, (late.min(), late.max())
    # The batched engine and the reference agree (impacts exactly, the state to rounding).
    assert np.array_equal(summary["impacts"], reference.summary["impacts"])
    assert np.allclose(summary["q0"], reference.summary["q0"], rtol=0, atol=1e-9)
    # An impact keeps e² of the kinetic energy g (h − R) (per unit mass) the ball arrives
    # with: after exactly one impact the energy has changed by −(1 − e²) g (h − R), to the
    # step's accuracy (0.25 % seen).
    once = summary["impacts"] == 1
    assert once.sum() >= 3
    lost = -(1 - summary["e"] ** 2) * G * (summary["height"] - RADIUS)
    assert np.abs(summary["energy_change"][once] / lost[once] - 1).max() < 0.01


def test_a_custom_ensemble_is_reproducible_whatever_the_chunking():
    a = ricochet.run(SETTINGS, build=ball, backend="cpu", progress=False)
    b = ricochet.run(SETTINGS, build=ball, backend="cpu", progress=False, chunk=7)
    parts = [ricochet.run(SETTINGS, build=ball, backend="cpu", shard=(i, 2), progress=False) for i in range(2)]
    assert a.summary.tobytes() == b.summary.tobytes()
    assert np.concatenate([p.summary for p in parts]).tobytes() == a.summary.tobytes()
    other = ricochet.run(SETTINGS, build=ball, seed=4, backend="cpu", progress=False)
    assert not np.array_equal(other.summary["height"], a.summary["height"])


def test_verify_and_check_take_a_build_function():
    verdict = ricochet.verify(SETTINGS, scenes=4, max_time=0.8, build=ball, progress=False)
    assert verdict["ok"]
    assert any(e["engine"].startswith("cpu") for e in verdict["engines"])
    found = ricochet.check(SETTINGS, build=ball)
    assert found["scenes"] == 48 and [r["name"] for r in found["drawn"]] == ["height", "e"]


def test_the_rng_draws_are_the_scenes_own():
    seen = {}

    def record(index, rng):
        seen.setdefault(index, []).append((rng.random(), rng.normal(0.0, 1.0), rng.integers(0, 10)))
        return ball(index, rng)

    ricochet.run(SETTINGS, build=record, backend="cpu", progress=False)
    # Scene 5 built twice (by the check of the draws and by its chunk) drew the same numbers.
    assert len(seen[5]) >= 2 and len(set(seen[5])) == 1
    assert seen[5][0] != seen[6][0]
    assert all(0 <= draw[2] < 10 for draws in seen.values() for draw in draws)


def test_bad_builds_are_value_errors():
    def broken(index, rng):
        if index == 3:
            raise ArithmeticError("no ball today")
        return ball(index, rng)

    with pytest.raises(ValueError, match="scene 3.*no ball today") as raised:
        ricochet.run(SETTINGS, build=broken, backend="cpu", progress=False)
    # Chained: raised from build's own exception.
    assert isinstance(raised.value.__cause__, ArithmeticError)

    def interrupted(index, rng):
        if index == 3:
            raise KeyboardInterrupt
        return ball(index, rng)

    # A KeyboardInterrupt (or SystemExit) raised in build comes back as itself, at scene 0
    # (built when the scenario is loaded) as at scene 3; another exception is chained there too.
    with pytest.raises(KeyboardInterrupt):
        ricochet.run(SETTINGS, build=interrupted, backend="cpu", progress=False)

    def exits(index, rng):
        raise SystemExit(3)

    with pytest.raises(SystemExit):
        ricochet.run(SETTINGS, build=exits, backend="cpu", progress=False)

    def zero_fails(index, rng):
        raise ArithmeticError("not even scene 0")

    with pytest.raises(ValueError, match="not even scene 0") as raised:
        ricochet.run(SETTINGS, build=zero_fails, backend="cpu", progress=False)
    assert isinstance(raised.value.__cause__, ArithmeticError)
    # A path that is no file, with build, is refused (not taken as a shipped scenario).
    import pathlib

    with pytest.raises(ValueError, match="no such file"):
        ricochet.run(pathlib.Path("bouncing_balls"), build=ball, progress=False)
    with pytest.raises(ValueError, match="must be finite"):
        ricochet.run(SETTINGS, build=lambda i, rng: (ball(i, rng)[0], {"e": float("inf")}), progress=False)
    # A dict's NaN is named by its key; numpy numbers and arrays are plain numbers.
    with pytest.raises(ValueError, match="`time.step` = nan"):
        ricochet.run({**SETTINGS, "time": {**SETTINGS["time"], "step": float("nan")}}, build=ball, progress=False)
    with pytest.raises(ValueError, match="`name`: object is not a TOML value"):
        ricochet.run({**SETTINGS, "name": object()}, build=ball, progress=False)
    numpy_time = {**SETTINGS, "time": {k: np.float64(v) for k, v in SETTINGS["time"].items()}}
    assert len(ricochet.run(numpy_time, build=ball, backend="cpu", progress=False).summary) == SETTINGS["scenes"]
    with pytest.raises(ValueError, match="Nsds"):
        ricochet.run(SETTINGS, build=lambda i, rng: 42, backend="cpu", progress=False)
    with pytest.raises(ValueError, match=r"\[scene\]"):
        ricochet.run({**SETTINGS, "scene": {"template": "bouncing_ball"}}, build=ball, progress=False)
    with pytest.raises(ValueError, match="bogus"):
        ricochet.run({**SETTINGS, "bogus": 1}, build=ball, progress=False)
    with pytest.raises(ValueError, match="first scene built drew"):
        ricochet.run(SETTINGS, build=lambda i, rng: (ball(i, rng)[0], {f"x{i % 2}": 1.0}), progress=False)


def test_a_scene_whose_function_raises_is_reported_and_the_others_stand():
    # A LagrangianDS with a Python F_ext runs on the reference stepper; scene 3's force
    # raises after 0.2 s.
    def forced(index, rng):
        height = rng.uniform(1.0, 2.0)

        def fext(t):
            if index == 3 and t > 0.2:
                raise ArithmeticError(f"scene {index} gave up")
            return [-G]

        nsds = ricochet.Nsds()
        b = nsds.add("ball", ricochet.LagrangianDS(q0=[height], v0=[0.0], mass=[[1.0]], fext=fext))
        nsds.link("floor", ricochet.NewtonImpactNSL(0.7), ricochet.LagrangianLinearTIR([[1.0]], b=[-RADIUS]), [b])
        return nsds

    settings = dict(SETTINGS, scenes=6, time={"step": 1e-2, "final": 1.0})
    with pytest.warns(RuntimeWarning, match=r"1 scene\(s\) .* scene 3: ArithmeticError: scene 3 gave up"):
        result = ricochet.run(settings, build=forced, backend="auto", progress=False)
    assert list(result.failures) == [3]
    assert isinstance(result.failures[3], ArithmeticError)
    assert result.summary["finite"].tolist() == [1, 1, 1, 0, 1, 1]
    assert np.all(result.summary["impacts"][[0, 1, 2, 4, 5]] >= 1)
    # The same ensemble without the failing scene: no warning, nothing reported.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clean = ricochet.run(dict(settings, scenes=3), build=forced, progress=False)
    assert clean.failures == {} and clean.summary["finite"].tolist() == [1, 1, 1]


def test_a_custom_scenario_says_it_does_not_pickle():
    import pickle

    with pytest.raises(TypeError, match="built by your function"):
        pickle.dumps(ricochet.load(SETTINGS, build=ball))
