//! Built-in contact geometry: the gap between two spheres (discs in 2-D, intervals in 1-D),
//! and between a sphere and a plane. The batched engines evaluate both on the device.
//!
//! The centre of a sphere is the first `dim` coordinates of its system (a ball whose q is
//! (x, y, z), or (x, y, z, …) with rotations after the position).

use nalgebra::{DMatrix, DVector};

use super::LagrangianLinearTIR;
use crate::error::{Error, Result};
use crate::validate;

/// The gap between two spheres of radii summing to ρ, centres x₀ and x₁:
/// ```text
///     y = ‖x₁ − x₀‖ − ρ,    G = [−nᵀ 0 … , nᵀ 0 …],   n = (x₁ − x₀) / ‖x₁ − x₀‖
/// ```
/// x₀ is the first system's centre, or a fixed point c (a sphere fixed in space, an obstacle).
/// When the centres coincide the normal is undefined and G is taken as zero.
#[derive(Clone, Debug, PartialEq)]
pub struct SphereSphereR {
    pub(crate) dim: usize,
    /// Coordinates of the first and second system (0 for a fixed first sphere).
    pub(crate) coordinates: [usize; 2],
    /// The fixed centre c (first `dim` entries) when `coordinates[0] == 0`.
    pub(crate) centre: [f64; 3],
    pub(crate) radii: f64,
}

impl SphereSphereR {
    /// Between two systems of `n0` and `n1` coordinates whose first `dim` (1, 2 or 3) are the
    /// centres; `radii` = r₀ + r₁.
    pub fn new(dim: usize, [n0, n1]: [usize; 2], radii: f64) -> Result<Self> {
        Self::checked(dim, [n0, n1], [0.0; 3], radii)
    }

    /// Between a system of `n` coordinates and a sphere fixed at `centre` (`dim` entries).
    pub fn fixed(dim: usize, n: usize, centre: &[f64], radii: f64) -> Result<Self> {
        Self::checked(dim, [0, n], [0.0; 3], radii)?;
        validate::vector("SphereSphereR: fixed centre", &DVector::from_column_slice(centre), dim)?;
        let mut c = [0.0; 3];
        c[..dim].copy_from_slice(centre);
        Self::checked(dim, [0, n], c, radii)
    }

    fn checked(dim: usize, coordinates: [usize; 2], centre: [f64; 3], radii: f64) -> Result<Self> {
        let unsupported = |reason: &str| Error::Unsupported {
            what: "SphereSphereR".into(),
            reason: reason.into(),
        };
        if !(1..=3).contains(&dim) {
            return Err(unsupported("the dimension must be 1, 2 or 3"));
        }
        if coordinates[1] < dim || (coordinates[0] != 0 && coordinates[0] < dim) {
            return Err(unsupported("each sphere's system needs at least `dim` coordinates"));
        }
        validate::scalar("SphereSphereR: r₀ + r₁", radii, radii >= 0.0, "must be finite and ≥ 0")?;
        Ok(Self {
            dim,
            coordinates,
            centre,
            radii,
        })
    }

    /// The coordinates of the linked systems together.
    pub(crate) fn marker_coordinates(&self) -> usize {
        self.coordinates[0] + self.coordinates[1]
    }

    /// x₁ − x₀ at q.
    fn separation(&self, q: &DVector<f64>) -> DVector<f64> {
        let n0 = self.coordinates[0];
        DVector::from_fn(self.dim, |k, _| {
            let x0 = if n0 == 0 { self.centre[k] } else { q[k] };
            q[n0 + k] - x0
        })
    }

    /// y = ‖x₁ − x₀‖ − ρ.
    pub(crate) fn output(&self, q: &DVector<f64>) -> DVector<f64> {
        DVector::from_element(1, self.separation(q).norm() - self.radii)
    }

    /// G = [−nᵀ 0, nᵀ 0].
    pub(crate) fn jacobian(&self, q: &DVector<f64>) -> DMatrix<f64> {
        let d = self.separation(q);
        let distance = d.norm();
        let mut g = DMatrix::zeros(1, self.marker_coordinates());
        if distance > 0.0 {
            let n0 = self.coordinates[0];
            for k in 0..self.dim {
                g[(0, n0 + k)] = d[k] / distance;
                if n0 > 0 {
                    g[(0, k)] = -d[k] / distance;
                }
            }
        }
        g
    }
}

impl LagrangianLinearTIR {
    /// The gap between a sphere of radius r (centre: the first `dim` coordinates of a system
    /// of `ndof`) and the plane n·x = d, on the side n points to: y = n·x − d − r (n is
    /// normalised here).
    pub fn sphere_plane(dim: usize, ndof: usize, normal: &[f64], d: f64, radius: f64) -> Result<Self> {
        validate::vector("sphere–plane normal", &DVector::from_column_slice(normal), dim)?;
        let length = normal.iter().map(|x| x * x).sum::<f64>().sqrt();
        validate::scalar("sphere–plane normal length", length, length > 0.0, "must be > 0")?;
        if ndof < dim {
            return Err(Error::Unsupported {
                what: "sphere–plane relation".into(),
                reason: format!("the system has {ndof} coordinates, fewer than the dimension {dim}"),
            });
        }
        let mut h = DMatrix::zeros(1, ndof);
        for (k, x) in normal.iter().enumerate() {
            h[(0, k)] = x / length;
        }
        Self::with_offset(h, DVector::from_element(1, -d / length - radius))
    }
}
