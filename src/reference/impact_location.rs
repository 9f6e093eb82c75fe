//! Impacts at their times inside a Moreau–Jean step.
//!
//! A located step from t_k to t_{k+1} = t_k + h:
//! 1. **Trial**: a Moreau–Jean step over what is left of the step, with the unilateral
//!    interactions open at its start left out of its problem: their free motion. Open: y above
//!    its rounding floor φ ([`rounding_floor`]; within it, y's sign is noise: a contact at
//!    rest, which the scheme's own test holds), or separating (ẏ > 0) just after a located
//!    impact (its flight's return).
//! 2. If one of them closes in the trial (its cubic Hermite interpolant from y, ẏ at both
//!    ends goes from y > 0 to y ≤ 0), the first crossing time τ* is found: the Hermite root
//!    first, then a safeguarded Newton iteration on the gap at the end of trial steps of
//!    length τ, kept on the closed side (y ≤ 0, |y| ≤ tol |ẏ| + 2 φ, tol = [`TIME_TOLERANCE`] · h,
//!    φ the rounding floor of y: [`rounding_floor`]), so that the impacting row is closed when
//!    the impact is applied.
//! 3. **Impact**: the trial step of length τ* is kept, then a zero-length Moreau–Jean step
//!    applies the impact at t_k + τ*: W = M, v_free = v⁻ and the problem over every row with
//!    y + tol · min(ẏ, 0) ≤ 0 (rows closing within the tolerance take part: simultaneous
//!    impacts are solved together), `0 ≤ λ ⟂ H M⁻¹Hᵀ λ + H v⁻ + e H v⁻ + ∂h/∂t ≥ 0` with friction
//!    where the law has it — Moreau's impact law at t*.
//! 4. The rest of the step starts again at 1.
//!
//! **Accumulations of impacts** (a ball coming to rest: flights e, e², … shorter each time)
//! are passed, not stalled in: a flight after an impact shorter than [`MIN_FLIGHT`] · h (a
//! touch-down slower than such a flight gains), or a contact's impact past
//! [`MAX_IMPACTS_PER_CONTACT`] in one step, ends its accumulation — the remaining flights sum
//! to less than 2e · MIN_FLIGHT · h / (1 − e); the cap has no such bound — and the contact
//! settles over the rest of the step:
//! a Moreau–Jean step whose problem holds the closed rows, that contact's without restitution.
//! Past [`MAX_LOCATED_IMPACTS`] impacts in one step, its rest is plain Moreau–Jean. Open rows
//! crossing in the rest of a step that settled are the next step's (late by up to h).
//!
//! For constant forces and θ = ½ the trial's gaps are exact quadratics in τ, so the Hermite
//! root is the crossing time to rounding; otherwise a trial step over τ is the scheme's own
//! motion, second order in τ, and so are the impact times. The step's p and λ are the sums
//! over its sub-steps and impacts (the step's percussion), as Moreau–Jean's λ is the step's.
//!
//! Here: the located step and its walk; in `crossing` the first crossing after a trial (step 2).

use std::collections::BTreeMap;

use nalgebra::DVector;
use num_traits::Float;

use super::integrator::{StepReport, StepSettings};
use super::moreau_jean::{Span, step_over};
use super::state::{LocatedImpact, SceneState};
use crate::error::{Error, Result};
use crate::model::Interaction;
use crate::scheme::{MoreauJeanOSI, Stabilization};

mod crossing;

use crossing::{Crossing, crossing};

/// Impacts located in one step on one contact, at most: one more is an accumulation of
/// impacts cut short, and the contact settles over the rest of the step.
pub const MAX_IMPACTS_PER_CONTACT: usize = 64;

/// Impacts located in one step, at most; the rest of the step is plain Moreau–Jean.
pub const MAX_LOCATED_IMPACTS: usize = 256;

/// The tolerance on an impact time, relative to h.
pub const TIME_TOLERANCE: f64 = 1e-12;

/// Trial steps spent on one crossing, at most (Newton reaches the tolerance in one to three
/// where the interpolant is good; then the closed end of the bracket is taken).
pub(crate) const MAX_TRIALS: usize = 60;

/// A flight after an impact shorter than this, relative to h, is not located: the contact is
/// settling (an accumulation of impacts ends there) and the scheme takes the rest of the step.
pub const MIN_FLIGHT: f64 = 1e-6;

