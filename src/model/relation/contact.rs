//! Built-in contact geometry: the gap between two spheres (discs in 2-D, intervals in 1-D),
//! between a sphere and a plane, and the frictional contact of two rotating discs. The
//! batched engines evaluate them on the device.
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

/// The gap of a rough pair `what` of bodies in `dim` dimensions (centres first, then their
/// angles): checks that the radii are finite and ≥ 0 and that each system has at least
/// `needed` coordinates (for [`DiskDiskR`] and [`SphereLDSSphereLDSR`]).
fn rough_pair_gap(
    what: &str,
    dim: usize,
    needed: usize,
    [n0, n1]: [usize; 2],
    radius: [f64; 2],
) -> Result<SphereSphereR> {
    for (k, r) in radius.iter().enumerate() {
        validate::scalar(&format!("{what}: radius R{k}"), *r, *r >= 0.0, "must be finite and ≥ 0")?;
    }
    if n0 < needed || n1 < needed {
        return Err(Error::Unsupported {
            what: what.into(),
            reason: format!("each body's system needs {needed} coordinates: its centre, then its angles"),
        });
    }
    SphereSphereR::new(dim, [n0, n1], radius[0] + radius[1])
}

/// The contact of two rotating discs of radii R₀, R₁ (Siconos's `DiskDiskR`), each system
/// q = (x, y, θ, …): rows (normal, tangent) for `NewtonImpactFrictionNSL` of size 2,
/// ```text
///     y_N = ‖p₁ − p₀‖ − (R₀ + R₁),   G_N = [−nᵀ 0 …, nᵀ 0 …]
///     y_T = 0,                        G_T = [−tᵀ −R₀ …, tᵀ −R₁ …]
/// ```
/// n = (p₁ − p₀)/‖p₁ − p₀‖, t = (−n_y, n_x): G_T v is the sliding velocity of disc 1's
/// contact point on disc 0's, t·(v₁ − v₀) − R₀ω₀ − R₁ω₁ (the tangent row has no position
/// meaning: friction acts on velocities). When the centres coincide G is taken as zero.
#[derive(Clone, Debug, PartialEq)]
pub struct DiskDiskR {
    /// The gap's sphere–sphere form (dim 2).
    pub(crate) gap: SphereSphereR,
    /// R₀, R₁.
    pub(crate) radius: [f64; 2],
}

impl DiskDiskR {
    /// Between two systems of `n0` and `n1` ≥ 3 coordinates (x, y, θ first) of discs of radii
    /// `radius`.
    pub fn new(coordinates: [usize; 2], radius: [f64; 2]) -> Result<Self> {
        Ok(Self {
            gap: rough_pair_gap("DiskDiskR", 2, 3, coordinates, radius)?,
            radius,
        })
    }

    /// The tangent row's constant part: −R₀ at θ₀ and −R₁ at θ₁.
    pub(crate) fn lever_row(&self) -> DMatrix<f64> {
        let n0 = self.gap.coordinates[0];
        let mut h = DMatrix::zeros(1, self.gap.marker_coordinates());
        h[(0, 2)] = -self.radius[0];
        h[(0, n0 + 2)] = -self.radius[1];
        h
    }

    /// y = (y_N, 0).
    pub(crate) fn output(&self, q: &DVector<f64>) -> DVector<f64> {
        DVector::from_vec(vec![self.gap.output(q)[0], 0.0])
    }

    /// G = (G_N; G_T).
    pub(crate) fn jacobian(&self, q: &DVector<f64>) -> DMatrix<f64> {
        let normal = self.gap.jacobian(q);
        let mut g = DMatrix::zeros(2, normal.ncols());
        g.row_mut(0).copy_from(&normal.row(0));
        g.row_mut(1).copy_from(&self.lever_row().row(0));
        let n0 = self.gap.coordinates[0];
        // t = (−n_y, n_x), n read off G_N's second disc.
        let (nx, ny) = (normal[(0, n0)], normal[(0, n0 + 1)]);
        for (k, t) in [-ny, nx].into_iter().enumerate() {
            g[(1, n0 + k)] += t;
            g[(1, k)] -= t;
        }
        g
    }
}

