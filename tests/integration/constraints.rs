//! Bilateral constraints on the CPU reference engine: the pendulum (Exudyn's quadratic
//! coordinate-vector constraint) against the exact reduced-coordinate pendulum, the pendulum
//! hitting a wall and the slider–crank (an MLCP per step), the Chaplygin sleigh against its
//! exact solution, linear coupling, rheonomous and scleronomous constraints, and bad input.

use nalgebra::{DMatrix, DVector};
use ricochet::error::Error;
use ricochet::model::{
    CoordinateVectorConstraint, DsId, EqualityConditionNSL, LagrangianLinearTIDS, LagrangianRheonomousR,
    LagrangianScleronomousR, Nsds,
};
use ricochet::reference::{Integrator, Stabilization, TimeStepping, Trajectory};
use ricochet::scenes::chaplygin_sleigh::ChaplyginSleigh;
use ricochet::scenes::pendulum::{Pendulum, ROD};
use ricochet::scenes::slider_crank::SliderCrank;
use ricochet::scheme::moreau_jean::MoreauJeanOSI;

const G_OVER_L: f64 = 9.81;

/// θ'' = −(g/L) sin θ by classical RK4 with `substeps` per output step h; returns θ(t_k).
fn exact_pendulum(theta0: f64, h: f64, steps: usize, substeps: usize) -> Vec<f64> {
    let f = |(th, om): (f64, f64)| (om, -G_OVER_L * th.sin());
    let dt = h / substeps as f64;
    let mut state = (theta0, 0.0);
    let mut out = vec![state.0];
    for _ in 0..steps {
        for _ in 0..substeps {
            let k1 = f(state);
            let k2 = f((state.0 + 0.5 * dt * k1.0, state.1 + 0.5 * dt * k1.1));
            let k3 = f((state.0 + 0.5 * dt * k2.0, state.1 + 0.5 * dt * k2.1));
            let k4 = f((state.0 + dt * k3.0, state.1 + dt * k3.1));
            state.0 += dt / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
            state.1 += dt / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
        }
        out.push(state.0);
    }
    out
}

/// The exact period 4 K(sin(θ₀/2)) √(L/g), K(k) = π / (2 AGM(1, √(1 − k²))).
fn exact_period(theta0: f64) -> f64 {
    let k = (theta0 / 2.0).sin();
    let (mut a, mut b) = (1.0, (1.0 - k * k).sqrt());
    while (a - b).abs() > 1e-15 {
        (a, b) = ((a + b) / 2.0, (a * b).sqrt());
    }
    4.0 * std::f64::consts::PI / (2.0 * a) / G_OVER_L.sqrt()
}

fn trajectory(mut sim: TimeStepping, t_final: f64) -> Trajectory {
    let mut trajectory = Trajectory::default();
    sim.run(t_final, &mut trajectory).unwrap();
    trajectory
}

/// The first time after `after` at which `f` changes sign, by linear interpolation.
fn crossing(trajectory: &Trajectory, after: f64, f: impl Fn(&DVector<f64>) -> f64) -> f64 {
    let s = &trajectory.samples;
    let i = (1..s.len())
        .find(|&i| s[i - 1].t >= after && f(&s[i - 1].q) * f(&s[i].q) < 0.0)
        .expect("no sign change");
    let (a, b) = (f(&s[i - 1].q), f(&s[i].q));
    s[i - 1].t + (s[i].t - s[i - 1].t) * a / (a - b)
}

struct PendulumErrors {
    position: f64,
    period: f64,
    residual: f64,
    energy: f64,
}

fn pendulum_errors(step: f64, stabilization: Stabilization) -> PendulumErrors {
    let pendulum = Pendulum {
        step,
        stabilization,
        ..Default::default()
    };
    pendulum_errors_of(&pendulum, pendulum.simulation().unwrap())
}

/// The largest distance of the mass in `traj` from the exact pendulum's (`pendulum`'s release
/// angle and step).
fn position_error(pendulum: &Pendulum, traj: &Trajectory) -> f64 {
    let exact = exact_pendulum(pendulum.angle, pendulum.step, traj.len() - 1, 10);
    traj.samples
        .iter()
        .zip(&exact)
        .map(|(s, th)| (s.q[0] - th.sin()).hypot(s.q[1] + th.cos()))
        .fold(0.0, f64::max)
}

