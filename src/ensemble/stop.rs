//! `[stop]`: run until the answer is precise enough. The scenario's `scenes` becomes a cap;
//! the run tests its targets at fixed scene counts — `min_scenes`, then every `every` scenes
//! — and stops at the first test where every target's mean is known to its 95 % interval's
//! half-width:
//!
//! ```toml
//! [stop]
//! min_scenes = 2000        # the first test (at least 2)
//! every = 1000             # scenes between tests (default: min_scenes)
//! max_scenes = 100000      # the cap (or the scenario's `scenes`)
//! [[stop.target]]
//! column = "first_impact_time"
//! half_width = 1e-4        # t_{0.975, n−1} s/√n ≤ 1e-4 ...
//! [[stop.target]]
//! column = "impacts"
//! relative = 0.01          # ... and ≤ 1 % of |mean|
//! ```
//!
//! The test points do not depend on the chunking (the chunks are cut at them), and the test
//! at n scenes reads scenes 0..n only, so the same seed gives the same N and the same files
//! whatever the chunking, the thread count or the backend's chunk size, and resumed or not.
//! A sharded run cannot test (no shard sees the scenes before a test point): a stop rule with
//! `--shard` is refused; run the study once, or give its N as `scenes` to shard it.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::design::Design;
use super::intervals;
use super::table::Table;
use crate::error::{Error, Result};

/// `[stop]`: when a run has enough scenes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopRule {
    /// The scenes of the first test (at least 2: an interval needs two values).
    pub min_scenes: usize,
    /// Scenes between two tests (default `min_scenes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<usize>,
    /// The most scenes: read into the scenario's `scenes` (which it must equal when both
    /// are given), the cap the run stops at when the targets are not met.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_scenes: Option<usize>,
    /// `[[stop.target]]`: every one must be met.
    pub target: Vec<Target>,
}

/// `[[stop.target]]`: how well one column's mean must be known.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// A summary column (a drawn parameter, an observable, `impacts`, …).
    pub column: String,
    /// The largest half-width of the mean's 95 % interval, in the column's unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_width: Option<f64>,
    /// The largest half-width as a share of |mean|.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative: Option<f64>,
}

/// What a stop rule decided (`run.json`'s `stop`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stopped {
    /// The scenes run.
    pub scenes: usize,
    /// The cap.
    pub max_scenes: usize,
    /// Whether every target was met (else the cap was reached first).
    pub met: bool,
    /// Each target at the last test.
    pub targets: Vec<Reached>,
}

/// A target at a test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reached {
    /// The column.
    pub column: String,
    /// Its finite values.
    pub count: usize,
    /// Their mean (`None` without a value).
    pub mean: Option<f64>,
    /// The half-width of the mean's 95 % interval (`None` below two values).
    pub half_width: Option<f64>,
    /// The half-width wanted: `half_width`, or `relative` × |mean| (`None` without a mean).
    pub wanted: Option<f64>,
    /// half_width ≤ wanted.
    pub met: bool,
}

impl StopRule {
    /// Checks the numbers of a rule capped at `scenes`.
    pub fn validate(&self, scenes: usize) -> Result<()> {
        let wrong = |what: &str, reason: String| {
            Err(Error::Scenario {
                what: format!("[stop] {what}"),
                reason,
            })
        };
        if let Some(max) = self.max_scenes.filter(|&max| max != scenes) {
            return wrong(
                "max_scenes",
                format!("{max}, but the scenario's `scenes` is {scenes}: give the cap once"),
            );
        }
        if self.min_scenes < 2 {
            return wrong(
                "min_scenes",
                format!("{}: at least 2 (an interval needs two values)", self.min_scenes),
            );
        }
        if self.min_scenes > scenes {
            return wrong(
                "min_scenes",
                format!("{} is more than the cap of {scenes} scenes", self.min_scenes),
            );
        }
        match self.every {
            Some(0) => return wrong("every", "must be at least 1 scene".into()),
            Some(every) if every > scenes => {
                return wrong("every", format!("{every} is more than the cap of {scenes} scenes"));
            }
            _ => {}
        }
        if self.target.is_empty() {
            return wrong(
                "target",
                "none given: add a [[stop.target]] with a `column` and its `half_width` or `relative`".into(),
            );
        }
        for t in &self.target {
            let what = format!("target `{}`", t.column);
            match (t.half_width, t.relative) {
                (Some(w), None) | (None, Some(w)) if w.is_finite() && w > 0.0 => {}
                (Some(_), Some(_)) | (None, None) => {
                    return wrong(&what, "give one of `half_width` and `relative`".into());
                }
                (Some(w), None) | (None, Some(w)) => {
                    return wrong(&what, format!("{w}: a half-width must be finite and > 0"));
                }
            }
        }
        Ok(())
    }

