//! PNG pictures of a run: histograms of the main summary columns and the recorded
//! trajectories, drawn with plotters. Text needs a TrueType font: `RICOCHET_FONT`, else the
//! first of a few usual system paths (Debian: `apt-get install fonts-dejavu-core`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::prelude::*;

use super::atomic::write_atomically;
use super::stats::ColumnStats;
use super::table::Table;
use crate::error::{Error, Result};

/// Environment variable naming a .ttf file for the plots' text.
pub const FONT_VAR: &str = "RICOCHET_FONT";

const FONT_PATHS: [&str; 5] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Registers a font once; the reason when none is found.
fn font() -> std::result::Result<(), String> {
    static FONT: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let candidates = std::env::var(FONT_VAR).into_iter().chain(FONT_PATHS.map(String::from));
        let bytes = candidates
            .filter_map(|p| std::fs::read(p).ok())
            .next()
            .ok_or_else(|| format!("no TrueType font found: set {FONT_VAR} or install fonts-dejavu-core"))?;
        plotters::style::register_font("sans-serif", FontStyle::Normal, Box::leak(bytes.into_boxed_slice()))
            .map_err(|_| "the font file could not be read".to_string())
    })
    .clone()
}

/// Draws `histograms.png`, `trajectories.png` and, with drawn parameters (`columns`: the
/// observables' and the drawn parameters' names), `scatter.png` into `dir`; returns the files
/// written, or the reason there are none.
pub fn draw(
    dir: &Path,
    summary: &Table,
    trajectories: &Table,
    columns: (&[String], &[String]),
) -> Result<std::result::Result<Vec<PathBuf>, String>> {
    if let Err(reason) = font() {
        return Ok(Err(reason));
    }
    let fail = |e: String| Error::Unsupported {
        what: "plots".into(),
        reason: e,
    };
    let histograms = dir.join("histograms.png");
    write_atomically(&histograms, |partial| {
        draw_histograms(partial, summary).map_err(|e| fail(e.to_string()))
    })?;
    let mut written = vec![histograms];
    if trajectories.rows() > 0 {
        let path = dir.join("trajectories.png");
        write_atomically(&path, |partial| {
            draw_trajectories(partial, trajectories).map_err(|e| fail(e.to_string()))
        })?;
        written.push(path);
    }
    if !columns.1.is_empty() && summary.rows() > 0 {
        let path = dir.join("scatter.png");
        write_atomically(&path, |partial| {
            draw_scatter_grid(partial, summary, columns).map_err(|e| fail(e.to_string()))
        })?;
        written.push(path);
    }
    Ok(Ok(written))
}

type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

/// The drawn parameters (columns between `scene` and `impacts`) and the main outputs.
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

