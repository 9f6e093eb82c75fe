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

/// Draws `histograms.png` and `trajectories.png` into `dir`; returns the files written, or
/// the reason there are none.
pub fn draw(dir: &Path, summary: &Table, trajectories: &Table) -> Result<std::result::Result<Vec<PathBuf>, String>> {
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
    Ok(Ok(written))
}

type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

/// The drawn parameters (columns between `scene` and `impacts`) and the main outputs.
fn histogram_columns(summary: &Table) -> Vec<&str> {
    let outputs = summary.index("impacts").unwrap_or(summary.columns.len());
    let mut columns: Vec<&str> = summary.columns[1..outputs].iter().map(String::as_str).take(3).collect();
    columns.extend(["impacts", "last_impact_time", "energy_change", "q0", "max_penetration"]);
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

fn draw_trajectories(path: &Path, trajectories: &Table) -> DrawResult {
    let (t, q) = (
        trajectories.column("t").unwrap_or_default(),
        trajectories.column("q0").unwrap_or_default(),
    );
    let scene = trajectories.column("scene").unwrap_or_default();
    let range = |x: &[f64]| {
        let (lo, hi) = x
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        if hi > lo { lo..hi } else { lo - 1.0..lo + 1.0 }
    };
    let root = BitMapBackend::new(path, (1000, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("q0(t) of the recorded scenes", ("sans-serif", 22))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .build_cartesian_2d(range(&t), range(&q))?;
    chart.configure_mesh().x_desc("t (s)").y_desc("q0").draw()?;
    let mut start = 0;
    for (k, end) in (1..=scene.len())
        .filter(|&i| i == scene.len() || scene[i] != scene[i - 1])
        .enumerate()
    {
        let color = Palette99::pick(k).to_rgba();
        chart
            .draw_series(LineSeries::new(
                (start..end).map(|i| (t[i], q[i])),
                color.stroke_width(2),
            ))?
            .label(format!("scene {}", scene[start]))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        start = end;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
