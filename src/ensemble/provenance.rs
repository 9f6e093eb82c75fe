//! `provenance.json`: how a run's files came to be — the ricochet version and commit, the
//! command line, the scenario file, its full text and fingerprint, the engine (adapter) and
//! precision, the threads, the start and end times, the wall time and the throughput. Kept out
//! of `run.json`, which shards and merges must reproduce byte for byte.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::atomic::write_json;
use crate::error::Result;

/// What `provenance.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Provenance {
    /// `ricochet` and its version.
    pub ricochet: String,
    /// The git commit it was built from (empty when built outside git).
    pub commit: String,
    /// The command line.
    pub command: Vec<String>,
    /// The scenario file, its fingerprint ([`super::Scenario::fingerprint`]) and its text.
    pub scenario_file: String,
    /// The fingerprint.
    pub scenario_hash: String,
    /// The scenario's text, whole.
    pub scenario_text: String,
    /// The engine, described (adapter, threads, instruction set).
    pub engine: String,
    /// The engine kind and precision.
    pub arithmetic: String,
    /// Whether the run continued an interrupted one (`--resume`).
    pub resumed: bool,
    /// Start and end (RFC 3339, UTC).
    pub started: String,
    /// End.
    pub finished: String,
    /// Wall-clock seconds of the simulation.
    pub seconds: f64,
    /// Scene-steps per second computed in this run.
    pub scene_steps_per_second: f64,
    /// The operating system and architecture.
    pub host: String,
}

impl Provenance {
    /// The version line and commit of this build.
    pub fn build() -> (String, String) {
        (
            format!("ricochet {}", env!("CARGO_PKG_VERSION")),
            option_env!("RICOCHET_COMMIT").unwrap_or_default().to_string(),
        )
    }

    /// This machine: `linux x86_64`.
    pub fn host() -> String {
        format!("{} {}", std::env::consts::OS, std::env::consts::ARCH)
    }

    /// Writes `provenance.json` into `dir` (atomically); returns its path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf> {
        let path = dir.join("provenance.json");
        write_json(&path, self)?;
        Ok(path)
    }
}