fn draw_histograms(path: &Path, summary: &Table) -> DrawResult {
    let columns = histogram_columns(summary);
    let root = BitMapBackend::new(path, (1200, 800)).into_drawing_area();
    root.fill(&WHITE)?;
    for (area, name) in root.split_evenly((2, 3)).iter().zip(columns) {
        let stats = ColumnStats::of(&summary.column(name).unwrap_or_default());
        let (edges, counts) = (&stats.histogram.edges, &stats.histogram.counts);
        if counts.is_empty() {
            continue;
        }
        let (lo, mut hi) = (edges[0], edges[edges.len() - 1]);
        if hi <= lo {
            hi = lo + 1.0;
        }
        let top = counts.iter().copied().max().unwrap_or(1) as f64 * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(format!("{name} (n = {})", stats.count), ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(lo..hi, 0.0..top)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(0)
            .y_desc("scenes")
            .draw()?;
        chart.draw_series(counts.iter().enumerate().map(|(i, &c)| {
            let right = if edges[i + 1] > edges[i] { edges[i + 1] } else { hi };
            Rectangle::new([(edges[i], 0.0), (right, c as f64)], BLUE.mix(0.6).filled())
        }))?;
    }
    root.present()?;
    Ok(())
}

/// `trajectories.png`: one panel per coordinate (the first five), each recorded scene a
/// line of its colour; the colours' key in the last panel, off the data.
fn draw_trajectories(path: &Path, trajectories: &Table) -> DrawResult {
    let (t, scene) = (
        trajectories.column("t").unwrap_or_default(),
        trajectories.column("scene").unwrap_or_default(),
    );
    // Columns: scene, t, the coordinates, their velocities.
    let coordinates = &trajectories.columns[2..2 + (trajectories.columns.len() - 2) / 2];
    let shown = &coordinates[..coordinates.len().min(5)];
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
    let root = BitMapBackend::new(path, (450 * columns as u32, 340 * rows as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((rows, columns));
    for (area, name) in areas.iter().zip(shown) {
        let q = trajectories.column(name).unwrap_or_default();
        let mut chart = ChartBuilder::on(area)
            .caption(format!("{name}(t)"), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(span(&t), span(&q))?;
        chart
            .configure_mesh()
            .x_desc("t (s)")
            .y_desc(name.as_str())
            .x_labels(6)
            .y_labels(6)
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

/// (lo..hi) of the finite values of `x`, widened when they are all equal (or none).
fn span(x: &[f64]) -> std::ops::Range<f64> {
    let (lo, hi) = x
        .iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    match (lo.is_finite(), hi > lo) {
        (false, _) => 0.0..1.0,
        (true, true) => {
            let pad = 0.03 * (hi - lo);
            lo - pad..hi + pad
        }
        (true, false) => lo - 0.5 * lo.abs().max(1.0)..lo + 0.5 * lo.abs().max(1.0),
    }
}

/// One scatter panel of `y` against `x` (points with a non-finite coordinate are left out and
/// counted in the caption).
fn scatter_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    (x, y): (&[f64], &[f64]),
    (x_name, y_name): (&str, &str),
    title: &str,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let points: Vec<(f64, f64)> = x
        .iter()
        .zip(y)
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .map(|(&a, &b)| (a, b))
        .collect();
    let left_out = x.len() - points.len();
    let caption = if left_out > 0 {
        format!("{title} ({left_out} without a value)")
    } else {
        title.to_string()
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(span(x), span(y))?;
    chart
        .configure_mesh()
        .x_desc(x_name)
        .y_desc(y_name)
        .x_labels(6)
        .y_labels(6)
        .max_light_lines(0)
        .draw()?;
    // Small translucent dots: dense ensembles show as shades.
    let size = if points.len() > 5000 { 1 } else { 2 };
    chart.draw_series(points.iter().map(|&p| Circle::new(p, size, BLUE.mix(0.5).filled())))?;
    Ok(())
}

/// Draws `y` against `x` (columns of `table`) into `path`: PNG, or SVG when the name ends in
/// `.svg`. `title` heads it.
pub fn scatter(path: &Path, table: &Table, (x, y): (&str, &str), title: &str) -> Result<()> {
    font().map_err(|reason| Error::Unsupported {
        what: "plots".into(),
        reason,
    })?;
    let column = |name: &str| {
        table.column(name).ok_or_else(|| Error::Scenario {
            what: format!("column `{name}`"),
            reason: format!("not in the table (it has: {})", table.columns.join(", ")),
        })
    };
    let (xs, ys) = (column(x)?, column(y)?);
    let fail = |e: Box<dyn std::error::Error>| Error::Unsupported {
        what: "plots".into(),
        reason: e.to_string(),
    };
    write_atomically(path, |partial| {
        let svg = path.extension().is_some_and(|e| e == "svg");
        let result = if svg {
            let root = SVGBackend::new(partial, (900, 650)).into_drawing_area();
            root.fill(&WHITE)
                .map_err(Box::from)
                .and_then(|()| scatter_panel(&root, (&xs, &ys), (x, y), title))
                .and_then(|()| root.present().map_err(Box::from))
        } else {
            let root = BitMapBackend::new(partial, (900, 650)).into_drawing_area();
            root.fill(&WHITE)
                .map_err(Box::from)
                .and_then(|()| scatter_panel(&root, (&xs, &ys), (x, y), title))
                .and_then(|()| root.present().map_err(Box::from))
        };
        result.map_err(fail)
    })
}

/// `scatter.png`: each observable (or, without observables, `impacts`) against each drawn
/// parameter — the plot an ensemble is usually run for — up to 3 × 3 panels; `None` without
/// drawn parameters.
fn draw_scatter_grid(path: &Path, summary: &Table, (observables, drawn): (&[String], &[String])) -> DrawResult {
    let impacts = ["impacts".to_string()];
    let outputs = if observables.is_empty() {
        &impacts[..]
    } else {
        observables
    };
    let pairs: Vec<(&String, &String)> = outputs
        .iter()
        .take(3)
        .flat_map(|y| drawn.iter().take(3).map(move |x| (x, y)))
        .collect();
    let columns = drawn.len().clamp(1, 3);
    let rows = pairs.len().div_ceil(columns);
    let root = BitMapBackend::new(path, (450 * columns as u32, 340 * rows as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    for (area, (x, y)) in root.split_evenly((rows, columns)).iter().zip(&pairs) {
        let (xs, ys) = (
            summary.column(x).unwrap_or_default(),
            summary.column(y).unwrap_or_default(),
        );
        scatter_panel(area, (&xs, &ys), (x, y), &format!("{y} vs {x}"))?;
    }
    root.present()?;
    Ok(())
}