/// The errors of `sim`, a simulation of `pendulum`, over 2 s against the exact pendulum.
fn pendulum_errors_of(pendulum: &Pendulum, sim: TimeStepping) -> PendulumErrors {
    let traj = trajectory(sim, 2.0);
    let position = position_error(pendulum, &traj);
    // Released at x = L: x returns through 0 at T/4 and 3T/4.
    let period = 2.0 * (crossing(&traj, 0.6, |q| q[0]) - crossing(&traj, 0.0, |q| q[0])) - exact_period(pendulum.angle);
    let e0 = traj.samples[0].energy;
    PendulumErrors {
        position,
        period: period.abs(),
        residual: traj.column(|s| s.constraint_residual).into_iter().fold(0.0, f64::max),
        energy: traj.column(|s| (s.energy - e0).abs()).into_iter().fold(0.0, f64::max),
    }
}

#[test]
fn pendulum_follows_the_exact_pendulum_at_first_order_with_projection() {
    let coarse = pendulum_errors(1e-3, Stabilization::projection());
    let fine = pendulum_errors(5e-4, Stabilization::projection());
    for (h, e) in [(1e-3, &coarse), (5e-4, &fine)] {
        println!(
            "h = {h}: position {:.2e} m, period {:.2e} s, residual {:.1e}, energy {:.2e} J",
            e.position, e.period, e.residual, e.energy
        );
        // Projection to 1e-12 in the Newton iteration: what is left is its tolerance.
        assert!(e.residual <= 1e-10, "{}", e.residual);
    }
    // Moreau–Jean enforces the rod at velocity level with the Jacobian at the end of the step:
    // first order even with θ = ½ (measured: 1.6e-2 m, 6.2e-3 s and 0.22 J of mgL = 9.81 J at
    // h = 1e-3, all halved at h = 5e-4). Halving h must halve every error.
    for (f, c) in [
        (fine.position, coarse.position),
        (fine.period, coarse.period),
        (fine.energy, coarse.energy),
    ] {
        assert!(f < 0.6 * c && f > 0.4 * c, "first order: {f} vs {c}");
    }
    assert!(coarse.position < 2e-2 && coarse.period < 1e-2 && coarse.energy < 0.25);
}

#[test]
fn without_projection_the_constraint_drifts_and_baumgarte_holds_it_back() {
    let none = pendulum_errors(1e-3, Stabilization::None);
    let baumgarte = pendulum_errors(1e-3, Stabilization::Baumgarte { beta: 0.5 });
    for (name, e) in [("none", &none), ("Baumgarte", &baumgarte)] {
        println!(
            "{name}: position {:.2e} m, period {:.2e} s, residual {:.1e}, energy {:.2e} J",
            e.position, e.period, e.residual, e.energy
        );
    }
    assert!(
        none.residual > 1e-6,
        "velocity-level enforcement drifts: {}",
        none.residual
    );
    assert!(baumgarte.residual < none.residual / 10.0);
    assert!(
        baumgarte.position < 2e-2,
        "the same first-order error as with projection"
    );
}

#[test]
fn ideal_constraints_do_no_work() {
    // Without projection, v_{k+1} is exactly what the step's MLCP made tangent: G(q̂) v_{k+1} = 0
    // and p = G(q̂)ᵀ λ, so the impulse does no work on it: v_{k+1}ᵀ p = λ (G v_{k+1}).
    let pendulum = Pendulum {
        stabilization: Stabilization::None,
        ..Default::default()
    };
    let sleigh = ChaplyginSleigh::default();
    for (name, sim, t) in [
        ("pendulum", pendulum.simulation().unwrap(), 2.0),
        ("sleigh", sleigh.simulation().unwrap(), 5.0),
    ] {
        let traj = trajectory(sim, t);
        let power = traj.column(|s| s.v.dot(&s.p).abs()).into_iter().fold(0.0, f64::max);
        let impulse = traj.column(|s| s.p.amax()).into_iter().fold(0.0, f64::max);
        println!("{name}: max |v·p| = {power:.1e} (max |p| = {impulse:.1e})");
        assert!(impulse > 1e-5, "{name}: the constraint carries an impulse");
        assert!(power <= 1e-12, "{name}: {power}");
    }
}

/// The impacts on the wall of a pendulum-hitting-a-wall run (steps where the wall's λ, the
/// second interaction's, turns positive; at least three) and E⁺/E⁻ across each, the energy
/// taken from the bottom of the swing: ½ m v² + m g (y + L), m = L = 1.
fn wall_impacts(traj: &Trajectory) -> Vec<(usize, f64)> {
    let loaded: Vec<bool> = traj.samples.iter().map(|s| s.lambda[1] > 0.0).collect();
    let onsets: Vec<usize> = (1..loaded.len()).filter(|&i| loaded[i] && !loaded[i - 1]).collect();
    assert!(onsets.len() >= 3, "{onsets:?}");
    let energy = |i: usize| traj.samples[i].energy + 9.81;
    onsets.into_iter().map(|i| (i, energy(i) / energy(i - 1))).collect()
}

