//! Siconos's reference trajectories (siconos-tutorials, Apache-2.0, in ../shared/data/siconos)
//! reproduced column by column to 1e-9.

use crate::common;

use nalgebra::{DMatrix, DVector};
use ricochet::io::siconos::read_ref;
use ricochet::model::{
    ComplementarityConditionNSL, FirstOrderLinearDS, FirstOrderLinearTIR, LagrangianCompliantLinearTIR, LagrangianDS,
    LagrangianLinearTIDS, LagrangianLinearTIR, LagrangianScleronomousR, NewtonImpactFrictionNSL, NewtonImpactNSL, Nsds,
};
use ricochet::numerics::friction::{FrictionOptions, FrictionSolver};
use ricochet::reference::{Integrator, Sample, TimeStepping, Trajectory};
use ricochet::scenes::{
    bouncing_ball::BouncingBall, circuit_rlcd::CircuitRlcd, column_of_beads::ColumnOfBeads, diode_bridge::DiodeBridge,
    diode_bridge_cap_filter::DiodeBridgeCapFilter, impacting_bar::ImpactingBar, woodpecker::Woodpecker,
};
use ricochet::scheme::EulerMoreauOSI;
use ricochet::scheme::moreau_jean::{Activation, MoreauJeanOSI};

const TOL: f64 = 1e-9;

fn reference(file: &str) -> Option<DMatrix<f64>> {
    let dir = common::siconos_data()?;
    Some(read_ref(&dir.join("tutorials-ref").join(file)).expect("reference file parses"))
}

/// Runs `sim` for `rows − 1` steps and maps every sample to a row.
fn rows(mut sim: TimeStepping, rows: usize, row: impl Fn(&Sample) -> Vec<f64>) -> Vec<Vec<f64>> {
    let mut trajectory = Trajectory::default();
    trajectory.samples.push(sim.sample().unwrap());
    for _ in 1..rows {
        sim.step().unwrap();
        trajectory.samples.push(sim.sample().unwrap());
    }
    trajectory.samples.iter().map(row).collect()
}

/// A ball of mass 1 and radius 0.1 under gravity g, q = (z, x, θ), at rest at z = 1.
fn ball(g: f64) -> LagrangianLinearTIDS {
    let mass = DMatrix::from_diagonal(&DVector::from_vec(vec![1.0, 1.0, 0.4 * 0.01]));
    LagrangianLinearTIDS::new(DVector::from_vec(vec![1.0, 0.0, 0.0]), DVector::zeros(3), mass)
        .unwrap()
        .with_fext(DVector::from_vec(vec![-g, 0.0, 0.0]))
        .unwrap()
}

#[test]
fn bouncing_ball_ts() {
    let Some(reference) = reference("BouncingBallTS.ref") else {
        return;
    };
    let sim = BouncingBall::default().simulation().unwrap();
    let ours = rows(sim, reference.nrows(), |s| {
        vec![s.t, s.q[0], s.v[0], s.p[0], s.lambda[0]]
    });
    common::compare_with_reference("BouncingBallTS", &reference, &ours, TOL);
}

/// BouncingBallTS with the ball as Siconos's `LagrangianLinearDiagonalDS` (M = diag(m, m,
/// ⅖ m R²), K = C = 0): the reference to 1e-9, and the same bits as the dense system.
#[test]
fn bouncing_ball_ts_as_a_diagonal_system() {
    use ricochet::model::LagrangianLinearDiagonalDS;
    let Some(reference) = reference("BouncingBallTS.ref") else {
        return;
    };
    let scene = BouncingBall::default();
    let (m, r, g) = (scene.mass, scene.radius, scene.gravity);
    let ball = LagrangianLinearDiagonalDS::with_mass(
        DVector::from_vec(vec![scene.height, 0.0, 0.0]),
        DVector::from_vec(vec![scene.velocity, 0.0, 0.0]),
        DVector::zeros(3),
        DVector::zeros(3),
        DVector::from_vec(vec![m, m, 0.4 * m * r * r]),
    )
    .unwrap()
    .with_fext(DVector::from_vec(vec![-m * g, 0.0, 0.0]))
    .unwrap();
    let mut nsds = Nsds::new();
    let id = nsds.add("ball", ball);
    let floor = LagrangianLinearTIR::new(DMatrix::from_row_slice(1, 3, &[1.0, 0.0, 0.0])).unwrap();
    nsds.link("floor", NewtonImpactNSL::new(scene.restitution).unwrap(), floor, &[id])
        .unwrap();
    let row = |s: &Sample| vec![s.t, s.q[0], s.v[0], s.p[0], s.lambda[0]];
    let sim = TimeStepping::new(nsds, Integrator::MoreauJean(scene.osi), 0.0, scene.step).unwrap();
    let ours = rows(sim, reference.nrows(), row);
    common::compare_with_reference("BouncingBallTS (diagonal)", &reference, &ours, TOL);
    let dense = rows(scene.simulation().unwrap(), reference.nrows(), row);
    assert!(
        ours.iter()
            .flatten()
            .zip(dense.iter().flatten())
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "the diagonal system is the dense one"
    );
}

