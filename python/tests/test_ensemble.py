"""`ricochet.run` and the other commands against the command line, and their errors."""

import _thread
import csv
import json
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import ricochet

BALLS = """
name = "balls"
scenes = 200
seed = 11
[scene]
template = "bouncing_ball"
height = { uniform = [1.0, 2.0] }
restitution = { uniform = [0.8, 0.95] }
[time]
step = 1e-3
final = 2.0
[record]
trajectories = 3
stride = 50
"""


def study(root, tmp_path):
    """The impact-oscillator study (observables, strobe, events), cut to 60 scenes over 30 s."""
    text = (root / "scenarios/impact_oscillator_study.toml").read_text()
    for old, new in [("scenes = 601", "scenes = 60"), ("3.05, 601]", "3.05, 60]"), ("final = 200.0", "final = 30.0"), ("from = 120.0", "from = 10.0")]:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "study.toml"
    path.write_text(text)
    return path


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], np.array([[float(x) for x in row] for row in rows[1:]])


def columns(table):
    return np.stack([table[name].astype(float) for name in table.dtype.names], axis=-1)


def test_run_gives_the_command_lines_numbers_bit_for_bit(root, cli, tmp_path):
    scenario = study(root, tmp_path)
    out = tmp_path / "out"
    subprocess.run(
        [cli, "-q", "run", scenario, "--backend", "cpu", "--seed", "4", "--format", "csv,npy", "--out", out],
        check=True,
        capture_output=True,
    )
    result = ricochet.run(scenario, seed=4, backend="cpu", progress=False)
    written = np.load(out / "summary.npy")
    assert result.summary.dtype == written.dtype
    assert result.summary.tobytes() == written.tobytes()
    for name, ours in [
        ("events", result.events),
        ("strobe", result.strobe.table),
        ("trajectories", result.trajectories.table),
    ]:
        header, theirs = read_csv(out / f"{name}.csv")
        assert list(ours.dtype.names) == header, name
        assert len(ours) == len(theirs) > 0, name
        # CSV numbers read back to the same bits.
        assert np.array_equal(columns(ours), theirs, equal_nan=True), name
    assert result.arithmetic == "cpu f64"
    assert result.scene_steps == 60 * 30_000


def test_a_result_saves_the_command_lines_files_and_loads_back(root, cli, tmp_path):
    """`save` writes the files `ricochet run` writes (the same bytes), and `load` reads a
    saved directory or the command line's back into the same result."""
    scenario = study(root, tmp_path)
    out = tmp_path / "cli"
    every = ["csv", "npy", "parquet"]
    subprocess.run([cli, "-q", "run", scenario, "--backend", "cpu", "--seed", "4", "--format", ",".join(every), "--out", out], check=True, capture_output=True)
    result = ricochet.run(scenario, seed=4, backend="cpu", progress=False)
    written = result.save(tmp_path / "saved", formats=every)
    assert any(p.endswith("provenance.json") for p in written)
    tables = [f"{t}.{f}" for t in ["summary", "trajectories", "strobe", "events"] for f in every]
    for name in tables + ["stats.json", "run.json"]:
        assert (tmp_path / "saved" / name).read_bytes() == (out / name).read_bytes(), name
    # By default one table per kind, Parquet, that pandas reads with the columns' units.
    plain = result.save(tmp_path / "plain")
    assert sorted(os.path.basename(p) for p in plain if not p.endswith(".json")) == ["events.parquet", "strobe.parquet", "summary.parquet", "trajectories.parquet"]
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = pd.read_parquet(tmp_path / "plain" / "summary.parquet")
    assert frame["impacts"].dtype == np.int64
    assert np.array_equal(frame.to_numpy(float), columns(result.summary), equal_nan=True)
    assert frame.attrs["units"] == json.loads(result.scenario.units)
    with pytest.raises(ValueError, match="hdf5"):
        result.save(tmp_path / "bad", formats=["hdf5"])
    for directory in [tmp_path / "saved", out, tmp_path / "plain"]:
        back = ricochet.load(directory)
        assert isinstance(back, ricochet.EnsembleResult)
        assert back.summary.tobytes() == result.summary.tobytes()
        assert back.summary.dtype == result.summary.dtype
        assert back.stats == result.stats
        assert back.scenario.fingerprint == result.scenario.fingerprint
        for ours, theirs in [(back.trajectories.table, result.trajectories.table), (back.strobe.table, result.strobe.table), (back.events, result.events)]:
            assert ours.tobytes() == theirs.tobytes()
        assert back.arithmetic == "cpu f64" and back.shard == (0, 1)
    with pytest.raises(ValueError, match="a run's directory is a result"):
        ricochet.run(out, progress=False)
    # Shards the command line ran and merged, with --scenes (two passes over the grid).
    parts = []
    for i in range(2):
        part = tmp_path / f"part{i}"
        subprocess.run([cli, "-q", "run", scenario, "--backend", "cpu", "--scenes", "120", "--shard", f"{i}/2", "--out", part], check=True, capture_output=True)
        parts.append(part)
    subprocess.run([cli, "-q", "merge", *parts, "--out", tmp_path / "merged"], check=True, capture_output=True)
    merged = ricochet.load(tmp_path / "merged")
    whole = ricochet.run(scenario, scenes=120, backend="cpu", progress=False)
    assert merged.summary.tobytes() == whole.summary.tobytes() and merged.stats == whole.stats
    assert merged.scenario.scenes == 120 and merged.scene_steps == whole.scene_steps


