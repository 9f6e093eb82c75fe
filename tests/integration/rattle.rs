//! Nonsmooth RATTLE on the reference stepper against exact solutions:
//! exact free flight (T8), second order on a smooth oscillator (T2), and Newton's law exact
//! at every impact with no penetration and a ball coming to rest on the floor (T5).

use nalgebra::{DMatrix, DVector};
use ricochet::model::{DsId, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use ricochet::reference::{Integrator, TimeStepping};
use ricochet::scheme::NonsmoothRattleOSI;

const G: f64 = 9.81;

fn one(x: f64) -> DVector<f64> {
    DVector::from_element(1, x)
}

fn rattle(nsds: Nsds, h: f64) -> TimeStepping {
    TimeStepping::new(nsds, Integrator::NonsmoothRattle(NonsmoothRattleOSI::default()), 0.0, h).unwrap()
}

/// A point mass (m = 1) at height q₀ = 1 above a floor y = q, restitution e.
fn ball(e: f64) -> Nsds {
    let ball = LagrangianLinearTIDS::new(one(1.0), one(0.0), DMatrix::identity(1, 1))
        .unwrap()
        .with_fext(one(-G))
        .unwrap();
    let mut nsds = Nsds::new();
    let id = nsds.add("ball", ball);
    let floor = LagrangianLinearTIR::new(DMatrix::identity(1, 1)).unwrap();
    nsds.link("floor", NewtonImpactNSL::new(e).unwrap(), floor, &[id])
        .unwrap();
    nsds
}

/// Linear rows converge in one stage-1 iterate: a Newton budget of one solve suffices (the
/// solve's result is checked, not taken on trust), the ball bounces as with the default.
#[test]
fn linear_rows_take_one_stage_one_solve() {
    let (mut one, mut default) = (rattle(ball(0.8), 1e-3), rattle(ball(0.8), 1e-3));
    one.newton.max_iterations = 1;
    for _ in 0..1500 {
        one.step().unwrap();
        default.step().unwrap();
        assert_eq!(one.q(DsId(0)), default.q(DsId(0)));
        assert!(one.last_report().newton_iterations <= 1);
    }
}

/// T8: before the first impact the ball follows y = y₀ − g t²/2 to 1e-14 (Störmer–Verlet is
/// exact under constant gravity).
#[test]
fn free_flight_is_exact() {
    let h = 1e-3;
    let mut sim = rattle(ball(0.9), h);
    for k in 1..=400 {
        sim.step().unwrap();
        let t = k as f64 * h;
        let (q, v) = (sim.q(DsId(0))[0], sim.v(DsId(0))[0]);
        assert!((q - (1.0 - G * t * t / 2.0)).abs() <= 1e-14, "t = {t}: q = {q}");
        assert!((v + G * t).abs() <= 1e-13, "t = {t}: v = {v}");
    }
}

/// T2: x″ = −(2π)² x from x₀ = 1 over 2 s: max |x − cos 2πt| = 1.82e-5 at h = 1e-3 (as an
/// independent prototype measured), and a quarter of it at h/2 (ratio within [3.9, 4.1]).
#[test]
fn smooth_oscillator_is_second_order() {
    let error = |h: f64| {
        let omega2 = 4.0 * std::f64::consts::PI * std::f64::consts::PI;
        let oscillator = LagrangianLinearTIDS::new(one(1.0), one(0.0), DMatrix::identity(1, 1))
            .unwrap()
            .with_stiffness(DMatrix::from_element(1, 1, omega2))
            .unwrap();
        let mut nsds = Nsds::new();
        nsds.add("oscillator", oscillator);
        let mut sim = rattle(nsds, h);
        let steps = (2.0 / h).round() as usize;
        let mut worst = 0.0f64;
        for k in 1..=steps {
            sim.step().unwrap();
            let t = k as f64 * h;
            worst = worst.max((sim.q(DsId(0))[0] - (2.0 * std::f64::consts::PI * t).cos()).abs());
        }
        worst
    };
    let (fine, finer) = (error(1e-3), error(5e-4));
    println!("RATTLE oscillator: {fine:.3e}, {finer:.3e}, ratio {:.3}", fine / finer);
    assert!((fine - 1.82e-5).abs() <= 0.01e-5, "{fine}");
    assert!((3.9..=4.1).contains(&(fine / finer)), "{}", fine / finer);
}

/// T5: a ball dropped from 1 m onto the floor, e ∈ {0, 0.5, 0.9, 1}, 3 s at h = 1e-3: at
/// every step with a percussion and an approach velocity ẏ⁻ < 0, ẏ⁺ = −e ẏ⁻ to
/// 1e-14 max(|ẏ⁻|, g h) (the last bounces before rest approach at 1e-5 m/s, below the
/// rounding of a step's velocity change g h);
/// the ball never goes below the floor (y ≥ −1e-14); for e ∈ {0, 0.5} it comes to rest, y = 0,
/// v = 0 and the percussion per step P = m g h (the weight) to 1e-12.
#[test]
fn restitution_is_exact_and_the_ball_never_penetrates() {
    let h = 1e-3;
    for e in [0.0, 0.5, 0.9, 1.0] {
        let mut sim = rattle(ball(e), h);
        let (mut impacts, mut lowest) = (0, f64::INFINITY);
        for _ in 0..3000 {
            let v_before = sim.v(DsId(0))[0];
            sim.step().unwrap();
            let (q, v, p) = (sim.q(DsId(0))[0], sim.v(DsId(0))[0], sim.lambda()[0]);
            lowest = lowest.min(q);
            if p > 0.0 && v_before < 0.0 {
                impacts += 1;
                assert!(
                    (v + e * v_before).abs() <= 1e-14 * v_before.abs().max(G * h),
                    "e = {e}, t = {}: v⁺ = {v}, v⁻ = {v_before}",
                    sim.time()
                );
            }
        }
        println!("RATTLE ball e = {e}: {impacts} impacts, lowest y {lowest:e}");
        assert!(
            impacts > 0 && lowest >= -1e-14,
            "e = {e}: {impacts} impacts, lowest {lowest}"
        );
        if e <= 0.5 {
            let (q, v, p) = (sim.q(DsId(0))[0], sim.v(DsId(0))[0], sim.lambda()[0]);
            assert!(
                q.abs() <= 1e-12 && v.abs() <= 1e-12,
                "e = {e}: at rest? q = {q}, v = {v}"
            );
            assert!(
                (p - G * h).abs() <= 1e-12 * G * h,
                "e = {e}: P = {p}, m g h = {}",
                G * h
            );
        }
    }
}

/// What nonsmooth RATTLE does not integrate yet is refused when the simulation is built,
/// naming the system or interaction: a first-order system, a friction contact.
#[test]
fn what_rattle_does_not_take_is_refused() {
    use ricochet::model::{FirstOrderLinearDS, NewtonImpactFrictionNSL};
    let integrator = Integrator::NonsmoothRattle(NonsmoothRattleOSI::default());
    let mut circuit = Nsds::new();
    circuit.add(
        "circuit",
        FirstOrderLinearDS::new(one(1.0), DMatrix::zeros(1, 1)).unwrap(),
    );
    let error = TimeStepping::new(circuit, integrator, 0.0, 1e-3)
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("circuit"), "{error}");

    let block = LagrangianLinearTIDS::new(DVector::zeros(2), DVector::zeros(2), DMatrix::identity(2, 2)).unwrap();
    let mut nsds = Nsds::new();
    let id = nsds.add("block", block);
    let contact = LagrangianLinearTIR::new(DMatrix::identity(2, 2)).unwrap();
    nsds.link(
        "ground",
        NewtonImpactFrictionNSL::new(0.0, 0.0, 0.3, 2).unwrap(),
        contact,
        &[id],
    )
    .unwrap();
    let error = TimeStepping::new(nsds, integrator, 0.0, 1e-3)
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("ground") && error.contains("friction"), "{error}");

    let bad = NonsmoothRattleOSI {
        position_tolerance: 0.0,
        ..Default::default()
    };
    let error = TimeStepping::new(ball(0.5), Integrator::NonsmoothRattle(bad), 0.0, 1e-3)
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("position tolerance"), "{error}");
}

