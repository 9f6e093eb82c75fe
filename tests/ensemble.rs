//! Monte Carlo ensembles end to end: statistics against the exact Newton-impact solution,
//! reproducibility (chunking, sharding + merge), backends against the reference stepper,
//! the shipped scenarios through `ricochet verify`, and bad scenarios.

mod common;

use ricochet::ensemble::output::{RunFiles, RunInfo};
use ricochet::ensemble::scenario::PrecisionChoice;
use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Shard, Statistics, Table};
use ricochet::scenes::block_on_incline::BlockOnIncline;

const BALLS: &str = r#"
name = "balls"
scenes = 2000
seed = 99
[scene]
template = "bouncing_ball"
height = { uniform = [1.0, 2.0] }
restitution = { uniform = [0.8, 0.95] }
radius = 0.1
[time]
step = 1e-3
final = 2.0
[record]
trajectories = 3
stride = 50
"#;

const G: f64 = 9.81;
const R: f64 = 0.1;

/// The exact bouncing ball dropped from rest with gap d = z₀ − R: impact times
/// t₁ = √(2d/g), t_{k+1} = t_k + 2 eᵏ v₁ / g, and impact speeds eᵏ⁻¹ v₁ (v₁ = √(2 g d)).
fn exact_impacts(z0: f64, e: f64, t_final: f64) -> Vec<(f64, f64)> {
    let v1 = (2.0 * G * (z0 - R)).sqrt();
    let mut t = v1 / G;
    let mut speed = v1;
    let mut impacts = Vec::new();
    while t <= t_final + 0.1 && impacts.len() < 50 {
        impacts.push((t, speed));
        speed *= e;
        t += 2.0 * speed / G;
    }
    impacts
}

/// max |a − b| over two columns of numbers.
fn differ(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// The summary column `name` of a run.
fn col(run: &ensemble::EnsembleRun, name: &str) -> Vec<f64> {
    run.summary.column(name).unwrap()
}

/// max |a − b| over the summary column `name` of two runs of the same scenes.
fn deviation(a: &ensemble::EnsembleRun, b: &ensemble::EnsembleRun, name: &str) -> f64 {
    differ(&col(a, name), &col(b, name))
}

/// A shipped scenario (`scenarios/<file>`).
fn shipped(file: &str) -> Scenario {
    Scenario::load(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(file),
    )
    .unwrap()
}

fn run(scenario: &Scenario, backend: Backend, chunk: usize, shard: Shard) -> ensemble::EnsembleRun {
    let options = RunOptions {
        backend,
        chunk: Some(chunk),
        shard,
        ..Default::default()
    };
    ensemble::run(scenario, &options, &ensemble::Progress::new()).unwrap()
}

const ALL: Shard = Shard { index: 0, count: 1 };

/// One engine the CPU lanes are checked against, and how far from them its summary may be.
struct Case {
    backend: Backend,
    precision: PrecisionChoice,
    tolerance: f64,
}

impl Case {
    /// `scenario` on this engine.
    fn run(&self, scenario: &Scenario) -> ensemble::EnsembleRun {
        let mut scenario = scenario.clone();
        scenario.solver.precision = self.precision;
        run(&scenario, self.backend, 1 << 16, ALL)
    }

    fn is_gpu(&self) -> bool {
        self.backend == Backend::Gpu
    }

    /// Asserts that `columns` of `run` are within the tolerance of the CPU lanes' `cpu`.
    fn assert_agrees(&self, run: &ensemble::EnsembleRun, cpu: &ensemble::EnsembleRun, columns: &[&str]) {
        for name in columns {
            let worst = deviation(run, cpu, name);
            println!("{self} {name}: {worst:.1e}");
            assert!(worst <= self.tolerance, "{self} vs CPU backend, {name}: {worst:e}");
        }
    }
}

impl std::fmt::Display for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.backend {
            Backend::Gpu => write!(f, "GPU {:?}", self.precision),
            backend => write!(f, "{backend:?}"),
        }
    }
}

/// The engines the CPU lanes are checked against, each where it applies: the reference
/// stepper within `reference`, and, where there is an adapter, the GPU kernel in f64 (1e-9:
/// rounding only) and in f32 within `f32` (K steps of rounding; each test says its K).
fn engines(reference: Option<f64>, f32: Option<f64>) -> Vec<Case> {
    let gpu = common::gpu().is_some();
    let case = |backend, precision, tolerance| Case {
        backend,
        precision,
        tolerance,
    };
    let mut cases: Vec<Case> = reference
        .map(|t| case(Backend::Reference, PrecisionChoice::Auto, t))
        .into_iter()
        .collect();
    if gpu {
        cases.push(case(Backend::Gpu, PrecisionChoice::F64, 1e-9));
        cases.extend(f32.map(|t| case(Backend::Gpu, PrecisionChoice::F32, t)));
    }
    cases
}

/// Per scene: the impact count before T equals the exact one (unless an exact impact lies
/// within its time bound of T, where the discrete impact may fall on either side), the k-th
/// impact time is within (2k − 1) steps of the exact one, and the apex of the final arc, z + ż²/2g − R,
/// is e^{2k} d up to the time-step error: each impact is resolved at the start of the step
/// that penetrates, which moves the ball by at most (1 + e)|v| h. Then the mean and the
/// quantiles of both over the ensemble agree within those bounds.
#[test]
fn ball_ensemble_matches_the_exact_solution() {
    let scenario = Scenario::from_toml(BALLS).unwrap();
    let (h, t_final) = (scenario.time.step, scenario.time.final_time);
    let run = run(&scenario, Backend::Cpu, 1 << 16, Shard { index: 0, count: 1 });
    let col = |name: &str| run.summary.column(name).unwrap();
    let (z0, e, impacts, last) = (
        col("height"),
        col("restitution"),
        col("impacts"),
        col("last_impact_time"),
    );
    let (z, v) = (col("z"), col("z_dot"));
    let (mut exact_counts, mut exact_apex, mut apex, mut apex_bound) = (vec![], vec![], vec![], 0.0f64);
    let mut ambiguous = 0;
    for s in 0..z0.len() {
        let exact = exact_impacts(z0[s], e[s], t_final);
        let before: Vec<_> = exact.iter().filter(|(t, _)| *t <= t_final).collect();
        let k = before.len();
        // Impact i may be shifted by up to (2i + 1) h (see below): near T it may fall on
        // either side.
        if exact
            .iter()
            .enumerate()
            .any(|(i, (t, _))| (t - t_final).abs() <= (2 * i + 3) as f64 * h)
        {
            ambiguous += 1;
            assert!((impacts[s] - k as f64).abs() <= 1.0, "scene {s}");
            continue;
        }
        assert_eq!(impacts[s], k as f64, "scene {s}: impact count");
        // Detected at the start of the penetrating step, recorded at its end; each earlier
        // impact may shift the later flight by up to (1 + e) h in time.
        let time_bound = (2 * k + 1) as f64 * h;
        assert!(
            (last[s] - before[k - 1].0).abs() <= time_bound,
            "scene {s}: last impact {} vs {}",
            last[s],
            before[k - 1].0
        );
        let bound: f64 = before.iter().map(|(_, speed)| 2.0 * speed * h).sum::<f64>() + G * h * h;
        let d = z0[s] - R;
        let exact_apex_s = e[s].powi(2 * k as i32) * d;
        let apex_s = z[s] + v[s] * v[s] / (2.0 * G) - R;
        assert!(
            (apex_s - exact_apex_s).abs() <= bound,
            "scene {s}: apex {apex_s} vs {exact_apex_s} (bound {bound:e})"
        );
        apex_bound = apex_bound.max(bound);
        exact_counts.push(k as f64);
        exact_apex.push(exact_apex_s);
        apex.push(apex_s);
    }
    assert!(ambiguous < z0.len() / 20, "{ambiguous} scenes near T");
    let stats = |x: &[f64]| ricochet::ensemble::stats::ColumnStats::of(x);
    let (sim_apex, ref_apex) = (stats(&apex), stats(&exact_apex));
    assert!((sim_apex.mean - ref_apex.mean).abs() <= apex_bound);
    for (q, x) in &sim_apex.quantiles {
        assert!((x - ref_apex.quantiles[q]).abs() <= apex_bound, "apex quantile {q}");
    }
    let counted: Vec<f64> = impacts
        .iter()
        .zip(&last)
        .filter(|(_, t)| t.is_finite())
        .map(|(n, _)| *n)
        .collect();
    let all = stats(&impacts);
    let exact = stats(&exact_counts);
    // Ambiguous scenes may each move the mean by 1/N.
    assert!((all.mean - exact.mean).abs() <= (ambiguous as f64 + 1.0) / exact_counts.len() as f64 + 0.05);
    assert_eq!(counted.len(), impacts.len(), "every ball hit the floor");
    println!(
        "mean impacts {:.4} (exact {:.4}), mean apex {:.6} m (exact {:.6}, bound {apex_bound:.1e}), {ambiguous} scenes near T",
        all.mean, exact.mean, sim_apex.mean, ref_apex.mean
    );
}

