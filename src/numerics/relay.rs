//! The relay problem — find λ ∈ [lb, ub] with `−(M λ + q) ∈ N_[lb, ub](λ)` on its relay rows
//! (λ = lb where w > 0, λ = ub where w < 0, w = 0 between) — beside complementarity and
//! equality rows, as the mixed complementarity problem every MLCP solver takes. With
//! z = λ − lb and μ ≥ 0 the multiplier of λ ≤ ub on each relay row, w = s − μ:
//! ```text
//!     [ s ]   [  M   E ] [ z ]   [ q + M l ]
//!     [ t ] = [ −Eᵀ  0 ] [ μ ] + [ u − l   ],   0 ≤ (z, μ) ⟂ (s, t) ≥ 0 on relay rows,
//! ```
//! E the columns of the identity at the relay rows, l and u the bounds there (0 elsewhere);
//! the other rows keep their own condition.

use nalgebra::{DMatrix, DVector};

/// The problem of `w = matrix λ + vector` with relay rows `bounds[i] = Some((lb, ub))` (the
/// others complementarity, or free where `equality`), as an MLCP: its matrix, vector and
/// free rows, whose solution [`relay_solution`] turns back into λ.
pub fn relay_as_mlcp(
    matrix: &DMatrix<f64>,
    vector: &DVector<f64>,
    equality: &[bool],
    bounds: &[Option<(f64, f64)>],
) -> (DMatrix<f64>, DVector<f64>, Vec<bool>) {
    let m = vector.len();
    let relays: Vec<(usize, (f64, f64))> = bounds
        .iter()
        .enumerate()
        .filter_map(|(i, b)| b.map(|b| (i, b)))
        .collect();
    let size = m + relays.len();
    let lower = DVector::from_iterator(m, bounds.iter().map(|b| b.map_or(0.0, |(lb, _)| lb)));
    let mut big = DMatrix::zeros(size, size);
    big.view_mut((0, 0), (m, m)).copy_from(matrix);
    let mut q = DVector::zeros(size);
    q.rows_mut(0, m).copy_from(&(vector + matrix * &lower));
    for (j, &(i, (lb, ub))) in relays.iter().enumerate() {
        big[(i, m + j)] = 1.0;
        big[(m + j, i)] = -1.0;
        q[m + j] = ub - lb;
    }
    let mut free = equality.to_vec();
    free.resize(size, false);
    (big, q, free)
}

/// λ from the solution `z` of [`relay_as_mlcp`]'s problem: z + lb on the relay rows.
pub fn relay_solution(z: &DVector<f64>, bounds: &[Option<(f64, f64)>]) -> DVector<f64> {
    DVector::from_iterator(
        bounds.len(),
        bounds
            .iter()
            .enumerate()
            .map(|(i, b)| z[i] + b.map_or(0.0, |(lb, _)| lb)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::{MixedLinearComplementarityProblem, SolverKind, SolverOptions, solve_mlcp};

    fn relay(matrix: DMatrix<f64>, q: DVector<f64>, bounds: &[Option<(f64, f64)>]) -> DVector<f64> {
        let equality = vec![false; q.len()];
        let (big, vector, free) = relay_as_mlcp(&matrix, &q, &equality, bounds);
        let problem = MixedLinearComplementarityProblem::new(big, vector, free).unwrap();
        let mut z = DVector::zeros(problem.size());
        let report = solve_mlcp(SolverKind::Lemke, &problem, &mut z, &SolverOptions::default()).unwrap();
        assert!(report.converged, "{report:?}");
        relay_solution(&z, bounds)
    }

    /// One row, w = λ + q, λ ∈ [−1, 1]: λ = −q inside, the bound where |q| > 1 (lb where
    /// w > 0); the sign of −q, made set-valued.
    #[test]
    fn one_relay_row_is_a_saturated_sign() {
        for (q, expected) in [(0.5, -0.5), (3.0, -1.0), (-3.0, 1.0), (0.0, 0.0)] {
            let lambda = relay(
                DMatrix::identity(1, 1),
                DVector::from_element(1, q),
                &[Some((-1.0, 1.0))],
            );
            assert!((lambda[0] - expected).abs() < 1e-12, "q = {q}: λ = {}", lambda[0]);
        }
    }

    /// A relay row beside a complementarity row, with a nonsymmetric positive definite M;
    /// the solution satisfies both conditions.
    #[test]
    fn relay_beside_complementarity() {
        let m = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, -1.0, 1.0]);
        for q in [[1.0, -1.0], [-4.0, 2.0], [0.5, -3.0], [-0.3, 0.2]] {
            let q = DVector::from_row_slice(&q);
            let bounds = [Some((0.0, 1.0)), None];
            let lambda = relay(m.clone(), q.clone(), &bounds);
            let w = &m * &lambda + &q;
            let tol = 1e-10;
            // Relay on row 0, λ ∈ [0, 1].
            assert!((-tol..=1.0 + tol).contains(&lambda[0]), "{lambda}");
            if lambda[0] > tol && lambda[0] < 1.0 - tol {
                assert!(w[0].abs() < tol, "interior: w = {w}");
            } else if lambda[0] <= tol {
                assert!(w[0] >= -tol, "at lb: w = {w}");
            } else {
                assert!(w[0] <= tol, "at ub: w = {w}");
            }
            // Complementarity on row 1.
            assert!(
                lambda[1] >= -tol && w[1] >= -tol && (lambda[1] * w[1]).abs() < tol,
                "{lambda} {w}"
            );
        }
    }
}
