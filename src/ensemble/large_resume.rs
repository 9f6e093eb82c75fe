//! What a large-scene run keeps so that `--resume` continues it after a kill: every
//! `[output] checkpoint` steps (and when cancelled), `OUT/.checkpoint/` gets the scene's
//! state after that step ([`SceneState`], `state-<step>.bin`), the `series.csv` rows so far
//! (`series-<step>.csv`), then `manifest.json` naming them — the run (the scenario's
//! fingerprint, the engine and ricochet's version), the step, each file's fingerprint and
//! the run's tallies. The manifest is written last and the older files removed after it, and
//! a finished run removes the manifest before the rest, so a kill at any moment leaves no
//! manifest or one whose files exist. A resumed run ends with the files an
//! uninterrupted one writes, byte for byte; a checkpoint of another scenario or engine, or
//! a changed file, is refused by name.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::atomic::{write_atomically, write_json};
use super::fingerprint::fnv1a;
use crate::error::{Error, Result};
use crate::large_scene::colouring::RULE;
use crate::large_scene::{LargeScene, SceneState};

/// The folder of the checkpoint inside a run's directory.
pub const FOLDER: &str = ".checkpoint";

/// `manifest.json`: what the checkpoint belongs to and holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Manifest {
    /// The scenario's fingerprint ([`super::large_scene::LargeScenario::fingerprint`]).
    scenario_hash: String,
    /// The engine that computed it (another one's bits differ).
    engine: String,
    /// The ricochet that wrote it (`CARGO_PKG_VERSION`).
    version: String,
    /// The colouring rule ([`crate::large_scene::colouring::RULE`]), which orders the sweeps:
    /// the same version may have coloured otherwise (checkpoints without it: key order).
    #[serde(default = "key_order")]
    colouring: String,
    /// The steps taken.
    steps: u64,
    /// [`fnv1a`] of `state-<steps>.bin` and `series-<steps>.csv`.
    fingerprints: [String; 2],
    /// The run's tallies so far.
    tally: Tally,
}

/// What a run adds up over its steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Σ active contacts × sweeps.
    pub contact_iterations: u64,
    /// Steps whose sweeps stopped at the cap.
    pub unconverged_steps: u64,
}

/// A run's checkpoint folder.
pub struct Checkpoint {
    dir: PathBuf,
    scenario_hash: String,
    engine: String,
}

/// What a checkpoint gives back.
pub struct Resumed {
    /// The scene's state.
    pub state: SceneState,
    /// The `series.csv` rows to its step.
    pub series: Vec<String>,
    /// The tallies to its step.
    pub tally: Tally,
    /// The state's file (for errors).
    pub file: PathBuf,
}

impl Checkpoint {
    /// The checkpoint of the run of the scenario `scenario_hash` on `engine` in `out`.
    pub fn new(out: &Path, scenario_hash: String, engine: String) -> Self {
        Self {
            dir: out.join(FOLDER),
            scenario_hash,
            engine,
        }
    }

