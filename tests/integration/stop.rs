//! `[stop]`: a run that goes on until its targets' 95 % intervals are narrow enough stops at
//! the first test point where they are — checked against the intervals of the rows it kept,
//! computed afresh — with the same N and rows whatever the chunking, resumed or not, and
//! refuses what it cannot do (shards, Latin hypercubes, tests that cut a grid).

use ricochet::Error;
use ricochet::ensemble::stats::ColumnStats;
use ricochet::ensemble::{self, Backend, Progress, RunOptions, Scenario, Shard};

/// Balls dropped from U(1, 2) m: the mean height's half-width 1.96 · 0.2887/√n reaches 0.02
/// near n = 800.
fn balls(stop: &str) -> Scenario {
    Scenario::from_toml(&text(DRAWS, stop)).unwrap()
}

const DRAWS: &str = "height = { uniform = [1.0, 2.0] }\nrestitution = { uniform = [0.8, 0.95] }";

/// The balls' scenario with the parameters `draws` and the stop rule `stop`.
fn text(draws: &str, stop: &str) -> String {
    format!(
        r#"
name = "balls"
scenes = 3000
seed = 11
[scene]
template = "bouncing_ball"
{draws}
[time]
step = 2e-3
final = 1.0
[record]
trajectories = 4
{stop}
"#
    )
}

const HEIGHT: &str = "[stop]\nmin_scenes = 200\nevery = 100\n[[stop.target]]\ncolumn = \"height\"\nhalf_width = 0.02\n";

fn run(scenario: &Scenario, chunk: Option<usize>) -> ensemble::EnsembleRun {
    let options = RunOptions {
        backend: Backend::Cpu,
        chunk,
        ..Default::default()
    };
    ensemble::run(scenario, &options, &Progress::new()).unwrap()
}

/// The half-width of the mean's 95 % interval of the first `n` values, as stats.json gives it.
fn half_width(values: &[f64], n: usize) -> f64 {
    let [lo, hi] = ColumnStats::of(&values[..n]).mean_ci95;
    (hi - lo) / 2.0
}

#[test]
fn a_run_stops_at_the_first_test_where_every_target_is_met() {
    let scenario = balls(&format!(
        "{HEIGHT}[[stop.target]]\ncolumn = \"last_impact_time\"\nrelative = 0.05\n"
    ));
    let run = run(&scenario, None);
    let stop = run.stop.as_ref().expect("a stop rule's run says where it stopped");
    let n = stop.scenes;
    assert!(stop.met, "{stop:?}");
    assert_eq!(stop.max_scenes, 3000);
    assert!(
        n >= 200 && (n - 200).is_multiple_of(100),
        "stopped at {n}, not a test point"
    );
    assert_eq!(run.summary.rows(), n);
    assert_eq!(
        run.summary.column("scene").unwrap(),
        (0..n).map(|s| s as f64).collect::<Vec<_>>()
    );
    // Met at n, not at the test before (each interval computed afresh from the rows).
    let height = run.summary.column("height").unwrap();
    let t = run.summary.column("last_impact_time").unwrap();
    let met = |n: usize| {
        let mean = ColumnStats::of(&t[..n]).mean;
        half_width(&height, n) <= 0.02 && half_width(&t, n) <= 0.05 * mean.abs()
    };
    assert!(met(n));
    assert!(n == 200 || !met(n - 100), "already met at {}", n - 100);
    assert!(
        (600..1200).contains(&n),
        "stopped at {n}: 1.96 · 0.2887/√n = 0.02 near 800"
    );
    // The reported half-widths are those intervals.
    let reached = &stop.targets[0];
    assert_eq!((reached.column.as_str(), reached.count), ("height", n));
    assert!((reached.half_width.unwrap() - half_width(&height, n)).abs() < 1e-12);
    assert_eq!(reached.wanted, Some(0.02));
    // The recorded scenes are spread over the scenes run.
    let recorded: std::collections::BTreeSet<u64> = run
        .trajectories
        .column("scene")
        .unwrap()
        .iter()
        .map(|&s| s as u64)
        .collect();
    let expected: Vec<u64> = (0..4).map(|i| (i * n / 4) as u64).collect();
    assert_eq!(recorded.into_iter().collect::<Vec<_>>(), expected);
}

#[test]
fn the_same_n_and_rows_whatever_the_chunks() {
    let scenario = balls(HEIGHT);
    let whole = run(&scenario, None);
    for chunk in [37, 100, 4096] {
        let chunked = run(&scenario, Some(chunk));
        assert_eq!(chunked.stop, whole.stop, "chunks of {chunk}");
        assert_eq!(chunked.summary, whole.summary, "chunks of {chunk}");
    }
}

