//! What an engine runs: a [`Scene`] gives its state, its energy, its [`Nsds`] (for the
//! reference engine) and the operators of its Moreau–Jean step (for the batched engines). An
//! `Nsds` is a scene; a named system known in closed form can be one without building an
//! `Nsds` on the batched engines' path.

use nalgebra::DVector;

use crate::batch::{LinearScene, SceneBatch};
use crate::error::Result;
use crate::model::Nsds;
use crate::scheme::{LagrangianIntegrator, Stabilization};

/// A system every engine can run.
pub trait Scene: Send + Sync {
    /// The scene in Siconos's terms, for the reference engine.
    fn nsds(&self) -> Result<Nsds>;

    /// Degrees of freedom (of all its systems).
    fn dof(&self) -> usize;

    /// Initial q and v, concatenated over its systems (for a first-order system, x and its
    /// rate ẋ = M⁻¹ f(0, x₀, z): an ensemble's "velocity" of x).
    fn initial_state(&self) -> (DVector<f64>, DVector<f64>);

    /// The names of its coordinates, in the order of q: the scene's own (`z`, `theta`,
    /// `x_0`, …) where it gives them, else `q0`, `q1`, …. The velocities are named after
    /// them ([`velocity_name`]).
    fn coordinate_names(&self) -> Vec<String> {
        (0..self.dof()).map(|i| format!("q{i}")).collect()
    }

    /// The mechanical energy at (q, v): ½vᵀMv + ½qᵀKq − F_extᵀq over its Lagrangian systems.
    fn energy(&self, q: &DVector<f64>, v: &DVector<f64>) -> Result<f64>;

    /// The operators of its step of size `h` with θ = `theta` (the batched engines).
    fn linear(&self, h: f64, theta: f64, stabilization: Stabilization) -> Result<LinearScene>;

    /// The operators of its nonsmooth RATTLE step of size `h` (the batched engines); by
    /// default those of its [`Nsds`].
    fn linear_rattle(&self, h: f64) -> Result<LinearScene> {
        LinearScene::from_nsds_rattle(&self.nsds()?, h)
    }

    /// Appends its operators for `batch`'s step to `batch`. By default through
    /// [`Scene::linear`] or [`Scene::linear_rattle`], as the batch's integrator says; a scene
    /// known in closed form writes them directly ([`SceneBatch::push_operators`]) with the
    /// same bits.
    fn push_to(&self, batch: &mut SceneBatch, stabilization: Stabilization) -> Result<()> {
        let scene = match batch.integrator {
            LagrangianIntegrator::MoreauJean => self.linear(batch.h, batch.theta, stabilization)?,
            LagrangianIntegrator::Rattle => self.linear_rattle(batch.h)?,
        };
        batch.push(&scene)
    }
}

impl Scene for Nsds {
    fn nsds(&self) -> Result<Nsds> {
        Ok(self.clone())
    }

    fn dof(&self) -> usize {
        self.systems().map(|(_, ds)| ds.dimension()).sum()
    }

    fn coordinate_names(&self) -> Vec<String> {
        self.coordinates()
    }

    fn initial_state(&self) -> (DVector<f64>, DVector<f64>) {
        let (mut q, mut v) = (Vec::new(), Vec::new());
        for (_, ds) in self.systems() {
            let (qi, vi) = ds.initial_state();
            q.extend(qi.iter());
            match ds.first_order_rate(0.0, &qi, &DVector::zeros(qi.len())) {
                Some(rate) => v.extend(rate.iter()),
                None if !ds.is_lagrangian() => v.extend(std::iter::repeat_n(f64::NAN, qi.len())),
                None => v.extend(vi.iter()),
            }
        }
        (DVector::from_vec(q), DVector::from_vec(v))
    }

    fn energy(&self, q: &DVector<f64>, v: &DVector<f64>) -> Result<f64> {
        Nsds::energy(self, q, v)
    }

    fn linear(&self, h: f64, theta: f64, stabilization: Stabilization) -> Result<LinearScene> {
        LinearScene::from_nsds(self, h, theta, stabilization)
    }

    fn linear_rattle(&self, h: f64) -> Result<LinearScene> {
        LinearScene::from_nsds_rattle(self, h)
    }
}

/// The name of the velocity of coordinate `name`: `v<i>` for `q<i>`, else `<name>_dot`
/// (`z` → `z_dot`, `theta` → `theta_dot`).
pub fn velocity_name(name: &str) -> String {
    match name.strip_prefix('q') {
        Some(i) if !i.is_empty() && i.chars().all(|c| c.is_ascii_digit()) => format!("v{i}"),
        _ => format!("{name}_dot"),
    }
}

#[cfg(test)]
mod tests {
    use super::velocity_name;

    #[test]
    fn velocities_are_named_after_their_coordinates() {
        assert_eq!(velocity_name("q0"), "v0");
        assert_eq!(velocity_name("q12"), "v12");
        assert_eq!(velocity_name("z"), "z_dot");
        assert_eq!(velocity_name("x_3"), "x_3_dot");
        assert_eq!(velocity_name("q"), "q_dot");
        assert_eq!(velocity_name("q_a"), "q_a_dot");
    }
}
