//! The bodies of a large scene: discs (2-D: x, y, θ) or spheres (3-D: a centre and a spin),
//! each with its own radius and mass, as structure-of-arrays indexed by a stable id.

use crate::contact::vector::dot;
use crate::validate;
use crate::{Error, Result};

/// Whether a scene holds discs in the plane or spheres in space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    /// Discs in the (x, y) plane, spinning about z: contacts of 2 rows (normal, tangent).
    Two,
    /// Spheres: contacts of 3 rows (normal, two tangents).
    Three,
}

impl Dimension {
    /// The rows of a contact (and the axes a body moves along): 2 or 3.
    pub fn rows(self) -> usize {
        match self {
            Self::Two => 2,
            Self::Three => 3,
        }
    }

    /// k in I = k m R²: ½ for a disc, ⅖ for a sphere.
    pub fn inertia_factor(self) -> f64 {
        match self {
            Self::Two => 0.5,
            Self::Three => 0.4,
        }
    }

    /// "disc" or "sphere".
    pub fn body(self) -> &'static str {
        match self {
            Self::Two => "disc",
            Self::Three => "sphere",
        }
    }
}

/// The bodies' state and constants. Vectors are `[x, y, z]` (z = 0 for discs); a disc's spin
/// ω is `[0, 0, ω]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Bodies {
    /// Discs or spheres.
    pub dimension: Dimension,
    /// Centres x (m).
    pub x: Vec<[f64; 3]>,
    /// Velocities v (m/s).
    pub v: Vec<[f64; 3]>,
    /// Angular velocities ω (rad/s).
    pub omega: Vec<[f64; 3]>,
    /// A disc's rotation θ (rad), integrated as x is; zero for spheres.
    pub angle: Vec<f64>,
    /// Radii R (m).
    pub radius: Vec<f64>,
    /// Masses m (kg).
    pub mass: Vec<f64>,
    /// Whether each body is in the scene; one that left through the scene's sink
    /// ([`super::LargeScene::sink`]) stays where it left, at rest, touching nothing, and
    /// out of the energies.
    pub present: Vec<bool>,
    /// A period L along x (a chute's flow direction): centres live in [0, L) and wrap, and
    /// two bodies meet through their nearest images; none by default.
    pub period: Option<f64>,
}

impl Bodies {
    /// Bodies at rest at centres `x`, checking each radius and mass (finite, > 0), each centre
    /// (finite; z = 0 for discs) and the lengths, naming the body at fault.
    pub fn new(dimension: Dimension, x: Vec<[f64; 3]>, radius: Vec<f64>, mass: Vec<f64>) -> Result<Self> {
        let n = x.len();
        for (what, len) in [("radius", radius.len()), ("mass", mass.len())] {
            if len != n {
                return Err(Error::Dimension {
                    what: format!("large scene: {what} per body"),
                    expected: n.to_string(),
                    got: len.to_string(),
                });
            }
        }
        for b in 0..n {
            let body = dimension.body();
            validate::positive(&format!("{body} {b}: radius"), radius[b])?;
            validate::positive(&format!("{body} {b}: mass"), mass[b])?;
            if !x[b].iter().all(|c| c.is_finite()) {
                return Err(Error::NonFinite {
                    what: format!("{body} {b}: centre"),
                });
            }
            if dimension == Dimension::Two && x[b][2] != 0.0 {
                validate::scalar(&format!("disc {b}: z"), x[b][2], false, "must be 0 in 2-D")?;
            }
        }
        Ok(Self {
            dimension,
            present: vec![true; n],
            period: None,
            v: vec![[0.0; 3]; n],
            omega: vec![[0.0; 3]; n],
            angle: vec![0.0; n],
            x,
            radius,
            mass,
        })
    }

    /// The number of bodies.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// 1/m of body b.
    #[inline(always)]
    pub fn inverse_mass(&self, b: usize) -> f64 {
        1.0 / self.mass[b]
    }

    /// R/I of body b, the spin an impulse's moment arm gives: Δω = −(R/I) n × P.
    #[inline(always)]
    pub fn spin_per_impulse(&self, b: usize) -> f64 {
        1.0 / (self.dimension.inertia_factor() * self.mass[b] * self.radius[b])
    }

    /// R²/I = 1/(k m) of body b, its spin's share of a tangent row's W.
    #[inline(always)]
    pub fn spin_compliance(&self, b: usize) -> f64 {
        1.0 / (self.dimension.inertia_factor() * self.mass[b])
    }

    /// The largest radius (0 when there are no bodies).
    pub fn max_radius(&self) -> f64 {
        self.radius.iter().fold(0.0, |a, &r| a.max(r))
    }

    /// Σ_b ½ m_b ‖v_b‖² + ½ I_b ‖ω_b‖² over the bodies present, summed in id order from +0.
    pub fn kinetic_energy(&self) -> f64 {
        (0..self.len())
            .filter(|&b| self.present[b])
            .map(|b| {
                let inertia = self.dimension.inertia_factor() * self.mass[b] * self.radius[b] * self.radius[b];
                0.5 * self.mass[b] * dot(self.v[b], self.v[b]) + 0.5 * inertia * dot(self.omega[b], self.omega[b])
            })
            .fold(0.0, |sum, e| sum + e)
    }

    /// −Σ_b m_b g·x_b over the bodies present, summed in id order from +0: the potential
    /// energy in the field g (along a period, of the wrapped centres: it jumps by m g_x L
    /// where a body re-enters).
    pub fn potential_energy(&self, gravity: [f64; 3]) -> f64 {
        (0..self.len())
            .filter(|&b| self.present[b])
            .fold(0.0, |sum, b| sum - self.mass[b] * dot(gravity, self.x[b]))
    }

    /// The difference d of two points as seen through the period: its x reduced to the
    /// nearest image, d_x − L round(d_x / L) (d itself without a period).
    #[inline(always)]
    pub fn nearest_image(&self, d: [f64; 3]) -> [f64; 3] {
        match self.period {
            Some(l) => [d[0] - l * (d[0] / l).round(), d[1], d[2]],
            None => d,
        }
    }

    /// x_j − x_i through the period ([`Self::nearest_image`]).
    #[inline(always)]
    pub fn separation(&self, i: usize, j: usize) -> [f64; 3] {
        let (a, b) = (self.x[i], self.x[j]);
        self.nearest_image([b[0] - a[0], b[1] - a[1], b[2] - a[2]])
    }

    /// The bodies no longer present (discharged through a sink).
    pub fn discharged(&self) -> usize {
        self.present.iter().filter(|&&p| !p).count()
    }

    /// Σ_b m_b.
    pub fn total_mass(&self) -> f64 {
        self.mass.iter().sum()
    }
}
