//! Siconos's Woodpecker toy (`examples/mechanics/Woodpecker`): a sleeve that slides down a
//! pole with Coulomb friction and a bird on a spring that swings and pecks the pole —
//! stick–slip with impacts.
//!
//! One `LagrangianLinearTIDS` with q = (y, φ_M, φ_S) (sleeve height, sleeve angle, bird
//! angle):
//! ```text
//!     M = [[m_S+m_M, m_S l_M, m_S l_G], [m_S l_M, J_M + m_S l_M², m_S l_M l_G],
//!          [m_S l_G, m_S l_M l_G, J_S + m_S l_G²]]
//!     K = c_φ [[0,0,0],[0,1,−1],[0,−1,1]],   F_ext = −g (m_S+m_M, m_S l_M, m_S l_G)
//! ```
//! and three contacts, each a `LagrangianLinearTIR` with rows (normal, tangent) under
//! `NewtonImpactFrictionNSL(e_N, 0, μ, 2)`: the beak on the pole (e_N = 0.5) and the sleeve's
//! upper and lower edges on the pole (e_N = 0).

use nalgebra::{DMatrix, DVector, Matrix3};

use crate::error::Result;
use crate::model::{LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactFrictionNSL, Nsds};
use crate::reference::TimeStepping;
use crate::scenes::parameters::{Parameters, require_non_negative};

/// Parameters of the woodpecker (defaults: Siconos's `WoodPeckerConsts.h`, SI units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Woodpecker {
    /// Pole radius r_O. Default 0.0025.
    pub pole_radius: f64,
    /// Sleeve inner radius r_M. Default 0.0031.
    pub sleeve_radius: f64,
    /// Sleeve half height h_M. Default 0.0058.
    pub sleeve_height: f64,
    /// Distance from the sleeve's axis to the bird's pivot l_M. Default 0.010.
    pub pivot: f64,
    /// Distance from the pivot to the bird's centre of mass l_G. Default 0.015.
    pub bird_centre: f64,
    /// Beak height below the pivot h_S. Default 0.02.
    pub beak_height: f64,
    /// Beak distance from the pivot l_S. Default 0.0201.
    pub beak_reach: f64,
    /// Sleeve mass m_M. Default 0.0003.
    pub sleeve_mass: f64,
    /// Bird mass m_S. Default 0.0045.
    pub bird_mass: f64,
    /// Sleeve inertia J_M. Default 5e-9.
    pub sleeve_inertia: f64,
    /// Bird inertia J_S. Default 7e-7.
    pub bird_inertia: f64,
    /// Spring stiffness c_φ (≥ 0). Default 0.0056.
    pub spring: f64,
    /// Gravity g. Default 9.81.
    pub gravity: f64,
    /// Coulomb coefficient μ of the three contacts. Default 0.3.
    pub friction: f64,
    /// Normal restitution of the beak on the pole. Default 0.5.
    pub beak_restitution: f64,
    /// Initial q. Default (0, −0.1036, −0.2788).
    pub q0: [f64; 3],
    /// Initial v. Default (−0.3411, 4.8572e-15, −7.4583).
    pub v0: [f64; 3],
    /// Time step h. Default 2e-5.
    pub step: f64,
}

impl Default for Woodpecker {
    fn default() -> Self {
        Self {
            pole_radius: 0.0025,
            sleeve_radius: 0.0031,
            sleeve_height: 0.0058,
            pivot: 0.010,
            bird_centre: 0.015,
            beak_height: 0.02,
            beak_reach: 0.0201,
            sleeve_mass: 0.0003,
            bird_mass: 0.0045,
            sleeve_inertia: 5.0e-9,
            bird_inertia: 7.0e-7,
            spring: 0.0056,
            gravity: 9.81,
            friction: 0.3,
            beak_restitution: 0.5,
            q0: [0.0, -0.1036, -0.2788],
            v0: [-0.3411, 4.8572e-15, -7.4583],
            step: 2e-5,
        }
    }
}

