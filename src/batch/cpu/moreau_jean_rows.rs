//! Row helpers of the CPU twin, lane-wise: Siconos's MLCP error as squares, its tolerance
//! test and the friction contacts' blocks (the kernel's `moreau_jean_rows.wgsl`; the
//! sphere–sphere rows are in `sphere_rows.rs`, the local solves they call in
//! `contact::local`).

use std::array::from_fn;

use num_traits::Float;

use crate::batch::RowKind;
use crate::batch::sparsity::Rows;
use crate::contact::lanes::{LANES, Lanes, Mask};
use crate::contact::local::{friction_2d, friction_3d, friction_error};

type L2<T> = Lanes<T, LANES>;

/// A matrix in lanes as stored: its entries, and where each row keeps them (dense or by a
/// row pattern). Kernel: `d_at` with `row_span`, `row_col`.
#[derive(Clone, Copy)]
pub(super) struct Stored<'a, T> {
    values: &'a [L2<T>],
    rows: Rows<'a>,
}

impl<'a, T: Float> Stored<'a, T> {
    /// The matrix of entries `values` kept by `rows`.
    #[inline(always)]
    pub(super) fn new(values: &'a [L2<T>], rows: Rows<'a>) -> Self {
        Self { values, rows }
    }

    /// init + Σ_k A_rk x_k over row r's stored entries, in the order of k.
    #[inline(always)]
    pub(super) fn row_dot(&self, r: usize, init: L2<T>, x: &[L2<T>]) -> L2<T> {
        let mut sum = init;
        for p in self.rows.span(r) {
            sum = sum + self.values[p] * x[self.rows.col(r, p)];
        }
        sum
    }

    /// A_rk, zero where not stored.
    #[inline(always)]
    pub(super) fn at(&self, r: usize, k: usize) -> L2<T> {
        self.rows.find(r, k).map_or(Lanes::zero(), |p| self.values[p])
    }
}

/// Siconos's error ‖λ − max(0, λ − w)‖ / ‖q‖ over the active rows (w = q + D λ; w itself on
/// equality rows; a friction contact's block counts its natural map ‖λ − P_K(λ − ŵ)‖²,
/// [`friction_error`], on its normal row), as the squares (‖·‖², ‖q‖²): the sweeps compare
/// squares, without roots. `rows` are the rows' [`RowKind`] codes, `mu` their μ.
#[inline(always)]
pub(super) fn lcp_error<T: Float>(
    d: Stored<'_, T>,
    lcp_q: &[Lanes<T, LANES>],
    active: &[Mask<LANES>],
    (rows, mu): (&[u32], &[Lanes<T, LANES>]),
    lambda: &[Lanes<T, LANES>],
) -> (Lanes<T, LANES>, Lanes<T, LANES>) {
    let m = lcp_q.len();
    let zero = Lanes::zero();
    let (mut err, mut norm) = (zero, zero);
    // w_r = q_r + Σ_k D_rk λ_k (the kernel's `local_velocity`).
    let w = |r: usize| d.row_dot(r, lcp_q[r], lambda);
    for r in 0..m {
        let kind = row_kind(rows, r);
        let x2 = if is_normal(kind) {
            let d = kind as usize;
            let (mut lam, mut wb) = ([zero; 3], [zero; 3]);
            for a in 0..d {
                (lam[a], wb[a]) = (lambda[r + a], w(r + a));
            }
            friction_error(d, lam, wb, mu[r])
        } else if kind == TANGENT {
            zero
        } else {
            let wr = w(r);
            let x = if kind == EQUALITY {
                wr
            } else {
                lambda[r] - (lambda[r] - wr).max(zero)
            };
            x * x
        };
        err = Lanes::select(active[r], err + x2, err);
        norm = Lanes::select(active[r], norm + lcp_q[r] * lcp_q[r], norm);
    }
    (err, norm)
}

/// [`RowKind::Equality`]'s code, one of the codes the stages branch on.
pub(super) const EQUALITY: u32 = RowKind::Equality.code();
/// [`RowKind::Normal2d`]'s code (2, the contact's rows).
pub(super) const NORMAL_2D: u32 = RowKind::Normal2d.code();
/// [`RowKind::Normal3d`]'s code (3, the contact's rows).
pub(super) const NORMAL_3D: u32 = RowKind::Normal3d.code();
/// [`RowKind::Tangent`]'s code.
pub(super) const TANGENT: u32 = RowKind::Tangent.code();

/// Row r's [`RowKind`] code (the same in every lane of a group). Kernel: `row_kind`.
#[inline(always)]
pub(super) fn row_kind(rows: &[u32], r: usize) -> u32 {
    rows[r]
}