#[test]
fn pendulum_hitting_a_wall_loses_energy_by_e_squared_per_impact() {
    let e = 0.7;
    let pendulum = Pendulum {
        step: 1e-4,
        ..Pendulum::hitting_wall(e)
    };
    let traj = trajectory(pendulum.simulation().unwrap(), 3.0);
    let onsets = wall_impacts(&traj);
    for (i, ratio) in onsets {
        println!(
            "impact at t = {:.4}: E+/E− = {ratio:.5} (e² = {})",
            traj.samples[i].t,
            e * e
        );
        assert!((ratio - e * e).abs() < 2e-2, "{ratio}");
        assert!(traj.samples[i].q[0] >= -1e-3, "the mass stays right of the wall");
        assert!(traj.samples[i].constraint_residual <= 1e-10);
    }
    assert!(traj.column(|s| s.q[0]).into_iter().all(|x| x >= -1e-2));
}

#[test]
fn slider_crank_keeps_its_constraints_and_bounces_off_the_stop() {
    let mechanism = SliderCrank::default();
    let traj = trajectory(mechanism.simulation().unwrap(), 1.0);
    let residual = traj.column(|s| s.constraint_residual).into_iter().fold(0.0, f64::max);
    assert!(residual <= 1e-10, "{residual}");
    let loaded: Vec<bool> = traj.samples.iter().map(|s| s.lambda[3] > 0.0).collect();
    let onsets: Vec<usize> = (1..loaded.len()).filter(|&i| loaded[i] && !loaded[i - 1]).collect();
    assert!(!onsets.is_empty(), "the slider reaches the stop");
    let e = mechanism.restitution;
    for &i in &onsets {
        let (before, after) = (&traj.samples[i - 1], &traj.samples[i]);
        let ratio = after.energy / before.energy;
        println!(
            "impact at t = {:.4}: E+/E− = {ratio:.5}, v_B {:.4} → {:.4}",
            after.t, before.v[2], after.v[2]
        );
        // One degree of freedom: the whole kinetic energy scales by e².
        assert!((ratio - e * e).abs() < 2e-2, "{ratio}");
        assert!(after.q[2] <= mechanism.stop + 1e-3);
    }
    // Between impacts the energy is constant (no gravity) up to the scheme's error.
    let e0 = traj.samples[0].energy;
    let before_first = (0..onsets[0] - 1)
        .map(|i| (traj.samples[i].energy - e0).abs() / e0)
        .fold(0.0, f64::max);
    assert!(before_first < 1e-3, "{before_first}");
}

#[test]
fn chaplygin_sleigh_follows_its_exact_solution_at_first_order() {
    let error = |step: f64| {
        let sleigh = ChaplyginSleigh {
            step,
            ..Default::default()
        };
        let traj = trajectory(sleigh.simulation().unwrap(), 5.0);
        let mut worst: f64 = 0.0;
        for s in &traj.samples {
            let (u, w) = ChaplyginSleigh::speeds(&s.q, &s.v);
            let (ue, we, phie) = sleigh.exact(s.t);
            worst = worst.max((u - ue).abs()).max((w - we).abs()).max((s.q[2] - phie).abs());
        }
        let residual = traj.column(|s| s.velocity_residual).into_iter().fold(0.0, f64::max);
        println!("h = {step}: max deviation {worst:.2e}, |a(q) v| ≤ {residual:.1e}");
        assert!(residual <= 1e-3, "{residual}");
        worst
    };
    let (coarse, fine) = (error(1e-3), error(5e-4));
    assert!(coarse < 1e-2, "{coarse}");
    // The blade is enforced on a(q_k + h v_k): first order, halving h halves the error.
    assert!(fine < 0.6 * coarse, "{fine} vs {coarse}");
}

