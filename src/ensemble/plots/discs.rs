//! `final.png` of a 2-D large scene: each disc still in the scene a filled circle of its
//! radius, coloured by its speed ‖v‖ (viridis, from 0 to the fastest disc's speed, stated in
//! the title), the walls as black lines, x and y at one scale. The view is the box of the
//! discs and the walls' segments, plus a margin; a half-space's boundary line is drawn
//! across it.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;

use super::DrawResult;
use crate::large_scene::{LargeScene, Shape};

/// The picture's longer side (pixels).
const SIDE: f64 = 1200.0;

/// The margin around the view (pixels); the title's band (two lines) above it.
const MARGIN: f64 = 20.0;
const TITLE: f64 = 60.0;

/// A rectangle of the plane [x₀, x₁] × [y₀, y₁] (m).
#[derive(Clone, Copy, Debug, PartialEq)]
struct View {
    lo: [f64; 2],
    hi: [f64; 2],
}

impl View {
    /// The box of the discs present (centre ± radius) and of the walls' segments, widened by
    /// a twentieth of its larger side (a unit box when empty).
    fn of(scene: &LargeScene) -> Self {
        let b = &scene.bodies;
        let mut view = Self {
            lo: [f64::INFINITY; 2],
            hi: [f64::NEG_INFINITY; 2],
        };
        let mut take = |p: [f64; 3], r: f64| {
            for ((lo, hi), c) in view.lo.iter_mut().zip(&mut view.hi).zip(p) {
                (*lo, *hi) = (lo.min(c - r), hi.max(c + r));
            }
        };
        for k in (0..b.len()).filter(|&k| b.present[k]) {
            take(b.x[k], b.radius[k]);
        }
        for wall in &scene.walls {
            if let Shape::Segment { a, b, .. } = wall.shape {
                take(a, 0.0);
                take(b, 0.0);
            }
        }
        if !(view.lo[0] <= view.hi[0] && view.lo[1] <= view.hi[1]) {
            return Self {
                lo: [0.0; 2],
                hi: [1.0; 2],
            };
        }
        let pad = 0.05
            * (view.hi[0] - view.lo[0])
                .max(view.hi[1] - view.lo[1])
                .max(f64::MIN_POSITIVE);
        Self {
            lo: view.lo.map(|c| c - pad),
            hi: view.hi.map(|c| c + pad),
        }
    }

    /// The part of the line p + s d, s ∈ [s₀, s₁], inside the view (Liang–Barsky), as its
    /// two ends; `None` when it misses.
    fn clip(&self, p: [f64; 3], d: [f64; 3], [mut s0, mut s1]: [f64; 2]) -> Option<[[f64; 2]; 2]> {
        for k in 0..2 {
            if d[k] == 0.0 {
                if p[k] < self.lo[k] || p[k] > self.hi[k] {
                    return None;
                }
                continue;
            }
            let (a, b) = ((self.lo[k] - p[k]) / d[k], (self.hi[k] - p[k]) / d[k]);
            s0 = s0.max(a.min(b));
            s1 = s1.min(a.max(b));
        }
        let at = |s: f64| [p[0] + s * d[0], p[1] + s * d[1]];
        (s0 <= s1).then(|| [at(s0), at(s1)])
    }
}

/// Draws `scene` (2-D) into `path` (PNG) headed by `title`.
pub(super) fn draw(path: &Path, scene: &LargeScene, title: &str) -> DrawResult {
    let view = View::of(scene);
    let (w, h) = (view.hi[0] - view.lo[0], view.hi[1] - view.lo[1]);
    // Pixels per metre, the longer side SIDE pixels (the shorter at least 360, for the title).
    let scale = SIDE / w.max(h);
    let size = |m: f64| (m * scale).max(360.0).round() as u32;
    let (width, height) = (size(w), size(h));
    let pixel = |x: f64, y: f64| -> (i32, i32) {
        let px = MARGIN + (x - view.lo[0]) * scale;
        let py = TITLE + f64::from(height) - (y - view.lo[1]) * scale;
        (px.round() as i32, py.round() as i32)
    };
    let root =
        BitMapBackend::new(path, (width + 2 * MARGIN as u32, height + (TITLE + MARGIN) as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let b = &scene.bodies;
    let present: Vec<usize> = (0..b.len()).filter(|&k| b.present[k]).collect();
    let speed = |k: usize| (b.v[k][0] * b.v[k][0] + b.v[k][1] * b.v[k][1]).sqrt();
    let fastest = present.iter().map(|&k| speed(k)).fold(0.0, f64::max);
    for &k in &present {
        let shade = if fastest > 0.0 { speed(k) / fastest } else { 0.0 };
        let colour = ViridisRGB.get_color(shade as f32);
        let radius = (b.radius[k] * scale).round().max(1.0) as u32;
        root.draw(&Circle::new(pixel(b.x[k][0], b.x[k][1]), radius, colour.filled()))?;
    }
    for wall in &scene.walls {
        let line = match wall.shape {
            Shape::Segment { a, b, .. } => view.clip(a, [b[0] - a[0], b[1] - a[1], 0.0], [0.0, 1.0]),
            Shape::Plane { point, normal } => {
                view.clip(point, [-normal[1], normal[0], 0.0], [f64::NEG_INFINITY, f64::INFINITY])
            }
        };
        if let Some([p, q]) = line {
            root.draw(&PathElement::new(
                vec![pixel(p[0], p[1]), pixel(q[0], q[1])],
                BLACK.stroke_width(2),
            ))?;
        }
    }
    let font = ("sans-serif", 18).into_font();
    let lines = [
        format!("{title}: t = {} s, {} discs", scene.time, present.len()),
        format!("colour: speed 0 – {fastest:.3e} m/s"),
    ];
    for (k, line) in lines.into_iter().enumerate() {
        root.draw(&Text::new(line, (MARGIN as i32, 8 + 24 * k as i32), font.clone()))?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::View;

    /// A line through the view is cut at its edges; one outside it misses.
    #[test]
    fn clip_cuts_lines_at_the_view() {
        let view = View {
            lo: [0.0, 0.0],
            hi: [2.0, 1.0],
        };
        let all = [f64::NEG_INFINITY, f64::INFINITY];
        assert_eq!(
            view.clip([1.0, 0.5, 0.0], [1.0, 0.0, 0.0], all),
            Some([[0.0, 0.5], [2.0, 0.5]])
        );
        assert_eq!(
            view.clip([0.0, 0.0, 0.0], [1.0, 1.0, 0.0], all),
            Some([[0.0, 0.0], [1.0, 1.0]])
        );
        assert_eq!(
            view.clip([0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0]),
            Some([[0.5, 0.5], [1.5, 0.5]])
        );
        assert_eq!(view.clip([0.0, 3.0, 0.0], [1.0, 0.0, 0.0], all), None);
        assert_eq!(view.clip([3.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0]), None);
    }
}
