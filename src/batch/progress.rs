//! How far a run has gone, for another thread to watch: the engines add the scene-steps they
//! finish as they go (the CPU lanes per group every [`TICK`] steps, the GPU kernel per
//! submission of dispatches, up to 16 per chunk, the reference per scene every [`TICK`]
//! steps), so a progress bar moves within
//! a chunk of scenes, not only between chunks.
//!
//! The same thread may [`cancel`](Progress::cancel) the run: the engines stop at their next
//! report (the CPU lanes and the reference within [`TICK`] steps; the GPU after the
//! submissions already queued for its chunk), and the ensemble returns
//! [`Error::Interrupted`](crate::Error::Interrupted), keeping the chunks it finished.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Steps between two reports of a CPU group of lanes or of a reference scene.
pub const TICK: u32 = 256;

/// The counter of the jobs whose progress nobody watches.
pub static UNWATCHED: Progress = Progress::new();

/// Scene-steps done so far (a relaxed counter: cheap to add to from every core), and how
/// many of them were taken from an interrupted run's finished chunks rather than computed.
#[derive(Debug)]
pub struct Progress {
    scene_steps: AtomicU64,
    resumed: AtomicU64,
    cancelled: AtomicBool,
    stop_at: AtomicU64,
}

impl Default for Progress {
    fn default() -> Self {
        Self::new()
    }
}

impl Progress {
    /// A counter at 0.
    pub const fn new() -> Self {
        Self {
            scene_steps: AtomicU64::new(0),
            resumed: AtomicU64::new(0),
            cancelled: AtomicBool::new(false),
            stop_at: AtomicU64::new(u64::MAX),
        }
    }

    /// Asks the run to stop (from any thread): the engines stop at their next report.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Asks the run to stop once `scene_steps` are done (counted as [`Progress::scene_steps`]):
    /// a cancel at a known point, for a run that must stop there (a time-boxed job, a test).
    pub fn cancel_after(&self, scene_steps: u64) {
        self.stop_at.store(scene_steps, Ordering::Relaxed);
    }

    /// Whether the run was asked to stop ([`Progress::cancel`], or past
    /// [`Progress::cancel_after`]'s count).
    pub fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed) || self.scene_steps() >= self.stop_at.load(Ordering::Relaxed)
    }

    /// Adds `scene_steps` done.
    pub fn add(&self, scene_steps: u64) {
        self.scene_steps.fetch_add(scene_steps, Ordering::Relaxed);
    }

    /// Adds `scene_steps` taken from an interrupted run's finished chunks (done, not computed:
    /// a rate leaves them out).
    pub fn add_resumed(&self, scene_steps: u64) {
        self.add(scene_steps);
        self.resumed.fetch_add(scene_steps, Ordering::Relaxed);
    }

    /// The scene-steps taken from an interrupted run ([`Progress::add_resumed`]).
    pub fn resumed(&self) -> u64 {
        self.resumed.load(Ordering::Relaxed)
    }

    /// Takes back `scene_steps` added for work that is redone.
    pub fn take_back(&self, scene_steps: u64) {
        self.scene_steps.fetch_sub(scene_steps, Ordering::Relaxed);
    }

    /// The scene-steps done so far.
    pub fn scene_steps(&self) -> u64 {
        self.scene_steps.load(Ordering::Relaxed)
    }
}
