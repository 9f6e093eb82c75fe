//! What the engines recorded of each scene ([`Recording`]) as tables: the stroboscopic
//! samples (`strobe.*`) and the impact events (`events.*`).

use super::Table;
use super::scene_spec::SampledScene;
use crate::batch::BatchOutcome;
use crate::batch::observe::{EVENT, Recording};

/// The columns of the events table: `scene, t, row, ydot_before, ydot_after, impulse`.
pub fn event_columns() -> Vec<String> {
    ["scene", "t", "row", "ydot_before", "ydot_after", "impulse"]
        .map(String::from)
        .to_vec()
}

/// Appends the stroboscopic samples (`scene, t, q…, v…`) and the impact events of `scenes`,
/// whose records (of scenes of n dof and m rows: `sizes`) are in `outcome`, to `strobe` and
/// `events`; `h` is the step.
pub fn append(
    (strobe, events): (&mut Table, &mut Table),
    (recording, (n, m), h): (&Recording, (usize, usize), f64),
    scenes: &[SampledScene],
    outcome: &BatchOutcome,
) {
    let len = recording.len(n, m);
    for (k, scene) in scenes.iter().enumerate() {
        let record = &outcome.observed[len * k..len * (k + 1)];
        let index = scene.index as f64;
        if let Some(samples) = recording.strobe {
            let states = record[recording.sample_at(n, 0)..recording.events_at(n)].chunks(2 * n);
            for (j, state) in states.enumerate() {
                let step = samples.first + j as u32 * samples.every;
                let mut row = vec![index, f64::from(step) * h];
                row.extend(state);
                strobe.push(&row);
            }
        }
        if recording.events.is_some() {
            let part = &record[recording.events_at(n)..];
            for event in part[2 + m..].chunks(EVENT).take(part[0] as usize) {
                let [step, row, before, after, impulse] = [0, 1, 2, 3, 4].map(|i| event[i]);
                events.push(&[index, step * h, row, before, after, impulse]);
            }
        }
    }
}

/// The number of impact events of scene `k` of `outcome` dropped past the limit.
pub fn dropped(recording: &Recording, (n, m): (usize, usize), outcome: &BatchOutcome, k: usize) -> f64 {
    outcome.observed[recording.len(n, m) * k + recording.events_at(n) + 1]
}
