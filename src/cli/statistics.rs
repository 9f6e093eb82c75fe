//! `ricochet run`'s printed answer: each drawn parameter, observable and impact column with
//! its 95 % interval — the mean's (Student's t) or, for a column of zeros and ones, the
//! probability's (Wilson's) — as `stats.json` gives them.

use ricochet::ensemble::output::RunInfo;
use ricochet::ensemble::sensitivity::Sensitivity;
use ricochet::ensemble::stats::{ColumnStats, Statistics};
use ricochet::ensemble::stop::Stopped;

/// The summary's outcome columns printed after the parameters and observables, and whether
/// each is a flag (printed as a probability).
const OUTCOMES: [(&str, bool); 3] = [("impacts", false), ("last_impact_time", false), ("in_contact", true)];

/// One line per drawn parameter, observable and outcome column of a run (`info`), from its
/// `statistics`. An observable of zeros and ones is a probability, a parameter never is.
pub fn lines(info: &RunInfo, statistics: &Statistics) -> Vec<String> {
    let parameters = info.parameters.iter().map(|n| (n.as_str(), Some(false)));
    let observables = info.observables.iter().map(|n| (n.as_str(), None));
    let outcomes = OUTCOMES.map(|(n, flag)| (n, Some(flag)));
    let columns: Vec<(&str, &ColumnStats, Option<bool>)> = parameters
        .chain(observables)
        .chain(outcomes)
        .filter_map(|(name, flag)| Some((name, statistics.columns.get(name)?, flag)))
        .collect();
    let width = columns.iter().map(|(n, ..)| n.chars().count()).max().unwrap_or(0);
    columns
        .iter()
        .map(|&(name, stats, flag)| {
            let unit = info.units.get(name).map(String::as_str).unwrap_or_default();
            let flag = flag.unwrap_or(stats.probability.is_some());
            format!("  {name:<width$}  {}", line(stats, unit, flag))
        })
        .collect()
}

/// A Saltelli design's answer: for each observable and outcome column that varies, each
/// parameter's first-order and total Sobol index with its 95 % bootstrap interval.
pub fn sensitivity_lines(info: &RunInfo, sensitivity: &Sensitivity) -> Vec<String> {
    let columns: Vec<&str> = info
        .observables
        .iter()
        .map(String::as_str)
        .chain(OUTCOMES.map(|(n, _)| n))
        .filter(|c| sensitivity.contains_key(*c))
        .collect();
    if columns.is_empty() {
        return Vec::new();
    }
    let width = columns.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut lines = vec!["Sobol indices (first order S1, total ST; 95 % bootstrap intervals):".to_string()];
    for column in columns {
        let parts: Vec<String> = info
            .saltelli
            .iter()
            .filter_map(|p| {
                let x = sensitivity[column].get(p)?;
                let interval = |[lo, hi]: [f64; 2]| format!("[{}, {}]", sig(lo, 2), sig(hi, 2));
                Some(format!(
                    "{p} S1 {} {} ST {} {}",
                    sig(x.s1, 3),
                    interval(x.s1_ci95),
                    sig(x.st, 3),
                    interval(x.st_ci95)
                ))
            })
            .collect();
        lines.push(format!("  {column:<width$}  {}", parts.join("; ")));
    }
    lines
}

/// Where `[stop]` ended a run: `stopped at n of at most N scenes: every target met (x: ±w ≤
/// wanted, …)`, or that the cap came first.
pub fn stopped(stop: &Stopped) -> String {
    let targets: Vec<String> = stop
        .targets
        .iter()
        .map(|t| {
            let (w, wanted) = (t.half_width.unwrap_or(f64::NAN), t.wanted.unwrap_or(f64::NAN));
            let sign = if t.met { "≤" } else { "above" };
            format!("{}: ±{} {sign} {}", t.column, sig(w, 2), sig(wanted, 2))
        })
        .collect();
    let verdict = if stop.met {
        "every target met"
    } else {
        "the cap came first"
    };
    format!(
        "stopped at {} of at most {} scenes: {verdict} ({})",
        stop.scenes,
        stop.max_scenes,
        targets.join(", ")
    )
}

/// A flag's `P = p [lo, hi] (95 %)`; a column's `mean ± half-width unit (95 %)`, its standard
/// deviation, median and range, or its one value; then the scenes without a finite value.
fn line(stats: &ColumnStats, unit: &str, flag: bool) -> String {
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    let mut text = match stats.probability_ci95.filter(|_| flag) {
        _ if stats.count == 0 => return format!("no value in any of the {} scenes", stats.missing),
        Some([lo, hi]) => format!("P = {} [{}, {}] (95 %)", sig(stats.mean, 4), sig(lo, 4), sig(hi, 4)),
        None if stats.min == stats.max => format!("{}{unit} in every scene", sig(stats.min, 4)),
        None => {
            let [lo, hi] = stats.mean_ci95;
            let median = stats.quantiles.get("0.5").copied().unwrap_or(f64::NAN);
            format!(
                "{} ± {}{unit} (95 %), std {}, median {}, range [{}, {}]",
                sig(stats.mean, 4),
                sig(0.5 * (hi - lo), 2),
                sig(stats.std, 4),
                sig(median, 4),
                sig(stats.min, 4),
                sig(stats.max, 4)
            )
        }
    };
    if stats.missing > 0 {
        text.push_str(&format!("; {} scenes without a value", stats.missing));
    }
    text
}

/// `x` to `digits` significant digits: fixed-point from 10⁻³ to 10⁵, else in exponent
/// form; `—` for NaN (a statistic undefined for so few scenes).
fn sig(x: f64, digits: i32) -> String {
    let magnitude = x.abs();
    if x.is_nan() {
        "—".into()
    } else if x == 0.0 || !x.is_finite() {
        format!("{x}")
    } else if (1e-3..1e5).contains(&magnitude) {
        let decimals = (digits - 1 - magnitude.log10().floor() as i32).max(0) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.*e}", (digits - 1).max(0) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::sig;

    #[test]
    fn significant_digits() {
        assert_eq!(sig(1.23456, 4), "1.235");
        assert_eq!(sig(0.0123456, 4), "0.01235");
        assert_eq!(sig(0.0123456, 2), "0.012");
        assert_eq!(sig(12345.6, 4), "12346");
        assert_eq!(sig(1.5e-7, 4), "1.500e-7");
        assert_eq!(sig(0.0, 4), "0");
        assert_eq!(sig(f64::NAN, 4), "—");
    }
}