impl Woodpecker {
    /// The toy of the `woodpecker` template: `friction`, `beak_restitution`, `spring` and the
    /// initial velocities `sleeve_velocity`, `sleeve_angular_velocity`, `bird_angular_velocity`
    /// from `p` (in this order), the other defaults as above. Refuses a negative friction or
    /// spring, naming it.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let toy = Self {
            friction: p.scalar("friction", "", d.friction)?,
            beak_restitution: p.scalar("beak_restitution", "", d.beak_restitution)?,
            spring: p.scalar("spring", "N·m/rad", d.spring)?,
            v0: [
                p.scalar("sleeve_velocity", "m/s", d.v0[0])?,
                p.scalar("sleeve_angular_velocity", "rad/s", d.v0[1])?,
                p.scalar("bird_angular_velocity", "rad/s", d.v0[2])?,
            ],
            ..d
        };
        // K = c_φ [[0,0,0],[0,1,−1],[0,−1,1]] is positive semi-definite for c_φ ≥ 0 only (0: a
        // bird swinging freely); a negative c_φ pushes the bird away from the sleeve.
        require_non_negative("woodpecker", "friction", toy.friction)?;
        require_non_negative("woodpecker", "spring", toy.spring)?;
        Ok(toy)
    }

    /// The scene: system `woodpecker`; interactions `beak`, `sleeve top`, `sleeve bottom`
    /// (linked in this order, Siconos's I1, I2, I3).
    pub fn nsds(&self) -> Result<Nsds> {
        let (m_m, m_s, l_m, l_g) = (self.sleeve_mass, self.bird_mass, self.pivot, self.bird_centre);
        let mass = Matrix3::new(
            m_s + m_m,
            m_s * l_m,
            m_s * l_g,
            m_s * l_m,
            self.sleeve_inertia + m_s * l_m * l_m,
            m_s * l_m * l_g,
            m_s * l_g,
            m_s * l_m * l_g,
            self.bird_inertia + m_s * l_g * l_g,
        );
        let c = self.spring;
        let stiffness = Matrix3::new(0.0, 0.0, 0.0, 0.0, c, -c, 0.0, -c, c);
        let g = self.gravity;
        let fext = DVector::from_vec(vec![-(m_s + m_m) * g, -m_s * l_m * g, -m_s * l_g * g]);
        let body = LagrangianLinearTIDS::new(
            DVector::from_column_slice(&self.q0),
            DVector::from_column_slice(&self.v0),
            DMatrix::from_iterator(3, 3, mass.iter().copied()),
        )?
        .with_stiffness(DMatrix::from_iterator(3, 3, stiffness.iter().copied()))?
        .with_fext(fext)?;
        let mut nsds = Nsds::new();
        let body = nsds.add("woodpecker", body);
        let (r_o, r_m, h_m) = (self.pole_radius, self.sleeve_radius, self.sleeve_height);
        let contacts = [
            (
                "beak",
                [0.0, 0.0, -self.beak_height, 1.0, l_m, l_g - self.beak_reach],
                l_m + l_g - self.beak_reach - r_o,
                self.beak_restitution,
            ),
            ("sleeve top", [0.0, h_m, 0.0, 1.0, r_m, 0.0], r_m - r_o, 0.0),
            ("sleeve bottom", [0.0, -h_m, 0.0, 1.0, r_m, 0.0], r_m - r_o, 0.0),
        ];
        for (name, h, b, e_n) in contacts {
            let relation =
                LagrangianLinearTIR::with_offset(DMatrix::from_row_slice(2, 3, &h), DVector::from_vec(vec![b, 0.0]))?;
            let law = NewtonImpactFrictionNSL::new(e_n, 0.0, self.friction, 2)?;
            nsds.link(name, law, relation, &[body])?;
        }
        nsds.name_coordinates(["y", "phi_M", "phi_S"])?;
        Ok(nsds)
    }

    /// The simulation from t = 0 (Moreau–Jean, θ = ½, γ = ½; Siconos's dense 2-D NSGS).
    pub fn simulation(&self) -> Result<TimeStepping> {
        super::moreau_jean(self.nsds()?, self.step)
    }
}
