//! Numbers for the pictures' axes and overlays: tick labels that read well at any scale, and
//! the binned means drawn over a count's scatter.

/// A tick's label on an axis spanning `axis`: rounded to a thousandth of the span's decade,
/// never `-0`, in exponent form past 10⁵ or below 10⁻³ (plotters' own labels printed
/// `-0.0` on a constant-zero column and long tails of digits for small values).
pub(super) fn tick_label(v: f64, axis: &std::ops::Range<f64>) -> String {
    let span = (axis.end - axis.start).abs();
    let unit = if span > 0.0 && span.is_finite() {
        10f64.powf(span.log10().floor() - 3.0)
    } else {
        1e-3 * v.abs().max(1.0)
    };
    let v = (v / unit).round() * unit;
    let trim = |text: String| -> String {
        match text.split_once('e') {
            Some((mantissa, exponent)) if mantissa.contains('.') => {
                format!("{}e{exponent}", mantissa.trim_end_matches('0').trim_end_matches('.'))
            }
            Some(_) => text,
            None if text.contains('.') => text.trim_end_matches('0').trim_end_matches('.').to_string(),
            None => text,
        }
    };
    if v == 0.0 || !v.is_finite() {
        return if v.is_finite() { "0".into() } else { format!("{v}") };
    }
    if !(1e-3..1e5).contains(&v.abs()) {
        // As many digits as the span asks for (an axis from 100 000 to 100 100 reads
        // 1.0001e5, 1.0002e5, …), at least three.
        let digits = ((v.abs().log10().floor() - unit.log10().floor()) as usize).clamp(2, 15);
        return trim(format!("{v:.digits$e}"));
    }
    let decimals = (-unit.log10().floor()).max(0.0) as usize;
    trim(format!("{v:.decimals$}"))
}

/// Per non-empty bin of `bins` equal bins over the points' x range: (the bin's centre, the
/// mean of y in it, the half-width of its 95 % interval 1.96 s/√n, s the sample standard
/// deviation; 0 for a single point).
pub(super) fn binned_means(points: &[(f64, f64)], bins: usize) -> Vec<(f64, f64, f64)> {
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let width = (hi - lo) / bins as f64;
    let mut sums = vec![(0usize, 0.0, 0.0); bins];
    for &(x, y) in points {
        let k = if width > 0.0 {
            (((x - lo) / width) as usize).min(bins - 1)
        } else {
            0
        };
        sums[k] = (sums[k].0 + 1, sums[k].1 + y, sums[k].2 + y * y);
    }
    sums.iter()
        .enumerate()
        .filter(|(_, s)| s.0 > 0)
        .map(|(k, &(n, sum, squares))| {
            let mean = sum / n as f64;
            let variance = if n > 1 {
                ((squares - n as f64 * mean * mean) / (n - 1) as f64).max(0.0)
            } else {
                0.0
            };
            (lo + (k as f64 + 0.5) * width, mean, 1.96 * (variance / n as f64).sqrt())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{binned_means, tick_label};

    /// Two bins of known counts: their centres, means and 95 % half-widths.
    #[test]
    fn binned_means_of_known_counts() {
        let points = [(0.0, 1.0), (0.4, 3.0), (1.0, 5.0), (0.9, 5.0)];
        let bins = binned_means(&points, 2);
        assert_eq!(bins.len(), 2);
        let (x, mean, half) = bins[0];
        assert_eq!((x, mean), (0.25, 2.0));
        assert!((half - 1.96 * (2.0f64 / 2.0).sqrt()).abs() < 1e-15, "{half}");
        assert_eq!(bins[1], (0.75, 5.0, 0.0));
    }

    #[test]
    fn tick_labels_are_short_and_never_minus_zero() {
        assert_eq!(tick_label(-0.0, &(-0.5..0.5)), "0");
        assert_eq!(tick_label(-1e-17, &(-0.5..0.5)), "0");
        assert_eq!(tick_label(0.30000000000000004, &(0.0..1.0)), "0.3");
        assert_eq!(tick_label(1.2e-5, &(0.0..3e-5)), "1.2e-5");
        assert_eq!(tick_label(250000.0, &(0.0..1e6)), "2.5e5");
        assert_eq!(tick_label(12.5, &(0.0..100.0)), "12.5");
        assert_eq!(tick_label(100020.0, &(100000.0..100100.0)), "1.0002e5");
    }
}