/// The CPU backend equals the dense reference stepper to 1e-12 on every summary column.
#[test]
fn cpu_backend_equals_the_reference_stepper() {
    let mut scenario = Scenario::from_toml(BALLS).unwrap();
    scenario.scenes = 24;
    let shard = Shard { index: 0, count: 1 };
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, shard);
    let reference = run(&scenario, Backend::Reference, 1 << 16, shard);
    assert_eq!(cpu.summary.columns, reference.summary.columns);
    for (j, name) in cpu.summary.columns.iter().enumerate() {
        if name.starts_with("lcp_") {
            continue;
        }
        for s in 0..24 {
            let (a, b) = (cpu.summary.row(s)[j], reference.summary.row(s)[j]);
            assert!(
                (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                "scene {s} column {name}: {a} vs {b}"
            );
        }
    }
    assert_eq!(cpu.trajectories.rows(), reference.trajectories.rows());
    for (a, b) in cpu.trajectories.values.iter().zip(&reference.trajectories.values) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()));
    }
}

/// The GPU kernel in f64 agrees with the CPU backend (impact counts equal, state to 1e-9).
#[test]
fn gpu_backend_agrees_with_the_cpu_backend() {
    let mut scenario = Scenario::from_toml(BALLS).unwrap();
    scenario.scenes = 256;
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    for case in engines(None, None) {
        let gpu = case.run(&scenario);
        assert_eq!(gpu.summary.column("impacts"), cpu.summary.column("impacts"));
        case.assert_agrees(&gpu, &cpu, &["z", "z_dot", "last_impact_time", "energy_change"]);
    }
}

const DUMBBELLS: &str = r#"
name = "dumbbells"
scenes = 400
seed = 5
[scene]
template = "dumbbell"
mass0 = { uniform = [0.5, 2.0] }
height = { uniform = [1.0, 2.0] }
restitution = { uniform = [0.8, 0.95] }
length = 0.5
[time]
step = 1e-3
final = 2.0
stabilization = { baumgarte = 0.2 }
"#;

/// Two balls on a rigid rod (an equality row beside the floor contact in every step's MLCP)
/// bounce as one ball: the impact counts are the exact ball's, the rod keeps its length, and
/// the GPU (f32 and f64) agrees with the CPU backend.
#[test]
fn dumbbells_bounce_as_one_ball_on_every_backend() {
    let scenario = Scenario::from_toml(DUMBBELLS).unwrap();
    let (h, t_final) = (scenario.time.step, scenario.time.final_time);
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    let (z0, e, impacts) = (col(&cpu, "height"), col(&cpu, "restitution"), col(&cpu, "impacts"));
    let (q0, q1) = (col(&cpu, "z_0"), col(&cpu, "z_1"));
    let mut ambiguous = Vec::new();
    for s in 0..z0.len() {
        let exact = exact_impacts(z0[s], e[s], t_final);
        if exact
            .iter()
            .enumerate()
            .any(|(i, (t, _))| (t - t_final).abs() <= (2 * i + 3) as f64 * h)
        {
            ambiguous.push(s);
            continue;
        }
        let k = exact.iter().filter(|(t, _)| *t <= t_final).count();
        assert_eq!(impacts[s], k as f64, "scene {s}: impact count");
        assert!(
            (q1[s] - q0[s] - 0.5).abs() < 1e-12,
            "scene {s}: rod length {}",
            q1[s] - q0[s]
        );
    }
    assert!(ambiguous.len() < z0.len() / 20);
    // f32: K steps of rounding, K ε (1 + |q| + K h |v|) ≈ 1.2e-3 (see tests/gpu_vs_cpu.rs),
    // and impact counts equal away from T.
    for case in engines(None, Some(1.2e-3)) {
        let gpu = case.run(&scenario);
        let gpu_impacts = col(&gpu, "impacts");
        for s in (0..z0.len()).filter(|s| !ambiguous.contains(s)) {
            assert_eq!(gpu_impacts[s], impacts[s], "{case} scene {s}");
            for name in ["z_0", "z_1", "z_0_dot", "z_1_dot"] {
                let (a, b) = (col(&gpu, name)[s], col(&cpu, name)[s]);
                assert!((a - b).abs() <= case.tolerance, "{case} scene {s} {name}: {a} vs {b}");
            }
        }
    }
}

