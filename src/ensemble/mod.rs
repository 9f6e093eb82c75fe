//! Monte Carlo ensembles: a [`Scenario`] (a scene template whose parameters are fixed or
//! drawn per scene), run on a [`Backend`], summarised scene by scene in a [`Table`] with its
//! [`Statistics`], plus the trajectories of a few scenes.
//!
//! Scene s draws its parameters from its own random stream keyed by (seed, s), and every
//! backend steps scenes independently, so a scene's row is the same whatever the chunking,
//! the sharding or the thread count.
//!
//! ```
//! use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Statistics};
//!
//! let scenario = Scenario::from_toml(r#"
//!     name = "balls"
//!     scenes = 64
//!     seed = 7
//!     [scene]
//!     template = "bouncing_ball"
//!     height = { uniform = [1.0, 2.0] }
//!     restitution = 0.9
//!     [time]
//!     step = 1e-3
//!     final = 1.0
//! "#).unwrap();
//! let options = RunOptions { backend: Backend::Cpu, ..Default::default() };
//! let run = ensemble::run(&scenario, &options, &ensemble::Progress::new()).unwrap();
//! let impacts = run.summary.column("impacts").unwrap();
//! // Dropped from 1–2 m (centre; radius 0.1 m), every ball hits the floor within 0.6 s and
//! // bounces at most twice in 1 s.
//! assert!(impacts.iter().all(|&n| (1.0..=2.0).contains(&n)));
//! let stats = Statistics::of(&run.summary);
//! assert_eq!(stats.columns["height"].count, 64);
//! ```

mod atomic;
pub mod bench;
pub mod check;
pub mod checkpoint;
pub mod custom;
pub mod derive;
pub mod design;
mod draws;
mod engine;
pub mod fingerprint;
pub mod formats;
pub mod intervals;
pub mod large_bench;
pub mod large_output;
pub mod large_resume;
pub mod large_run;
pub mod large_scene;
pub mod large_solver;
pub mod lock;
pub mod observables;
pub mod output;
pub mod plan;
#[cfg(feature = "plots")]
pub mod plots;
pub mod provenance;
pub mod records;
pub mod sampling;
pub mod scenario;
pub mod scene_spec;
mod scene_toml;
pub mod sensitivity;
mod settings;
mod shard;
pub mod shipped;
pub mod stats;
pub mod stop;
mod summary;
pub mod table;
#[cfg(feature = "gpu")]
pub mod tune;
pub mod units;
pub mod verify;
pub mod watch;

use std::ops::Range;
use std::time::Instant;

use rayon::prelude::*;

pub use crate::batch::Progress;
pub use crate::engine::Engine;
pub use engine::{Backend, job, open as open_engine};
pub use plan::Plan;
pub use scenario::Scenario;
pub use shard::Shard;
pub use stats::Statistics;
pub use summary::{INTEGER_COLUMNS, summary_columns};
use summary::{append_summary, record, trajectory_columns};
pub use table::Table;
pub use watch::{Unwatched, Watch};

use crate::batch::observe::Recording;
use crate::error::{Error, Result};
use checkpoint::{Checkpoints, Chunk, Manifest};
use draws::{DRAWS_CHECKED_FIRST, check_draws};
use scene_spec::SampledScene;

/// How to run an ensemble.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Where.
    pub backend: Backend,
    /// Scenes built, stepped and summarised at a time; `None`: what the engine needs to be
    /// busy ([`Engine::scenes_in_flight`]: 2¹⁶ on CPUs, up to 2²⁰ on a GPU). Results do not
    /// depend on it.
    pub chunk: Option<usize>,
    /// The slice of the scenes to run.
    pub shard: Shard,
    /// The run's directory, where each finished chunk is kept ([`checkpoint`]) so that a
    /// killed run can be resumed; `None`: nothing is written while running.
    pub checkpoints: Option<std::path::PathBuf>,
    /// Continue the interrupted run whose chunks are in `checkpoints` (else start afresh,
    /// removing what an earlier run left there).
    pub resume: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            backend: Backend::Auto,
            chunk: None,
            shard: Shard { index: 0, count: 1 },
            checkpoints: None,
            resume: false,
        }
    }
}

