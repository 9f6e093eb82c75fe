//! `histograms.png`: the distribution over the scenes of the drawn parameters and the main
//! outputs, one panel per column.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use super::{DrawResult, figure, span, tick_label};
use crate::ensemble::stats::{ColumnStats, whole_values};
use crate::ensemble::table::Table;
use crate::ensemble::units::label;

/// The drawn parameters (columns between `scene` and `impacts`, the first three) and the
/// main outputs: impacts, the last impact's time, the energy change, the first coordinate's
/// final value, the penetration.
fn histogram_columns(summary: &Table) -> Vec<&str> {
    let outputs = summary.index("impacts").unwrap_or(summary.columns.len());
    let mut columns: Vec<&str> = summary.columns[1..outputs].iter().map(String::as_str).take(3).collect();
    // The first coordinate's final value: the column after `in_contact`.
    let first_coordinate = summary.index("in_contact").and_then(|i| summary.columns.get(i + 1));
    columns.extend(["impacts", "last_impact_time", "energy_change"]);
    columns.extend(first_coordinate.map(String::as_str));
    columns.push("max_penetration");
    columns.retain(|c| summary.index(c).is_some());
    columns.truncate(6);
    columns
}

/// How a column is drawn.
enum Shape {
    /// No finite value.
    Empty,
    /// One value (to 1e-12 relative) in every scene.
    Constant(f64),
    /// Few distinct whole numbers close together (a count, a flag; [`whole_values`]): one
    /// bar per value.
    Bars(Vec<(f64, usize)>),
    /// A histogram of the finite values.
    Histogram,
}

impl Shape {
    fn of(values: &[f64], stats: &ColumnStats) -> Self {
        if stats.count == 0 {
            return Self::Empty;
        }
        let (lo, hi) = (stats.min, stats.max);
        if hi - lo <= 1e-12 * lo.abs().max(hi.abs()) {
            return Self::Constant(lo);
        }
        let mut finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        finite.sort_by(f64::total_cmp);
        whole_values(&finite).map_or(Self::Histogram, Self::Bars)
    }
}

/// Draws the histograms of `summary` into `path` under `title`, axes labelled with `units`.
pub(super) fn draw(path: &Path, summary: &Table, title: &str, units: &BTreeMap<String, String>) -> DrawResult {
    let columns = histogram_columns(summary);
    let rows = columns.len().div_ceil(3).max(1);
    let root = BitMapBackend::new(path, (1200, 40 + 380 * rows as u32)).into_drawing_area();
    let panels = figure(&root, title)?;
    for (area, name) in panels.split_evenly((rows, 3)).iter().zip(columns) {
        let values = summary.column(name).unwrap_or_default();
        let stats = ColumnStats::of(&values);
        let missing = if stats.missing > 0 {
            format!(", {} without a value", stats.missing)
        } else {
            String::new()
        };
        let caption = format!("{name} (n = {}{missing})", stats.count);
        let x_label = label(name, units);
        match Shape::of(&values, &stats) {
            Shape::Empty => note(area, &caption, "no finite value in any scene")?,
            Shape::Constant(v) => note(area, &caption, &format!("every scene: {x_label} = {v}"))?,
            Shape::Bars(bars) => {
                let (lo, hi) = (bars[0].0 - 0.5, bars[bars.len() - 1].0 + 0.5);
                let mut chart = panel(area, &caption, (lo..hi, top(bars.iter().map(|b| b.1))))?;
                // One label per whole number while they fit (plotters' steps are 1, 2, 5 × 10ᵏ).
                let span = (bars[bars.len() - 1].0 - bars[0].0) as usize + 1;
                mesh(&mut chart, &x_label, (span, true), &(lo..hi))?;
                chart
                    .draw_series(bars.iter().map(|&(v, c)| {
                        Rectangle::new([(v - 0.4, 0.0), (v + 0.4, c as f64)], BLUE.mix(0.6).filled())
                    }))?;
            }
            Shape::Histogram => {
                let (edges, counts) = (&stats.histogram.edges, &stats.histogram.counts);
                let x = span(&[edges[0], edges[edges.len() - 1]]);
                let mut chart = panel(area, &caption, (x.clone(), top(counts.iter().copied())))?;
                mesh(&mut chart, &x_label, (6, false), &x)?;
                chart.draw_series(counts.iter().enumerate().map(|(i, &c)| {
                    Rectangle::new([(edges[i], 0.0), (edges[i + 1], c as f64)], BLUE.mix(0.6).filled())
                }))?;
            }
        }
    }
    root.present()?;
    Ok(())
}