#[test]
fn column_of_beads_ts() {
    let Some(reference) = reference("ColumnOfBeadsTS.ref") else {
        return;
    };
    let mut sim = ColumnOfBeads::default().simulation().unwrap();
    let mut trajectory = Trajectory::default();
    sim.run(2.0, &mut trajectory).unwrap();
    let ours: Vec<Vec<f64>> = trajectory
        .samples
        .iter()
        .map(|s| {
            let mut row = vec![s.t];
            row.extend(sim.beads().iter().flat_map(|b| [s.q[3 * b.0], s.v[3 * b.0]]));
            row.resize(41, 0.0);
            row
        })
        .collect();
    common::compare_with_reference("ColumnOfBeadsTS", &reference, &ours, TOL);
}

#[test]
fn impacting_bar() {
    let Some(reference) = reference("ImpactingBar.ref") else {
        return;
    };
    let bar = ImpactingBar::default();
    let (mass, stiffness) = bar.matrices();
    let (n, h, theta) = (bar.nodes, bar.step, bar.osi.theta);
    let sim = bar.simulation().unwrap();
    let mut ours = rows(sim, reference.nrows(), |s| {
        let impulse = if s.t == bar.t0 { s.p[0] } else { s.p[0] / h };
        vec![
            s.t,
            s.q[0],
            s.v[0],
            impulse,
            s.lambda[0],
            s.q.dot(&(&stiffness * &s.q)),
            s.v.dot(&(&mass * &s.v)),
            s.q[n - 1],
            s.v[n - 1],
            s.q[n / 2],
            s.v[n / 2],
            0.0,
        ]
    });
    // Impact energy: (θ v₀ + (1 − θ) v₀ of the previous row) λ.
    for k in 1..ours.len() {
        ours[k][11] = (theta * ours[k][2] + (1.0 - theta) * ours[k - 1][2]) * ours[k][4];
    }
    common::compare_with_reference("ImpactingBar", &reference, &ours, TOL);
}

#[test]
fn diode_bridge() {
    let Some(reference) = reference("DiodeBridge.ref") else {
        return;
    };
    let sim = DiodeBridge::default().simulation().unwrap();
    let ours = rows(sim, reference.nrows(), |s| {
        vec![
            s.t,
            s.q[0],
            s.q[1],
            s.y[0],
            -s.lambda[0],
            -s.lambda[1],
            s.lambda[2],
            s.y[0] + s.lambda[2],
        ]
    });
    common::compare_with_reference("DiodeBridge", &reference, &ours, TOL);
}

/// DiodeBridgeCapFilter (θ = 1): two first-order systems under one relation; columns 0–3
/// (t, v_C, i_L, λ₀) to 1e-12, the columns siconos-tutorials'
/// `examples/electronics/DiodeBridgeCapFilter/DiodeBridgeCapFilter.cpp` compares — the others
/// depend on the LCP solver where λ₁ is not unique.
#[test]
fn diode_bridge_cap_filter() {
    let Some(reference) = reference("DiodeBridgeCapFilter.ref") else {
        return;
    };
    let sim = DiodeBridgeCapFilter::default().simulation().unwrap();
    let ours = rows(sim, reference.nrows(), |s| vec![s.t, s.q[0], s.q[1], s.lambda[0]]);
    let columns = reference.columns(0, 4).into_owned();
    common::compare_with_reference("DiodeBridgeCapFilter", &columns, &ours, 1e-12);
}

/// Siconos's Circuit-ThetaGammaSchemes: the full θ-γ Euler–Moreau (θ = γ = ½, the relation
/// at x_{k+½}; siconos-tutorials' `examples/electronics/Circuit-ThetaGammaSchemes/*.cpp`) on
/// three circuits.
fn theta_gamma(nsds: Nsds, h: f64) -> TimeStepping {
    let osi = EulerMoreauOSI::theta_gamma(0.5, 0.5).unwrap();
    TimeStepping::new(nsds, Integrator::EulerMoreau(osi), 0.0, h).unwrap()
}