/// What a run produced.
pub struct EnsembleRun {
    /// The backend, described.
    pub engine: String,
    /// The adapter's driver and its version, where the engine runs on one.
    pub driver: Option<String>,
    /// The engine kind and precision that computed the rows (`cpu f64`, `gpu f32`,
    /// `reference f64`): shards merge only when this is the same.
    pub arithmetic: String,
    /// Why `Auto` chose what it chose, when not the GPU.
    pub notice: Option<String>,
    /// One row per scene (see [`summary_columns`]).
    pub summary: Table,
    /// `scene, t, q…, v…` every `record.stride` steps of the recorded scenes.
    pub trajectories: Table,
    /// `scene, t, q…, v…` of every scene at the stroboscopic times of `[strobe]` (no rows
    /// without).
    pub strobe: Table,
    /// The impact events of `[events]` ([`records::event_columns`]; no rows without).
    pub events: Table,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
    /// Seconds the device spent stepping the summary's scenes, where it measures them
    /// ([`BatchOutcome::device_seconds`](crate::engine::BatchOutcome::device_seconds)).
    pub device_seconds: Option<f64>,
    /// Scenes × steps computed (a resumed run's finished chunks are not counted).
    pub scene_steps: u64,
    /// The run's directory (`RunOptions::checkpoints`), held against other runs until this
    /// is dropped: write the run's files before letting it go.
    pub lock: Option<lock::DirLock>,
    /// What the run knew of its scenario: sizes, coordinates, columns and their units.
    pub plan: Plan,
    /// Where `[stop]` stopped the run, and why.
    pub stop: Option<stop::Stopped>,
}

/// Runs the scenes of `options.shard`, adding the scene-steps done to `progress` as the
/// engine goes (another thread may watch it: the scenes done are its count over
/// [`Scenario::steps`]; a resumed run's finished chunks count at once);
/// with `options.checkpoints`, each finished chunk is kept there as it completes (and with
/// `options.resume`, the chunks an interrupted run left are taken instead of recomputed).
pub fn run(scenario: &Scenario, options: &RunOptions, progress: &Progress) -> Result<EnsembleRun> {
    // No other run may use the directory while this one keeps chunks there.
    let lock = match &options.checkpoints {
        Some(out) => {
            output::prepare_dir(out)?;
            let command: Vec<String> = std::env::args().collect();
            Some(lock::DirLock::acquire(out, &command.join(" "))?)
        }
        None => None,
    };
    let plan = scenario.plan()?;
    let (engine, notice) = engine::open_planned(options.backend, scenario, &plan.recording.observers)?;
    let saved = options.checkpoints.as_deref().map(|out| {
        let manifest = Manifest {
            scenario_hash: scenario.fingerprint(),
            shard: [options.shard.index, options.shard.count],
            arithmetic: arithmetic(engine.as_ref()),
        };
        (out, manifest, options.resume)
    });
    let scenes = options.shard.range(scenario.scenes);
    let mut run = run_chunks(
        engine.as_ref(),
        (scenario, plan),
        (scenes, options.chunk),
        saved,
        progress,
    )?;
    run.notice = notice;
    run.lock = lock;
    Ok(run)
}

/// The scenes a chunk may hold within a quarter of this machine's memory: each takes about
/// twice its operators and its record (8 bytes per value: the batch, and the engine's copy).
/// The scenes have n dof and m rows (`sizes`) and keep `recording`.
fn memory_bound((n, m): (usize, usize), recording: &Recording) -> usize {
    // (RATTLE's dense length with stiffness, the largest.)
    use crate::batch::layout::{HAS_STIFFNESS, RATTLE};
    let values = crate::batch::SceneHeader::operator_len(n, m, RATTLE | HAS_STIFFNESS) + recording.len(n, m);
    let per_scene = 16 * values as u64;
    crate::validate::machine_memory().map_or(usize::MAX, |bytes| (bytes / 4 / per_scene).max(1) as usize)
}

/// The engine kind and precision (`cpu f64`, `gpu f32`, …).
fn arithmetic(engine: &dyn Engine) -> String {
    format!("{} {}", engine.name(), if engine.double() { "f64" } else { "f32" })
}

