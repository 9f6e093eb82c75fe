//! The MLCP algorithms that are not row sweeps: the direct solve (no complementarity row) and
//! Lemke on the reduced LCP, the exact reference.
//!
//! With E the equality rows and C the complementarity rows, the equalities give
//! ```text
//!     z_E = −M_EE⁻¹ (M_EC z_C + q_E)
//! ```
//! and z_C solves the LCP of the Schur complement
//! ```text
//!     0 ≤ z_C ⟂ (M_CC − M_CE M_EE⁻¹ M_EC) z_C + q_C − M_CE M_EE⁻¹ q_E ≥ 0,
//! ```
//! which needs M_EE invertible. When it is singular (the circuit problems of Siconos's
//! collection have such blocks), a few complementarity rows S join the pivot so that M_PP,
//! P = E ∪ S, is invertible, and the principal pivot transform on P gives an LCP whose
//! unknowns are (w_S, z_N) and outputs (z_S, w_N), N = C ∖ S:
//! ```text
//!     z_P = M_PP⁻¹ (w_P − M_PN z_N − q_P)   with w_E = 0,
//!     w_N = M_NP z_P + M_NN z_N + q_N.
//! ```
//! With S empty this is the Schur complement above. A principal pivot keeps the P-matrix
//! property, so Lemke solves the transformed problem whenever the original has a P-matrix.

use nalgebra::{DMatrix, DVector};

use super::{LinearComplementarityProblem, MixedLinearComplementarityProblem, SolverOptions, SolverReport, report};
use crate::error::{Error, Result};

/// z = −M⁻¹ q for a problem with equality rows only (one LU solve).
pub(crate) fn direct(
    problem: &MixedLinearComplementarityProblem,
    z: &mut DVector<f64>,
    options: &SolverOptions,
) -> Result<SolverReport> {
    let solution = problem
        .m
        .clone()
        .lu()
        .solve(&-&problem.q)
        .ok_or_else(|| singular("M"))?;
    z.copy_from(&solution);
    Ok(report(problem, z, 1, options.tolerance))
}

/// Lemke on the pivoted LCP of the module docs, then z_P recovered.
pub(crate) fn reduced_lemke(
    problem: &MixedLinearComplementarityProblem,
    z: &mut DVector<f64>,
    options: &SolverOptions,
) -> Result<SolverReport> {
    let (e, c) = partition(problem);
    let s = pivot_rows(problem, &e, &c)?;
    let p: Vec<usize> = e.iter().chain(&s).copied().collect();
    let n: Vec<usize> = c.iter().copied().filter(|i| !s.contains(i)).collect();
    let block =
        |rows: &[usize], cols: &[usize]| DMatrix::from_fn(rows.len(), cols.len(), |i, j| problem.m[(rows[i], cols[j])]);
    let part = |rows: &[usize]| DVector::from_fn(rows.len(), |i, _| problem.q[rows[i]]);
    let pp_inv = block(&p, &p).try_inverse().ok_or_else(|| singular("M_PP"))?;
    let (m_pn, m_np, q_p) = (block(&p, &n), block(&n, &p), part(&p));
    let (pp_inv_pn, pp_inv_qp) = (&pp_inv * &m_pn, &pp_inv * &q_p);
    let (ne, ns, nn) = (e.len(), s.len(), n.len());
    // The LCP's unknowns are (w_S, z_N), its outputs (z_S, w_N).
    let mut m = DMatrix::zeros(ns + nn, ns + nn);
    let mut q = DVector::zeros(ns + nn);
    m.view_mut((0, 0), (ns, ns)).copy_from(&pp_inv.view((ne, ne), (ns, ns)));
    m.view_mut((0, ns), (ns, nn)).copy_from(&-pp_inv_pn.rows(ne, ns));
    q.rows_mut(0, ns).copy_from(&-pp_inv_qp.rows(ne, ns));
    m.view_mut((ns, 0), (nn, ns))
        .copy_from(&(&m_np * &pp_inv).columns(ne, ns));
    m.view_mut((ns, ns), (nn, nn))
        .copy_from(&(block(&n, &n) - &m_np * &pp_inv_pn));
    q.rows_mut(ns, nn).copy_from(&(part(&n) - &m_np * &pp_inv_qp));
    let reduced = LinearComplementarityProblem::new(m, q)?;
    let mut unknowns = DVector::zeros(ns + nn);
    let lcp_report = super::lemke::solve(&reduced, &mut unknowns, options);
    let z_n = unknowns.rows(ns, nn);
    let mut w_p = DVector::zeros(p.len());
    w_p.rows_mut(ne, ns).copy_from(&unknowns.rows(0, ns));
    let z_p = &pp_inv * w_p - &pp_inv_pn * z_n - &pp_inv_qp;
    for (k, &i) in n.iter().enumerate() {
        z[i] = z_n[k];
    }
    for (k, &i) in p.iter().enumerate() {
        z[i] = z_p[k];
    }
    Ok(report(problem, z, lcp_report.iterations, options.tolerance))
}

/// The complementarity rows S that join the equalities so that M_PP, P = E ∪ S, is
/// invertible: none when M_EE is; otherwise rows taken in order while each lowers the rank
/// deficiency |P| − rank(M_PP).
fn pivot_rows(problem: &MixedLinearComplementarityProblem, e: &[usize], c: &[usize]) -> Result<Vec<usize>> {
    // 0 when the LU factorisation inverts M_PP (which then is the one used), else ≥ 1.
    let deficiency = |p: &[usize]| {
        let m_pp = DMatrix::from_fn(p.len(), p.len(), |i, j| problem.m[(p[i], p[j])]);
        if m_pp.clone().try_inverse().is_some() {
            0
        } else {
            (p.len() - m_pp.rank(1e-12 * m_pp.amax() * p.len() as f64)).max(1)
        }
    };
    let mut p = e.to_vec();
    let mut current = deficiency(&p);
    for &i in c {
        if current == 0 {
            break;
        }
        p.push(i);
        match deficiency(&p) {
            lower if lower < current => current = lower,
            _ => drop(p.pop()),
        }
    }
    if current > 0 {
        return Err(singular("M_EE (no complementarity rows make it invertible)"));
    }
    Ok(p[e.len()..].to_vec())
}

/// The indices of the equality rows and of the complementarity rows.
fn partition(problem: &MixedLinearComplementarityProblem) -> (Vec<usize>, Vec<usize>) {
    (0..problem.size()).partition(|&i| problem.equality[i])
}

fn singular(block: &str) -> Error {
    Error::Singular {
        what: format!("MLCP block {block}"),
    }
}