/// CircuitRLCD, θ-γ: x' = [[0, −1], [4π², 0]] x + r, y = 4π² x₀ + 10 λ, r = (λ, 0); t, x,
/// −y, λ and the energy balance (storage ½(4π² x₀² + x₁²), dissipation Σ h R λ², their sum)
/// to 1e-12 (column 5, r₀ printed once at t = 0, is left out).
#[test]
fn circuit_rlcd_theta_gamma() {
    let Some(reference) = reference("Circuit-ThetaGammaSchemes/CircuitRLCD.ref") else {
        return;
    };
    let k = 4.0 * std::f64::consts::PI * std::f64::consts::PI;
    let circuit = FirstOrderLinearDS::new(
        DVector::from_vec(vec![1.0, 1.0]),
        DMatrix::from_row_slice(2, 2, &[0.0, -1.0, k, 0.0]),
    )
    .unwrap();
    let diode = FirstOrderLinearTIR::new(
        DMatrix::from_row_slice(1, 2, &[k, 0.0]),
        DMatrix::from_element(1, 1, 10.0),
        DMatrix::from_row_slice(2, 1, &[1.0, 0.0]),
        DVector::zeros(1),
    )
    .unwrap();
    let mut nsds = Nsds::new();
    let id = nsds.add("circuit", circuit);
    nsds.link("diode", ComplementarityConditionNSL::new(1).unwrap(), diode, &[id])
        .unwrap();
    let h = 0.05;
    let dissipated = std::cell::Cell::new(0.0);
    let ours = rows(theta_gamma(nsds, h), reference.nrows(), |s| {
        dissipated.set(dissipated.get() + h * 10.0 * s.lambda[0] * s.lambda[0]);
        let storage = 0.5 * (k * s.q[0] * s.q[0] + s.q[1] * s.q[1]);
        vec![
            s.t,
            s.q[0],
            s.q[1],
            -s.y[0],
            s.lambda[0],
            storage,
            dissipated.get(),
            storage + dissipated.get(),
        ]
    });
    let expected = reference.select_columns(&[0, 1, 2, 3, 4, 6, 7, 8]);
    common::compare_with_reference("CircuitRLCD θ-γ", &expected, &ours, 1e-12);
}

/// DiodeBridge, θ-γ: t, x, y₀, −λ₀, −λ₁, λ₂ and the energy balance (storage ½(C x₀² + L x₁²),
/// dissipation Σ h (λ₀ + λ₁)²/R, their sum) to 1e-10.
#[test]
fn diode_bridge_theta_gamma() {
    let Some(reference) = reference("Circuit-ThetaGammaSchemes/DiodeBridge.ref") else {
        return;
    };
    let scene = DiodeBridge::default();
    let (h, c, l, r) = (scene.step, scene.capacitance, scene.inductance, scene.resistance);
    let dissipated = std::cell::Cell::new(0.0);
    let ours = rows(theta_gamma(scene.nsds().unwrap(), h), reference.nrows(), |s| {
        let current = s.lambda[0] + s.lambda[1];
        dissipated.set(dissipated.get() + h * current * current / r);
        let storage = 0.5 * (c * s.q[0] * s.q[0] + l * s.q[1] * s.q[1]);
        vec![
            s.t,
            s.q[0],
            s.q[1],
            s.y[0],
            -s.lambda[0],
            -s.lambda[1],
            s.lambda[2],
            storage,
            dissipated.get(),
            storage + dissipated.get(),
        ]
    });
    common::compare_with_reference("DiodeBridge θ-γ", &reference, &ours, 1e-10);
}

/// DiodeBridgeCapFilter, θ-γ: columns 0–3 (t, v_C, i_L, λ₀) to 1e-12.
#[test]
fn diode_bridge_cap_filter_theta_gamma() {
    let Some(reference) = reference("Circuit-ThetaGammaSchemes/DiodeBridgeCapFilter.ref") else {
        return;
    };
    let scene = DiodeBridgeCapFilter::default();
    let sim = theta_gamma(scene.nsds().unwrap(), scene.step);
    let ours = rows(sim, reference.nrows(), |s| vec![s.t, s.q[0], s.q[1], s.lambda[0]]);
    common::compare_with_reference(
        "DiodeBridgeCapFilter θ-γ",
        &reference.select_columns(&[0, 1, 2, 3]),
        &ours,
        1e-12,
    );
}

