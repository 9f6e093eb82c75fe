//! The progress of `run`, `verify` and `bench` on stderr, watched from a thread of its own
//! while the engines add the scene-steps they finish to an [`ensemble::Progress`] (so it
//! moves within a chunk of scenes, on every backend).

use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use ricochet::ensemble;

/// How often the display looks at the counter.
const LOOK: Duration = Duration::from_millis(100);

/// Between two plain lines on a non-terminal stderr (a batch job's log).
const LINE: Duration = Duration::from_secs(5);

/// Runs `work` with a fresh counter while showing, under `name`, how many of `scenes` scenes
/// of `steps` steps are done: a bar on a terminal; elsewhere a plain line every 5 s and one at
/// the end, with scenes done, scene-steps/s and the time left (nothing with `-q`). A Ctrl-C
/// meanwhile cancels the counter ([`super::interrupt`]): the run stops where it keeps what it
/// computed.
pub fn watch<T>(name: &str, (scenes, steps): (usize, u64), work: impl FnOnce(&ensemble::Progress) -> T) -> T {
    let progress = ensemble::Progress::new();
    let (finished, done) = std::sync::mpsc::channel::<()>();
    // (`-q`: no display)
    let mut display = log::log_enabled!(log::Level::Info).then(|| Display::new(name, scenes, steps));
    super::interrupt::catch();
    std::thread::scope(|scope| {
        let (display, progress) = (&mut display, &progress);
        scope.spawn(move || {
            // Every LOOK until the work is done (or has panicked: the sender is dropped).
            while let Err(RecvTimeoutError::Timeout) = done.recv_timeout(LOOK) {
                if super::interrupt::take() {
                    progress.cancel();
                }
                if let Some(display) = display.as_mut() {
                    display.update(progress);
                }
            }
            if let Some(display) = display.as_mut() {
                display.update(progress);
                display.finish();
            }
        });
        // (Owned here, so that a panic in `work` drops it and the watcher stops.)
        let finished = finished;
        let result = work(progress);
        super::interrupt::release();
        let _ = finished.send(());
        result
    })
}

/// [`watch`] as the library's [`ensemble::Watch`], for the commands that make several runs.
pub struct Bar;

impl ensemble::Watch for Bar {
    fn watch<T>(&self, name: &str, size: (usize, u64), work: impl FnOnce(&ensemble::Progress) -> T) -> T {
        watch(name, size, work)
    }
}

/// The bar or the plain lines.
struct Display {
    bar: Option<ProgressBar>,
    name: String,
    total: usize,
    steps: u64,
    start: Instant,
    last_line: Instant,
    scene_steps: u64,
    /// Of which taken from an interrupted run (not in the rate).
    resumed: u64,
}

impl Display {
    fn new(name: &str, total: usize, steps: u64) -> Self {
        use std::io::IsTerminal;
        // (With -v the debug lines would break into a bar: plain lines then.)
        let plain = !std::io::stderr().is_terminal() || log::log_enabled!(log::Level::Debug);
        let bar = (!plain).then(|| {
            ProgressBar::new(total as u64).with_style(
                ProgressStyle::with_template("{prefix} {bar:40} {pos}/{len} scenes, ETA {eta} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            )
        });
        if let Some(bar) = &bar {
            bar.set_prefix(name.to_string());
        }
        let now = Instant::now();
        Self {
            bar,
            name: name.to_string(),
            total,
            steps: steps.max(1),
            start: now,
            last_line: now,
            scene_steps: 0,
            resumed: 0,
        }
    }

    /// Scenes done (whole ones).
    fn done(&self) -> usize {
        ((self.scene_steps / self.steps) as usize).min(self.total)
    }

    /// Scene-steps computed per second (a resumed run's finished chunks left out).
    fn rate(&self) -> f64 {
        (self.scene_steps - self.resumed) as f64 / self.start.elapsed().as_secs_f64()
    }

    fn update(&mut self, progress: &ensemble::Progress) {
        (self.scene_steps, self.resumed) = (progress.scene_steps(), progress.resumed());
        match &self.bar {
            Some(bar) => {
                bar.set_position(self.done() as u64);
                bar.set_message(format!("({:.3e} scene-steps/s)", self.rate()));
            }
            None if self.last_line.elapsed() >= LINE => {
                self.last_line = Instant::now();
                self.line();
            }
            None => {}
        }
    }

    fn line(&self) {
        let elapsed = self.start.elapsed().as_secs_f64();
        let total = self.total as f64 * self.steps as f64;
        let fraction = (self.scene_steps as f64 / total.max(1.0)).min(1.0);
        // What is left at the rate of what was computed (not of what a resume took).
        let rate = self.rate();
        // (Before the first scene-steps there is no rate to tell the time left by.)
        let pace = if self.scene_steps > self.resumed && rate.is_finite() && rate > 0.0 {
            let left = (total - self.scene_steps as f64).max(0.0) / rate;
            format!("{rate:.3e} scene-steps/s, {elapsed:.0} s, about {left:.0} s left")
        } else {
            format!("{elapsed:.0} s, starting")
        };
        // (A full or closed stderr loses the line, not the run.)
        let _ = writeln_stderr(format_args!(
            "{}: {}/{} scenes ({:.0} %), {pace}",
            self.name,
            self.done(),
            self.total,
            100.0 * fraction,
        ));
    }

    fn finish(&self) {
        match &self.bar {
            Some(bar) => bar.finish(),
            None => self.line(),
        }
    }
}

fn writeln_stderr(args: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    use std::io::Write;
    writeln!(std::io::stderr().lock(), "{args}")
}
