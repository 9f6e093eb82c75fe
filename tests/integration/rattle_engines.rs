//! Nonsmooth RATTLE on the batched engines against the reference stepper (T9) —
//! pendulums, pendulums hitting a wall, balls, dumbbells and forced, damped impact
//! oscillators — and the physics the batched step must keep on its own: the rod's length and
//! the wall held at round-off without stabilisation, no penetration; the f32 twin within the
//! rounding bound; what it refuses.

use crate::common;

use ricochet::batch::cpu::moreau_jean_pgs::{self, BatchState};
use ricochet::batch::{BatchOptions, LinearScene, SceneBatch};
use ricochet::ensemble::scenario::StabilizationChoice;
use ricochet::ensemble::{self, Backend, Scenario};
use ricochet::model::{LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactFrictionNSL, NewtonImpactNSL, Nsds};
use ricochet::numerics::SolverKind;
use ricochet::scheme::{LagrangianIntegrator, Stabilization};

/// The shipped scenario `file` under RATTLE, solved by PGS, `scenes` scenes up to `t_final`.
fn rattle(file: &str, scenes: usize, t_final: f64) -> Scenario {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(file);
    let mut scenario = Scenario::load(path).unwrap();
    scenario.scenes = scenes;
    scenario.time.integrator = LagrangianIntegrator::Rattle;
    scenario.time.final_time = scenario.time.final_time.min(t_final);
    scenario.solver.kind = SolverKind::Pgs;
    scenario.record.trajectories = 0;
    scenario
}

use common::engines::col;

/// `scenario` on `backend` as it is (its precision included).
fn run(scenario: &Scenario, backend: Backend) -> ensemble::EnsembleRun {
    common::engines::run(scenario, backend, 1 << 16, common::engines::ALL)
}

/// The CPU lanes equal the reference stepper (Lemke's exact pivots there, PGS to 1e-12 and
/// the chord iteration here) to 1e-9 relative on every summary column, impacts equal.
#[test]
fn batched_rattle_equals_the_reference() {
    for (file, t_final) in [
        ("pendulum.toml", 2.0),
        ("pendulum_hitting_wall.toml", 3.0),
        ("bouncing_balls.toml", 3.0),
        ("dumbbell.toml", 2.0),
        ("impact_oscillator.toml", 10.0),
    ] {
        let scenario = rattle(file, 6, t_final);
        let cpu = run(&scenario, Backend::Cpu);
        let mut reference_scenario = scenario.clone();
        reference_scenario.solver.kind = SolverKind::Lemke;
        let reference = run(&reference_scenario, Backend::Reference);
        assert_eq!(cpu.summary.columns, reference.summary.columns);
        let mut worst = 0.0f64;
        for (j, name) in cpu.summary.columns.iter().enumerate() {
            if name.starts_with("lcp_") {
                continue;
            }
            for s in 0..scenario.scenes {
                let (a, b) = (cpu.summary.row(s)[j], reference.summary.row(s)[j]);
                let gap = (a - b).abs() / (1.0 + b.abs());
                assert!(
                    (a.is_nan() && b.is_nan()) || gap <= 1e-9,
                    "{file} scene {s} column {name}: {a} vs {b}"
                );
                if a.is_finite() {
                    worst = worst.max(gap);
                }
            }
        }
        assert!(col(&cpu, "converged").iter().all(|&c| c == 1.0), "{file}");
        assert!(col(&cpu, "impacts").iter().sum::<f64>() > 0.0 || file == "pendulum.toml");
        println!("{file}: CPU lanes vs reference, worst relative deviation {worst:.2e}");
    }
}

