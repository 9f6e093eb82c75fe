//! The reference engine: the dense f64 [`TimeStepping`] on each scene (scenes in parallel,
//! any solver), with the batched engines' health: contact onsets, the deepest penetration on
//! contact rows, the worst LCP residual and the most iterations of a step.
//!
//! Lagrangian scenes run Moreau–Jean with the job's θ (or nonsmooth RATTLE where the job
//! says so); first-order scenes (circuits,
//! controllers) run Euler–Moreau with the same θ, their state laid out as (x, ẋ): the
//! "velocity" of a first-order coordinate is its rate ẋ = M⁻¹ (f + r). A nonlinear one's
//! Newton loop stops at the job's tolerance (absolute, 1e-12 unless the scenario names one);
//! resumed from a saved state (a recorded trajectory's segments), it starts without the
//! loop's memory of the last step (h_α, g_α), so a trajectory agrees with the unbroken run
//! to that tolerance, not to the bit.

use rayon::prelude::*;

use super::{BatchOutcome, Engine, Job, Scene};
use crate::batch::layout::{EXTREMES, HealthCounters, NON_FINITE, NOT_CONVERGED};
use crate::batch::observe::{self, SLOTS, Signal, accumulate};
use crate::batch::progress::TICK;
use crate::error::{Error, Result};
use crate::numerics::SolverOptions;
use crate::numerics::friction::{FrictionOptions, cone};
use crate::reference::{Integrator, TimeStepping};
use crate::scheme::{EulerMoreauOSI, LagrangianIntegrator, NonsmoothRattleOSI};

/// [`TimeStepping`] per scene, in f64.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReferenceEngine;

impl Engine for ReferenceEngine {
    fn name(&self) -> &'static str {
        "reference"
    }

    fn describe(&self) -> String {
        format!("reference {} threads f64", rayon::current_num_threads())
    }

    fn double(&self) -> bool {
        true
    }

    fn run(&self, job: &Job<'_>) -> Result<BatchOutcome> {
        job.check()?;
        let (offsets, _) = job.offsets();
        let per_scene: Vec<SceneOutcome> = job
            .scenes
            .par_iter()
            .zip(&offsets)
            .enumerate()
            .map(|(s, (scene, &at))| run_scene(job, (s, *scene), at))
            .collect::<Result<_>>()?;
        let mut outcome = BatchOutcome {
            state: Vec::new(),
            counters: Vec::new(),
            extremes: Vec::new(),
            observed: Vec::new(),
            impact_times: Vec::new(),
            device_seconds: None,
        };
        for (state, counters, extremes, observed, impact_time) in per_scene {
            outcome.state.extend(state);
            outcome.counters.push(counters);
            outcome.extremes.extend(extremes);
            outcome.observed.extend(observed);
            if job.locate_impacts {
                outcome.impact_times.push(impact_time);
            }
        }
        Ok(outcome)
    }
}

/// What one scene's run leaves: its final q, v, counters, extremes, observers' accumulators
/// and the located time of its last impact (NaN without one, or without location).
type SceneOutcome = (Vec<f64>, HealthCounters, [f64; EXTREMES], Vec<f64>, f64);

