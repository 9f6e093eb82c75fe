//! The MLCP solvers on Siconos's numerics MLCP test collection (Apache-2.0, in
//! ../shared/data/siconos/numerics-mlcp), and on problems with a known solution.

use crate::common;

use nalgebra::{DMatrix, DVector};
use ricochet::error::Error;
use ricochet::io::siconos::{parse_mlcp, read_mlcp};
use ricochet::numerics::{MixedLinearComplementarityProblem, SolverKind, SolverOptions, SolverReport, solve_mlcp};

fn files() -> Vec<std::path::PathBuf> {
    let Some(dir) = common::siconos_data() else {
        return Vec::new();
    };
    let mut files: Vec<_> = std::fs::read_dir(dir.join("numerics-mlcp"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 16, "the collection has 16 MLCP files");
    files
}

fn name(path: &std::path::Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn run(
    kind: SolverKind,
    mlcp: &MixedLinearComplementarityProblem,
    options: &SolverOptions,
) -> (DVector<f64>, SolverReport) {
    let mut z = DVector::zeros(mlcp.size());
    let report = solve_mlcp(kind, mlcp, &mut z, options).unwrap();
    assert_eq!(
        report.residual,
        mlcp.error(&z),
        "the report's residual is the recomputed one"
    );
    assert_eq!(report.converged, report.residual <= options.tolerance);
    (z, report)
}

/// Independent check of a candidate: w_E ≈ 0, z_C ≥ 0, w_C ≥ 0, z_C·w_C ≈ 0, to `tol` scaled.
fn is_solution(mlcp: &MixedLinearComplementarityProblem, z: &DVector<f64>, tol: f64) -> bool {
    let w = &mlcp.m * z + &mlcp.q;
    let scale = 1.0 + mlcp.q.amax() + mlcp.m.amax() * z.amax();
    (0..mlcp.size()).all(|i| {
        if mlcp.equality[i] {
            w[i].abs() <= tol * scale
        } else {
            z[i] >= 0.0 && w[i] >= -tol * scale && (z[i] * w[i]).abs() <= tol * scale * (1.0 + z.amax())
        }
    })
}

fn options() -> SolverOptions {
    SolverOptions {
        tolerance: 1e-10,
        max_iterations: 100_000,
        ..Default::default()
    }
}

#[test]
fn lemke_solves_every_square_file_and_the_rectangular_one_is_refused() {
    for path in files() {
        let file = name(&path);
        if file == "Rectangular_mlcp.dat" {
            // M is stored 3x2: more rows than unknowns, not an MLCP of the square form.
            let err = read_mlcp(&path).unwrap_err();
            assert!(
                matches!(err, Error::Parse { .. }) && err.to_string().contains("3x2"),
                "{err}"
            );
            continue;
        }
        let mlcp = read_mlcp(&path).unwrap();
        let (z, report) = run(SolverKind::Lemke, &mlcp, &options());
        println!(
            "{file}: n = {}, equalities = {}, Lemke residual {:.1e} after {} pivots",
            mlcp.size(),
            mlcp.equalities(),
            report.residual,
            report.iterations
        );
        assert!(report.converged, "{file}: {report:?}");
        assert!(is_solution(&mlcp, &z, 1e-9), "{file}: {z}");
    }
}

#[test]
fn enumeration_solves_the_files_it_can_enumerate() {
    for path in files().iter().filter(|p| name(p) != "Rectangular_mlcp.dat") {
        let mlcp = read_mlcp(path).unwrap();
        let mut z = DVector::zeros(mlcp.size());
        if mlcp.complementarities() > 16 {
            let err = solve_mlcp(SolverKind::Enumerative, &mlcp, &mut z, &options()).unwrap_err();
            assert!(matches!(err, Error::Unsupported { .. }), "{err}");
            continue;
        }
        let (z, report) = run(SolverKind::Enumerative, &mlcp, &options());
        assert!(
            report.converged && is_solution(&mlcp, &z, 1e-9),
            "{}: {report:?}",
            name(path)
        );
    }
}

#[test]
fn pgs_converges_where_the_diagonal_allows_and_reports_the_rest() {
    for path in files().iter().filter(|p| name(p) != "Rectangular_mlcp.dat") {
        let mlcp = read_mlcp(path).unwrap();
        let (z, report) = run(SolverKind::Pgs, &mlcp, &options());
        let zero_diagonal = (0..mlcp.size()).any(|i| mlcp.m[(i, i)].abs() <= f64::EPSILON);
        if zero_diagonal {
            assert_eq!(
                report.iterations,
                0,
                "{}: a zero diagonal is reported at once",
                name(path)
            );
            assert!(!report.converged);
        } else if report.converged {
            assert!(is_solution(&mlcp, &z, 1e-8), "{}", name(path));
        }
        if ["PDSym_mlcp.dat", "m2n1_mlcp.dat", "m3n2_mlcp.dat", "deudeu_mlcp.dat"].contains(&name(path).as_str()) {
            assert!(report.converged, "{}: {report:?}", name(path));
        }
    }
}

/// A problem built around a known solution: M = AᵀA + I (SPD), rows alternating between
/// equality and complementarity, and w*, z* complementary on the complementarity rows.
fn known_problem(seed: u64, n: usize) -> (MixedLinearComplementarityProblem, DVector<f64>) {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let a = DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
    let m = a.transpose() * &a + DMatrix::identity(n, n);
    let equality: Vec<bool> = (0..n).map(|i| i % 3 == 1).collect();
    let mut z = DVector::zeros(n);
    let mut w = DVector::zeros(n);
    for i in 0..n {
        if equality[i] {
            z[i] = rng.random_range(-2.0..2.0);
        } else if rng.random_bool(0.5) {
            z[i] = rng.random_range(0.1..2.0);
        } else {
            w[i] = rng.random_range(0.1..2.0);
        }
    }
    let q = &w - &m * &z;
    (MixedLinearComplementarityProblem::new(m, q, equality).unwrap(), z)
}

#[test]
fn every_solver_finds_a_known_solution_with_interleaved_rows() {
    for seed in 0..20 {
        let (mlcp, z_star) = known_problem(seed, 9);
        for kind in [
            SolverKind::Lemke,
            SolverKind::Enumerative,
            SolverKind::Pgs,
            SolverKind::Jacobi,
        ] {
            let (z, report) = run(kind, &mlcp, &options());
            assert!(report.converged, "seed {seed}, {kind:?}: {report:?}");
            // SPD M: the solution is unique.
            assert!((&z - &z_star).amax() < 1e-7, "seed {seed}, {kind:?}: {z} vs {z_star}");
        }
    }
}

#[test]
fn equality_rows_alone_are_solved_directly() {
    let m = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 3.0]);
    let q = DVector::from_vec(vec![-3.0, -5.0]);
    let mlcp = MixedLinearComplementarityProblem::new(m, q, vec![true, true]).unwrap();
    for kind in [SolverKind::Lemke, SolverKind::Pgs] {
        let (z, report) = run(kind, &mlcp, &options());
        assert_eq!(report.iterations, 1);
        assert!((z[0] - 0.8).abs() < 1e-14 && (z[1] - 1.4).abs() < 1e-14, "{z}");
    }
}