/// The GPU kernel (the CPU lanes' twin) where there is an adapter: in f64 the summaries of the
/// CPU lanes to 1e-9 relative (bit for bit on lavapipe: `gpu_vs_cpu.rs`); in f32 the state
/// within K steps of rounding, K ε (1 + |q| + K h |v|) with K = 2000, |q| ≤ 3, |v| ≤ 8 (≈ 2e-3),
/// the same impact counts, every scene converged, and (T4) the pendulum's rod held to 1e-5.
#[cfg(feature = "gpu")]
#[test]
fn gpu_rattle_agrees_with_the_cpu_lanes() {
    use ricochet::ensemble::scenario::PrecisionChoice;
    if common::gpu().is_none() {
        return;
    }
    let rounding = 2000.0 * 6e-8 * (1.0 + 3.0 + 2000.0 * 1e-3 * 8.0);
    for file in [
        "pendulum.toml",
        "pendulum_hitting_wall.toml",
        "bouncing_balls.toml",
        "dumbbell.toml",
        "impact_oscillator.toml",
    ] {
        let mut scenario = rattle(file, 16, 2.0);
        let cpu = run(&scenario, Backend::Cpu);
        for (precision, tolerance) in [(PrecisionChoice::F64, 1e-9), (PrecisionChoice::F32, rounding)] {
            scenario.solver.precision = precision;
            let gpu = run(&scenario, Backend::Gpu);
            assert!(gpu.engine.starts_with("gpu"), "{}", gpu.engine);
            assert_eq!(col(&gpu, "impacts"), col(&cpu, "impacts"), "{file} {precision:?}");
            assert!(col(&gpu, "converged").iter().all(|&c| c == 1.0), "{file} {precision:?}");
            let mut worst = 0.0f64;
            for name in cpu
                .summary
                .columns
                .iter()
                .filter(|c| c.ends_with("_dot") || matches!(c.as_str(), "x" | "y" | "z" | "z_0" | "z_1" | "theta"))
            {
                for (a, b) in col(&gpu, name).iter().zip(col(&cpu, name)) {
                    let gap = (a - b).abs()
                        / if precision == PrecisionChoice::F64 {
                            1.0 + b.abs()
                        } else {
                            1.0
                        };
                    worst = worst.max(gap);
                    assert!(gap <= tolerance, "{file} {precision:?} {name}: {a} vs {b}");
                }
            }
            if file == "pendulum_hitting_wall.toml" {
                // T4 in f32: the rod held to 1e-5 relative (L = 1).
                for (x, y) in col(&gpu, "x").iter().zip(col(&gpu, "y")) {
                    assert!(
                        (x * x + y * y - 1.0).abs() <= 1e-5,
                        "{precision:?}: rod {}",
                        x * x + y * y
                    );
                }
            }
            println!("{file}: GPU {precision:?} vs CPU lanes, worst deviation {worst:.2e} (tolerance {tolerance:.1e})");
        }
    }
}

/// Without any stabilisation the batched step holds the rod (|x² + y² − L²| at round-off)
/// and the wall (x ≥ −1e-14), and every pendulum hits the wall; the dumbbell's rod keeps its
/// length to round-off and the balls never sink.
#[test]
fn batched_rattle_holds_the_constraints() {
    let mut scenario = rattle("pendulum_hitting_wall.toml", 32, 3.0);
    scenario.time.stabilization = StabilizationChoice::None;
    let cpu = run(&scenario, Backend::Cpu);
    let (x, y, impacts) = (col(&cpu, "x"), col(&cpu, "y"), col(&cpu, "impacts"));
    for s in 0..x.len() {
        let drift = (x[s] * x[s] + y[s] * y[s] - 1.0).abs();
        assert!(drift <= 1e-12, "scene {s}: |x² + y² − L²| = {drift:e}");
        assert!(x[s] >= -1e-14, "scene {s}: x = {}", x[s]);
        assert!(impacts[s] >= 1.0, "scene {s} never reached the wall");
    }
    let penetration = col(&cpu, "max_penetration").into_iter().fold(f64::MIN, f64::max);
    assert!(penetration <= 1e-13, "deepest penetration {penetration:e}");

    let mut dumbbells = rattle("dumbbell.toml", 32, 2.0);
    dumbbells.time.stabilization = StabilizationChoice::None;
    let cpu = run(&dumbbells, Backend::Cpu);
    let (z0, z1) = (col(&cpu, "z_0"), col(&cpu, "z_1"));
    for s in 0..z0.len() {
        assert!((z1[s] - z0[s] - 0.5).abs() <= 1e-12, "scene {s}: rod {}", z1[s] - z0[s]);
    }
    let penetration = col(&cpu, "max_penetration").into_iter().fold(f64::MIN, f64::max);
    assert!(penetration <= 1e-13, "deepest penetration {penetration:e}");
    println!("rod and wall held; deepest penetration {penetration:e}");
}

