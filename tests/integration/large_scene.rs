//! The large-scene engine (one scene, contacts solved in parallel): its broad phase against
//! brute force, its colouring, its sweep against an assembled-W NSGS and Siconos's problem
//! error, thread-count invariance, and the physics of piles (rest, floor load = weight,
//! energy, cone, frictionless).

use crate::common;

use nalgebra::DVector;
use ricochet::large_scene::broad_phase::{Pair, candidate_pairs, gap};
use ricochet::large_scene::colouring::{COLOURS, greedy};
use ricochet::large_scene::{Bodies, Dimension, LargeScene, Wall};
use ricochet::numerics::friction::FrictionContactProblem;

use common::large::*;

#[test]
fn broad_phase_equals_brute_force() {
    for d in [Dimension::Two, Dimension::Three] {
        let bodies = scattered(d, 1500, 1.0, if d == Dimension::Two { 0.02 } else { 0.06 }, 7);
        let walls = open_box(d, 1.0, law(0.0, 0.5, d));
        let margin = 0.004;
        let pairs = candidate_pairs(&bodies, &walls, margin).unwrap();
        let n = bodies.len();
        let mut brute = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if gap(&bodies, i, j) <= margin {
                    brute.push(Pair {
                        i: i as u32,
                        j: j as u32,
                    });
                }
            }
            for (w, wall) in walls.iter().enumerate() {
                if wall.shape.contact(bodies.x[i], bodies.radius[i]).unwrap().0 <= margin {
                    brute.push(Pair {
                        i: i as u32,
                        j: (n + w) as u32,
                    });
                }
            }
        }
        assert!(
            brute.len() > n / 2,
            "{d:?}: a test with too few pairs ({})",
            brute.len()
        );
        assert_eq!(pairs, brute, "{d:?}");
        assert!(
            pairs.windows(2).all(|p| p[0].key() < p[1].key()),
            "{d:?}: sorted by key"
        );
    }
}

/// The device's broad phase (a counting sort on hashed cells) lists the CPU's pairs in the
/// CPU's order in f64 — discs among planes and a hopper's segments (ends owned by one of
/// two), spheres in a box, both through a period, with bodies no longer present, and a
/// margin wide enough for the pair list to outgrow its first buffer; in f32 it lists them
/// all, and no pair farther than its rounding allows.
#[cfg(feature = "gpu")]
#[test]
fn device_broad_phase_is_the_cpu_one() {
    use ricochet::batch::gpu::Precision;
    use ricochet::large_scene::gpu::GpuBroadPhase;
    let Some(ctx) = common::gpu() else { return };
    let precisions: &[Precision] = if ctx.supports_f64() {
        &[Precision::F64, Precision::F32]
    } else {
        &[Precision::F32]
    };
    for &precision in precisions {
        let mut device = GpuBroadPhase::new(ctx, precision).unwrap();
        for d in [Dimension::Two, Dimension::Three] {
            for (periodic, margin) in [(false, 0.004), (true, 0.004), (false, 0.05)] {
                let what = format!("{precision:?} {d:?} periodic {periodic} margin {margin}");
                let r = if d == Dimension::Two { 0.02 } else { 0.06 };
                let mut bodies = scattered(d, 1500, 1.0, r, 21);
                for k in (0..bodies.len()).step_by(7) {
                    bodies.present[k] = false;
                }
                let mut walls = Vec::new();
                if periodic {
                    bodies.period = Some(1.0);
                } else {
                    walls = open_box(d, 1.0, law(0.0, 0.5, d));
                    if d == Dimension::Two {
                        let hopper = [[0.1, 0.7], [0.45, 0.4], [0.5, 0.4], [0.55, 0.4], [0.9, 0.7]];
                        walls.extend(Wall::polyline(&hopper, law(0.0, 0.3, d)).unwrap());
                    }
                }
                let cpu = candidate_pairs(&bodies, &walls, margin).unwrap();
                let pairs = device.pairs(&bodies, &walls, margin).unwrap();
                assert!(cpu.len() > bodies.len() / 2, "{what}: too few pairs ({})", cpu.len());
                if margin > 0.01 && d == Dimension::Two {
                    // (the device's first pair buffer holds 8 per body)
                    assert!(cpu.len() > 8 * bodies.len(), "{what}: the pair list does not grow");
                }
                if precision == Precision::F64 {
                    assert_eq!(pairs, cpu, "{what}");
                    continue;
                }
                assert!(pairs.windows(2).all(|p| p[0].key() < p[1].key()), "{what}: sorted");
                assert!(
                    cpu.iter().all(|p| pairs.binary_search(p).is_ok()),
                    "{what}: a pair missed"
                );
                let n = bodies.len() as u32;
                for p in pairs.iter().filter(|p| cpu.binary_search(p).is_err()) {
                    let g = if p.j < n {
                        gap(&bodies, p.i as usize, p.j as usize)
                    } else {
                        let (x, r) = (bodies.x[p.i as usize], bodies.radius[p.i as usize]);
                        walls[(p.j - n) as usize].shape.contact(x, r).unwrap().0
                    };
                    // The device's slack: 16 ulps of the scene's size, 1 + 2 R_max + δ.
                    let slack = 16.0 * f64::from(f32::EPSILON) * (1.0 + 2.0 * r + margin);
                    assert!(g <= margin + slack, "{what}: ({}, {}) at gap {g:e}", p.i, p.j);
                }
            }
        }
    }
}

