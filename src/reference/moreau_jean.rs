//! One Moreau–Jean step of a Lagrangian scene on the CPU, in f64: [`MoreauJeanOSI`] as a
//! [`OneStepIntegrator`] (the formulas are in [`crate::scheme::moreau_jean`]). Here: the
//! step, its dynamics and active set; in `impulse` the percussion's problem assembled and
//! solved; in `span` the interval a step covers.

mod impulse;
mod span;

use nalgebra::{DMatrix, DVector, Dyn, LU};

use super::integrator::{OneStepIntegrator, StepReport, StepSettings};
use super::projection::is_holonomic;
use super::state::{SceneState, SchemeMemory};
use crate::error::{Error, Result};
use crate::model::Interaction;
use crate::model::relation::CompliantLinearisation;
use crate::scheme::{Activation, MoreauJeanOSI, Stabilization};
use impulse::{Impulse, impulse};
pub(super) use span::Span;

/// An interaction taking part in this step's LCP, whose row block of the LCP vector is
/// `scale · G v_free + constant + ∂h/∂t`.
struct ActiveRow {
    /// Index of the interaction in the scene.
    index: usize,
    /// Offset of its λ in the scene's λ vector.
    offset: usize,
    /// 1, or hθ for a compliant relation.
    scale: f64,
    /// e ẏ_k for a Newton-impact law; y(q_k + h v_k) + h(1−θ) ẏ_k for a compliant relation;
    /// (β/h) y(q_k) for a holonomic equality under Baumgarte stabilisation; zero otherwise.
    constant: DVector<f64>,
    /// An equality law: always in the problem, its rows free (an MLCP).
    equality: bool,
}

/// M, F, ∂F/∂q, ∂F/∂v of the whole scene at (t, q, v), block-diagonal over the systems.
pub(super) struct Dynamics {
    pub(super) mass: DMatrix<f64>,
    pub(super) force: DVector<f64>,
    pub(super) dq: DMatrix<f64>,
    pub(super) dv: DMatrix<f64>,
}

impl OneStepIntegrator for MoreauJeanOSI {
    fn check(&self, state: &SceneState) -> Result<()> {
        MoreauJeanOSI::new(self.theta, self.gamma)?;
        match state.nsds.systems().find(|(_, ds)| !ds.is_lagrangian()) {
            Some((name, _)) => Err(Error::Unsupported {
                what: format!("dynamical system `{name}`"),
                reason: "Moreau–Jean integrates Lagrangian systems, Euler–Moreau first-order ones".into(),
            }),
            None => Ok(()),
        }
    }

    fn step(&self, state: &mut SceneState, settings: &StepSettings) -> Result<StepReport> {
        step_over(state, settings, *self, &Span::grid(state))
    }
}

/// One Moreau–Jean solve over `span`: v_{k+1} from the (Newton-linearised) θ-step and its
/// LCP/MLCP, then q_{k+1} = q_k + h[θ v_{k+1} + (1−θ) v_k].
pub(super) fn step_over(
    ts: &mut SceneState,
    settings: &StepSettings,
    osi: MoreauJeanOSI,
    span: &Span<'_>,
) -> Result<StepReport> {
    let (h, theta) = (span.h, osi.theta);
    let (t_k, t_next) = (span.t, span.t_next);
    let (q_k, v_k) = (ts.q.clone(), ts.v.clone());
    // One pass for linear scenes, or when asked (with G at q_k).
    let single_pass = ts.nsds.is_linear() || settings.newton.single_pass;
    let rows = active_set(ts, settings, &osi, (&q_k, &v_k), span)?;
    let f_k = dynamics(ts, t_k, &q_k, &v_k)?.force;
    let context = |ts: &SceneState| format!(" at step {} (t = {t_next})", ts.k + 1);
    let grid = span.h == ts.h;

    let mut v = v_k.clone();
    // The impulse and report of the last iterate.
    let mut input: Option<(Impulse, StepReport)> = None;
    let mut residual = f64::INFINITY;
    // Iteration i solves for v^{i}; pass max + 1 only checks the last iterate.
    for iteration in 1..=settings.newton.max_iterations + 1 {
        let q = &q_k + (&v_k * (1.0 - theta) + &v * theta) * h;
        let dyn_i = dynamics(ts, t_next, &q, &v)?;
        let r_free = &dyn_i.mass * (&v - &v_k) - &f_k * (h * (1.0 - theta)) - &dyn_i.force * (h * theta);
        let q_g = if settings.newton.single_pass { &q_k } else { &q };
        let g = active_jacobian(ts, &rows, q_g, t_next)?;
        if let Some((last, report)) = &input {
            // The input recomputed at this iterate, G(q^{i})ᵀ λ (Siconos re-evaluates the
            // relations at q^{i}): a nonlinear relation converges when its Jacobian stops moving.
            residual = (&r_free - g.transpose() * &last.lambda).norm();
            if residual <= settings.newton.tolerance {
                let report = StepReport {
                    newton_residual: residual,
                    ..*report
                };
                return commit(
                    ts,
                    (&osi, h),
                    &q_k,
                    &v_k,
                    v,
                    last.p.clone(),
                    last.lambda_all.clone(),
                    report,
                );
            }
        }
        if iteration > settings.newton.max_iterations {
            break;
        }
        let w = iteration_matrix(ts, &dyn_i, (h, grid), theta)?;
        let v_free = &v - w.solve(&r_free).ok_or_else(singular)?;
        let (impulse, lcp) = impulse(ts, settings, &rows, &w, &g, q_g, &v_free, (t_next, theta), &context(ts))?;
        v = &v_free + w.solve(&impulse.p).ok_or_else(singular)?;
        let report = StepReport {
            newton_iterations: iteration,
            lcp,
            active: rows.len(),
            ..Default::default()
        };
        if single_pass {
            return commit(ts, (&osi, h), &q_k, &v_k, v, impulse.p, impulse.lambda_all, report);
        }
        input = Some((impulse, report));
    }
    if settings.lenient
        && let Some((last, report)) = input
    {
        let report = StepReport {
            missed_tolerance: true,
            newton_residual: residual,
            ..report
        };
        return commit(ts, (&osi, h), &q_k, &v_k, v, last.p, last.lambda_all, report);
    }
    Err(Error::NotConverged {
        solver: "Newton loop".into(),
        context: context(ts),
        iterations: settings.newton.max_iterations,
        residual,
        tolerance: settings.newton.tolerance,
    })
}