/// Scene `s` of the job's run; `at` is where its q, v start in the job's start state.
fn run_scene(job: &Job<'_>, (s, scene): (usize, &dyn Scene), at: usize) -> Result<SceneOutcome> {
    let (nsds, n) = (scene.nsds()?, scene.dof());
    observe::check(&job.recording.observers, s, n, nsds.gap_rows().len())?;
    // Impacts and penetration are counted on gap rows: not on equalities, nor on the
    // tangent rows of friction contacts.
    let (gaps, contacts) = (nsds.gap_rows(), nsds.friction_contacts());
    let t0 = job.start.map_or(0.0, |(t0, _)| t0);
    let first_order = nsds.systems().any(|(_, ds)| !ds.is_lagrangian());
    let integrator = if first_order {
        Integrator::EulerMoreau(EulerMoreauOSI::new(job.osi.theta)?)
    } else if job.integrator == LagrangianIntegrator::Rattle {
        Integrator::NonsmoothRattle(NonsmoothRattleOSI::default())
    } else {
        Integrator::MoreauJean(job.osi)
    };
    let mut sim = TimeStepping::new(nsds, integrator, t0, job.step)?;
    sim.stabilization = job.stabilization;
    sim.locate_impacts = job.locate_impacts;
    if job.locate_impacts {
        // Refused here, naming the scene, rather than flagged at its first step.
        sim.check_impact_location()
            .map_err(|e| e.in_place(&format!("scene {}", job.first_scene + s)))?;
    }
    if let Some((_, state)) = job.start {
        // (A first-order scene's state is x; its ẋ follows.)
        sim.set_state(&state[at..at + if first_order { n } else { 2 * n }])?;
    }
    sim.solver = job.solver;
    if first_order {
        sim.newton.tolerance = job.tolerance(true);
    }
    sim.solver_options = SolverOptions {
        tolerance: job.tolerance(true),
        max_iterations: job.max_iterations as usize,
        omega: job.omega,
        warm_start: false,
    };
    // The scenario's tolerance and iterations hold for friction contacts too.
    sim.friction_options = FrictionOptions {
        tolerance: job.tolerance(true),
        max_iterations: job.max_iterations as usize,
        ..FrictionOptions::default()
    };
    // A step that misses the tolerance goes on, flagged, as on the batched engines.
    sim.lenient = true;
    let mut counters = HealthCounters::default();
    let mut impact_time = f64::NAN;
    let mut extremes = [f64::MIN; EXTREMES];
    // The deepest penetration −y over the gap rows at the start of each step and at the end.
    let penetration = |sim: &TimeStepping, extremes: &mut [f64; EXTREMES]| -> Result<()> {
        let sample = sim.sample()?;
        let deepest = (sample.y.iter().zip(&gaps))
            .filter(|(_, gap)| **gap)
            .map(|(&y, _)| -y)
            .reduce(f64::max);
        if let Some(y) = deepest {
            extremes[1] = extremes[1].max(y);
        }
        Ok(())
    };
    let mut observed: Vec<f64> = job.recording.initial(n, gaps.len());
    // Every observer's signal sampled at the state reached after `k` steps (`accumulate`),
    // the state kept at a stroboscopic step, and the impact events of the step (`rate`: ẏ at
    // its start, the last sample's).
    let m = gaps.len();
    let mut rate = vec![0.0; m];
    // Each observer's signal rate at the last sample (v for q, ẏ for y), to place a
    // first_above/first_below crossing inside its step when impacts are located.
    let mut previous_rate = vec![f64::NAN; job.recording.observers.len()];
    let mut observe = |sim: &TimeStepping, observed: &mut [f64], k: u32| -> Result<()> {
        if job.recording.is_empty() {
            return Ok(());
        }
        let sample = sim.sample()?;
        let rates = if first_order { sim.rates()? } else { sample.v.clone() };
        let observers = &job.recording.observers;
        // (First-order scenes have no ẏ.)
        let ydot = |r: usize| sample.ydot.get(r).copied().unwrap_or(f64::NAN);
        // A time inside the step just taken as a fractional step count.
        let (end, count) = (sim.time(), f64::from(k));
        let count_at = |t: f64| count - (end - t) / job.step;
        // A step of free flight (no located impact, no contact's impulse): a max or min may
        // turn inside it, on the signal's interpolant.
        let contact = sample.lambda.iter().zip(&gaps).any(|(&l, &gap)| gap && l != 0.0);
        let free = job.locate_impacts && k > 0 && sim.last_impacts().is_empty() && !contact;
        for ((observer, slots), previous) in observers.iter().zip(observed.chunks_mut(SLOTS)).zip(&mut previous_rate) {
            let (s, rate) = match observer.signal {
                Signal::Q(i) => (sample.q[i], Some(rates[i])),
                Signal::V(i) => (rates[i], None),
                Signal::Y(r) => (sample.y[r], Some(ydot(r))),
                Signal::Ydot(r) => (ydot(r), None),
                Signal::Lambda(r) => (sample.lambda[r], None),
                Signal::Energy => (sample.energy, None),
            };
            let at = match observer.signal {
                _ if !job.locate_impacts || k == 0 => f64::from(k),
                Signal::Lambda(r) => {
                    let impact = sim.last_impacts().iter().find(|i| i.row == r);
                    let at = impact.map(|i| count_at(i.t));
                    observe::crossing_count(observer, slots, (s, rate, *previous), (f64::from(k), job.step), at)
                }
                _ => observe::crossing_count(observer, slots, (s, rate, *previous), (f64::from(k), job.step), None),
            };
            let turning = free
                .then(|| observe::turning_point(observer, slots[2], (s, rate, *previous), (count, job.step)))
                .flatten();
            accumulate(observer.accumulator(), slots, s, at, job.step, k == 0);
            if let Some(turning) = turning {
                observe::fold_turning(observer.accumulator(), slots, turning);
            }
            *previous = rate.unwrap_or(f64::NAN);
        }
        if let Some(j) = job.recording.strobe.and_then(|strobe| strobe.sample_at(k)) {
            let at = job.recording.sample_at(n, j);
            observed[at..at + n].copy_from_slice(sample.q.as_slice());
            observed[at + n..at + 2 * n].copy_from_slice(rates.as_slice());
        }
        if let (Some(max), true) = (job.recording.events, k > 0) {
            let events = &mut observed[job.recording.events_at(n)..];
            // Every located impact is an event, at its time (a fractional step count); its
            // row is then loaded, so that the onsets below do not count it again.
            for i in sim.last_impacts() {
                observe::push_event(
                    events,
                    m,
                    max as usize,
                    [count_at(i.t), i.row as f64, i.ydot_before, i.ydot_after, i.lambda],
                );
                events[2 + i.row] = 1.0;
            }
            observe::record_events(
                events,
                m,
                max as usize,
                count,
                |r| gaps[r],
                |r| sample.lambda[r],
                |r| rate[r],
                ydot,
            );
        }
        if job.recording.events.is_some() {
            for (r, x) in rate.iter_mut().enumerate() {
                *x = ydot(r);
            }
        }
        Ok(())
    };
    observe(&sim, &mut observed, 0)?;
    let mut reported = 0;
    for k in 0..job.steps {
        if k % TICK == 0 && k > 0 {
            job.progress.add(u64::from(TICK));
            reported += TICK;
            if job.progress.cancelled() {
                break;
            }
        }
        penetration(&sim, &mut extremes)?;
        if let Err(e) = sim.step() {
            if let Error::NotConverged {
                residual, iterations, ..
            } = e
            {
                counters.flags |= NOT_CONVERGED;
                extremes[0] = extremes[0].max(residual);
                counters.max_iterations = counters.max_iterations.max(iterations as u32);
            } else {
                counters.flags |= NON_FINITE;
            }
            break;
        }
        let report = sim.last_report();
        if let Some(lcp) = report.lcp {
            extremes[0] = extremes[0].max(lcp.residual);
            counters.max_iterations = counters.max_iterations.max(lcp.iterations as u32);
            if !lcp.converged {
                counters.flags |= NOT_CONVERGED;
            }
        }
        if report.missed_tolerance {
            counters.flags |= NOT_CONVERGED;
        }
        let lambda = sim.lambda();
        for &(row, d, mu) in &contacts {
            extremes[2] = extremes[2].max(cone::violation(&lambda.as_slice()[row..row + d], mu));
        }
        let onsets = counters.impacts;
        counters.record_contact(lambda.iter().zip(&gaps).any(|(&l, &gap)| gap && l > 0.0));
        if job.locate_impacts {
            // Every located impact counts (one per time: a cradle's chain is one impact), and
            // the last one's time is the last impact time — through an accumulation, where
            // the contact carries an impulse in every step and has no more onsets.
            let located = sim.last_impacts();
            let times = located.windows(2).filter(|w| w[1].t != w[0].t).count() + usize::from(!located.is_empty());
            if let Some(last) = located.last() {
                counters.impacts = onsets + times as u32;
                counters.last_impact = counters.steps;
                impact_time = last.t;
            } else if counters.impacts > onsets {
                // An onset the scheme applied at the step's end.
                impact_time = sim.time();
            }
        }
        observe(&sim, &mut observed, k + 1)?;
    }
    // (A scene stopped by a non-finite step is done too.)
    job.progress.add(u64::from(job.steps - reported));
    penetration(&sim, &mut extremes)?;
    let sample = sim.sample()?;
    let rates = if first_order { sim.rates()? } else { sample.v };
    let state: Vec<f64> = sample.q.iter().chain(rates.iter()).copied().collect();
    if !state.iter().all(|x| x.is_finite()) {
        counters.flags |= NON_FINITE;
    }
    Ok((state, counters, extremes, observed, impact_time))
}
