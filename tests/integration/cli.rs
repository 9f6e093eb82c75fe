//! The command line as a user meets it (issue 13's reproducers): a full or closed standard
//! output is an error and a non-zero exit, never a panic, and a run's files are written all
//! the same; a missing `XDG_RUNTIME_DIR` is not the user's noise; `bench` keeps stdout to
//! JSON lines.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_ricochet");

/// A fresh temporary directory for `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ricochet-cli-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    dir
}

fn scenario(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(file)
        .display()
        .to_string()
}

/// `ricochet run` of the ball ensemble's first 16 scenes on the CPU backend into `out`.
fn sixteen_balls(out: &Path) -> [String; 8] {
    let scenario = scenario("bouncing_balls.toml");
    let out = out.to_str().unwrap();
    ["run", &scenario, "--scenes", "16", "--backend", "cpu", "--out", out].map(String::from)
}

/// `ricochet args` with stdout sent to /dev/full.
#[cfg(target_os = "linux")]
fn to_full_stdout<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    Command::new(BIN).args(args).stdout(full).output().unwrap()
}

/// Exit code 1 with the error named on stderr: not 101, Rust's panic.
fn failed_on_stdout(output: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{what}: {stderr}");
    assert!(stderr.contains("writing to standard output"), "{what}: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_is_an_error_and_the_files_are_written() {
    let out = scratch("full");
    let run = to_full_stdout(&sixteen_balls(&out));
    failed_on_stdout(&run, "run");
    for file in ["summary.parquet", "stats.json", "run.json"] {
        assert!(out.join(file).is_file(), "{file} written");
    }
    #[cfg(unix)]
    {
        // The files are as readable as any the user creates (not a temporary file's 0600).
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        std::fs::write(out.join("mine"), b"").unwrap();
        assert_eq!(mode(&out.join("summary.parquet")), mode(&out.join("mine")));
    }
    let merged = scratch("full-merged");
    let merge = to_full_stdout(&["merge", out.to_str().unwrap(), "--out", merged.to_str().unwrap()]);
    failed_on_stdout(&merge, "merge");
    assert!(merged.join("summary.parquet").is_file());
    failed_on_stdout(
        &to_full_stdout(&["verify", &scenario("bouncing_balls.toml"), "--scenes", "2"]),
        "verify",
    );
    failed_on_stdout(&to_full_stdout(&["adapters"]), "adapters");
    std::fs::remove_dir_all(&out).ok();
    std::fs::remove_dir_all(&merged).ok();
}

/// `ricochet run … | head -1`: the reader goes away; the run still writes its files.
#[test]
fn a_closed_stdout_is_an_error_and_the_files_are_written() {
    let out = scratch("closed");
    let mut child = Command::new(BIN)
        .args(sixteen_balls(&out))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    failed_on_stdout(&output, "run | (closed)");
    assert!(out.join("summary.parquet").is_file());
    std::fs::remove_dir_all(&out).ok();
}

/// Without `XDG_RUNTIME_DIR` (batch jobs, containers) the GPU drivers' complaint about it
/// does not reach the user.
#[test]
fn no_runtime_dir_noise() {
    let output = Command::new(BIN)
        .args(["adapters"])
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("XDG_RUNTIME_DIR"), "{stderr}");
}