/// Pendulums hitting a wall (a quadratic equality row with a Newton loop per step, beside a
/// Newton contact): the rod keeps its length, every pendulum released right of the wall hits
/// it, and the GPU (f32 and f64) agrees with the CPU backend, itself equal to the reference.
#[test]
fn pendulums_hitting_a_wall_on_every_backend() {
    let mut scenario = shipped("pendulum_hitting_wall.toml");
    scenario.scenes = 64;
    scenario.record.trajectories = 0;
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    let impacts = col(&cpu, "impacts");
    let (x, y) = (col(&cpu, "x"), col(&cpu, "y"));
    for s in 0..impacts.len() {
        // Baumgarte (β = 0.2) holds x² + y² = L² (L = 1 in the file) to O(h²) per step.
        let drift = (x[s] * x[s] + y[s] * y[s] - 1.0).abs();
        assert!(drift < 1e-5, "scene {s}: |x² + y² − L²| = {drift:e}");
        assert!(impacts[s] >= 1.0, "scene {s} never reached the wall");
        assert!(x[s] >= -1e-3, "scene {s} passed through the wall");
    }
    // The reference: equal to 1e-12, energy included. f32: the pendulum is smooth between
    // impacts, so K steps of rounding K ε (1 + |q| + K h |v|) ≈ 1.2e-3 bound the state;
    // impacts are resolved in the same step.
    for case in engines(Some(1e-12), Some(1.2e-3)) {
        let other = case.run(&scenario);
        assert_eq!(col(&other, "impacts"), impacts, "{case}");
        case.assert_agrees(&other, &cpu, &["x", "y", "x_dot", "y_dot"]);
        if case.is_gpu() {
            assert!(col(&other, "converged").iter().all(|&c| c == 1.0));
        } else {
            case.assert_agrees(&other, &cpu, &["energy_change"]);
        }
    }
}

/// The impact oscillator (harmonic F_ext, a stop): the CPU backend equals the reference on the
/// summary and on the recorded trajectories, whose segments restart at t₀ = k h (the forcing
/// must continue, not restart), and the GPU agrees (f64 to 1e-9, f32 within the K ε bound).
#[test]
fn impact_oscillators_continue_their_forcing_across_segments_on_every_backend() {
    let mut scenario = shipped("impact_oscillator.toml");
    scenario.scenes = 16;
    scenario.time.final_time = 20.0;
    scenario.record.trajectories = 2;
    scenario.record.stride = 997;
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    assert!(col(&cpu, "impacts").iter().any(|&n| n > 0.0), "some gaps are hit");
    // The reference: equal to 1e-12, impacts and their times included. f32: K = 2·10⁴ steps
    // of rounding on |x| ≤ 3, K ε (1 + |x|) ≈ 1e-2 (measured 1e-5: the damping forgets old
    // errors).
    for case in engines(Some(1e-12), Some(1e-2)) {
        let other = case.run(&scenario);
        case.assert_agrees(&other, &cpu, &["x", "x_dot"]);
        if !case.is_gpu() {
            case.assert_agrees(&other, &cpu, &["impacts", "last_impact_time"]);
            assert_eq!(cpu.trajectories.rows(), other.trajectories.rows());
        }
        let worst = differ(&other.trajectories.values, &cpu.trajectories.values);
        assert!(worst <= case.tolerance, "{case} trajectories: {worst:e}");
    }
}

/// Discs piling up in a box (sphere–sphere gaps: a Newton loop per step, 22 contact rows):
/// the CPU backend equals the reference, the GPU f64 agrees to 1e-9 and f32 over the first
/// fall and bounces (0.4 s: a pile is chaotic, rounding differences grow once the discs rest
/// on each other), every scene converged and no disc left the box.
#[test]
fn disc_piles_on_every_backend() {
    let mut scenario = shipped("disc_pile.toml");
    scenario.scenes = 16;
    scenario.record.trajectories = 0;
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    let coordinates: Vec<String> = (0..4)
        .flat_map(|i| ["x", "z"].map(|c| format!("{c}_{i}")))
        .flat_map(|c| [format!("{c}_dot"), c])
        .collect();
    let mut columns: Vec<&str> = coordinates.iter().map(String::as_str).collect();
    columns.push("impacts");
    assert!(col(&cpu, "converged").iter().all(|&c| c == 1.0));
    for i in 0..4 {
        let (x, z) = (col(&cpu, &format!("x_{i}")), col(&cpu, &format!("z_{i}")));
        assert!(
            x.iter().all(|&x| (0.09..=0.91).contains(&x)) && z.iter().all(|&z| z >= 0.09),
            "disc {i}"
        );
    }
    // The reference: equal to 1e-12 on the whole run. The GPU: lavapipe runs this kernel
    // slowly (the Newton loop rebuilds 22×8 Jacobians), so 8 scenes for 1 s in f64, and in f32
    // 0.4 s (over the first fall and bounces) within 1.2e-3.
    for case in engines(Some(1e-12), Some(1.2e-3)) {
        let mut scenario = scenario.clone();
        if case.is_gpu() {
            scenario.scenes = 8;
            scenario.time.final_time = if case.precision == PrecisionChoice::F32 {
                0.4
            } else {
                1.0
            };
        }
        let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
        let other = case.run(&scenario);
        assert_eq!(col(&other, "impacts"), col(&cpu, "impacts"), "{case}");
        case.assert_agrees(&other, &cpu, &columns);
    }
}

fn files(scenario: &Scenario, backend: Backend, chunk: usize, shard: Shard) -> RunFiles {
    let run = run(scenario, backend, chunk, shard);
    RunFiles {
        info: RunInfo::new(scenario, shard, &run.arithmetic),
        summary: run.summary,
        trajectories: run.trajectories,
        strobe: scenario.strobe.is_some().then_some(run.strobe),
        events: scenario.events.is_some().then_some(run.events),
    }
}

/// The files of a run's directory but its pictures.
fn read_dir(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    common::files_of(dir, |p| p.extension().is_none_or(|x| x != "png"))
}

/// Same seed ⇒ byte-identical files: across runs, across chunk sizes, and between one run
/// and four shards merged.
#[test]
fn results_do_not_depend_on_chunking_or_sharding() {
    let observed = "[strobe]\nevery = 0.2\nfrom = 0.1\n[events]\nmax = 2\n[[observe]]\nname = \"lowest\"\nsignal = \"y0\"\nreduce = \"min\"\n";
    let mut scenario = Scenario::from_toml(&format!("{BALLS}{observed}")).unwrap();
    scenario.scenes = 301;
    scenario.time.final_time = 0.8;
    let all = Shard { index: 0, count: 1 };
    let tmp = std::env::temp_dir().join(format!("ricochet-shards-{}", std::process::id()));
    let one = tmp.join("one");
    files(&scenario, Backend::Cpu, 1 << 16, all).write(&one).unwrap();
    let again = tmp.join("again");
    files(&scenario, Backend::Cpu, 7, all).write(&again).unwrap();
    assert_eq!(read_dir(&one), read_dir(&again), "chunks of 7 scenes");
    let strobe = RunFiles::read(&one).unwrap().strobe.expect("strobe.csv");
    assert_eq!(strobe.rows(), 301 * 4, "samples at 0.1, 0.3, 0.5, 0.7 s");
    let parts: Vec<RunFiles> = (0..4)
        .map(|i| {
            let dir = tmp.join(format!("part{i}"));
            files(&scenario, Backend::Cpu, 50, Shard { index: i, count: 4 })
                .write(&dir)
                .unwrap();
            RunFiles::read(&dir).unwrap()
        })
        .collect();
    let merged = tmp.join("merged");
    RunFiles::merge(parts).unwrap().write(&merged).unwrap();
    assert_eq!(read_dir(&one), read_dir(&merged), "4 shards merged");
    let other_seed = Scenario {
        seed: 100,
        ..scenario.clone()
    };
    assert_ne!(
        files(&other_seed, Backend::Cpu, 1 << 16, all).summary,
        RunFiles::read(&one).unwrap().summary
    );
    // A missing shard is an error, not a short table.
    let parts: Vec<RunFiles> = (0..3)
        .map(|i| RunFiles::read(&tmp.join(format!("part{i}"))).unwrap())
        .collect();
    assert!(RunFiles::merge(parts).is_err());
    std::fs::remove_dir_all(&tmp).ok();
}