/// A unilateral interaction whose crossing can be located: its index, its first row in λ,
/// its gap y and rate ẏ (first components) at the start of the sub-step, and the rounding
/// floor of y ([`rounding_floor`]).
#[derive(Clone, Copy, Debug)]
struct Gap {
    index: usize,
    row: usize,
    y: f64,
    ydot: f64,
    floor: f64,
}

/// Ulps of its terms within which a gap's sign is rounding: [`rounding_floor`].
pub(crate) const FLOOR_ULPS: f64 = 4.0;

/// The rounding floor of a gap y = h(q) with first Jacobian row G: 4 ε (|y| + Σⱼ |Gⱼ qⱼ|),
/// the size of the rounding in y from its terms (a ball's gap z − R near rest is known to
/// ε z, however small it is). Within it, y's sign is noise: a trial that ends closed within
/// two floors of the crossing is at the crossing, where |y| ≤ tol |ẏ| would ask for more
/// digits than y has once |ẏ| is small (an accumulation of impacts).
#[inline(always)]
pub(crate) fn rounding_floor<T: Float>(y: T, terms: T) -> T {
    T::from(FLOOR_ULPS).unwrap_or_else(T::nan) * T::epsilon() * (y.abs() + terms)
}

/// The state a sub-step starts from, to go back to between trials.
struct Start {
    q: DVector<f64>,
    v: DVector<f64>,
}

impl Start {
    fn of(ts: &SceneState) -> Self {
        Self {
            q: ts.q.clone(),
            v: ts.v.clone(),
        }
    }

    fn restore(&self, ts: &mut SceneState) {
        ts.q.copy_from(&self.q);
        ts.v.copy_from(&self.v);
    }
}

/// The step's percussion and report, summed over its sub-steps.
struct Sums {
    p: DVector<f64>,
    lambda: DVector<f64>,
    report: StepReport,
}

impl Sums {
    fn add(&mut self, ts: &SceneState, report: StepReport) {
        self.p += &ts.p;
        self.lambda += &ts.lambda;
        let r = &mut self.report;
        r.newton_iterations = r.newton_iterations.max(report.newton_iterations);
        r.newton_residual = r.newton_residual.max(report.newton_residual);
        r.active = r.active.max(report.active);
        r.missed_tolerance |= report.missed_tolerance;
        // The worst solve of the step stands for it.
        r.lcp = match (r.lcp, report.lcp) {
            (Some(a), Some(b)) if b.residual > a.residual || !b.converged => Some(b),
            (None, b) => b,
            (a, _) => a,
        };
    }
}

/// Whether an interaction's crossings are located: a unilateral law on a Lagrangian relation.
fn locatable(inter: &Interaction) -> bool {
    !inter.law.is_equality() && inter.relation.is_lagrangian() && inter.relation.is_active()
}

/// Refuses what sub-steps and a zero-length impact step cannot hold: compliant relations
/// (no impact time: their force acts over the step, D/h) and Baumgarte stabilisation (its
/// β c(q)/h would act over each sub-step, however short).
pub(super) fn check(ts: &SceneState, settings: &StepSettings) -> Result<()> {
    if ts.nsds.interactions().iter().any(|i| i.relation.is_compliant()) {
        return Err(Error::Unsupported {
            what: "impact location with a compliant relation".into(),
            reason: "a compliant contact has no impact time: its force acts over the step (D/h)".into(),
        });
    }
    if let Stabilization::Baumgarte { .. } = settings.stabilization {
        return Err(Error::Unsupported {
            what: "impact location with Baumgarte stabilisation".into(),
            reason: "its feedback β c(q)/h would act over every sub-step: use projection or none".into(),
        });
    }
    Ok(())
}

/// The located gaps at (q, v, t): every locatable interaction's first y and ẏ.
fn gaps(ts: &SceneState, t: f64) -> Result<Vec<Gap>> {
    let mut out = Vec::new();
    let mut row = 0;
    for (index, inter) in ts.nsds.interactions().iter().enumerate() {
        if locatable(inter) {
            let idx = ts.indices(inter);
            let (q, v, z) = (
                SceneState::gather(&idx, &ts.q),
                SceneState::gather(&idx, &ts.v),
                ts.z_of(inter),
            );
            let y = inter.output(&q, &z, t)?[0];
            let g = inter.jacobian(&q, &z, t)?;
            let terms = g.row(0).iter().zip(q.iter()).map(|(g, q)| (g * q).abs()).sum();
            out.push(Gap {
                index,
                row,
                y,
                ydot: inter.velocity_with(&g, &q, &v, &z, t)?[0],
                floor: rounding_floor(y, terms),
            });
        }
        row += inter.size();
    }
    Ok(out)
}