#[test]
fn two_masses_coupled_by_a_linear_constraint_move_as_one_body() {
    // X₁ q₁ − X₀ q₀ = d in 2-D: the masses keep their offset d and move under the total force.
    let (m0, m1) = (1.0, 3.0);
    let (f0, f1) = (DVector::from_vec(vec![2.0, 0.0]), DVector::from_vec(vec![0.0, -4.0]));
    let d = DVector::from_vec(vec![0.5, 0.25]);
    let mut nsds = Nsds::new();
    let body0 = LagrangianLinearTIDS::new(
        DVector::zeros(2),
        DVector::from_vec(vec![1.0, 0.0]),
        DMatrix::identity(2, 2) * m0,
    )
    .unwrap()
    .with_fext(f0.clone())
    .unwrap();
    let body1 = LagrangianLinearTIDS::new(
        d.clone(),
        DVector::from_vec(vec![1.0, 0.0]),
        DMatrix::identity(2, 2) * m1,
    )
    .unwrap()
    .with_fext(f1.clone())
    .unwrap();
    let (a, b) = (nsds.add("a", body0), nsds.add("b", body1));
    let coupling = CoordinateVectorConstraint::builder("coupling", [2, 2])
        .scaling(0, DMatrix::identity(2, 2))
        .scaling(1, DMatrix::identity(2, 2))
        .offset(d.clone())
        .build()
        .unwrap();
    let id = nsds
        .link("coupling", EqualityConditionNSL::new(2).unwrap(), coupling, &[a, b])
        .unwrap();
    let mut sim = TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, 1e-3).unwrap();
    let steps = sim.steps_until(1.0).unwrap();
    for _ in 0..steps {
        sim.step().unwrap();
    }
    let t = sim.time();
    let acceleration = (&f0 + &f1) / (m0 + m1);
    // θ = ½ integrates a constant acceleration exactly.
    let expected = DVector::from_vec(vec![1.0, 0.0]) * t + &acceleration * (0.5 * t * t);
    let (q0, q1) = (sim.q(DsId(0)), sim.q(DsId(1)));
    assert!((&q0 - &expected).amax() < 1e-12, "{q0} vs {expected}");
    assert!((&q1 - &q0 - &d).amax() < 1e-12);
    assert!((sim.v(DsId(1)) - sim.v(DsId(0))).amax() < 1e-12);
    let outputs = sim.coordinate_vector_outputs(id).unwrap();
    assert!((outputs.displacement.unwrap() - &d).amax() < 1e-12);
    assert!(outputs.velocity.unwrap().amax() < 1e-12);
    assert!(outputs.constraint_equation.amax() < 1e-12);
    // The force on body 1 is X₁ᵀλ/h: what makes it accelerate with the pair, m₁ a − f₁.
    assert!(
        (&outputs.force - (&acceleration * m1 - &f1)).amax() < 1e-9,
        "{}",
        outputs.force
    );
}

#[test]
fn hanging_pendulum_reports_its_outputs_and_falls_when_the_rod_is_inactive() {
    let pendulum = Pendulum {
        angle: 0.0,
        stabilization: Stabilization::None,
        ..Default::default()
    };
    let mut sim = pendulum.simulation().unwrap();
    sim.step().unwrap();
    let outputs = sim.coordinate_vector_outputs(ROD).unwrap();
    // p = Gᵀλ = (0, −2L λ) balances the weight's impulse −m g h: λ/h = −m g / (2L).
    assert!((outputs.force[0] + 9.81 / 2.0).abs() < 1e-9, "{}", outputs.force);
    assert!(outputs.constraint_equation.amax() < 1e-12);
    assert!((outputs.displacement.unwrap() - DVector::from_vec(vec![0.0, -1.0])).amax() < 1e-12);
    sim.set_active(ROD, false).unwrap();
    let t0 = sim.time();
    for _ in 0..100 {
        sim.step().unwrap();
        assert_eq!(sim.lambda()[0], 0.0, "an inactive constraint carries no λ");
    }
    let fall = -1.0 - 0.5 * 9.81 * (sim.time() - t0).powi(2);
    assert!((sim.q(DsId(0))[1] - fall).abs() < 1e-12);
}

#[test]
fn scleronomous_equality_is_the_same_pendulum() {
    let pendulum = Pendulum::default();
    let mut nsds = Nsds::new();
    let (sin, cos) = pendulum.angle.sin_cos();
    let body = LagrangianLinearTIDS::new(
        DVector::from_vec(vec![sin, -cos]),
        DVector::zeros(2),
        DMatrix::identity(2, 2),
    )
    .unwrap()
    .with_fext(DVector::from_vec(vec![0.0, -9.81]))
    .unwrap();
    let body = nsds.add("mass", body);
    let rod = LagrangianScleronomousR::new(
        |q| DVector::from_element(1, q[0] * q[0] + q[1] * q[1] - 1.0),
        |q| DMatrix::from_row_slice(1, 2, &[2.0 * q[0], 2.0 * q[1]]),
    );
    nsds.link("rod", EqualityConditionNSL::new(1).unwrap(), rod, &[body])
        .unwrap();
    let mut sim = TimeStepping::new(nsds, Integrator::MoreauJean(pendulum.osi), 0.0, pendulum.step).unwrap();
    sim.stabilization = pendulum.stabilization;
    let a = trajectory(sim, 1.0);
    let b = trajectory(pendulum.simulation().unwrap(), 1.0);
    for (x, y) in a.samples.iter().zip(&b.samples) {
        assert_eq!(x.q, y.q);
        assert_eq!(x.v, y.v);
    }
}

