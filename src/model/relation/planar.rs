//! A planar rigid body's contact with a fixed line: a point c of the body (in its frame),
//! rounded by a radius ρ, against the line n·p = d — a box's corner on a floor, an incline or
//! a wall (ρ = 0), a disc on a line (c = 0, ρ its radius). The body is the first three
//! coordinates (x, y, θ) of its system; R(θ) turns its frame.
//!
//! Rows (normal, tangent), with t = (n_y, −n_x) the line's direction (t × n = +1):
//! ```text
//!     y_N = n·(p + R(θ) c) − d − ρ,     G_N = [n_x, n_y, n·R'(θ) c]
//!     y_T = t·(p + R(θ) c) + ρ θ,       G_T = [t_x, t_y, t·R'(θ) c + ρ]
//! ```
//! so G_T v is the contact point's sliding velocity (the lever arm's ω × r included, as
//! Siconos's `Lagrangian2d2DR`). For any direction u, u·R(θ) c = a cos θ + b sin θ with
//! a = u·c, b = u_y c_x − u_x c_y: the form the batched engines evaluate (`PlanarContactR::lever`).

use nalgebra::{DMatrix, DVector};

use crate::error::{Error, Result};
use crate::validate;

/// A body point against a fixed line (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarContactR {
    /// The point c in the body frame.
    point: [f64; 2],
    /// The rounding radius ρ ≥ 0.
    radius: f64,
    /// The line's unit normal n.
    normal: [f64; 2],
    /// The line's offset d (n·p = d on it).
    offset: f64,
    /// The coordinates of the body's system (≥ 3).
    pub(crate) ndof: usize,
}

impl PlanarContactR {
    /// The point `point` of a body (system of `ndof` ≥ 3 coordinates, the first three x, y,
    /// θ) rounded by `radius`, against the line `normal`·p = `offset` (the normal is
    /// normalised here; the body is on the side it points to).
    pub fn new(ndof: usize, point: [f64; 2], radius: f64, normal: [f64; 2], offset: f64) -> Result<Self> {
        let vector = |what: &str, x: [f64; 2]| validate::vector(what, &DVector::from_column_slice(&x), 2);
        vector("PlanarContactR: body point", point)?;
        vector("PlanarContactR: line normal", normal)?;
        validate::scalar(
            "PlanarContactR: radius ρ",
            radius,
            radius >= 0.0,
            "must be finite and ≥ 0",
        )?;
        validate::scalar("PlanarContactR: line offset d", offset, true, "must be finite")?;
        let length = normal[0].hypot(normal[1]);
        validate::scalar(
            "PlanarContactR: line normal length",
            length,
            length > 0.0,
            "must be > 0",
        )?;
        if ndof < 3 {
            return Err(Error::Unsupported {
                what: "PlanarContactR".into(),
                reason: format!("the body's system has {ndof} coordinates, fewer than (x, y, θ)"),
            });
        }
        Ok(Self {
            point,
            radius,
            normal: [normal[0] / length, normal[1] / length],
            offset: offset / length,
            ndof,
        })
    }

    /// The rows' directions: n, then t = (n_y, −n_x).
    fn directions(&self) -> [[f64; 2]; 2] {
        let [nx, ny] = self.normal;
        [[nx, ny], [ny, -nx]]
    }

    /// The linear part and the lever terms: y = H q + b + (a cos θ + b_θ sin θ) per row, as
    /// (H (2 × ndof), b, [[a, b_θ]; 2]).
    pub(crate) fn lever(&self) -> (DMatrix<f64>, DVector<f64>, [[f64; 2]; 2]) {
        let [cx, cy] = self.point;
        let mut h = DMatrix::zeros(2, self.ndof);
        let mut terms = [[0.0; 2]; 2];
        for (r, [ux, uy]) in self.directions().into_iter().enumerate() {
            h[(r, 0)] = ux;
            h[(r, 1)] = uy;
            terms[r] = [ux * cx + uy * cy, uy * cx - ux * cy];
        }
        h[(1, 2)] = self.radius;
        let b = DVector::from_vec(vec![-self.offset - self.radius, 0.0]);
        (h, b, terms)
    }

    /// y = (y_N, y_T) at q, summed term by term in the batched engines' order (b, then
    /// H_rj q_j over j, then a cos θ, then b_θ sin θ), so that a body resting at y = 0 meets
    /// the same activation test y + γ h ẏ ≤ 0 on every engine.
    pub(crate) fn output(&self, q: &DVector<f64>) -> DVector<f64> {
        let (h, b, terms) = self.lever();
        let (sin, cos) = q[2].sin_cos();
        DVector::from_fn(2, |r, _| {
            let mut y = b[r];
            for j in 0..self.ndof {
                y += h[(r, j)] * q[j];
            }
            let [a, bt] = terms[r];
            y += a * cos;
            y + bt * sin
        })
    }

    /// G = (G_N; G_T) at q.
    pub(crate) fn jacobian(&self, q: &DVector<f64>) -> DMatrix<f64> {
        let (mut g, _, terms) = self.lever();
        let (sin, cos) = q[2].sin_cos();
        for (r, [a, bt]) in terms.into_iter().enumerate() {
            g[(r, 2)] += bt * cos - a * sin;
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows against their definition: the corner's world position p + R(θ) c projected
    /// on n and t, and G against central differences of y.
    #[test]
    fn rows_are_the_rotated_point_on_the_line() {
        let contact = PlanarContactR::new(3, [-0.1, -0.3], 0.05, [0.6, 0.8], 0.2).unwrap();
        let q = DVector::from_vec(vec![0.3_f64, 0.7, 0.4]);
        let (sin, cos) = q[2].sin_cos();
        let world = [q[0] + (-0.1) * cos - (-0.3) * sin, q[1] + (-0.1) * sin + (-0.3) * cos];
        let y = contact.output(&q);
        let gap = 0.6 * world[0] + 0.8 * world[1] - 0.2 - 0.05;
        let slide = 0.8 * world[0] - 0.6 * world[1] + 0.05 * q[2];
        assert!(
            (y[0] - gap).abs() < 1e-15 && (y[1] - slide).abs() < 1e-15,
            "{y} vs ({gap}, {slide})"
        );
        let g = contact.jacobian(&q);
        for j in 0..3 {
            let mut dq = DVector::zeros(3);
            dq[j] = 1e-6;
            let fd = (contact.output(&(&q + &dq)) - contact.output(&(&q - &dq))) / 2e-6;
            for r in 0..2 {
                assert!(
                    (g[(r, j)] - fd[r]).abs() < 1e-9,
                    "G[{r},{j}] = {} vs {}",
                    g[(r, j)],
                    fd[r]
                );
            }
        }
    }

    #[test]
    fn bad_geometry_is_refused() {
        assert!(PlanarContactR::new(3, [0.0; 2], 0.0, [0.0, 0.0], 0.0).is_err());
        assert!(PlanarContactR::new(3, [0.0; 2], -1.0, [0.0, 1.0], 0.0).is_err());
        assert!(PlanarContactR::new(2, [0.0; 2], 0.0, [0.0, 1.0], 0.0).is_err());
        assert!(PlanarContactR::new(3, [f64::NAN, 0.0], 0.0, [0.0, 1.0], 0.0).is_err());
    }
}