/// Siconos's Filippov_NL (a Python example): x' = B λ, y = x, −y ∈ N_[−1,1](λ) (RelayNSL(2)),
/// B = 500 [[α, 1−α], [−(1−α), α]], α = 0.01, from x = (3, 3): a sliding mode driven to the
/// origin. Siconos writes the relation as a FirstOrderNonLinearR with constant Jacobians, whose
/// converged Newton step is this linear one (A = 0, W = I: x_{k+1} = x_k + h B λ,
/// −x_{k+1} ∈ N(λ)); t, x, λ₀ to 1e-12 (siconos-tutorials'
/// `examples/control/Relay/Filippov_NL.py`).
#[test]
fn filippov_relay() {
    use ricochet::model::RelayNSL;
    let Some(dir) = common::siconos_data() else {
        return;
    };
    let reference = ricochet::io::siconos::read_table(&dir.join("tutorials-ref/Filippov_NL_py.ref")).unwrap();
    let system = FirstOrderLinearDS::new(DVector::from_vec(vec![3.0, 3.0]), DMatrix::zeros(2, 2)).unwrap();
    let alpha = 0.01;
    let b = DMatrix::from_row_slice(2, 2, &[alpha, 1.0 - alpha, -(1.0 - alpha), alpha]) * 500.0;
    let relation =
        FirstOrderLinearTIR::new(DMatrix::identity(2, 2), DMatrix::zeros(2, 2), b, DVector::zeros(2)).unwrap();
    let mut nsds = Nsds::new();
    let id = nsds.add("system", system);
    nsds.link("relay", RelayNSL::new(2).unwrap(), relation, &[id]).unwrap();
    let sim = TimeStepping::new(
        nsds,
        Integrator::EulerMoreau(EulerMoreauOSI::new(0.5).unwrap()),
        0.0,
        1e-3,
    )
    .unwrap();
    let ours = rows(sim, reference.nrows(), |s| vec![s.t, s.q[0], s.q[1], s.lambda[0]]);
    assert_eq!(
        ours[1][1..],
        [2.5, 3.49, -1.0],
        "step 1, worked by hand from the Filippov_NL model"
    );
    common::compare_with_reference("Filippov_NL", &reference, &ours, 1e-12);
}

/// Siconos's RelayBiSimulation (`RBS-Controller.ref`): a process x' = b(t, z),
/// b = (sin 50t + z₀, −sin 50t + z₁) (h = 1e-4), under a sampled relay controller — a copy
/// of the process with y = x, r = 2λ, RelayNSL(2) (h = 1e-2) — coupled by user code between
/// steps through the process's discrete state z: after each controller step z ← B λ (a
/// zero-order hold), the process advances 100 steps, and the controller takes the process's
/// state. The controller's t, x, λ, y to 1e-12 (row 0 prints y = 0 before Siconos's first
/// step; its t and x are checked).
#[test]
fn relay_bi_simulation_controller() {
    use ricochet::model::DsId;
    let Some(reference) = reference("RBS-Controller.ref") else {
        return;
    };
    let mut pair = ricochet::scenes::relay_bi_simulation::RelayBiSimulation::default()
        .start()
        .unwrap();
    let first = pair.controller.sample().unwrap();
    assert_eq!((first.t, first.q.as_slice()), (0.0, &[1.0, -1.0][..]));
    let mut ours = Vec::new();
    for _ in 1..reference.nrows() {
        let s = pair.step().unwrap();
        ours.push(vec![
            s.t,
            s.q[0],
            s.q[1],
            0.0,
            0.0,
            s.lambda[0],
            s.lambda[1],
            s.y[0],
            s.y[1],
            0.0,
        ]);
        assert_eq!(pair.process.sample().unwrap().z, s.lambda * 2.0, "z is recorded");
        assert_eq!(
            pair.controller.q(DsId(0)),
            pair.process.q(DsId(0)),
            "the controller takes the process's state"
        );
    }
    // Siconos's run takes one controller step more (to T = 1, not printed): 9999 process
    // steps in all on this grid.
    pair.step().unwrap();
    assert_eq!(pair.process.steps(), 9999);
    let later = reference.rows(1, reference.nrows() - 1).into_owned();
    common::compare_with_reference("RBS-Controller", &later, &ours, 1e-12);
}

#[test]
fn circuit_rlcd() {
    let Some(reference) = reference("CircuitRLCD.ref") else {
        return;
    };
    let sim = CircuitRlcd::default().simulation().unwrap();
    let ours = rows(sim, reference.nrows(), |s| {
        vec![s.t, s.q[0], s.q[1], -s.y[0], s.lambda[0], 0.0]
    });
    common::compare_with_reference("CircuitRLCD", &reference, &ours, TOL);
}

