//! A contact's local problem in the sweeps: its new impulse given the others', by the local
//! solves the scene-parallel engine shares ([`crate::contact::local`]), exact for the diagonal
//! blocks of discs and spheres.

use super::bodies::Dimension;
use crate::contact::lanes::Lanes;
use crate::contact::local::{friction_2d, friction_3d};

/// A contact's new impulse given the others': with its local velocity u = H_c v, target ê
/// and impulse r, q̃ = u + ê − W r, the exact solution of u = W r + q̃, K ∋ r ⟂ û ∈ K* (2-D:
/// [`friction_2d`]; 3-D: [`friction_3d`]), W = diag(w_N, w_T, w_T) of its block `w` =
/// (w_N, w_T), μ of its cone.
#[inline(always)]
pub fn local_impulse(
    dimension: Dimension,
    u: [f64; 3],
    (target, r): ([f64; 3], [f64; 3]),
    ([wn, wt], mu): ([f64; 2], f64),
) -> [f64; 3] {
    let one = |x: f64| Lanes::<f64, 1>([x]);
    let zero = one(0.0);
    let q = [
        one(u[0] + target[0] - wn * r[0]),
        one(u[1] + target[1] - wt * r[1]),
        one(u[2] + target[2] - wt * r[2]),
    ];
    let (wn, wt, mu) = (one(wn), one(wt), one(mu));
    match dimension {
        Dimension::Two => {
            let [n, t] = friction_2d([[wn, zero], [zero, wt]], [q[0], q[1]], mu);
            [n.0[0], t.0[0], 0.0]
        }
        Dimension::Three => {
            let w = [[wn, zero, zero], [zero, wt, zero], [zero, zero, wt]];
            friction_3d(w, q, r.map(one), mu).map(|x| x.0[0])
        }
    }
}