def test_samples_are_indexed_by_scene_sample_coordinate():
    result = ricochet.run(BALLS, backend="cpu", progress=False)
    samples = result.trajectories
    # Three scenes spread over the ensemble.
    assert list(samples.scenes) == [0, 66, 133]
    assert samples.names == ["z", "z_dot"]
    assert samples.values.shape == (3, 41, 2)
    assert np.allclose(samples.t, np.arange(41) * 0.05)
    # Scene 66's height at t = 0 is its drawn height (the ball's centre).
    assert samples.values[1, 0, 0] == result.summary["height"][66]
    table = samples.table[samples.table["scene"] == 66]
    assert np.array_equal(table["z_dot"], samples.values[1, :, 1])


def test_a_dict_a_toml_text_and_a_file_are_the_same_scenario(tmp_path):
    tomllib = pytest.importorskip("tomllib")
    path = tmp_path / "balls.toml"
    path.write_text(BALLS)
    parsed = [ricochet.load(BALLS), ricochet.load(tomllib.loads(BALLS)), ricochet.load(path), ricochet.load(str(path))]
    assert len({p.fingerprint for p in parsed}) == 1
    runs = [ricochet.run(p, scenes=50, backend="cpu", progress=False) for p in parsed[:2]]
    assert runs[0].summary.tobytes() == runs[1].summary.tobytes()


def test_scenes_seed_and_shards():
    whole = ricochet.run(BALLS, backend="cpu", progress=False)
    parts = [ricochet.run(BALLS, backend="cpu", shard=(i, 3), progress=False) for i in range(3)]
    assert np.concatenate([p.summary for p in parts]).tobytes() == whole.summary.tobytes()
    other = ricochet.run(BALLS, seed=12, scenes=20, backend="cpu", progress=False)
    assert len(other.summary) == 20
    assert not np.array_equal(other.summary["height"], whole.summary["height"][:20])


def test_a_stop_rule_runs_until_the_interval_is_met():
    """`stop=` is `[stop]`: the run ends at the first test point where the mean height's 95 %
    interval (checked here with numpy and Student's t) is ± 0.05 m or narrower."""
    stop = {"min_scenes": 300, "every": 10, "target": [{"column": "height", "half_width": 0.02}]}
    result = ricochet.run(BALLS, scenes=1000, backend="cpu", progress=False, stop=stop)
    n = len(result.summary)
    assert result.stop["scenes"] == n and result.stop["met"] and result.stop["max_scenes"] == 1000
    assert n >= 300 and (n - 300) % 10 == 0
    height = result.summary["height"]

    def half_width(k):
        # Student's t_{0.975, ν} by its Cornish–Fisher expansion (to ~1e-6 for ν ≥ 19).
        z, nu = 1.959963984540054, k - 1
        t = z + (z**3 + z) / (4 * nu) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * nu**2)
        return t * height[:k].std(ddof=1) / np.sqrt(k)

    assert half_width(n) <= 0.02 and (n == 300 or half_width(n - 10) > 0.02)
    assert result.stop["targets"][0]["half_width"] == pytest.approx(half_width(n), rel=1e-5)
    lo, hi = result.stats["columns"]["height"]["mean_ci95"]
    assert result.stop["targets"][0]["half_width"] == pytest.approx((hi - lo) / 2, rel=1e-12)
    # The same as the scenario's own table; max_scenes is the cap.
    text = BALLS.replace("scenes = 200\n", "") + "[stop]\nmin_scenes = 300\nevery = 10\nmax_scenes = 1000\n[[stop.target]]\ncolumn = \"height\"\nhalf_width = 0.02\n"
    assert ricochet.run(text, backend="cpu", progress=False).summary.tobytes() == result.summary.tobytes()
    assert ricochet.run(BALLS, backend="cpu", progress=False).stop is None
    with pytest.raises(ValueError, match="give the cap once"):
        ricochet.run(BALLS, scenes=10, stop=dict(stop, max_scenes=20), progress=False)
    with pytest.raises(ValueError, match="min_scenes"):
        ricochet.run(BALLS, stop=dict(stop, min_scenes=1), progress=False)
    with pytest.raises(ValueError, match="stop's every"):
        ricochet.run(BALLS, stop=dict(stop, every=-1), progress=False)
    with pytest.raises(TypeError, match="stop must be a dict"):
        ricochet.run(BALLS, stop=[1], progress=False)
    with pytest.raises(ValueError, match="shard"):
        ricochet.run(BALLS, scenes=1000, shard=(1, 2), stop=stop, progress=False)