/// The CPU twin in f32 against itself in f64 on pendulums hitting the wall: the smooth
/// swing's rounding grows as K ε (1 + |q| + K h |v|) (K = 1500 steps, |q| ≤ 1 m, |v| ≤ 5 m/s:
/// ≈ 7e-4), impacts fall in the same step, and the rod is held to the f32 position tolerance
/// (1e-5) plus rounding at every scene.
#[test]
fn f32_twin_is_within_rounding() {
    let scenario = rattle("pendulum_hitting_wall.toml", 16, 1.5);
    let steps = 1500;
    let mut batch = SceneBatch::rattle(scenario.time.step).unwrap();
    for s in 0..scenario.scenes {
        let scene = scenario.sample(s).unwrap().scene;
        scene.push_to(&mut batch, Stabilization::None).unwrap();
    }
    let mut f64_state = BatchState::<f64>::new(&batch);
    moreau_jean_pgs::run(
        &batch,
        &batch.operators,
        &mut f64_state,
        steps,
        &BatchOptions::for_precision(true),
    );
    let operators: Vec<f32> = batch.operators.iter().map(|&x| x as f32).collect();
    let mut f32_state = BatchState::<f32>::new(&batch);
    moreau_jean_pgs::run(
        &batch,
        &operators,
        &mut f32_state,
        steps,
        &BatchOptions::for_precision(false),
    );
    let bound = f64::from(steps) * 6e-8 * (1.0 + 1.0 + f64::from(steps) * scenario.time.step * 5.0);
    let mut worst = 0.0f64;
    for s in 0..batch.len() {
        let o = batch.headers[s].state_offset as usize;
        for i in 0..4 {
            let gap = (f64::from(f32_state.state[o + i]) - f64_state.state[o + i]).abs();
            worst = worst.max(gap);
            assert!(gap <= bound, "scene {s} value {i}: |Δ| = {gap:e} > {bound:e}");
        }
        let (x, y) = (f64::from(f32_state.state[o]), f64::from(f32_state.state[o + 1]));
        assert!((x * x + y * y - 1.0).abs() <= 2e-5, "scene {s}: rod {}", x * x + y * y);
        assert_eq!(
            f32_state.counters[s].impacts, f64_state.counters[s].impacts,
            "scene {s}"
        );
        assert!(f32_state.counters[s].healthy() && f64_state.counters[s].healthy());
    }
    println!("f32 twin vs f64: max |Δ| {worst:e} (bound {bound:e})");
}

/// A ball over a floor: its batch operators under RATTLE.
fn ball(stiffness: f64, friction: bool) -> Nsds {
    let ds = LagrangianLinearTIDS::new(
        nalgebra::dvector![1.0],
        nalgebra::dvector![0.0],
        nalgebra::DMatrix::from_element(1, 1, 1.0),
    )
    .unwrap()
    .with_stiffness(nalgebra::DMatrix::from_element(1, 1, stiffness))
    .unwrap();
    let mut nsds = Nsds::new();
    let id = nsds.add("ball", ds);
    if friction {
        let rows = nalgebra::DMatrix::from_row_slice(2, 1, &[1.0, 0.0]);
        let law = NewtonImpactFrictionNSL::new(0.5, 0.0, 0.3, 2).unwrap();
        nsds.link("floor", law, LagrangianLinearTIR::new(rows).unwrap(), &[id])
            .unwrap();
    } else {
        let rows = nalgebra::DMatrix::from_element(1, 1, 1.0);
        let law = NewtonImpactNSL::new(0.5).unwrap();
        nsds.link("floor", law, LagrangianLinearTIR::new(rows).unwrap(), &[id])
            .unwrap();
    }
    nsds
}