/// `ricochet bench` prints only JSON lines on stdout (one per backend, precision and size,
/// each the median of its runs); its table goes to stderr.
#[test]
fn bench_stdout_is_json_lines() {
    let output = Command::new(BIN)
        .args([
            "bench",
            &scenario("bouncing_balls.toml"),
            "--scenes",
            "8",
            "--reference-up-to",
            "8",
            "--repeat",
            "2",
            "--precision",
            "both",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() >= 2, "reference and CPU at least: {stdout}");
    let mut gpu_precisions = Vec::new();
    for line in lines {
        let value: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(
            value["scene_steps_per_second"].as_f64().is_some_and(|r| r > 0.0),
            "{line}"
        );
        let runs: Vec<f64> = serde_json::from_value(value["runs"].clone()).unwrap();
        assert_eq!(runs.len(), 2, "{line}");
        assert_eq!(value["seconds"].as_f64(), Some((runs[0] + runs[1]) / 2.0), "{line}");
        if value["backend"] == "gpu" {
            assert!(value["driver"].is_string(), "{line}");
            gpu_precisions.push(value["precision"].as_str().unwrap().to_string());
        } else {
            assert_eq!(value["precision"], "f64", "{line}");
        }
    }
    // Where there is a GPU, a row for each precision it has (f32 always).
    assert!(gpu_precisions.is_empty() || gpu_precisions.contains(&"f32".to_string()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("scene-steps/s") && stderr.contains("medians of 2 runs"),
        "{stderr}"
    );
}

/// `ricochet bench` on a large scene prints one JSON line per engine and size: the CPU's
/// NSGS on one thread and on all, Jacobi, then on a GPU the whole step, its sweeps alone
/// and Jacobi; the whole step also says where its time went, by stage.
#[test]
fn bench_on_a_large_scene_prints_each_engine_and_the_device_stages() {
    let output = Command::new(BIN)
        .args(["bench", &scenario("pyramid_2d.toml"), "--bodies", "60", "--steps", "4"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect();
    let engines: Vec<&str> = rows.iter().map(|r| r["engine"].as_str().unwrap()).collect();
    assert!(
        engines.len() >= 3 && engines[..3].iter().all(|e| e.starts_with("large-scene cpu")),
        "{engines:?}"
    );
    for row in &rows {
        assert_eq!(row["steps"], 4, "{row}");
        assert!(row["bodies"].as_u64().is_some_and(|n| (50..=70).contains(&n)), "{row}");
        for key in [
            "seconds",
            "body_steps_per_second",
            "contact_iterations_per_second",
            "sweeps_per_step",
        ] {
            assert!(row[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {row}");
        }
    }
    let whole: Vec<&serde_json::Value> = rows.iter().filter(|r| r.get("stages").is_some()).collect();
    if common::gpu().is_none() {
        assert!(whole.is_empty() && rows.len() == 3, "{rows:?}");
        return;
    }
    assert_eq!(rows.len(), 6, "{engines:?}");
    assert_eq!(whole.len(), 1, "only the whole step holds the scene: {engines:?}");
    let stages = &whole[0]["stages"];
    let seconds = whole[0]["seconds"].as_f64().unwrap();
    assert!(
        stages["broad_phase"].as_f64().is_some_and(|s| s > 0.0 && s < seconds),
        "{stages}"
    );
    for key in ["before_sweeps", "sweeps", "after_sweeps"] {
        assert!(
            stages[key].is_null() || stages[key].as_f64().is_some_and(|s| s >= 0.0),
            "{key}: {stages}"
        );
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("contact-it/s") && stderr.contains("broad phases"),
        "{stderr}"
    );
}

/// `ricochet tune` times every launch the adapter takes (workgroup sizes × steps per
/// dispatch: one JSON line each), keeps the fastest for this adapter in the cache, and a
/// later run on the adapter takes it (`bench` reports the GPU's launch).
#[cfg(feature = "gpu")]
#[test]
fn tune_keeps_the_fastest_launch_for_later_runs() {
    if common::gpu().is_none() {
        return;
    }
    let cache = scratch("tune-cache");
    let run = |args: &[&str]| {
        let output = Command::new(BIN)
            .env("RICOCHET_CACHE_DIR", &cache)
            .env_remove("RICOCHET_GPU_TUNING")
            .args(args)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let stdout = run(&["tune", "--scenes", "64", "--steps", "40", "--repeat", "1"]);
    let lines: Vec<&str> = stdout.lines().collect();
    let (chosen, trials) = lines.split_last().unwrap();
    let trials: Vec<serde_json::Value> = trials.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(trials.len() >= 6, "{stdout}");
    let fastest = trials
        .iter()
        .min_by(|a, b| {
            a["seconds"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["seconds"].as_f64().unwrap())
        })
        .unwrap();
    let launch = format!(
        "workgroup={},steps={}",
        fastest["workgroup"], fastest["steps_per_dispatch"]
    );
    assert!(
        chosen.starts_with("chosen for ") && chosen.contains(&launch),
        "{chosen} vs {launch}"
    );
    let kept = std::fs::read_to_string(cache.join("gpu-tuning.tsv")).unwrap();
    assert!(
        kept.lines().count() == 1 && kept.trim_end().ends_with(&format!("\t{launch}")),
        "{kept}"
    );
    let bench = run(&[
        "bench",
        &scenario("bouncing_balls.toml"),
        "--scenes",
        "8",
        "--repeat",
        "1",
        "--backends",
        "gpu",
    ]);
    let row: serde_json::Value = serde_json::from_str(bench.lines().next().unwrap()).unwrap();
    assert_eq!(row["tuning"], launch, "{bench}");
    std::fs::remove_dir_all(&cache).ok();
}

/// A truncated normal far in its tail (5.9 to 6 std out) is drawn at once, every value in
/// its window (rejection sampling hung on it).
#[test]
fn a_far_tail_truncated_normal_is_drawn() {
    let out = scratch("tail");
    let file = out.with_extension("toml");
    std::fs::write(
        &file,
        r#"
name = "tail"
scenes = 64
seed = 1
[scene]
template = "bouncing_ball"
height = { truncated_normal = { mean = 0.0, std = 1.0, min = 5.9, max = 6.0 } }
[time]
step = 1e-3
final = 0.1
[output]
formats = ["csv"]
"#,
    )
    .unwrap();
    let output = Command::new(BIN)
        .args([
            "run",
            file.to_str().unwrap(),
            "--backend",
            "cpu",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let mut lines = summary.lines();
    let column = lines.next().unwrap().split(',').position(|c| c == "height").unwrap();
    let heights: Vec<f64> = lines
        .map(|l| l.split(',').nth(column).unwrap().parse().unwrap())
        .collect();
    assert_eq!(heights.len(), 64);
    assert!(heights.iter().all(|h| (5.9..=6.0).contains(h)), "{heights:?}");
    std::fs::remove_dir_all(&out).ok();
    std::fs::remove_file(&file).ok();
}

/// `verify --scenes 0` compares nothing: refused.
#[test]
fn verify_of_no_scenes_is_refused() {
    let output = Command::new(BIN)
        .args(["verify", &scenario("bouncing_balls.toml"), "--scenes", "0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("--scenes"), "{stderr}");
}

/// `RICOCHET_SIMD` picks the CPU lanes' instruction set: one this CPU lacks is an error that
/// names the variable and lists those it has (for a large scene too), one it has runs (and
/// is named in `provenance.json`'s engine).
#[test]
fn the_lanes_instruction_set_is_chosen_by_name() {
    let out = scratch("simd");
    let run = |isa: &str| {
        std::fs::remove_dir_all(&out).ok();
        Command::new(BIN)
            .env("RICOCHET_SIMD", isa)
            .args(sixteen_balls(&out))
            .output()
            .unwrap()
    };
    let refused = run("mmx");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("RICOCHET_SIMD=mmx") && stderr.contains("baseline"),
        "{stderr}"
    );
    assert!(!out.join("summary.parquet").exists());
    // A large scene's CPU sweeps name it too.
    let large = Command::new(BIN)
        .env("RICOCHET_SIMD", "mmx")
        .args(["run", &scenario("pyramid_2d.toml"), "--backend", "cpu"])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&large.stderr);
    assert_eq!(large.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("RICOCHET_SIMD=mmx"), "{stderr}");
    std::fs::remove_dir_all(&out).ok();
    let baseline = run("baseline");
    assert!(
        baseline.status.success(),
        "{}",
        String::from_utf8_lossy(&baseline.stderr)
    );
    let provenance = std::fs::read_to_string(out.join("provenance.json")).unwrap();
    assert!(provenance.contains("baseline f64"), "{provenance}");
    std::fs::remove_dir_all(&out).ok();
}

/// `--fail-on unhealthy` turns scenes that did not converge into exit status 3 (not clap's
/// usage status 2), after the
/// files are written; without it they are a warning and the run succeeds.
#[test]
fn fail_on_unhealthy_is_an_exit_status() {
    let out = scratch("unhealthy");
    let file = out.with_extension("toml");
    // Two PGS sweeps cannot meet 1e-12 on a block standing on two rough corners.
    let text = std::fs::read_to_string(scenario("rocking_block.toml")).unwrap();
    assert!(!text.contains("[solver]"));
    std::fs::write(&file, format!("{text}\n[solver]\nmax_iterations = 2\n")).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", file.to_str().unwrap(), "--scenes", "4", "--backend", "cpu"];
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend(extra);
        Command::new(BIN).args(&args).output().unwrap()
    };
    let lenient = run(&[]);
    let stderr = String::from_utf8_lossy(&lenient.stderr);
    assert!(lenient.status.success(), "{stderr}");
    assert!(stderr.contains("did not converge"), "{stderr}");
    std::fs::remove_dir_all(&out).ok();
    let strict = run(&["--fail-on", "unhealthy"]);
    assert_eq!(
        strict.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&strict.stderr)
    );
    assert!(out.join("summary.parquet").is_file());
    std::fs::remove_dir_all(&out).ok();
    std::fs::remove_file(&file).ok();
}

/// An output directory that cannot be made is found before anything is simulated, and the
/// error names it: with a scenario whose later draws are invalid too (found before
/// stepping), the directory is what is reported.
#[test]
fn an_unwritable_out_is_found_first_and_named() {
    let blocker = scratch("blocker");
    std::fs::write(&blocker, "a file where a directory is asked for").unwrap();
    let out = blocker.join("results");
    let file = scratch("bad-draws").with_extension("toml");
    let text = std::fs::read_to_string(scenario("bouncing_balls.toml")).unwrap();
    let bad = text.replace(
        "restitution = { truncated_normal = { mean = 0.9, std = 0.03, min = 0.8, max = 1.0 } }",
        "restitution = { uniform = [0.5, 1.5] }",
    );
    assert_ne!(bad, text);
    std::fs::write(&file, bad).unwrap();
    // Scene 0 is checked when the scenario is read; with a seed whose scene 0 is valid, the
    // invalid scenes after it would stop the run before stepping: the directory comes first.
    let reported = (0..20).find_map(|seed| {
        let output = Command::new(BIN)
            .args([
                "run",
                file.to_str().unwrap(),
                "--backend",
                "cpu",
                "--seed",
                &seed.to_string(),
            ])
            .args(["--out", out.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        (!stderr.contains("scene 0 (drawn")).then_some(stderr)
    });
    let stderr = reported.expect("a seed of 20 draws a valid scene 0");
    assert!(
        stderr.contains(out.to_str().unwrap()) && stderr.contains("output directory"),
        "{stderr}"
    );
    std::fs::remove_file(&blocker).ok();
    std::fs::remove_file(&file).ok();
}

/// `ricochet templates` lists every template with its parameters, defaults and units.
#[test]
fn templates_are_listed_with_their_defaults() {
    let output = Command::new(BIN).arg("templates").output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    for line in [
        "bouncing_ball: mass = 1 kg, radius = 0.1 m",
        "billiard_shot: radius = 0.028575 m",
        "restitution = 0.9, gravity = 9.81 m/s²",
        "rocking_block: width = 0.2 m",
        "amplitude = 0 m/s², frequency = 2 Hz",
        "pyramid_2d ([large_scene]): rows = 14, radius = 0.05",
        "hopper_2d ([large_scene]): discs = 1000",
        "chute_3d ([large_scene]): spheres = 1000",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    assert_eq!(
        text.lines().count(),
        ricochet::scenes::template::Template::all().count()
            + ricochet::ensemble::large_scene::LargeTemplate::NAMES.len()
    );
}

/// A short impact-oscillator scenario (2 s) in `dir`, with `extra` appended.
fn short_oscillator(dir: &Path, extra: &str) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let text = std::fs::read_to_string(scenario("impact_oscillator.toml"))
        .unwrap()
        .replace("final = 60.0", "final = 2.0");
    let path = dir.join("scenario.toml");
    std::fs::write(&path, format!("{text}\n{extra}")).unwrap();
    path.display().to_string()
}

/// The files of a run's directory but `provenance.json` (times, command line: a record of
/// each run) and the lock file (its last holder).
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    common::files_of(dir, |p| {
        !p.ends_with("provenance.json") && !p.ends_with(ricochet::ensemble::lock::FILE)
    })
}

/// `ricochet run` of 400 scenes of `file` in chunks of 5 into `out`, returned once it has
/// finished `chunks` chunks (or after a minute).
fn run_until_chunks(file: &str, out: &Path, chunks: usize) -> std::process::Child {
    let child = Command::new(BIN)
        .args([
            "run",
            file,
            "--scenes",
            "400",
            "--backend",
            "cpu",
            "--chunk",
            "5",
            "--out",
        ])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while finished_chunks(out) < chunks && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child
}

fn finished_chunks(out: &Path) -> usize {
    std::fs::read_dir(out.join(".chunks"))
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(".done.json")
            })
            .count()
        })
        .unwrap_or(0)
}

/// A run killed (SIGINT or SIGKILL) after 1, 5 or 20 finished chunks and resumed — with
/// another chunk size — ends with exactly the files of an uninterrupted run; until then the
/// directory keeps the earlier, complete run's files whole (the killed run replaces nothing),
/// and the half-written files a kill during the final renames leaves are gone after the resume.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_run_resumes_to_the_same_files() {
    let base = scratch("resume");
    let file = short_oscillator(&base, "[strobe]\nevery = 0.5\n");
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "run",
            &file,
            "--scenes",
            "400",
            "--backend",
            "cpu",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        Command::new(BIN).args(&args).output().unwrap()
    };
    let whole = base.join("whole");
    assert!(run(&whole, &["--chunk", "5"]).status.success());
    let expected = contents(&whole);
    assert!(expected.iter().any(|(name, _)| name == "strobe.parquet"));
    for (after, signal) in [(1, "-KILL"), (5, "-INT"), (20, "-KILL")] {
        // Over a complete earlier run (of another seed): its files stay until replaced.
        let out = base.join(format!("killed-{after}"));
        assert!(run(&out, &["--chunk", "7", "--seed", "5"]).status.success());
        let earlier = contents(&out);
        let mut child = run_until_chunks(&file, &out, after);
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let exit = child.wait().unwrap();
        assert!(
            !exit.success(),
            "killed after {after} chunks: the run had already ended"
        );
        assert!(finished_chunks(&out) >= after);
        assert_eq!(contents(&out), earlier, "the earlier run's files, whole, after a kill");
        // What a kill during the final renames leaves.
        std::fs::write(out.join(".partial-summary.x1y2z3.csv"), "scene\n0\n").unwrap();
        let resumed = run(&out, &["--resume", "--chunk", "3"]);
        assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
        assert_eq!(
            contents(&out),
            expected,
            "killed ({signal}) after {after} chunks, resumed"
        );
        assert!(
            !out.join(".chunks").exists(),
            "the chunks are removed once the files are written"
        );
    }
    // Chunks of another scenario (here: another seed) or engine are not taken.
    let out = base.join("refused");
    let mut child = run_until_chunks(&file, &out, 1);
    child.kill().unwrap();
    child.wait().unwrap();
    for (extra, expected) in [
        (["--seed", "5"], "its chunks are of another scenario"),
        (
            ["--backend", "reference"],
            "its chunks are of another engine and precision",
        ),
    ] {
        let mut args = vec![
            "run",
            &file,
            "--scenes",
            "400",
            "--resume",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        if extra[0] == "--seed" {
            args.extend(["--backend", "cpu"]);
        }
        let refused = Command::new(BIN).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(expected) && stderr.contains("manifest.json"),
            "{stderr}"
        );
    }
    let nothing = Command::new(BIN)
        .args([
            "run",
            &file,
            "--resume",
            "--out",
            base.join("nowhere").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("nothing to resume"));
    std::fs::remove_dir_all(&base).ok();
}

/// `ricochet run … --resume` over `out` (400 scenes of `file` on the CPU).
fn resume(file: &str, out: &Path) -> Output {
    Command::new(BIN)
        .args(["run", file, "--scenes", "400", "--backend", "cpu", "--resume", "--out"])
        .arg(out)
        .output()
        .unwrap()
}

/// `--resume` checks every finished chunk as strictly as `merge` checks its parts: a chunk
/// whose last row was dropped, that holds only its header, or that holds another chunk's rows
/// is refused, naming its file — never a result with missing or duplicated scenes; removing
/// that chunk has its scenes computed again, and the files end as an uninterrupted run's.
#[cfg(target_os = "linux")]
#[test]
fn resume_refuses_a_changed_chunk_naming_it() {
    let base = scratch("tampered");
    let file = short_oscillator(&base, "");
    let whole = base.join("whole");
    let ran = Command::new(BIN)
        .args(["run", &file, "--scenes", "400", "--backend", "cpu", "--out"])
        .arg(&whole)
        .output()
        .unwrap();
    assert!(ran.status.success());
    let expected = contents(&whole);
    let out = base.join("out");
    let mut child = run_until_chunks(&file, &out, 3);
    child.kill().unwrap();
    child.wait().unwrap();
    let chunks = out.join(".chunks");
    let mut stems: Vec<String> = std::fs::read_dir(&chunks)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.file_name().to_str()?.strip_suffix(".done.json")?.to_string()))
        .collect();
    stems.sort();
    assert!(stems.len() >= 2, "{stems:?}");
    let summary = |stem: &str| chunks.join(format!("{stem}.summary.npy"));
    let original = std::fs::read(summary(&stems[0])).unwrap();
    let other = std::fs::read(summary(&stems[1])).unwrap();
    for (what, tampered) in [
        ("its last row cut short", original[..original.len() - 8].to_vec()),
        ("its header only", original[..128].to_vec()),
        ("another chunk's rows", other),
    ] {
        std::fs::write(summary(&stems[0]), tampered).unwrap();
        let refused = resume(&file, &out);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{what}: {stderr}");
        assert!(
            stderr.contains("cannot resume from this chunk") && stderr.contains(&format!("{}.summary.npy", stems[0])),
            "{what}: {stderr}"
        );
        assert!(!out.join("summary.parquet").exists(), "{what}: a result was written");
    }
    for kind in ["summary.npy", "strobe.npy", "events.npy", "done.json"] {
        std::fs::remove_file(chunks.join(format!("{}.{kind}", stems[0]))).unwrap();
    }
    let resumed = resume(&file, &out);
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    assert_eq!(contents(&out), expected);
    std::fs::remove_dir_all(&base).ok();
}

/// One run at a time per directory: a run or a merge into a directory another process holds
/// is refused at once, naming the holder, and writes nothing there; once it is let go, the
/// run goes through.
#[test]
fn a_directory_in_use_is_refused_naming_its_holder() {
    let base = scratch("locked");
    let (out, other) = (base.join("out"), base.join("other"));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    let run = |dir: &Path| {
        Command::new(BIN)
            .args([
                "run",
                &scenario("bouncing_balls.toml"),
                "--scenes",
                "64",
                "--backend",
                "cpu",
                "--out",
            ])
            .arg(dir)
            .output()
            .unwrap()
    };
    let held = ricochet::ensemble::lock::DirLock::acquire(&out, "the test's own run").unwrap();
    let refused = run(&out);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("in use by another run") && stderr.contains("the test's own run"),
        "{stderr}"
    );
    assert!(!out.join("summary.parquet").exists() && !out.join(".chunks").exists());
    drop(held);
    assert!(run(&out).status.success());
    let _held = ricochet::ensemble::lock::DirLock::acquire(&other, "another merge").unwrap();
    let merge = Command::new(BIN)
        .args(["merge", out.to_str().unwrap(), "--out", other.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&merge.stderr);
    assert_eq!(merge.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("another merge"), "{stderr}");
    assert!(!other.join("summary.parquet").exists());
    std::fs::remove_dir_all(&base).ok();
}

/// A run that fails on its first chunk (RATTLE past its stability limit) once left only
/// `.chunks`: now the earlier run's files stay whole, and the error names the limit.
#[test]
fn a_failed_run_keeps_the_earlier_results() {
    let base = scratch("failed");
    let out = base.join("out");
    let good = short_oscillator(&base.join("good"), "");
    let run = |file: &str| {
        Command::new(BIN)
            .args(["run", file, "--scenes", "8", "--backend", "cpu", "-q", "--out"])
            .arg(&out)
            .output()
            .unwrap()
    };
    assert!(run(&good).status.success());
    let earlier = contents(&out);
    assert!(earlier.iter().any(|(name, _)| name.ends_with("summary.parquet")));
    let stiff = std::fs::read_to_string(&good)
        .unwrap()
        .replace("[time]", "[time]\nintegrator = \"rattle\"")
        .replace("stiffness = 1.0", "stiffness = 1e8");
    let stiff_file = base.join("stiff.toml");
    std::fs::write(&stiff_file, stiff).unwrap();
    let failed = run(stiff_file.to_str().unwrap());
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("h ω_max < 2"), "{stderr}");
    assert_eq!(
        contents(&out),
        earlier,
        "the earlier run's files, whole, after a failed run"
    );
    std::fs::remove_dir_all(&base).ok();
}