/// One step of `ts` from t_k to t_{k+1} with its impacts located (see the module's doc):
/// the step's report, and its impacts pushed to `ts.impacts`.
pub(super) fn located_step(ts: &mut SceneState, settings: &StepSettings, osi: MoreauJeanOSI) -> Result<StepReport> {
    let t_end = ts.time_at(ts.k + 1);
    let tol = TIME_TOLERANCE * ts.h;
    let mut t = ts.time();
    let mut sums = Sums {
        p: DVector::zeros(ts.p.len()),
        lambda: DVector::zeros(ts.lambda.len()),
        report: StepReport::default(),
    };
    // Rows an impact left separating at y ≤ 0 (this step's last, or the previous step's) are
    // open too: their next crossing is the return of that flight.
    let mut recent: Vec<usize> = ts.impacts.iter().map(|i| i.row).collect();
    ts.impacts.clear();
    // Located impacts per interaction in this step, and in all.
    let mut counts: BTreeMap<usize, usize> = BTreeMap::new();
    let mut total = 0;
    while t < t_end {
        let length = t_end - t;
        if total >= MAX_LOCATED_IMPACTS {
            let report = step_over(ts, settings, osi, &Span::sub(t, length, &[]))?;
            sums.add(ts, report);
            break;
        }
        let start = Start::of(ts);
        let open: Vec<Gap> = gaps(ts, t)?
            .into_iter()
            .filter(|g| g.y > g.floor || g.ydot > 0.0 && recent.contains(&g.row))
            .collect();
        let excluded: Vec<usize> = open.iter().map(|g| g.index).collect();
        let report = step_over(ts, settings, osi, &Span::sub(t, length, &excluded))?;
        let context = (&start, &open[..], &excluded[..], &recent[..]);
        // (`settles`: None when the contact settles whatever its speed, else the touch-down
        // speed at or below which it does.)
        let (tau, gap, settles) = match crossing(ts, settings, osi, context, (t, length), tol, report)? {
            Crossing::None => {
                sums.add(ts, report);
                break;
            }
            Crossing::TooSoon(gap) => {
                start.restore(ts);
                (0.0, gap, None)
            }
            Crossing::At {
                tau,
                report,
                gap,
                settling_speed,
            } => {
                sums.add(ts, report);
                (tau, gap, Some(settling_speed))
            }
        };
        t = if tau < length { t + tau } else { t_end };
        // The gaps at t*, before the impact (a touch-down's speed is read from them).
        let before = gaps(ts, t)?;
        let settles = settles.is_none_or(|settling| {
            let speed = before.iter().find(|g| g.index == gap).map_or(0.0, |g| -g.ydot);
            speed <= settling
        });
        let count = counts.entry(gap).or_insert(0);
        *count += 1;
        if settles || *count > MAX_IMPACTS_PER_CONTACT {
            // The accumulation has converged (its remaining flights sum to less than
            // 2e · MIN_FLIGHT · h / (1 − e)), or is cut at the cap: the contact settles plastically
            // over the rest of the step, and the touch-down is no impact.
            if t < t_end {
                let report = step_over(ts, settings, osi, &Span::settling(t, t_end - t, &[gap]))?;
                sums.add(ts, report);
            }
            break;
        }
        // The impact: a zero-length step at t*.
        let report = step_over(ts, settings, osi, &Span::impact(t, tol))?;
        sums.add(ts, report);
        let after = gaps(ts, t)?;
        let impacts: Vec<LocatedImpact> = before
            .iter()
            .zip(&after)
            .filter(|(g, _)| ts.lambda[g.row] > 0.0)
            .map(|(g, a)| LocatedImpact {
                t,
                row: g.row,
                ydot_before: g.ydot,
                ydot_after: a.ydot,
                lambda: ts.lambda[g.row],
            })
            .collect();
        // (A crossing that the law leaves without impulse, a row closing at rest, still counts
        // towards the caps.)
        total += 1;
        recent = impacts.iter().map(|i| i.row).collect();
        ts.impacts.extend(impacts);
    }
    ts.p = sums.p;
    ts.lambda = sums.lambda;
    Ok(sums.report)
}
