//! The friction-contact problem and its solvers: Siconos's FC test files (sizes, known
//! solutions and Siconos's own iteration counts, from the `fc2d_driver`/`fc3d_driver` of its
//! 4.4.0 numerics library), property tests on random problems built around a known solution,
//! and bad input.

use crate::common;

use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use ricochet::io::siconos::read_friction;
use ricochet::numerics::friction::mixed::{Block, MixedFrictionProblem};
use ricochet::numerics::friction::{FrictionContactProblem, FrictionOptions, FrictionSolver, solve_friction};

fn problem(name: &str) -> Option<FrictionContactProblem> {
    let dir = common::siconos_data()?.join("numerics-fc");
    Some(read_friction(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// Solves `name` with `solver` from r = 0; returns r, u and the report's numbers.
fn solve(
    p: &FrictionContactProblem,
    solver: FrictionSolver,
    tolerance: f64,
    max_iterations: usize,
) -> (DVector<f64>, DVector<f64>, ricochet::numerics::SolverReport) {
    let mut r = DVector::zeros(p.q.len());
    let options = FrictionOptions {
        tolerance,
        max_iterations,
        ..Default::default()
    };
    let report = solve_friction(solver, p, &mut r, &options).unwrap();
    let u = p.u(&r);
    (r, u, report)
}

fn close(what: &str, got: f64, expected: f64, tolerance: f64) {
    assert!(
        (got - expected).abs() <= tolerance * expected.abs().max(1.0),
        "{what}: {got} vs {expected}"
    );
}

#[test]
fn every_fc_file_parses_to_its_sizes() {
    for (name, d, contacts) in [
        ("BoxesStack1-i100000-32.hdf5.dat", 3, 52),
        ("Capsules-i101-404.dat", 3, 225),
        ("Confeti-ex13-4contact-Fc3D-SBM.dat", 3, 4),
        ("FC2D_SliderCrankLagrangian00000.dat", 2, 2),
        ("FC2D_SliderCrankLagrangian00001.dat", 2, 2),
        ("FC3D_Example1.dat", 3, 3),
        ("FC3D_Example1_SBM.dat", 3, 3),
        ("FrictionContact3D_1c.dat", 3, 1),
        ("FrictionContact3D_RR_1c.dat", 3, 1),
        ("FrictionContactProblem00031.dat", 2, 11),
        ("FrictionContactProblem00071.dat", 2, 89),
        ("FrictionContactProblem00394.dat", 2, 6),
        ("NESpheres_10_1.dat", 3, 9),
        ("Rover1039.dat", 3, 4),
        ("Rover1040.dat", 3, 5),
        ("Rover11035.dat", 3, 1),
        ("fc2d_granularflowonwall_00667_00000.dat", 2, 667),
    ] {
        let Some(p) = problem(name) else { return };
        assert_eq!((p.dimension, p.contacts()), (d, contacts), "{name}");
    }
    // The two storages of FC3D_Example1 are the same problem.
    let (Some(dense), Some(sbm)) = (problem("FC3D_Example1.dat"), problem("FC3D_Example1_SBM.dat")) else {
        return;
    };
    assert_eq!(dense, sbm);
}

/// FC3D NSGS with Siconos's default local solver: the sweep counts Siconos reports at 1e-5
/// (and at 1e-12 where they were measured), and the solutions.
#[test]
fn fc3d_nsgs_reproduces_siconos() {
    for (name, sweeps_loose, sweeps_tight) in [
        ("FrictionContact3D_1c.dat", 2, Some(2)),
        ("FrictionContact3D_RR_1c.dat", 2, Some(2)),
        ("Rover11035.dat", 2, Some(2)),
        ("FC3D_Example1.dat", 2, Some(2)),
        ("FC3D_Example1_SBM.dat", 2, Some(2)),
        ("Confeti-ex13-4contact-Fc3D-SBM.dat", 2, Some(2)),
        ("Rover1039.dat", 13, Some(30)),
        ("Rover1040.dat", 13, Some(31)),
        ("NESpheres_10_1.dat", 15, Some(35)),
        ("Capsules-i101-404.dat", 923, None),
    ] {
        let Some(p) = problem(name) else { return };
        let (_, _, loose) = solve(&p, FrictionSolver::Nsgs, 1e-5, 1000);
        assert!(loose.converged && loose.residual <= 1e-5, "{name}: {loose:?}");
        assert_eq!(loose.iterations, sweeps_loose, "{name} at 1e-5");
        if let Some(sweeps) = sweeps_tight {
            let (_, _, tight) = solve(&p, FrictionSolver::Nsgs, 1e-12, 1000);
            assert!(tight.converged && tight.residual <= 1e-12, "{name}: {tight:?}");
            assert_eq!(tight.iterations, sweeps, "{name} at 1e-12");
        }
    }
    let tight = |name: &str| problem(name).map(|p| solve(&p, FrictionSolver::Nsgs, 1e-12, 1000));
    let Some((r, u, _)) = tight("FrictionContact3D_1c.dat") else {
        return;
    };
    for (k, x) in [0.065695682898, -0.003678614907, -0.005443070814]
        .into_iter()
        .enumerate()
    {
        close("3D_1c r", r[k], x, 1e-10);
    }
    for (k, x) in [0.0, 1.877360637593, 2.777840886281].into_iter().enumerate() {
        assert!((u[k] - x).abs() < 1e-10, "3D_1c u[{k}] = {}", u[k]);
    }
    let (r, u, _) = tight("FrictionContact3D_RR_1c.dat").unwrap();
    for (k, x) in [10.2058760557, 1.9318883677, 5.8107980104].into_iter().enumerate() {
        close("RR_1c r", r[k], x, 1e-10);
    }
    close("RR_1c ‖u‖", u.norm(), 0.13448840583, 1e-10);
    let (r, u, _) = tight("Rover11035.dat").unwrap();
    for (k, x) in [3.8555276868, 1.0750356388, 2.4755189981].into_iter().enumerate() {
        close("Rover11035 r", r[k], x, 1e-10);
    }
    close("Rover11035 ‖u‖", u.norm(), 0.10888669734, 1e-10);
    let (r, u, _) = tight("FC3D_Example1.dat").unwrap();
    for alpha in 0..3 {
        for (k, x) in [1.0, -0.031622776602, -0.094868329805].into_iter().enumerate() {
            close("Example1 r", r[3 * alpha + k], x, 1e-11);
        }
        for (k, x) in [0.0, 0.968377223398, 2.905131670195].into_iter().enumerate() {
            assert!((u[3 * alpha + k] - x).abs() < 1e-11, "Example1 u");
        }
    }
    let (r, u, _) = tight("Confeti-ex13-4contact-Fc3D-SBM.dat").unwrap();
    for (k, x) in [387.262991368213, -15.422891482732, -1.445896775503]
        .into_iter()
        .enumerate()
    {
        close("Confeti r₂", r[6 + k], x, 1e-10);
    }
    for alpha in [0, 1, 3] {
        assert!(r.rows(3 * alpha, 3).norm() == 0.0, "Confeti: only contact 2 is active");
    }
    close("Confeti ‖u‖", u.norm(), 9.9048973920, 1e-10);
    let (r, u, _) = tight("Rover1039.dat").unwrap();
    close("Rover1039 ‖r‖", r.norm(), 36.777749036, 1e-10);
    close("Rover1039 ‖u‖", u.norm(), 0.17104070757, 1e-10);
    for (k, x) in [13.4746653975, 1.4761067736, -9.3160477942].into_iter().enumerate() {
        close("Rover1039 r₀", r[k], x, 1e-10);
    }
    let (r, u, _) = tight("Rover1040.dat").unwrap();
    close("Rover1040 ‖r‖", r.norm(), 54.379377771, 1e-10);
    close("Rover1040 ‖u‖", u.norm(), 0.64781424469, 1e-10);
    let (r, u, _) = tight("NESpheres_10_1.dat").unwrap();
    close("NESpheres ‖r‖", r.norm(), 1.4397614290, 1e-10);
    close("NESpheres ‖u‖", u.norm(), 3.5285500745, 1e-10);
    close("NESpheres r₀", r[0], 0.4905, 1e-12);
}

/// Where Siconos's NSGS fails (BoxesStack1: 1.7e-4 after 1000 sweeps at 1e-5), ours says so.
#[test]
fn fc3d_nsgs_reports_failure_honestly() {
    let Some(p) = problem("BoxesStack1-i100000-32.hdf5.dat") else {
        return;
    };
    let (r, _, report) = solve(&p, FrictionSolver::Nsgs, 1e-5, 1000);
    assert!(!report.converged, "{report:?}");
    assert_eq!(report.iterations, 1000);
    assert!(report.residual > 1e-5 && report.residual < 1e-3, "{report:?}");
    assert_eq!(report.residual, p.error(&r));
}

/// FC2D: the dense NSGS's and the sparse NSGS's sweep counts (Siconos's at 1e-5), and the
/// exact solutions (Lemke) that both NSGS and the fixed point reach at 1e-12.
#[test]
fn fc2d_solvers_reproduce_siconos() {
    for (name, solver, sweeps) in [
        ("FC2D_SliderCrankLagrangian00000.dat", FrictionSolver::NsgsDense, 218),
        ("FC2D_SliderCrankLagrangian00001.dat", FrictionSolver::NsgsDense, 225),
        ("FrictionContactProblem00394.dat", FrictionSolver::NsgsDense, 1),
        ("FrictionContactProblem00031.dat", FrictionSolver::Nsgs, 2),
        ("FrictionContactProblem00071.dat", FrictionSolver::Nsgs, 35),
        ("fc2d_granularflowonwall_00667_00000.dat", FrictionSolver::Nsgs, 1),
    ] {
        let Some(p) = problem(name) else { return };
        let (r, _, report) = solve(&p, solver, 1e-5, 10_000);
        assert!(report.converged, "{name}: {report:?}");
        assert_eq!(report.iterations, sweeps, "{name}");
        if name.ends_with("00071.dat") {
            close("00071 ‖r‖ at 1e-5", r.norm(), 71.666587, 1e-7);
        }
    }
    for (name, r_norm, u_norm) in [
        ("FC2D_SliderCrankLagrangian00000.dat", 7.8496456860e-2, 12.086570288),
        ("FC2D_SliderCrankLagrangian00001.dat", 6.2658795395e-2, 12.962240841),
        ("FrictionContactProblem00031.dat", 6.3460887884e-4, 0.23611827313),
        ("FrictionContactProblem00071.dat", 71.666806236, 29.802773621),
        ("FrictionContactProblem00394.dat", 0.0, 0.0),
    ] {
        let Some(p) = problem(name) else { return };
        for solver in [FrictionSolver::Lemke, FrictionSolver::Nsgs, FrictionSolver::FixedPoint] {
            let (r, u, report) = solve(&p, solver, 1e-12, 20_000);
            assert!(
                report.converged && report.residual <= 1e-12,
                "{name} {solver:?}: {report:?}"
            );
            // (00394's q is round-off, 1e-15: its solution is zero to that scale.)
            assert!(
                (r.norm() - r_norm).abs() <= 1e-9 * r_norm + 1e-13,
                "{name} {solver:?} ‖r‖ {}",
                r.norm()
            );
            assert!(
                (u.norm() - u_norm).abs() <= 1e-9 * u_norm + 1e-13,
                "{name} {solver:?} ‖u‖ {}",
                u.norm()
            );
        }
    }
    let Some(p) = problem("FC2D_SliderCrankLagrangian00000.dat") else {
        return;
    };
    let (r, _, _) = solve(&p, FrictionSolver::Lemke, 1e-12, 10_000);
    for (k, x) in [0.055779417655, 0.00055779417655, 0.055224398574, 0.00055224398574]
        .into_iter()
        .enumerate()
    {
        close("SliderCrank r", r[k], x, 1e-10);
    }
}

/// The fixed point (projected Jacobi) on 3-D files: the NSGS solution at 1e-12.
#[test]
fn fixed_point_reaches_the_nsgs_solutions() {
    for name in [
        "Rover1039.dat",
        "NESpheres_10_1.dat",
        "FrictionContact3D_RR_1c.dat",
        "Confeti-ex13-4contact-Fc3D-SBM.dat",
    ] {
        let Some(p) = problem(name) else { return };
        let (nsgs, _, _) = solve(&p, FrictionSolver::Nsgs, 1e-12, 1000);
        let (fixed, _, report) = solve(&p, FrictionSolver::FixedPoint, 1e-12, 20_000);
        assert!(report.converged && report.residual <= 1e-12, "{name}: {report:?}");
        // Both at an error of 1e-12; the solutions agree to the problem's conditioning.
        assert!(
            (&fixed - &nsgs).norm() <= 1e-7 * nsgs.norm(),
            "{name}: {}",
            (&fixed - &nsgs).norm()
        );
    }
}

/// A random problem around a known solution: per contact a separation, a stick or a slip,
/// W = A Aᵀ + δ I, q = u* − W r*.
fn known_solution(d: usize, states: &[(u8, f64, [f64; 3])], a: &[f64]) -> (FrictionContactProblem, DVector<f64>) {
    let n_c = states.len();
    let n = d * n_c;
    let a = DMatrix::from_fn(n, n, |i, j| a[(i * n + j) % a.len()]);
    let w = &a * a.transpose() + DMatrix::identity(n, n) * 0.1;
    let (mut r, mut u, mut mu) = (DVector::zeros(n), DVector::zeros(n), DVector::zeros(n_c));
    for (alpha, &(state, coefficient, x)) in states.iter().enumerate() {
        mu[alpha] = coefficient;
        let t = &x[1..d];
        let t_norm = t.iter().map(|v| v * v).sum::<f64>().sqrt();
        let unit: Vec<f64> = if t_norm > 1e-3 {
            t.iter().map(|v| v / t_norm).collect()
        } else {
            (0..d - 1).map(|k| if k == 0 { 1.0 } else { 0.0 }).collect()
        };
        match state % 3 {
            // Separation: r = 0, u_N > 0, any u_T.
            0 => {
                u[d * alpha] = x[0].abs() + 0.1;
                for k in 1..d {
                    u[d * alpha + k] = x[k];
                }
            }
            // Stick: u = 0, r strictly inside the cone.
            1 => {
                r[d * alpha] = x[0].abs() + 0.1;
                for k in 1..d {
                    r[d * alpha + k] = 0.5 * coefficient * r[d * alpha] * unit[k - 1];
                }
            }
            // Slip: u_N = 0, r_T = −μ r_N u_T/‖u_T‖.
            _ => {
                r[d * alpha] = x[0].abs() + 0.1;
                for k in 1..d {
                    u[d * alpha + k] = unit[k - 1];
                    r[d * alpha + k] = -coefficient * r[d * alpha] * unit[k - 1];
                }
            }
        }
    }
    let q = &u - &w * &r;
    (FrictionContactProblem::new(d, w, q, mu).unwrap(), r)
}

fn contact_states() -> impl Strategy<Value = Vec<(u8, f64, [f64; 3])>> {
    proptest::collection::vec((0u8..3, 0.0f64..1.0, proptest::array::uniform3(-1.0f64..1.0)), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn solvers_solve_problems_with_a_known_solution(
        d in 2usize..4,
        states in contact_states(),
        a in proptest::collection::vec(-1.0f64..1.0, 7..40),
    ) {
        let (p, exact) = known_solution(d, &states, &a);
        prop_assert!(p.error(&exact) < 1e-14, "the constructed solution is one: {}", p.error(&exact));
        // Lemke (exact) must solve every 2-D problem, NSGS every one-contact 3-D problem. NSGS
        // need not converge with several contacts: with a large μ a contact's local problem can
        // have several solutions, and the one a sweep picks can undo the others' (a sweep
        // started at the solution leaves it) — Siconos states no guarantee either. Every solver
        // must tell the truth about what it returns.
        let solvers: &[(FrictionSolver, bool)] = if d == 2 {
            &[(FrictionSolver::Lemke, true), (FrictionSolver::NsgsDense, false), (FrictionSolver::Nsgs, false), (FrictionSolver::FixedPoint, false)]
        } else {
            &[(FrictionSolver::Nsgs, p.contacts() == 1), (FrictionSolver::FixedPoint, false)]
        };
        for &(solver, must) in solvers {
            let (r, _, report) = solve(&p, solver, 1e-10, 10_000);
            prop_assert!(report.converged || !must, "{:?}: {:?}", solver, report);
            prop_assert_eq!(report.residual, p.error(&r));
            if !report.converged {
                prop_assert!(report.residual > 1e-10 || solver == FrictionSolver::NsgsDense);
                continue;
            }
            prop_assert!(p.error(&r) <= 1e-10 || solver == FrictionSolver::NsgsDense);
            for alpha in 0..p.contacts() {
                let rn = r[d * alpha];
                let rt = r.rows(d * alpha + 1, d - 1).norm();
                prop_assert!(rn >= -1e-14 && rt <= p.mu[alpha] * rn * (1.0 + 1e-12) + 1e-14, "{:?}: outside the cone", solver);
            }
        }
    }
}

#[test]
fn bad_problems_are_errors() {
    let w = DMatrix::identity(3, 3);
    let q = DVector::from_element(3, -1.0);
    let mu = DVector::from_element(1, 0.3);
    assert!(FrictionContactProblem::new(4, w.clone(), q.clone(), mu.clone()).is_err());
    assert!(FrictionContactProblem::new(2, w.clone(), q.clone(), mu.clone()).is_err());
    let error = FrictionContactProblem::new(3, w.clone(), q.clone(), DVector::from_element(1, -0.1)).unwrap_err();
    assert!(error.to_string().contains("μ of contact 0"), "{error}");
    let mut nan = q.clone();
    nan[1] = f64::NAN;
    assert!(FrictionContactProblem::new(3, w.clone(), nan, mu.clone()).is_err());
    let p = FrictionContactProblem::new(3, w, q, mu).unwrap();
    let mut r = DVector::zeros(3);
    let error = solve_friction(FrictionSolver::Lemke, &p, &mut r, &FrictionOptions::default()).unwrap_err();
    assert!(error.to_string().contains("2-D"), "{error}");
    let mut short = DVector::zeros(2);
    assert!(solve_friction(FrictionSolver::Nsgs, &p, &mut short, &FrictionOptions::default()).is_err());
    let bad = FrictionOptions {
        rho: Some(-1.0),
        ..Default::default()
    };
    assert!(solve_friction(FrictionSolver::FixedPoint, &p, &mut r, &bad).is_err());
}

/// A random mixed problem around a known solution: equality blocks (any λ, w = 0),
/// complementarity rows (λ > 0 = w, or λ = 0 < w) and friction contacts (as
/// [`known_solution`]), W = A Aᵀ + δ I.
fn known_mixed(kinds: &[(u8, u8, f64, [f64; 3])], a: &[f64]) -> (MixedFrictionProblem, DVector<f64>) {
    let mut blocks = Vec::new();
    let (mut lambda, mut u) = (Vec::new(), Vec::new());
    for &(kind, state, mu, x) in kinds {
        match kind % 4 {
            0 => {
                blocks.push(Block::Equality(1 + (state % 2) as usize));
                for &value in &x[..1 + (state % 2) as usize] {
                    lambda.push(value);
                    u.push(0.0);
                }
            }
            1 => {
                blocks.push(Block::Complementarity);
                if state % 2 == 0 {
                    lambda.push(x[0].abs() + 0.1);
                    u.push(0.0);
                } else {
                    lambda.push(0.0);
                    u.push(x[0].abs() + 0.1);
                }
            }
            kind => {
                let d = kind as usize;
                blocks.push(Block::Friction { dimension: d, mu });
                let (p, r) = known_solution(d, &[(state, mu, x)], &[1.0]);
                let w = p.u(&r);
                lambda.extend(r.iter());
                u.extend(w.iter());
            }
        }
    }
    let n = lambda.len();
    let a = DMatrix::from_fn(n, n, |i, j| a[(i * n + j) % a.len()]);
    let w = &a * a.transpose() + DMatrix::identity(n, n) * 0.1;
    let lambda = DVector::from_vec(lambda);
    let q = DVector::from_vec(u) - &w * &lambda;
    (MixedFrictionProblem::new(w, q, blocks).unwrap(), lambda)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Block NSGS: it must solve every problem of equalities and complementarity rows (block
    /// PGS on an SPD W converges), and tell the truth when friction contacts join them.
    #[test]
    fn block_nsgs_solves_mixed_problems_with_a_known_solution(
        kinds in proptest::collection::vec((0u8..4, 0u8..3, 0.0f64..1.0, proptest::array::uniform3(-1.0f64..1.0)), 1..6),
        a in proptest::collection::vec(-1.0f64..1.0, 7..40),
    ) {
        let (p, exact) = known_mixed(&kinds, &a);
        prop_assert!(p.error(&exact) < 1e-14, "the constructed solution is one: {}", p.error(&exact));
        let mut lambda = DVector::zeros(exact.len());
        let options = FrictionOptions { tolerance: 1e-10, max_iterations: 10_000, ..Default::default() };
        let report = p.solve(&mut lambda, &options).unwrap();
        prop_assert_eq!(report.residual, p.error(&lambda));
        let frictionless = p.blocks.iter().all(|b| !matches!(b, Block::Friction { .. }));
        prop_assert!(report.converged || !frictionless, "{:?}", report);
        if report.converged {
            prop_assert!(report.residual <= 1e-10);
        } else {
            prop_assert!(report.residual > 1e-10);
        }
    }
}

#[test]
fn mixed_problems_check_their_blocks() {
    let w = DMatrix::identity(3, 3);
    let q = DVector::from_element(3, -1.0);
    assert!(MixedFrictionProblem::new(w.clone(), q.clone(), vec![Block::Complementarity; 2]).is_err());
    assert!(MixedFrictionProblem::new(w.clone(), q.clone(), vec![Block::Friction { dimension: 4, mu: 0.1 }]).is_err());
    assert!(MixedFrictionProblem::new(w.clone(), q.clone(), vec![Block::Friction { dimension: 3, mu: -0.1 }]).is_err());
    assert!(
        MixedFrictionProblem::new(
            w.clone(),
            q.clone(),
            vec![Block::Equality(0), Block::Friction { dimension: 3, mu: 0.1 }]
        )
        .is_err()
    );
    let singular = MixedFrictionProblem::new(
        DMatrix::zeros(3, 3),
        q,
        vec![Block::Equality(2), Block::Complementarity],
    )
    .unwrap();
    let mut lambda = DVector::zeros(3);
    assert!(singular.solve(&mut lambda, &FrictionOptions::default()).is_err());
    // A start of the wrong length, or blocks edited into nonsense, are errors, not panics.
    let mut p = MixedFrictionProblem::new(w, DVector::from_element(3, -1.0), vec![Block::Complementarity; 3]).unwrap();
    let mut short = DVector::zeros(2);
    assert!(p.solve(&mut short, &FrictionOptions::default()).is_err());
    p.blocks = vec![Block::Equality(0), Block::Friction { dimension: 3, mu: 0.1 }];
    assert!(p.solve(&mut lambda, &FrictionOptions::default()).is_err());
}