/// x(t) = A sin(ω t) prescribed for a mass on springs (q = (x, z), K = 10 I).
const DRIVE: (f64, f64) = (0.2, 3.0);

/// Runs the mass under the equality `drive` (which prescribes x(t) = A sin ω t) with projection
/// for 2 s, checks x against the prescription to 1e-10 and that z stays at rest, and returns
/// the trajectory.
fn driven(drive: impl Into<ricochet::model::Relation>) -> Trajectory {
    let (amplitude, omega) = DRIVE;
    let mut nsds = Nsds::new();
    let body = LagrangianLinearTIDS::new(
        DVector::from_vec(vec![0.0, 0.0]),
        DVector::from_vec(vec![amplitude * omega, 0.0]),
        DMatrix::identity(2, 2),
    )
    .unwrap()
    .with_stiffness(DMatrix::identity(2, 2) * 10.0)
    .unwrap();
    let body = nsds.add("mass", body);
    nsds.link("drive", EqualityConditionNSL::new(1).unwrap(), drive, &[body])
        .unwrap();
    let mut sim = TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, 1e-3).unwrap();
    sim.stabilization = Stabilization::projection();
    let traj = trajectory(sim, 2.0);
    for s in &traj.samples {
        assert!((s.q[0] - amplitude * (omega * s.t).sin()).abs() <= 1e-10, "t = {}", s.t);
        assert_eq!(s.q[1], 0.0, "the free coordinate stays at rest");
    }
    traj
}

#[test]
fn rheonomous_equality_drives_a_coordinate() {
    // g(q, t) = x − A sin(ω t) = 0 with its exact ∂g/∂t.
    let (amplitude, omega) = DRIVE;
    driven(LagrangianRheonomousR::new(
        move |q, t| DVector::from_element(1, q[0] - amplitude * (omega * t).sin()),
        |_, _| DMatrix::from_row_slice(1, 2, &[1.0, 0.0]),
        move |_, t| DVector::from_element(1, -amplitude * omega * (omega * t).cos()),
    ));
}

#[test]
fn time_dependent_user_constraint_drives_a_coordinate() {
    // The same as a coordinate-vector user function c(t, q): ∂c/∂t enters the velocity rows by
    // central differences, so the velocity follows the prescription too (to their error).
    let (amplitude, omega) = DRIVE;
    let drive = CoordinateVectorConstraint::builder("drive", [0, 2])
        .constraint_function(1, move |t, q| {
            DVector::from_element(1, q[0] - amplitude * (omega * t).sin())
        })
        .jacobian_function(|_, _| DMatrix::from_row_slice(1, 2, &[1.0, 0.0]))
        .build()
        .unwrap();
    for s in &driven(drive).samples {
        assert!(
            (s.v[0] - amplitude * omega * (omega * s.t).cos()).abs() <= 1e-6,
            "t = {}: {}",
            s.t,
            s.v[0]
        );
    }
}