def test_a_saltelli_design_gives_sobol_indices():
    """A ball's first impact time (one impact in 0.7 s) is its drop height's alone."""
    text = BALLS.replace("seed = 11", "seed = 11\ndesign = \"saltelli\"").replace("final = 2.0", "final = 0.7")
    result = ricochet.run(text, scenes=4 * 512, backend="cpu", progress=False)
    t = result.sensitivity["last_impact_time"]
    assert t["height"]["S1"] == pytest.approx(1.0, abs=0.08)
    assert t["height"]["ST"] == pytest.approx(1.0, abs=0.08)
    assert t["restitution"]["S1"] == 0.0 and t["restitution"]["ST"] == 0.0
    lo, hi = t["height"]["ST_ci95"]
    assert lo <= t["height"]["ST"] <= hi
    assert ricochet.run(BALLS, scenes=8, backend="cpu", progress=False).sensitivity is None


def test_intervals_and_indices_as_arrays_and_xarray():
    result = ricochet.run(BALLS, backend="cpu", progress=False)
    rows = {r["column"]: r for r in result.intervals}
    height = result.stats["columns"]["height"]
    assert rows["height"]["count"] == 200 and rows["height"]["mean"] == height["mean"]
    assert [rows["height"]["mean_lo"], rows["height"]["mean_hi"]] == height["mean_ci95"]
    assert np.isnan(rows["height"]["probability"])
    flag = result.stats["columns"]["in_contact"]
    assert [rows["in_contact"]["probability_lo"], rows["in_contact"]["probability_hi"]] == flag["probability_ci95"]
    assert result.indices is None
    saltelli = BALLS.replace("seed = 11", "seed = 11\ndesign = \"saltelli\"").replace("final = 2.0", "final = 0.7")
    design = ricochet.run(saltelli, scenes=400, backend="cpu", progress=False)
    indices = {(r["output"], r["parameter"]): r for r in design.indices}
    t = design.sensitivity["last_impact_time"]["height"]
    assert indices[("last_impact_time", "height")]["ST"] == t["ST"]
    assert [indices[("last_impact_time", "height")]["S1_lo"], indices[("last_impact_time", "height")]["S1_hi"]] == t["S1_ci95"]
    xarray = _installed("xarray")
    dataset = result.to_xarray()
    assert isinstance(dataset, xarray.Dataset)
    assert np.array_equal(dataset["height"].values, result.summary["height"])
    assert dataset["height"].attrs["units"] == "m" and dataset.attrs["seed"] == 11
    assert list(dataset["scene"].values) == list(range(200))


def test_the_reference_and_the_cpu_backend_agree():
    cpu = ricochet.run(BALLS, scenes=16, backend="cpu", progress=False)
    reference = ricochet.run(BALLS, scenes=16, backend="reference", progress=False)
    assert reference.arithmetic == "reference f64"
    assert np.array_equal(cpu.summary["impacts"], reference.summary["impacts"])
    assert np.allclose(cpu.summary["z"], reference.summary["z"], rtol=0, atol=1e-9)


