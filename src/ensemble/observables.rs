//! What a scenario records while stepping ([`crate::batch::observe`]): `[[observe]]`, the
//! observables, each a summary column; `[strobe]`, stroboscopic samples; `[events]`, impacts.
//!
//! ```toml
//! [[observe]]
//! name = "first_bounce"   # its summary column
//! signal = "v0"           # q<i>, v<i>, y<r>, ydot<r>, lambda<r> or energy
//! reduce = "first_above"  # max, min, final, mean, integral, time_of_max, time_of_min,
//! threshold = 0.0         #   first_above, first_below (the time), ever_above, ever_below
//!                         #   (1 or 0: a flag); these four take a threshold
//! ```

use serde::{Deserialize, Serialize};

use crate::batch::observe::{Observer, Reduce, Signal, Strobe};
use crate::engine::velocity_name;
use crate::error::{Error, Result};
use crate::validate;

/// One `[[observe]]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObserveSpec {
    /// The summary column.
    pub name: String,
    /// `q<i>`, `v<i>` (coordinate, velocity i), `y<r>`, `ydot<r>`, `lambda<r>` (output, its
    /// rate, impulse of row r, rows numbered over the scene's interactions) or `energy`.
    pub signal: String,
    /// The reduction.
    pub reduce: Reduce,
    /// The threshold of `first_above`, `first_below`, `ever_above` and `ever_below`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
}

impl ObserveSpec {
    /// The observer, for scenes of coordinates `coordinates` (their names) and `m` rows.
    pub fn observer(&self, coordinates: &[String], m: usize) -> Result<Observer> {
        let fail = |reason: String| Error::Scenario {
            what: format!("[[observe]] `{}`", self.name),
            reason,
        };
        if !validate::is_identifier(&self.name) {
            return Err(fail(
                "a name is letters, digits and `_`, not starting with a digit".into(),
            ));
        }
        let n = coordinates.len();
        let signal = signal_of(&self.signal, coordinates).ok_or_else(|| {
            fail(format!(
                "signal `{}`: expected a coordinate ({}) or its velocity (`_dot`), q<i>, v<i> (i < {n}), y<r>, ydot<r>, lambda<r> (r < {m}) or energy",
                self.signal,
                coordinates.join(", ")
            ))
        })?;
        let (index, len) = match signal {
            Signal::Q(i) | Signal::V(i) => (i, n),
            Signal::Y(r) | Signal::Ydot(r) | Signal::Lambda(r) => (r, m),
            Signal::Energy => (0, 1),
        };
        if index >= len {
            return Err(fail(format!(
                "signal `{}`: the scenes have {len} (numbered from 0)",
                self.signal
            )));
        }
        let crossing = matches!(
            self.reduce,
            Reduce::FirstAbove | Reduce::FirstBelow | Reduce::EverAbove | Reduce::EverBelow
        );
        let threshold = match (crossing, self.threshold) {
            (true, Some(c)) if c.is_finite() => c,
            (true, _) => {
                return Err(fail(
                    "first_above, first_below, ever_above and ever_below need a finite `threshold`".into(),
                ));
            }
            (false, Some(_)) => {
                return Err(fail(
                    "only first_above, first_below, ever_above and ever_below take a `threshold`".into(),
                ));
            }
            (false, None) => 0.0,
        };
        Ok(Observer {
            signal,
            reduce: self.reduce,
            threshold,
        })
    }
}

/// `[strobe]`: stroboscopic samples, a Poincaré section of a forced system: the state of every
/// scene at `from`, `from + every`, … up to the final time. Both must be whole numbers of
/// steps (within 10⁻⁹ h), so that each sample is a state the engines reach.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrobeSettings {
    /// The period T (s), e.g. the forcing's 2π/ω.
    pub every: f64,
    /// The first sample's time t₀ (s; default 0), e.g. once the transient has died out.
    #[serde(default)]
    pub from: f64,
}

impl StrobeSettings {
    /// The steps of these samples in a run of `total` steps of `h` to `final_time`: whole
    /// numbers of steps, the first within the run.
    pub fn steps(&self, h: f64, total: u32, final_time: f64) -> Result<Strobe> {
        let settings = self;
        let steps = |what: &str, t: f64| -> Result<u32> {
            let k = (t / h).round();
            if !(t.is_finite() && t >= 0.0 && (t / h - k).abs() <= 1e-9 * k.max(1.0)) {
                return Err(Error::Scenario {
                    what: format!("strobe.{what}"),
                    reason: format!(
                        "{t} s is not a whole number of steps h = {h} s (the samples are states the engines reach): make h = {what}/n"
                    ),
                });
            }
            Ok(k as u32)
        };
        let (first, every) = (steps("from", settings.from)?, steps("every", settings.every)?);
        if every == 0 || first > total {
            return Err(Error::Scenario {
                what: "strobe".into(),
                reason: format!(
                    "every = {} must be > 0 and from = {} within the run (final = {})",
                    settings.every, settings.from, final_time
                ),
            });
        }
        Ok(Strobe {
            first,
            every,
            count: (total - first) / every + 1,
        })
    }
}

