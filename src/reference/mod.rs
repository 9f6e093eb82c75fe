//! The f64 reference time stepper: [`TimeStepping`] advances one [`Nsds`](crate::model::Nsds)
//! with a [`OneStepIntegrator`] (Moreau–Jean, Euler–Moreau), solving each step's LCP/MLCP
//! with any solver of [`crate::numerics`], and records [`Trajectory`] samples. Readable before
//! fast: the batched engines are checked against it.

mod euler_moreau;
mod euler_moreau_newton;
mod hermite_root;
mod impact_location;
mod integrator;
mod moreau_jean;
mod nonsmooth_rattle;
mod projection;
mod state;
mod time_stepping;
mod trajectory;

pub use crate::scheme::Stabilization;
#[cfg(feature = "gpu")]
pub(crate) use hermite_root::NEWTON_STEPS;
pub(crate) use hermite_root::{first_root, interior_maximum};
#[cfg(feature = "gpu")]
pub(crate) use impact_location::FLOOR_ULPS;
pub use impact_location::{MAX_IMPACTS_PER_CONTACT, MAX_LOCATED_IMPACTS, MIN_FLIGHT, TIME_TOLERANCE};
pub(crate) use impact_location::{MAX_TRIALS, rounding_floor};
pub use integrator::{Integrator, OneStepIntegrator, StepReport, StepSettings};
pub use state::{LocatedImpact, SceneState};
pub use time_stepping::TimeStepping;
pub use trajectory::{Sample, Trajectory};
