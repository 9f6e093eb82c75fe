//! One Euler–Moreau step of a first-order scene on the CPU, in f64: [`EulerMoreauOSI`] as a
//! [`OneStepIntegrator`] — a single pass for linear scenes (the formulas are in
//! [`crate::scheme::euler_moreau`]), the Newton loop of [`super::euler_moreau_newton`] for
//! nonlinear ones.

use nalgebra::{DMatrix, DVector};

use super::euler_moreau_newton::needs_newton;
use super::integrator::{OneStepIntegrator, StepReport, StepSettings};
use super::state::SceneState;
use crate::error::{Error, Result};
use crate::model::DynamicalSystem;
use crate::scheme::EulerMoreauOSI;

impl OneStepIntegrator for EulerMoreauOSI {
    fn check(&self, state: &SceneState) -> Result<()> {
        self.checked()?;
        match state.nsds.systems().find(|(_, ds)| ds.is_lagrangian()) {
            Some((name, _)) => Err(Error::Unsupported {
                what: format!("dynamical system `{name}`"),
                reason: "Moreau–Jean integrates Lagrangian systems, Euler–Moreau first-order ones".into(),
            }),
            None if self.relation_gamma.is_some() && needs_newton(&state.nsds) => Err(Error::Unsupported {
                what: "the full θ-γ variant of Euler–Moreau".into(),
                reason: "takes linear systems and relations (as in Siconos)".into(),
            }),
            None => Ok(()),
        }
    }

    fn step(&self, state: &mut SceneState, settings: &StepSettings) -> Result<StepReport> {
        if needs_newton(&state.nsds) {
            super::euler_moreau_newton::step(state, settings, *self)
        } else {
            step(state, settings, *self)
        }
    }
}

fn step(ts: &mut SceneState, settings: &StepSettings, osi: EulerMoreauOSI) -> Result<StepReport> {
    let (h, theta) = (ts.h, osi.theta);
    let t_next = ts.time_at(ts.k + 1);
    let n = ts.q.len();
    let (a, b) = operators(ts, (ts.time(), t_next), theta)?;
    let identity = DMatrix::<f64>::identity(n, n);
    let w = (&identity - &a * (h * theta)).lu();
    let singular = || Error::Singular {
        what: "Euler–Moreau iteration matrix W = I − hθA".into(),
    };
    let x_free = w
        .solve(&((&identity + &a * (h * (1.0 - theta))) * &ts.q + &b * h))
        .ok_or_else(singular)?;

    // Global C (m × n), D (m × m, block-diagonal), B (n × m) and e over all interactions.
    let m = ts.lambda.len();
    let (mut c, mut d, mut bmat, mut e) = (
        DMatrix::zeros(m, n),
        DMatrix::zeros(m, m),
        DMatrix::zeros(n, m),
        DVector::zeros(m),
    );
    let mut r0 = 0;
    for inter in ts.nsds.interactions() {
        let z = ts.nsds.gather(&inter.systems, DynamicalSystem::z);
        let op = inter.relation.first_order_operators(t_next, &z)?;
        op.check(
            &format!("interaction `{}`", inter.name),
            inter.size(),
            ts.indices(inter).len(),
        )?;
        let size = inter.size();
        for (col, &i) in ts.indices(inter).iter().enumerate() {
            c.view_mut((r0, i), (size, 1)).copy_from(&op.c.column(col));
            bmat.view_mut((i, r0), (1, size)).copy_from(&op.b.row(col));
        }
        d.view_mut((r0, r0), (size, size)).copy_from(&op.d);
        e.rows_mut(r0, size).copy_from(&op.e);
        r0 += size;
    }

    let mut lambda = DVector::zeros(m);
    let mut report = StepReport {
        newton_iterations: 1,
        lcp: None,
        active: ts.nsds.interactions().len(),
        ..Default::default()
    };
    if m > 0 {
        let w_inv_b = w.solve(&bmat).ok_or_else(singular)?;
        let context = format!(" at step {} (t = {t_next})", ts.k + 1);
        // The relation at x_{k+γ} (γ = 1 unless the full θ-γ variant).
        let gamma = osi.relation_gamma.unwrap_or(1.0);
        let at = match osi.relation_gamma {
            Some(gamma) => &x_free * gamma + &ts.q * (1.0 - gamma),
            None => x_free.clone(),
        };
        let (matrix, vector) = (&d + &c * w_inv_b * (gamma * h), &c * at + &e);
        let (solution, lcp_report) = settings.solve_rows(&ts.nsds, matrix, vector, &context)?;
        lambda = solution;
        report.lcp = Some(lcp_report);
    }
    let r = &bmat * &lambda;
    ts.q = &x_free + w.solve(&r).ok_or_else(singular)? * h;
    ts.p = r;
    ts.lambda = lambda;
    Ok(report)
}

/// Block-diagonal A and stacked b of the scene's first-order systems over the step
/// (t_k, t_{k+1}): the constant b, or θ b(t_{k+1}, z) + (1−θ) b(t_k, z) (Siconos's order of
/// evaluation: b(t_k, z) first) where b is a function.
fn operators(ts: &SceneState, (t_k, t_next): (f64, f64), theta: f64) -> Result<(DMatrix<f64>, DVector<f64>)> {
    let n = ts.q.len();
    let mut b = DVector::zeros(n);
    let a = ts.block_diagonal(|i, o, d| match ts.nsds.system(crate::model::DsId(i)) {
        DynamicalSystem::FirstOrderLinearDS(ds) => {
            if ds.has_b_fn() {
                let b_k = ds.b_at(t_k, &ds.z);
                let b_next = ds.b_at(t_next, &ds.z);
                let name = ts.nsds.system_name(crate::model::DsId(i));
                for (t, value) in [(t_k, &b_k), (t_next, &b_next)] {
                    crate::validate::vector(&format!("system `{name}`: b(t = {t}, z)"), value, d)?;
                    crate::validate::finite_vector(&format!("system `{name}`: b(t = {t}, z)"), value)?;
                }
                b.rows_mut(o, d).copy_from(&(b_next * theta + b_k * (1.0 - theta)));
            } else {
                b.rows_mut(o, d).copy_from(&ds.b);
            }
            Ok(ds.a.clone())
        }
        _ => Err(Error::Unsupported {
            what: "Euler–Moreau".into(),
            reason: "needs first-order systems".into(),
        }),
    })?;
    Ok((a, b))
}