/// The stability guard: where ω_max is known (a LagrangianLinearTIDS: √λ_max(M⁻¹K)), a step
/// with h ω_max ≥ 2 is refused with the numbers; just below it runs.
#[test]
fn steps_past_the_stability_limit_are_refused() {
    let spring = |h: f64| {
        let oscillator = LagrangianLinearTIDS::new(one(1.0), one(0.0), DMatrix::from_element(1, 1, 4.0))
            .unwrap()
            .with_stiffness(DMatrix::from_element(1, 1, 400.0))
            .unwrap();
        let mut nsds = Nsds::new();
        nsds.add("spring", oscillator);
        TimeStepping::new(nsds, Integrator::NonsmoothRattle(NonsmoothRattleOSI::default()), 0.0, h)
    };
    // ω = √(400/4) = 10 rad/s: the limit is h = 0.2.
    let error = spring(0.2).err().unwrap().to_string();
    assert!(
        error.contains("spring") && error.contains("1.000000e1") && error.contains("h ω_max = 2.000"),
        "{error}"
    );
    assert!(spring(0.19).is_ok());
}

/// A scenario selects RATTLE with `[time] integrator = "rattle"`: on the reference backend
/// each scene's final state is the bits of a `TimeStepping` of the same scene under RATTLE;
/// `auto` runs it batched (the CPU lanes here, or a GPU), with no notice, to 1e-9 of it.
#[test]
fn a_scenario_selects_rattle() {
    use ricochet::ensemble::{self, Backend, RunOptions, Scenario};
    let scenario = Scenario::from_toml(
        r#"
name = "pendulums"
scenes = 4
seed = 5
[scene]
template = "pendulum_hitting_wall"
restitution = { uniform = [0.5, 0.9] }
[time]
step = 1e-3
final = 1.5
integrator = "rattle"
"#,
    )
    .unwrap();
    let on = |backend| RunOptions {
        backend,
        ..Default::default()
    };
    let run = ensemble::run(&scenario, &on(Backend::Reference), &ensemble::Progress::new()).unwrap();
    assert!(run.engine.starts_with("reference"), "{}", run.engine);
    let (x, v) = (run.summary.column("x").unwrap(), run.summary.column("x_dot").unwrap());
    for k in 0..4 {
        let scene = scenario.sample(k).unwrap().scene;
        let mut sim = rattle(scene.nsds().unwrap(), 1e-3);
        for _ in 0..1500 {
            sim.step().unwrap();
        }
        assert_eq!(x[k].to_bits(), sim.q(DsId(0))[0].to_bits(), "scene {k}");
        assert_eq!(v[k].to_bits(), sim.v(DsId(0))[0].to_bits(), "scene {k}");
    }
    let batched = ensemble::run(&scenario, &on(Backend::Auto), &ensemble::Progress::new()).unwrap();
    assert!(!batched.engine.starts_with("reference"), "{}", batched.engine);
    assert!(
        batched.notice.is_none() || batched.engine.starts_with("cpu"),
        "{:?}",
        batched.notice
    );
    for (a, b) in batched.summary.column("x").unwrap().iter().zip(&x) {
        assert!((a - b).abs() <= 1e-9, "{a} vs {b}");
    }
}

