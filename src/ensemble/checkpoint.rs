//! Results that survive a killed run: each finished chunk's rows are written to
//! `OUT/.chunks/` as soon as it completes, so that `--resume` continues an interrupted run
//! from them and ends with the files an uninterrupted run writes, byte for byte (a scene's
//! row does not depend on the chunking, and the rows are put back in scene order).
//!
//! `.chunks/manifest.json` names the run the chunks belong to (the scenario's fingerprint, the
//! shard, the engine kind and precision): a resume refuses chunks of another run, naming the
//! difference. Each chunk is `<first>-<last>.summary.csv` (and `.strobe.csv`, `.events.csv`), written
//! atomically, the summary last: a chunk is finished when its summary file exists. A fresh run
//! first removes what an earlier run left in the directory ([`super::output::clear`]), so a
//! directory never mixes two runs, and the final files appear only once the run is complete.

use std::fs::File;
use std::io::BufReader;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Table;
use super::atomic::{write_file, write_json};
use crate::error::{Error, Result};

/// The folder of the chunks inside a run's directory.
pub const FOLDER: &str = ".chunks";

/// What the chunks of a directory belong to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`super::Scenario::fingerprint`] of the scenario (scene count and seed included).
    pub scenario_hash: String,
    /// The shard, [i, n].
    pub shard: [usize; 2],
    /// The engine kind and precision that computed the rows.
    pub arithmetic: String,
}

/// The finished chunks of a run in `OUT/.chunks/`.
pub struct Checkpoints {
    dir: PathBuf,
}

/// A finished chunk: its scenes, summary rows and stroboscopic samples.
pub struct Chunk {
    /// Its scenes.
    pub scenes: Range<usize>,
    /// Their summary rows.
    pub summary: Table,
    /// Their stroboscopic samples.
    pub strobe: Table,
    /// Their impact events.
    pub events: Table,
}

fn io_error(path: &Path, what: &str, e: impl std::fmt::Display) -> Error {
    Error::Parse {
        file: path.display().to_string(),
        reason: format!("{what}: {e}"),
    }
}

impl Checkpoints {
    /// Starts the chunks of a fresh run of `manifest` in `out` (which [`super::output::clear`]
    /// has cleared of an earlier run's files).
    pub fn fresh(out: &Path, manifest: &Manifest) -> Result<Self> {
        let dir = out.join(FOLDER);
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "cannot create", e))?;
        write_json(&dir.join("manifest.json"), manifest)?;
        Ok(Self { dir })
    }

    /// The chunks an interrupted run of `manifest` left in `out`; an error naming the
    /// difference when they belong to another run, or naming the directory when there are
    /// none to resume.
    pub fn resume(out: &Path, manifest: &Manifest) -> Result<(Self, Vec<Chunk>)> {
        let dir = out.join(FOLDER);
        let path = dir.join("manifest.json");
        let file = File::open(&path).map_err(|e| io_error(&path, "nothing to resume (no interrupted run here)", e))?;
        let found: Manifest =
            serde_json::from_reader(BufReader::new(file)).map_err(|e| io_error(&path, "unreadable", e))?;
        let differs = |what: &str, theirs: &dyn std::fmt::Debug, ours: &dyn std::fmt::Debug| {
            Err(io_error(
                &path,
                "cannot resume",
                format!("its chunks are of another {what} ({theirs:?}; this run: {ours:?})"),
            ))
        };
        if found.scenario_hash != manifest.scenario_hash {
            return differs("scenario (fingerprint)", &found.scenario_hash, &manifest.scenario_hash);
        }
        if found.shard != manifest.shard {
            return differs("shard", &found.shard, &manifest.shard);
        }
        if found.arithmetic != manifest.arithmetic {
            return differs("engine and precision", &found.arithmetic, &manifest.arithmetic);
        }
        let mut chunks = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(|e| io_error(&dir, "cannot read", e))? {
            let name = entry.map_err(|e| io_error(&dir, "cannot read", e))?.file_name();
            let Some(range) = name.to_str().and_then(|n| n.strip_suffix(".summary.csv")) else {
                continue;
            };
            let Some((first, last)) = range
                .split_once('-')
                .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)))
                .filter(|(first, last)| first < last)
            else {
                continue;
            };
            let read = |kind: &str| -> Result<Table> {
                let p = dir.join(format!("{range}.{kind}.csv"));
                let file = File::open(&p).map_err(|e| io_error(&p, "cannot open", e))?;
                Table::read_csv(BufReader::new(file), &p.display().to_string())
            };
            chunks.push(Chunk {
                scenes: first..last,
                summary: read("summary")?,
                strobe: read("strobe")?,
                events: read("events")?,
            });
        }
        chunks.sort_by_key(|c| c.scenes.start);
        Ok((Self { dir }, chunks))
    }

    /// Writes a finished chunk (the summary last: its file marks the chunk done).
    pub fn save(&self, chunk: &Chunk) -> Result<()> {
        let stem = format!("{:012}-{:012}", chunk.scenes.start, chunk.scenes.end);
        for (kind, table) in [
            ("strobe", &chunk.strobe),
            ("events", &chunk.events),
            ("summary", &chunk.summary),
        ] {
            write_file(&self.dir.join(format!("{stem}.{kind}.csv")), |out| table.write_csv(out))?;
        }
        Ok(())
    }
}

/// Removes the chunks of `out` once the run's files are written there.
pub fn remove(out: &Path) -> Result<()> {
    let dir = out.join(FOLDER);
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(&dir, "cannot remove", e)),
        _ => Ok(()),
    }
}