/// The greedy colouring in priority order uses fewer than 2Δ colours, no colour holds two
/// pairs of one body, and Jones–Plassmann's rounds on the device give the same colours (one
/// colouring for both scenes: the second reuses or grows the first's buffers).
#[test]
fn colouring_separates_pairs_that_share_a_body() {
    #[cfg(feature = "gpu")]
    let mut device = common::gpu().map(|ctx| ricochet::large_scene::gpu::GpuColouring::new(ctx).unwrap());
    for d in [Dimension::Three, Dimension::Two] {
        let bodies = scattered(d, 1500, 1.0, 0.03, 11);
        let n = bodies.len();
        let pairs = candidate_pairs(&bodies, &open_box(d, 1.0, law(0.0, 0.5, d)), 0.003).unwrap();
        let colour = greedy(&pairs, n);
        let mut degree = vec![0usize; n];
        for p in &pairs {
            degree[p.i as usize] += 1;
            if (p.j as usize) < n {
                degree[p.j as usize] += 1;
            }
        }
        let max_degree = *degree.iter().max().unwrap();
        let colours = *colour.iter().max().unwrap() as usize + 1;
        assert!(
            colours < 2 * max_degree && colours <= COLOURS,
            "{d:?}: {colours} colours, Δ = {max_degree}"
        );
        #[cfg(feature = "gpu")]
        if let Some(device) = &mut device {
            assert_eq!(device.colour(&pairs, n).unwrap(), colour, "{d:?}: Jones–Plassmann");
        }
        for c in 0..colours as u32 {
            let mut seen = vec![false; n];
            for (p, _) in pairs.iter().zip(&colour).filter(|(_, k)| **k == c) {
                for b in [p.i as usize, p.j as usize].into_iter().filter(|&b| b < n) {
                    assert!(!seen[b], "{d:?}: colour {c} holds two pairs of body {b}");
                    seen[b] = true;
                }
            }
        }
    }
}

/// A pyramid of 105 discs (14 rows), its bottom row between two walls, on a floor, μ = 0.5
/// everywhere, e = 0: it must not move (drift < 1e-6 m over the steps), and at every step the
/// walls' impulses sum to the weight M g h within the solver's tolerance. (Free-standing,
/// its outer bottom discs roll out: the first step's NSGS solution moves them at 5 rows even
/// with μ = 1.)
#[test]
fn pyramid_stands_still_and_the_floor_carries_its_weight() {
    let mut scene = resting_pyramid();
    let (start, weight, h) = (scene.bodies.x.clone(), scene.bodies.total_mass() * G, scene.h);
    scene.solver.max_sweeps = 10_000;
    let steps = 10_000;
    let mut worst_load = 0.0f64;
    let mut total_sweeps = 0;
    for _ in 0..steps {
        let report = scene.step().unwrap();
        assert!(report.converged, "{report:?}");
        assert!(report.colours < 2 * 6, "{report:?}");
        total_sweeps += report.sweeps;
        let load = wall_impulse(&scene);
        worst_load = worst_load.max((load[1] - weight * h).abs() / (weight * h));
        assert!(load[0].abs() <= 1e-8 * weight * h, "a horizontal floor load {load:?}");
    }
    assert!(worst_load <= 1e-8, "floor load off the weight by {worst_load:e}");
    let drift = scene
        .bodies
        .x
        .iter()
        .zip(&start)
        .map(|(x, y)| (x[0] - y[0]).hypot(x[1] - y[1]))
        .fold(0.0, f64::max);
    assert!(drift < 1e-6, "the pyramid drifted {drift:e} m in {steps} steps");
    eprintln!("pyramid: drift {drift:e} m, floor load error {worst_load:e}, {total_sweeps} sweeps");
}

/// `steps` steps of a pour in a box, inside a rayon pool of `threads` threads.
fn pour(
    d: Dimension,
    threads: usize,
    steps: usize,
    mu: f64,
    e: f64,
) -> (LargeScene, Vec<(f64, ricochet::large_scene::StepReport)>) {
    let size = if d == Dimension::Two { (40, 12) } else { (8, 6) };
    let mut scene = pour_in_box(d, size, 3, law(e, mu, d));
    scene.solver.tolerance = 1e-10;
    scene.solver.max_sweeps = 2000;
    let reports = steps_in_pool(
        &mut scene,
        threads,
        steps,
        &mut ricochet::large_scene::CpuSolver::default(),
    );
    (scene, reports)
}

/// The coloured sweeps, the broad phase and the reductions give the same bits on 1 and 3
/// threads, in 2-D and 3-D, on a pour whose colours are large enough to be split.
#[test]
fn threads_give_the_same_bits() {
    for d in [Dimension::Two, Dimension::Three] {
        let (one, reports) = pour(d, 1, 120, 0.3, 0.0);
        let (three, _) = pour(d, 3, 120, 0.3, 0.0);
        let last = reports.last().unwrap().1;
        assert!(
            last.active > 300 && last.sweeps > 1,
            "{d:?}: a pour that tests little: {last:?}"
        );
        assert_eq!(state_bits(&one), state_bits(&three), "{d:?}");
    }
}

/// θ = 1 and e = 0: kinetic + potential energy never increases (Acary, ZAMM 96:585, 2016:
/// E_{k+1} − E_k = −½‖Δv‖²_M + r·u_{k+1}, and r·u_{k+1} ≤ 0 at a solution), up to the
/// solver's tolerance; every impulse lies in its cone, and a frictionless pour carries no
/// tangential impulse at all.
#[test]
fn pours_lose_energy_and_keep_to_the_cone() {
    for d in [Dimension::Two, Dimension::Three] {
        for mu in [0.0, 0.4] {
            let (scene, reports) = pour(d, 2, 150, mu, 0.0);
            let start = reports[0].0;
            let mut previous = f64::INFINITY;
            for (k, (energy, report)) in reports.iter().enumerate() {
                // Frictional NSGS may stall above 1e-10 in a dense pour (the residual is
                // recorded); frictionless sweeps converge.
                assert!(report.converged || mu > 0.0, "{d:?} μ = {mu}, step {k}: {report:?}");
                assert!(
                    *energy <= previous + 1e-9 * start.abs(),
                    "{d:?} μ = {mu}: E rose at step {k}: {previous} → {energy}"
                );
                previous = *energy;
            }
            let kinetic = scene.bodies.kinetic_energy();
            assert!(kinetic > 0.0 || mu > 0.0, "{d:?}: nothing moved");
            for c in scene.contacts().iter().filter(|c| c.active) {
                let tangent = c.r[1].hypot(c.r[2]);
                assert!(
                    c.r[0] >= 0.0 && tangent <= mu * c.r[0] * (1.0 + 1e-12),
                    "{d:?} μ = {mu}: {c:?}"
                );
                if mu == 0.0 {
                    assert_eq!(tangent, 0.0, "{d:?}: a frictionless contact's {c:?}");
                }
            }
        }
    }
}

