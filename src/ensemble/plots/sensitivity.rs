//! `sensitivity.png`: a Saltelli design's first-order and total Sobol indices, one panel per
//! output (the observables first, then the main outputs), a pair of bars per parameter with
//! their 95 % bootstrap intervals.

use std::path::Path;

use plotters::prelude::*;

use super::{DrawResult, figure};
use crate::ensemble::sensitivity::Sensitivity;

/// The outputs drawn after the observables, where they vary.
const OUTPUTS: [&str; 4] = ["impacts", "last_impact_time", "energy_change", "max_penetration"];

/// Up to six outputs of `sensitivity`: the `observables`, then [`OUTPUTS`].
fn panels<'a>(sensitivity: &'a Sensitivity, observables: &'a [String]) -> Vec<&'a str> {
    let mut columns: Vec<&str> = observables.iter().map(String::as_str).chain(OUTPUTS).collect();
    columns.retain(|c| sensitivity.contains_key(*c));
    columns.dedup();
    columns.truncate(6);
    columns
}

/// Whether there is a panel to draw.
pub(super) fn any(sensitivity: &Sensitivity, observables: &[String]) -> bool {
    !panels(sensitivity, observables).is_empty()
}

/// Draws the indices of `sensitivity` for `parameters` into `path` under `title`.
pub(super) fn draw(
    path: &Path,
    sensitivity: &Sensitivity,
    (parameters, observables): (&[String], &[String]),
    title: &str,
) -> DrawResult {
    let columns = panels(sensitivity, observables);
    let rows = columns.len().div_ceil(3).max(1);
    let root = BitMapBackend::new(path, (1200, 40 + 380 * rows as u32)).into_drawing_area();
    let areas = figure(&root, title)?;
    let d = parameters.len();
    let name = |x: &f64| {
        let i = x.round();
        match (i >= 0.0 && (x - i).abs() < 1e-9).then_some(i as usize) {
            Some(i) if i < d => parameters[i].clone(),
            _ => String::new(),
        }
    };
    for (area, column) in areas.split_evenly((rows, 3)).iter().zip(columns) {
        let indices = &sensitivity[column];
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for x in indices.values() {
            for v in [x.s1_ci95[0], x.st_ci95[0], x.s1, x.st] {
                lo = lo.min(v);
            }
            for v in [x.s1_ci95[1], x.st_ci95[1], x.s1, x.st] {
                hi = hi.max(v);
            }
        }
        let mut chart = ChartBuilder::on(area)
            .caption(format!("{column}: S1 (blue), ST (orange)"), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(45)
            .y_label_area_size(50)
            .build_cartesian_2d(-0.5..d as f64 - 0.5, lo - 0.05..hi + 0.05)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(d + 1)
            .x_label_formatter(&name)
            .y_desc("Sobol index")
            .draw()?;
        for (i, parameter) in parameters.iter().enumerate() {
            let Some(x) = indices.get(parameter) else { continue };
            let at = i as f64;
            for (offset, value, [l, h], colour) in [
                (-0.2, x.s1, x.s1_ci95, BLUE.mix(0.6)),
                (0.2, x.st, x.st_ci95, RGBColor(230, 120, 20).mix(0.8)),
            ] {
                let centre = at + offset;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(centre - 0.17, 0.0), (centre + 0.17, value)],
                    colour.filled(),
                )))?;
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(centre, l), (centre, h)],
                    BLACK.stroke_width(2),
                )))?;
            }
        }
    }
    root.present()?;
    Ok(())
}
