//! Statistics of each column of a summary: what `stats.json` holds.

use std::collections::BTreeMap;

use serde::Serialize;

use super::intervals;
use super::table::Table;

/// The quantile levels reported.
pub const QUANTILES: [f64; 7] = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99];
/// Histogram bins.
pub const BINS: usize = 20;
/// At most this many distinct whole values make a column binned on its values (a count, a
/// flag), one unit bin per whole number ([`whole_values`]).
pub const MAX_WHOLE_VALUES: usize = 40;

/// Statistics of one column over its finite values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ColumnStats {
    /// Finite values.
    pub count: usize,
    /// NaN or infinite values (e.g. the time of the last impact of a scene without one):
    /// `nan` + `infinite`.
    pub missing: usize,
    /// NaN values.
    pub nan: usize,
    /// Infinite values.
    pub infinite: usize,
    /// Mean (NaN without a finite value; `null` in JSON).
    pub mean: f64,
    /// Sample standard deviation (n − 1; NaN below two finite values, as numpy's
    /// `std(ddof=1)`).
    pub std: f64,
    /// Standard error of the mean, s/√n (NaN below two values).
    pub sem: f64,
    /// The mean's 95 % confidence interval (Student's t; [`intervals::mean_interval`]).
    pub mean_ci95: [f64; 2],
    /// For a column of zeros and ones (a flag, an event): the share of ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
    /// Its 95 % confidence interval (Wilson's; [`intervals::probability_interval`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability_ci95: Option<[f64; 2]>,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Quantiles at [`QUANTILES`] (linear interpolation between order statistics, numpy's
    /// default), keyed by level.
    pub quantiles: BTreeMap<String, f64>,
    /// Each quantile's distribution-free 95 % confidence interval, by order statistics
    /// ([`intervals::quantile_interval`]; NaN where the scenes are too few).
    pub quantile_ci95: BTreeMap<String, [f64; 2]>,
    /// Histogram: unit bins centred on the whole numbers from min to max for a column of
    /// few whole values ([`whole_values`]), else [`BINS`] equal bins over [min, max].
    pub histogram: Histogram,
}

/// Equal-width bins.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Histogram {
    /// Bin edges (bins + 1; none without a finite value).
    pub edges: Vec<f64>,
    /// Values per bin (the last bin includes its right edge).
    pub counts: Vec<usize>,
}

/// Statistics of a whole table (every column but `scene`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Statistics {
    /// Rows (scenes).
    pub rows: usize,
    /// Per column.
    pub columns: BTreeMap<String, ColumnStats>,
}

impl Statistics {
    /// The statistics of `table`.
    pub fn of(table: &Table) -> Self {
        let columns = table
            .columns
            .iter()
            .filter(|c| *c != "scene")
            .filter_map(|c| Some((c.clone(), ColumnStats::of(&table.column(c)?))))
            .collect();
        Self {
            rows: table.rows(),
            columns,
        }
    }
}

impl ColumnStats {
    /// The statistics of `values`.
    pub fn of(values: &[f64]) -> Self {
        let mut x: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        x.sort_by(f64::total_cmp);
        let n = x.len();
        let mean = if n == 0 {
            f64::NAN
        } else {
            x.iter().sum::<f64>() / n as f64
        };
        let std = if n < 2 {
            f64::NAN
        } else {
            (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        };
        let (min, max) = (
            x.first().copied().unwrap_or(f64::NAN),
            x.last().copied().unwrap_or(f64::NAN),
        );
        let quantiles = QUANTILES.iter().map(|&p| (p.to_string(), quantile(&x, p))).collect();
        let quantile_ci95 = QUANTILES
            .iter()
            .map(|&p| (p.to_string(), intervals::quantile_interval(&x, p)))
            .collect();
        let sem = std / (n as f64).sqrt();
        let ones = x.iter().filter(|&&v| v == 1.0).count();
        let flag = n > 0 && x.iter().all(|&v| v == 0.0 || v == 1.0);
        let histogram = match whole_values(&x) {
            Some(values) => Histogram::of_whole_values(&values),
            None => Histogram::equal_bins(&x),
        };
        Self {
            count: n,
            missing: values.len() - n,
            nan: values.iter().filter(|v| v.is_nan()).count(),
            infinite: values.iter().filter(|v| v.is_infinite()).count(),
            mean,
            std,
            sem,
            mean_ci95: intervals::mean_interval(n, mean, std),
            probability: flag.then_some(mean),
            probability_ci95: flag.then(|| intervals::probability_interval(ones, n)),
            min,
            max,
            quantiles,
            quantile_ci95,
            histogram,
        }
    }
}

impl Histogram {
    /// [`BINS`] equal bins over [min, max] of `sorted` finite values (one bin [v, v] when
    /// all are v; none when there is no value); a value on an inner edge goes to the bin it
    /// starts.
    fn equal_bins(sorted: &[f64]) -> Self {
        let (Some(&min), Some(&max)) = (sorted.first(), sorted.last()) else {
            return Self {
                edges: Vec::new(),
                counts: Vec::new(),
            };
        };
        let bins = if min == max { 1 } else { BINS };
        let width = (max - min) / bins as f64;
        let edges = (0..=bins)
            .map(|i| if i == bins { max } else { min + width * i as f64 })
            .collect();
        let mut counts = vec![0; bins];
        for v in sorted {
            let bin = if width > 0.0 { ((v - min) / width) as usize } else { 0 };
            counts[bin.min(bins - 1)] += 1;
        }
        Self { edges, counts }
    }

    /// Unit bins [k − ½, k + ½] for every whole k from the first to the last of `values`
    /// (distinct, increasing, with their counts), zero where a k is absent.
    fn of_whole_values(values: &[(f64, usize)]) -> Self {
        let (lo, hi) = (values[0].0, values[values.len() - 1].0);
        let bins = (hi - lo) as usize + 1;
        let mut counts = vec![0; bins];
        for &(v, count) in values {
            counts[(v - lo) as usize] = count;
        }
        let edges = (0..=bins).map(|k| lo - 0.5 + k as f64).collect();
        Self { edges, counts }
    }
}

/// The distinct values of `sorted` finite values with their counts, when they are at least
/// one and at most [`MAX_WHOLE_VALUES`] whole numbers within 2 × [`MAX_WHOLE_VALUES`] of each
/// other and below 2⁵² in size, where k ± ½ is exact (a count, a flag: what
/// `histograms.png` draws as bars); `None` otherwise.
pub fn whole_values(sorted: &[f64]) -> Option<Vec<(f64, usize)>> {
    let (lo, hi) = (*sorted.first()?, *sorted.last()?);
    let exact = lo.abs().max(hi.abs()) < 2f64.powi(52);
    if !exact || sorted.iter().any(|v| v.fract() != 0.0) || hi - lo > 2.0 * MAX_WHOLE_VALUES as f64 {
        return None;
    }
    let mut values: Vec<(f64, usize)> = Vec::new();
    for &v in sorted {
        match values.last_mut() {
            Some((value, count)) if *value == v => *count += 1,
            _ => values.push((v, 1)),
        }
        if values.len() > MAX_WHOLE_VALUES {
            return None;
        }
    }
    Some(values)
}

/// Quantile p of sorted values (NaN when empty).
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = p * (sorted.len() - 1) as f64;
    let (lo, frac) = (pos.floor() as usize, pos.fract());
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + frac * (sorted[hi] - sorted[lo])
}