/// The velocity-form coloured sweep is sequential NSGS on the assembled W in (colour, key)
/// order: from r = 0 (no warm start), the same number of sweeps gives the same impulses to
/// 1e-12 (relative to the largest), v_{k+1} = v_free + M⁻¹Hᵀr, and the problem's own
/// Siconos error of the engine's r is the residual it reported.
#[test]
fn velocity_form_is_nsgs_on_the_assembled_problem() {
    for (d, mu) in [(Dimension::Two, 0.4), (Dimension::Three, 0.4), (Dimension::Three, 0.0)] {
        let size = if d == Dimension::Two { (8, 5) } else { (4, 3) };
        let mut scene = pour_in_box(d, size, 5, law(0.0, mu, d));
        scene.solver.warm_start = false;
        scene.solver.tolerance = 1e-9;
        for _ in 0..60 {
            scene.step().unwrap();
        }
        let before = scene.clone();
        let report = scene.step().unwrap();
        let g = scene.gravity;
        let v_free: Vec<[f64; 3]> = before
            .bodies
            .v
            .iter()
            .map(|v| std::array::from_fn(|k| v[k] + scene.h * g[k]))
            .collect();
        let (w, q, mus) = assembled(&scene, &v_free, &before.bodies.omega);
        assert!(
            mus.len() >= 8 && report.sweeps > 2,
            "{d:?}: a problem that tests little: {report:?}"
        );
        let rows = d.rows();
        let dense = assembled_nsgs(rows, &w, &q, &mus, report.sweeps);
        let engine: Vec<f64> = scene
            .contacts()
            .iter()
            .filter(|c| c.active)
            .flat_map(|c| c.r[..rows].to_vec())
            .collect();
        let engine = DVector::from_vec(engine);
        let scale = engine.amax();
        assert!(
            (&engine - &dense).amax() <= 1e-12 * scale,
            "{d:?}: velocity form vs assembled NSGS differ by {:e} (max r {scale:e})",
            (&engine - &dense).amax()
        );
        let problem = FrictionContactProblem::new(rows, w, q, mus).unwrap();
        let error = problem.error(&engine);
        assert!(
            (error - report.residual).abs() <= 1e-6 * report.residual.max(1e-12),
            "{d:?}: problem error {error:e} vs reported {:e}",
            report.residual
        );
    }
}

/// Newton's cradle built as a large scene (discs on a line, no gravity, μ = 0) gives the
/// reference stepper's `newtons_cradle` scene: positions and velocities to 1e-9 — with a gap
/// after the whole chain has fired (sequential impacts, e = 1 and e = 0.8), touching after the
/// step of the simultaneous impact (Newton's law at every active contact at once). After it,
/// a touching chain holds balls that move together, their relative velocity and gap the
/// rounding of the solves (10⁻¹⁶): whether such a contact is active at the next step is
/// decided by rounding, which the sweep order (the colours) and Lemke's pivots round
/// differently, and the runs part by millimetres.
#[test]
fn newtons_cradle_as_a_large_scene_is_the_reference_cradle() {
    use ricochet::reference::Trajectory;
    use ricochet::scenes::newtons_cradle::NewtonsCradle;
    for (gap, e) in [(1e-3, 1.0), (1e-3, 0.8), (0.0, 1.0), (0.0, 0.9)] {
        let cradle = NewtonsCradle {
            gap,
            restitution: e,
            ..NewtonsCradle::default()
        };
        let (mut sim, _) = cradle.simulation().unwrap();
        let mut trajectory = Trajectory::default();
        let final_time = 0.05;
        sim.run(final_time, &mut trajectory).unwrap();
        let expected = trajectory.samples.last().unwrap();
        let x: Vec<[f64; 3]> = (0..cradle.balls)
            .scan(0.0, |x, i| {
                let at = *x;
                *x += 2.0 * cradle.radius + if i == 0 { cradle.approach } else { cradle.gap };
                Some([at, 0.0, 0.0])
            })
            .collect();
        let n = x.len();
        let mut bodies = Bodies::new(Dimension::Two, x, vec![cradle.radius; n], vec![cradle.mass; n]).unwrap();
        bodies.v[0][0] = cradle.velocity;
        let d = Dimension::Two;
        let mut scene = LargeScene::new(bodies, Vec::new(), law(e, 0.0, d), [0.0; 3], cradle.step).unwrap();
        scene.theta = 0.5;
        scene.solver.tolerance = 1e-13;
        scene.solver.max_sweeps = 100_000;
        let mut impacts = 0;
        while scene.time < expected.t - 0.5 * cradle.step {
            let report = scene.step().unwrap();
            assert!(report.converged, "{report:?}");
            impacts += usize::from(report.active > 0);
            if gap == 0.0 && impacts > 0 {
                break;
            }
        }
        assert!(impacts > 0);
        let k_step = (scene.time / cradle.step).round() as usize;
        let expected = trajectory
            .samples
            .iter()
            .find(|s| (s.t / cradle.step).round() as usize == k_step)
            .unwrap();
        for k in 0..n {
            let (x, v) = (scene.bodies.x[k][0], scene.bodies.v[k][0]);
            assert!(
                (x - expected.q[k]).abs() < 1e-9,
                "gap {gap}, e {e}: ball {k} at {x} vs {}",
                expected.q[k]
            );
            assert!(
                (v - expected.v[k]).abs() < 1e-9,
                "gap {gap}, e {e}: ball {k} moves {v} vs {}",
                expected.v[k]
            );
            assert_eq!(scene.bodies.v[k][1], 0.0);
        }
        if e == 1.0 && gap > 0.0 {
            assert!(
                (scene.bodies.v[n - 1][0] - cradle.velocity).abs() < 1e-9,
                "the last ball leaves with v₀"
            );
        }
    }
}

