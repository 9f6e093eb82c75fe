//! What an engine runs: a [`Scene`] gives its state, its energy, its [`Nsds`] (for the
//! reference engine) and the operators of its Moreau–Jean step (for the batched engines). An
//! `Nsds` is a scene; a named system known in closed form can be one without building an
//! `Nsds` on the batched engines' path.

use nalgebra::DVector;

use crate::batch::{LinearScene, SceneBatch};
use crate::error::Result;
use crate::model::Nsds;
use crate::scheme::Stabilization;

/// A system every engine can run.
pub trait Scene: Send + Sync {
    /// The scene in Siconos's terms, for the reference engine.
    fn nsds(&self) -> Result<Nsds>;

    /// Degrees of freedom (of all its systems).
    fn dof(&self) -> usize;

    /// Initial q and v, concatenated over its systems.
    fn initial_state(&self) -> (DVector<f64>, DVector<f64>);

    /// The mechanical energy at (q, v): ½vᵀMv + ½qᵀKq − F_extᵀq over its Lagrangian systems.
    fn energy(&self, q: &DVector<f64>, v: &DVector<f64>) -> Result<f64>;

    /// The operators of its step of size `h` with θ = `theta` (the batched engines).
    fn linear(&self, h: f64, theta: f64, stabilization: Stabilization) -> Result<LinearScene>;

    /// Appends its operators for `batch`'s step to `batch`. By default through
    /// [`Scene::linear`]; a scene known in closed form writes them directly
    /// ([`SceneBatch::push_operators`]) with the same bits.
    fn push_to(&self, batch: &mut SceneBatch, stabilization: Stabilization) -> Result<()> {
        batch.push(&self.linear(batch.h, batch.theta, stabilization)?)
    }
}

impl Scene for Nsds {
    fn nsds(&self) -> Result<Nsds> {
        Ok(self.clone())
    }

    fn dof(&self) -> usize {
        self.systems().map(|(_, ds)| ds.dimension()).sum()
    }

    fn initial_state(&self) -> (DVector<f64>, DVector<f64>) {
        let (mut q, mut v) = (Vec::new(), Vec::new());
        for (_, ds) in self.systems() {
            let (qi, vi) = ds.initial_state();
            q.extend(qi.iter());
            v.extend(vi.iter());
        }
        (DVector::from_vec(q), DVector::from_vec(v))
    }

    fn energy(&self, q: &DVector<f64>, v: &DVector<f64>) -> Result<f64> {
        Nsds::energy(self, q, v)
    }

    fn linear(&self, h: f64, theta: f64, stabilization: Stabilization) -> Result<LinearScene> {
        LinearScene::from_nsds(self, h, theta, stabilization)
    }
}
