//! PNG pictures of a run: histograms of the main summary columns and the recorded
//! trajectories, and a 2-D large scene's final state, drawn with plotters. Text needs a TrueType font: `RICOCHET_FONT`, else the
//! first of a few usual system paths (Debian: `apt-get install fonts-dejavu-core`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::prelude::*;

mod axes;
mod discs;
mod histograms;
mod sensitivity;
mod trajectories;

use super::atomic::write_atomically;
use super::table::Table;
use super::units::label;
use crate::error::{Error, Result};
use axes::{binned_means, tick_label};

/// Environment variable naming a .ttf file for the plots' text.
pub const FONT_VAR: &str = "RICOCHET_FONT";

const FONT_PATHS: [&str; 5] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// The largest font file read (a font is a few MB; a larger file is not one).
const FONT_BYTES: u64 = 64 << 20;

/// The bytes of the font file `path`: a regular file (not a device or a pipe, which could be
/// read forever) of at most [`FONT_BYTES`]; else the reason, naming it.
fn read_font(path: &str) -> std::result::Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("font {path}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("font {path}: not a regular file"));
    }
    if meta.len() > FONT_BYTES {
        return Err(format!("font {path}: {} bytes, too large for a font", meta.len()));
    }
    std::fs::read(path).map_err(|e| format!("font {path}: {e}"))
}

/// Registers a font once — `RICOCHET_FONT`'s where it is set (an error naming it otherwise),
/// else the first of [`FONT_PATHS`] found; the reason when there is none.
fn font() -> std::result::Result<(), String> {
    static FONT: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let (path, bytes) = match std::env::var(FONT_VAR) {
            Ok(path) => {
                let bytes = read_font(&path).map_err(|e| format!("{e} ({FONT_VAR})"))?;
                (path, bytes)
            }
            Err(_) => FONT_PATHS
                .iter()
                .find_map(|p| Some((p.to_string(), read_font(p).ok()?)))
                .ok_or_else(|| format!("no TrueType font found: set {FONT_VAR} or install fonts-dejavu-core"))?,
        };
        plotters::style::register_font("sans-serif", FontStyle::Normal, Box::leak(bytes.into_boxed_slice()))
            .map_err(|_| format!("font {path}: not a TrueType or OpenType font"))
    })
    .clone()
}

/// What the pictures of a run say besides its tables.
pub struct Run<'a> {
    /// The figures' title: scenario, N, seed (and shard).
    pub title: String,
    /// The units of the columns ([`super::units::column_units`]).
    pub units: &'a BTreeMap<String, String>,
    /// The drawn parameters' columns.
    pub parameters: &'a [String],
    /// The observables' columns.
    pub observables: &'a [String],
    /// A Saltelli design's parameters (in its order) and the indices found.
    pub sensitivity: Option<(&'a [String], &'a super::sensitivity::Sensitivity)>,
}

impl Run<'_> {
    /// `scenario: N = …, seed …[, shard i/n]`.
    pub fn title(scenario: &str, (scenes, seed): (usize, u64), [i, n]: [usize; 2]) -> String {
        let shard = if n == 1 {
            String::new()
        } else {
            format!(", shard {i}/{n}")
        };
        format!("{scenario}: N = {scenes}, seed {seed}{shard}")
    }
}

/// Draws `histograms.png`, `trajectories.png`, with drawn parameters `scatter.png` (the
/// observables against the drawn parameters) and with a Saltelli design `sensitivity.png` (its
/// Sobol indices) of `run` into `dir`; returns the files written,
/// or the reason there are none.
pub fn draw(
    dir: &Path,
    run: &Run,
    summary: &Table,
    trajectories: &Table,
) -> Result<std::result::Result<Vec<PathBuf>, String>> {
    if let Err(reason) = font() {
        return Ok(Err(reason));
    }
    // (A drawing error, a full disk included, names the picture.)
    let fail = |path: &Path, e: String| Error::Unsupported {
        what: format!("plot {}", path.display()),
        reason: e,
    };
    let title = &run.title;
    let units = run.units;
    let histograms = dir.join("histograms.png");
    write_atomically(&histograms, |partial| {
        histograms::draw(partial, summary, title, units).map_err(|e| fail(&histograms, e.to_string()))
    })?;
    let mut written = vec![histograms];
    if trajectories.rows() > 0 {
        let path = dir.join("trajectories.png");
        write_atomically(&path, |partial| {
            trajectories::draw(partial, trajectories, title, units).map_err(|e| fail(&path, e.to_string()))
        })?;
        written.push(path);
    }
    if !run.parameters.is_empty() && summary.rows() > 0 {
        let path = dir.join("scatter.png");
        write_atomically(&path, |partial| {
            draw_scatter_grid(partial, summary, run).map_err(|e| fail(&path, e.to_string()))
        })?;
        written.push(path);
    }
    if let Some((parameters, indices)) = run.sensitivity.filter(|(_, s)| sensitivity::any(s, run.observables)) {
        let path = dir.join("sensitivity.png");
        write_atomically(&path, |partial| {
            sensitivity::draw(partial, indices, (parameters, run.observables), title)
                .map_err(|e| fail(&path, e.to_string()))
        })?;
        written.push(path);
    }
    Ok(Ok(written))
}

