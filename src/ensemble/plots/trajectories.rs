//! `trajectories.png`: the recorded scenes' coordinates against time.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use super::{DrawResult, figure, span, tick_label};
use crate::ensemble::table::Table;
use crate::ensemble::units::label;

/// The most coordinates drawn (with the key, a 4 × 3 grid).
const PANELS: usize = 11;

/// `trajectories.png`: one panel per coordinate (all of them up to [`PANELS`], else the
/// [`PANELS`] that move most over the recorded scenes, in their order: a billiard's object
/// ball, past the cue ball's six coordinates, is drawn), each recorded scene a line of its
/// colour; the colours' key in the last panel, off the data; `title` above, axes labelled
/// with `units`.
pub(super) fn draw(path: &Path, trajectories: &Table, title: &str, units: &BTreeMap<String, String>) -> DrawResult {
    let (t, scene) = (
        trajectories.column("t").unwrap_or_default(),
        trajectories.column("scene").unwrap_or_default(),
    );
    // Columns: scene, t, the coordinates, their velocities.
    let coordinates = &trajectories.columns[2..2 + (trajectories.columns.len() - 2) / 2];
    let moved = |name: &String| {
        let q = trajectories.column(name).unwrap_or_default();
        let (lo, hi) = q
            .iter()
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        if hi >= lo { hi - lo } else { 0.0 }
    };
    let mut by_motion: Vec<usize> = (0..coordinates.len()).collect();
    by_motion.sort_by(|&a, &b| {
        moved(&coordinates[b])
            .total_cmp(&moved(&coordinates[a]))
            .then(a.cmp(&b))
    });
    by_motion.truncate(PANELS);
    by_motion.sort_unstable();
    let shown: Vec<&String> = by_motion.iter().map(|&k| &coordinates[k]).collect();
    // Each scene's rows: [start, end).
    let mut runs = Vec::new();
    let mut start = 0;
    for end in (1..=scene.len()).filter(|&i| i == scene.len() || scene[i] != scene[i - 1]) {
        runs.push((scene[start], start..end));
        start = end;
    }
    let panels = shown.len() + 1;
    let columns = panels.min(3);
    let rows = panels.div_ceil(columns);
    let root = BitMapBackend::new(path, (450 * columns as u32, 40 + 340 * rows as u32)).into_drawing_area();
    let areas = figure(&root, title)?.split_evenly((rows, columns));
    for (area, name) in areas.iter().zip(shown.iter().copied()) {
        let q = trajectories.column(name).unwrap_or_default();
        let mut chart = ChartBuilder::on(area)
            .caption(format!("{name}(t)"), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(span(&t), span(&q))?;
        let (ts, qs) = (span(&t), span(&q));
        chart
            .configure_mesh()
            .x_desc("t (s)")
            .y_desc(label(name, units))
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&|v| tick_label(*v, &ts))
            .y_label_formatter(&|v| tick_label(*v, &qs))
            .max_light_lines(0)
            .draw()?;
        for (k, (_, rows)) in runs.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            let points = rows
                .clone()
                .map(|i| (t[i], q[i]))
                .filter(|(a, b)| a.is_finite() && b.is_finite());
            chart.draw_series(LineSeries::new(points, color.stroke_width(2)))?;
        }
    }
    // The key: one line per scene (the first 12), in the panel after the last coordinate's.
    let key = &areas[shown.len()];
    let style = ("sans-serif", 16).into_font();
    key.draw(&Text::new("recorded scenes", (20, 20), style.clone()))?;
    for (k, (s, _)) in runs.iter().enumerate().take(12) {
        let (y, color) = (45 + 22 * k as i32, Palette99::pick(k).to_rgba());
        key.draw(&PathElement::new(vec![(20, y), (50, y)], color.stroke_width(3)))?;
        key.draw(&Text::new(format!("scene {s}"), (60, y - 8), style.clone()))?;
    }
    if runs.len() > 12 {
        let y = 45 + 22 * 12;
        key.draw(&Text::new(format!("… {} more", runs.len() - 12), (20, y - 8), style))?;
    }
    root.present()?;
    Ok(())
}