def test_stats_and_pandas():
    result = ricochet.run(BALLS, backend="cpu", progress=False)
    stats = result.stats["columns"]["height"]
    assert stats["count"] == 200
    assert stats["mean"] == pytest.approx(result.summary["height"].mean(), rel=1e-12)
    assert 1.0 <= stats["min"] <= stats["max"] <= 2.0
    pandas = pytest.importorskip("pandas")
    frame = result.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and len(frame) == 200


@pytest.mark.parametrize(
    "scenario, message",
    [
        (BALLS.replace("restitution = { uniform = [0.8, 0.95] }", "restitution = 1.5"), "restitution"),
        (BALLS.replace("step = 1e-3", "step = -1e-3"), "step"),
        (BALLS.replace("template = \"bouncing_ball\"", "template = \"bouncing_bal\""), "bouncing_bal"),
        (BALLS + "\nbogus = 1\n", "bogus"),
        ("no/such/file.toml", "no/such/file.toml"),
        ({"name": "x", "scenes": 1, "scene": {"template": "bouncing_ball", "height": None}}, "scenario"),
    ],
)
def test_bad_scenarios_are_value_errors_that_name_what_is_wrong(scenario, message):
    with pytest.raises(ValueError, match=message):
        ricochet.run(scenario, progress=False)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="backend"):
        ricochet.run(BALLS, backend="quantum", progress=False)
    with pytest.raises(ValueError, match="shard"):
        ricochet.run(BALLS, shard=(3, 2), progress=False)
    with pytest.raises(ValueError, match="scenes"):
        ricochet.run(BALLS, scenes=0, progress=False)
    with pytest.raises(TypeError):
        ricochet.run(42, progress=False)


def test_bad_input_found_on_the_runs_thread_is_a_value_error_too():
    # A chunk of 0 scenes is refused when the run starts (on its own thread).
    with pytest.raises(ValueError, match="chunk"):
        ricochet.run(BALLS, chunk=0, progress=False)


def test_a_run_that_fails_is_a_runtime_error():
    from ricochet import _ricochet

    job = _ricochet.start_run(ricochet.load(BALLS), "cpu", "0/1", None)
    job.cancel()
    assert job.wait(None)
    with pytest.raises(RuntimeError, match="interrupted"):
        job.result()


def slow():
    """A run of several seconds on the reference stepper."""
    return BALLS.replace("scenes = 200", "scenes = 2000").replace("final = 2.0", "final = 20.0")


def test_the_gil_is_released_while_the_scenes_are_stepped():
    counted, stop = [0], threading.Event()

    def count():
        while not stop.is_set():
            counted[0] += 1

    thread = threading.Thread(target=count)
    thread.start()
    start = time.monotonic()
    try:
        ricochet.run(slow(), scenes=64, backend="reference", progress=False)
    finally:
        stop.set()
        thread.join()
    seconds = time.monotonic() - start
    # A thread that held the GIL for the run would leave the counter near 0: with it free,
    # the counter runs at well over 10⁵ increments per second.
    assert seconds > 0.2, "the run is too short to tell"
    assert counted[0] > 10_000 * seconds, (counted[0], seconds)


def test_ctrl_c_stops_the_run_and_raises_keyboard_interrupt():
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        ricochet.run(slow(), backend="reference", progress=False)
    stopped = time.monotonic() - start
    timer.join()
    # The whole run takes minutes; it stopped within a tick of steps of the interruption.
    assert stopped < 5.0, stopped
    # And the package is usable afterwards.
    assert len(ricochet.run(BALLS, scenes=4, backend="cpu", progress=False).summary) == 4


def test_progress_is_shown_on_stderr_without_tqdm(capfd, monkeypatch):
    import ricochet._progress as progress

    monkeypatch.setattr(progress, "_display", lambda: progress._Plain())
    ricochet.run(BALLS, scenes=20, backend="cpu", progress=True)
    assert "balls: 20/20 scenes" in capfd.readouterr().err


