//! The files of a run directory, written the same way by a run and by a merge of shards:
//!
//! - `summary.{parquet,csv,npy}`: one row per scene (see [`super::summary_columns`]);
//! - `stats.json`: [`Statistics`] of every summary column;
//! - `trajectories.*`: the recorded scenes;
//! - `strobe.*`: every scene's stroboscopic samples (scenarios with `[strobe]`);
//! - `events.*`: every scene's impact events (scenarios with `[events]`);
//!
//! each table in every format of `[output] formats` ([`super::formats`]);
//! - `run.json`: the scenario's name, seed, scene count, the shard, the scenario's
//!   fingerprint and the engine kind and precision that computed the rows (and, for a run
//!   `[stop]` ended, where and why);
//! - `sensitivity.json`: a Saltelli design's Sobol indices ([`super::sensitivity`]);
//! - `histograms.png`, `trajectories.png`, `scatter.png`, `sensitivity.png`: see
//!   `super::plots` (with the `plots` feature).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::atomic::{json_to, write_file};
use super::formats::{self, Columns, Format};
use super::{Shard, Statistics, Table};
use crate::error::{Error, Result};

/// `run.json`: what a directory holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Scenario name.
    pub scenario: String,
    /// Its seed.
    pub seed: u64,
    /// Scenes in the whole ensemble.
    pub scenes: usize,
    /// The shard this directory holds, [i, n] ([0, 1]: all of it).
    pub shard: [usize; 2],
    /// [`super::Scenario::fingerprint`] of the scenario run (empty in directories written
    /// before it was recorded).
    #[serde(default)]
    pub scenario_hash: String,
    /// The engine kind and precision that computed the rows ([`super::EnsembleRun::arithmetic`]).
    #[serde(default)]
    pub arithmetic: String,
    /// The drawn (or swept) parameters' columns.
    #[serde(default)]
    pub parameters: Vec<String>,
    /// The columns that answer the study: the observables (`[[observe]]`), then the derived
    /// columns (`[[derive]]`).
    #[serde(default)]
    pub observables: Vec<String>,
    /// The units of the columns whose unit is known ([`super::units::column_units`]).
    #[serde(default)]
    pub units: BTreeMap<String, String>,
    /// A Saltelli design's parameters, in its order (none without one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub saltelli: Vec<String>,
    /// Where `[stop]` stopped the run (its `scenes` are those run) and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<super::stop::Stopped>,
    /// The formats of the tables (`[output] formats`): a directory's tables are read from
    /// these only, and a merge writes them. (Empty in a `run.json` written before it was
    /// recorded: [`RunFiles::read`] takes the formats the summary is there in.)
    #[serde(default)]
    pub formats: Vec<Format>,
}

/// A run's results, as written to or read from a directory.
pub struct RunFiles {
    /// `run.json`.
    pub info: RunInfo,
    /// `summary.*`.
    pub summary: Table,
    /// `trajectories.*`.
    pub trajectories: Table,
    /// `strobe.*`, where the scenario asks for stroboscopic samples.
    pub strobe: Option<Table>,
    /// `events.*`, where the scenario asks for impact events.
    pub events: Option<Table>,
}

pub use super::atomic::prepare_dir;

/// The tables of a run directory, each `{stem}.{extension}` in every format written.
pub const TABLES: [&str; 4] = ["summary", "trajectories", "strobe", "events"];

/// Every file a run or a merge writes into its directory: the [`TABLES`] in every format,
/// the JSON files and the plots.
pub fn files() -> Vec<String> {
    let tables = TABLES.iter().flat_map(|stem| Format::ALL.map(|f| f.file(stem)));
    let others = [
        "stats.json",
        "sensitivity.json",
        "run.json",
        "provenance.json",
        "histograms.png",
        "trajectories.png",
        "scatter.png",
        "sensitivity.png",
    ];
    tables.chain(others.map(String::from)).collect()
}

