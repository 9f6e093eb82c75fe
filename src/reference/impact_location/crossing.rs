//! The first crossing after a trial step: where the open gaps' Hermite interpolants first
//! close, refined by trial steps of the scheme's own motion until the crossing time is
//! known to the tolerance.

use super::{Gap, MAX_TRIALS, MIN_FLIGHT, Start, gaps};
use crate::error::Result;
use crate::reference::hermite_root::first_root;
use crate::reference::integrator::{StepReport, StepSettings};
use crate::reference::moreau_jean::{Span, step_over};
use crate::reference::state::SceneState;
use crate::scheme::MoreauJeanOSI;

/// What the trial over the rest of a step found.
pub(super) enum Crossing {
    /// No open gap closes: the trial stands.
    None,
    /// The first crossing, at τ* from the sub-step's start (`ts` advanced to it by a trial
    /// step of that length, whose report this is), of the interaction `gap`; a
    /// touch-down at or below `settling_speed` (the speed a flight of [`MIN_FLIGHT`] · h
    /// gains at the gap's acceleration in the trial) settles the contact.
    At {
        tau: f64,
        report: StepReport,
        gap: usize,
        settling_speed: f64,
    },
    /// The interaction an impact left separating closes again within [`MIN_FLIGHT`] · h: it
    /// settles.
    TooSoon(usize),
}

/// After the trial step over `length` (its `report`), where its open gaps first close.
#[allow(clippy::too_many_arguments)]
pub(super) fn crossing(
    ts: &mut SceneState,
    settings: &StepSettings,
    osi: MoreauJeanOSI,
    (start, open, excluded, recent): (&Start, &[Gap], &[usize], &[usize]),
    (t, length): (f64, f64),
    tol: f64,
    report: StepReport,
) -> Result<Crossing> {
    if open.is_empty() {
        return Ok(Crossing::None);
    }
    let end = gaps_of(ts, t + length, open)?;
    // The first Hermite root over the open gaps, and the gap it belongs to.
    let first = open
        .iter()
        .zip(&end)
        .filter_map(|(g, e)| {
            let acceleration = (e.ydot - g.ydot) / length;
            first_root(g.y, g.ydot * length, e.y, e.ydot * length).map(|s| (s, *g, acceleration))
        })
        .reduce(|a, b| if b.0 < a.0 { b } else { a });
    let Some((guess, gap, acceleration)) = first else {
        // A row an impact left at y ≤ 0, separating too slowly to rise above 0, that ends
        // the trial closed: its flight is below resolution, and it settles.
        let sinking = open.iter().zip(&end).find(|(g, e)| g.y <= 0.0 && e.y <= 0.0);
        return Ok(sinking.map_or(Crossing::None, |(g, _)| Crossing::TooSoon(g.index)));
    };
    if guess * length < MIN_FLIGHT * ts.h && recent.contains(&gap.row) {
        return Ok(Crossing::TooSoon(gap.index));
    }
    // The crossing followed is that gap's (the others close later, by their interpolants).
    let of_gap = |gaps: &[Gap]| {
        gaps.iter()
            .find(|g| g.index == gap.index)
            .map_or((f64::NAN, 0.0, 0.0), |g| (g.y, g.ydot, g.floor))
    };
    let closed_end = of_gap(&end).0 <= 0.0;
    let trial = |ts: &mut SceneState, tau: f64| -> Result<(f64, f64, f64, StepReport)> {
        start.restore(ts);
        let report = step_over(ts, settings, osi, &Span::sub(t, tau, excluded))?;
        let (y, ydot, floor) = of_gap(&gaps_of(ts, t + tau, open)?);
        Ok((y, ydot, floor, report))
    };
    // [a, b]: the gap is open at a, closed at b (b = None: not seen closed yet).
    let (mut a, mut b) = (0.0, closed_end.then_some((length, report)));
    let mut tau = guess * length;
    let mut last = None;
    for _ in 0..MAX_TRIALS {
        let (y, ydot, floor, report) = trial(ts, tau)?;
        if y <= 0.0 {
            b = Some((tau, report));
            if -y <= tol * -ydot.min(0.0) + 2.0 * floor {
                last = Some(tau);
                break;
            }
        } else {
            a = tau;
        }
        let hi = b.map_or(length, |(b, _)| b);
        if hi - a <= f64::EPSILON * hi {
            break;
        }
        if b.is_none() && ydot >= 0.0 {
            // Open and opening, never seen closed: a graze of the interpolant.
            break;
        }
        // Newton on the gap; from the open side half a tolerance and a rounding floor's time
        // past the root, so that the next trial lands closed.
        let newton = if ydot < 0.0 {
            tau - y / ydot + if y > 0.0 { tol / 2.0 - floor / ydot } else { 0.0 }
        } else {
            f64::NAN
        };
        tau = if newton > a && newton < hi {
            newton
        } else {
            0.5 * (a + hi)
        };
    }
    let Some((b, report)) = b else {
        // The trial over the whole length stands.
        start.restore(ts);
        step_over(ts, settings, osi, &Span::sub(t, length, excluded))?;
        return Ok(Crossing::None);
    };
    if last != Some(b) {
        trial(ts, b)?;
    }
    Ok(Crossing::At {
        tau: b,
        report,
        gap: gap.index,
        settling_speed: MIN_FLIGHT * ts.h * acceleration.abs(),
    })
}

/// The open gaps' y and ẏ at the state `ts` holds, at time t.
fn gaps_of(ts: &SceneState, t: f64, open: &[Gap]) -> Result<Vec<Gap>> {
    let all = gaps(ts, t)?;
    Ok(open
        .iter()
        .map(|g| *all.iter().find(|a| a.index == g.index).expect("an open gap is a gap"))
        .collect())
}