#[test]
fn the_two_storage_forms_must_agree() {
    // deudeu: M = [[1, -1], [0, 1]], q = (-1, 1); its solution is u = 1, v = 0.
    let header = "1 1 1 1  0 1 2  0 1  0 2 2 2 2  1 0 -1 1  -1 1";
    let mlcp = parse_mlcp("t", &format!("{header}  1 1 -1 0 -1 1")).unwrap();
    assert_eq!(mlcp.m, DMatrix::from_row_slice(2, 2, &[1.0, -1.0, 0.0, 1.0]));
    assert_eq!(mlcp.equality, vec![true, false]);
    let (z, _) = run(SolverKind::Lemke, &mlcp, &options());
    assert_eq!(z.as_slice(), &[1.0, 0.0]);
    let err = parse_mlcp("t", &format!("{header}  1 1 -2 0 -1 1")).unwrap_err();
    assert!(err.to_string().contains("disagree"), "{err}");
    let err = parse_mlcp("t", "1 1 1 1  0 1 2  0 1  0 2 2 2 2  1 0").unwrap_err();
    assert!(err.to_string().contains("end of file"), "{err}");
}

#[test]
fn bad_problems_are_errors() {
    let m = DMatrix::identity(2, 2);
    let err = MixedLinearComplementarityProblem::new(m.clone(), DVector::zeros(2), vec![true]).unwrap_err();
    assert!(matches!(err, Error::Dimension { .. }), "{err}");
    // Two identical equality rows: no pivot makes the equality block invertible.
    let dependent = DMatrix::from_row_slice(3, 3, &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    let mlcp = MixedLinearComplementarityProblem::new(
        dependent,
        DVector::from_vec(vec![1.0, 1.0, 1.0]),
        vec![true, true, false],
    )
    .unwrap();
    let mut z = DVector::zeros(3);
    let err = solve_mlcp(SolverKind::Lemke, &mlcp, &mut z, &options()).unwrap_err();
    assert!(matches!(err, Error::Singular { .. }), "{err}");
}