def test_verify_check_bench_and_templates(root):
    path = root / "scenarios/bouncing_balls.toml"
    verdict = ricochet.verify(path, scenes=4, max_time=0.5, progress=False)
    assert verdict["ok"] and verdict["scenes"] == 4
    cpu = next(e for e in verdict["engines"] if e["engine"].startswith("cpu"))
    assert all(c["ok"] and c["deviation"] <= 1e-9 for c in cpu["columns"])
    assert {c["column"] for c in cpu["columns"]} >= {"impacts", "z", "energy_change"}

    found = ricochet.check(BALLS)
    assert (found["scenes"], found["dof"], found["steps"]) == (200, 1, 2000)
    ranges = {r["name"]: (r["min"], r["max"]) for r in found["drawn"]}
    assert 1.0 <= ranges["height"][0] < ranges["height"][1] <= 2.0
    assert any(e["backend"] == "cpu" and e["scene_steps_per_second"] > 0 for e in found["estimates"])

    rows = ricochet.bench(BALLS, sizes=[64], reference_up_to=64, progress=False, repeat=2)
    assert {r["backend"] for r in rows} >= {"reference", "cpu"}
    assert all(r["scenes"] == 64 and r["steps"] == 2000 and r["scene_steps_per_second"] > 0 for r in rows)
    # Each row the median of its two runs, and their spread.
    for r in rows:
        assert len(r["runs"]) == 2 and r["seconds"] == sum(r["runs"]) / 2
        assert r["spread"] == (max(r["runs"]) - min(r["runs"])) / r["seconds"]
        assert r["precision"] in ("f32", "f64")

    templates = {t["name"]: t for t in ricochet.templates()}
    ball = {p["name"]: p for p in templates["bouncing_ball"]["parameters"]}
    assert ball["restitution"]["default"] == 0.9 and ball["mass"]["unit"] == "kg"
    assert {"newtons_cradle", "impact_oscillator", "pendulum_hitting_wall"} <= set(templates)