/// The batched reduction refuses a step beyond RATTLE's stability bound with the numbers, and
/// friction (not in RATTLE yet), naming the interaction.
#[test]
fn batched_rattle_refuses_what_it_cannot_step() {
    let err = LinearScene::from_nsds_rattle(&ball(1e8, false), 1e-3)
        .unwrap_err()
        .to_string();
    assert!(err.contains("h ω_max") && err.contains("1.000000e4"), "{err}");
    assert!(LinearScene::from_nsds_rattle(&ball(1e4, false), 1e-3).is_ok());
    let err = LinearScene::from_nsds_rattle(&ball(0.0, true), 1e-3)
        .unwrap_err()
        .to_string();
    assert!(err.contains("`floor`") && err.contains("friction"), "{err}");
    // A Moreau–Jean scene in a RATTLE batch (and the converse) is refused.
    let mut batch = SceneBatch::rattle(1e-3).unwrap();
    let mj = LinearScene::from_nsds(&ball(0.0, false), 1e-3, 0.5, Stabilization::None).unwrap();
    assert!(batch.push(&mj).is_err());
}

/// T7c: 64 elastic balls (e = 1) dropped from random heights (0.4–1.9 m gaps) lose energy only
/// at the impact, m g y_n where y_n ∈ (0, h |v_n| + g h²/2] is the gap at the start of the
/// impact step: a first-order loss, m g h |v| / 2 on average over the phases, which halves
/// when h halves. (Over the first impact only: the phases of later impacts are not
/// independent of the first — after the projection the ball leaves the floor at a grid time,
/// and the second impact then loses almost nothing while the third loses about as much at
/// h = 1e-3 as at 2e-3; a 20-line model of the discrete map shows the same, so "the mean
/// over all impacts halves" does not hold over a few bounces. See the issue-15 note.)
#[test]
fn elastic_impact_loss_is_first_order_in_h() {
    let scenario = |h: f64| {
        Scenario::from_toml(&format!(
            r#"
name = "elastic"
scenes = 64
seed = 8
[scene]
template = "bouncing_ball"
height = {{ uniform = [0.5, 2.0] }}
restitution = 1.0
[time]
step = {h}
final = 0.8
integrator = "rattle"
"#
        ))
        .unwrap()
    };
    let loss = |h: f64| {
        let cpu = run(&scenario(h), Backend::Cpu);
        let (change, impacts) = (col(&cpu, "energy_change"), col(&cpu, "impacts"));
        assert!(impacts.iter().all(|&k| k == 1.0), "one impact each before t = 0.8 s");
        assert!(change.iter().all(|&c| c <= 1e-12), "an elastic ball gained energy");
        -change.iter().sum::<f64>() / 64.0
    };
    let (coarse, medium, fine) = (loss(2e-3), loss(1e-3), loss(5e-4));
    println!("mean loss at the first impact: {coarse:.4e} / {medium:.4e} / {fine:.4e} J at h = 2e-3 / 1e-3 / 5e-4");
    for ratio in [coarse / medium, medium / fine] {
        assert!((1.7..=2.3).contains(&ratio), "ratio {ratio}");
    }
    // m g h E|v| / 2 with E|v| = E√(2 g d), d uniform on [0.4, 1.9]: within the phases' spread.
    let mean_speed = (2.0 * 9.81f64).sqrt() * (2.0 / 3.0) * (1.9f64.powf(1.5) - 0.4f64.powf(1.5)) / 1.5;
    let expected = 9.81 * 1e-3 * mean_speed / 2.0;
    assert!((medium / expected - 1.0).abs() <= 0.3, "{medium} vs {expected}");
}

/// A stage 1 that misses its position tolerance within its passes flags the scene (the
/// summary's `converged` column): a pendulum's quadratic rod takes about two chord passes, so
/// a budget of one flags every scene, and the default budget none.
#[test]
fn an_unconverged_stage_one_flags_the_scene() {
    let scenario = rattle("pendulum.toml", 8, 0.1);
    let mut batch = SceneBatch::rattle(scenario.time.step).unwrap();
    for s in 0..scenario.scenes {
        let scene = scenario.sample(s).unwrap().scene;
        scene.push_to(&mut batch, Stabilization::None).unwrap();
    }
    for (passes, healthy) in [(1, false), (50, true)] {
        let options = BatchOptions {
            newton_max_iterations: passes,
            ..BatchOptions::for_precision(true)
        };
        let mut state = BatchState::<f64>::new(&batch);
        moreau_jean_pgs::run(&batch, &batch.operators, &mut state, 100, &options);
        for (s, c) in state.counters.iter().enumerate() {
            assert_eq!(c.healthy(), healthy, "scene {s} with {passes} passes: {c:?}");
        }
    }
}
