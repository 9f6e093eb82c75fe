//! Coulomb-friction ensembles on every engine (blocks on inclines, rocking blocks, rough
//! discs, spinning balls, billiard shots, woodpeckers): the CPU lanes against the reference
//! stepper and the GPU kernel in f64 and f32, and against the physics each scene must show.

use crate::common;

use common::engines::{ALL, col, engines, run, shipped};
use ricochet::ensemble::scenario::PrecisionChoice;
use ricochet::ensemble::{self, Backend, Scenario};
use ricochet::scenes::block_on_incline::BlockOnIncline;

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
    // The scenario's answer, the mean of ẏ (trapezoids), is the sleeve's drop over the run:
    // θ = ½ moves y by h (ẏ_k + ẏ_{k+1})/2 a step, from y = 0.
    for (rate, y) in col(&cpu, "descent_velocity").iter().zip(col(&cpu, "y")) {
        assert!(
            *rate < 0.0 && (rate * 0.2 - y).abs() <= 1e-12,
            "{rate} × 0.2 s vs y = {y}"
        );
    }
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
