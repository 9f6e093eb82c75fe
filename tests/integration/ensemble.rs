//! Monte Carlo ensembles end to end: statistics against the exact Newton-impact solution, the
//! frictionless scenes on every engine against the CPU lanes (the harness in
//! `common/engines.rs`), health columns and progress. Friction scenes: `ensemble_friction.rs`;
//! files, shards, merges and resumes: `ensemble_files.rs`; bad scenarios: `ensemble_inputs.rs`.

use crate::common;

use common::engines::{ALL, BALLS, Case, col, differ, engines, run, shipped};
use ricochet::ensemble::scenario::PrecisionChoice;
use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Shard, Statistics};

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
    // f32: K steps of rounding, K ε (1 + |q| + K h |v|) ≈ 1.2e-3 (see tests/integration/gpu_vs_cpu.rs),
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
/// the CPU backend equals the reference, the GPU (on a pile of 2) f64 agrees to 1e-9 and f32
/// over the first fall and bounces (0.4 s: a pile is chaotic, rounding differences grow once
/// the discs rest on each other), every scene converged and no disc left the box.
#[test]
fn disc_piles_on_every_backend() {
    let mut scenario = shipped("disc_pile.toml");
    scenario.scenes = 16;
    scenario.record.trajectories = 0;
    let cpu = run(&scenario, Backend::Cpu, 1 << 16, ALL);
    let columns = |discs: usize| -> Vec<String> {
        (0..discs)
            .flat_map(|i| ["x", "z"].map(|c| format!("{c}_{i}")))
            .flat_map(|c| [format!("{c}_dot"), c])
            .chain(["impacts".to_string()])
            .collect()
    };
    assert!(col(&cpu, "converged").iter().all(|&c| c == 1.0));
    for i in 0..4 {
        let (x, z) = (col(&cpu, &format!("x_{i}")), col(&cpu, &format!("z_{i}")));
        assert!(
            x.iter().all(|&x| (0.09..=0.91).contains(&x)) && z.iter().all(|&z| z >= 0.09),
            "disc {i}"
        );
    }
    // The reference: equal to 1e-12 on the whole run. The GPU: lavapipe compiles and runs the
    // kernel of 4 discs for minutes (the Newton loop rebuilds 22×8 Jacobians), so 2 discs (a
    // sphere–sphere gap and the walls: the same code), 8 scenes for 1 s in f64, and in f32
    // 0.4 s (over the first fall and bounces) within 1.2e-3.
    for case in engines(Some(1e-12), Some(1.2e-3)) {
        let mut scenario = scenario.clone();
        let mut discs = 4;
        if case.is_gpu() {
            assert!(common::lean_for_lavapipe(&mut scenario));
            discs = 2;
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
        let columns = columns(discs);
        case.assert_agrees(&other, &cpu, &columns.iter().map(String::as_str).collect::<Vec<_>>());
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

/// Where a statistic is undefined it is NaN (`null` in JSON), as numpy's `mean` and
/// `std(ddof=1)` give it: no finite value (the last impact time of scenes that never hit),
/// or one (no spread); never −0.0, and no histogram edge without a value.
#[test]
fn statistics_of_empty_and_single_columns() {
    let none = ricochet::ensemble::stats::ColumnStats::of(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
    assert_eq!((none.count, none.missing, none.nan, none.infinite), (0, 3, 1, 2));
    assert!(none.mean.is_nan() && none.std.is_nan() && none.min.is_nan() && none.max.is_nan());
    assert!(none.quantiles.values().all(|q| q.is_nan()));
    assert!(none.histogram.edges.is_empty() && none.histogram.counts.is_empty());
    let json = serde_json::to_value(&none).unwrap();
    assert_eq!(json["std"], serde_json::Value::Null);
    assert_eq!(json["histogram"]["edges"], serde_json::json!([]));
    let one = ricochet::ensemble::stats::ColumnStats::of(&[0.25, f64::NAN]);
    assert_eq!(
        (one.count, one.missing, one.mean, one.min, one.max),
        (1, 1, 0.25, 0.25, 0.25)
    );
    assert!(one.std.is_nan());
    assert!(one.quantiles.values().all(|&q| q == 0.25));
    assert_eq!(
        (one.histogram.edges.clone(), one.histogram.counts.clone()),
        (vec![0.25, 0.25], vec![1])
    );
    let two = ricochet::ensemble::stats::ColumnStats::of(&[1.0, 2.0]);
    // numpy.std([1, 2], ddof=1) = 0.7071067811865476 = 1/√2
    assert_eq!(two.std, std::f64::consts::FRAC_1_SQRT_2);
}

/// The 95 % intervals against published values: the mean of 1…10 within x̄ ∓ t s/√n with
/// t_{0.975, 9} = 2.262157 (Student's t table); the median of 100 values between the 40th
/// and the 61st (the order-statistic table of Campbell & Gardner, BMJ 296:1454, 1988); 3
/// successes in 10 trials in Wilson's (0.1078, 0.6032) (statsmodels'
/// `proportion_confint(3, 10, method="wilson")`); and intervals that 100 values cannot give
/// (the 1 % quantile's) undefined.
#[test]
fn statistics_carry_their_confidence_intervals() {
    use ricochet::ensemble::stats::ColumnStats;
    let ten: Vec<f64> = (1..=10).map(f64::from).collect();
    let s = ColumnStats::of(&ten);
    let sem = (82.5f64 / 9.0).sqrt() / 10f64.sqrt();
    assert!((s.sem - sem).abs() < 1e-15);
    let t = (s.mean_ci95[1] - s.mean) / sem;
    assert!((t - 2.262157).abs() < 1e-6, "t = {t}");
    assert!((s.mean - s.mean_ci95[0] - t * sem).abs() < 1e-12);
    assert!(s.probability.is_none() && s.probability_ci95.is_none());
    let hundred: Vec<f64> = (1..=100).rev().map(f64::from).collect();
    let s = ColumnStats::of(&hundred);
    assert_eq!(s.quantile_ci95["0.5"], [40.0, 61.0]);
    assert!(s.quantile_ci95["0.01"].iter().all(|x| x.is_nan()));
    let mut flags = vec![0.0; 7];
    flags.extend([1.0, 1.0, 1.0, f64::NAN]);
    let s = ColumnStats::of(&flags);
    assert_eq!(s.probability, Some(0.3));
    let [lo, hi] = s.probability_ci95.unwrap();
    assert!((lo - 0.1078).abs() < 5e-5 && (hi - 0.6032).abs() < 5e-5, "{lo} {hi}");
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["probability"], 0.3);
    // None of 500 and all of 500: the interval ends at exactly 0 and 1, the other end at
    // z² / (n + z²) from it (0.007624 at n = 500).
    let [lo, hi] = ColumnStats::of(&[0.0; 500]).probability_ci95.unwrap();
    assert!(lo == 0.0 && (hi - 0.007624).abs() < 5e-7, "{lo} {hi}");
    let [lo, hi] = ColumnStats::of(&[1.0; 500]).probability_ci95.unwrap();
    assert!(hi == 1.0 && (lo - 0.992376).abs() < 5e-7, "{lo} {hi}");
    let one = serde_json::to_value(ColumnStats::of(&[2.0])).unwrap();
    assert_eq!(one["mean_ci95"], serde_json::json!([null, null]));
    assert!(one.get("probability").is_none());
}

/// A column of few whole numbers (a count, a flag) is binned on its values, one unit bin per
/// whole number from min to max, as `histograms.png` draws it; fractional values, wide
/// ranges and too many distinct values keep 20 equal bins.
#[test]
fn whole_number_columns_are_binned_on_their_values() {
    use ricochet::ensemble::stats::{BINS, ColumnStats, MAX_WHOLE_VALUES};
    let counts = ColumnStats::of(&[3.0, 0.0, 1.0, f64::NAN, 3.0, 1.0, 3.0]).histogram;
    assert_eq!(counts.edges, [-0.5, 0.5, 1.5, 2.5, 3.5]);
    assert_eq!(counts.counts, [1, 2, 0, 3]);
    let flag = ColumnStats::of(&[1.0; 5]).histogram;
    assert_eq!((flag.edges, flag.counts), (vec![0.5, 1.5], vec![5]));
    let many: Vec<f64> = (0..=MAX_WHOLE_VALUES).map(|k| k as f64).collect();
    let wide = [0.0, 2.0 * MAX_WHOLE_VALUES as f64 + 1.0];
    for other in [&[0.0, 0.5, 2.0][..], &wide, &many] {
        let h = ColumnStats::of(other).histogram;
        assert_eq!((h.edges.len(), h.counts.len()), (BINS + 1, BINS), "{other:?}");
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
