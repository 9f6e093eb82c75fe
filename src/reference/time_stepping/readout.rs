//! What a caller reads and sets of a running [`TimeStepping`]: the time, each system's
//! coordinates, velocities, reactions and discrete state, the multipliers, an interaction's
//! outputs, and what the last step did.

use nalgebra::DVector;

use super::TimeStepping;
use crate::error::{Error, Result};
use crate::model::{CoordinateVectorOutputs, DsId, DynamicalSystem, Interaction, InteractionId, Nsds, Relation};
use crate::reference::integrator::StepReport;
use crate::reference::state::{LocatedImpact, SceneState};
use crate::validate;

impl TimeStepping {
    /// Current time t_k = t0 + k h.
    pub fn time(&self) -> f64 {
        self.state.time()
    }

    /// Steps taken.
    pub fn steps(&self) -> usize {
        self.state.k
    }

    /// The scene.
    pub fn nsds(&self) -> &Nsds {
        &self.state.nsds
    }

    /// Coordinates of system `id` (q or x).
    pub fn q(&self, id: DsId) -> DVector<f64> {
        let n = self.state.nsds.system(id).dimension();
        self.state.q.rows(self.state.offsets()[id.0], n).into_owned()
    }

    /// Velocity of Lagrangian system `id`.
    pub fn v(&self, id: DsId) -> DVector<f64> {
        if self.state.v.is_empty() {
            return DVector::zeros(0);
        }
        self.state
            .v
            .rows(self.state.offsets()[id.0], self.state.nsds.system(id).dimension())
            .into_owned()
    }

    /// The input of the last step to system `id`: r of a first-order system (Σ g or B λ over
    /// its interactions), p = Hᵀ λ of a Lagrangian one.
    pub fn r(&self, id: DsId) -> DVector<f64> {
        let n = self.state.nsds.system(id).dimension();
        self.state.p.rows(self.state.offsets()[id.0], n).into_owned()
    }

    /// The time derivative of the coordinates now: v of a Lagrangian system, the rate
    /// ẋ = M⁻¹ (f(t_k, x_k, z) + r_k) of a first-order one (r_k the last step's input).
    pub fn rates(&self) -> Result<DVector<f64>> {
        let mut rates = DVector::zeros(self.state.q.len());
        for (i, (name, ds)) in self.state.nsds.systems().enumerate() {
            let (o, d) = (self.state.offsets()[i], ds.dimension());
            let rate = if ds.is_lagrangian() {
                self.state.v.rows(o, d).into_owned()
            } else {
                let x = self.state.q.rows(o, d).into_owned();
                let r = self.state.p.rows(o, d).into_owned();
                ds.first_order_rate(self.time(), &x, &r)
                    .ok_or_else(|| Error::Singular {
                        what: format!("the mass M of system `{name}`"),
                    })?
            };
            rates.rows_mut(o, d).copy_from(&rate);
        }
        Ok(rates)
    }

    /// Replaces the state by `qv` = (q, v) of all systems, concatenated — x alone for a
    /// first-order scene — to continue a run from a state saved elsewhere (or, in a
    /// co-simulation, to hand one system's state to another).
    pub fn set_state(&mut self, qv: &[f64]) -> Result<()> {
        self.state.memory.state_changed();
        let (n, m) = (self.state.q.len(), self.state.v.len());
        if qv.len() != n + m {
            return Err(Error::Dimension {
                what: if m == 0 {
                    "TimeStepping::set_state: x".into()
                } else {
                    "TimeStepping::set_state: (q, v)".into()
                },
                expected: (n + m).to_string(),
                got: qv.len().to_string(),
            });
        }
        self.state.q.copy_from_slice(&qv[..n]);
        self.state.v.copy_from_slice(&qv[n..]);
        self.state.impacts.clear();
        Ok(())
    }

    /// The discrete state z of system `id` (Siconos's Z; a first-order system or a
    /// `LagrangianDS`).
    pub fn z(&self, id: DsId) -> Result<DVector<f64>> {
        match self.state.nsds.system(id) {
            DynamicalSystem::LagrangianLinearTIDS(_) => Err(self.no_z(id)),
            ds => Ok(ds.z()),
        }
    }