/// A disc released on an incline of angle α: with μ ≥ tan(α)/3 it rolls, its speed down the
/// slope (2/3) g sin α t and ω = v/R; with μ below it slides, at g (sin α − μ cos α) t, spun
/// up at 2 μ g cos α t / R — to 1e-12.
#[test]
fn a_disc_rolls_or_slides_down_an_incline() {
    let d = Dimension::Two;
    let alpha: f64 = 0.4;
    let r = 0.1;
    for mu in [1.0, 0.05] {
        let n = [-alpha.sin(), alpha.cos(), 0.0];
        let start = [n[0] * r * (1.0 - 1e-12), n[1] * r * (1.0 - 1e-12), 0.0];
        let bodies = Bodies::new(d, vec![start], vec![r], vec![2.0]).unwrap();
        let wall = Wall::plane([0.0; 3], n, law(0.0, mu, d)).unwrap();
        let mut scene = LargeScene::new(bodies, vec![wall], law(0.0, mu, d), gravity(d), 1e-3).unwrap();
        scene.solver.tolerance = 1e-12;
        for _ in 0..1000 {
            assert!(scene.step().unwrap().converged);
        }
        let (v, omega, t) = (scene.bodies.v[0], scene.bodies.omega[0][2], scene.time);
        let down = -(v[0] * alpha.cos() + v[1] * alpha.sin());
        let rolls = mu >= alpha.tan() / 3.0;
        let (speed, spin) = if rolls {
            (2.0 / 3.0 * G * alpha.sin() * t, 2.0 / 3.0 * G * alpha.sin() * t / r)
        } else {
            (
                G * (alpha.sin() - mu * alpha.cos()) * t,
                2.0 * mu * G * alpha.cos() * t / r,
            )
        };
        assert!((down - speed).abs() < 1e-12 * speed, "μ = {mu}: {down} vs {speed}");
        assert!((omega - spin).abs() < 1e-12 * spin, "μ = {mu}: ω {omega} vs {spin}");
    }
}

/// The large-scene kernel in f64 is its CPU twin on a pour with friction and restitution:
/// in 2-D bit for bit (every sweep count, residual and state bit, on lavapipe: the stopping
/// test on the device stops where the twin's does, within a submit or past it), in 3-D
/// within 10⁻⁹ m after 150 steps (measured 5·10⁻¹¹; a chaotic pour amplifies an ulp); in f32,
/// at a tolerance f32 reaches (10⁻⁴), within 10⁻⁷ m of the twin (measured 2·10⁻⁹).
#[cfg(feature = "gpu")]
#[test]
fn gpu_sweeps_are_the_cpu_twin() {
    use ricochet::batch::gpu::Precision;
    use ricochet::large_scene::{CpuSolver, GpuSolver};
    let Some(ctx) = common::gpu() else { return };
    for d in [Dimension::Two, Dimension::Three] {
        let (twin, twin_reports) = pour_on(d, 150, 0.5, 1e-8, &mut CpuSolver::default());
        let last = twin_reports.last().unwrap();
        assert!(
            last.active > 100 && last.sweeps > 2,
            "{d:?}: a pour that tests little: {last:?}"
        );
        // A step that needs more sweeps than the last makes the kernel submit again: the
        // stopping test on the device must then stop where the twin's does.
        let more = twin_reports.windows(2).filter(|w| w[1].sweeps > w[0].sweeps).count();
        assert!(more > 10, "{d:?}: {more} steps need more sweeps than the last");
        if ctx.supports_f64() {
            let mut gpu = GpuSolver::new(ctx, Precision::F64).unwrap();
            let (kernel, reports) = pour_on(d, 150, 0.5, 1e-8, &mut gpu);
            if d == Dimension::Two {
                assert_eq!(reports, twin_reports, "{d:?}: f64 reports");
                assert_eq!(state_bits(&kernel), state_bits(&twin), "{d:?}: f64 state");
            } else {
                // Not bit for bit in 3-D: some sweeps part by an ulp (seen on lavapipe; the
                // shared local solves alone are the twin's bits, see batch::gpu::shaders).
                let worst = largest_difference(&kernel, &twin);
                assert!(worst < 1e-9, "{d:?}: f64 moved {worst:e} m from the twin");
            }
        }
        let mut gpu = GpuSolver::new(ctx, Precision::F32).unwrap();
        let (single, _) = pour_on(d, 60, 1e-4, 1e-4, &mut gpu);
        let (double, _) = pour_on(d, 60, 1e-4, 1e-4, &mut CpuSolver::default());
        let worst = largest_difference(&single, &double);
        assert!(worst < 1e-7, "{d:?}: f32 moved {worst:e} m from the twin");
        // f32 counts sweeps exactly up to 2²⁴ on the device: a larger cap is refused.
        let mut scene = single;
        scene.solver.max_sweeps = 1 << 25;
        let e = scene.step_on(&mut gpu).unwrap_err().to_string();
        assert!(e.contains("solver.max_sweeps = 33554432"), "{e}");
    }
}