#[test]
fn the_cap_ends_a_run_whose_targets_are_not_met() {
    let mut scenario = balls(&HEIGHT.replace("0.02", "1e-6"));
    scenario.scenes = 500;
    scenario.validate().unwrap();
    let run = run(&scenario, Some(64));
    let stop = run.stop.unwrap();
    assert_eq!((stop.scenes, stop.max_scenes, stop.met), (500, 500, false));
    assert!(!stop.targets[0].met);
    assert_eq!(run.summary.rows(), 500);
}

#[test]
fn a_resumed_run_stops_where_an_uninterrupted_one_does() {
    let scenario = balls(HEIGHT);
    let dir = std::env::temp_dir().join(format!("ricochet-stop-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    let options = |resume| RunOptions {
        backend: Backend::Cpu,
        chunk: Some(50),
        checkpoints: Some(dir.clone()),
        resume,
        ..Default::default()
    };
    let progress = Progress::new();
    let steps = scenario.steps();
    let outcome = std::thread::scope(|scope| {
        let progress = &progress;
        scope.spawn(move || {
            while progress.scene_steps() <= 250 * steps {
                std::thread::yield_now();
            }
            progress.cancel();
        });
        ensemble::run(&scenario, &options(false), progress)
    });
    assert!(matches!(outcome, Err(Error::Interrupted { .. })), "not interrupted");
    let resumed = Progress::new();
    let mut run = ensemble::run(&scenario, &options(true), &resumed).unwrap();
    drop(run.lock.take());
    assert!(
        resumed.resumed() >= 250 * steps,
        "{} scene-steps kept",
        resumed.resumed()
    );
    let whole = self::run(&scenario, None);
    assert_eq!(run.stop, whole.stop);
    assert_eq!(run.summary, whole.summary);
    std::fs::remove_dir_all(&dir).ok();
}

/// A rule met inside the chunks a run kept (here a finished run's, resumed) stops there
/// too, taking no scene past it.
#[test]
fn a_rule_met_inside_kept_chunks_stops_there() {
    let scenario = balls(HEIGHT);
    let dir = std::env::temp_dir().join(format!("ricochet-stop-kept-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let options = |resume| RunOptions {
        backend: Backend::Cpu,
        chunk: Some(100),
        checkpoints: Some(dir.clone()),
        resume,
        ..Default::default()
    };
    let mut first = ensemble::run(&scenario, &options(false), &Progress::new()).unwrap();
    drop(first.lock.take());
    let resumed = Progress::new();
    let mut again = ensemble::run(&scenario, &options(true), &resumed).unwrap();
    drop(again.lock.take());
    let n = first.stop.as_ref().unwrap().scenes;
    assert_eq!(
        resumed.resumed(),
        n as u64 * scenario.steps(),
        "every scene run was kept"
    );
    assert_eq!((again.stop, again.summary), (first.stop, first.summary));
    std::fs::remove_dir_all(&dir).ok();
}

/// A flag that has been 0 in every scene so far has a zero-width mean interval, yet a rare
/// event may still come: its target is not met (its half-width is Wilson's, as stats.json
/// gives it), and the run goes on to the cap.
#[test]
fn a_flag_never_seen_set_is_not_known_yet() {
    let mut scenario = balls(&HEIGHT.replace("\"height\"\nhalf_width = 0.02", "\"in_contact\"\nhalf_width = 0.5"));
    scenario.scenes = 600;
    let run = run(&scenario, None);
    let flags = run.summary.column("in_contact").unwrap();
    assert!(flags.iter().all(|&f| f == 0.0), "no ball rests within 1 s");
    let stop = run.stop.unwrap();
    assert_eq!((stop.scenes, stop.met), (600, false), "{stop:?}");
    let [lo, hi] = ColumnStats::of(&flags).probability_ci95.unwrap();
    assert_eq!(stop.targets[0].half_width, Some((hi - lo) / 2.0));
}

/// `max_scenes` is the cap where `scenes` is not given, and must agree with it where it is.
#[test]
fn max_scenes_is_the_cap() {
    let text = |scenes: &str| {
        format!(
            "name = \"b\"\n{scenes}\n[scene]\ntemplate = \"bouncing_ball\"\nheight = {{ uniform = [1.0, 2.0] }}\n\
             [time]\nstep = 1e-3\nfinal = 0.1\n[stop]\nmin_scenes = 10\nmax_scenes = 70\n\
             [[stop.target]]\ncolumn = \"height\"\nhalf_width = 0.1\n"
        )
    };
    let capped = Scenario::from_toml(&text("")).unwrap();
    assert_eq!((capped.scenes, capped.stop.as_ref().unwrap().max_scenes), (70, None));
    assert_eq!(Scenario::from_toml(&text("scenes = 70")).unwrap(), capped);
    let e = Scenario::from_toml(&text("scenes = 80")).unwrap_err().to_string();
    assert!(
        e.contains("[stop] max_scenes") && e.contains("give the cap once"),
        "{e}"
    );
}

/// What a stop rule cannot do is refused, naming it: a shard (it does not hold the scenes
/// before a test point), a Latin hypercube (only all its scenes cover its strata), test
/// points that cut a pass over a grid, and a target that is not a column.
#[test]
fn what_a_stop_rule_cannot_do_is_refused() {
    let refused = |scenario: &Scenario, shard: Shard, says: &str| {
        let options = RunOptions {
            backend: Backend::Cpu,
            shard,
            ..Default::default()
        };
        let e = ensemble::run(scenario, &options, &Progress::new())
            .err()
            .expect("refused");
        let e = e.to_string();
        assert!(e.contains("[stop]") && e.contains(says), "{e}");
    };
    let whole = Shard { index: 0, count: 1 };
    refused(&balls(HEIGHT), Shard { index: 0, count: 2 }, "run without --shard");
    refused(
        &balls(&HEIGHT.replace("\"height\"", "\"heigth\"")),
        whole,
        "not a summary column",
    );
    let lhs = text("height = { lhs = [1.0, 2.0] }", HEIGHT);
    refused(&Scenario::from_toml(&lhs).unwrap(), whole, "Latin hypercube");
    let grid = text("height = { grid = [1.0, 2.0, 3] }", HEIGHT);
    refused(&Scenario::from_toml(&grid).unwrap(), whole, "whole blocks");
    let saltelli = text(DRAWS, HEIGHT).replace("seed = 11", "seed = 11\ndesign = \"saltelli\"");
    refused(
        &Scenario::from_toml(&saltelli.replace("every = 100", "every = 102")).unwrap(),
        whole,
        "whole blocks of the design's 4 scenes",
    );
    let passes = text("height = { grid = [1.0, 2.0, 4] }", HEIGHT);
    assert!(
        ensemble::run(
            &Scenario::from_toml(&passes).unwrap(),
            &RunOptions {
                backend: Backend::Cpu,
                ..Default::default()
            },
            &Progress::new()
        )
        .is_ok()
    );
}

/// `ricochet run` says where it stopped, writes the scenes it ran (run.json's `scenes` and
/// `stop`), takes `--scenes` as the cap, and refuses `--shard` with the reason.
#[test]
fn the_command_line_reports_where_it_stopped() {
    let dir = std::env::temp_dir().join(format!("ricochet-stop-cli-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("balls.toml");
    std::fs::write(&file, text(DRAWS, HEIGHT)).unwrap();
    let out = dir.join("out");
    let ricochet = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ricochet"))
            .args(["run", file.to_str().unwrap(), "--backend", "cpu", "-q"])
            .args(["--out", out.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap()
    };
    let output = ricochet(&["--scenes", "2000", "--format", "csv"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let expected = run(&balls(HEIGHT), None).stop.unwrap();
    let n = expected.scenes;
    assert!(
        stdout.contains(&format!(
            "stopped at {n} of at most 2000 scenes: every target met (height: ±"
        )),
        "{stdout}"
    );
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out.join(name)).unwrap()).unwrap()
    };
    let info = read("run.json");
    assert_eq!(info["scenes"], n);
    assert_eq!(info["stop"]["scenes"], n);
    assert_eq!(info["stop"]["max_scenes"], 2000);
    assert_eq!(info["stop"]["met"], true);
    assert_eq!(read("stats.json")["rows"], n);
    let rows = std::fs::read_to_string(out.join("summary.csv"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(rows, n + 1, "a header and one row per scene run");
    let sharded = ricochet(&["--shard", "1/2"]);
    let stderr = String::from_utf8_lossy(&sharded.stderr);
    assert!(!sharded.status.success());
    assert!(
        stderr.contains("[stop] with a shard") && stderr.contains("balls.toml"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `ricochet check` times a stop rule's scenario as any other (its sample of a few scenes is
/// not a shard the rule refuses).
#[test]
fn check_times_a_scenario_with_a_stop_rule() {
    let found = ensemble::check::check(&balls(HEIGHT), &ensemble::Unwatched).unwrap();
    let cpu = found.estimates.iter().find(|e| e.backend == Backend::Cpu).unwrap();
    assert!(cpu.unavailable.is_none(), "{:?}", cpu.unavailable);
    assert!(cpu.scene_steps_per_second > 0.0);
}

/// `verify` and `bench` run a stop rule's scenario as a fixed number of scenes (the first
/// few, or each size measured): the rule is not theirs to apply.
#[test]
fn verify_and_bench_take_a_scenario_with_a_stop_rule() {
    let verdict = ensemble::verify::verify(balls(HEIGHT), 4, Some(0.05), &ensemble::Unwatched).unwrap();
    assert!(verdict.ok && verdict.scenes == 4, "{:?}", verdict.engines.len());
    let plan = ensemble::bench::BenchPlan {
        backends: vec![Backend::Cpu],
        sizes: vec![3000],
        reference_up_to: 0,
        repeat: 1,
        precisions: vec![],
    };
    let rows = ensemble::bench::bench(balls(HEIGHT), &plan, &ensemble::Unwatched, |_| Ok(())).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].scenes, 3000, "every scene of the size measured");
}
