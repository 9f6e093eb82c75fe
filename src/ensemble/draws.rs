//! The draws checked before stepping: every scene of a run built up front (or chunk by chunk
//! past [`DRAWS_CHECKED_FIRST`] scenes), so that a draw that makes a scene invalid stops the
//! run at once, naming the scene.

use std::ops::Range;

use rayon::prelude::*;

use super::custom::Sampler;
use super::{Plan, Progress, interrupted};
use crate::error::{Error, Result};

/// The largest run whose draws are all checked before its first chunk ([`check_draws`]).
pub(super) const DRAWS_CHECKED_FIRST: usize = 1 << 20;

/// Builds every scene of `scenes` before any is stepped, so that a draw that makes a scene
/// invalid (a restitution drawn above 1, …) stops the run at once, naming the lowest such
/// scene and its drawn values, instead of after the chunks before it were computed. Without
/// drawn parameters every scene is scene 0, which [`super::Scenario::validate`] built.
///
/// Up to [`DRAWS_CHECKED_FIRST`] scenes are checked before the first chunk; a larger run has
/// each chunk's draws checked before it is stepped, so that it starts at once at any size.
///
/// Every scene must also have scene 0's coordinates (the summary's columns and the engines'
/// records are laid out for them): a draw that changes them (a disc pile whose drawn friction
/// is 0 for some scenes only) is refused, naming the scene.
pub(super) fn check_draws(sampler: &Sampler, plan: &Plan, scenes: &Range<usize>, progress: &Progress) -> Result<()> {
    if plan.drawn.is_empty() {
        return Ok(());
    }
    let coordinates = &plan.coordinates;
    let bad = |s: usize| {
        sampler
            .sample(s)
            .map_or(true, |scene| scene.scene.coordinate_names() != *coordinates)
    };
    // (Building scenes may be slow, a user's Python function say: a cancel stops it.)
    match scenes
        .clone()
        .into_par_iter()
        .find_first(|&s| progress.cancelled() || bad(s))
    {
        None => Ok(()),
        Some(_) if progress.cancelled() => Err(interrupted(0, false)),
        Some(s) => {
            let scene = sampler.sample(s)?;
            let values: Vec<String> = (plan.drawn.iter().zip(&scene.drawn))
                .map(|(name, value)| format!("{name} = {value}"))
                .collect();
            Err(Error::Scenario {
                what: format!("scene {s} (drawn: {})", values.join(", ")),
                reason: format!(
                    "has {} degrees of freedom ({}) where scene 0 has {} ({}): the scenes of an ensemble have the same coordinates",
                    scene.scene.dof(),
                    scene.scene.coordinate_names().join(", "),
                    coordinates.len(),
                    coordinates.join(", ")
                ),
            })
        }
    }
}
