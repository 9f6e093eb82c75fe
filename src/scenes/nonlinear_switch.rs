//! Siconos's NonLinearSwitch (the IdealSwitch electronics tutorial): a PWM buck stage whose
//! switch and diode are resistances chosen by complementarity between R1 = 1 mΩ and
//! R2 = 1 kΩ through terms bilinear in λ. x = i_L (the inductor current, a
//! FirstOrderNonLinearDS with f = 0), L di_L/dt = λ₂ − λ₃, and one relation of 9 rows, h
//! depending on t through the sawtooth V(t) = 7.5 − 10 t/T + 10 ⌊t/T⌋:
//! ```text
//!     0 = λ₄ − V(t)                     0 ≤ R2 − λ₆ − R1 ⟂ λ₅ ≥ 0
//!     0 = i_L − λ₃/R                    0 ≤ A (λ₄ − λ₃) + λ₅ ⟂ λ₆ ≥ 0
//!     0 = λ₂ − 20 + λ₀ (λ₆ + R1)        0 ≤ R2 − λ₈ − R1 ⟂ λ₇ ≥ 0
//!     0 = λ₂ + λ₁ (λ₈ + R1)             0 ≤ λ₇ − λ₂ ⟂ λ₈ ≥ 0
//!     0 = i_L − λ₀ − λ₁
//! ```
//! (λ₀ the switch current, λ₁ the diode's, λ₂ the node voltage, λ₃ the output voltage, λ₄ the
//! sawtooth, λ₅ the comparator's slack, λ₆ the switch's extra resistance, λ₇ the diode's slack,
//! λ₈ its extra resistance), under MixedComplementarityConditionNSL(4, 5), solved by
//! enumeration; θ = ½, h = 0.1 µs, 10 periods (`NonLinearSwitch.ref`).

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{FirstOrderNonLinearDS, FirstOrderNonLinearR, Jacobian, MixedComplementarityConditionNSL, Nsds};
use crate::numerics::SolverKind;
use crate::reference::TimeStepping;

/// Parameters of the circuit (defaults: Siconos's NonLinearSwitch).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NonLinearSwitch {
    /// Load R (Ω). Default 1.
    pub resistance: f64,
    /// The switch's and the diode's closed resistance R1 (Ω). Default 1e-3.
    pub closed: f64,
    /// Their open resistance R2 (Ω). Default 1000.
    pub open: f64,
    /// Inductance L (H). Default 200e-6.
    pub inductance: f64,
    /// The comparator's gain A. Default 100.
    pub gain: f64,
    /// The supply (V). Default 20.
    pub supply: f64,
    /// The sawtooth's period T (s). Default 20e-6.
    pub period: f64,
    /// Time step h (s). Default 1e-7.
    pub step: f64,
}

impl Default for NonLinearSwitch {
    fn default() -> Self {
        Self {
            resistance: 1.0,
            closed: 1e-3,
            open: 1000.0,
            inductance: 200e-6,
            gain: 100.0,
            supply: 20.0,
            period: 20e-6,
            step: 1e-7,
        }
    }
}

impl NonLinearSwitch {
    /// The sawtooth V(t) = 7.5 − 10 t/T + 10 ⌊t/T⌋, falling from 7.5 to −2.5 each period.
    pub fn sawtooth(&self, t: f64) -> f64 {
        7.5 - (10.0 / self.period) * t + 10.0 * (t / self.period).floor()
    }

    /// The scene: the inductor `i_L` and the switch-and-diode relation.
    pub fn nsds(&self) -> Result<Nsds> {
        let p = *self;
        let (r, r1, r2, a) = (p.resistance, p.closed, p.open, p.gain);
        let h = move |t: f64, x: &DVector<f64>, l: &DVector<f64>, _: &DVector<f64>| {
            DVector::from_row_slice(&[
                l[4] - p.sawtooth(t),
                x[0] - l[3] / r,
                l[2] - p.supply + l[0] * (l[6] + r1),
                l[2] + l[1] * (l[8] + r1),
                x[0] - l[0] - l[1],
                r2 - l[6] - r1,
                a * (l[4] - l[3]) + l[5],
                r2 - l[8] - r1,
                l[7] - l[2],
            ])
        };
        let d = Jacobian::function(move |_, _, l, _| {
            let mut d = DMatrix::zeros(9, 9);
            #[rustfmt::skip]
            let entries = [
                (0, 4, 1.0), (1, 3, -1.0 / r),
                (2, 0, l[6] + r1), (2, 2, 1.0), (2, 6, l[0]),
                (3, 1, l[8] + r1), (3, 2, 1.0), (3, 8, l[1]),
                (4, 0, -1.0), (4, 1, -1.0), (5, 6, -1.0),
                (6, 3, -a), (6, 4, a), (6, 5, 1.0),
                (7, 8, -1.0), (8, 2, -1.0), (8, 7, 1.0),
            ];
            for (i, j, value) in entries {
                d[(i, j)] = value;
            }
            d
        });
        let mut c = DMatrix::zeros(9, 1);
        (c[(1, 0)], c[(4, 0)]) = (1.0, 1.0);
        let inductance = p.inductance;
        let mut b = DMatrix::zeros(1, 9);
        (b[(0, 2)], b[(0, 3)]) = (1.0 / inductance, -1.0 / inductance);
        let relation = FirstOrderNonLinearR::new(h, move |_, _, l, _| {
            DVector::from_element(1, (l[2] - l[3]) / inductance)
        })
        .with_c(c)
        .with_d(d)
        .with_b(b)
        .with_k(DMatrix::zeros(1, 1));
        let inductor = FirstOrderNonLinearDS::new(DVector::zeros(1), |_, _, _| DVector::zeros(1))?;
        let mut nsds = Nsds::new();
        let id = nsds.add("inductor", inductor);
        nsds.name_coordinates(["i_L"])?;
        nsds.link(
            "switch and diode",
            MixedComplementarityConditionNSL::new(4, 5)?,
            relation,
            &[id],
        )?;
        Ok(nsds)
    }

    /// The simulation from t = 0 with Siconos's settings: enumeration, Newton tolerance
    /// 1e-11, 20 iterations, λ kept between steps.
    pub fn simulation(&self) -> Result<TimeStepping> {
        let mut sim = super::euler_moreau(self.nsds()?, 0.5, self.step)?;
        sim.solver = SolverKind::Enumerative;
        sim.newton.tolerance = 1e-11;
        sim.newton.max_iterations = 20;
        sim.newton.reset_lambda = false;
        Ok(sim)
    }
}