    /// Scenes between two tests.
    fn every(&self) -> usize {
        self.every.unwrap_or(self.min_scenes)
    }

    /// The first test point after `at` scenes, for a cap of `scenes`: min_scenes + k every,
    /// or the cap.
    pub fn next_test(&self, at: usize, scenes: usize) -> usize {
        let test = match at.checked_sub(self.min_scenes) {
            None => self.min_scenes,
            Some(past) => at.saturating_add(self.every() - past % self.every()),
        };
        test.min(scenes)
    }
}

/// A stop rule testing a run's rows as they come ([`StopRule`]).
pub struct StopTest<'a> {
    rule: &'a StopRule,
    /// The targets' columns in the summary.
    columns: Vec<usize>,
    moments: Vec<Moments>,
    /// The cap.
    scenes: usize,
    /// The scenes added so far.
    at: usize,
}

impl<'a> StopTest<'a> {
    /// The test of `rule` over a run of `scenes` (which must be all of them, 0..`cap`) whose
    /// summary has `columns`; refused where the design could not stop early: a Latin hypercube (its
    /// strata cover all N scenes only together), or test points that cut a block of the design (a
    /// pass over a grid, a Saltelli group).
    pub fn new(
        rule: &'a StopRule,
        columns: &[String],
        (scenes, cap): (&Range<usize>, usize),
        design: Option<&Design>,
    ) -> Result<Self> {
        let wrong = |what: String, reason: String| Error::Scenario {
            what: format!("[stop] {what}"),
            reason,
        };
        if *scenes != (0..cap) {
            return Err(wrong(
                "with a shard".into(),
                format!(
                    "a stop rule tests scenes 0..n, which the shard of scenes {scenes:?} (of 0..{cap}) does not hold: run without --shard, or give the N the rule found as `scenes` and remove [stop]"
                ),
            ));
        }
        if let Some(design) = design {
            if design.latin_hypercube() {
                return Err(wrong(
                    "with a Latin hypercube".into(),
                    "an `lhs` design covers its strata only with all its scenes: use `sobol` (any prefix of it is spread out) or remove [stop]".into(),
                ));
            }
            let block = design.block();
            let every = rule.every();
            if !(rule.min_scenes.is_multiple_of(block) && every.is_multiple_of(block)) {
                return Err(wrong(
                    "min_scenes and every".into(),
                    format!(
                        "{} and {every} must be whole blocks of the design's {block} scenes (a pass over a grid, a Saltelli group), so that each test sees whole blocks",
                        rule.min_scenes
                    ),
                ));
            }
        }
        let columns = rule
            .target
            .iter()
            .map(|t| match columns.iter().position(|c| *c == t.column) {
                Some(j) => Ok(j),
                None => Err(wrong(
                    format!("target `{}`", t.column),
                    format!("not a summary column (they are: {})", columns.join(", ")),
                )),
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            rule,
            columns,
            moments: vec![Moments::default(); rule.target.len()],
            scenes: scenes.end,
            at: 0,
        })
    }

    /// The next test point: no chunk may cross it.
    pub fn next_test(&self) -> usize {
        self.rule.next_test(self.at, self.scenes)
    }

