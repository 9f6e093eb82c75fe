//! Sobol indices from a Saltelli design (`design = "saltelli"`): the estimator recovers the
//! Ishigami function's analytic indices within its bootstrap intervals; end to end, a ball's
//! first impact time depends on its drop height alone; the design's rows are Saltelli's; and
//! what the design cannot place is refused.

use ricochet::ensemble::design::{Design, DesignKind, Draws};
use ricochet::ensemble::sampling::{Distribution, Parameter, Position, scene_rng};
use ricochet::ensemble::sensitivity::{self, Indices};
use ricochet::ensemble::{self, Backend, Progress, RunOptions, Scenario, Shard};

/// The Ishigami function sin x₁ + 7 sin² x₂ + 0.1 x₃⁴ sin x₁ on [−π, π]³ (Ishigami & Homma
/// 1990), whose indices are known in closed form: S = (0.3139, 0.4424, 0), S_T = (0.5576,
/// 0.4424, 0.2437) (Saltelli et al., *Global Sensitivity Analysis: The Primer*, 2008, §4.4).
#[test]
fn the_ishigami_indices_lie_in_their_bootstrap_intervals() {
    let (a, b) = (7.0, 0.1);
    let pi = std::f64::consts::PI;
    let box_ = Parameter::Drawn(Distribution::Uniform([-pi, pi]));
    let names = ["x1", "x2", "x3"];
    let n = 1 << 14;
    let draws = Draws {
        seed: 5,
        scenes: n * 5,
        design: Some(DesignKind::Saltelli),
    };
    let design = Design::new(names.iter().map(|s| (s.to_string(), &box_)), draws).unwrap();
    assert_eq!(design.saltelli_parameters(), names);
    let f: Vec<f64> = (0..n * 5)
        .map(|s| {
            let mut rng = scene_rng(5, s as u64);
            let x: Vec<f64> = names
                .iter()
                .map(|name| match design.position(name, s, &mut rng) {
                    Some(p @ Position::Unit(_)) => box_.at(p),
                    other => panic!("{name}: {other:?}"),
                })
                .collect();
            x[0].sin() + a * x[1].sin().powi(2) + b * x[2].powi(4) * x[0].sin()
        })
        .collect();
    let indices = sensitivity::indices(&f, 3, 5).unwrap();
    let exact_first = [0.3139, 0.4424, 0.0];
    let exact_total = [0.5576, 0.4424, 0.2437];
    for (i, x) in indices.iter().enumerate() {
        let within = |[lo, hi]: [f64; 2], v: f64| lo <= v && v <= hi;
        assert!(within(x.s1_ci95, exact_first[i]), "S1 of x{}: {x:?}", i + 1);
        assert!(within(x.st_ci95, exact_total[i]), "ST of x{}: {x:?}", i + 1);
        // And the intervals are narrow enough to tell the parameters apart.
        assert!(
            x.s1_ci95[1] - x.s1_ci95[0] < 0.1 && x.st_ci95[1] - x.st_ci95[0] < 0.1,
            "{x:?}"
        );
    }
}

const BALLS: &str = r#"
name = "balls"
scenes = 4096
seed = 3
design = "saltelli"
[scene]
template = "bouncing_ball"
height = { uniform = [1.0, 2.0] }
restitution = { uniform = [0.5, 0.95] }
[time]
step = 1e-3
final = 0.7
"#;

fn run(scenario: &Scenario, shard: Shard) -> ensemble::EnsembleRun {
    let options = RunOptions {
        backend: Backend::Cpu,
        shard,
        ..Default::default()
    };
    ensemble::run(scenario, &options, &Progress::new()).unwrap()
}

