//! Jacobi with mass splitting (`large_scene::jacobi`): its sweeps are the split Jacobi
//! iteration on the assembled problem, it reaches the coloured NSGS's velocities, holds a
//! pyramid still with the floor carrying its weight, loses energy at e = 0, keeps to the cone,
//! and gives the same bits on any number of threads.

use crate::common;

use nalgebra::DVector;
use ricochet::large_scene::{CpuSolver, Dimension, JacobiSolver, LargeScene, StepReport};

use common::large::*;

/// A pour in a box with `law(e, mu)`, `steps` steps solved by Jacobi to 10⁻¹⁰ on `threads`
/// threads; each step's report and total energy after it.
fn jacobi_pour(d: Dimension, threads: usize, steps: usize, mu: f64) -> (LargeScene, Vec<(f64, StepReport)>) {
    let size = if d == Dimension::Two { (30, 10) } else { (7, 5) };
    let mut scene = pour_in_box(d, size, 3, law(0.0, mu, d));
    scene.solver.tolerance = 1e-10;
    scene.solver.max_sweeps = 5000;
    let reports = steps_in_pool(&mut scene, threads, steps, &mut JacobiSolver::default());
    (scene, reports)
}

/// From r = 0 (no warm start), the engine's Jacobi sweeps give the impulses of the split
/// Jacobi iteration on the assembled W and W̃ (written independently, `common::large`) to
/// 1e-12 of the largest, after the same number of sweeps.
#[test]
fn jacobi_is_split_jacobi_on_the_assembled_problem() {
    for (d, mu) in [(Dimension::Two, 0.4), (Dimension::Three, 0.4), (Dimension::Three, 0.0)] {
        let size = if d == Dimension::Two { (8, 5) } else { (4, 3) };
        let mut scene = pour_in_box(d, size, 5, law(0.0, mu, d));
        scene.solver.warm_start = false;
        scene.solver.tolerance = 1e-9;
        scene.solver.max_sweeps = 5000;
        let mut solver = JacobiSolver::default();
        for _ in 0..60 {
            scene.step_on(&mut solver).unwrap();
        }
        let before = scene.clone();
        let report = scene.step_on(&mut solver).unwrap();
        let g = scene.gravity;
        let v_free: Vec<[f64; 3]> = before
            .bodies
            .v
            .iter()
            .map(|v| std::array::from_fn(|k| v[k] + scene.h * g[k]))
            .collect();
        let (w, q, mus) = assembled(&scene, &v_free, &before.bodies.omega);
        assert!(
            mus.len() >= 8 && report.sweeps > 2 && report.converged,
            "{d:?}: a problem that tests little: {report:?}"
        );
        let rows = d.rows();
        let dense = assembled_split_jacobi(rows, (&w, &split_blocks(&scene)), &q, &mus, report.sweeps);
        let engine = DVector::from_vec(
            scene
                .contacts()
                .iter()
                .filter(|c| c.active)
                .flat_map(|c| c.r[..rows].to_vec())
                .collect(),
        );
        let scale = engine.amax();
        assert!(
            (&engine - &dense).amax() <= 1e-12 * scale,
            "{d:?}: engine vs assembled split Jacobi differ by {:e} (max r {scale:e}) after {} sweeps",
            (&engine - &dense).amax(),
            report.sweeps
        );
    }
}

/// Jacobi and the coloured NSGS, each to 10⁻¹⁰ from the same state of a frictionless pour,
/// give the same velocities (the frictionless problem's velocity is unique) to 10⁻⁷ of the
/// fastest body; Jacobi takes more sweeps (printed).
#[test]
fn jacobi_reaches_the_nsgs_velocities() {
    for d in [Dimension::Two, Dimension::Three] {
        let (scene, _) = jacobi_pour(d, 2, 80, 0.0);
        let (mut nsgs, mut jacobi) = (scene.clone(), scene);
        let a = nsgs.step_on(&mut CpuSolver::default()).unwrap();
        let b = jacobi.step_on(&mut JacobiSolver::default()).unwrap();
        assert!(a.converged && b.converged && a.active > 100, "{d:?}: {a:?} {b:?}");
        let fastest = nsgs.bodies.v.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
        let difference = (nsgs.bodies.v.iter().flatten())
            .zip(jacobi.bodies.v.iter().flatten())
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        assert!(
            difference <= 1e-7 * fastest,
            "{d:?}: velocities differ by {difference:e} (fastest {fastest:e})"
        );
        eprintln!(
            "{d:?}: {} contacts, NSGS {} sweeps, Jacobi {} sweeps",
            a.active, a.sweeps, b.sweeps
        );
    }
}