/// Whether a row of kind `kind` is a Coulomb contact's normal row (its code is then the
/// contact's rows d). Kernel: `is_normal`.
#[inline(always)]
pub(super) fn is_normal(kind: u32) -> bool {
    kind == NORMAL_2D || kind == NORMAL_3D
}

/// ‖λ_T‖ − μ λ_N of the friction contact of `d` rows from row r (|λ_T| in 2-D): ≤ 0 inside
/// its cone. Kernel: `cone_violation`.
#[inline(always)]
pub(super) fn cone_violation<T: Float>(mu: &[L2<T>], lambda: &[L2<T>], r: usize, d: usize) -> L2<T> {
    let tangent = if d == 3 {
        (lambda[r + 1] * lambda[r + 1] + lambda[r + 2] * lambda[r + 2]).sqrt()
    } else {
        lambda[r + 1].abs()
    };
    tangent - mu[r] * lambda[r]
}

/// Whether the error is within `tol`: ‖·‖² ≤ tol² ‖q‖² (relative) when ‖q‖ > ε, else
/// ‖·‖² ≤ tol²; false for NaN.
#[inline(always)]
pub(super) fn within<T: Float>((err, norm): (Lanes<T, LANES>, Lanes<T, LANES>), tol: T) -> Mask<LANES> {
    err.le(Lanes::splat(tol * tol) * scale(norm))
}

/// Siconos's error from its squares.
#[inline(always)]
pub(super) fn residual<T: Float>((err, norm): (Lanes<T, LANES>, Lanes<T, LANES>)) -> Lanes<T, LANES> {
    (err / scale(norm)).sqrt()
}

/// ‖q‖² where ‖q‖ > ε, else 1: what the error is relative to.
#[inline(always)]
fn scale<T: Float>(norm: Lanes<T, LANES>) -> Lanes<T, LANES> {
    let eps = Lanes::splat(T::epsilon() * T::epsilon());
    Lanes::select(norm.gt(eps), norm, Lanes::splat(T::one()))
}

/// A unilateral (normal) row's PGS update: λ ← max(0, λ − w/D_rr), w its row of the MLCP at
/// the current λ. Kernel: `normal_row`.
#[inline(always)]
pub(super) fn normal_row<T: Float>(lambda: L2<T>, w: L2<T>, diagonal: L2<T>) -> L2<T> {
    equality_row(lambda, w, diagonal).max(Lanes::zero())
}

/// An equality row's Gauss–Seidel update: λ ← λ − w/D_rr (unprojected). Kernel:
/// `equality_row`.
#[inline(always)]
pub(super) fn equality_row<T: Float>(lambda: L2<T>, w: L2<T>, diagonal: L2<T>) -> L2<T> {
    lambda - w / diagonal
}

/// The sweep's step on the friction contact of `rows` rows from row `r`, in the lanes of
/// `update`: w of its rows at the current λ, its local q̃ = w − D_bb λ_b (u = D_bb λ_b + q̃),
/// and its new reactions by [`friction_2d`] or [`friction_3d`]. Kernel: `friction_block` (and
/// the friction part of `solve_local`).
#[inline(always)]
pub(super) fn friction_block<T: Float>(
    dd: Stored<'_, T>,
    lcp_q: &[Lanes<T, LANES>],
    mu: &[Lanes<T, LANES>],
    lambda: &mut [Lanes<T, LANES>],
    r: usize,
    rows: usize,
    update: Mask<LANES>,
) {
    let at = |a: usize, b: usize| dd.at(r + a, r + b);
    let mut lam = [Lanes::zero(); 3];
    lam[..rows].copy_from_slice(&lambda[r..r + rows]);
    let mut local = [Lanes::zero(); 3];
    for (a, la) in local.iter_mut().enumerate().take(rows) {
        *la = dd.row_dot(r + a, lcp_q[r + a], lambda);
        for (b, lb) in lam.iter().enumerate().take(rows) {
            *la = *la - at(a, b) * *lb;
        }
    }
    let mu = mu[r];
    let x = if rows == 2 {
        let [n, t] = friction_2d([[at(0, 0), at(0, 1)], [at(1, 0), at(1, 1)]], [local[0], local[1]], mu);
        [n, t, Lanes::zero()]
    } else {
        friction_3d(from_fn(|a| from_fn(|b| at(a, b))), local, lam, mu)
    };
    for a in 0..rows {
        lambda[r + a] = Lanes::select(update, x[a], lam[a]);
    }
}