/// Before its first impact (at 0.43–0.62 s; the next comes after 0.7 s) a ball's impact time
/// is the drop height's alone: S_h ≈ S_T,h ≈ 1, and the restitution's indices are exactly 0
/// (its rows AB_e repeat A's impact time bit for bit).
#[test]
fn a_balls_first_impact_time_depends_on_its_height_alone() {
    let scenario = Scenario::from_toml(BALLS).unwrap();
    let run = run(&scenario, Shard { index: 0, count: 1 });
    assert_eq!(run.plan.saltelli, ["height", "restitution"]);
    let s = sensitivity::of(&run.summary, &run.plan.saltelli, scenario.seed).unwrap();
    let t = &s["last_impact_time"];
    let height: &Indices = &t["height"];
    assert!(
        (height.s1 - 1.0).abs() < 0.05 && (height.st - 1.0).abs() < 0.05,
        "{height:?}"
    );
    assert!(height.s1_ci95[0] <= 1.0 && 1.0 <= height.st_ci95[1], "{height:?}");
    let e = &t["restitution"];
    assert_eq!((e.s1, e.st), (0.0, 0.0), "{e:?}");
    // Every ball hits once: `impacts` does not vary and has no indices.
    assert!(!s.contains_key("impacts"));
    // Rows of group j: A, AB_height (height from B), AB_restitution, B.
    let (h, e) = (
        run.summary.column("height").unwrap(),
        run.summary.column("restitution").unwrap(),
    );
    for j in [0, 1, 500, 1023] {
        let r = 4 * j;
        assert_eq!((h[r + 1], e[r + 1]), (h[r + 3], e[r]), "group {j}: AB_height");
        assert_eq!((h[r + 2], e[r + 2]), (h[r], e[r + 3]), "group {j}: AB_restitution");
        assert!(h[r] != h[r + 3] && e[r] != e[r + 3], "group {j}: A and B differ");
    }
    // Shards hold whole groups or parts; merged, they give the one run's indices.
    let parts: Vec<_> = (0..3).map(|i| run_part(&scenario, i)).collect();
    let mut merged = parts[0].clone();
    for part in &parts[1..] {
        merged.append(part).unwrap();
    }
    assert_eq!(sensitivity::of(&merged, &run.plan.saltelli, scenario.seed), Some(s));
    assert_eq!(
        sensitivity::of(&merged, &[], scenario.seed),
        None,
        "no design, no indices"
    );
}

fn run_part(scenario: &Scenario, index: usize) -> ensemble::Table {
    run(scenario, Shard { index, count: 3 }).summary
}

/// A Saltelli design places uniform parameters over N (d + 2) scenes; anything else is
/// refused, naming it.
#[test]
fn what_a_saltelli_design_cannot_place_is_refused() {
    let refused = |text: String, says: &str| {
        let e = Scenario::from_toml(&text).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    };
    refused(
        BALLS.replace("scenes = 4096", "scenes = 4095"),
        "scenes = 4092 for N = 1023",
    );
    refused(
        BALLS.replace("{ uniform = [0.5, 0.95] }", "{ normal = { mean = 0.8, std = 0.05 } }"),
        "parameter `restitution`",
    );
    refused(
        BALLS.replace("{ uniform = [0.5, 0.95] }", "{ sobol = [0.5, 0.95] }"),
        "uniform = [a, b]",
    );
    refused(
        BALLS
            .replace("height = { uniform = [1.0, 2.0] }", "height = 1.5")
            .replace("restitution = { uniform = [0.5, 0.95] }", "restitution = 0.9"),
        "nothing to find the indices of",
    );
    refused(BALLS.replace("\"saltelli\"", "\"salteli\""), "salteli");
}

/// `ricochet run --shard i/3` three times, then `ricochet merge`: the merged directory's
/// `sensitivity.json` is the one run's, byte for byte (the indices come from the merged
/// summary, read back from its CSV files).
#[test]
fn merged_shards_write_the_one_runs_indices() {
    let dir = std::env::temp_dir().join(format!("ricochet-sensitivity-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("balls.toml");
    std::fs::write(&file, BALLS.replace("scenes = 4096", "scenes = 400")).unwrap();
    let ricochet = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_ricochet"))
            .args(args)
            .arg("-q")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let path = |name: &str| dir.join(name).display().to_string();
    let file = file.display().to_string();
    ricochet(&["run", &file, "--backend", "cpu", "--out", &path("one")]);
    for i in 0..3 {
        let shard = format!("{i}/3");
        ricochet(&[
            "run",
            &file,
            "--backend",
            "cpu",
            "--shard",
            &shard,
            "--out",
            &path(&format!("part{i}")),
        ]);
    }
    ricochet(&[
        "merge",
        &path("part0"),
        &path("part1"),
        &path("part2"),
        "--out",
        &path("all"),
    ]);
    let read = |d: &str| std::fs::read(dir.join(d).join("sensitivity.json")).unwrap();
    assert_eq!(read("all"), read("one"));
    let indices: serde_json::Value = serde_json::from_slice(&read("one")).unwrap();
    assert!(
        indices["last_impact_time"]["height"]["ST"].as_f64().unwrap() > 0.9,
        "{indices}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
