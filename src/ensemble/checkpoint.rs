//! Results that survive a killed run: each finished chunk's rows are written to
//! `OUT/.chunks/` as soon as it completes, so that `--resume` continues an interrupted run
//! from them and ends with the files an uninterrupted run writes, byte for byte (a scene's
//! row does not depend on the chunking, and the rows are put back in scene order).
//!
//! `.chunks/manifest.json` names the run the chunks belong to (the scenario's fingerprint, the
//! shard, the engine kind and precision): a resume refuses chunks of another run, naming the
//! difference. Each chunk is `<first>-<last>.summary.npy` (and `.strobe.npy`, `.events.npy`:
//! binary, so that a chunk's bits come back exactly and cheaply; CSV's decimals had cost more
//! than stepping a short run),
//! written atomically, then its stamp `<first>-<last>.done.json`: the manifest again, the
//! chunk's scenes and each file's fingerprint. A chunk is finished when its stamp exists; a
//! resume checks every finished chunk as strictly as `merge` checks its parts — the stamp's
//! run, each file's fingerprint, the summary's rows (exactly the chunk's scenes, in order) and
//! the scenes of its samples and events — and refuses a changed, truncated or foreign chunk,
//! naming its file, instead of resuming into a result with missing or duplicated scenes.
//!
//! A fresh run removes an earlier run's chunks only; the earlier run's result files stay until
//! the new ones are ready to replace them ([`super::output::RunFiles::write`]).

use std::fs::File;
use std::io::{BufReader, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Table;
use super::atomic::{write_file, write_json};
use super::fingerprint::fnv1a;
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

/// `<first>-<last>.done.json`: a finished chunk's stamp.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    /// The run it belongs to.
    run: Manifest,
    /// Its scenes, [first, last).
    scenes: [usize; 2],
    /// [`fnv1a`] of its summary, strobe and events files.
    fingerprints: [String; 3],
}

/// The chunk files, in the order they are written (the summary last).
const KINDS: [&str; 3] = ["strobe", "events", "summary"];

/// The finished chunks of a run in `OUT/.chunks/`.
pub struct Checkpoints {
    dir: PathBuf,
    run: Manifest,
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
    /// Starts the chunks of a fresh run of `manifest` in `out`, removing an earlier run's.
    pub fn fresh(out: &Path, manifest: &Manifest) -> Result<Self> {
        remove(out)?;
        let dir = out.join(FOLDER);
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "cannot create", e))?;
        write_json(&dir.join("manifest.json"), manifest)?;
        Ok(Self {
            dir,
            run: manifest.clone(),
        })
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
            if let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".done.json")) {
                chunks.push(read_chunk(&dir, stem, &found)?);
            }
        }
        chunks.sort_by_key(|c| c.scenes.start);
        Ok((Self { dir, run: found }, chunks))
    }

    /// Writes a finished chunk, then its stamp (which marks it done).
    pub fn save(&self, chunk: &Chunk) -> Result<()> {
        let stem = format!("{:012}-{:012}", chunk.scenes.start, chunk.scenes.end);
        let mut fingerprints: [String; 3] = Default::default();
        for ((kind, table), fingerprint) in KINDS
            .iter()
            .zip([&chunk.strobe, &chunk.events, &chunk.summary])
            .zip(&mut fingerprints)
        {
            let mut bytes = Vec::new();
            table.write_npy(&mut bytes, &super::INTEGER_COLUMNS)?;
            *fingerprint = fnv1a(&bytes);
            write_file(&self.dir.join(format!("{stem}.{kind}.npy")), |out| {
                Ok(out.write_all(&bytes)?)
            })?;
        }
        let stamp = Stamp {
            run: self.run.clone(),
            scenes: [chunk.scenes.start, chunk.scenes.end],
            fingerprints,
        };
        write_json(&self.dir.join(format!("{stem}.done.json")), &stamp)
    }
}