/// A colour overflow on the device: 72 small discs resting on one large disc share it, so their
/// pairs need more colours than a mask holds and the last ones are swept in order by one
/// invocation — still the twin bit for bit; and with a margin so thin that the broad phase
/// is due every few steps, sorted into their colours on the device.
#[cfg(feature = "gpu")]
#[test]
fn gpu_overflow_colour_is_the_cpu_twin() {
    use ricochet::batch::gpu::Precision;
    use ricochet::large_scene::{CpuSolver, GpuScene, GpuSolver, Stepper};
    let Some(ctx) = common::gpu().filter(|c| c.supports_f64()) else {
        return;
    };
    let (big, small) = (1.0, 0.015);
    let centre = [2.0, 1.0 + 1e-9, 0.0];
    let ring = 72;
    let mut x = vec![centre];
    let mut radius = vec![big];
    // From the sides to the top, so that the pairs past the mask's colours (the last ids
    // with the large disc, 0) rest on top.
    let mut angles: Vec<f64> = (0..ring).map(|k| 20.0 + 140.0 * k as f64 / (ring - 1) as f64).collect();
    angles.sort_by(|a, b| (b - 90.0).abs().total_cmp(&(a - 90.0).abs()));
    for a in angles {
        let (d, a) = (big + small + 1e-9, a.to_radians());
        x.push([centre[0] + d * a.cos(), centre[1] + d * a.sin(), 0.0]);
        radius.push(small);
    }
    let mass: Vec<f64> = radius.iter().map(|r| r * r).collect();
    let scene = |solver: &mut dyn Stepper, margin: f64| {
        let bodies = Bodies::new(Dimension::Two, x.clone(), radius.clone(), mass.clone()).unwrap();
        let l = law(0.0, 0.5, Dimension::Two);
        let mut scene = LargeScene::new(bodies, vec![floor(1, l)], l, gravity(Dimension::Two), 1e-3).unwrap();
        scene.margin = margin;
        scene.solver.tolerance = 1e-9;
        let mut reports = Vec::new();
        solver
            .advance(&mut scene, 40, &mut |r| {
                reports.push(r);
                true
            })
            .unwrap();
        let overflow = |c: &&ricochet::large_scene::narrow_phase::Contact| c.pair.i == 0 && c.pair.j > COLOURS as u32;
        let overflowing = scene.contacts().iter().filter(overflow).filter(|c| c.active).count();
        (state_bits(&scene), reports, overflowing)
    };
    let (twin, twin_reports, overflowing) = scene(&mut CpuSolver::default(), 0.05);
    assert!(
        twin_reports.iter().all(|r| r.colours > COLOURS) && overflowing > 4,
        "no active overflow: {overflowing} active, {:?}",
        twin_reports.last()
    );
    let (kernel, reports, _) = scene(&mut GpuSolver::new(ctx, Precision::F64).unwrap(), 0.05);
    assert_eq!(reports, twin_reports);
    assert_eq!(kernel, twin);
    // The whole step on the device: its warm start sweeps the overflow in order too.
    let (whole, reports, _) = scene(&mut GpuScene::new(ctx, Precision::F64).unwrap(), 0.05);
    assert_eq!(reports, twin_reports);
    assert_eq!(whole, twin);
    let (twin, twin_reports, _) = scene(&mut CpuSolver::default(), 2e-5);
    let mut gpu = GpuScene::new(ctx, Precision::F64).unwrap();
    let (whole, reports, _) = scene(&mut gpu, 2e-5);
    assert_eq!(reports, twin_reports);
    assert_eq!(whole, twin);
    let rebuilt = twin_reports.iter().filter(|r| r.rebuilt).count();
    assert!(
        gpu.rebuilds()[0] > 5 && rebuilt == gpu.rebuilds()[0] + 1,
        "{rebuilt}, {:?}",
        gpu.rebuilds()
    );
}