#[test]
fn bouncing_ball_scleronomous() {
    let Some(reference) = reference("BouncingBallTS-Scleronomous.ref") else {
        return;
    };
    let mut nsds = Nsds::new();
    let ball = nsds.add("ball", ball(10.0));
    let relation = LagrangianScleronomousR::new(
        |q| DVector::from_element(1, q[0] + 0.1 * q[1]),
        |_| DMatrix::from_row_slice(1, 3, &[1.0, 0.1, 0.0]),
    );
    nsds.link("floor", NewtonImpactNSL::new(0.9).unwrap(), relation, &[ball])
        .unwrap();
    let osi = MoreauJeanOSI::default().with_activation(Activation::Predicted);
    let sim = TimeStepping::new(nsds, Integrator::MoreauJean(osi), 0.0, 0.025).unwrap();
    let ours = rows(sim, reference.nrows(), |s| {
        vec![s.t, s.q[0], s.q[1], s.v[0], s.v[1], s.p[0], s.lambda[0]]
    });
    common::compare_with_reference("BouncingBallTS-Scleronomous", &reference, &ours, TOL);
}

#[test]
fn bouncing_ball_compliant_contact() {
    let h = DMatrix::from_row_slice(1, 3, &[1.0, 0.0, 0.0]);
    let floor = LagrangianCompliantLinearTIR::new(h, DVector::from_element(1, -0.1), DMatrix::from_element(1, 1, 0.01))
        .unwrap();
    compliant_contact("BouncingBallTS-CompliantContact", floor.into(), TOL);
}

/// The same floor as a nonlinear `LagrangianCompliantR`, h(q, λ) = q₀ − 0.1 + 0.01 λ,
/// reproduces the same reference through the Newton path (its linearisation in λ at the
/// step's start is exact): to 1e-9 with G0 and G1 as closures (2.2e-13, as the linear
/// relation), to 1e-7 with them by central differences (G1 = 0.01 then carries a 1e-10
/// rounding, which moves the velocity by up to 1e-8 over the run).
#[test]
fn bouncing_ball_compliant_contact_as_a_nonlinear_relation() {
    use ricochet::model::LagrangianCompliantR;
    let floor = LagrangianCompliantR::new(1, |q, l, _| DVector::from_element(1, q[0] - 0.1 + 0.01 * l[0]))
        .with_g0(|_, _, _| DMatrix::from_row_slice(1, 3, &[1.0, 0.0, 0.0]))
        .with_g1(|_, _, _| DMatrix::from_element(1, 1, 0.01));
    compliant_contact(
        "BouncingBallTS-CompliantContact (LagrangianCompliantR)",
        floor.into(),
        TOL,
    );
    let differenced = LagrangianCompliantR::new(1, |q, l, _| DVector::from_element(1, q[0] - 0.1 + 0.01 * l[0]));
    compliant_contact(
        "BouncingBallTS-CompliantContact (LagrangianCompliantR, differences)",
        differenced.into(),
        1e-7,
    );
}

/// BouncingBallTS-CompliantContact with `floor` as the compliant floor.
fn compliant_contact(name: &str, floor: ricochet::model::Relation, tolerance: f64) {
    let Some(reference) = reference("BouncingBallTS-CompliantContact.ref") else {
        return;
    };
    let mut nsds = Nsds::new();
    let ball = nsds.add("ball", ball(9.81));
    let h = DMatrix::from_row_slice(1, 3, &[1.0, 0.0, 0.0]);
    let roof = LagrangianLinearTIR::with_offset(-&h, DVector::from_element(1, 0.7)).unwrap();
    nsds.link("roof", NewtonImpactNSL::new(1.0).unwrap(), roof, &[ball])
        .unwrap();
    nsds.link("floor", ComplementarityConditionNSL::new(1).unwrap(), floor, &[ball])
        .unwrap();
    let sim = TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, 5e-4).unwrap();
    let ours = rows(sim, reference.nrows(), |s| {
        vec![s.t, s.q[0], s.v[0], s.p[0], s.lambda[0]]
    });
    common::compare_with_reference(name, &reference, &ours, tolerance);
}

/// Siconos's Woodpecker: stick–slip with impacts under Coulomb friction (2-D friction
/// contacts, the dense NSGS; siconos-tutorials' `examples/mechanics/Woodpecker/WoodPecker.cpp`),
/// 15 000 rows.
#[test]
fn woodpecker() {
    let Some(reference) = reference("Woodpecker.ref") else {
        return;
    };
    let sim = Woodpecker::default().simulation().unwrap();
    let ours = rows(sim, reference.nrows(), |s| {
        vec![s.t, s.q[0], s.v[0], s.q[1], s.v[1], s.q[2], s.v[2]]
    });
    common::compare_with_reference("Woodpecker", &reference, &ours, TOL);
}

