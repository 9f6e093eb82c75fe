//! `provenance.json`: how a run's files came to be — the ricochet version and commit, the
//! command line, the scenario file, its full text and fingerprint, the engine (adapter) and
//! precision, the threads, the start and end times, the wall time and the throughput. Kept out
//! of `run.json`, which shards and merges must reproduce byte for byte.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

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
    /// The adapter's driver and its version (GPU runs).
    pub driver: Option<String>,
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
    /// The machine's name, operating system and architecture.
    pub host: String,
    /// Its processor and the threads it offers (`Intel(R) Xeon(R) … (16 threads)`).
    pub cpu: String,
    /// Whether the build's git tree had uncommitted changes (`None` outside git).
    pub dirty: Option<bool>,
}

impl Provenance {
    /// The version line and commit of this build.
    pub fn build() -> (String, String) {
        (
            format!("ricochet {}", env!("CARGO_PKG_VERSION")),
            option_env!("RICOCHET_COMMIT").unwrap_or_default().to_string(),
        )
    }

    /// This machine: its name, operating system and architecture (`node1 linux x86_64`).
    pub fn host() -> String {
        format!(
            "{} {} {}",
            super::lock::host_name(),
            std::env::consts::OS,
            std::env::consts::ARCH
        )
    }

    /// This machine's processor (`model name` of /proc/cpuinfo, where the system tells) and
    /// the threads it offers this process.
    pub fn cpu() -> String {
        let model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, name)| name.trim().to_string())
        });
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        format!(
            "{} ({threads} threads)",
            model.as_deref().unwrap_or("unknown processor")
        )
    }

    /// Whether the build's tree had uncommitted changes to tracked files (`None` when it
    /// was built outside git).
    pub fn dirty() -> Option<bool> {
        option_env!("RICOCHET_DIRTY").map(|d| d == "true")
    }

    /// Writes `provenance.json` into `dir` (atomically); returns its path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf> {
        let path = dir.join("provenance.json");
        write_json(&path, self)?;
        Ok(path)
    }
}

/// `provenance.json` of a merge: what merged the parts, and each part's own provenance (as its
/// directory holds it; `null` where it has none).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MergeProvenance {
    /// `ricochet` and its version.
    pub ricochet: String,
    /// The git commit it was built from.
    pub commit: String,
    /// The command line.
    pub command: Vec<String>,
    /// When the merge was written (RFC 3339, UTC).
    pub finished: String,
    /// The machine.
    pub host: String,
    /// Each part's directory and its `provenance.json`.
    pub parts: Vec<(String, Option<Value>)>,
}

impl MergeProvenance {
    /// The provenance of a merge of `dirs` by `command`, finished at `finished`.
    pub fn of(dirs: &[PathBuf], command: Vec<String>, finished: String) -> Self {
        let (ricochet, commit) = Provenance::build();
        let parts = dirs
            .iter()
            .map(|dir| {
                let text = std::fs::read(dir.join("provenance.json")).ok();
                let value = text.and_then(|t| serde_json::from_slice(&t).ok());
                (dir.display().to_string(), value)
            })
            .collect();
        Self {
            ricochet,
            commit,
            command,
            finished,
            host: Provenance::host(),
            parts,
        }
    }

    /// Writes `provenance.json` into `dir` (atomically); returns its path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf> {
        let path = dir.join("provenance.json");
        write_json(&path, self)?;
        Ok(path)
    }
}