/// Least squares y ≈ a + b x: (a, b, R²).
fn linear_fit(points: &[(f64, f64)]) -> (f64, f64, f64) {
    let n = points.len() as f64;
    let (mx, my) = (
        points.iter().map(|p| p.0).sum::<f64>() / n,
        points.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    let b = sxy / sxx;
    (my - b * mx, b, sxy * sxy / (sxx * syy))
}

/// Beverloo's law in 2-D: the steady discharge rate W of a hopper (discs per second, the
/// slope of the discharged count between 20 % and 60 % of the discs) over four orifice
/// widths D = 6…10 d follows W = C (D − k d)^{3/2}: W^{2/3} is linear in D (R² ≥ 0.98) and
/// the fitted k is within 1–3 (Beverloo et al., Chem. Eng. Sci. 15:260, 1961; 2-D: Mankoc et
/// al., Granular Matter 9:407, 2007, k ≈ 1.5–2.5).
#[test]
fn hopper_discharge_follows_beverloo() {
    use ricochet::scenes::hopper_2d::Hopper2d;
    let discs = 600;
    let mut points = Vec::new();
    for orifice in [6.0, 7.0, 8.0, 10.0] {
        let hopper = Hopper2d {
            discs,
            orifice,
            width: 24.0,
            friction: 0.3,
            wall_friction: 0.3,
            ..Hopper2d::default()
        };
        let mut scene = hopper.build(5e-4, 11).unwrap();
        scene.solver.tolerance = 1e-4;
        scene.solver.max_sweeps = 50;
        let mut counts = Vec::new();
        while scene.bodies.discharged() < discs * 6 / 10 {
            let report = scene.step().unwrap();
            counts.push((scene.time, report.discharged as f64));
            assert!(
                scene.time < 5.0,
                "D = {orifice} d: clogged at {} discharged",
                report.discharged
            );
        }
        let window: Vec<_> = counts.into_iter().filter(|c| c.1 >= 0.2 * discs as f64).collect();
        let (_, rate, r2) = linear_fit(&window);
        eprintln!("D = {orifice} d: W = {rate:.1} discs/s (steady: R² {r2:.4})");
        points.push((orifice, rate.powf(2.0 / 3.0)));
    }
    let (a, b, r2) = linear_fit(&points);
    let k = -a / b;
    eprintln!("Beverloo fit: k = {k:.2}, R² = {r2:.4}");
    assert!(r2 >= 0.98, "W^(2/3) against D: R² = {r2}");
    assert!((1.0..=3.0).contains(&k), "k = {k}");
}

/// Through a period along x the broad phase finds exactly the pairs within the margin by
/// their nearest image — brute force over the images x_j + k L, k ∈ {−1, 0, 1} — sorted by
/// key; and the narrow phase's gap is that image's.
#[test]
fn periodic_broad_phase_equals_brute_force() {
    for d in [Dimension::Two, Dimension::Three] {
        let r = if d == Dimension::Two { 0.02 } else { 0.06 };
        let mut bodies = scattered(d, 1500, 1.0, r, 13);
        bodies.period = Some(1.0);
        let margin = 0.004;
        let pairs = candidate_pairs(&bodies, &[], margin).unwrap();
        let n = bodies.len();
        let image_gap = |i: usize, j: usize| {
            (-1..=1)
                .map(|k| {
                    let (a, b) = (bodies.x[i], bodies.x[j]);
                    let e = [b[0] + f64::from(k) - a[0], b[1] - a[1], b[2] - a[2]];
                    (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt() - bodies.radius[i] - bodies.radius[j]
                })
                .fold(f64::INFINITY, f64::min)
        };
        let mut brute = Vec::new();
        let mut across = 0;
        for i in 0..n {
            for j in i + 1..n {
                let g = image_gap(i, j);
                if g <= margin {
                    brute.push(Pair {
                        i: i as u32,
                        j: j as u32,
                    });
                    across += usize::from((bodies.x[i][0] - bodies.x[j][0]).abs() > 0.5);
                    assert!((gap(&bodies, i, j) - g).abs() < 1e-15, "{d:?}: gap of ({i}, {j})");
                }
            }
        }
        assert!(across > 10, "{d:?}: too few pairs across the period ({across})");
        assert_eq!(pairs, brute, "{d:?}");
    }
}

/// A sphere rolls down a periodic chute (gravity tilted by α, μ = 1): its speed is the
/// rolling one, (5/7) g sin α t, and its wrapped centre is the discrete Moreau–Jean
/// (θ = 1) path x₀ + a h² n(n + 1)/2 reduced into the period, after wrapping many times;
/// two spheres that overlap through the period are refused, named.
#[test]
fn a_sphere_rolls_down_a_periodic_chute() {
    let d = Dimension::Three;
    let (r, l, h, alpha): (f64, f64, f64, f64) = (0.01, 0.1, 1e-3, 0.3);
    let mut bodies = Bodies::new(d, vec![[0.05, 0.05, r * (1.0 - 1e-12)]], vec![r], vec![0.5]).unwrap();
    bodies.period = Some(l);
    let g = [G * alpha.sin(), 0.0, -G * alpha.cos()];
    let mut scene = LargeScene::new(bodies, vec![floor(2, law(0.0, 1.0, d))], law(0.0, 1.0, d), g, h).unwrap();
    scene.solver.tolerance = 1e-12;
    let steps = 1000;
    for _ in 0..steps {
        assert!(scene.step().unwrap().converged);
    }
    let a = 5.0 / 7.0 * G * alpha.sin();
    let n = f64::from(steps);
    let travelled = a * h * h * n * (n + 1.0) / 2.0;
    assert!(travelled > 10.0 * l, "wraps {}", travelled / l);
    let x = scene.bodies.x[0][0];
    let expected = (0.05 + travelled).rem_euclid(l);
    assert!((x - expected).abs() < 1e-9, "x = {x}, expected {expected}");
    let v = scene.bodies.v[0][0];
    assert!(
        (v - a * scene.time).abs() < 1e-12 * v,
        "v = {v}, expected {}",
        a * scene.time
    );
    assert!((scene.bodies.omega[0][1] * r - v).abs() < 1e-12 * v, "rolling");

    let mut pair = Bodies::new(
        d,
        vec![[0.004, 0.05, 0.05], [l - 0.004, 0.05, 0.05]],
        vec![r; 2],
        vec![1.0; 2],
    )
    .unwrap();
    pair.period = Some(l);
    let error = LargeScene::new(pair, vec![], law(0.0, 0.5, d), g, h)
        .unwrap_err()
        .to_string();
    assert!(error.contains("sphere 0 and sphere 1: overlap by 1.19"), "{error}");
}

/// The bead chain (the contact-parallel chain engine's scene: beads falling in a column onto
/// a floor, e = 0.9) built as a large scene — discs stacked on one vertical line, a floor,
/// μ = 0 — follows the chain engine's CPU twin (Jacobi, 3000 sweeps per step, which the chain's
/// own test checks against the reference stepper) to 1e-9 through its impacts and into a
/// resting stack.
#[test]
fn the_bead_chain_as_a_large_scene_is_the_chain_engine() {
    use ricochet::batch::cpu::chain_jacobi::{self, ChainState};
    use ricochet::batch::{BeadChain, ChainOptions};
    let chain = BeadChain::new(6, 0.3, 0.22).unwrap();
    let options = ChainOptions {
        sweeps: 3000,
        ..Default::default()
    };
    let steps = 3000;
    let mut state = ChainState::<f64>::new(&chain);
    chain_jacobi::run(&chain, &mut state, steps, &options);
    let d = Dimension::Two;
    let n = chain.len();
    let x = chain.z.iter().map(|&z| [0.0, z, 0.0]).collect();
    let bodies = Bodies::new(d, x, vec![chain.radius; n], vec![chain.mass; n]).unwrap();
    let l = law(chain.restitution, 0.0, d);
    let mut scene = LargeScene::new(bodies, vec![floor(1, l)], l, [0.0, -chain.gravity, 0.0], options.step).unwrap();
    (scene.theta, scene.gamma) = (options.theta, options.gamma);
    scene.solver.tolerance = 1e-13;
    scene.solver.max_sweeps = 100_000;
    let mut impacts = 0;
    for _ in 0..steps {
        let report = scene.step().unwrap();
        assert!(report.converged, "{report:?}");
        impacts += usize::from(report.active > 0);
    }
    assert!(impacts > 100, "impacts {impacts}");
    for k in 0..n {
        let (z, v) = (scene.bodies.x[k][1], scene.bodies.v[k][1]);
        assert!((z - state.z[k]).abs() < 1e-9, "bead {k} at {z} vs {}", state.z[k]);
        assert!((v - state.v[k]).abs() < 1e-9, "bead {k} moves {v} vs {}", state.v[k]);
        assert_eq!((scene.bodies.x[k][0], scene.bodies.v[k][0]), (0.0, 0.0));
    }
}

/// A column of `cols` × `rows` polydisperse discs (R = 5 mm ± 20 %, drawn from `seed`; μ
/// everywhere, e = 0) collapsed
/// on a rough floor (a sawtooth of teeth one mean diameter apart and ½ R high, which pins the
/// base: discs do not roll along it) until its kinetic energy falls below 10⁻⁹ J (at most
/// 4 s); returns the angle of the deposit's slopes (degrees) by [`repose_angle`].
fn collapsed_column(mu: f64, cols: usize, rows: usize, seed: u64) -> f64 {
    use rand::SeedableRng;
    use ricochet::scenes::grains;
    let d = Dimension::Two;
    let (mean, p) = (0.005, 0.2);
    let r_max = mean * (1.0 + p);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let (mut x, mut radius) = (Vec::new(), Vec::new());
    let tooth = 0.5 * mean;
    for row in 0..rows {
        for col in 0..cols {
            let r = grains::radius(&mut rng, mean, p);
            let centre = (col as f64 - (cols as f64 - 1.0) / 2.0) * 2.2 * r_max;
            x.push([centre, tooth + r_max * 1.1 + row as f64 * 2.2 * r_max, 0.0]);
            radius.push(r);
        }
    }
    let mass = radius.iter().map(|r| 1000.0 * std::f64::consts::PI * r * r).collect();
    let bodies = Bodies::new(d, x, radius, mass).unwrap();
    let half = 60.0 * 2.0 * mean;
    let teeth = (half / mean) as i64;
    let floor: Vec<[f64; 2]> = (-teeth..=teeth)
        .map(|k| [k as f64 * mean, if k % 2 == 0 { 0.0 } else { tooth }])
        .collect();
    let mut walls = Wall::polyline(&floor, law(0.0, mu, d)).unwrap();
    walls.push(Wall::plane([-half, 0.0, 0.0], [1.0, 0.0, 0.0], law(0.0, mu, d)).unwrap());
    walls.push(Wall::plane([half, 0.0, 0.0], [-1.0, 0.0, 0.0], law(0.0, mu, d)).unwrap());
    let mut scene = LargeScene::new(bodies, walls, law(0.0, mu, d), gravity(d), 5e-4).unwrap();
    scene.solver.tolerance = 1e-4;
    scene.solver.max_sweeps = 100;
    settle(&mut scene, 0.5, 4.0);
    eprintln!(
        "μ = {mu}: settled at t = {:.3} s (E_k {:e} J)",
        scene.time,
        scene.bodies.kinetic_energy()
    );
    repose_angle(&scene.bodies, 2.0 * mean)
}

/// The angle of a 2-D heap's slopes (degrees): its surface is, per bin of width `bin` along x,
/// the highest disc top y + R; the points of each side (left and right of the highest bin)
/// whose height is within 20–80 % of the top's are fitted by a line (least squares), and the
/// angle is atan of the mean of the two slopes' magnitudes.
fn repose_angle(b: &Bodies, bin: f64) -> f64 {
    let mut surface = std::collections::BTreeMap::new();
    for k in 0..b.len() {
        let key = (b.x[k][0] / bin).floor() as i64;
        let top = surface.entry(key).or_insert(f64::NEG_INFINITY);
        *top = f64::max(*top, b.x[k][1] + b.radius[k]);
    }
    let (&peak, &height) = surface.iter().max_by(|a, b| a.1.total_cmp(b.1)).unwrap();
    let side = |left: bool| {
        let points: Vec<(f64, f64)> = surface
            .iter()
            .filter(|(k, y)| (**k < peak) == left && **k != peak && **y >= 0.2 * height && **y <= 0.8 * height)
            .map(|(k, y)| ((*k as f64 + 0.5) * bin, *y))
            .collect();
        assert!(points.len() >= 4, "too few surface points on a side: {points:?}");
        linear_fit(&points).1.abs()
    };
    let slope = 0.5 * (side(true) + side(false));
    slope.atan().to_degrees()
}

/// The angle of repose of a collapsed 2-D column grows with μ: the mean over four columns
/// (seeds 7–10) of [`repose_angle`] is strictly monotone over μ = 0.05, 0.2, 0.6 (measured
/// 9.4°, 11.9°, 14.5°, each column within ±2.5° of its mean). Discs without rolling
/// resistance stand lower than real grains and level off past μ ≈ 0.5 (single columns at μ =
/// 0.3 and 0.9 order either way), so the rising range is tested, and on means.
#[test]
fn the_angle_of_repose_grows_with_friction() {
    let means: Vec<f64> = [0.05, 0.2, 0.6]
        .iter()
        .map(|&mu| {
            let angles: Vec<f64> = (7..11).map(|seed| collapsed_column(mu, 10, 16, seed)).collect();
            eprintln!("μ = {mu}: angles of repose {angles:?}");
            angles.iter().sum::<f64>() / angles.len() as f64
        })
        .collect();
    eprintln!("mean angles of repose: {means:?}");
    assert!(means.windows(2).all(|w| w[0] < w[1]), "{means:?}");
    assert!(means[0] > 3.0, "a frictional heap stands at {means:?}°");
}

/// `count` monodisperse spheres of radius `r` placed at random, not overlapping (random
/// sequential insertion, seeded), in the box [r, side − r]² × [r, height] above the floor.
fn random_spheres(count: usize, r: f64, side: f64, height: f64, seed: u64) -> Vec<[f64; 3]> {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut centres: Vec<[f64; 3]> = Vec::with_capacity(count);
    let cell = 2.0 * r;
    let mut grid: std::collections::HashMap<[i64; 3], Vec<usize>> = Default::default();
    let key = |x: [f64; 3]| x.map(|c| (c / cell).floor() as i64);
    while centres.len() < count {
        let x = [
            r + (side - 2.0 * r) * rng.random::<f64>(),
            r + (side - 2.0 * r) * rng.random::<f64>(),
            r + (height - r) * rng.random::<f64>(),
        ];
        let k = key(x);
        let clear = (0..27).all(|n| {
            let near = [k[0] + n % 3 - 1, k[1] + n / 3 % 3 - 1, k[2] + n / 9 - 1];
            grid.get(&near).is_none_or(|list| {
                list.iter().all(|&j| {
                    let y = centres[j];
                    (x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2) + (x[2] - y[2]).powi(2) >= (2.0 * r * 1.0001).powi(2)
                })
            })
        });
        if clear {
            grid.entry(k).or_default().push(centres.len());
            centres.push(x);
        }
    }
    centres
}

/// The solid fraction of the spheres (all of radius `r`) in the box `lo..hi`: the share of
/// the points of a regular 48³ grid in it that lie inside some sphere.
fn solid_fraction(centres: &[[f64; 3]], r: f64, lo: [f64; 3], hi: [f64; 3]) -> f64 {
    let n = 48;
    let mut inside = 0;
    for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                let p: [f64; 3] = std::array::from_fn(|k| {
                    let u = [a, b, c][k] as f64 + 0.5;
                    lo[k] + (hi[k] - lo[k]) * u / n as f64
                });
                let hit = centres
                    .iter()
                    .any(|x| (p[0] - x[0]).powi(2) + (p[1] - x[1]).powi(2) + (p[2] - x[2]).powi(2) <= r * r);
                inside += usize::from(hit);
            }
        }
    }
    inside as f64 / (n * n * n) as f64
}

