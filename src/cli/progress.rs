//! The progress of `ricochet run` on stderr.

use indicatif::{ProgressBar, ProgressStyle};

/// The progress of a run on stderr: a bar on a terminal; elsewhere (a batch job's log) a
/// plain line every 5 s and at the end, with scenes done, scene-steps/s and the time left.
pub struct Progress {
    bar: Option<ProgressBar>,
    name: String,
    total: usize,
    steps: u64,
    start: std::time::Instant,
    last_line: std::time::Instant,
    done: usize,
}

impl Progress {
    pub fn new(name: &str, total: usize, steps: u64) -> Self {
        use std::io::IsTerminal;
        let bar = std::io::stderr().is_terminal().then(|| {
            ProgressBar::new(total as u64).with_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} scenes, {per_sec}, ETA {eta} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            )
        });
        let now = std::time::Instant::now();
        Self {
            bar,
            name: name.to_string(),
            total,
            steps,
            start: now,
            last_line: now,
            done: 0,
        }
    }

    pub fn update(&mut self, done: usize) {
        self.done = done;
        let elapsed = self.start.elapsed().as_secs_f64();
        let rate = done as f64 * self.steps as f64 / elapsed;
        match &self.bar {
            Some(bar) => {
                bar.set_position(done as u64);
                bar.set_message(format!("({rate:.3e} scene-steps/s)"));
            }
            None if self.last_line.elapsed().as_secs_f64() >= 5.0 => {
                self.last_line = std::time::Instant::now();
                self.line(elapsed, rate);
            }
            None => {}
        }
    }

    fn line(&self, elapsed: f64, rate: f64) {
        let left = elapsed * (self.total - self.done) as f64 / self.done.max(1) as f64;
        eprintln!(
            "{}: {}/{} scenes ({:.0} %), {rate:.3e} scene-steps/s, {elapsed:.0} s, about {left:.0} s left",
            self.name,
            self.done,
            self.total,
            100.0 * self.done as f64 / self.total.max(1) as f64
        );
    }

    pub fn finish(&self) {
        match &self.bar {
            Some(bar) => bar.finish(),
            None => {
                let elapsed = self.start.elapsed().as_secs_f64();
                self.line(elapsed, self.done as f64 * self.steps as f64 / elapsed);
            }
        }
    }
}
