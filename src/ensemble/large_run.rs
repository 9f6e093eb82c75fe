//! A large-scene scenario's run ([`LargeScenario::run`]): its steps taken by a
//! [`Stepper`] between the reads of the state — a row of `series.csv`, a snapshot, a
//! checkpoint — then `final.csv` and, for a 2-D scene, `final.png`.

use std::path::{Path, PathBuf};

use super::atomic::{prepare_dir, write_atomically};
use super::large_output::{SERIES_HEADER, final_header, final_rows, series_row, snapshot, snapshot_file, write_lines};
use super::large_resume::{Checkpoint, Tally};
use super::large_scene::LargeScenario;
use super::lock::DirLock;
use crate::batch::Progress;
use crate::error::{Error, Result};
use crate::io::vtk;
use crate::large_scene::{LargeScene, Stepper};

/// What a run did.
#[derive(Clone, Debug, PartialEq)]
pub struct LargeRun {
    /// Bodies in the scene.
    pub bodies: usize,
    /// Steps taken.
    pub steps: u64,
    /// Steps taken from a checkpoint (`--resume`), not computed.
    pub resumed_steps: u64,
    /// Wall-clock seconds of the stepping (of the steps computed).
    pub seconds: f64,
    /// Σ over the steps computed (not those resumed) of active contacts × sweeps.
    pub contact_iterations: f64,
    /// Steps whose sweeps stopped at the cap (the whole run's).
    pub unconverged_steps: u64,
    /// The files written.
    pub files: Vec<PathBuf>,
    /// Why a 2-D scene's `final.png` was not drawn (no font, or no `plots` feature).
    pub notice: Option<String>,
}

impl LargeScenario {
    /// Runs the scene to the final time, its steps taken by `solver` ([`solver`]),
    /// writing `series.csv`, `final.csv` and the snapshots into `out` (held against other
    /// runs meanwhile, [`DirLock`]); adds each step to `progress` and, when it is
    /// cancelled, keeps the state and stops with [`Error::Interrupted`]. Every
    /// `[output] checkpoint` steps the state is kept in `out` ([`super::large_resume`]):
    /// with `resume` the run continues from there, else it starts afresh.
    ///
    /// [`solver`]: super::large_solver::solver
    pub fn run(&self, out: &Path, solver: &mut dyn Stepper, resume: bool, progress: &Progress) -> Result<LargeRun> {
        prepare_dir(out)?;
        let command: Vec<String> = std::env::args().collect();
        let _lock = DirLock::acquire(out, &command.join(" "))?;
        let mut scene = self.build()?;
        let checkpoint = Checkpoint::new(out, self.fingerprint(), solver.engine());
        let (mut series, mut tally) = (vec![series_row(&scene, None)], Tally::default());
        if resume {
            let resumed = checkpoint.load()?;
            let file = resumed.file.display().to_string();
            scene.restore(resumed.state).map_err(|e| e.in_place(&file))?;
            (series, tally) = (resumed.series, resumed.tally);
            progress.add_resumed(scene.steps);
        } else {
            checkpoint.remove()?;
        }
        let (first, steps) = (scene.steps, self.steps());
        let resumed_iterations = tally.contact_iterations;
        let every_snapshot = self.output.snapshots;
        let snapshot_due = |k: u64| every_snapshot > 0 && (k.is_multiple_of(every_snapshot) || k == steps);
        let h = self.time.step;
        let mut snapshots: Vec<(f64, String)> = (0..first)
            .filter(|&k| snapshot_due(k))
            .map(|k| (LargeScene::time_after(k, h), snapshot_file(k)))
            .collect();
        if every_snapshot > 0 {
            std::fs::create_dir_all(out.join("snapshots"))?;
            if snapshot_due(first) {
                snapshots.push(snapshot(out, &scene, first)?);
            }
        }
        let every_checkpoint = self.output.checkpoint;
        let every = self.output.every;
        // The next step after k at which the state is read: a series row, a snapshot, a
        // checkpoint or the end (the solver takes the steps between at once).
        let next_read = |k: u64| {
            let after = |period: u64| (period > 0).then(|| (k / period + 1) * period);
            [after(every), after(every_snapshot), after(every_checkpoint)]
                .into_iter()
                .flatten()
                .fold(steps, u64::min)
        };
        let started = std::time::Instant::now();
        let mut k = first;
        while k < steps {
            let mut last = None;
            solver.advance(&mut scene, next_read(k) - k, &mut |report| {
                tally.contact_iterations += (report.active * report.sweeps) as u64;
                tally.unconverged_steps += u64::from(!report.converged);
                last = Some(report);
                progress.add(1);
                !progress.cancelled()
            })?;
            k = scene.steps;
            if k % every == 0 || k == steps {
                series.push(series_row(&scene, last.as_ref()));
            }
            if snapshot_due(k) {
                snapshots.push(snapshot(out, &scene, k)?);
            }
            if k < steps && progress.cancelled() {
                checkpoint.save(&scene, &series, tally)?;
                return Err(Error::Interrupted {
                    what: format!(
                        "the state after step {k} of {steps} in {}: --resume continues",
                        out.join(super::large_resume::FOLDER).display()
                    ),
                });
            }
            if every_checkpoint > 0 && k.is_multiple_of(every_checkpoint) && k < steps {
                checkpoint.save(&scene, &series, tally)?;
            }
        }
        let seconds = started.elapsed().as_secs_f64();
        let mut files = vec![out.join("series.csv"), out.join("final.csv")];
        if !snapshots.is_empty() {
            let index = out.join("snapshots.pvd");
            let text = vtk::collection(&snapshots);
            write_atomically(&index, |p| Ok(std::fs::write(p, &text)?))?;
            files.push(index);
        }
        write_atomically(&files[0], |p| write_lines(p, SERIES_HEADER, &series))?;
        write_atomically(&files[1], |p| {
            write_lines(p, &final_header(&scene), &final_rows(&scene))
        })?;
        let notice = self.picture(out, &scene, &mut files);
        checkpoint.remove()?;
        Ok(LargeRun {
            bodies: scene.bodies.len(),
            steps,
            resumed_steps: first,
            seconds,
            contact_iterations: (tally.contact_iterations - resumed_iterations) as f64,
            unconverged_steps: tally.unconverged_steps,
            files,
            notice,
        })
    }

    /// `final.png` of a 2-D scene into `out` (added to `files`); why it is not drawn (no
    /// font, or a failed drawing: the run's results stand without it).
    #[cfg(feature = "plots")]
    fn picture(&self, out: &Path, scene: &LargeScene, files: &mut Vec<PathBuf>) -> Option<String> {
        if scene.bodies.dimension != crate::large_scene::Dimension::Two {
            return None;
        }
        match super::plots::draw_discs(out, scene, &self.name).unwrap_or_else(|e| Err(e.to_string())) {
            Ok(path) => {
                files.push(path);
                None
            }
            Err(reason) => Some(format!("final.png not drawn: {reason}")),
        }
    }

    /// A build without the `plots` feature (the Python module's) draws no picture and says
    /// nothing of it.
    #[cfg(not(feature = "plots"))]
    fn picture(&self, _: &Path, _: &LargeScene, _: &mut Vec<PathBuf>) -> Option<String> {
        None
    }
}