/// T7b: a ball with e = 1 bouncing for 10 s never gains energy at an impact, and loses at
/// most m g h (|v_n| + g h/2) there — the O(h) loss of a position-level impact, reached
/// (to rounding) when the ball starts the step on the floor; between impacts its energy is
/// exact (free flight).
#[test]
fn elastic_ball_never_gains_energy() {
    let h = 1e-3;
    let mut sim = rattle(ball(1.0), h);
    let mut energy = sim.energy().unwrap();
    let mut impacts = 0;
    for _ in 0..10_000 {
        let v_n = sim.v(DsId(0))[0];
        sim.step().unwrap();
        let after = sim.energy().unwrap();
        let change = after - energy;
        if sim.lambda()[0] > 0.0 {
            impacts += 1;
            let bound = G * h * (v_n.abs() + G * h / 2.0);
            assert!(
                change <= 1e-12 && change >= -bound * (1.0 + 1e-12),
                "t = {}: ΔE = {change:e}, bound {bound:e}",
                sim.time()
            );
        } else {
            assert!(
                change.abs() <= 1e-12,
                "t = {}: ΔE = {change:e} in free flight",
                sim.time()
            );
        }
        energy = after;
    }
    assert!(impacts >= 10, "{impacts} impacts");
}

/// FSAL (first same as last): where F does not depend on v, a step's half kick reuses the M
/// and F its predecessor's end kick evaluated at (t_{n+1}, q_{n+1}) — one F_ext evaluation per
/// step instead of two, the same bits as evaluating it again (forced by `set_state` to the same
/// state before every step, which clears the reuse).
#[test]
fn the_half_kick_reuses_the_last_end_kick_force() {
    use ricochet::model::LagrangianDS;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let scene = |calls: Arc<AtomicUsize>| {
        let ds = LagrangianDS::new(one(1.0), one(0.0), DMatrix::identity(1, 1))
            .unwrap()
            .with_fext_fn(move |t| {
                calls.fetch_add(1, Ordering::Relaxed);
                one(-G * (1.0 + 0.1 * t))
            })
            .unwrap();
        let mut nsds = Nsds::new();
        let id = nsds.add("ball", ds);
        let floor = LagrangianLinearTIR::new(DMatrix::identity(1, 1)).unwrap();
        nsds.link("floor", NewtonImpactNSL::new(0.8).unwrap(), floor, &[id])
            .unwrap();
        nsds
    };
    let (reused, fresh) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (mut a, mut b) = (rattle(scene(reused.clone()), 1e-3), rattle(scene(fresh.clone()), 1e-3));
    let (start_a, start_b) = (reused.load(Ordering::Relaxed), fresh.load(Ordering::Relaxed));
    for _ in 0..1500 {
        a.step().unwrap();
        let qv = [b.q(DsId(0))[0], b.v(DsId(0))[0]];
        b.set_state(&qv).unwrap();
        b.step().unwrap();
        assert_eq!(a.q(DsId(0))[0].to_bits(), b.q(DsId(0))[0].to_bits());
        assert_eq!(a.v(DsId(0))[0].to_bits(), b.v(DsId(0))[0].to_bits());
    }
    let (with, without) = (
        reused.load(Ordering::Relaxed) - start_a,
        fresh.load(Ordering::Relaxed) - start_b,
    );
    println!("F_ext evaluations over 1500 steps: {with} with FSAL, {without} without");
    assert!(without as f64 >= 1.99 * with as f64, "{with} vs {without}");
}