    /// Sets the discrete state z of system `id` between steps (a sampled control, a switched
    /// parameter: b(t, z), f(t, x, z), M(q, z), the forces and the relations' closures see
    /// it from the next step on). Its size is the one the system was built with, and it must be finite.
    /// This is the only way z changes: the closures read it and do not write it.
    pub fn set_z(&mut self, id: DsId, z: &DVector<f64>) -> Result<()> {
        self.state.memory.state_changed();
        let name = self.state.nsds.system_name(id).to_string();
        let what = format!("TimeStepping::set_z: system `{name}`");
        let error = self.no_z(id);
        let Some(current) = self.state.nsds.system_mut(id).z_mut() else {
            return Err(error);
        };
        validate::vector(&what, z, current.len())?;
        validate::finite_vector(&what, z)?;
        current.copy_from(z);
        Ok(())
    }

    fn no_z(&self, id: DsId) -> Error {
        Error::Unsupported {
            what: format!("the discrete state z of system `{}`", self.state.nsds.system_name(id)),
            reason: "only first-order systems and LagrangianDS carry a z".into(),
        }
    }

    /// The outputs y as Siconos's Newton loop leaves them in its interactions (nonlinear
    /// first-order scenes; `None` before the first step or for other scenes): the last
    /// linearised w = q + M λ plus the previous iteration's residual y − h_α minus the last
    /// one's (`EulerMoreauOSI::updateOutput` after `TimeStepping::newtonSolve`, Siconos
    /// `kernel/src/simulationTools/`) — what Siconos's examples print as y.
    /// [`sample`](Self::sample) gives the output itself, h(t, x, λ, z).
    pub fn newton_outputs(&self) -> Option<&DVector<f64>> {
        self.state.memory.newton().map(|memory| &memory.y)
    }

    /// The impulses λ of the last step, interaction by interaction.
    pub fn lambda(&self) -> &DVector<f64> {
        &self.state.lambda
    }

    /// The coordinates, velocities (of the interaction's systems, concatenated) and last
    /// impulse λ of interaction `id`.
    pub fn interaction_state(&self, id: InteractionId) -> (DVector<f64>, DVector<f64>, DVector<f64>) {
        let interactions = self.state.nsds.interactions();
        let offset: usize = interactions[..id.0].iter().map(Interaction::size).sum();
        let inter = &interactions[id.0];
        let idx = self.state.indices(inter);
        let lambda = self.state.lambda.rows(offset, inter.size()).into_owned();
        (
            SceneState::gather(&idx, &self.state.q),
            SceneState::gather(&idx, &self.state.v),
            lambda,
        )
    }

    /// Exudyn's output variables of the coordinate-vector constraint `id`: displacement,
    /// velocity, constraint equation and force.
    pub fn coordinate_vector_outputs(&self, id: InteractionId) -> Result<CoordinateVectorOutputs> {
        let Relation::CoordinateVector(constraint) = &self.state.nsds.interactions()[id.0].relation else {
            return Err(self.not_coordinate_vector(id));
        };
        let (q, v, lambda) = self.interaction_state(id);
        Ok(constraint.outputs(&q, &v, &lambda, self.time(), self.state.h))
    }

    /// Switches the coordinate-vector constraint `id` on or off (off: λ = 0).
    pub fn set_active(&mut self, id: InteractionId, active: bool) -> Result<()> {
        let error = self.not_coordinate_vector(id);
        match &mut self.state.nsds.interaction_mut(id).relation {
            Relation::CoordinateVector(constraint) => {
                constraint.set_active(active);
                Ok(())
            }
            _ => Err(error),
        }
    }

    fn not_coordinate_vector(&self, id: InteractionId) -> Error {
        Error::Unsupported {
            what: format!("interaction `{}`", self.state.nsds.interactions()[id.0].name),
            reason: "is not a coordinate-vector constraint".into(),
        }
    }

    /// What the last step did.
    pub fn last_report(&self) -> StepReport {
        self.last
    }

    /// The impacts the last step located, in time order ([`TimeStepping::locate_impacts`];
    /// empty otherwise).
    pub fn last_impacts(&self) -> &[LocatedImpact] {
        &self.state.impacts
    }
}