#[test]
fn bad_constraints_are_refused_with_the_constraints_name() {
    let err = |r: Result<CoordinateVectorConstraint, Error>| r.unwrap_err().to_string();
    // X_m0 and X_m1 of different row counts.
    let e = err(CoordinateVectorConstraint::builder("bad", [2, 2])
        .scaling(0, DMatrix::identity(2, 2))
        .scaling(1, DMatrix::identity(1, 2))
        .build());
    assert!(e.contains("bad") && e.contains("X_m1"), "{e}");
    // Wrong column count for the marker.
    let e = err(CoordinateVectorConstraint::builder("cols", [0, 2])
        .scaling(1, DMatrix::identity(1, 3))
        .build());
    assert!(e.contains("cols") && e.contains("X_m1"), "{e}");
    // Offset of the wrong length.
    let e = err(CoordinateVectorConstraint::builder("off", [0, 2])
        .scaling(1, DMatrix::identity(1, 2))
        .offset(DVector::zeros(3))
        .build());
    assert!(e.contains("off") && e.contains("offset"), "{e}");
    // A user function without its Jacobian, and the converse.
    let e = err(CoordinateVectorConstraint::builder("nojac", [0, 2])
        .constraint_function(1, |_, q| q.rows(0, 1).into_owned())
        .build());
    assert!(e.contains("nojac") && e.contains("Jacobian"), "{e}");
    let e = err(CoordinateVectorConstraint::builder("nofn", [0, 2])
        .jacobian_function(|_, _| DMatrix::zeros(1, 2))
        .build());
    assert!(e.contains("nofn"), "{e}");
    // Nothing to constrain.
    assert!(err(CoordinateVectorConstraint::builder("empty", [0, 2]).build()).contains("empty"));
    // Quadratic terms at velocity level.
    let e = err(CoordinateVectorConstraint::builder("vel", [0, 2])
        .quadratic(1, DMatrix::identity(1, 2))
        .velocity_level(true)
        .build());
    assert!(e.contains("vel") && e.contains("velocity level"), "{e}");

    // At link time: a Jacobian of the wrong shape, markers that do not match the systems.
    let mut nsds = Nsds::new();
    let body = nsds.add(
        "mass",
        LagrangianLinearTIDS::new(DVector::zeros(2), DVector::zeros(2), DMatrix::identity(2, 2)).unwrap(),
    );
    let wrong_jacobian = CoordinateVectorConstraint::builder("shape", [0, 2])
        .constraint_function(1, |_, q| q.rows(0, 1).into_owned())
        .jacobian_function(|_, _| DMatrix::zeros(1, 3))
        .build()
        .unwrap();
    let e = nsds
        .link(
            "link of shape",
            EqualityConditionNSL::new(1).unwrap(),
            wrong_jacobian,
            &[body],
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`link of shape`") && e.contains("`shape`") && (e.contains("1x3") || e.contains("1×3")),
        "{e}"
    );
    let three = CoordinateVectorConstraint::builder("three", [0, 3])
        .scaling(1, DMatrix::identity(1, 3))
        .build()
        .unwrap();
    let e = nsds
        .link("three", EqualityConditionNSL::new(1).unwrap(), three, &[body])
        .unwrap_err()
        .to_string();
    assert!(e.contains("three") && e.contains("[0, 3]") && e.contains("[2]"), "{e}");
    // The law's size must be the number of equations.
    let two = CoordinateVectorConstraint::builder("size", [0, 2])
        .scaling(1, DMatrix::identity(2, 2))
        .build()
        .unwrap();
    let e = nsds
        .link("size", EqualityConditionNSL::new(1).unwrap(), two, &[body])
        .unwrap_err()
        .to_string();
    assert!(e.contains("size"), "{e}");
    assert!(EqualityConditionNSL::new(0).is_err());
    // A marker other than 0 and 1.
    let e = err(CoordinateVectorConstraint::builder("marker", [0, 2])
        .scaling(2, DMatrix::identity(1, 2))
        .build());
    assert!(e.contains("marker") && e.contains("marker 2"), "{e}");
    // Markers of [2, 2] coordinates linked to systems of 3 and 1: the split would be wrong.
    let tids =
        |n: usize| LagrangianLinearTIDS::new(DVector::zeros(n), DVector::zeros(n), DMatrix::identity(n, n)).unwrap();
    let (three, one, four) = (
        nsds.add("three", tids(3)),
        nsds.add("one", tids(1)),
        nsds.add("four", tids(4)),
    );
    let split = CoordinateVectorConstraint::builder("split", [2, 2])
        .scaling(1, DMatrix::identity(1, 2))
        .build()
        .unwrap();
    let e = nsds
        .link("split", EqualityConditionNSL::new(1).unwrap(), split, &[three, one])
        .unwrap_err()
        .to_string();
    assert!(e.contains("split") && e.contains("[3, 1]"), "{e}");
    // Two sphere markers on one system of four coordinates.
    let pair = ricochet::model::SphereSphereR::new(2, [2, 2], 0.2).unwrap();
    let e = nsds
        .link(
            "pair",
            ricochet::model::NewtonImpactNSL::new(0.5).unwrap(),
            pair,
            &[four],
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("pair") && e.contains("[4]"), "{e}");
    assert!(ricochet::model::SphereSphereR::fixed(4, 4, &[0.0; 4], 0.1).is_err());
    // A compliant relation is not an equality.
    let spring = ricochet::model::LagrangianCompliantLinearTIR::new(
        DMatrix::identity(1, 1),
        DVector::zeros(1),
        DMatrix::identity(1, 1),
    )
    .unwrap();
    let e = nsds
        .link("spring", EqualityConditionNSL::new(1).unwrap(), spring, &[one])
        .unwrap_err()
        .to_string();
    assert!(e.contains("spring") && e.contains("compliant"), "{e}");
    // Baumgarte's gain beyond 1.
    let mut sim = Pendulum::default().simulation().unwrap();
    sim.stabilization = Stabilization::Baumgarte { beta: 1.5 };
    assert!(sim.step().unwrap_err().to_string().contains("β"));
}

