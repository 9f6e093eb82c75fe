//! How the runs of a command show their progress: a [`Watch`] hands each run the counter
//! its engine adds to (and through which it may be cancelled).

use crate::batch::Progress;

/// Shows the progress of one run after another (a bar on a terminal, a notebook's widget).
pub trait Watch {
    /// Runs `work` with a counter, shown as `name`: `scenes` scenes of `steps` steps each.
    fn watch<T>(&self, name: &str, size: (usize, u64), work: impl FnOnce(&Progress) -> T) -> T;
}

/// Shows nothing: each run gets a fresh counter.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unwatched;

impl Watch for Unwatched {
    fn watch<T>(&self, _: &str, _: (usize, u64), work: impl FnOnce(&Progress) -> T) -> T {
        work(&Progress::new())
    }
}