/// The error of a run cancelled after `done` scenes, whose finished chunks are `kept` in its
/// directory or not.
fn interrupted(done: usize, kept: bool) -> Error {
    let what = if kept {
        format!("{done} scenes were done; their chunks are kept for a resumed run")
    } else {
        format!("{done} scenes were done; nothing was kept")
    };
    Error::Interrupted { what }
}

/// Runs `scenes` on an opened engine, `chunk` scenes at a time (`None`: as many as the engine
/// needs in flight).
pub fn run_on(
    engine: &dyn Engine,
    scenario: &Scenario,
    scenes: Range<usize>,
    chunk: Option<usize>,
    progress: &Progress,
) -> Result<EnsembleRun> {
    run_chunks(engine, (scenario, scenario.plan()?), (scenes, chunk), None, progress)
}

/// [`run_on`], keeping each finished chunk in `saved`'s directory (a fresh run's, cleared of
/// an earlier run's files once the run's arguments and draws are checked; or, resuming, the
/// interrupted run's, whose finished chunks are taken instead of computed).
fn run_chunks(
    engine: &dyn Engine,
    (scenario, plan): (&Scenario, Plan),
    (scenes, chunk): (Range<usize>, Option<usize>),
    saved: Option<(&std::path::Path, Manifest, bool)>,
    progress: &Progress,
) -> Result<EnsembleRun> {
    let (steps, recording, sizes) = (plan.steps, &plan.recording, plan.sizes());
    let chunk = match chunk {
        Some(0) => {
            return Err(Error::Scenario {
                what: "chunk".into(),
                reason: "must be at least 1 scene".into(),
            });
        }
        Some(chunk) => chunk,
        None if scenes.is_empty() => 1,
        None => {
            let example = [scenario.sample(scenes.start)?];
            let busy = engine.scenes_in_flight(&engine::job(scenario, &example, None, steps, recording))?;
            busy.min(memory_bound(sizes, recording))
        }
    };
    let sampler = scenario.sampler()?;
    // (A stop rule's cap may be far more scenes than it runs: their draws are checked per
    // chunk, and the summary grows as it needs.)
    let draws_first = scenario.stop.is_none() && scenes.len() <= DRAWS_CHECKED_FIRST;
    if draws_first {
        check_draws(&sampler, &plan, &scenes, progress)?;
    }
    log::debug!(
        "{}: scenes {scenes:?} in chunks of {chunk} on {}",
        scenario.name,
        engine.describe()
    );
    // Timed from here: the check above is not the run's throughput.
    let start = Instant::now();
    let empty = [
        Table::new(plan.columns.clone()),
        Table::new(trajectory_columns(&plan.coordinates)),
        Table::new(records::event_columns()),
    ];
    let [mut summary, mut strobe, mut events] = empty.clone();
    // (One allocation for the summary's rows, not a copy of the table at each doubling.)
    if scenario.stop.is_none() {
        summary
            .values
            .reserve_exact(scenes.len().saturating_mul(summary.columns.len()));
    }
    let (checkpoints, finished) = match saved {
        None => (None, Vec::new()),
        Some((out, manifest, true)) => Checkpoints::resume(out, &manifest).map(|(c, f)| (Some(c), f))?,
        // (An earlier run's chunks go; its result files stay until this run's replace them.)
        Some((out, manifest, false)) => (Some(Checkpoints::fresh(out, &manifest)?), Vec::new()),
    };
    let mut finished = finished.into_iter().peekable();
    let mut stop = match &scenario.stop {
        Some(rule) => Some(stop::StopTest::new(
            rule,
            &plan.columns,
            (&scenes, scenario.scenes),
            sampler.design(),
        )?),
        None => None,
    };
    let mut stopped = None;
    let mut computed = 0;
    let mut device_seconds = Some(0.0);
    let mut at = scenes.start;
    while at < scenes.end || finished.peek().is_some() {
        // A chunk an interrupted run finished: its rows as they were written.
        if let Some(chunk) = finished.next_if(|c| c.scenes.start == at && c.scenes.end <= scenes.end) {
            let kept = |e: Error| e.in_place(&format!("the kept chunk of scenes {:?}", chunk.scenes));
            summary.append(&chunk.summary).map_err(kept)?;
            strobe.append(&chunk.strobe).map_err(kept)?;
            events.append(&chunk.events).map_err(kept)?;
            at = chunk.scenes.end;
            progress.add_resumed(chunk.scenes.len() as u64 * u64::from(steps));
            if let Some(test) = &mut stop {
                stopped = test.add(&chunk.summary)?;
                if stopped.is_some() {
                    break;
                }
            }
            continue;
        }
        let next = finished.peek().map_or(scenes.end, |c| c.scenes.start.min(scenes.end));
        if next <= at || at >= scenes.end {
            return Err(Error::Scenario {
                what: format!("resume: the chunk of scenes {:?}", finished.peek().map(|c| &c.scenes)),
                reason: format!("overlaps the others or lies outside scenes {scenes:?}"),
            });
        }
        // (A chunk ends on the stop rule's next test, so that the test sees whole chunks.)
        let test = stop.as_ref().map_or(usize::MAX, stop::StopTest::next_test);
        let last = at.saturating_add(chunk).min(next).min(test);
        if !draws_first {
            check_draws(&sampler, &plan, &(at..last), progress)?;
        }
        let sampling = Instant::now();
        let sampled: Vec<SampledScene> = (at..last)
            .into_par_iter()
            .map(|s| match progress.cancelled() {
                true => Err(interrupted(at - scenes.start, checkpoints.is_some())),
                false => sampler.sample(s),
            })
            .collect::<Result<_>>()?;
        let mut job = engine::job(scenario, &sampled, None, steps, recording);
        job.progress = progress;
        let stepping = Instant::now();
        let outcome = engine.run(&job)?;
        if progress.cancelled() {
            // (The chunk's rows are cut short: dropped.)
            return Err(interrupted(at - scenes.start, checkpoints.is_some()));
        }
        let seconds = stepping.elapsed().as_secs_f64();
        let sampled_in = stepping.duration_since(sampling).as_secs_f64();
        device_seconds = device_seconds.zip(outcome.device_seconds).map(|(a, b)| a + b);
        let [mut part, mut samples, mut impacts] = empty.clone();
        append_summary(
            [&mut part, &mut samples, &mut impacts],
            (scenario, recording, sizes),
            &sampled,
            &outcome,
            &job.offsets().0,
        )?;
        let part = Chunk {
            scenes: at..last,
            summary: part,
            strobe: samples,
            events: impacts,
        };
        if let Some(checkpoints) = &checkpoints {
            checkpoints.save(&part)?;
        }
        summary.append(&part.summary)?;
        strobe.append(&part.strobe)?;
        events.append(&part.events)?;
        // The chunk's scenes are many small allocations: free them on all cores.
        sampled.into_par_iter().for_each(drop);
        log::debug!(
            "scenes {at}..{last}: drawn in {sampled_in:.3} s, stepped in {seconds:.3} s ({:.3e} \
             scene-steps/s), summarised in {:.3} s",
            (last - at) as f64 * f64::from(steps) / seconds,
            stepping.elapsed().as_secs_f64() - seconds
        );
        computed += last - at;
        at = last;
        if let Some(test) = &mut stop {
            stopped = test.add(&part.summary)?;
            if stopped.is_some() {
                break;
            }
        }
    }
    let all = stopped.as_ref().map_or(scenario.scenes, |s| s.scenes);
    let recorded: Vec<usize> = scenario
        .recorded_among(all)
        .into_iter()
        .filter(|s| scenes.contains(s))
        .collect();
    let trajectories = record(engine, (scenario, &plan.coordinates, plan.steps), &recorded, progress)?;
    if progress.cancelled() {
        return Err(interrupted(computed, checkpoints.is_some()));
    }
    Ok(EnsembleRun {
        engine: engine.describe(),
        driver: engine.driver(),
        arithmetic: arithmetic(engine),
        notice: None,
        summary,
        trajectories,
        strobe,
        events,
        seconds: start.elapsed().as_secs_f64(),
        device_seconds,
        scene_steps: computed as u64 * u64::from(steps),
        lock: None,
        plan,
        stop: stopped,
    })
}