/// Removes from `dir` the result files an earlier run or merge wrote there (the [`files`] and
/// the half-written `.partial-` forms a killed run left), so that a directory never holds
/// files of two runs; other files, the chunks of a run among them, are left alone.
pub fn clear(dir: &Path) -> Result<()> {
    let files = files();
    let partial: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|name| {
                    // Only the temporary forms of our own files (`.partial-<stem>.…`).
                    files.iter().any(|f| {
                        let stem = f.rsplit_once('.').map_or(f.as_str(), |(stem, _)| stem);
                        name.starts_with(&format!("{}{stem}.", super::atomic::PARTIAL))
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    for name in files.iter().cloned().chain(partial) {
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::Parse {
                    file: path.display().to_string(),
                    reason: format!("cannot remove an earlier run's file: {e}"),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// What [`RunFiles::write`] wrote.
#[derive(Clone, Debug)]
pub struct Written {
    /// The files, in the order written.
    pub paths: Vec<PathBuf>,
    /// The statistics `stats.json` holds.
    pub statistics: Statistics,
    /// The Sobol indices `sensitivity.json` holds (a Saltelli design's run).
    pub sensitivity: Option<super::sensitivity::Sensitivity>,
    /// Why the plots are missing, where they could not be drawn.
    pub notice: Option<String>,
}

impl RunFiles {
    /// Replaces the result files of `dir` (created if needed) by these: an earlier run's go
    /// ([`clear`]) only now that these are ready, then each is written atomically. Returns
    /// the paths written, the statistics of `stats.json` and, when the plots could not be
    /// drawn, why.
    pub fn write(&self, dir: &Path) -> Result<Written> {
        // (Checked before the earlier run's files go.)
        Format::check(&self.info.formats)?;
        prepare_dir(dir)?;
        clear(dir)?;
        let path = |name: &str| dir.join(name);
        let mut written = Vec::new();
        let mut file = |name: &str, write: &dyn Fn(&mut BufWriter<File>) -> Result<()>| -> Result<()> {
            let p = path(name);
            write_file(&p, write)?;
            written.push(p);
            Ok(())
        };
        let columns = Columns {
            integers: &super::summary::INTEGER_COLUMNS,
            units: &self.info.units,
        };
        let tables = [
            Some(&self.summary),
            Some(&self.trajectories),
            self.strobe.as_ref(),
            self.events.as_ref(),
        ];
        for (stem, table) in TABLES.iter().zip(tables) {
            let Some(table) = table else { continue };
            for &format in &self.info.formats {
                file(&format.file(stem), &|out| formats::write(table, format, out, columns))?;
            }
        }
        let statistics = Statistics::of(&self.summary);
        file("stats.json", &|out| json_to(out, &statistics))?;
        file("run.json", &|out| json_to(out, &self.info))?;
        let sensitivity = super::sensitivity::of(&self.summary, &self.info.saltelli, self.info.seed);
        if let Some(sensitivity) = &sensitivity {
            file("sensitivity.json", &|out| json_to(out, sensitivity))?;
        }
        #[cfg(feature = "plots")]
        let plots = {
            let info = &self.info;
            let run = super::plots::Run {
                title: super::plots::Run::title(&info.scenario, (info.scenes, info.seed), info.shard),
                units: &info.units,
                parameters: &info.parameters,
                observables: &info.observables,
                sensitivity: sensitivity.as_ref().map(|s| (info.saltelli.as_slice(), s)),
            };
            super::plots::draw(dir, &run, &self.summary, &self.trajectories)?
        };
        #[cfg(not(feature = "plots"))]
        let plots: std::result::Result<Vec<PathBuf>, String> = Err("this build has no `plots` feature".into());
        let notice = match plots {
            Ok(plots) => {
                written.extend(plots);
                None
            }
            Err(reason) => Some(format!("no plots: {reason}")),
        };
        Ok(Written {
            paths: written,
            statistics,
            sensitivity,
            notice,
        })
    }

    /// Reads the directory a run (or a merge) wrote.
    pub fn read(dir: &Path) -> Result<Self> {
        let p = dir.join("run.json");
        let mut info: RunInfo =
            serde_json::from_reader(BufReader::new(formats::open(&p)?)).map_err(|e| Error::Parse {
                file: p.display().to_string(),
                reason: e.to_string(),
            })?;
        if info.formats.is_empty() {
            info.formats = formats::present(dir, "summary");
        }
        let required = |stem: &str| {
            formats::read(dir, stem, &info.formats)?.ok_or_else(|| Error::Parse {
                file: dir.join(format!("{stem}.*")).display().to_string(),
                reason: format!(
                    "no such table in the directory, in the formats its run.json names ({})",
                    info.formats
                        .iter()
                        .map(|f| f.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
        };
        let (summary, trajectories) = (required("summary")?, required("trajectories")?);
        let strobe = formats::read(dir, "strobe", &info.formats)?;
        let events = formats::read(dir, "events", &info.formats)?;
        Ok(Self {
            info,
            summary,
            trajectories,
            strobe,
            events,
        })
    }

    /// Merges shards of one ensemble into what a single run would have written: rows sorted
    /// by scene, and every scene present exactly once.
    pub fn merge(parts: Vec<RunFiles>) -> Result<Self> {
        let wrong = |reason: String| Error::Scenario {
            what: "merge".into(),
            reason,
        };
        let mut parts = parts.into_iter();
        let first = parts.next().ok_or_else(|| wrong("no directory given".into()))?;
        let (mut summary, mut trajectories) = (first.summary, first.trajectories);
        let (mut strobe, mut events) = (first.strobe, first.events);
        let info = RunInfo {
            shard: [0, 1],
            ..first.info
        };
        for part in parts {
            let [i, n] = part.info.shard;
            if (&part.info.scenario, part.info.seed, part.info.scenes) != (&info.scenario, info.seed, info.scenes) {
                return Err(wrong(format!(
                    "shards of different ensembles: {:?} vs {:?}",
                    part.info, info
                )));
            }
            if part.info.scenario_hash != info.scenario_hash {
                return Err(wrong(format!(
                    "the part holding shard {i}/{n} ran another scenario (its text differs: fingerprint {} vs {})",
                    part.info.scenario_hash, info.scenario_hash
                )));
            }
            if part.info.arithmetic != info.arithmetic {
                return Err(wrong(format!(
                    "the part holding shard {i}/{n} was computed by {}, the first by {}: their rows differ in rounding",
                    part.info.arithmetic, info.arithmetic
                )));
            }
            let place = |e: Error| e.in_place(&format!("merge: the part holding shard {i}/{n}"));
            summary.append(&part.summary).map_err(place)?;
            trajectories.append(&part.trajectories).map_err(place)?;
            for (what, all, rows) in [
                ("stroboscopic samples", &mut strobe, &part.strobe),
                ("impact events", &mut events, &part.events),
            ] {
                match (all, rows) {
                    (Some(all), Some(rows)) => all.append(rows).map_err(place)?,
                    (None, None) => {}
                    _ => {
                        return Err(wrong(format!(
                            "the part holding shard {i}/{n} has {what} where the first has not, or none where it has"
                        )));
                    }
                }
            }
        }
        summary.sort_by_leading(1);
        trajectories.sort_by_leading(2);
        // (Both are in time order within a scene; an event's row breaks ties.)
        if let Some(strobe) = &mut strobe {
            strobe.sort_by_leading(2);
        }
        if let Some(events) = &mut events {
            events.sort_by_leading(3);
        }
        let scenes = summary.column("scene").unwrap_or_default();
        if let Some(i) = (0..info.scenes).find(|&i| scenes.get(i) != Some(&(i as f64))) {
            return Err(wrong(format!(
                "scene {i} is missing or duplicated ({} rows for {} scenes)",
                scenes.len(),
                info.scenes
            )));
        }
        if scenes.len() != info.scenes {
            return Err(wrong(format!("{} rows for {} scenes", scenes.len(), info.scenes)));
        }
        Ok(Self {
            info,
            summary,
            trajectories,
            strobe,
            events,
        })
    }
}

impl RunInfo {
    /// The info of `run`, a run of `scenario`'s `shard`.
    pub fn new(scenario: &super::Scenario, shard: Shard, run: &super::EnsembleRun) -> Self {
        Self {
            scenario: scenario.name.clone(),
            seed: scenario.seed,
            scenes: run.stop.as_ref().map_or(scenario.scenes, |s| s.scenes),
            shard: [shard.index, shard.count],
            scenario_hash: scenario.fingerprint(),
            arithmetic: run.arithmetic.clone(),
            parameters: run.plan.drawn.clone(),
            observables: scenario.answers(),
            units: run.plan.units.clone(),
            saltelli: run.plan.saltelli.clone(),
            stop: run.stop.clone(),
            formats: scenario.output.formats.clone(),
        }
    }
}
