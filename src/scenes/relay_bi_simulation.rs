//! Siconos's RelayBiSimulation (control tutorials): a process under a sampled relay
//! controller, two simulations coupled by user code through the process's discrete state z
//! (a zero-order hold):
//! ```text
//!     process (h = 1e-4):     ẋ = b(t, z) = (sin ωt + z₀, −sin ωt + z₁)
//!     controller (h = 1e-2):  ẋ = r,  y = x,  r = B λ,  −y ∈ N_[−1, 1](λ),  B = 2 I
//! ```
//! Each controller step: the controller steps, z ← B λ, the process advances while its next
//! time is before the controller's (both on their t₀ + k h grids), and the controller takes
//! the process's state (`RBS-Controller.ref`: the controller's rows).

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{FirstOrderLinearDS, FirstOrderLinearTIR, Nsds, RelayNSL};
use crate::reference::{Sample, TimeStepping};

/// Parameters of the pair (defaults: Siconos's RelayBiSimulation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RelayBiSimulation {
    /// Initial state of both. Default (1, −1).
    pub x0: [f64; 2],
    /// The disturbance's angular frequency ω (rad/s). Default 50.
    pub frequency: f64,
    /// The controller's gain B = gain · I. Default 2.
    pub gain: f64,
    /// The process's time step. Default 1e-4.
    pub process_step: f64,
    /// The controller's time step (the sampling period). Default 1e-2.
    pub control_step: f64,
}

impl Default for RelayBiSimulation {
    fn default() -> Self {
        Self {
            x0: [1.0, -1.0],
            frequency: 50.0,
            gain: 2.0,
            process_step: 1e-4,
            control_step: 1e-2,
        }
    }
}

/// The two running simulations.
pub struct CoSimulation {
    /// The process (one system `process`, z its held control).
    pub process: TimeStepping,
    /// The controller (one system `controller` under the relay).
    pub controller: TimeStepping,
    gain: f64,
    steps: (f64, f64),
}

impl RelayBiSimulation {
    /// Both simulations from t = 0 (θ = ½ each).
    pub fn start(&self) -> Result<CoSimulation> {
        let x0 = DVector::from_row_slice(&self.x0);
        let omega = self.frequency;
        let process = FirstOrderLinearDS::new(x0.clone(), DMatrix::zeros(2, 2))?
            .with_z(DVector::zeros(2))?
            .with_b_fn(move |t, z| {
                let s = (omega * t).sin();
                DVector::from_row_slice(&[s + z[0], -s + z[1]])
            })?;
        let mut nsds = Nsds::new();
        nsds.add("process", process);
        nsds.name_coordinates(["x_0", "x_1"])?;
        let process = super::euler_moreau(nsds, 0.5, self.process_step)?;
        let controller = FirstOrderLinearDS::new(x0, DMatrix::zeros(2, 2))?;
        let relation = FirstOrderLinearTIR::new(
            DMatrix::identity(2, 2),
            DMatrix::zeros(2, 2),
            DMatrix::identity(2, 2) * self.gain,
            DVector::zeros(2),
        )?;
        let mut nsds = Nsds::new();
        let id = nsds.add("controller", controller);
        nsds.name_coordinates(["x_0", "x_1"])?;
        nsds.link("relay", RelayNSL::new(2)?, relation, &[id])?;
        let controller = super::euler_moreau(nsds, 0.5, self.control_step)?;
        Ok(CoSimulation {
            process,
            controller,
            gain: self.gain,
            steps: (self.process_step, self.control_step),
        })
    }
}

impl CoSimulation {
    /// One controller step and the process's steps up to it; returns the controller's sample
    /// after its step (before it takes the process's state).
    pub fn step(&mut self) -> Result<Sample> {
        let plant = crate::model::DsId(0);
        self.controller.step()?;
        let sample = self.controller.sample()?;
        self.process.set_z(plant, &(&sample.lambda * self.gain))?;
        let (hp, hc) = self.steps;
        while (self.process.steps() + 1) as f64 * hp < self.controller.steps() as f64 * hc {
            self.process.step()?;
        }
        self.controller.set_state(self.process.q(plant).as_slice())?;
        Ok(sample)
    }
}