/// The contact frame (n, t₁, t₂) of a unit normal n, as Siconos's `orthoBaseFromVector`
/// builds it: s = sign n_z (+1 at n_z = 0, where Siconos's copysign(1, n_z) reads the sign
/// of a zero; the batched kernels test n_z ≥ 0 too), a = −1/(s + n_z), b = n_x n_y a,
/// t₁ = (1 + s n_x² a, s b, −s n_x), t₂ = (b, s + n_y² a, −n_y).
pub fn ortho_base_from_vector(n: [f64; 3]) -> [[f64; 3]; 2] {
    let s = if n[2] >= 0.0 { 1.0 } else { -1.0 };
    let a = -1.0 / (s + n[2]);
    let b = n[0] * n[1] * a;
    [
        [1.0 + s * n[0] * n[0] * a, s * b, -s * n[0]],
        [b, s + n[1] * n[1] * a, -n[1]],
    ]
}

/// u × w.
fn cross(u: [f64; 3], w: [f64; 3]) -> [f64; 3] {
    [
        u[1] * w[2] - u[2] * w[1],
        u[2] * w[0] - u[0] * w[2],
        u[0] * w[1] - u[1] * w[0],
    ]
}

/// The frictional contact of two spheres of radii R₀, R₁ in 3-D (Siconos's
/// `SphereLDSSphereLDSR`), each system q = (x, y, z, φ_x, φ_y, φ_z, …) with v = (v, ω): rows
/// (normal, t₁, t₂) for `NewtonImpactFrictionNSL` of size 3, (n, t₁, t₂) the frame
/// [`ortho_base_from_vector`] of n = (x₁ − x₀)/‖x₁ − x₀‖,
/// ```text
///     y_N = ‖x₁ − x₀‖ − (R₀ + R₁),   G_N  = [−nᵀ 0, nᵀ 0]
///     y_T = 0,                        G_Tk = [−t_kᵀ −R₀ (n × t_k)ᵀ, t_kᵀ −R₁ (n × t_k)ᵀ]
/// ```
/// so G_Tk v = t_k·(v₁ + ω₁ × (−R₁ n) − v₀ − ω₀ × (R₀ n)), the sliding velocity of the
/// contact points (the tangent rows have no position meaning). Coinciding centres give G = 0.
#[derive(Clone, Debug, PartialEq)]
pub struct SphereLDSSphereLDSR {
    /// The gap's sphere–sphere form (dim 3).
    pub(crate) gap: SphereSphereR,
    /// R₀, R₁.
    pub(crate) radius: [f64; 2],
}

impl SphereLDSSphereLDSR {
    /// Between two systems of `n0` and `n1` ≥ 6 coordinates (centre, then the angles whose
    /// rates are ω) of spheres of radii `radius`.
    pub fn new(coordinates: [usize; 2], radius: [f64; 2]) -> Result<Self> {
        Ok(Self {
            gap: rough_pair_gap("SphereLDSSphereLDSR", 3, 6, coordinates, radius)?,
            radius,
        })
    }

    /// y = (y_N, 0, 0).
    pub(crate) fn output(&self, q: &DVector<f64>) -> DVector<f64> {
        DVector::from_vec(vec![self.gap.output(q)[0], 0.0, 0.0])
    }