    /// Removes it (a fresh run, or a finished one): the manifest first, so that what a kill
    /// leaves is never a manifest without its files.
    pub fn remove(&self) -> Result<()> {
        let manifest = self.dir.join("manifest.json");
        for (path, result) in [
            (&manifest, std::fs::remove_file(&manifest)),
            (&self.dir, std::fs::remove_dir_all(&self.dir)),
        ] {
            match result {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(self.error(path, "cannot remove", e));
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn error(&self, path: &Path, what: &str, e: impl std::fmt::Display) -> Error {
        Error::Parse {
            file: path.display().to_string(),
            reason: format!("{what}: {e}"),
        }
    }

    /// Keeps `scene`'s state with the `series` rows and the `tally` to its step.
    pub fn save(&self, scene: &LargeScene, series: &[String], tally: Tally) -> Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(|e| self.error(&self.dir, "cannot create", e))?;
        let steps = scene.steps;
        let state = scene.state().to_bytes();
        let rows = series.iter().map(|r| format!("{r}\n")).collect::<String>();
        let [state_file, series_file] = files(steps);
        write_atomically(&self.dir.join(&state_file), |p| Ok(std::fs::write(p, &state)?))?;
        write_atomically(&self.dir.join(&series_file), |p| Ok(std::fs::write(p, &rows)?))?;
        let manifest = Manifest {
            scenario_hash: self.scenario_hash.clone(),
            engine: self.engine.clone(),
            version: VERSION.into(),
            colouring: RULE.into(),
            steps,
            fingerprints: [fnv1a(&state), fnv1a(rows.as_bytes())],
            tally,
        };
        write_json(&self.dir.join("manifest.json"), &manifest)?;
        // The files of earlier checkpoints, now that the manifest names these.
        for entry in std::fs::read_dir(&self.dir).map_err(|e| self.error(&self.dir, "cannot read", e))? {
            let name = entry.map_err(|e| self.error(&self.dir, "cannot read", e))?.file_name();
            let name = name.to_string_lossy();
            let earlier = (name.starts_with("state-") || name.starts_with("series-"))
                && name != state_file
                && name != series_file;
            if earlier {
                let path = self.dir.join(name.as_ref());
                std::fs::remove_file(&path).map_err(|e| self.error(&path, "cannot remove", e))?;
            }
        }
        Ok(())
    }

    /// The state an interrupted run of this scenario on this engine left; an error naming
    /// the file when there is none, it is another run's, or a file changed since.
    pub fn load(&self) -> Result<Resumed> {
        let path = self.dir.join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => self.error(&path, "nothing to resume (no interrupted run here)", e),
            _ => self.error(&path, "cannot resume: cannot read", e),
        })?;
        let found: Manifest =
            serde_json::from_str(&text).map_err(|e| self.error(&path, "cannot resume: unreadable", e))?;
        let differs = |what: &str, theirs: &str, ours: &str| {
            Err(self.error(
                &path,
                "cannot resume",
                format!("it is a run of another {what} ({theirs}; this run: {ours}); run without --resume"),
            ))
        };
        if found.scenario_hash != self.scenario_hash {
            return differs("scenario (fingerprint)", &found.scenario_hash, &self.scenario_hash);
        }
        if found.engine != self.engine {
            return differs("engine", &found.engine, &self.engine);
        }
        if found.version != VERSION {
            return differs("ricochet (version)", &found.version, VERSION);
        }
        if found.colouring != RULE {
            return differs("colouring", &found.colouring, RULE);
        }
        let read = |name: &str, fingerprint: &str| -> Result<Vec<u8>> {
            let p = self.dir.join(name);
            let bytes = std::fs::read(&p).map_err(|e| self.error(&p, "cannot resume: cannot read", e))?;
            if fnv1a(&bytes) != fingerprint {
                return Err(self.error(&p, "cannot resume", "it changed after it was written (its fingerprint differs from the manifest's); run without --resume"));
            }
            Ok(bytes)
        };
        let [state_file, series_file] = files(found.steps);
        let state_bytes = read(&state_file, &found.fingerprints[0])?;
        let file = self.dir.join(&state_file);
        let state = SceneState::from_bytes(&state_bytes, &file.display().to_string())?;
        let series = read(&series_file, &found.fingerprints[1])?;
        let series = String::from_utf8_lossy(&series).lines().map(str::to_owned).collect();
        if state.steps != found.steps {
            let why = format!(
                "its state is after step {}, the manifest's {}",
                state.steps, found.steps
            );
            return Err(self.error(&path, "cannot resume", why));
        }
        Ok(Resumed {
            state,
            series,
            tally: found.tally,
            file,
        })
    }
}

/// The colouring of checkpoints written before the manifest named it.
fn key_order() -> String {
    "greedy in pair key order".into()
}

/// The version a checkpoint must have been written by.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The state's and the series' files of the checkpoint after `steps` steps.
fn files(steps: u64) -> [String; 2] {
    [format!("state-{steps:012}.bin"), format!("series-{steps:012}.csv")]
}
