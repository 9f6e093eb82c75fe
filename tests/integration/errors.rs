//! Bad input gets a clear error naming the object at fault, never a panic or a NaN.

use nalgebra::{DMatrix, DVector};
use ricochet::Error;
use ricochet::model::{
    LagrangianDS, LagrangianLinearTIDS, LagrangianLinearTIR, LagrangianScleronomousR, NewtonImpactNSL, Nsds,
};
use ricochet::numerics::{LinearComplementarityProblem, SolverKind, SolverOptions, solve_lcp};
use ricochet::reference::{Integrator, TimeStepping};
use ricochet::scenes::bouncing_ball::BouncingBall;
use ricochet::scheme::euler_moreau::EulerMoreauOSI;
use ricochet::scheme::moreau_jean::MoreauJeanOSI;

fn v(x: &[f64]) -> DVector<f64> {
    DVector::from_row_slice(x)
}

fn ball() -> LagrangianLinearTIDS {
    LagrangianLinearTIDS::new(v(&[1.0, 0.0]), v(&[0.0, 0.0]), DMatrix::identity(2, 2)).unwrap()
}

#[test]
fn wrong_dimensions_name_the_field() {
    let err = LagrangianLinearTIDS::new(v(&[1.0, 0.0]), v(&[0.0]), DMatrix::identity(2, 2))
        .err()
        .unwrap();
    assert!(
        matches!(&err, Error::Dimension { what, .. } if what.contains("v0")),
        "{err}"
    );
    let err = ball().with_stiffness(DMatrix::identity(3, 3)).err().unwrap();
    assert!(
        matches!(&err, Error::Dimension { what, expected, got } if what.contains("stiffness") && expected == "2x2" && got == "3x3"),
        "{err}"
    );
}

#[test]
fn mass_must_be_symmetric_positive_definite() {
    let not_symmetric = DMatrix::from_row_slice(2, 2, &[1.0, 0.5, 0.0, 1.0]);
    let indefinite = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
    for mass in [not_symmetric, indefinite] {
        assert!(matches!(
            LagrangianLinearTIDS::new(v(&[0.0, 0.0]), v(&[0.0, 0.0]), mass.clone()),
            Err(Error::MassNotSpd { .. })
        ));
        assert!(matches!(
            LagrangianDS::new(v(&[0.0, 0.0]), v(&[0.0, 0.0]), mass),
            Err(Error::MassNotSpd { .. })
        ));
    }
}

#[test]
fn restitution_outside_unit_interval() {
    for e in [-0.1, 1.5, f64::NAN] {
        assert!(
            matches!(NewtonImpactNSL::new(e), Err(Error::Restitution { .. })),
            "e = {e}"
        );
    }
}

#[test]
fn non_finite_inputs() {
    let err = LagrangianLinearTIDS::new(v(&[f64::NAN, 0.0]), v(&[0.0, 0.0]), DMatrix::identity(2, 2))
        .err()
        .unwrap();
    assert!(
        matches!(&err, Error::NonFinite { what } if what.contains("q0")),
        "{err}"
    );
    assert!(matches!(
        ball().with_fext(v(&[f64::INFINITY, 0.0])),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        LagrangianLinearTIR::new(DMatrix::from_element(1, 2, f64::NAN)),
        Err(Error::NonFinite { .. })
    ));
}

#[test]
fn time_step_and_theta() {
    for h in [0.0, -1e-3, f64::NAN] {
        let err = TimeStepping::new(Nsds::new(), Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, h)
            .err()
            .unwrap();
        assert!(
            matches!(&err, Error::Parameter { what, .. } if what.contains("time step")),
            "{err}"
        );
    }
    for theta in [-0.1, 1.1] {
        assert!(matches!(MoreauJeanOSI::new(theta, 0.5), Err(Error::Parameter { .. })));
        assert!(matches!(EulerMoreauOSI::new(theta), Err(Error::Parameter { .. })));
    }
}

#[test]
fn interaction_sizes_are_checked_naming_the_interaction() {
    let mut nsds = Nsds::new();
    let b = nsds.add("ball", ball());
    let wrong_columns = LagrangianLinearTIR::new(DMatrix::from_row_slice(1, 3, &[1.0, 0.0, 0.0])).unwrap();
    let err = nsds
        .link("floor", NewtonImpactNSL::new(0.5).unwrap(), wrong_columns, &[b])
        .err()
        .unwrap();
    assert!(err.to_string().contains("`floor`"), "{err}");
    let wrong_jacobian = LagrangianScleronomousR::new(|q| DVector::from_element(1, q[0]), |_| DMatrix::zeros(2, 2));
    let err = nsds
        .link("curved floor", NewtonImpactNSL::new(0.5).unwrap(), wrong_jacobian, &[b])
        .err()
        .unwrap();
    assert!(
        matches!(&err, Error::Dimension { what, .. } if what.contains("`curved floor`")),
        "{err}"
    );
}