def test_an_interrupted_run_resumes_from_its_checkpoints_to_the_same_numbers(tmp_path):
    from ricochet import _ricochet

    scenario, chunk = ricochet.load(slow()).with_size(48, None), 8
    kept = tmp_path / "run"
    job = _ricochet.start_run(scenario, "reference", "0/1", chunk, str(kept), False)
    # Cancelled halfway through the third chunk, so that the first two are kept on disk (a
    # cancel that lands as the second ends can find it not yet saved: it is then dropped).
    while not job.wait(0.01):
        _, done, _, steps = job.status()
        if done >= (2 * chunk + chunk // 2) * steps:
            job.cancel()
    with pytest.raises(RuntimeError, match="interrupted"):
        job.result()
    resumed = ricochet.run(slow(), scenes=48, backend="reference", chunk=chunk, checkpoints=kept, resume=True, progress=False)
    fresh = ricochet.run(slow(), scenes=48, backend="reference", chunk=chunk, progress=False)
    assert resumed.summary.tobytes() == fresh.summary.tobytes()
    # The resumed run stepped only the chunks that were not kept.
    assert 0 < resumed.scene_steps <= fresh.scene_steps - 2 * chunk * scenario.steps
    with pytest.raises(ValueError, match="checkpoints"):
        ricochet.run(BALLS, resume=True, progress=False)


def test_bad_arguments_are_named():
    for kwargs, error, name in [
        ({"scenes": -5}, ValueError, "scenes"),
        ({"scenes": 2**70}, ValueError, "scenes"),
        ({"scenes": True}, TypeError, "scenes"),
        ({"scenes": 2.0}, TypeError, "scenes"),
        ({"seed": -1}, ValueError, "seed"),
        ({"chunk": -1}, ValueError, "chunk"),
        ({"chunk": 0}, ValueError, "chunk"),
        ({"shard": (0, 1, 2)}, TypeError, "shard"),
        ({"shard": (2, 2)}, ValueError, "shard"),
    ]:
        with pytest.raises(error, match=name):
            ricochet.run(BALLS, backend="cpu", progress=False, **kwargs)
    with pytest.raises(ValueError, match="scenes"):
        ricochet.verify(BALLS, scenes=0, progress=False)
    with pytest.raises(TypeError, match="sizes"):
        ricochet.bench(BALLS, sizes=[1.5], progress=False)
    with pytest.raises(ValueError, match="precision"):
        ricochet.bench(BALLS, sizes=[8], progress=False, precision="f16")
    with pytest.raises(ValueError, match="repeat"):
        ricochet.bench(BALLS, sizes=[8], progress=False, repeat=0)


def test_unhealthy_scenes_are_warned_of_and_listed():
    # Two PGS sweeps per step cannot solve a rough pile's contacts.
    pile = {
        "name": "pile",
        "scenes": 4,
        "scene": {"template": "disc_pile", "friction": 0.5},
        "time": {"step": 1e-3, "final": 1.0},
        "solver": {"max_iterations": 2},
    }
    with pytest.warns(RuntimeWarning, match="unhealthy"):
        result = ricochet.run(pile, backend="cpu", progress=False)
    assert len(result.unhealthy) > 0
    assert set(result.unhealthy.tolist()) == set(result.summary["scene"][result.summary["converged"] == 0].tolist())


def test_no_runtime_dir_noise_from_the_drivers():
    # Without XDG_RUNTIME_DIR, Mesa's drivers printed an error for every GPU instance.
    import os
    import sys

    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    code = "import ricochet; ricochet.run(ricochet.load(%r).with_size(4, None), backend='auto', progress=False)" % BALLS
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "XDG_RUNTIME_DIR" not in done.stderr, done.stderr


def test_shipped_scenarios_run_by_name_from_anywhere(tmp_path, monkeypatch, root):
    shipped = ricochet.scenarios()
    assert set(shipped) == {p.stem for p in (root / "scenarios").glob("*.toml")}
    assert shipped["bouncing_balls"] == (root / "scenarios/bouncing_balls.toml").read_text()
    # Away from the repository, the README's path and the bare name find the shipped file.
    monkeypatch.chdir(tmp_path)
    by_path = ricochet.run("scenarios/bouncing_balls.toml", scenes=8, backend="cpu", progress=False)
    by_name = ricochet.run("bouncing_balls", scenes=8, backend="cpu", progress=False)
    assert by_path.summary.tobytes() == by_name.summary.tobytes()
    with pytest.raises(ValueError):
        ricochet.run("no_such_scenario", scenes=8, backend="cpu", progress=False)


def test_scenarios_and_results_pickle():
    import pickle

    # 17 significant digits and far exponents come back to the bit (serde_json's float_roundtrip).
    digits = {
        "name": "digits",
        "scenes": 4,
        "scene": {"template": "bouncing_ball", "height": 1.2345678901234567, "radius": 1.2345678901234567e-3},
        "time": {"step": 1.2345678901234567e-4, "final": 0.1},
        "solver": {"tolerance": 1.2345678901234567e-30},
    }
    shipped = [ricochet.load("rocking_block"), ricochet.load("impact_oscillator_study")]
    for scenario in [ricochet.load(BALLS).with_size(8, 3), ricochet.load(digits), *shipped]:
        back = pickle.loads(pickle.dumps(scenario))
        assert (back.fingerprint, back.scenes, back.seed) == (scenario.fingerprint, scenario.scenes, scenario.seed)
    result = ricochet.run(BALLS, scenes=8, backend="cpu", progress=False)
    back = pickle.loads(pickle.dumps(result))
    assert back.summary.tobytes() == result.summary.tobytes() and back.scenario.fingerprint == result.scenario.fingerprint


def _installed(module):
    """An optional module CI installs (xarray, dask.distributed): a missing one fails there,
    skips the test elsewhere."""
    import importlib
    import os

    if os.environ.get("CI") == "true":
        return importlib.import_module(module)
    return pytest.importorskip(module)


def _distributed():
    return _installed("distributed")


def test_a_dask_cluster_gives_the_one_process_result():
    """Two worker processes of a LocalCluster run the shards; the merged result is the one
    process's: the summary's bytes, the statistics, the trajectories and a Saltelli design's
    indices."""
    distributed = _distributed()
    saltelli = BALLS.replace("seed = 11", "seed = 11\ndesign = \"saltelli\"").replace("scenes = 200", "scenes = 404")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            for text in [BALLS, saltelli]:
                one = ricochet.run(text, backend="cpu", progress=False)
                spread = ricochet.run(text, backend="cpu", client=client, shards=3)
                assert spread.summary.tobytes() == one.summary.tobytes()
                assert spread.stats == one.stats
                assert spread.sensitivity == one.sensitivity
                assert spread.trajectories.table.tobytes() == one.trajectories.table.tobytes()
                assert spread.scene_steps == one.scene_steps and "3 shards on Dask" in spread.engine
            with pytest.raises(ValueError, match="stop"):
                ricochet.run(BALLS, client=client, stop={"min_scenes": 2, "target": []})
            own = BALLS + "[stop]\nmin_scenes = 20\n[[stop.target]]\ncolumn = \"height\"\nhalf_width = 0.1\n"
            with pytest.raises(ValueError, match="has a \\[stop\\] rule"):
                ricochet.run(own, client=client)
            # A scenario the workers refuse is the same ValueError as at home.
            with pytest.raises(ValueError, match="bogus"):
                ricochet.run(BALLS, client=client, backend="bogus")