/// Draws `final.png` of a 2-D large scene (its discs coloured by speed, its walls; see
/// `discs`) headed by `title` into `dir`; its path, or the reason it is not drawn (no font).
pub fn draw_discs(
    dir: &Path,
    scene: &crate::large_scene::LargeScene,
    title: &str,
) -> Result<std::result::Result<PathBuf, String>> {
    if let Err(reason) = font() {
        return Ok(Err(reason));
    }
    let path = dir.join("final.png");
    write_atomically(&path, |partial| {
        discs::draw(partial, scene, title).map_err(|e| Error::Unsupported {
            what: format!("plot {}", path.display()),
            reason: e.to_string(),
        })
    })?;
    Ok(Ok(path))
}

type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

/// Fills `root` white, writes `title` across its top and returns the area below it.
fn figure<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
) -> std::result::Result<DrawingArea<DB, plotters::coord::Shift>, Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let panels = root.titled(title, ("sans-serif", 24))?;
    Ok(panels)
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
    let (xs, ys) = (span(x), span(y));
    chart
        .configure_mesh()
        .x_desc(x_name)
        .y_desc(y_name)
        .x_labels(6)
        .y_labels(6)
        .x_label_formatter(&|v| tick_label(*v, &xs))
        .y_label_formatter(&|v| tick_label(*v, &ys))
        .max_light_lines(0)
        .draw()?;
    // Small translucent dots: dense ensembles show as shades.
    let size = if points.len() > 5000 { 1 } else { 2 };
    let counts = points.len() > BINS && points.iter().all(|p| p.1.fract() == 0.0);
    let alpha = if counts { 0.15 } else { 0.5 };
    chart.draw_series(points.iter().map(|&p| Circle::new(p, size, BLUE.mix(alpha).filled())))?;
    if counts {
        // A count (impacts) against a parameter overplots on a few lines: its mean per bin
        // of x with a 95 % interval tells the trend.
        let bins = binned_means(&points, BINS);
        chart.draw_series(LineSeries::new(bins.iter().map(|b| (b.0, b.1)), RED.stroke_width(2)))?;
        chart.draw_series(
            bins.iter().map(|&(x, mean, half)| {
                PathElement::new(vec![(x, mean - half), (x, mean + half)], RED.stroke_width(2))
            }),
        )?;
    }
    Ok(())
}

/// Bins of x for a count's mean in a scatter panel.
const BINS: usize = 20;

/// Draws `y` against `x` (columns of `table`) into `path`: PNG, or SVG when the name ends in
/// `.svg`. `title` heads it; the axes are labelled with `units`.
pub fn scatter(
    path: &Path,
    table: &Table,
    (x, y): (&str, &str),
    title: &str,
    units: &BTreeMap<String, String>,
) -> Result<()> {
    let svg = match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase) {
        Some(e) if e == "svg" => true,
        Some(e) if e == "png" => false,
        _ => {
            return Err(Error::Argument {
                what: format!("--out {}", path.display()),
                reason: "the picture's format comes from its extension: end the name with .png or .svg".into(),
            });
        }
    };
    font().map_err(|reason| Error::Unsupported {
        what: "plots".into(),
        reason,
    })?;
    let column = |name: &str| {
        table.column(name).ok_or_else(|| Error::Argument {
            what: format!("column `{name}`"),
            reason: format!("not in the table (it has: {})", table.columns.join(", ")),
        })
    };
    let (xs, ys) = (column(x)?, column(y)?);
    let (x_label, y_label) = (label(x, units), label(y, units));
    let labels = (x_label.as_str(), y_label.as_str());
    let fail = |e: Box<dyn std::error::Error>| Error::Unsupported {
        what: "plots".into(),
        reason: e.to_string(),
    };
    write_atomically(path, |partial| {
        let result = if svg {
            let root = SVGBackend::new(partial, (900, 650)).into_drawing_area();
            root.fill(&WHITE)
                .map_err(Box::from)
                .and_then(|()| scatter_panel(&root, (&xs, &ys), labels, title))
                .and_then(|()| root.present().map_err(Box::from))
        } else {
            let root = BitMapBackend::new(partial, (900, 650)).into_drawing_area();
            root.fill(&WHITE)
                .map_err(Box::from)
                .and_then(|()| scatter_panel(&root, (&xs, &ys), labels, title))
                .and_then(|()| root.present().map_err(Box::from))
        };
        result.map_err(fail)
    })
}

/// `scatter.png`: each observable (or, without observables, `impacts`) against each drawn
/// parameter — the plot an ensemble is usually run for — up to 3 × 3 panels.
fn draw_scatter_grid(path: &Path, summary: &Table, run: &Run) -> DrawResult {
    let impacts = ["impacts".to_string()];
    let outputs = if run.observables.is_empty() {
        &impacts[..]
    } else {
        run.observables
    };
    let drawn = run.parameters;
    let pairs: Vec<(&String, &String)> = outputs
        .iter()
        .take(3)
        .flat_map(|y| drawn.iter().take(3).map(move |x| (x, y)))
        .collect();
    let columns = drawn.len().clamp(1, 3);
    let rows = pairs.len().div_ceil(columns);
    let root = BitMapBackend::new(path, (450 * columns as u32, 40 + 340 * rows as u32)).into_drawing_area();
    let panels = figure(&root, &run.title)?;
    for (area, (x, y)) in panels.split_evenly((rows, columns)).iter().zip(&pairs) {
        let (xs, ys) = (
            summary.column(x).unwrap_or_default(),
            summary.column(y).unwrap_or_default(),
        );
        let labels = (label(x, run.units), label(y, run.units));
        scatter_panel(area, (&xs, &ys), (&labels.0, &labels.1), &format!("{y} vs {x}"))?;
    }
    root.present()?;
    Ok(())
}