/// `verify` of a scenario no batched engine runs here compares nothing: status 4 and
/// `nothing_compared` (not a silent `ok`), unless `--allow-nothing`; `--max-time` must be a
/// positive time.
#[test]
fn verify_says_when_nothing_was_compared() {
    let verify = |extra: &[&str]| {
        let mut args = vec!["verify", "--scenes", "2"];
        let path = scenario("cubic_resistor.toml");
        args.push(&path);
        args.extend(extra);
        Command::new(BIN).args(&args).output().unwrap()
    };
    let json = verify(&["--json"]);
    let object: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON object");
    assert_eq!(object["nothing_compared"], true, "{object}");
    assert_eq!(object["ok"], false, "{object}");
    assert_eq!(json.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&json.stderr).contains("nothing to compare"));
    assert!(verify(&["--allow-nothing"]).status.success());
    for bad in ["nan", "0", "-1"] {
        let refused = verify(&["--max-time", bad]);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{bad}: {stderr}");
        assert!(stderr.contains("--max-time"), "{bad}: {stderr}");
    }
}

/// A `RICOCHET_FONT` that is not a font is named in the notice that the plots are skipped —
/// a device is never read forever, a text file is not "unreadable" — and the run's files
/// are written all the same.
#[cfg(target_os = "linux")]
#[test]
fn a_bad_font_is_named_and_never_read_forever() {
    let base = scratch("font");
    for (i, (font, says)) in [
        ("/dev/urandom", "not a regular file"),
        ("/etc/passwd", "not a TrueType"),
    ]
    .into_iter()
    .enumerate()
    {
        let out = base.join(i.to_string());
        let run = Command::new(BIN)
            .args([
                "run",
                &scenario("bouncing_balls.toml"),
                "--scenes",
                "16",
                "--backend",
                "cpu",
                "--out",
            ])
            .arg(&out)
            .env("RICOCHET_FONT", font)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{font}: {stderr}");
        assert!(stderr.contains(font) && stderr.contains(says), "{font}: {stderr}");
        assert!(out.join("summary.parquet").is_file() && !out.join("histograms.png").exists());
    }
    std::fs::remove_dir_all(&base).ok();
}