/// The finished chunk `stem` of `dir`, checked against its stamp and the `run` resumed.
fn read_chunk(dir: &Path, stem: &str, run: &Manifest) -> Result<Chunk> {
    let path = dir.join(format!("{stem}.done.json"));
    let refuse = |p: &Path, why: String| {
        io_error(
            p,
            "cannot resume from this chunk",
            format!("{why}; remove the chunk's files to have its scenes computed again, or run afresh"),
        )
    };
    let file = File::open(&path).map_err(|e| io_error(&path, "cannot open", e))?;
    let stamp: Stamp =
        serde_json::from_reader(BufReader::new(file)).map_err(|e| refuse(&path, format!("unreadable ({e})")))?;
    if stamp.run != *run {
        return Err(refuse(
            &path,
            format!("it belongs to another run ({:?}; the directory's: {run:?})", stamp.run),
        ));
    }
    let [first, last] = stamp.scenes;
    if first >= last || stem != format!("{first:012}-{last:012}") {
        return Err(refuse(
            &path,
            format!("its scenes [{first}, {last}) do not match its name"),
        ));
    }
    let read = |kind: &str, fingerprint: &str| -> Result<Table> {
        let p = dir.join(format!("{stem}.{kind}.npy"));
        let bytes = std::fs::read(&p).map_err(|e| refuse(&p, format!("cannot read it ({e})")))?;
        if fnv1a(&bytes) != fingerprint {
            return Err(refuse(
                &p,
                "it changed after it was written (its fingerprint differs from the stamp's)".into(),
            ));
        }
        let table = Table::read_npy(&bytes[..], &p.display().to_string())?;
        // Rows of this chunk's scenes only; the summary has exactly one per scene, in order.
        let scenes = table.column("scene").unwrap_or_default();
        let ok = match kind {
            "summary" => scenes.len() == last - first && scenes.iter().zip(first..last).all(|(&s, i)| s == i as f64),
            _ => scenes.iter().all(|&s| (first as f64..last as f64).contains(&s)),
        };
        if !ok {
            return Err(refuse(
                &p,
                format!("its {} rows are not those of scenes {first}..{last}", scenes.len()),
            ));
        }
        Ok(table)
    };
    let [strobe, events, summary] = &stamp.fingerprints;
    let (strobe, events, summary) = (
        read(KINDS[0], strobe)?,
        read(KINDS[1], events)?,
        read(KINDS[2], summary)?,
    );
    Ok(Chunk {
        scenes: first..last,
        summary,
        strobe,
        events,
    })
}

/// Removes the chunks of `out` once the run's files are written there.
pub fn remove(out: &Path) -> Result<()> {
    let dir = out.join(FOLDER);
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(&dir, "cannot remove", e)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(scenes: &[usize]) -> Table {
        let mut t = Table::new(vec!["scene".into(), "x".into()]);
        for &s in scenes {
            t.push(&[s as f64, 0.5]);
        }
        t
    }

    fn chunk(scenes: Range<usize>, summary: &[usize], events: &[usize]) -> Chunk {
        Chunk {
            scenes,
            summary: table(summary),
            strobe: table(&[]),
            events: table(events),
        }
    }

    /// Chunks whose files match their stamps' fingerprints but hold the wrong rows (written
    /// so by a faulty run, not changed after) are refused by their rows, naming the file:
    /// a missing row, another chunk's rows, an event of a scene outside the chunk.
    #[test]
    fn wrong_rows_are_refused_even_with_matching_fingerprints() {
        let run = Manifest {
            scenario_hash: "0123456789abcdef".into(),
            shard: [0, 1],
            arithmetic: "cpu f64".into(),
        };
        for (bad, file) in [
            (chunk(0..3, &[0, 1], &[]), "000000000000-000000000003.summary.npy"),
            (chunk(0..3, &[3, 4, 5], &[]), "000000000000-000000000003.summary.npy"),
            (chunk(0..3, &[0, 1, 2], &[1, 9]), "000000000000-000000000003.events.npy"),
        ] {
            let out = tempfile::tempdir().unwrap();
            let checkpoints = Checkpoints::fresh(out.path(), &run).unwrap();
            checkpoints.save(&chunk(3..6, &[3, 4, 5], &[4])).unwrap();
            checkpoints.save(&bad).unwrap();
            let e = Checkpoints::resume(out.path(), &run)
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(file) && e.contains("rows are not those of scenes 0..3"),
                "{e}"
            );
        }
        // The good chunk alone resumes.
        let out = tempfile::tempdir().unwrap();
        Checkpoints::fresh(out.path(), &run)
            .unwrap()
            .save(&chunk(3..6, &[3, 4, 5], &[4]))
            .unwrap();
        let (_, chunks) = Checkpoints::resume(out.path(), &run).unwrap();
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].scenes, 3..6);
    }
}
