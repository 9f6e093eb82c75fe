//! Siconos's OptimalControl (control tutorials): a Pontryagin bang-bang problem, state
//! (x₀, x₁) and costate (p₀, p₁) = (x₂, x₃) of one FirstOrderNonLinearDS, control
//! u = λ₀ − 1 ∈ [−1, 1], under the full FirstOrderNonLinearR (x-dependent C and B, K ≠ 0):
//! ```text
//!     f(x) = (½x₁ + ½, −½x₀ − x₁, −(x₀ − 2) + ½x₃, −(x₁ + 1) − ½x₂ + x₃)
//!     β(x) = (−½x₁ + ½, ½x₀)
//!     y = (λ₁ + 2 (β₀ x₂ + β₁ x₃), 2 − λ₀),   r = (λ₀ − 1) (β₀, β₁, −½x₃, ½x₂)
//! ```
//! with 0 ≤ y ⟂ λ ≥ 0 (an LCP by enumeration), θ = ½, h = 2e-3, T = 10, Newton tolerance
//! 1.1e-11 (`OptimalControl.ref`). The control switches from −1 to +1 at t = 4.152.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{ComplementarityConditionNSL, FirstOrderNonLinearDS, FirstOrderNonLinearR, Jacobian, Nsds};
use crate::numerics::SolverKind;
use crate::reference::TimeStepping;

/// The problem (defaults: Siconos's OptimalControl).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptimalControl {
    /// Initial (x₀, x₁, p₀, p₁). Default Siconos's.
    pub x0: [f64; 4],
    /// Time step h. Default 2e-3.
    pub step: f64,
}

impl Default for OptimalControl {
    fn default() -> Self {
        Self {
            x0: [3.4999939172, -2.2788416237, 1.1935988302, -0.6365413023],
            step: 2e-3,
        }
    }
}

/// (β₀, β₁, −½x₃, ½x₂): ∂g/∂λ₀.
fn column(x: &DVector<f64>) -> DVector<f64> {
    DVector::from_row_slice(&[-0.5 * x[1] + 0.5, 0.5 * x[0], -0.5 * x[3], 0.5 * x[2]])
}

impl OptimalControl {
    /// The scene: `state and costate` and the control.
    pub fn nsds(&self) -> Result<Nsds> {
        #[rustfmt::skip]
        let grad_f = DMatrix::from_row_slice(4, 4, &[
            0.0, 0.5, 0.0, 0.0,
            -0.5, -1.0, 0.0, 0.0,
            -1.0, 0.0, 0.0, 0.5,
            0.0, -1.0, -0.5, 1.0,
        ]);
        let f = |_: f64, x: &DVector<f64>, _: &DVector<f64>| {
            DVector::from_row_slice(&[
                0.5 * x[1] + 0.5,
                -0.5 * x[0] - x[1],
                -(x[0] - 2.0) + 0.5 * x[3],
                -(x[1] + 1.0) - 0.5 * x[2] + x[3],
            ])
        };
        let system = FirstOrderNonLinearDS::new(DVector::from_row_slice(&self.x0), f)?
            .with_jacobian(move |_, _, _| grad_f.clone())?;
        let relation = FirstOrderNonLinearR::new(
            |_, x, l, _| {
                let beta = column(x);
                DVector::from_row_slice(&[l[1] + 2.0 * (beta[0] * x[2] + beta[1] * x[3]), 2.0 - l[0]])
            },
            |_, x, l, _| column(x) * (l[0] - 1.0),
        )
        .with_c(Jacobian::function(|_, x, _, _| {
            DMatrix::from_row_slice(2, 4, &[x[3], -x[2], 1.0 - x[1], x[0], 0.0, 0.0, 0.0, 0.0])
        }))
        .with_d(DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -1.0, 0.0]))
        .with_b(Jacobian::function(|_, x, _, _| {
            let mut b = DMatrix::zeros(4, 2);
            b.set_column(0, &column(x));
            b
        }))
        .with_k(Jacobian::function(|_, _, l, _| {
            let rotation = DMatrix::from_row_slice(2, 2, &[0.0, -0.5, 0.5, 0.0]);
            let mut k = DMatrix::zeros(4, 4);
            k.view_mut((0, 0), (2, 2)).copy_from(&rotation);
            k.view_mut((2, 2), (2, 2)).copy_from(&rotation);
            k * (l[0] - 1.0)
        }));
        let mut nsds = Nsds::new();
        let id = nsds.add("state and costate", system);
        nsds.name_coordinates(["x_0", "x_1", "p_0", "p_1"])?;
        nsds.link("control", ComplementarityConditionNSL::new(2)?, relation, &[id])?;
        Ok(nsds)
    }

    /// The simulation from t = 0 with Siconos's settings (enumeration, tolerance 1.1e-11).
    pub fn simulation(&self) -> Result<TimeStepping> {
        let mut sim = super::euler_moreau(self.nsds()?, 0.5, self.step)?;
        sim.solver = SolverKind::Enumerative;
        sim.newton.tolerance = 1.1e-11;
        Ok(sim)
    }
}