/// The height of the count axis: 10 % above the largest count.
fn top(counts: impl Iterator<Item = usize>) -> f64 {
    (counts.max().unwrap_or(1).max(1) as f64 * 1.1).ceil()
}

type Panel<'a> = ChartContext<
    'a,
    BitMapBackend<'a>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

fn panel<'a>(
    area: &DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>,
    caption: &str,
    (x, y): (std::ops::Range<f64>, f64),
) -> Result<Panel<'a>, Box<dyn std::error::Error>> {
    Ok(ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(x, 0.0..y)?)
}

/// The axes: `x_label` across `x` with about `ticks` labels (whole numbers for `bars`),
/// whole counts up.
fn mesh(chart: &mut Panel<'_>, x_label: &str, (ticks, bars): (usize, bool), x: &std::ops::Range<f64>) -> DrawResult {
    let whole = |v: &f64| tick_label(v.round(), &(0.0..1.0));
    let across = |v: &f64| tick_label(*v, x);
    let mut mesh = chart.configure_mesh();
    if bars {
        mesh.x_label_formatter(&whole);
    } else {
        mesh.x_label_formatter(&across);
    }
    mesh.disable_x_mesh()
        .max_light_lines(0)
        .x_desc(x_label)
        .y_desc("scenes")
        .x_labels(ticks.clamp(2, 10))
        .y_labels(6)
        .y_label_formatter(&whole)
        .draw()?;
    Ok(())
}

/// A panel that says why there is nothing to draw.
fn note(area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>, caption: &str, text: &str) -> DrawResult {
    let h = area.dim_in_pixel().1;
    area.draw(&Text::new(
        caption.to_string(),
        (20, 10),
        ("sans-serif", 18).into_font(),
    ))?;
    area.draw(&Text::new(
        text.to_string(),
        (20, h as i32 / 2),
        ("sans-serif", 16).into_font().color(&BLACK.mix(0.7)),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{ColumnStats, Shape};

    fn shape(values: &[f64]) -> Shape {
        Shape::of(values, &ColumnStats::of(values))
    }

    #[test]
    fn columns_are_drawn_by_what_they_hold() {
        assert!(matches!(shape(&[f64::NAN, f64::INFINITY]), Shape::Empty));
        assert!(matches!(shape(&[]), Shape::Empty));
        assert!(matches!(shape(&[2.5, 2.5, f64::NAN]), Shape::Constant(v) if v == 2.5));
        // A range narrower than the rounding of its values (the plotters hang): constant.
        assert!(matches!(shape(&[1.0, 1.0 + 1e-15]), Shape::Constant(_)));
        match shape(&[3.0, 1.0, 3.0, 0.0, 3.0]) {
            Shape::Bars(bars) => assert_eq!(bars, [(0.0, 1), (1.0, 1), (3.0, 3)]),
            _ => panic!("counts are bars"),
        }
        assert!(matches!(shape(&[0.5, 1.0, 2.0]), Shape::Histogram));
        assert!(
            matches!(shape(&[1e11, 2e11, 3e11]), Shape::Histogram),
            "bars would not show"
        );
        let many: Vec<f64> = (0..100).map(f64::from).collect();
        assert!(matches!(shape(&many), Shape::Histogram), "too many values for bars");
    }
}