/// Nonsmooth RATTLE on the pendulum (T1 and T4): second order — at h = 1e-3 the position
/// error is ≤ 1.5e-5 m (an independent prototype: 1.174e-5), the error ratio e(2h)/e(h) ∈
/// [3.8, 4.2], the period error ≤ 5e-6 s — with the rod held at position level at every step
/// (|x² + y² − L²| ≤ 1e-12), against Moreau–Jean's 1.6 cm.
#[test]
fn pendulum_is_second_order_under_nonsmooth_rattle() {
    let errors = |step: f64| {
        let pendulum = Pendulum {
            step,
            ..Default::default()
        };
        let rattle = Integrator::NonsmoothRattle(ricochet::scheme::NonsmoothRattleOSI::default());
        let sim = TimeStepping::new(pendulum.nsds().unwrap(), rattle, 0.0, step).unwrap();
        pendulum_errors_of(&pendulum, sim)
    };
    let (coarse, fine, finer) = (errors(2e-3), errors(1e-3), errors(5e-4));
    println!(
        "RATTLE pendulum: position {:.3e} {:.3e} {:.3e} m, period {:.2e} s, residual {:.1e}",
        coarse.position, fine.position, finer.position, fine.period, fine.residual
    );
    assert!(fine.position <= 1.5e-5, "{}", fine.position);
    for ratio in [coarse.position / fine.position, fine.position / finer.position] {
        assert!((3.8..=4.2).contains(&ratio), "order: ratio {ratio}");
    }
    assert!(fine.period <= 5e-6, "period error {}", fine.period);
    assert!(fine.residual <= 1e-12, "residual {}", fine.residual);
}

/// RATTLE's T6: the pendulum hitting a wall (e = 0.7, h = 1e-3) loses e² of its energy at
/// each impact to 2e-4 (an independent prototype: 0.48999), with the rod held (|g| ≤ 1e-12) and
/// the mass never past the wall (x ≥ −1e-14).
#[test]
fn pendulum_hitting_a_wall_under_nonsmooth_rattle() {
    let e = 0.7;
    let pendulum = Pendulum {
        step: 1e-3,
        ..Pendulum::hitting_wall(e)
    };
    let rattle = Integrator::NonsmoothRattle(ricochet::scheme::NonsmoothRattleOSI::default());
    let traj = trajectory(
        TimeStepping::new(pendulum.nsds().unwrap(), rattle, 0.0, 1e-3).unwrap(),
        3.0,
    );
    for (i, ratio) in wall_impacts(&traj) {
        println!(
            "RATTLE impact at t = {:.4}: E+/E− = {ratio:.6} (e² = {})",
            traj.samples[i].t,
            e * e
        );
        assert!((ratio - e * e).abs() <= 2e-4, "{ratio}");
    }
    let lowest = traj.column(|s| s.q[0]).into_iter().fold(f64::INFINITY, f64::min);
    let residual = traj.column(|s| s.constraint_residual).into_iter().fold(0.0, f64::max);
    assert!(lowest >= -1e-14 && residual <= 1e-12, "x ≥ {lowest}, |g| ≤ {residual}");
}