#[test]
fn integrator_and_system_families_must_match() {
    let mut nsds = Nsds::new();
    nsds.add("ball", ball());
    let err = TimeStepping::new(nsds, Integrator::EulerMoreau(EulerMoreauOSI::default()), 0.0, 1e-3)
        .err()
        .unwrap();
    assert!(
        matches!(&err, Error::Unsupported { what, .. } if what.contains("`ball`")),
        "{err}"
    );
}

/// A lenient simulation goes on past a step whose solver missed its tolerance, with its last
/// iterate, and says so in the step's report; every step is taken.
#[test]
fn a_lenient_simulation_goes_on_and_flags_the_step() {
    let mut sim = BouncingBall::default().simulation().unwrap();
    sim.solver = SolverKind::Jacobi;
    sim.solver_options = SolverOptions {
        max_iterations: 0,
        ..Default::default()
    };
    sim.lenient = true;
    let mut flagged = 0;
    for _ in 0..2000 {
        sim.step().unwrap();
        flagged += usize::from(sim.last_report().lcp.is_some_and(|lcp| !lcp.converged));
    }
    assert!(flagged > 0, "no step missed its tolerance");
    let h = BouncingBall::default().step;
    assert!((sim.time() - 2000.0 * h).abs() < 1e-9, "t = {}", sim.time());
}

#[test]
fn a_solver_that_does_not_converge_is_an_error_with_its_numbers() {
    // Jacobi with no sweep cannot solve the first impact: the stepper refuses the step.
    let mut sim = BouncingBall::default().simulation().unwrap();
    sim.solver = SolverKind::Jacobi;
    sim.solver_options = SolverOptions {
        max_iterations: 0,
        ..Default::default()
    };
    let mut result = Ok(());
    for _ in 0..200 {
        result = sim.step();
        if result.is_err() {
            break;
        }
    }
    let err = result.expect_err("the first impact cannot be solved in 0 iterations");
    assert!(
        matches!(err, Error::NotConverged { iterations: 0, residual, .. } if residual > 0.0),
        "{err}"
    );
    assert!(err.to_string().contains("at step"), "{err}");
    // The state is left at the start of the failed step: still finite, still above the floor.
    assert!(sim.sample().unwrap().q.iter().all(|x| x.is_finite()));

    let lcp = LinearComplementarityProblem::new(DMatrix::identity(2, 2), v(&[-1.0, 1.0])).unwrap();
    let mut z = DVector::zeros(3);
    assert!(matches!(
        solve_lcp(SolverKind::Pgs, &lcp, &mut z, &SolverOptions::default()),
        Err(Error::Dimension { .. })
    ));
    let bad_omega = SolverOptions {
        omega: Some(2.5),
        ..Default::default()
    };
    let mut z = DVector::zeros(2);
    assert!(matches!(
        solve_lcp(SolverKind::Pgs, &lcp, &mut z, &bad_omega),
        Err(Error::Parameter { .. })
    ));
}

#[test]
fn bad_contact_geometry_is_refused() {
    use ricochet::model::SphereSphereR;
    let text = |e: ricochet::error::Error| e.to_string();
    assert!(text(SphereSphereR::new(4, [4, 4], 0.2).unwrap_err()).contains("1, 2 or 3"));
    assert!(text(SphereSphereR::new(3, [2, 3], 0.2).unwrap_err()).contains("at least"));
    assert!(text(SphereSphereR::new(2, [2, 2], -0.1).unwrap_err()).contains("r₀ + r₁"));
    assert!(text(SphereSphereR::new(2, [2, 2], f64::NAN).unwrap_err()).contains("r₀ + r₁"));
    assert!(text(SphereSphereR::fixed(3, 3, &[0.0, 0.0], 0.2).unwrap_err()).contains("fixed centre"));
    assert!(text(LagrangianLinearTIR::sphere_plane(2, 2, &[0.0, 0.0], 0.0, 0.1).unwrap_err()).contains("normal"));
    assert!(text(LagrangianLinearTIR::sphere_plane(3, 2, &[0.0, 0.0, 1.0], 0.0, 0.1).unwrap_err()).contains("fewer"));
    // Linked to systems whose coordinates do not match what the relation was built for.
    let mut nsds = Nsds::new();
    let ball = || LagrangianLinearTIDS::new(DVector::zeros(3), DVector::zeros(3), DMatrix::identity(3, 3)).unwrap();
    let (a, b) = (nsds.add("a", ball()), nsds.add("b", ball()));
    let relation = SphereSphereR::new(2, [2, 2], 0.2).unwrap();
    let e = nsds
        .link("pair", NewtonImpactNSL::new(0.5).unwrap(), relation, &[a, b])
        .unwrap_err();
    assert!(text(e).contains("pair"));
}