    /// G = (G_N; G_T1; G_T2).
    pub(crate) fn jacobian(&self, q: &DVector<f64>) -> DMatrix<f64> {
        let normal = self.gap.jacobian(q);
        let n0 = self.gap.coordinates[0];
        let mut g = DMatrix::zeros(3, normal.ncols());
        g.row_mut(0).copy_from(&normal.row(0));
        let n = [normal[(0, n0)], normal[(0, n0 + 1)], normal[(0, n0 + 2)]];
        if n == [0.0; 3] {
            return g;
        }
        for (k, t) in ortho_base_from_vector(n).into_iter().enumerate() {
            let m = cross(n, t);
            for i in 0..3 {
                g[(k + 1, i)] = -t[i];
                g[(k + 1, 3 + i)] = -self.radius[0] * m[i];
                g[(k + 1, n0 + i)] = t[i];
                g[(k + 1, n0 + 3 + i)] = -self.radius[1] * m[i];
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

#[cfg(test)]
mod tests {
    use super::*;

    /// G_N against central differences of y_N, and G_T v against the sliding velocity of the
    /// contact point computed from the rigid motions: (v₁ + ω₁ ẑ × (−R₁ n)) − (v₀ + ω₀ ẑ ×
    /// (R₀ n)), projected on t = (−n_y, n_x).
    #[test]
    fn disk_disk_rows_are_the_gap_and_the_sliding_velocity() {
        let (r0, r1) = (0.1_f64, 0.15);
        let contact = DiskDiskR::new([3, 3], [r0, r1]).unwrap();
        let q = DVector::from_vec(vec![0.0, 0.0, 0.3, 0.2, 0.1, -0.7]);
        let v = DVector::from_vec(vec![0.4, -0.2, 3.0, -0.1, 0.5, -2.0]);
        let g = contact.jacobian(&q);
        for j in 0..6 {
            let mut dq = DVector::zeros(6);
            dq[j] = 1e-6;
            let fd = (contact.output(&(&q + &dq))[0] - contact.output(&(&q - &dq))[0]) / 2e-6;
            assert!((g[(0, j)] - fd).abs() < 1e-9, "G_N[{j}] = {} vs {fd}", g[(0, j)]);
        }
        let d = (0.2_f64).hypot(0.1);
        let n = [0.2 / d, 0.1 / d];
        let t = [-n[1], n[0]];
        // ẑ × (a n) = a (−n_y, n_x) = a t.
        let point0 = [v[0] + v[2] * r0 * t[0], v[1] + v[2] * r0 * t[1]];
        let point1 = [v[3] - v[5] * r1 * t[0], v[4] - v[5] * r1 * t[1]];
        let sliding = t[0] * (point1[0] - point0[0]) + t[1] * (point1[1] - point0[1]);
        let gv = (g.row(1) * &v)[0];
        assert!((gv - sliding).abs() < 1e-14, "G_T v = {gv} vs {sliding}");
        assert!((contact.output(&q)[0] - (d - r0 - r1)).abs() < 1e-15);
        assert!(DiskDiskR::new([2, 3], [r0, r1]).is_err() && DiskDiskR::new([3, 3], [-1.0, r1]).is_err());
    }

    /// The frame is orthonormal; G_N against central differences; G_Tk v the contact points'
    /// sliding velocity from the rigid motions, projected on t_k.
    #[test]
    fn sphere_sphere_rows_are_the_gap_and_the_sliding_velocity() {
        for n in [[0.0, 0.0, 1.0], [0.0, 0.0, -1.0], [0.6, 0.0, 0.8], [0.48, -0.6, 0.64]] {
            let [t1, t2] = ortho_base_from_vector(n);
            let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            for (a, b, want) in [(n, t1, 0.0), (n, t2, 0.0), (t1, t2, 0.0), (t1, t1, 1.0), (t2, t2, 1.0)] {
                assert!((dot(a, b) - want).abs() < 1e-15, "{n:?}: {a:?}·{b:?}");
            }
        }
        let (r0, r1) = (0.1_f64, 0.15);
        let contact = SphereLDSSphereLDSR::new([6, 6], [r0, r1]).unwrap();
        let q = DVector::from_vec(vec![0.0, 0.0, 0.0, 0.1, 0.2, 0.3, 0.2, 0.1, -0.15, 0.0, 0.0, 0.0]);
        let v = DVector::from_vec(vec![0.4, -0.2, 0.1, 3.0, -1.0, 2.0, -0.1, 0.5, 0.3, -2.0, 0.5, 1.0]);
        let g = contact.jacobian(&q);
        for j in 0..12 {
            let mut dq = DVector::zeros(12);
            dq[j] = 1e-6;
            let fd = (contact.output(&(&q + &dq))[0] - contact.output(&(&q - &dq))[0]) / 2e-6;
            assert!((g[(0, j)] - fd).abs() < 1e-9, "G_N[{j}] = {} vs {fd}", g[(0, j)]);
        }
        let d = (0.04_f64 + 0.01 + 0.0225).sqrt();
        let n = [0.2 / d, 0.1 / d, -0.15 / d];
        let (w0, w1) = ([v[3], v[4], v[5]], [v[9], v[10], v[11]]);
        let (a0, a1) = (cross(w0, n.map(|x| r0 * x)), cross(w1, n.map(|x| -r1 * x)));
        let slide: Vec<f64> = (0..3).map(|i| v[6 + i] + a1[i] - v[i] - a0[i]).collect();
        for (k, t) in ortho_base_from_vector(n).into_iter().enumerate() {
            let want = t[0] * slide[0] + t[1] * slide[1] + t[2] * slide[2];
            let gv = (g.row(k + 1) * &v)[0];
            assert!((gv - want).abs() < 1e-14, "G_T{} v = {gv} vs {want}", k + 1);
        }
        assert!(SphereLDSSphereLDSR::new([5, 6], [r0, r1]).is_err());
    }
}
