//! `ricochet run`: an ensemble with its files, progress, provenance and exit status.

use std::path::PathBuf;
use std::process::ExitCode;

use ricochet::ensemble::formats::Format;
use ricochet::ensemble::large_scene::LargeScenario;
use ricochet::ensemble::output::{RunFiles, RunInfo};
use ricochet::ensemble::provenance::Provenance;
use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Shard, Table};

use super::large::{LargeArgs, run_large};
use super::progress::watch;
use crate::{report_written, write};

/// The arguments of `ricochet run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The scenario file (TOML).
    scenario: PathBuf,
    /// auto (a hardware GPU, else the CPU), gpu, cpu (all cores) or reference (dense f64 stepper).
    #[arg(long, default_value = "auto")]
    backend: Backend,
    /// Overrides the scenario's number of scenes.
    #[arg(long)]
    scenes: Option<usize>,
    /// Overrides the scenario's seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Runs shard i of n (scenes ⌊N i/n⌋ .. ⌊N (i+1)/n⌋); merge the directories afterwards.
    /// `auto`: this Slurm or Grid Engine array task's shard (docs/slurm/).
    #[arg(long, default_value = "0/1")]
    shard: Shard,
    /// Scenes per chunk (bounds host memory; results do not depend on it). Default: what
    /// the engine needs in flight (2^16 on CPUs, up to 2^20 on a GPU).
    #[arg(long)]
    chunk: Option<usize>,
    /// Output directory. Each finished chunk is kept there (in .chunks/) as it completes;
    /// an earlier run's files there are replaced once this run's are ready. One run at a
    /// time: a directory in use by another run is refused.
    #[arg(long, default_value = "results")]
    out: PathBuf,
    /// Continue the run that was interrupted in --out from its finished chunks (same
    /// scenario, shard and backend); the files end as an uninterrupted run's.
    #[arg(long)]
    resume: bool,
    /// `unhealthy`: exit with status 3 (after writing the files) when some scene did not
    /// converge or became NaN or infinite; by default that is only a warning.
    #[arg(long, value_enum)]
    fail_on: Option<FailOn>,
    /// Print one JSON object (the run, its throughput, health and files) instead of text.
    #[arg(long)]
    json: bool,
    /// The tables' formats, comma-separated: csv, npy, parquet (overrides `[output] formats`;
    /// default parquet where the build has it, else csv).
    #[arg(long, value_delimiter = ',')]
    format: Vec<Format>,
}

/// What makes `run` fail after writing its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum FailOn {
    /// Some scene did not converge or became NaN or infinite.
    Unhealthy,
}