/// Stores v_{k+1}, q_{k+1} = q_k + h[θ v_{k+1} + (1−θ) v_k], p and λ.
#[allow(clippy::too_many_arguments)]
fn commit(
    ts: &mut SceneState,
    (osi, h): (&MoreauJeanOSI, f64),
    q_k: &DVector<f64>,
    v_k: &DVector<f64>,
    v: DVector<f64>,
    p: DVector<f64>,
    lambda: DVector<f64>,
    report: StepReport,
) -> Result<StepReport> {
    ts.q = DVector::from_fn(q_k.len(), |i, _| osi.position(q_k[i], v_k[i], v[i], h));
    ts.v = v;
    ts.p = p;
    ts.lambda = lambda;
    Ok(report)
}

fn singular() -> Error {
    Error::Singular {
        what: "Moreau–Jean iteration matrix W".into(),
    }
}

pub(super) fn dynamics(ts: &SceneState, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Result<Dynamics> {
    let n = q.len();
    let mut out = Dynamics {
        mass: DMatrix::zeros(n, n),
        force: DVector::zeros(n),
        dq: DMatrix::zeros(n, n),
        dv: DMatrix::zeros(n, n),
    };
    for ((_, ds), &o) in ts.nsds.systems().zip(ts.offsets()) {
        let d = ds.dimension();
        let l = ds.as_lagrangian().ok_or_else(|| Error::Unsupported {
            what: "Moreau–Jean".into(),
            reason: "needs Lagrangian systems".into(),
        })?;
        let (qi, vi) = (q.rows(o, d).into_owned(), v.rows(o, d).into_owned());
        let (dq, dv) = l.force_jacobians(t, &qi, &vi)?;
        out.mass.view_mut((o, o), (d, d)).copy_from(&l.mass(&qi)?);
        out.force.rows_mut(o, d).copy_from(&l.force(t, &qi, &vi)?);
        out.dq.view_mut((o, o), (d, d)).copy_from(&dq);
        out.dv.view_mut((o, o), (d, d)).copy_from(&dv);
    }
    Ok(out)
}

/// W = M − hθ ∂F/∂v − h²θ² ∂F/∂q, LU-factorised; cached when every system is linear and h is
/// the grid's (`grid`).
fn iteration_matrix(
    ts: &mut SceneState,
    d: &Dynamics,
    (h, grid): (f64, bool),
    theta: f64,
) -> Result<LU<f64, Dyn, Dyn>> {
    if let (SchemeMemory::IterationMatrix(w), true) = (&ts.memory, grid) {
        return Ok(w.clone());
    }
    let w = (&d.mass - &d.dv * (h * theta) - &d.dq * (h * h * theta * theta)).lu();
    if !w.is_invertible() {
        return Err(singular());
    }
    if grid && ts.nsds.systems_are_linear() {
        ts.memory = SchemeMemory::IterationMatrix(w.clone());
    }
    Ok(w)
}

/// The interactions in this step's problem: every active equality, and the others with
/// ỹ = y(q̂) + γ h ẏ_k ≤ 0 (first component), q̂ chosen by [`Activation`] (an impact
/// [`Span`]'s test instead where it has one), less the span's excluded ones.
fn active_set(
    ts: &SceneState,
    settings: &StepSettings,
    osi: &MoreauJeanOSI,
    (q_k, v_k): (&DVector<f64>, &DVector<f64>),
    span: &Span<'_>,
) -> Result<Vec<ActiveRow>> {
    let (t_k, h) = (span.t, span.h);
    let q_pred = q_k + v_k * h;
    let q_hat = match osi.activation {
        Activation::Current => q_k,
        Activation::Predicted => &q_pred,
    };
    let mut rows = Vec::new();
    let mut offset = 0;
    for (index, inter) in ts.nsds.interactions().iter().enumerate() {
        let idx = ts.indices(inter);
        let local = |x: &DVector<f64>| SceneState::gather(&idx, x);
        let z = ts.z_of(inter);
        if !inter.relation.is_active() || span.excluded.contains(&index) {
            offset += inter.size();
            continue;
        }
        if inter.law.is_equality() {
            let constant = match settings.stabilization {
                Stabilization::Baumgarte { beta } if is_holonomic(inter) && span.h > 0.0 => {
                    inter.output(&local(q_k), &z, t_k)? * (beta / h)
                }
                _ => DVector::zeros(inter.size()),
            };
            rows.push(ActiveRow {
                index,
                offset,
                scale: 1.0,
                constant,
                equality: true,
            });
            offset += inter.size();
            continue;
        }
        let ydot_k = inter.velocity(&local(q_k), &local(v_k), &z, t_k)?;
        let y = match compliant(ts, inter, &local(q_hat), offset) {
            Some(linearisation) => linearisation?.y0,
            None => inter.output(&local(q_hat), &z, t_k)?,
        };
        // (A settling span tests its plastic rows so, the others by the scheme.)
        let active = match span.closed {
            Some(tol) if span.plastic.is_empty() || span.plastic.contains(&index) => {
                y[0] + tol * ydot_k[0].min(0.0) <= 0.0
            }
            _ => osi.is_active(y[0], ydot_k[0], h),
        };
        if active {
            let (scale, constant) = if let Some(linearisation) = compliant(ts, inter, &local(&q_pred), offset) {
                let y_pred = linearisation?.y0;
                (h * osi.theta, y_pred + ydot_k * (h * (1.0 - osi.theta)))
            } else if span.plastic.contains(&index) {
                (1.0, DVector::zeros(inter.size()))
            } else {
                (1.0, inter.law.impact_term(&ydot_k))
            };
            rows.push(ActiveRow {
                index,
                offset,
                scale,
                constant,
                equality: false,
            });
        }
        offset += inter.size();
    }
    Ok(rows)
}

/// G(q) of the active rows, each row block scattered onto all coordinates (m × n).
fn active_jacobian(ts: &SceneState, rows: &[ActiveRow], q: &DVector<f64>, t: f64) -> Result<DMatrix<f64>> {
    let interactions = ts.nsds.interactions();
    let m: usize = rows.iter().map(|r| interactions[r.index].size()).sum();
    let mut hmat = DMatrix::zeros(m, q.len());
    let mut r0 = 0;
    for row in rows {
        let inter = &interactions[row.index];
        let idx = ts.indices(inter);
        let local = SceneState::gather(&idx, q);
        let g = match compliant(ts, inter, &local, row.offset) {
            Some(linearisation) => linearisation?.g0,
            None => inter.jacobian(&local, &ts.z_of(inter), t)?,
        };
        for (c, &i) in idx.iter().enumerate() {
            hmat.view_mut((r0, i), (inter.size(), 1)).copy_from(&g.column(c));
        }
        r0 += inter.size();
    }
    Ok(hmat)
}

/// A compliant interaction's linearisation (y₀, G0, D) at its local coordinates `q`, in λ
/// at the step's start λ_k (its rows from `offset`); `None` if it is not compliant.
fn compliant(
    ts: &SceneState,
    inter: &Interaction,
    q: &DVector<f64>,
    offset: usize,
) -> Option<Result<CompliantLinearisation>> {
    let lambda_k = ts.lambda.rows(offset, inter.size()).into_owned();
    inter.relation.compliant_at(q, &lambda_k, &ts.z_of(inter))
}