/// Siconos's ImpactingStick: a falling stick (x, y, θ) whose tip hits the floor twice while
/// sliding (a scleronomous relation with a normal and a tangent row, Coulomb friction μ =
/// 0.01, e_N = 1; the sparse 2-D NSGS at 1e-10; one pass per step with G(q_k);
/// siconos-tutorials' `examples/mechanics/ImpactingStick/ImpactingStick.cpp`). The 22 columns
/// hold the state, the contact's output, velocity and impulses, and the works and energies
/// built from them.
#[test]
fn impacting_stick() {
    let Some(reference) = reference("ImpactingStick.ref") else {
        return;
    };
    let (m, l, g, mu, h) = (1.0, 1.0, 10.0, 0.01, 1e-4);
    let theta0 = std::f64::consts::PI / 4.0;
    let q0 = DVector::from_vec(vec![0.5 * l * theta0.sin(), 0.5 * l * theta0.cos() + 0.01, theta0]);
    let v0 = DVector::from_vec(vec![-0.5, 0.1, 0.1]);
    let mass = DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, m * l * l / 12.0]));
    let stick = LagrangianDS::new(q0, v0, mass)
        .unwrap()
        .with_fext(DVector::from_vec(vec![0.0, -m * g, 0.0]))
        .unwrap();
    let mut nsds = Nsds::new();
    let stick = nsds.add("stick", stick);
    let relation = LagrangianScleronomousR::new(
        move |q| DVector::from_vec(vec![q[1] - 0.5 * l * q[2].cos(), 0.0]),
        move |q| {
            DMatrix::from_row_slice(
                2,
                3,
                &[0.0, 1.0, 0.5 * l * q[2].sin(), -1.0, 0.0, -0.5 * l * q[2].cos()],
            )
        },
    );
    let law = NewtonImpactFrictionNSL::new(1.0, 0.0, mu, 2).unwrap();
    nsds.link("tip", law, relation, &[stick]).unwrap();
    let mut sim = TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, h).unwrap();
    sim.newton.single_pass = true;
    sim.friction_solver = Some(FrictionSolver::Nsgs);
    sim.friction_options = FrictionOptions {
        tolerance: 1e-10,
        max_iterations: 10_000,
        ..Default::default()
    };
    let mut samples = vec![sim.sample().unwrap()];
    for _ in 1..reference.nrows() {
        sim.step().unwrap();
        samples.push(sim.sample().unwrap());
    }
    let (mut normal_work, mut tangent_work, mut external_work) = (0.0, 0.0, 0.0);
    let ours: Vec<Vec<f64>> = samples
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let mut row = vec![s.t, s.q[0], s.q[1], s.q[2], s.v[0], s.v[1], s.v[2]];
            if k == 0 {
                row.resize(22, 0.0);
                return row;
            }
            let before = &samples[k - 1];
            let (u, u_k, lambda) = (&s.ydot, &before.ydot, &s.lambda);
            let normal = 0.5 * (u[0] + u_k[0]) * lambda[0];
            let tangent = 0.5 * (u[1] + u_k[1]) * lambda[1];
            normal_work += normal;
            tangent_work += tangent;
            // h (θ F_{k+1} + (1−θ) F_k)·(θ v_{k+1} + (1−θ) v_k) with F = (0, −m g, 0).
            external_work += h * (-m * g) * (0.5 * s.v[1] + 0.5 * before.v[1]);
            row.extend([s.p[0], s.y[0], s.y[1], u[0], u[1], lambda[0], lambda[1]]);
            row.extend([normal, tangent, 0.5 * mu * (u[1] + u_k[1]).abs() * lambda[0]]);
            row.extend([normal_work, tangent_work]);
            let kinetic = 0.5 * m * (s.v[0] * s.v[0] + s.v[1] * s.v[1]) + 0.5 * (m * l * l / 12.0) * s.v[2] * s.v[2];
            row.extend([kinetic, m * g * s.q[1], external_work]);
            row
        })
        .collect();
    common::compare_with_reference("ImpactingStick", &reference, &ours, TOL);
}

