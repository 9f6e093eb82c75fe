//! The draws checked before stepping: every scene of a run built up front (or chunk by chunk
//! past [`DRAWS_CHECKED_FIRST`] scenes), so that a draw that makes a scene invalid stops the
//! run at once, naming the scene.

use std::ops::Range;

use rayon::prelude::*;

use super::custom::Sampler;
use super::scene_spec::SampledScene;
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
///
/// With `keep` (the run's first chunk is all of `scenes`) the scenes built are returned in
/// order, so that the run steps them instead of drawing them a second time; a bad draw is
/// then found after every scene is built rather than at the first.
pub(super) fn check_draws(
    sampler: &Sampler,
    plan: &Plan,
    scenes: &Range<usize>,
    progress: &Progress,
    keep: bool,
) -> Result<Option<Vec<SampledScene>>> {
    if plan.drawn.is_empty() {
        return Ok(None);
    }
    let coordinates = &plan.coordinates;
    let bad = |built: &Result<SampledScene>| {
        built
            .as_ref()
            .map_or(true, |scene| scene.scene.coordinate_names() != *coordinates)
    };
    // (Building scenes may be slow, a user's Python function say: a cancel stops it.)
    let first_bad = if keep {
        let built: Vec<Result<SampledScene>> = scenes
            .clone()
            .into_par_iter()
            .map(|s| match progress.cancelled() {
                true => Err(interrupted(0, false)),
                false => sampler.sample(s),
            })
            .collect();
        match built.iter().position(bad) {
            None => return Ok(Some(built.into_iter().collect::<Result<_>>()?)),
            Some(_) if progress.cancelled() => return Err(interrupted(0, false)),
            Some(i) => scenes.start + i,
        }
    } else {
        match scenes
            .clone()
            .into_par_iter()
            .find_first(|&s| progress.cancelled() || bad(&sampler.sample(s)))
        {
            None => return Ok(None),
            Some(_) if progress.cancelled() => return Err(interrupted(0, false)),
            Some(s) => s,
        }
    };
    Err(refusal(sampler, plan, first_bad))
}

/// Why scene `s`, found bad by [`check_draws`], is refused: its own error, or its
/// coordinates against scene 0's.
fn refusal(sampler: &Sampler, plan: &Plan, s: usize) -> Error {
    let scene = match sampler.sample(s) {
        Ok(scene) => scene,
        Err(e) => return e,
    };
    let coordinates = &plan.coordinates;
    let values: Vec<String> = (plan.drawn.iter().zip(&scene.drawn))
        .map(|(name, value)| format!("{name} = {value}"))
        .collect();
    Error::Scenario {
        what: format!("scene {s} (drawn: {})", values.join(", ")),
        reason: format!(
            "has {} degrees of freedom ({}) where scene 0 has {} ({}): the scenes of an ensemble have the same coordinates",
            scene.scene.dof(),
            scene.scene.coordinate_names().join(", "),
            coordinates.len(),
            coordinates.join(", ")
        ),
    }
}