/// A table too wide for a version-1.0 `.npy` header (a 2000-ball cradle's 8000 state
/// columns failed on it after the whole run) is written as version 2.0: a 4-byte header
/// length, the header padded to 64 bytes, then the values.
#[test]
fn wide_tables_write_npy_version_two() {
    let mut table = Table::new((0..8000).map(|i| format!("q{i}")).collect());
    for r in 0..3 {
        table.push(&(0..8000).map(|c| (r * 8000 + c) as f64).collect::<Vec<_>>());
    }
    let mut bytes = Vec::new();
    table.write_npy(&mut bytes, &[]).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x02\x00");
    let len = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    assert!(len > 65_535 && (12 + len).is_multiple_of(64), "{len}");
    let header = std::str::from_utf8(&bytes[12..12 + len]).unwrap();
    assert!(header.contains("('q7999', '<f8')") && header.contains("'shape': (3,)") && header.ends_with('\n'));
    let values = &bytes[12 + len..];
    assert_eq!(values.len(), 8 * 3 * 8000);
    let last = f64::from_le_bytes(values[values.len() - 8..].try_into().unwrap());
    assert_eq!(last, (3 * 8000 - 1) as f64);
}

/// The .npy file is a structured array numpy can read: magic, header, 8 bytes per value,
/// counts and flags as integers.
#[test]
fn npy_layout() {
    let mut scenario = Scenario::from_toml(BALLS).unwrap();
    scenario.scenes = 5;
    let run = run(&scenario, Backend::Cpu, 1 << 16, Shard { index: 0, count: 1 });
    let mut bytes = Vec::new();
    run.summary.write_npy(&mut bytes, &ensemble::INTEGER_COLUMNS).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + header_len) % 64, 0);
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(header.contains("('height', '<f8')") && header.contains("'shape': (5,)"));
    assert_eq!(bytes.len() - 10 - header_len, 8 * run.summary.values.len());
    let first = f64::from_le_bytes(bytes[10 + header_len + 8..10 + header_len + 16].try_into().unwrap());
    assert_eq!(first, run.summary.row(0)[1], "row 0, column height");
    let integer = |column: &str| {
        assert!(header.contains(&format!("('{column}', '<i8')")), "{column}: {header}");
        let (row, j) = (3, run.summary.index(column).unwrap());
        let at = 10 + header_len + 8 * (row * run.summary.columns.len() + j);
        (
            i64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()),
            run.summary.row(row)[j],
        )
    };
    for column in ["scene", "impacts", "converged", "finite", "lcp_iterations"] {
        let (written, value) = integer(column);
        assert_eq!(written as f64, value, "{column}");
    }
    assert_eq!(integer("scene").0, 3);
    assert!(header.contains("('z', '<f8')"));
}

