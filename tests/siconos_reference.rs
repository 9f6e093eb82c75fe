//! Siconos's reference trajectories (siconos-tutorials, Apache-2.0, in ../shared/data/siconos)
//! reproduced column by column to 1e-9.

mod common;

use nalgebra::{DMatrix, DVector};
use ricochet::io::siconos::read_ref;
use ricochet::model::{
    ComplementarityConditionNSL, LagrangianCompliantLinearTIR, LagrangianLinearTIDS, LagrangianLinearTIR,
    LagrangianScleronomousR, NewtonImpactNSL, Nsds,
};
use ricochet::reference::{Integrator, Sample, TimeStepping, Trajectory};
use ricochet::scenes::{
    bouncing_ball::BouncingBall, circuit_rlcd::CircuitRlcd, column_of_beads::ColumnOfBeads, diode_bridge::DiodeBridge,
    impacting_bar::ImpactingBar, woodpecker::Woodpecker,
};
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
    let Some(reference) = reference("BouncingBallTS-CompliantContact.ref") else {
        return;
    };
    let mut nsds = Nsds::new();
    let ball = nsds.add("ball", ball(9.81));
    let h = DMatrix::from_row_slice(1, 3, &[1.0, 0.0, 0.0]);
    let roof = LagrangianLinearTIR::with_offset(-&h, DVector::from_element(1, 0.7)).unwrap();
    nsds.link("roof", NewtonImpactNSL::new(1.0).unwrap(), roof, &[ball])
        .unwrap();
    let floor = LagrangianCompliantLinearTIR::new(h, DVector::from_element(1, -0.1), DMatrix::from_element(1, 1, 0.01))
        .unwrap();
    nsds.link("floor", ComplementarityConditionNSL::new(1).unwrap(), floor, &[ball])
        .unwrap();
    let sim = TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, 5e-4).unwrap();
    let ours = rows(sim, reference.nrows(), |s| {
        vec![s.t, s.q[0], s.v[0], s.p[0], s.lambda[0]]
    });
    common::compare_with_reference("BouncingBallTS-CompliantContact", &reference, &ours, TOL);
}

/// Siconos's Woodpecker: stick–slip with impacts under Coulomb friction (2-D friction
/// contacts, the dense NSGS; FRICTION-NOTES §3.1), 15 000 rows.
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