/// `[events]`: each impact of every scene — the onset of an impulse on a contact row — with
/// its time, row, ẏ before and after and impulse, at most `max` per scene (those beyond are
/// counted in the summary's `events_dropped`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventSettings {
    /// Events kept per scene (default 32).
    #[serde(default = "default_events")]
    pub max: u32,
}

fn default_events() -> u32 {
    32
}

/// The signal `text` names: a coordinate of `coordinates` (its position) or its velocity
/// ([`velocity_name`]), else [`parse_signal`].
fn signal_of(text: &str, coordinates: &[String]) -> Option<Signal> {
    if let Some(i) = coordinates.iter().position(|c| c == text) {
        return Some(Signal::Q(i));
    }
    if let Some(i) = coordinates.iter().position(|c| velocity_name(c) == text) {
        return Some(Signal::V(i));
    }
    parse_signal(text)
}

/// Whether `text` is a signal of the grammar (`q3`, `ydot0`, `energy`, …).
pub(super) fn is_signal(text: &str) -> bool {
    parse_signal(text).is_some()
}

/// `q3` → `Signal::Q(3)`, …; `None` for anything else.
fn parse_signal(text: &str) -> Option<Signal> {
    if text == "energy" {
        return Some(Signal::Energy);
    }
    let split = text.find(|c: char| c.is_ascii_digit())?;
    let (kind, index) = text.split_at(split);
    // Plain decimal digits only (no sign, no leading zeros).
    if !index.chars().all(|c| c.is_ascii_digit()) || (index.len() > 1 && index.starts_with('0')) {
        return None;
    }
    let index: usize = index.parse().ok()?;
    Some(match kind {
        "q" => Signal::Q(index),
        "v" => Signal::V(index),
        "y" => Signal::Y(index),
        "ydot" => Signal::Ydot(index),
        "lambda" => Signal::Lambda(index),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(signal: &str, reduce: Reduce, threshold: Option<f64>) -> ObserveSpec {
        ObserveSpec {
            name: "x".into(),
            signal: signal.into(),
            reduce,
            threshold,
        }
    }

    fn unnamed(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("q{i}")).collect()
    }

    #[test]
    fn signals_parse_and_are_range_checked() {
        let o = spec("ydot2", Reduce::Max, None).observer(&unnamed(4), 3).unwrap();
        assert_eq!(o.signal, Signal::Ydot(2));
        assert_eq!(
            spec("energy", Reduce::Max, None)
                .observer(&unnamed(1), 1)
                .unwrap()
                .signal,
            Signal::Energy
        );
        for bad in ["q", "q-1", "q01", "x0", "lambda", "v 1", "Q0"] {
            let e = spec(bad, Reduce::Max, None)
                .observer(&unnamed(4), 3)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("signal `{bad}`")) && e.contains("q<i>, v<i>"),
                "{e}"
            );
        }
        let e = spec("y3", Reduce::Max, None)
            .observer(&unnamed(4), 3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`x`") && e.contains("have 3"), "{e}");
    }

    #[test]
    fn coordinates_are_signals_by_name() {
        let names: Vec<String> = ["x", "theta"].map(String::from).to_vec();
        let signal = |text: &str| spec(text, Reduce::Max, None).observer(&names, 1).map(|o| o.signal);
        assert_eq!(signal("theta").unwrap(), Signal::Q(1));
        assert_eq!(signal("x_dot").unwrap(), Signal::V(0));
        assert_eq!(signal("q1").unwrap(), Signal::Q(1));
        assert_eq!(signal("v0").unwrap(), Signal::V(0));
        let e = signal("z").unwrap_err().to_string();
        assert!(e.contains("signal `z`") && e.contains("x, theta"), "{e}");
    }

    #[test]
    fn thresholds_go_with_crossings_only() {
        assert!(spec("q0", Reduce::FirstAbove, None).observer(&unnamed(1), 1).is_err());
        assert!(
            spec("q0", Reduce::FirstBelow, Some(f64::NAN))
                .observer(&unnamed(1), 1)
                .is_err()
        );
        assert!(spec("q0", Reduce::Max, Some(1.0)).observer(&unnamed(1), 1).is_err());
        let o = spec("q0", Reduce::FirstBelow, Some(-2.0))
            .observer(&unnamed(1), 1)
            .unwrap();
        assert_eq!(o.threshold, -2.0);
    }
}