/// Runs the ensemble `args` describe and writes its files.
pub fn run_ensemble(args: RunArgs) -> ricochet::Result<ExitCode> {
    let RunArgs {
        scenario,
        backend,
        scenes,
        seed,
        shard,
        chunk,
        out,
        resume,
        fail_on,
        json,
        format,
    } = args;
    let path = scenario;
    if std::fs::read_to_string(&path).is_ok_and(|text| LargeScenario::is_large(&text)) {
        let given = [
            ("--scenes", scenes.is_some()),
            ("--seed", seed.is_some()),
            ("--shard", shard.count != 1),
            ("--chunk", chunk.is_some()),
            ("--fail-on", fail_on.is_some()),
            ("--format", !format.is_empty()),
        ];
        return run_large(LargeArgs {
            path: &path,
            backend,
            out: &out,
            json,
            resume,
            refused: given.iter().filter(|(_, g)| *g).map(|(flag, _)| *flag).collect(),
        });
    }
    let mut scenario = Scenario::load_with(&path, (scenes, seed))?;
    if !format.is_empty() {
        Format::check(&format)?;
        scenario.output.formats = format;
    }
    let options = RunOptions {
        backend,
        chunk,
        shard,
        checkpoints: Some(out.clone()),
        resume,
    };
    let total = shard.range(scenario.scenes).len();
    let steps = scenario.steps();
    if resume {
        log::info!("resuming the run in {}", out.display());
    }
    let started = std::time::SystemTime::now();
    // (The run takes --out before simulating: an unwritable or busy directory is found now.)
    let mut run = watch(&scenario.name, (total, steps), |progress| {
        ensemble::run(&scenario, &options, progress)
    })
    // A drawn scene that is invalid, or one an engine refuses: name the file too.
    .map_err(|e| e.in_place(&path.display().to_string()))?;
    if let Some(notice) = &run.notice {
        log::info!("notice: {notice}");
    }
    let line = format!(
        "{}: {} scenes × {steps} steps on {} in {:.2} s ({:.3e} scene-steps/s)",
        scenario.name,
        run.summary.rows(),
        run.engine,
        run.seconds,
        run.scene_steps as f64 / run.seconds
    );
    let healthy = report_health(&run.summary);
    let stopped = run.stop.as_ref().map(super::statistics::stopped);
    if run.stop.as_ref().is_some_and(|s| !s.met) {
        log::warn!("[stop]: the targets were not met within the cap; raise `scenes` or widen them");
    }
    let summary_json = serde_json::json!({
        "scenario": scenario.name,
        "scenes": run.summary.rows(),
        "steps": steps,
        "engine": run.engine,
        "arithmetic": run.arithmetic,
        "seconds": run.seconds,
        "scene_steps_per_second": run.scene_steps as f64 / run.seconds,
        "healthy": healthy,
        "notice": run.notice,
        "stop": run.stop,
    });
    let (ricochet, commit) = Provenance::build();
    let provenance = Provenance {
        ricochet,
        commit,
        command: std::env::args().collect(),
        scenario_file: path.display().to_string(),
        scenario_hash: scenario.fingerprint(),
        scenario_text: std::fs::read_to_string(&path).unwrap_or_default(),
        engine: run.engine.clone(),
        driver: run.driver.clone(),
        arithmetic: run.arithmetic.clone(),
        resumed: resume,
        started: humantime::format_rfc3339_seconds(started).to_string(),
        finished: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        seconds: run.seconds,
        scene_steps_per_second: run.scene_steps as f64 / run.seconds,
        host: Provenance::host(),
        cpu: Provenance::cpu(),
        dirty: Provenance::dirty(),
    };
    // Held until the files are written and the chunks gone.
    let lock = run.lock.take();
    let files = RunFiles {
        info: RunInfo::new(&scenario, shard, &run),
        summary: run.summary,
        trajectories: run.trajectories,
        strobe: scenario.strobe.is_some().then_some(run.strobe),
        events: scenario.events.is_some().then_some(run.events),
    };
    // The files first: what is computed is kept even where stdout is full or closed.
    let written = write(&files, &out)?;
    let statistics = if json {
        Vec::new()
    } else {
        let mut lines = super::statistics::lines(&files.info, &written.statistics);
        if let Some(sensitivity) = &written.sensitivity {
            lines.extend(super::statistics::sensitivity_lines(&files.info, sensitivity));
        }
        lines
    };
    let mut written = written.paths;
    written.push(provenance.write(&out)?);
    // The run's files are whole: its chunks are no longer needed.
    ricochet::ensemble::checkpoint::remove(&out)?;
    drop(lock);
    let printed = if json {
        let mut object = summary_json;
        object["files"] = serde_json::json!(written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>());
        out!("{object}")
    } else {
        out!("{line}")
            .and_then(|()| stopped.iter().try_for_each(|l| out!("{l}")))
            .and_then(|()| statistics.iter().try_for_each(|l| out!("{l}")))
            .and_then(|()| report_written(&written))
    };
    if fail_on == Some(FailOn::Unhealthy) && !healthy {
        // Status 3 whatever became of stdout: the unhealthy scenes matter more.
        if let Err(e) = printed {
            log::error!("{e}");
        }
        log::error!("unhealthy scenes (--fail-on unhealthy); the files are written");
        return Ok(ExitCode::from(super::exit::UNHEALTHY));
    }
    printed?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the scenes whose LCP missed its tolerance or whose state became non-finite, and
/// returns whether there were none.
fn report_health(summary: &Table) -> bool {
    let column = |name: &str| summary.column(name).unwrap_or_default();
    let (scene, converged, finite) = (column("scene"), column("converged"), column("finite"));
    let (residual, iterations) = (column("lcp_residual"), column("lcp_iterations"));
    let mut healthy = true;
    for (label, flags) in [("did not converge", &converged), ("became NaN or infinite", &finite)] {
        let bad: Vec<usize> = (0..flags.len()).filter(|&i| flags[i] == 0.0).collect();
        if let Some(&i) = bad.first() {
            healthy = false;
            log::warn!(
                "{} scenes {label} (first: scene {}, worst LCP residual {:e} after {} sweeps); their rows are kept",
                bad.len(),
                scene[i],
                residual[i],
                iterations[i]
            );
        }
    }
    healthy
}