/// RATTLE's T3: the pendulum's mass in a bowl of radius L instead of on a rod — the
/// unilateral g_N = L² − x² − y² ≥ 0 under NewtonImpactNSL(0), a persistent contact — follows
/// the exact pendulum at second order as on the rod (1.174e-5 m at h = 1e-3, ratio 4) and
/// never leaves the bowl by more than 1e-13.
#[test]
fn mass_in_a_bowl_is_second_order_under_nonsmooth_rattle() {
    use ricochet::model::NewtonImpactNSL;
    let errors = |step: f64| {
        let pendulum = Pendulum {
            step,
            ..Default::default()
        };
        let l = pendulum.length;
        let mass = LagrangianLinearTIDS::new(
            DVector::from_vec(vec![l, 0.0]),
            DVector::zeros(2),
            DMatrix::identity(2, 2),
        )
        .unwrap()
        .with_fext(DVector::from_vec(vec![0.0, -9.81]))
        .unwrap();
        let mut nsds = Nsds::new();
        let id = nsds.add("mass", mass);
        let bowl = LagrangianScleronomousR::new(
            move |q| DVector::from_element(1, l * l - q[0] * q[0] - q[1] * q[1]),
            |q| DMatrix::from_row_slice(1, 2, &[-2.0 * q[0], -2.0 * q[1]]),
        );
        nsds.link("bowl", NewtonImpactNSL::new(0.0).unwrap(), bowl, &[id])
            .unwrap();
        let rattle = Integrator::NonsmoothRattle(ricochet::scheme::NonsmoothRattleOSI::default());
        let sim = TimeStepping::new(nsds, rattle, 0.0, step).unwrap();
        let traj = trajectory(sim, 2.0);
        let deepest = traj.column(|s| s.y[0]).into_iter().fold(f64::INFINITY, f64::min);
        (position_error(&pendulum, &traj), deepest)
    };
    let ((fine, deepest), (finer, _)) = (errors(1e-3), errors(5e-4));
    println!("RATTLE bowl: position {fine:.3e} {finer:.3e} m, deepest g_N {deepest:e}");
    assert!(fine <= 1.5e-5, "{fine}");
    assert!((3.8..=4.2).contains(&(fine / finer)), "order: ratio {}", fine / finer);
    assert!(deepest >= -1e-13, "{deepest}");
}

/// RATTLE's T7a: with e = 1 and no impact, the pendulum's energy stays bounded over 50 s —
/// its largest deviation over [40, 50] s is at most 1.1 × that over [0, 10] s (symplectic: no
/// drift; an independent prototype: 3.61e-5 both).
#[test]
fn pendulum_energy_does_not_drift_under_nonsmooth_rattle() {
    let pendulum = Pendulum::default();
    let rattle = Integrator::NonsmoothRattle(ricochet::scheme::NonsmoothRattleOSI::default());
    let traj = trajectory(
        TimeStepping::new(pendulum.nsds().unwrap(), rattle, 0.0, pendulum.step).unwrap(),
        50.0,
    );
    let e0 = traj.samples[0].energy;
    let worst = |from: f64, to: f64| {
        traj.samples
            .iter()
            .filter(|s| s.t >= from && s.t <= to)
            .map(|s| (s.energy - e0).abs())
            .fold(0.0, f64::max)
    };
    let (early, late) = (worst(0.0, 10.0), worst(40.0, 50.0));
    println!("RATTLE pendulum energy: max |E − E₀| {early:.3e} over [0, 10] s, {late:.3e} over [40, 50] s");
    assert!(late <= 1.1 * early, "{late} vs {early}");
}

/// RATTLE's T4 on the slider–crank: the constraints hold at position level (|g| ≤ 1e-12) and
/// at velocity level (|G v| ≤ 1e-12 |v|max) at every step, through the impacts on the stop,
/// which the slider never passes.
#[test]
fn slider_crank_does_not_drift_under_nonsmooth_rattle() {
    let mechanism = SliderCrank::default();
    let mut sim = mechanism.simulation().unwrap();
    sim.set_integrator(Integrator::NonsmoothRattle(
        ricochet::scheme::NonsmoothRattleOSI::default(),
    ))
    .unwrap();
    // (The scene projects by default; RATTLE holds the constraints by itself.)
    sim.stabilization = Stabilization::None;
    let traj = trajectory(sim, 1.0);
    let speed = traj.column(|s| s.v.amax()).into_iter().fold(0.0, f64::max);
    let position = traj.column(|s| s.constraint_residual).into_iter().fold(0.0, f64::max);
    let velocity = traj.column(|s| s.velocity_residual).into_iter().fold(0.0, f64::max);
    let impacts = traj
        .samples
        .windows(2)
        .filter(|w| w[1].lambda[3] > 0.0 && w[0].lambda[3] == 0.0)
        .count();
    let farthest = traj.column(|s| s.q[2]).into_iter().fold(f64::MIN, f64::max);
    println!(
        "RATTLE slider–crank: |g| ≤ {position:.1e}, |G v| ≤ {velocity:.1e} (|v|max {speed:.2}), {impacts} impacts, x_B ≤ {farthest}"
    );
    assert!(
        position <= 1e-12 && velocity <= 1e-12 * speed,
        "|g| {position}, |G v| {velocity}"
    );
    assert!(
        impacts > 0 && farthest <= mechanism.stop + 1e-12,
        "{impacts} impacts, x_B ≤ {farthest}"
    );
}
