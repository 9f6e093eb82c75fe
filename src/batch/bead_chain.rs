//! One large scene for the contact-parallel layout: a vertical chain of N equal beads above a
//! floor (ColumnOfBeadsTS generalised, one dof per bead), stored as plain arrays.
//!
//! Contact 0 is bead 0 on the floor, y₀ = z₀ − R; contact i ≥ 1 is bead i on bead i−1,
//! yᵢ = zᵢ − zᵢ₋₁ − 2R. With W = m I the Delassus matrix is tridiagonal:
//! D₀₀ = 1/m, Dᵢᵢ = 2/m (i ≥ 1), Dᵢ,ᵢ₊₁ = Dᵢ₊₁,ᵢ = −1/m, and the free velocity of every bead is
//! v − h g, so the LCP vector is q₀ = (1 + e) v₀ − h g, qᵢ = (1 + e)(vᵢ − vᵢ₋₁).

use super::ChainParams;
use crate::error::Result;
use crate::validate;

/// A chain of beads and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BeadChain {
    /// Heights z of the bead centres, bottom first.
    pub z: Vec<f64>,
    /// Velocities.
    pub v: Vec<f64>,
    /// Bead radius R (m).
    pub radius: f64,
    /// Bead mass m (kg).
    pub mass: f64,
    /// Gravity g (m/s²).
    pub gravity: f64,
    /// Restitution e of every contact.
    pub restitution: f64,
}

impl BeadChain {
    /// N beads at rest, bead i at height `height + i · spacing`.
    pub fn new(beads: usize, height: f64, spacing: f64) -> Result<Self> {
        validate::scalar("number of beads", beads as f64, beads > 0, "must be ≥ 1")?;
        let chain = Self {
            z: (0..beads).map(|i| height + spacing * i as f64).collect(),
            v: vec![0.0; beads],
            radius: 0.1,
            mass: 1.0,
            gravity: 9.81,
            restitution: 0.9,
        };
        chain.check()?;
        Ok(chain)
    }

    /// Validates the parameters (finite, R ≥ 0, m > 0, e ∈ [0, 1], gaps not negative).
    pub fn check(&self) -> Result<()> {
        validate::scalar("bead radius", self.radius, self.radius >= 0.0, "must be ≥ 0")?;
        validate::scalar("bead mass", self.mass, self.mass > 0.0, "must be > 0")?;
        validate::scalar("gravity", self.gravity, true, "must be finite")?;
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(crate::Error::Restitution {
                what: "BeadChain".into(),
                value: self.restitution,
            });
        }
        validate::vector(
            "BeadChain: v",
            &nalgebra::DVector::from_row_slice(&self.v),
            self.z.len(),
        )?;
        validate::finite_vector("BeadChain: z", &nalgebra::DVector::from_row_slice(&self.z))
    }

    /// Number of beads (and of contacts).
    pub fn len(&self) -> usize {
        self.z.len()
    }

    /// The run's constants as the kernel and its twin read them, for `options`.
    pub fn params(&self, options: &ChainOptions) -> ChainParams<f64> {
        ChainParams {
            h: options.step,
            theta: options.theta,
            gamma: options.gamma,
            omega: options.omega,
            inv_mass: 1.0 / self.mass,
            radius: self.radius,
            gravity: self.gravity,
            restitution: self.restitution,
            beads: u32::try_from(self.len()).unwrap_or(u32::MAX),
        }
    }

    /// Whether the chain has no bead.
    pub fn is_empty(&self) -> bool {
        self.z.is_empty()
    }
}

/// Sweeps and relaxation of the chain solver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainOptions {
    /// Jacobi sweeps per step. Default 50.
    pub sweeps: u32,
    /// Relaxation ω ∈ (0, 0.9). Default 0.6.
    pub omega: f64,
    /// Time step h. Default 5e-4.
    pub step: f64,
    /// θ. Default ½.
    pub theta: f64,
    /// γ of the activation test. Default ½.
    pub gamma: f64,
}

impl Default for ChainOptions {
    fn default() -> Self {
        Self {
            sweeps: 50,
            omega: 0.6,
            step: 5e-4,
            theta: 0.5,
            gamma: 0.5,
        }
    }
}

impl ChainOptions {
    /// Checks h > 0, θ ∈ [0, 1], γ ≥ 0 and ω ∈ (0, 0.9) (the convergence bound above).
    pub fn check(&self) -> crate::Result<()> {
        use crate::validate::scalar;
        scalar("time step h", self.step, self.step > 0.0, "must be > 0")?;
        crate::scheme::moreau_jean::MoreauJeanOSI::new(self.theta, self.gamma)?;
        scalar(
            "Jacobi relaxation ω",
            self.omega,
            self.omega > 0.0 && self.omega < 0.9,
            "must be in (0, 0.9)",
        )
    }
}