    /// Adds the `rows` of the next scenes (in scene order) and, where they end on a test
    /// point, tests: what was decided when the run stops there, `None` while it goes on.
    pub fn add(&mut self, rows: &Table) -> Result<Option<Stopped>> {
        let test = self.next_test();
        for i in 0..rows.rows() {
            let row = rows.row(i);
            for (m, &j) in self.moments.iter_mut().zip(&self.columns) {
                m.push(row[j]);
            }
        }
        self.at += rows.rows();
        if self.at > test {
            return Err(Error::Scenario {
                what: "[stop]".into(),
                reason: format!(
                    "scenes {}..{} cross the test point {test}: kept chunks of a run with another stop rule?",
                    self.at - rows.rows(),
                    self.at
                ),
            });
        }
        if self.at < test {
            return Ok(None);
        }
        let targets: Vec<Reached> = self
            .rule
            .target
            .iter()
            .zip(&self.moments)
            .map(|(t, m)| m.reached(t))
            .collect();
        let met = targets.iter().all(|t| t.met);
        Ok((met || self.at >= self.scenes).then_some(Stopped {
            scenes: self.at,
            max_scenes: self.scenes,
            met,
            targets,
        }))
    }
}

/// Count, mean and sum of squared deviations of the finite values seen, updated one value at
/// a time in scene order (Welford, Technometrics 4:419, 1962): the same bits whatever the
/// chunks, and the same mean and deviation as `stats.json`'s to rounding; also whether every
/// value so far is 0 or 1 (a flag) and how many are 1, and whether they all are equal.
#[derive(Clone, Copy, Debug)]
struct Moments {
    n: usize,
    mean: f64,
    m2: f64,
    ones: usize,
    flag: bool,
    first: f64,
    varied: bool,
}

impl Default for Moments {
    fn default() -> Self {
        Self {
            n: 0,
            mean: 0.0,
            m2: 0.0,
            ones: 0,
            flag: true,
            first: f64::NAN,
            varied: false,
        }
    }
}

impl Moments {
    /// x̄_n = x̄_{n−1} + (x − x̄_{n−1})/n, M_n = M_{n−1} + (x − x̄_{n−1})(x − x̄_n).
    fn push(&mut self, x: f64) {
        if !x.is_finite() {
            return;
        }
        if self.n == 0 {
            self.first = x;
        }
        self.varied |= x != self.first;
        self.flag &= x == 0.0 || x == 1.0;
        self.ones += usize::from(x == 1.0);
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// `target` at these moments: the half-width of the mean's 95 % interval — Student's
    /// t_{0.975, n−1} √(M/(n − 1)) / √n, or for a flag half of Wilson's interval of its
    /// probability (as `stats.json` gives them) — against the one wanted. Values that are all
    /// equal so far meet nothing: their interval has no width, yet the next scene may differ
    /// (a rare event not seen yet).
    fn reached(&self, target: &Target) -> Reached {
        let mean = (self.n > 0).then_some(self.mean);
        let [lo, hi] = if self.flag && self.n > 0 {
            intervals::probability_interval(self.ones, self.n)
        } else {
            let std = if self.n < 2 {
                f64::NAN
            } else {
                (self.m2 / (self.n - 1) as f64).sqrt()
            };
            intervals::mean_interval(self.n, self.mean, std)
        };
        let half_width = Some((hi - lo) / 2.0).filter(|w| w.is_finite());
        let wanted = match (target.half_width, target.relative) {
            (Some(w), _) => Some(w),
            (None, Some(r)) => mean.map(|m| r * m.abs()),
            (None, None) => None,
        };
        Reached {
            column: target.column.clone(),
            count: self.n,
            mean,
            half_width,
            wanted,
            met: self.varied && half_width.zip(wanted).is_some_and(|(w, wanted)| w <= wanted),
        }
    }
}

#[cfg(test)]
mod tests;