/// A frictionless monodisperse pour settles to random close packing: 600 spheres inserted
/// at random into a box 8 diameters wide and poured (e = 0, μ = 0) settle until their kinetic
/// energy is below 10⁻⁹ J; the solid fraction in the box one diameter away from the walls
/// and the floor and two diameters below the highest sphere lies in [0.60, 0.66] (random
/// close packing ≈ 0.64; Scott & Kilgour, J. Phys. D 2:863, 1969). Measured: printed.
#[test]
fn a_frictionless_pour_settles_to_random_close_packing() {
    let d = Dimension::Three;
    let r = 0.005;
    let side = 16.0 * r;
    let centres = random_spheres(600, r, side, 60.0 * r, 3);
    let mass = vec![1000.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3); centres.len()];
    let bodies = Bodies::new(d, centres, vec![r; 600], mass).unwrap();
    let mut scene = LargeScene::new(
        bodies,
        open_box(d, side, law(0.0, 0.0, d)),
        law(0.0, 0.0, d),
        gravity(d),
        1e-3,
    )
    .unwrap();
    scene.solver.tolerance = 1e-4;
    scene.solver.max_sweeps = 200;
    settle(&mut scene, 0.3, 3.0);
    let top = scene.bodies.x.iter().map(|x| x[2]).fold(0.0, f64::max);
    let (lo, hi) = (
        [2.0 * r, 2.0 * r, 2.0 * r],
        [side - 2.0 * r, side - 2.0 * r, top - 4.0 * r],
    );
    let fraction = solid_fraction(&scene.bodies.x, r, lo, hi);
    eprintln!(
        "settled at t = {:.3} s (E_k {:e} J), top {top:.4} m: solid fraction {fraction:.4}",
        scene.time,
        scene.bodies.kinetic_energy()
    );
    assert!((0.60..=0.66).contains(&fraction), "solid fraction {fraction}");
}

