//! Statistics of each column of a summary: what `stats.json` holds.

use std::collections::BTreeMap;

use serde::Serialize;

use super::table::Table;

/// The quantile levels reported.
pub const QUANTILES: [f64; 7] = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99];
/// Histogram bins.
pub const BINS: usize = 20;

/// Statistics of one column over its finite values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ColumnStats {
    /// Finite values.
    pub count: usize,
    /// NaN or infinite values (e.g. the time of the last impact of a scene without one).
    pub missing: usize,
    /// Mean (NaN without a finite value; `null` in JSON).
    pub mean: f64,
    /// Sample standard deviation (n − 1; NaN below two finite values, as numpy's
    /// `std(ddof=1)`).
    pub std: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Quantiles at [`QUANTILES`] (linear interpolation between order statistics, numpy's
    /// default), keyed by level.
    pub quantiles: BTreeMap<String, f64>,
    /// Histogram over [min, max].
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
        let bins = if n == 0 {
            0
        } else if min == max {
            1
        } else {
            BINS
        };
        let width = (max - min) / bins.max(1) as f64;
        let edges = match bins {
            0 => Vec::new(),
            _ => (0..=bins)
                .map(|i| if i == bins { max } else { min + width * i as f64 })
                .collect(),
        };
        let mut counts = vec![0; bins];
        for v in &x {
            let bin = if width > 0.0 { ((v - min) / width) as usize } else { 0 };
            counts[bin.min(bins - 1)] += 1;
        }
        Self {
            count: n,
            missing: values.len() - n,
            mean,
            std,
            min,
            max,
            quantiles,
            histogram: Histogram { edges, counts },
        }
    }
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