/// The pyramid of 105 discs (μ = 0.5, e = 0) solved by Jacobi stands still (drift < 10⁻⁶ m
/// over 2000 steps) and the walls' impulses sum to the weight M g h at every step.
#[test]
fn jacobi_holds_the_pyramid_and_the_floor_carries_its_weight() {
    let mut scene = resting_pyramid();
    let (start, weight, h) = (scene.bodies.x.clone(), scene.bodies.total_mass() * G, scene.h);
    scene.solver.max_sweeps = 20_000;
    let mut solver = JacobiSolver::default();
    let (steps, mut sweeps) = (2000, 0);
    for _ in 0..steps {
        let report = scene.step_on(&mut solver).unwrap();
        assert!(report.converged, "{report:?}");
        sweeps += report.sweeps;
        let load = wall_impulse(&scene);
        assert!(
            (load[1] - weight * h).abs() <= 1e-8 * weight * h && load[0].abs() <= 1e-8 * weight * h,
            "floor load {load:?} against the weight {}",
            weight * h
        );
    }
    let drift = (scene.bodies.x.iter().zip(&start))
        .map(|(x, y)| (x[0] - y[0]).hypot(x[1] - y[1]))
        .fold(0.0, f64::max);
    assert!(drift < 1e-6, "the pyramid drifted {drift:e} m in {steps} steps");
    eprintln!("pyramid by Jacobi: drift {drift:e} m, {sweeps} sweeps in {steps} steps");
}

/// A Jacobi pour at e = 0 never gains energy (up to the tolerance), keeps every impulse in
/// its cone (frictionless: no tangential impulse), and gives the same bits on 1 and 3
/// threads.
#[test]
fn jacobi_pours_lose_energy_and_give_the_same_bits_on_any_thread_count() {
    for d in [Dimension::Two, Dimension::Three] {
        for mu in [0.0, 0.4] {
            let (one, reports) = jacobi_pour(d, 1, 100, mu);
            let start = reports[0].0;
            for (k, pair) in reports.windows(2).enumerate() {
                assert!(
                    pair[1].0 <= pair[0].0 + 1e-9 * start.abs(),
                    "{d:?} μ = {mu}: E rose at step {}: {} → {}",
                    k + 1,
                    pair[0].0,
                    pair[1].0
                );
            }
            let last = reports.last().unwrap().1;
            assert!(last.active > 100, "{d:?}: a pour that tests little: {last:?}");
            for c in one.contacts().iter().filter(|c| c.active) {
                let tangent = c.r[1].hypot(c.r[2]);
                assert!(
                    c.r[0] >= 0.0 && tangent <= mu * c.r[0] * (1.0 + 1e-12),
                    "{d:?} μ = {mu}: {c:?}"
                );
            }
            if mu > 0.0 {
                let (three, _) = jacobi_pour(d, 3, 100, mu);
                assert_eq!(state_bits(&one), state_bits(&three), "{d:?}");
            }
        }
    }
}

/// Jacobi on the device (`GpuSolver::jacobi`) is its CPU twin: in f64, the same reports and
/// state bits in 2-D on lavapipe (each body gathers its increments in contact order, as the
/// twin applies them) and within 10⁻⁷ m in 3-D after 150 steps of a bouncing pour; in f32 at
/// 10⁻⁴, within 10⁻⁷ m.
#[cfg(feature = "gpu")]
#[test]
fn gpu_jacobi_is_the_cpu_twin() {
    use ricochet::batch::gpu::Precision;
    use ricochet::large_scene::GpuSolver;
    let Some(ctx) = common::gpu() else { return };
    for d in [Dimension::Two, Dimension::Three] {
        let (twin, twin_reports) = pour_on(d, 150, 0.5, 1e-8, &mut JacobiSolver::default());
        let last = twin_reports.last().unwrap();
        assert!(
            last.active > 100 && last.sweeps > 2,
            "{d:?}: a pour that tests little: {last:?}"
        );
        if ctx.supports_f64() {
            let mut gpu = GpuSolver::jacobi(ctx, Precision::F64).unwrap();
            let (kernel, reports) = pour_on(d, 150, 0.5, 1e-8, &mut gpu);
            // Bit for bit on lavapipe; another adapter's compiler may contract or reorder.
            if d == Dimension::Two && ctx.is_cpu() {
                assert_eq!(reports, twin_reports, "{d:?}: f64 reports");
                assert_eq!(state_bits(&kernel), state_bits(&twin), "{d:?}: f64 state");
            } else {
                // The same bits for 50 steps here, then an ulp of the 3-D local solve
                // (as for NSGS) grows in this bouncing pour: 1.4·10⁻⁸ m at step 150.
                let worst = largest_difference(&kernel, &twin);
                assert!(worst < 1e-7, "{d:?}: f64 moved {worst:e} m from the twin");
            }
        }
        let mut gpu = GpuSolver::jacobi(ctx, Precision::F32).unwrap();
        let (single, _) = pour_on(d, 60, 0.5, 1e-4, &mut gpu);
        let (double, _) = pour_on(d, 60, 0.5, 1e-4, &mut JacobiSolver::default());
        let worst = largest_difference(&single, &double);
        assert!(worst < 1e-7, "{d:?}: f32 moved {worst:e} m from the twin");
    }
}