/// Siconos's Ball2D_kernel_only_with_friction: a spinning ball (q = (z, x, θ)) dropped on the
/// floor, its contact a `Lagrangian2d2DR` whose point a collision manager sets to
/// pc1 = (z − R, x) with the normal (1, 0) at every call, written here as the scleronomous
/// relation it amounts to (Siconos's `kernel/src/modelingTools/Lagrangian2d2DR.cpp`;
/// siconos-tutorials' `examples/mechanics/2DRigidBodies/Ball2D_kernel_only_with_friction.cpp`):
/// the gap −‖pc1‖ while z ≤ R (+ above), rows [1, 0, −ℓ_y] and [0, 1, ℓ_x] with
/// ℓ = pc1 − (z, x) computed as Siconos computes it.
/// The 2021 reference activates on the predicted position (ỹ = y(q_k + h v_k) + ½ h ẏ_k).
/// After the impact the ball rolls: ω = 4/7, v_x = R ω.
#[test]
fn ball_2d_with_friction() {
    let Some(reference) = reference("Ball2D_kernel_only_with_friction.ref") else {
        return;
    };
    let (r, h) = (0.5, 0.005);
    let mass = DMatrix::from_diagonal(&DVector::from_vec(vec![1.0, 1.0, 0.4 * r * r]));
    let ball = LagrangianLinearTIDS::new(
        DVector::from_vec(vec![1.0, 0.0, 0.0]),
        DVector::from_vec(vec![0.0, 0.0, 2.0]),
        mass,
    )
    .unwrap()
    .with_fext(DVector::from_vec(vec![-9.81, 0.0, 0.0]))
    .unwrap();
    let mut nsds = Nsds::new();
    let ball = nsds.add("ball", ball);
    let contact = move |q: &DVector<f64>| [-r + q[0], 0.0 + q[1]];
    let relation = LagrangianScleronomousR::new(
        move |q| {
            let pc1 = contact(q);
            let distance = (pc1[0] * pc1[0] + pc1[1] * pc1[1]).sqrt();
            // N · (pc2 − pc1) with pc2 = 0 and N = (1, 0).
            DVector::from_vec(vec![if -pc1[0] >= 0.0 { -distance } else { distance }, 0.0])
        },
        move |q| {
            let pc1 = contact(q);
            let lever = [pc1[0] - q[0], pc1[1] - q[1]];
            DMatrix::from_row_slice(2, 3, &[1.0, 0.0, -lever[1], 0.0, 1.0, lever[0]])
        },
    );
    nsds.link(
        "floor",
        NewtonImpactFrictionNSL::new(0.9, 0.0, 0.1, 2).unwrap(),
        relation,
        &[ball],
    )
    .unwrap();
    let osi = MoreauJeanOSI::default().with_activation(Activation::Predicted);
    let sim = TimeStepping::new(nsds, Integrator::MoreauJean(osi), 0.0, h).unwrap();
    let mut ours = rows(sim, reference.nrows(), |s| {
        vec![s.t, s.q[0], s.v[0], s.v[2], s.p[0], s.lambda[0], s.q[1], s.q[2], s.v[1]]
    });
    // The reference's time column is the simulation's next time: h on row 0.
    ours[0][0] = h;
    common::compare_with_reference("Ball2D_kernel_only_with_friction", &reference, &ours, TOL);
    let last = ours.last().unwrap();
    assert!(
        (last[3] - 4.0 / 7.0).abs() < 1e-9 && (last[8] - r * 4.0 / 7.0).abs() < 1e-9,
        "rolling: {last:?}"
    );
}

/// Siconos's TwoBouncingBallTS-MoreauJeanGOSI: two balls (z, x, angle) stacked above the
/// floor, 3-D friction contacts (e_N = e_T = 0.95, μ = 0.6) floor–ball and ball–ball. Siconos
/// solves it in the global form (GlobalFrictionContact, NSGS_WR), which reformulates to the
/// local problem W = H M⁻¹ Hᵀ, q = H v_free + b that Moreau–Jean builds: only rounding differs,
/// so the local form reproduces it (`globalFrictionContact_reformulation_FrictionContact`,
/// Siconos's `numerics/src/FrictionContact/GlobalFrictionContactProblem.c`). The 2021
/// reference activates on y_k + 1.5 h ẏ_k (the predicted position).
#[test]
fn two_bouncing_balls_with_friction() {
    let Some(reference) = reference("TwoBouncingBallTS-MoreauJeanGOSI.ref") else {
        return;
    };
    let radius = 0.1;
    let ball = |m: f64, z: f64| {
        let mass = DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, 0.4 * m * radius * radius]));
        LagrangianLinearTIDS::new(DVector::from_vec(vec![z, 0.0, 0.0]), DVector::zeros(3), mass)
            .unwrap()
            .with_fext(DVector::from_vec(vec![-m * 9.81, 0.0, 0.0]))
            .unwrap()
    };
    let mut nsds = Nsds::new();
    let lower = nsds.add("lower", ball(1.0, 0.1));
    let upper = nsds.add("upper", ball(2.0, 0.1 + 2.0 * radius + 0.001));
    let law = NewtonImpactFrictionNSL::new(0.95, 0.95, 0.6, 3).unwrap();
    let floor = LagrangianLinearTIR::new(DMatrix::identity(3, 3)).unwrap();
    nsds.link("floor", law, floor, &[lower]).unwrap();
    let mut pair = DMatrix::zeros(3, 6);
    pair.view_mut((0, 0), (3, 3))
        .copy_from(&-DMatrix::<f64>::identity(3, 3));
    pair.view_mut((0, 3), (3, 3)).copy_from(&DMatrix::<f64>::identity(3, 3));
    let pair = LagrangianLinearTIR::with_offset(pair, DVector::from_vec(vec![-2.0 * radius, 0.0, 0.0])).unwrap();
    nsds.link("balls", law, pair, &[lower, upper]).unwrap();
    let osi = MoreauJeanOSI::default().with_activation(Activation::Predicted);
    let mut sim = TimeStepping::new(nsds, Integrator::MoreauJean(osi), 0.0, 1e-3).unwrap();
    sim.friction_options = FrictionOptions {
        tolerance: 1e-13,
        ..Default::default()
    };
    let ours = rows(sim, reference.nrows(), |s| {
        vec![s.t, s.q[0], s.v[0], s.p[0], s.lambda[0], s.q[3], s.v[3], s.p[3]]
    });
    common::compare_with_reference("TwoBouncingBallTS-MoreauJeanGOSI", &reference, &ours, TOL);
}

