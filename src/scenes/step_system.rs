//! Siconos's StepSystem (biology tutorials): a piecewise-linear gene network whose switches
//! are a relay,
//! ```text
//!     ẋ = f(x) + r,   f = (−4.5 x₀, −1.5 x₁)            (FirstOrderNonLinearDS, ∇f given)
//!     y = h(x),  r = g(λ)  bilinear in λ                  (FirstOrderType2R)
//! ```
//! from x₀ = (1, 6), θ = ½, h = 1e-3, λ kept between steps. Three variants, as Siconos's
//! three programs (`simu.1.6.ref`, `sign.1.6.ref`, `simu-reduced.1.6.ref`):
//! - [`StepVariant::Step`]: y = (4 − x₀, 4 − x₁, 8 − x₀, 8 − x₁), relay [0, 1] (λ the step
//!   function of each threshold), g = (40 (1 − λ₂) λ₁, 40 λ₀ (1 − λ₃)); tolerance 5e-4, 20
//!   iterations. It ends in a sliding equilibrium at (8, 8).
//! - [`StepVariant::Sign`]: y = (x₀ − 4, x₁ − 4, x₀ − 8, x₁ − 8), relay [−1, 1] (a sign),
//!   g = (10 (1 + λ₂)(1 − λ₁), 10 (1 − λ₀)(1 + λ₃)); tolerance 5e-4, 20 iterations.
//! - [`StepVariant::Reduced`]: y = (8 − x₀, 8 − x₁, 0, 0), relay [0, 1],
//!   g = (40 (1 − λ₀), 40 (1 − λ₁)); tolerance 1e-4, 200 iterations.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{FirstOrderNonLinearDS, FirstOrderNonLinearR, FirstOrderType2R, Jacobian, Nsds, RelayNSL};
use crate::numerics::SolverKind;
use crate::reference::TimeStepping;

/// Which of Siconos's three StepSystem programs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StepVariant {
    /// `StepSystem.cpp` (thresholds as step functions).
    #[default]
    Step,
    /// `SignSystem.cpp` (thresholds as sign functions).
    Sign,
    /// `StepSystemReduced.cpp` (two thresholds).
    Reduced,
}

/// The gene network (defaults: Siconos's StepSystem).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepSystem {
    /// Which program.
    pub variant: StepVariant,
    /// Initial state. Default (1, 6).
    pub x0: [f64; 2],
    /// Time step h. Default 1e-3.
    pub step: f64,
}

impl Default for StepSystem {
    fn default() -> Self {
        Self {
            variant: StepVariant::Step,
            x0: [1.0, 6.0],
            step: 1e-3,
        }
    }
}

fn v(values: &[f64]) -> DVector<f64> {
    DVector::from_row_slice(values)
}

impl StepSystem {
    /// f(x) = (−4.5 x₀, −1.5 x₁).
    pub fn f(x: &DVector<f64>) -> DVector<f64> {
        v(&[-4.5 * x[0], -1.5 * x[1]])
    }

    /// The relation and the relay's bounds of the variant.
    fn relation(&self) -> (FirstOrderNonLinearR, (f64, f64)) {
        let stacked = |sign: f64| DMatrix::from_row_slice(4, 2, &[1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]) * sign;
        match self.variant {
            StepVariant::Step => (
                FirstOrderType2R::new(
                    |x, _| v(&[4.0 - x[0], 4.0 - x[1], 8.0 - x[0], 8.0 - x[1]]),
                    |l| v(&[40.0 * (1.0 - l[2]) * l[1], 40.0 * l[0] * (1.0 - l[3])]),
                )
                .with_c(stacked(-1.0))
                .with_d(DMatrix::zeros(4, 4))
                .with_b(Jacobian::function(|_, _, l, _| {
                    let (a, b) = (40.0 * (1.0 - l[2]), 40.0 * (1.0 - l[3]));
                    DMatrix::from_row_slice(2, 4, &[0.0, a, -40.0 * l[1], 0.0, b, 0.0, 0.0, -40.0 * l[0]])
                })),
                (0.0, 1.0),
            ),
            StepVariant::Sign => (
                FirstOrderType2R::new(
                    |x, _| v(&[x[0] - 4.0, x[1] - 4.0, x[0] - 8.0, x[1] - 8.0]),
                    |l| v(&[10.0 * (1.0 + l[2]) * (1.0 - l[1]), 10.0 * (1.0 - l[0]) * (1.0 + l[3])]),
                )
                .with_c(stacked(1.0))
                .with_d(DMatrix::zeros(4, 4))
                .with_b(Jacobian::function(|_, _, l, _| {
                    let (a, b) = (10.0 * (1.0 + l[2]), 10.0 * (1.0 + l[3]));
                    let (c, d) = (10.0 * (1.0 - l[1]), 10.0 * (1.0 - l[0]));
                    DMatrix::from_row_slice(2, 4, &[0.0, -a, c, 0.0, -b, 0.0, 0.0, d])
                })),
                (-1.0, 1.0),
            ),
            StepVariant::Reduced => (
                FirstOrderType2R::new(
                    |x, _| v(&[8.0 - x[0], 8.0 - x[1], 0.0, 0.0]),
                    |l| v(&[40.0 * (1.0 - l[0]), 40.0 * (1.0 - l[1])]),
                )
                .with_c(-DMatrix::from_row_slice(
                    4,
                    2,
                    &[1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
                ))
                .with_d(DMatrix::zeros(4, 4))
                .with_b(DMatrix::from_row_slice(
                    2,
                    4,
                    &[-40.0, 0.0, 0.0, 0.0, 0.0, -40.0, 0.0, 0.0],
                )),
                (0.0, 1.0),
            ),
        }
    }

    /// The scene: the genes `x` and their switches.
    pub fn nsds(&self) -> Result<Nsds> {
        let system = FirstOrderNonLinearDS::new(v(&self.x0), |_, x, _| Self::f(x))?
            .with_jacobian(|_, _, _| DMatrix::from_diagonal(&v(&[-4.5, -1.5])))?;
        let (relation, (lb, ub)) = self.relation();
        let mut nsds = Nsds::new();
        let id = nsds.add("genes", system);
        nsds.name_coordinates(["x_0", "x_1"])?;
        nsds.link("switches", RelayNSL::with_bounds(4, lb, ub)?, relation, &[id])?;
        Ok(nsds)
    }

    /// The simulation from t = 0 with the program's Newton settings (relay by Lemke).
    pub fn simulation(&self) -> Result<TimeStepping> {
        let mut sim = super::euler_moreau(self.nsds()?, 0.5, self.step)?;
        sim.solver = SolverKind::Lemke;
        (sim.newton.tolerance, sim.newton.max_iterations) = match self.variant {
            StepVariant::Reduced => (1e-4, 200),
            _ => (5e-4, 20),
        };
        sim.newton.reset_lambda = false;
        Ok(sim)
    }
}
