//! A large scene as an [`Nsds`] for the dense reference stepper: the same bodies, walls,
//! laws and Moreau–Jean settings, every pair of bodies and every body–wall pair an
//! interaction, so that the reference — which assembles W and solves each step's
//! frictional contact problem by Siconos's NSGS — checks the contact-parallel engine on
//! small scenes (at most [`REFERENCE_BODIES`] bodies).

use nalgebra::{DMatrix, DVector};

use super::bodies::Dimension;
use super::scene::LargeScene;
use super::walls::Shape;
use crate::contact::vector::cross;
use crate::model::relation::contact::ortho_base_from_vector;
use crate::model::{DiskDiskR, LagrangianLinearTIDS, LagrangianLinearTIR, Nsds, SphereLDSSphereLDSR};
use crate::numerics::friction::{FrictionOptions, FrictionSolver};
use crate::reference::{Integrator, TimeStepping};
use crate::scheme::moreau_jean::MoreauJeanOSI;
use crate::{Error, Result};

/// The most bodies [`LargeScene::nsds`] takes (N(N − 1)/2 interactions).
pub const REFERENCE_BODIES: usize = 200;

impl LargeScene {
    /// The scene as an [`Nsds`]: body k is `body k`, a disc q = (x, y, θ) with M = diag(m, m,
    /// ½ m R²) or a sphere q = (x, y, z, φ) with v = (v, ω), M = diag(m I, ⅖ m R² I), under
    /// F_ext = m g; bodies i < j are linked by `pair i-j` (Siconos's [`DiskDiskR`] or
    /// [`SphereLDSSphereLDSR`]) under the grains' law, body k and plane wall w by `wall w k`:
    /// y_N = N·x − N·p − R, tangent rows t·v − R (N × t)·ω (t ⟂ N; in 2-D t = (−N_y, N_x),
    /// the row t·v − R ω), under the wall's law. Refuses segments (not linear), a period, a
    /// sink, discharged bodies and more than [`REFERENCE_BODIES`] bodies, naming which.
    pub fn nsds(&self) -> Result<Nsds> {
        let b = &self.bodies;
        let refuse = |reason: String| Error::Unsupported {
            what: "a large scene on the reference stepper".into(),
            reason,
        };
        if b.len() > REFERENCE_BODIES {
            return Err(refuse(format!(
                "{} bodies: the reference links every pair, up to {REFERENCE_BODIES} bodies",
                b.len()
            )));
        }
        if b.period.is_some() || self.sink.is_some() || b.present.contains(&false) {
            return Err(refuse(
                "it has a period, a sink or discharged bodies: the reference has none of these".into(),
            ));
        }
        let (two, rows) = (b.dimension == Dimension::Two, b.dimension.rows());
        let dof = if two { 3 } else { 6 };
        let mut nsds = Nsds::new();
        let mut ids = Vec::with_capacity(b.len());
        for k in 0..b.len() {
            let (m, inertia) = (
                b.mass[k],
                b.dimension.inertia_factor() * b.mass[k] * b.radius[k] * b.radius[k],
            );
            let (q, v, mass, weight): (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) = if two {
                (
                    vec![b.x[k][0], b.x[k][1], b.angle[k]],
                    vec![b.v[k][0], b.v[k][1], b.omega[k][2]],
                    vec![m, m, inertia],
                    vec![m * self.gravity[0], m * self.gravity[1], 0.0],
                )
            } else {
                let g = self.gravity.map(|g| m * g);
                (
                    [b.x[k], [0.0; 3]].concat(),
                    [b.v[k], b.omega[k]].concat(),
                    vec![m, m, m, inertia, inertia, inertia],
                    [g, [0.0; 3]].concat(),
                )
            };
            let body = LagrangianLinearTIDS::new(
                DVector::from_vec(q),
                DVector::from_vec(v),
                DMatrix::from_diagonal(&DVector::from_vec(mass)),
            )?
            .with_fext(DVector::from_vec(weight))?;
            ids.push(nsds.add(&format!("body {k}"), body));
        }
        for i in 0..b.len() {
            for j in i + 1..b.len() {
                let radii = [b.radius[i], b.radius[j]];
                let name = format!("pair {i}-{j}");
                if two {
                    nsds.link(&name, self.grains, DiskDiskR::new([3, 3], radii)?, &[ids[i], ids[j]])?;
                } else {
                    let relation = SphereLDSSphereLDSR::new([6, 6], radii)?;
                    nsds.link(&name, self.grains, relation, &[ids[i], ids[j]])?;
                }
            }
        }
        for (w, wall) in self.walls.iter().enumerate() {
            let Shape::Plane { point, normal } = wall.shape else {
                return Err(refuse(format!("wall {w} is a segment: the reference takes planes")));
            };
            let tangents = if two {
                vec![[-normal[1], normal[0], 0.0]]
            } else {
                ortho_base_from_vector(normal).to_vec()
            };
            let offset = -normal.iter().zip(&point).map(|(n, p)| n * p).sum::<f64>();
            for (k, (&id, &r)) in ids.iter().zip(&b.radius).enumerate() {
                let mut h = DMatrix::zeros(rows, dof);
                for a in 0..rows {
                    h[(0, a)] = normal[a];
                }
                for (row, t) in tangents.iter().enumerate() {
                    let lever = cross(normal, *t);
                    for a in 0..rows {
                        h[(row + 1, a)] = t[a];
                    }
                    if two {
                        h[(row + 1, 2)] = -r * lever[2];
                    } else {
                        for a in 0..3 {
                            h[(row + 1, 3 + a)] = -r * lever[a];
                        }
                    }
                }
                let mut b_offset = DVector::zeros(rows);
                b_offset[0] = offset - r;
                let relation = LagrangianLinearTIR::with_offset(h, b_offset)?;
                nsds.link(&format!("wall {w} {k}"), wall.law, relation, &[id])?;
            }
        }
        Ok(nsds)
    }

    /// The reference simulation of [`Self::nsds`] from t = 0 with the scene's h, θ and γ
    /// (activation at q_k), one pass per step with the relations' Jacobians at q_k (Siconos's
    /// `SICONOS_TS_LINEAR`: the engine's frames are those of the step's start), its friction
    /// problems solved by Siconos's NSGS to the scene's tolerance and sweep cap; a capped step
    /// goes on, flagged, as the engine's does.
    pub fn reference(&self) -> Result<TimeStepping> {
        let osi = MoreauJeanOSI {
            theta: self.theta,
            gamma: self.gamma,
            ..MoreauJeanOSI::default()
        };
        let mut sim = TimeStepping::new(self.nsds()?, Integrator::MoreauJean(osi), self.time, self.h)?;
        sim.friction_solver = Some(FrictionSolver::Nsgs);
        sim.friction_options = FrictionOptions {
            tolerance: self.solver.tolerance,
            max_iterations: self.solver.max_sweeps,
            ..FrictionOptions::default()
        };
        sim.newton.single_pass = true;
        sim.lenient = true;
        Ok(sim)
    }
}