/// A saved state restores into a scene of the same bodies and gives its next steps bit for
/// bit; one of another scene, with a pair past the bodies and walls, with colours that do
/// not cover its pairs, or with two pairs of a colour on one body is refused, saying which.
#[test]
fn restore_continues_bit_for_bit_and_refuses_a_foreign_state() {
    let d = Dimension::Two;
    let build = |per_side: usize| pour_in_box(d, (per_side, 4), 3, law(0.2, 0.4, d));
    let mut scene = build(10);
    for _ in 0..120 {
        scene.step().unwrap();
    }
    let state = scene.state();
    assert!(state.pairs.len() > 20, "{}", state.pairs.len());
    let mut copy = build(10);
    copy.restore(state.clone()).unwrap();
    for _ in 0..30 {
        assert_eq!(copy.step().unwrap(), scene.step().unwrap());
    }
    assert_eq!(state_bits(&copy), state_bits(&scene));
    let refusal = |state| build(10).restore(state).unwrap_err().to_string();
    let e = build(9).restore(state.clone()).unwrap_err().to_string();
    assert!(e.contains("the scene 36 bodies"), "{e}");
    let mut far = state.clone();
    far.pairs[0].j = 10_000;
    assert!(refusal(far).contains("is not one of 40 bodies and 3 walls"));
    let mut gap = state.clone();
    gap.colours[0].end -= 1;
    assert!(refusal(gap).contains("colours do not cover"));
    // The parallel sweep writes a colour's bodies at once: a colour's pairs must not meet.
    let mut shared = state.clone();
    assert!(shared.colours[0].len() >= 2);
    shared.pairs[1] = shared.pairs[0];
    let e = refusal(shared);
    assert!(e.contains("colour 0") && e.contains("share body"), "{e}");
}

/// A disc moves in the plane z = 0: a 2-D scene refuses a gravity, a wall or a disc's
/// velocity out of it, naming which (the packed sweep neither reads nor writes a disc's v_z,
/// ω_x, ω_y), and takes a −0 there as +0.
#[test]
fn discs_are_refused_out_of_their_plane() {
    let d = Dimension::Two;
    let grains = law(0.0, 0.5, d);
    let refused = |bodies: Bodies, walls: Vec<Wall>, g: [f64; 3]| match LargeScene::new(bodies, walls, grains, g, 1e-3)
    {
        Ok(_) => panic!("a scene out of the plane was accepted"),
        Err(e) => e.to_string(),
    };
    let e = refused(pyramid(3, 0.1), vec![floor(1, grains)], [0.0, -G, 0.5]);
    assert!(e.contains("g_z") && e.contains("plane"), "{e}");
    let tilted = Wall::plane([0.0; 3], [0.0, 1.0, 0.5], grains).unwrap();
    let e = refused(pyramid(3, 0.1), vec![floor(1, grains), tilted], gravity(d));
    assert!(e.contains("wall 1"), "{e}");
    for (k, axis, omega) in [(2, 2, false), (1, 0, true), (4, 1, true)] {
        let mut bodies = pyramid(3, 0.1);
        if omega {
            bodies.omega[k][axis] = 0.25;
        } else {
            bodies.v[k][axis] = 1e-3;
        }
        let e = refused(bodies, vec![floor(1, grains)], gravity(d));
        assert!(e.contains(&format!("disc {k} ")), "{e}");
    }
    let mut bodies = pyramid(3, 0.1);
    (bodies.v[0][2], bodies.omega[0][0], bodies.omega[0][1]) = (-0.0, -0.0, -0.0);
    let mut scene = LargeScene::new(bodies, vec![floor(1, grains)], grains, gravity(d), 1e-3).unwrap();
    let b = &scene.bodies;
    assert_eq!([b.v[0][2], b.omega[0][0], b.omega[0][1]].map(f64::to_bits), [0; 3]);
    scene.step().unwrap();
    let b = &scene.bodies;
    assert!(
        b.v.iter()
            .zip(&b.omega)
            .all(|(v, w)| [v[2], w[0], w[1]].iter().all(|c| c.to_bits() == 0))
    );
}
