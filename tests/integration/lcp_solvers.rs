//! Every LCP solver on Siconos's numerics LCP test collection (Apache-2.0, in
//! ../shared/data/siconos/numerics-lcp), and on random problems with known solutions.

use crate::common;

use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use ricochet::io::siconos::read_lcp;
use ricochet::numerics::{LinearComplementarityProblem, SolverKind, SolverOptions, SolverReport, solve_lcp};

/// Files with no solution Lemke can reach, and why.
const LEMKE_FAILS: &[(&str, &str)] = &[
    (
        "lcp_CPS_3.dat",
        "a bimatrix game: M ≥ 0 is copositive but not copositive-plus, Lemke ends on a ray",
    ),
    (
        "lcp_Pang_isolated_sol_perturbed.dat",
        "infeasible: w₀ = −z₁ − z₂ − 10⁻⁴ < 0 for every z ≥ 0",
    ),
];
/// Files with no solution at all.
const INFEASIBLE: &[&str] = &["lcp_Pang_isolated_sol_perturbed.dat"];

fn problems() -> Vec<(String, LinearComplementarityProblem)> {
    let Some(dir) = common::siconos_data() else {
        return Vec::new();
    };
    let mut files: Vec<_> = std::fs::read_dir(dir.join("numerics-lcp"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 20, "the collection has 20 LCP files");
    files
        .iter()
        .map(|f| {
            (
                f.file_name().unwrap().to_string_lossy().into_owned(),
                read_lcp(f).unwrap(),
            )
        })
        .collect()
}

/// Independent check of a candidate: z ≥ 0, w = Mz + q ≥ 0, zᵀw = 0, to `tol` (scaled).
fn is_solution(lcp: &LinearComplementarityProblem, z: &DVector<f64>, tol: f64) -> bool {
    let w = &lcp.m * z + &lcp.q;
    let scale = 1.0 + lcp.q.amax() + lcp.m.amax() * z.amax();
    z.iter().all(|&x| x >= 0.0)
        && w.iter().all(|&x| x >= -tol * scale)
        && z.dot(&w).abs() <= tol * scale * (1.0 + z.amax())
}

fn run(kind: SolverKind, lcp: &LinearComplementarityProblem, options: &SolverOptions) -> (DVector<f64>, SolverReport) {
    let mut z = DVector::zeros(lcp.size());
    let report = solve_lcp(kind, lcp, &mut z, options).unwrap();
    // The report is honest: its residual is the one recomputed here, and `converged` agrees.
    assert_eq!(report.residual, lcp.error(&z));
    assert_eq!(report.converged, report.residual <= options.tolerance);
    (z, report)
}

#[test]
fn lemke_solves_every_solvable_file() {
    let options = SolverOptions {
        tolerance: 1e-10,
        ..Default::default()
    };
    for (name, lcp) in problems() {
        let (z, report) = run(SolverKind::Lemke, &lcp, &options);
        let expected_failure = LEMKE_FAILS.iter().find(|(f, _)| *f == name);
        match expected_failure {
            None => {
                assert!(report.converged, "{name}: Lemke residual {:e}", report.residual);
                assert!(is_solution(&lcp, &z, 1e-10), "{name}: Lemke's z is not a solution");
            }
            Some((_, why)) => assert!(!report.converged, "{name} ({why}) must be reported as a failure"),
        }
    }
}

#[test]
fn enumeration_solves_small_files_and_proves_infeasibility() {
    let options = SolverOptions {
        tolerance: 1e-10,
        ..Default::default()
    };
    for (name, lcp) in problems().into_iter().filter(|(_, lcp)| lcp.size() <= 16) {
        let (z, report) = run(SolverKind::Enumerative, &lcp, &options);
        if INFEASIBLE.contains(&name.as_str()) {
            assert!(!report.converged, "{name} has no solution");
        } else {
            assert!(
                report.converged && is_solution(&lcp, &z, 1e-10),
                "{name}: enumeration residual {:e}",
                report.residual
            );
        }
    }
}

#[test]
fn iterative_solvers_converge_on_spd_files_and_report_the_rest_honestly() {
    let options = SolverOptions {
        tolerance: 1e-10,
        max_iterations: 20_000,
        ..Default::default()
    };
    let mut spd = 0;
    for (name, lcp) in problems() {
        for kind in [SolverKind::Pgs, SolverKind::Jacobi] {
            let (z, report) = run(kind, &lcp, &options);
            if lcp.is_spd() {
                assert!(
                    report.converged,
                    "{name}: {} residual {:e}",
                    kind.name(),
                    report.residual
                );
            }
            if report.converged {
                assert!(
                    is_solution(&lcp, &z, 1e-8),
                    "{name}: {} claims a solution that is not",
                    kind.name()
                );
            }
        }
        spd += usize::from(lcp.is_spd());
    }
    if spd > 0 {
        assert_eq!(spd, 5, "deudeu, deudeu_block, mmc, trivial and trivial_block are SPD");
    }
}

#[test]
fn zero_diagonal_is_a_reported_failure() {
    let lcp = LinearComplementarityProblem::new(
        DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 1.0, 1.0]),
        DVector::from_vec(vec![-1.0, -1.0]),
    )
    .unwrap();
    for kind in [SolverKind::Pgs, SolverKind::Jacobi] {
        let (_, report) = run(kind, &lcp, &SolverOptions::default());
        assert!(!report.converged && report.iterations == 0);
    }
}

/// A random LCP with a known solution: M = AᵀA + δI (SPD), z* and w* complementary,
/// q = w* − M z*.
fn known_solution() -> impl Strategy<Value = (LinearComplementarityProblem, DVector<f64>)> {
    (1usize..12).prop_flat_map(|n| {
        (
            proptest::collection::vec(-1.0f64..1.0, n * n),
            proptest::collection::vec(0.0f64..2.0, n),
            proptest::collection::vec(any::<bool>(), n),
        )
            .prop_map(move |(a, values, basic)| {
                let a = DMatrix::from_vec(n, n, a);
                let m = a.transpose() * &a + DMatrix::identity(n, n) * 0.1;
                let z = DVector::from_fn(n, |i, _| if basic[i] { values[i] + 0.1 } else { 0.0 });
                let w = DVector::from_fn(n, |i, _| if basic[i] { 0.0 } else { values[i] });
                let q = w - &m * &z;
                (LinearComplementarityProblem::new(m, q).unwrap(), z)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_solver_finds_the_known_solution((lcp, z_star) in known_solution()) {
        let options = SolverOptions { tolerance: 1e-11, max_iterations: 200_000, ..Default::default() };
        for kind in [SolverKind::Lemke, SolverKind::Pgs, SolverKind::Jacobi, SolverKind::Enumerative] {
            let (z, report) = run(kind, &lcp, &options);
            prop_assert!(report.converged, "{}: residual {:e}", kind.name(), report.residual);
            // M is positive definite, so the solution is unique.
            let err = (&z - &z_star).amax() / (1.0 + z_star.amax());
            prop_assert!(err < 1e-6, "{}: |z − z*| = {:e}", kind.name(), err);
        }
    }
}