/// The cam of Siconos's CamFollower (`CamState.h`): (position h_c − 0.3, velocity h_c') at
/// time t for `rpm`, with Siconos's truncated π.
fn cam(t: f64, rpm: f64) -> (f64, f64) {
    // Siconos's truncated π, on purpose.
    #[allow(clippy::approx_constant)]
    let pi = 3.14159265;
    let (rb, k1, k2) = (0.40, 0.45, 0.40393320723821);
    let (rho1, rho3, rho2) = (0.85, 0.15, 0.55393320723821);
    let (beta1, beta2, beta3) = (0.0, 1.050328174371336, 1.22173047639603);
    let mut omega = 2.0 * pi * rpm / 60.0;
    let mut beta = (omega * t + pi / 2.0) % (2.0 * pi);
    if beta > pi {
        beta = 2.0 * pi - beta;
        omega = -omega;
    }
    let (position, velocity) = if beta <= pi / 2.0 - beta1 {
        (rb, 0.0)
    } else if beta <= pi / 2.0 + beta2 {
        let s1 = (1.0 - (k1 * beta.cos() / rho1).powi(2)).sqrt();
        (
            -k1 * beta.sin() + rho1 * s1,
            omega * (-k1 * beta.cos() + k1 * k1 * beta.sin() * beta.cos() / (rho1 * s1)),
        )
    } else if beta <= pi / 2.0 + beta3 {
        let a = beta + pi / 9.0;
        let s3 = (1.0 - (k2 * a.sin() / rho3).powi(2)).sqrt();
        (
            -k2 * a.cos() + rho3 * s3,
            omega * (k2 * a.sin() - k2 * k2 * a.sin() * a.cos() / (rho3 * s3)),
        )
    } else {
        (rho2, 0.0)
    };
    (position - 0.3, velocity)
}

/// Siconos's CamFollower (`CF.ref`): a follower on a spring against a cam. The external force
/// Siconos attaches returns −m g with g = 0, so the follower stays at rest on its contact (q,
/// v, λ, F_ext ≡ 0) and the reference checks the time and the cam's kinematics
/// (siconos-tutorials' `examples/mechanics/CamFollower/CamFollower.cpp` and
/// `FollowerPlugin/FollowerPlugin.cpp`).
#[test]
fn cam_follower() {
    let Some(reference) = reference("CF.ref") else {
        return;
    };
    let follower = LagrangianLinearTIDS::new(DVector::zeros(1), DVector::zeros(1), DMatrix::from_element(1, 1, 1.221))
        .unwrap()
        .with_stiffness(DMatrix::from_element(1, 1, 1430.8))
        .unwrap();
    let mut nsds = Nsds::new();
    let follower = nsds.add("follower", follower);
    let contact = LagrangianLinearTIR::new(DMatrix::from_element(1, 1, 1.0)).unwrap();
    nsds.link("cam", NewtonImpactNSL::new(0.8).unwrap(), contact, &[follower])
        .unwrap();
    let sim = TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, 1e-4).unwrap();
    let ours = rows(sim, reference.nrows(), |s| {
        let (position, velocity) = cam(s.t, 358.0);
        vec![
            s.t,
            s.q[0],
            s.v[0],
            s.lambda[0],
            0.0,
            position,
            velocity,
            position + s.q[0],
        ]
    });
    common::compare_with_reference("CF", &reference, &ours, TOL);
}