/// `--help` lists every exit status.
#[test]
fn help_lists_the_exit_statuses() {
    let help = Command::new(BIN).arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    for status in ["0 ", "1 ", "2 ", "3 ", "4 ", "130"] {
        assert!(text.contains(&format!("\n  {status}")), "{status}: {text}");
    }
}

/// `ricochet plot` draws any pair of columns — a summary's, or an event's or a sample's
/// joined with its scene's drawn parameter — as PNG or SVG, and names a column that is not
/// there; a run with drawn parameters draws `scatter.png`.
#[test]
fn plot_draws_any_pair_of_columns() {
    let base = scratch("plot");
    let file = short_oscillator(
        &base,
        "[strobe]\nevery = 0.5\n[events]\nmax = 4\n[[observe]]\nname = \"x_max\"\nsignal = \"q0\"\nreduce = \"max\"\n",
    );
    let out = base.join("run");
    let run = Command::new(BIN)
        .args([
            "run",
            &file,
            "--scenes",
            "50",
            "--backend",
            "cpu",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(out.join("scatter.png").is_file());
    let plot = |args: &[&str]| {
        let mut all = vec!["plot", out.to_str().unwrap()];
        all.extend(args);
        Command::new(BIN).args(&all).output().unwrap()
    };
    let png = base.join("x.png");
    assert!(
        plot(&["--x", "gap", "--y", "x_max", "--out", png.to_str().unwrap()])
            .status
            .success()
    );
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    let svg = base.join("strobe.svg");
    let drawn = plot(&[
        "--table",
        "strobe",
        "--x",
        "gap",
        "--y",
        "x",
        "--out",
        svg.to_str().unwrap(),
    ]);
    assert!(drawn.status.success(), "{}", String::from_utf8_lossy(&drawn.stderr));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with("<svg") && text.contains("x vs gap") && text.contains("gap (m)"),
        "{}",
        &text[..100.min(text.len())]
    );
    assert!(
        plot(&["--table", "events", "--x", "gap", "--y", "ydot_before"])
            .status
            .success()
    );
    assert!(out.join("ydot_before_vs_gap.png").is_file(), "the default name");
    let missing = plot(&["--x", "gap", "--y", "nothing"]);
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr.contains("column `nothing`") && stderr.contains("x_max"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("scenario:"),
        "a column is not the scenario's fault: {stderr}"
    );
    let wrong = plot(&["--table", "trajectories", "--x", "t", "--y", "x"]);
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("expected summary, events or strobe"));
    // The format comes from the name's extension: none (or an unknown one) is refused, named.
    let noext = plot(&[
        "--x",
        "gap",
        "--y",
        "x_max",
        "--out",
        base.join("noext").to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&noext.stderr);
    assert_eq!(noext.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("noext") && stderr.contains(".png or .svg"), "{stderr}");
    std::fs::remove_dir_all(&base).ok();
}

/// `ricochet check`: every scene built, the drawn ranges, the records and an estimate per
/// backend; a draw that makes some scene invalid fails it, naming the scene.
#[test]
fn check_is_a_dry_run() {
    let base = scratch("check");
    let file = short_oscillator(&base, "[events]\nmax = 8\n");
    let output = Command::new(BIN)
        .args(["check", &file])
        .current_dir(&base)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        stdout.contains("10000 scenes") && stdout.contains("every scene built: ok"),
        "{stdout}"
    );
    assert!(stdout.contains("gap") && stdout.contains("drawn in [0"), "{stdout}");
    assert!(stdout.contains("coordinates: x\n"), "{stdout}");
    assert!(
        stdout.contains("at most 8 impact events") && stdout.contains("scene-steps/s on a sample"),
        "{stdout}"
    );
    assert!(
        !base.join("results").exists(),
        "a dry run writes nothing (not even the default --out)"
    );
    let bad = base.join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"bad\"\nscenes = 50\n[scene]\ntemplate = \"bouncing_ball\"\nrestitution = { uniform = [0.5, 1.5] }\n[time]\nstep = 1e-3\nfinal = 0.1\n",
    )
    .unwrap();
    let output = Command::new(BIN)
        .args(["check", bad.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("scene ") && stderr.contains("restitution"), "{stderr}");
    // A billion scenes: a sample of them built, at once; the output counts the trajectories.
    let huge = base.join("huge.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&huge, text.replace("scenes = 10000", "scenes = 1000000000")).unwrap();
    let started = std::time::Instant::now();
    let output = Command::new(BIN)
        .args(["check", huge.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        stdout.contains("1000000000 scenes") && stdout.contains("100000 scenes spread over the ensemble built: ok"),
        "{stdout}"
    );
    // (Generous for a loaded 2-core machine: the point is minutes against hours.)
    assert!(started.elapsed().as_secs() < 120, "{:?}", started.elapsed());
    std::fs::remove_dir_all(&base).ok();
}

/// `run --json` and `verify --json` print exactly one JSON object on stdout.
#[test]
fn run_and_verify_speak_json() {
    let out = scratch("json");
    let run = Command::new(BIN)
        .args([
            "run",
            &scenario("bouncing_balls.toml"),
            "--scenes",
            "32",
            "--backend",
            "cpu",
            "--json",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let object: serde_json::Value = serde_json::from_slice(&run.stdout).expect("one JSON object");
    assert_eq!(object["scenes"], 32);
    assert_eq!(object["healthy"], true);
    assert!(
        object["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f.as_str().unwrap().ends_with("summary.parquet"))
    );
    let verify = Command::new(BIN)
        .args(["verify", &scenario("bouncing_balls.toml"), "--scenes", "4", "--json"])
        .output()
        .unwrap();
    let object: serde_json::Value = serde_json::from_slice(&verify.stdout).expect("one JSON object");
    assert_eq!(object["ok"], true, "{object}");
    // The library's verdict, as Python's `verify()` returns it.
    let columns = object["engines"][0]["columns"].as_array().unwrap();
    let z = columns.iter().find(|c| c["column"] == "z").unwrap();
    assert!(z["deviation"].as_f64().unwrap() <= 1e-9, "{z}");
    assert_eq!(object["nothing_compared"], false);
    std::fs::remove_dir_all(&out).ok();
}

/// `-q` leaves stderr to errors and warnings (no progress, no notice); `-v` adds each chunk's
/// timing; the results on stdout are the same.
#[test]
fn quiet_and_verbose() {
    let out = scratch("quiet");
    let run = |flag: &str| {
        let output = Command::new(BIN)
            .args([
                flag,
                "run",
                &scenario("bouncing_balls.toml"),
                "--scenes",
                "300",
                "--chunk",
                "100",
                "--backend",
                "auto",
                "--out",
                out.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let stdout = String::from_utf8(output.stdout).unwrap();
        (String::from_utf8(output.stderr).unwrap(), stdout.lines().count())
    };
    let (quiet, lines) = run("-q");
    assert_eq!(quiet, "", "-q: nothing on stderr");
    let (verbose, verbose_lines) = run("-v");
    assert_eq!(verbose_lines, lines, "stdout is the same");
    assert_eq!(verbose.matches("debug: scenes ").count(), 3, "{verbose}");
    assert!(verbose.contains("300/300 scenes (100 %)"), "{verbose}");
    assert!(
        !verbose.contains("Loader Message"),
        "the drivers' chatter only from -vv: {verbose}"
    );
    std::fs::remove_dir_all(&out).ok();
}

/// `ricochet run` prints its answer: each drawn parameter and outcome with its 95 %
/// interval, the numbers those of `stats.json` to the digits printed; `provenance.json`
/// names the processor, the threads and whether the build's tree was dirty.
#[test]
fn run_prints_the_statistics_with_their_intervals() {
    let out = scratch("statistics");
    let run = Command::new(BIN)
        .args([
            "run",
            &scenario("bouncing_balls.toml"),
            "--scenes",
            "300",
            "--backend",
            "cpu",
            "-q",
        ])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap()).unwrap();
    let printed = |name: &str| {
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no line for {name} in {stdout}"));
        line.split([' ', '[', ']', ','])
            .filter_map(|w| w.parse::<f64>().ok())
            .collect::<Vec<f64>>()
    };
    // Within half a unit of the last digit printed (`digits` significant ones).
    let close = |printed: f64, exact: f64, digits: i32| {
        let unit = if exact == 0.0 {
            0.0
        } else {
            10f64.powi(exact.abs().log10().floor() as i32 + 1 - digits)
        };
        assert!((printed - exact).abs() <= 0.5001 * unit, "{printed} against {exact}");
    };
    // `height  mean ± half m (95 %), std s, median q, range [lo, hi]`: the numbers but 95.
    let column = &stats["columns"]["height"];
    let numbers = printed("height");
    let [lo, hi] = [0, 1].map(|i| column["mean_ci95"][i].as_f64().unwrap());
    close(numbers[0], column["mean"].as_f64().unwrap(), 4);
    close(numbers[1], 0.5 * (hi - lo), 2);
    close(numbers[2], column["std"].as_f64().unwrap(), 4);
    close(numbers[4], column["min"].as_f64().unwrap(), 4);
    close(numbers[5], column["max"].as_f64().unwrap(), 4);
    // A flag as a probability with Wilson's interval.
    let column = &stats["columns"]["in_contact"];
    let numbers = printed("in_contact");
    close(numbers[0], column["probability"].as_f64().unwrap(), 4);
    assert!(stdout.contains("in_contact") && stdout.contains("P = "), "{stdout}");
    // provenance.json says where and from what the numbers came.
    let provenance: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("provenance.json")).unwrap()).unwrap();
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let cpu = provenance["cpu"].as_str().unwrap();
    assert!(cpu.ends_with(&format!("({threads} threads)")), "{cpu}");
    assert!(provenance["host"].as_str().unwrap().contains(std::env::consts::OS));
    assert!(provenance["dirty"].is_boolean() || provenance["dirty"].is_null());
    assert!(provenance["driver"].is_null(), "a CPU run has no driver");
    // The intervals are left out of --json's line (stats.json has them).
    let json = Command::new(BIN)
        .args([
            "run",
            &scenario("bouncing_balls.toml"),
            "--scenes",
            "8",
            "--backend",
            "cpu",
            "--json",
        ])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let line = String::from_utf8_lossy(&json.stdout);
    assert_eq!(line.lines().count(), 1, "{line}");
    std::fs::remove_dir_all(&out).ok();
}

/// docs/slurm's scripts run as a Slurm array would run them — three tasks with IDs 1 to 3,
/// then the merge — give one process's files byte for byte.
#[cfg(unix)]
#[test]
fn a_slurm_array_reproduces_one_run() {
    let out = scratch("slurm");
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs").join("slurm");
    let options = ["--scenes", "60", "--backend", "cpu", "-q"];
    let script = |name: &str| {
        let mut command = Command::new("bash");
        command
            .arg(docs.join(name))
            .env("RICOCHET", BIN)
            .env_remove("SGE_TASK_ID");
        command
    };
    for id in ["1", "2", "3"] {
        let task = script("ensemble.sbatch")
            .arg(scenario("bouncing_balls.toml"))
            .arg(&out)
            .args(options)
            .env("SLURM_ARRAY_TASK_ID", id)
            .env("SLURM_ARRAY_TASK_MIN", "1")
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .output()
            .unwrap();
        assert!(
            task.status.success(),
            "task {id}: {}",
            String::from_utf8_lossy(&task.stderr)
        );
        let info = std::fs::read_to_string(out.join(format!("shard-{id}")).join("run.json")).unwrap();
        let info: serde_json::Value = serde_json::from_str(&info).unwrap();
        assert_eq!(info["shard"], serde_json::json!([id.parse::<usize>().unwrap() - 1, 3]));
    }
    let merge = script("merge.sbatch").arg(&out).output().unwrap();
    assert!(
        merge.status.success(),
        "merge: {}",
        String::from_utf8_lossy(&merge.stderr)
    );
    let one = Command::new(BIN)
        .args(["run", &scenario("bouncing_balls.toml")])
        .args(options)
        .args(["--out", out.join("one").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(one.status.success());
    for file in ["summary.parquet", "stats.json"] {
        let read = |dir: &str| std::fs::read(out.join(dir).join(file)).unwrap();
        assert!(read("all") == read("one"), "{file} differs");
    }
    // Outside an array job, `--shard auto` says what it looked for.
    let lost = Command::new(BIN)
        .args(["run", &scenario("bouncing_balls.toml"), "--shard", "auto"])
        .args(options)
        .args(["--out", out.join("lost").to_str().unwrap()])
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("SGE_TASK_ID")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&lost.stderr);
    assert!(
        !lost.status.success() && stderr.contains("SLURM_ARRAY_TASK_ID"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&out).ok();
}