/// `ricochet verify` passes on every shipped scenario (reference vs CPU vs GPU), over their
/// first 5 s at most.
#[test]
fn shipped_scenarios_verify() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_ricochet"))
            .args(["verify", path.to_str().unwrap(), "--scenes", "4", "--max-time", "5"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        println!("{}\n{text}", path.display());
        if path.ends_with("cubic_resistor.toml") {
            // First-order: only the reference runs it, so nothing is compared (status 4).
            assert_eq!(output.status.code(), Some(4), "{text}");
            assert!(text.contains("cpu: not compared: "), "{text}");
            continue;
        }
        assert!(
            output.status.success(),
            "{}: {text}{}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        checked += 1;
    }
    assert!(checked >= 5);
}

/// Every output file is written under a temporary name and renamed into place: a finished
/// run leaves no partial file, and a run interrupted with Ctrl-C (SIGINT) while stepping leaves
/// no output file at all — never a truncated one — only its finished chunks (`.chunks`, for
/// `--resume`).
#[test]
fn outputs_are_whole_or_absent() {
    let dir = std::env::temp_dir().join(format!("ricochet-atomic-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let scenario = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/bouncing_balls.toml");
    let run = |scenes: &str, out: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ricochet"))
            .args([
                "run",
                scenario.to_str().unwrap(),
                "--backend",
                "cpu",
                "--scenes",
                scenes,
                "--out",
            ])
            .arg(out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let finished = dir.join("finished");
    assert!(run("2000", &finished).wait().unwrap().success());
    let names: Vec<String> = std::fs::read_dir(&finished)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().any(|n| n == "summary.csv"), "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with(".partial-")), "{names:?}");
    let summary = std::fs::read_to_string(finished.join("summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 2001);

    let interrupted = dir.join("interrupted");
    let mut child = run("5000000", &interrupted);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(!status.success(), "the run was interrupted");
    let left: Vec<String> = std::fs::read_dir(&interrupted)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        left.iter()
            .all(|n| n.starts_with(".partial-") || n == ".chunks" || n == ricochet::ensemble::lock::FILE),
        "outputs of an interrupted run: {left:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_scenarios_are_clear_errors() {
    let with = |from: &str, to: &str| Scenario::from_toml(&BALLS.replace(from, to)).unwrap_err().to_string();
    let e = with("radius = 0.1", "radius = 0.1\nradus = 2");
    assert!(
        e.contains("radus") && (e.contains("bouncing_ball") || e.contains("BouncingBall")),
        "{e}"
    );
    let e = with("{ uniform = [0.8, 0.95] }", "{ uniform = [0.95, 0.8] }");
    assert!(e.contains("restitution") && e.contains("a ≤ b"), "{e}");
    let e = with("{ uniform = [0.8, 0.95] }", "1.5");
    assert!(e.contains("restitution") && e.contains("1.5"), "{e}");
    let e = with("step = 1e-3", "step = -1e-3");
    assert!(e.contains("time step"), "{e}");
    let e = with("{ uniform = [1.0, 2.0] }", "{ gaussian = [1.0, 2.0] }");
    assert!(e.contains("height") || e.contains("TOML"), "{e}");
    let e = Scenario::from_toml(&BALLS.replace("bouncing_ball\"", "trampoline\""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("trampoline"), "{e}");
    let linear = r#"
name = "x"
[scene]
template = "linear"
mass = [[1.0, 0.0], [0.0, 1.0]]
h = [[1.0]]
[time]
step = 1e-3
final = 1.0
"#;
    let e = Scenario::from_toml(linear).unwrap_err().to_string();
    assert!(e.contains("`h`") || e.contains("contact rows"), "{e}");
    let e = "1/1".parse::<Shard>().unwrap_err().to_string();
    assert!(e.contains("shard"), "{e}");
    // A step longer than the run (it ran to t = h).
    let e = with("final = ", "final = 0.0005 #");
    assert!(e.contains("longer than the run"), "{e}");
}

/// A draw that makes a scene invalid (a restitution drawn above 1) stops the run before any
/// chunk is stepped, naming the lowest such scene and its drawn values, whatever the chunking.
#[test]
fn an_invalid_draw_names_its_scene_before_stepping() {
    let with_seed = |seed: u64| {
        Scenario::from_toml(
            &BALLS
                .replace("{ uniform = [0.8, 0.95] }", "{ uniform = [0.5, 1.5] }")
                .replace("seed = 99", &format!("seed = {seed}")),
        )
    };
    // Scene 0 is built when the scenario is read: where it is the invalid one, so it says.
    let (bad, good): (Vec<_>, Vec<_>) = (0..20).map(with_seed).partition(|s| s.is_err());
    let Some(Err(e)) = bad.into_iter().next() else {
        panic!("no seed of 20 draws scene 0's restitution above 1");
    };
    assert!(e.to_string().contains("scene 0 (drawn:"), "{e}");
    let Some(Ok(scenario)) = good.into_iter().next() else {
        panic!("every seed of 20 draws scene 0's restitution above 1");
    };
    let mut messages = Vec::new();
    for chunk in [7, 1 << 16] {
        let options = RunOptions {
            backend: Backend::Cpu,
            chunk: Some(chunk),
            shard: ALL,
            ..Default::default()
        };
        let progress = ensemble::Progress::new();
        let Err(e) = ensemble::run(&scenario, &options, &progress) else {
            panic!("restitutions above 1 ran");
        };
        assert_eq!(progress.scene_steps(), 0, "a chunk was stepped before the error");
        let e = e.to_string();
        assert!(e.contains("scene ") && e.contains("restitution = 1."), "{e}");
        messages.push(e);
    }
    assert_eq!(messages[0], messages[1]);
}

/// Values that overflow are not reported as healthy: a ball thrown down at 1e160 m/s has an
/// infinite energy, and its row says `finite = 0` on the reference and the CPU lanes (it
/// said 1).
#[test]
fn an_overflowing_energy_is_not_finite() {
    let scenario = Scenario::from_toml(&BALLS.replace("radius = 0.1", "radius = 0.1\nvelocity = -1e160")).unwrap();
    let mut scenario = scenario;
    scenario.scenes = 4;
    for backend in [Backend::Reference, Backend::Cpu] {
        let run = run(&scenario, backend, 4, ALL);
        assert!(col(&run, "energy_initial").iter().all(|e| e.is_infinite()));
        assert!(col(&run, "finite").iter().all(|&f| f == 0.0), "{backend:?}");
    }
}

/// A relaxation ω outside (0, 2) is refused when the scenario is read (the reference said
/// "61 scenes became NaN or infinite" with ω = −1); the batched engines, which run PGS with
/// ω = 1, refuse another ω instead of ignoring it, and `auto` runs it on the reference.
#[test]
fn relaxation_is_checked_and_never_ignored() {
    let with = |omega: &str| Scenario::from_toml(&format!("{BALLS}[solver]\nomega = {omega}\n"));
    let Err(e) = with("-1.0") else {
        panic!("omega = -1 was accepted");
    };
    assert!(e.to_string().contains("omega"), "{e}");
    let mut scenario = with("1.5").unwrap();
    scenario.scenes = 4;
    for backend in [Backend::Cpu, Backend::Gpu] {
        let options = RunOptions {
            backend,
            chunk: None,
            shard: ALL,
            ..Default::default()
        };
        let Err(e) = ensemble::run(&scenario, &options, &ensemble::Progress::new()) else {
            panic!("{backend:?} ignored omega");
        };
        assert!(e.to_string().contains("omega"), "{backend:?}: {e}");
    }
    let auto = run(&scenario, Backend::Auto, 4, ALL);
    assert!(auto.engine.contains("reference"), "{}", auto.engine);
    assert!(auto.notice.is_some_and(|n| n.contains("omega")));
}

/// `merge` refuses parts that are not shards of one run, naming the part: another scenario
/// text under the same name, seed and count (they merged before), or rows computed by another
/// engine or precision.
#[test]
fn merge_refuses_parts_that_differ() {
    let mut scenario = Scenario::from_toml(BALLS).unwrap();
    scenario.scenes = 40;
    let half = |index| Shard { index, count: 2 };
    let first = || files(&scenario, Backend::Cpu, 1 << 16, half(0));
    let merged = RunFiles::merge(vec![first(), files(&scenario, Backend::Cpu, 1 << 16, half(1))]);
    assert_eq!(merged.map(|m| m.summary.rows()).ok(), Some(40));
    let mut wider = scenario.clone();
    let text = BALLS.replace("height = { uniform = [1.0, 2.0] }", "height = { uniform = [1.0, 3.0] }");
    wider.scene = Scenario::from_toml(&text).unwrap().scene;
    let refusal = |parts: Vec<RunFiles>| match RunFiles::merge(parts) {
        Ok(_) => panic!("merged"),
        Err(e) => e.to_string(),
    };
    let e = refusal(vec![first(), files(&wider, Backend::Cpu, 1 << 16, half(1))]);
    assert!(e.contains("shard 1/2") && e.contains("another scenario"), "{e}");
    let e = refusal(vec![first(), files(&scenario, Backend::Reference, 1 << 16, half(1))]);
    assert!(e.contains("shard 1/2") && e.contains("reference f64"), "{e}");
    // Columns that differ (a part written by another version) name the part and the column.
    let mut renamed = files(&scenario, Backend::Cpu, 1 << 16, half(1));
    renamed.summary.columns[2] = "renamed".into();
    let e = refusal(vec![first(), renamed]);
    assert!(e.contains("shard 1/2") && e.contains("column 2: `renamed`"), "{e}");
}

/// A mistake inside a `[scene]` value is named with its key, its line and what was expected
/// (each of these said "data did not match any variant of untagged enum Value" with the caret
/// on the `[scene]` line).
#[test]
fn scene_value_mistakes_name_the_key_and_line() {
    let height = "height = { uniform = [1.0, 2.0] }";
    assert!(BALLS.contains(height));
    for (value, expected) in [
        ("{ unifrom = [1.0, 2.0] }", "unknown distribution `unifrom`"),
        ("{ uniform = [1.0] }", "uniform = [a, b] takes two numbers"),
        ("\"1.5\"", "is a string"),
        (
            "{ normal = { mean = 1.0, sdt = 0.1 } }",
            "`sdt` is not one of its fields",
        ),
        ("{ normal = { mean = 1.0 } }", "`std` is missing"),
        (
            "{ truncated_normal = { mean = 1.0, std = \"x\", min = 0.0, max = 2.0 } }",
            "`std` must be a number",
        ),
        (
            "{ uniform = [1.0, 2.0], choice = [1.0] }",
            "got the keys [choice, uniform]",
        ),
        ("true", "got boolean"),
        ("{ choice = [] }", "at least one number"),
    ] {
        let text = BALLS.replace(height, &format!("height = {value}"));
        let Err(e) = Scenario::from_toml(&text) else {
            panic!("{value} was accepted");
        };
        let e = e.to_string();
        assert!(
            e.contains("parameter `height`") && e.contains(expected) && e.contains("line 7"),
            "{value}: {e}"
        );
    }
    // Vectors and matrices: an entry named by its index.
    let text = BALLS.replace(height, "height = [1.0, \"2\"]");
    let Err(e) = Scenario::from_toml(&text) else {
        panic!("a string entry was accepted");
    };
    assert!(e.to_string().contains("entry 1"), "{e}");
}

/// Meaningless physics is refused when the scenario is read, naming the parameter: negative
/// sizes, a ball or bead starting inside the floor, overlapping cradle balls, beads or discs, a
/// box narrower than its discs, a disc starting in a wall (each ran silently before).
#[test]
fn meaningless_physics_is_refused() {
    for (template, parameter, name) in [
        ("bouncing_ball", "radius = -0.1", "`radius`"),
        ("bouncing_ball", "height = 0.05", "`height`"),
        ("pendulum", "length = -1.0", "`length`"),
        ("pendulum_hitting_wall", "length = 0.0", "`length`"),
        ("newtons_cradle", "gap = -0.01", "`gap`"),
        ("column_of_beads", "spacing = 0.1", "`spacing`"),
        ("column_of_beads", "height = 0.05", "`height`"),
        ("disc_pile", "width = 0.15", "`width`"),
        ("disc_pile", "x0 = 0.6", "`x0`"),
        ("disc_pile", "radius = 0.2", "overlapping"),
        ("spinning_ball", "height = 0.05", "`height`"),
        ("rocking_block", "width = 0.0", "`width`"),
        ("billiard_shot", "radius = -0.02", "radius"),
    ] {
        let text = format!(
            "name = \"x\"\n[scene]\ntemplate = \"{template}\"\n{parameter}\n[time]\nstep = 1e-3\nfinal = 0.01\n"
        );
        match Scenario::from_toml(&text) {
            Ok(_) => panic!("{template} with {parameter} was accepted"),
            Err(e) => assert!(e.to_string().contains(name), "{template}, {parameter}: {e}"),
        }
    }
}

/// The deepest penetration counts the final state: a ball whose one-step run ends with its
/// centre 0.226 m below the floor, 0.326 m deep, reports it (it reported 0: each step counts
/// only its start).
#[test]
fn max_penetration_counts_the_final_state() {
    let scenario = Scenario::from_toml(
        "name = \"x\"\nscenes = 4\nseed = 1\n[scene]\ntemplate = \"bouncing_ball\"\n[time]\nstep = 0.5\nfinal = 0.5\n",
    )
    .unwrap();
    let cpu = run(&scenario, Backend::Cpu, 4, ALL);
    let depth = 0.1 - col(&cpu, "z")[0];
    assert!(depth > 0.3, "the ball ends {depth} m inside the floor");
    for case in engines(Some(0.0), None) {
        let other = case.run(&scenario);
        assert!(
            col(&other, "max_penetration")
                .iter()
                .all(|&d| (d - depth).abs() < 1e-12),
            "{case}"
        );
    }
    assert!(col(&cpu, "max_penetration").iter().all(|&d| (d - depth).abs() < 1e-12));
}

/// The reference backend goes on past a step that missed its tolerance, as the batched
/// engines do, and flags the scene (it stopped the scene there and reported that state as
/// final): balls whose Jacobi solver may take no sweep get no impulse, fall through the floor
/// for the whole run, and are flagged not converged.
#[test]
fn the_reference_goes_on_past_an_unconverged_step() {
    let text = "name = \"x\"\nscenes = 4\nseed = 1\n[scene]\ntemplate = \"bouncing_ball\"\n\
                [time]\nstep = 1e-3\nfinal = 1.0\n[solver]\nkind = \"jacobi\"\nmax_iterations = 0\n";
    let scenario = Scenario::from_toml(text).unwrap();
    let reference = run(&scenario, Backend::Reference, 4, ALL);
    assert!(col(&reference, "converged").iter().all(|&c| c == 0.0));
    // Free fall from 1 m for 1 s (exact for Moreau–Jean under constant gravity).
    let end = 1.0 - 0.5 * 9.81;
    assert!(
        col(&reference, "z").iter().all(|&z| (z - end).abs() < 1e-9),
        "{:?}",
        col(&reference, "z")
    );
}

/// Shard and chunk arithmetic cannot overflow: the shards of usize::MAX scenes split it
/// exactly, a chunk of usize::MAX scenes runs every scene (it wrote 0 rows), and a chunk of 0
/// scenes is refused.
#[test]
fn shard_and_chunk_arithmetic_is_checked() {
    let half = Shard { index: 1, count: 2 }.range(usize::MAX);
    assert_eq!(half, usize::MAX / 2..usize::MAX);
    assert_eq!(Shard { index: 0, count: 3 }.range(usize::MAX).end, usize::MAX / 3);
    let scenario = Scenario::from_toml(BALLS).unwrap();
    let whole = run(&scenario, Backend::Cpu, 7, ALL);
    let huge = run(&scenario, Backend::Cpu, usize::MAX, ALL);
    assert_eq!(huge.summary.rows(), scenario.scenes);
    assert_eq!(huge.summary.values, whole.summary.values);
    let options = RunOptions {
        backend: Backend::Cpu,
        chunk: Some(0),
        shard: ALL,
        ..Default::default()
    };
    let Err(e) = ensemble::run(&scenario, &options, &ensemble::Progress::new()) else {
        panic!("a chunk of 0 scenes ran");
    };
    assert!(e.to_string().contains("chunk"), "{e}");
}

#[test]
fn statistics_of_a_known_column() {
    let s = ricochet::ensemble::stats::ColumnStats::of(&[4.0, 1.0, 3.0, 2.0, f64::NAN]);
    assert_eq!((s.count, s.missing, s.min, s.max), (4, 1, 1.0, 4.0));
    assert_eq!(s.mean, 2.5);
    assert!((s.std - (5.0f64 / 3.0).sqrt()).abs() < 1e-15);
    assert_eq!(s.quantiles["0.5"], 2.5);
    assert_eq!(s.quantiles["0.25"], 1.75);
    assert_eq!(s.histogram.counts.iter().sum::<usize>(), 4);
    let stats = Statistics::of(&ricochet::ensemble::Table {
        columns: vec!["scene".into(), "x".into()],
        values: vec![0.0, 1.0, 1.0, 3.0],
    });
    assert_eq!(stats.rows, 2);
    assert!(!stats.columns.contains_key("scene"));
    assert_eq!(stats.columns["x"].mean, 2.0);
}

/// Friction contacts on every engine: blocks launched up inclines (drawn α and μ) end where
/// the exact piecewise motion puts them, within one step's error (the CPU lanes, the GPU in
/// f64 and f32, the reference); the reference stepper (dense NSGS) and the lanes agree on the
/// final velocities.
#[test]
fn blocks_on_inclines_on_every_backend() {
    let mut scenario = shipped("block_on_incline.toml");
    scenario.scenes = 16;
    scenario.record.trajectories = 0;
    let h = scenario.time.step;
    let t = scenario.time.final_time;
    let check = |run: &ensemble::EnsembleRun, label: &str, slack: f64| {
        let (alpha, mu) = (col(run, "incline"), col(run, "friction"));
        let (x, y, vx, vy) = (col(run, "s"), col(run, "d"), col(run, "s_dot"), col(run, "d_dot"));
        assert!(col(run, "converged").iter().all(|&c| c == 1.0), "{label}");
        for s in 0..alpha.len() {
            let block = BlockOnIncline {
                incline: alpha[s],
                friction: mu[s],
                velocity: 2.0,
                ..Default::default()
            };
            let (s_exact, v_exact) = block.exact(t);
            // q = (s, d): along the slope and off it.
            let (along, speed) = (x[s], vx[s]);
            let g = block.gravity;
            assert!(
                (speed - v_exact).abs() <= 1.5 * g * (1.0 + mu[s]) * h + slack,
                "{label} scene {s}: v {speed} vs {v_exact}"
            );
            assert!(
                (along - s_exact).abs() <= 2.0 * (2.0 + g * t) * h + slack,
                "{label} scene {s}: s {along} vs {s_exact}"
            );
            // On the line, to the step's free fall when round-off lets the contact sit out a step.
            assert!(
                y[s].abs() <= g * h * h + slack && vy[s].abs() <= g * h + slack,
                "{label} scene {s}: off the line"
            );
        }
    };
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    check(&cpu, "CPU", 1e-12);
    for case in engines(Some(1e-9), Some(1e-4)) {
        let other = case.run(&scenario);
        check(
            &other,
            &case.to_string(),
            if case.precision == PrecisionChoice::F32 {
                1e-4
            } else {
                1e-12
            },
        );
        if case.backend == Backend::Reference {
            case.assert_agrees(&other, &cpu, &["s_dot", "d_dot"]);
        }
    }
}

/// Rocking blocks under one-sine ground pulses (drawn amplitude and frequency) on every
/// engine: the corners' rows (a planar body's point on the ground, re-evaluated at each Newton
/// iterate) give the reference's results to rounding on the CPU lanes and the GPU in f64,
/// and the same fates in f32. Housner's uplift criterion holds: a pulse below g·w/H never
/// lifts a corner (the block ends flat, to 1e-4 rad), and every block ends standing
/// (|θ| < α_b) or toppled onto a side (|θ| within 0.02 of π/2); no step leaves the cone.
#[test]
fn rocking_blocks_on_every_backend() {
    let mut scenario = shipped("rocking_block.toml");
    scenario.scenes = 16;
    scenario.record.trajectories = 0;
    scenario.time.final_time = 2.0;
    let (g, slenderness) = (9.81_f64, (0.2_f64 / 0.6).atan());
    let fates = |run: &ensemble::EnsembleRun, label: &str| -> Vec<bool> {
        let (amplitude, angle) = (col(run, "amplitude"), col(run, "theta"));
        assert!(col(run, "converged").iter().all(|&c| c == 1.0), "{label}");
        // Coulomb's cone holds exactly at every step (2-D: the slide case sets λ_T = ±μ λ_N).
        assert!(col(run, "cone_violation").iter().all(|&c| c == 0.0), "{label}: cone");
        (0..angle.len())
            .map(|s| {
                let toppled = (angle[s].abs() - std::f64::consts::FRAC_PI_2).abs() < 0.02;
                assert!(
                    toppled || angle[s].abs() < slenderness,
                    "{label} scene {s}: θ = {}",
                    angle[s]
                );
                if amplitude[s] < g * slenderness.tan() {
                    // To the velocity-level scheme's drift of a flat contact under the pulse.
                    assert!(
                        angle[s].abs() < 1e-4,
                        "{label} scene {s}: uplift below g w/H: θ = {}",
                        angle[s]
                    );
                }
                toppled
            })
            .collect()
    };
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    let toppled = fates(&cpu, "CPU");
    let count = toppled.iter().filter(|&&t| t).count();
    assert!(
        count > 0 && count < toppled.len(),
        "{count} of {} toppled",
        toppled.len()
    );
    for case in engines(Some(1e-9), Some(f64::INFINITY)) {
        let other = case.run(&scenario);
        assert_eq!(fates(&other, &case.to_string()), toppled, "{case}: fates");
        if case.precision != PrecisionChoice::F32 {
            case.assert_agrees(
                &other,
                &cpu,
                &["x", "y", "theta", "x_dot", "y_dot", "theta_dot", "impacts"],
            );
        }
    }
}

/// Rough rotating discs (`DiskDiskR` between discs, rows re-evaluated per Newton iterate) on
/// every engine: a pile of two discs dropped into the box with drawn μ gives the reference's
/// results on the CPU lanes and the GPU in f64 (rounding only) and keeps in the cone. (Longer
/// runs of bigger piles leave each other: the settling pile is chaotic and some steps meet
/// PGS's iteration limit on every engine.)
#[test]
fn rough_discs_on_every_backend() {
    let scenario = Scenario::from_toml(
        r#"
name = "rough_discs"
scenes = 8
seed = 9
[scene]
template = "disc_pile"
discs = 2
radius = 0.1
restitution = 0.5
stagger = 0.05
friction = { uniform = [0.2, 0.8] }
x0 = { uniform = [-0.1, 0.1] }
x1 = { uniform = [-0.1, 0.1] }
[time]
step = 1e-3
final = 0.4
[solver]
kind = "pgs"
max_iterations = 500
[record]
trajectories = 0
"#,
    )
    .unwrap();
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    assert!(col(&cpu, "converged").iter().all(|&c| c == 1.0));
    assert!(col(&cpu, "impacts").iter().all(|&c| c >= 1.0), "the discs land");
    let columns = [
        "x_0",
        "z_0",
        "theta_0",
        "x_1",
        "z_1",
        "theta_1",
        "x_0_dot",
        "z_0_dot",
        "theta_0_dot",
        "x_1_dot",
        "z_1_dot",
        "theta_1_dot",
    ];
    for case in engines(Some(1e-9), None) {
        let other = case.run(&scenario);
        assert!(col(&other, "cone_violation").iter().all(|&c| c == 0.0), "{case}: cone");
        case.assert_agrees(&other, &cpu, &columns);
    }
}

/// 3-D friction on every engine: spinning balls (drawn spin and speed) bounce and end rolling;
/// the lanes (each contact's block solved exactly: separation, sticking or sliding) agree with
/// the reference (NSGS with the Alart–Curnier local Newton) to rounding and the GPU with the
/// lanes.
#[test]
fn spinning_balls_on_every_backend() {
    let scenario = Scenario::from_toml(
        r#"
name = "spinning_balls"
scenes = 8
seed = 4
[scene]
template = "spinning_ball"
vx = { uniform = [0.5, 2.0] }
wy = { uniform = [-40.0, 10.0] }
friction = 0.6
[time]
step = 1e-3
final = 1.5
[solver]
kind = "pgs"
max_iterations = 1000
[record]
trajectories = 0
"#,
    )
    .unwrap();
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    assert!(col(&cpu, "converged").iter().all(|&c| c == 1.0));
    // Rolling at the end: v_x + R ω_y... the contact point does not slide (v_x − R ω_y = 0).
    let (vx, wy) = (col(&cpu, "x_dot"), col(&cpu, "phi_y_dot"));
    for s in 0..vx.len() {
        assert!(
            (vx[s] - 0.1 * wy[s]).abs() < 1e-6,
            "scene {s} rolls: {} {}",
            vx[s],
            wy[s]
        );
    }
    for case in engines(Some(1e-9), Some(1e-3)) {
        let other = case.run(&scenario);
        case.assert_agrees(
            &other,
            &cpu,
            &[
                "x_dot",
                "y_dot",
                "z_dot",
                "phi_x_dot",
                "phi_y_dot",
                "phi_z_dot",
                "x",
                "z",
            ],
        );
    }
}

/// Billiard shots (drawn speed, aim, follow and side spin) on every engine: two 3-D balls on
/// a rough table meeting through a `SphereLDSSphereLDSR`; every solve converges, the object
/// ball is hit, Coulomb's cone holds to rounding (a sliding 3-D contact's ‖λ_T‖ = μ λ_N ‖d‖
/// with its unit direction d one rounding from 1), and the reference and the GPU in f64 agree
/// with the lanes to rounding, in f32 the states within 1e-3 (its impact counts are not
/// compared: the table's activation turns on rounding).
#[test]
fn billiard_shots_on_every_backend() {
    let mut scenario = shipped("billiard_shots.toml");
    scenario.scenes = 8;
    scenario.time.final_time = 0.8;
    scenario.record.trajectories = 0;
    // Within a few roundings of the largest normal impulse in the engine's precision: the balls'
    // hit, m v (1 + e)/2 ≈ 0.33 N s.
    let in_cone = |run: &ensemble::EnsembleRun, epsilon: f64| {
        col(run, "cone_violation").iter().all(|&c| c <= 8.0 * epsilon * 0.5)
    };
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    assert!(col(&cpu, "converged").iter().all(|&c| c == 1.0));
    assert!(in_cone(&cpu, f64::EPSILON));
    assert!(
        col(&cpu, "x_object_dot").iter().all(|&v| v > 0.3),
        "the object balls are hit"
    );
    let columns = [
        "impacts",
        "x_cue",
        "y_cue",
        "x_object",
        "y_object",
        "x_cue_dot",
        "y_cue_dot",
        "phi_x_cue_dot",
        "phi_y_cue_dot",
        "phi_z_cue_dot",
        "x_object_dot",
        "y_object_dot",
    ];
    for case in engines(Some(1e-9), Some(1e-3)) {
        let other = case.run(&scenario);
        let single = case.is_gpu() && case.precision == PrecisionChoice::F32;
        let epsilon = if single { f64::from(f32::EPSILON) } else { f64::EPSILON };
        assert!(in_cone(&other, epsilon), "{case}: cone");
        case.assert_agrees(&other, &cpu, &columns[usize::from(single)..]);
    }
}

/// Woodpeckers (drawn friction and spring) on every engine: stick–slip with impacts on three
/// 2-D friction contacts; the reference and the GPU in f64 agree with the lanes to rounding,
/// in f32 the positions within 1e-3 over 10 000 steps (its velocities are another phase of
/// the stick–slip cycle by then: the sleeve's rate differs by 8 %).
#[test]
fn woodpeckers_on_every_backend() {
    let mut scenario = shipped("woodpecker.toml");
    scenario.scenes = 8;
    scenario.time.final_time = 0.2;
    scenario.record.trajectories = 0;
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    assert!(col(&cpu, "converged").iter().all(|&c| c == 1.0));
    assert!(col(&cpu, "impacts").iter().all(|&c| c >= 2.0), "every woodpecker pecks");
    for case in engines(Some(1e-9), Some(1e-3)) {
        let other = case.run(&scenario);
        assert!(col(&other, "cone_violation").iter().all(|&c| c == 0.0), "{case}: cone");
        let single = case.is_gpu() && case.precision == PrecisionChoice::F32;
        let columns: &[&str] = if single {
            &["y", "phi_M", "phi_S"]
        } else {
            &["y", "phi_M", "phi_S", "y_dot", "phi_M_dot", "phi_S_dot"]
        };
        case.assert_agrees(&other, &cpu, columns);
    }
}

/// Each engine adds every scene-step it takes to the run's progress once, within a chunk (so
/// that a watcher sees it move) and across chunks.
#[test]
fn progress_counts_every_scene_step_on_every_engine() {
    let mut scenario = Scenario::from_toml(BALLS).unwrap();
    scenario.scenes = 40;
    scenario.time.final_time = 0.7; // 700 steps: the CPU groups and the reference report mid-run.
    let expected = 40 * scenario.steps();
    let mut cases = engines(Some(0.0), Some(0.0));
    cases.insert(
        0,
        Case {
            backend: Backend::Cpu,
            precision: PrecisionChoice::Auto,
            tolerance: 0.0,
        },
    );
    for case in cases {
        for chunk in [7, 40] {
            let mut scenario = scenario.clone();
            scenario.solver.precision = case.precision;
            let options = RunOptions {
                backend: case.backend,
                chunk: Some(chunk),
                ..Default::default()
            };
            let progress = ensemble::Progress::new();
            ensemble::run(&scenario, &options, &progress).unwrap();
            assert_eq!(progress.scene_steps(), expected, "{case}, chunks of {chunk}");
        }
    }
}

/// A resumed run's finished chunks count as done but not as computed: the progress tells
/// them apart, so the rate and the time left shown are those of the computing.
#[test]
fn resumed_chunks_are_done_not_computed() {
    let mut scenario = Scenario::from_toml(BALLS).unwrap();
    scenario.scenes = 30;
    scenario.time.final_time = 0.05;
    let dir = std::env::temp_dir().join(format!("ricochet-resumed-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    let options = |resume| RunOptions {
        backend: Backend::Cpu,
        chunk: Some(10),
        checkpoints: Some(dir.clone()),
        resume,
        ..Default::default()
    };
    let fresh = ensemble::Progress::new();
    ensemble::run(&scenario, &options(false), &fresh).unwrap();
    assert_eq!((fresh.scene_steps(), fresh.resumed()), (30 * 50, 0));
    let resumed = ensemble::Progress::new();
    ensemble::run(&scenario, &options(true), &resumed).unwrap();
    assert_eq!(
        (resumed.scene_steps(), resumed.resumed()),
        (30 * 50, 30 * 50),
        "every chunk taken"
    );
    std::fs::remove_dir_all(&dir).ok();
}
