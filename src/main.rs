//! `ricochet`: Monte Carlo ensembles of nonsmooth mechanical systems from scenario files.
//!
//! ```text
//! ricochet run scenarios/bouncing_balls.toml --out results/
//! ricochet verify scenarios/bouncing_balls.toml --scenes 32
//! ricochet bench scenarios/bouncing_balls.toml --scenes 1000 100000
//! ricochet run scenario.toml --shard 0/4 --out part0/   (… then)   ricochet merge part*/ --out all/
//! ricochet adapters
//! ricochet templates
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ricochet::ensemble::output::{RunFiles, RunInfo};
use ricochet::ensemble::provenance::Provenance;
use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Shard, Table};

#[derive(Parser)]
#[command(
    name = "ricochet",
    version,
    about = "Monte Carlo ensembles of bouncing, impacting systems on the GPU or the CPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Runs an ensemble and writes summary.csv, summary.npy, stats.json, trajectories.csv and plots.
    Run {
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
        #[arg(long, default_value = "0/1")]
        shard: Shard,
        /// Scenes per chunk (bounds host memory; results do not depend on it). Default: what
        /// the engine needs in flight (2^16 on CPUs, up to 2^20 on a GPU).
        #[arg(long)]
        chunk: Option<usize>,
        /// Output directory. Each finished chunk is kept there (in .chunks/) as it completes;
        /// a fresh run first removes the files an earlier run left there.
        #[arg(long, default_value = "results")]
        out: PathBuf,
        /// Continue the run that was interrupted in --out from its finished chunks (same
        /// scenario, shard and backend); the files end as an uninterrupted run's.
        #[arg(long)]
        resume: bool,
        /// `unhealthy`: exit with status 2 (after writing the files) when some scene did not
        /// converge or became NaN or infinite; by default that is only a warning.
        #[arg(long, value_enum)]
        fail_on: Option<FailOn>,
        /// Print one JSON object (the run, its throughput, health and files) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Runs K scenes on the reference stepper, the CPU backend and the GPU, and fails if they differ.
    Verify {
        /// The scenario file.
        scenario: PathBuf,
        /// Scenes to compare (the ensemble's first ones).
        #[arg(long, default_value_t = 32)]
        scenes: usize,
        /// Stop at this time if the scenario runs longer (a quicker check).
        #[arg(long)]
        max_time: Option<f64>,
        /// Print one JSON object (per engine, each column's deviation and verdict).
        #[arg(long)]
        json: bool,
    },
    /// Prints scene-steps per second of every backend: one JSON line per run on stdout, then a
    /// table on stderr.
    Bench {
        /// The scenario file (default: the bouncing-ball ensemble).
        scenario: Option<PathBuf>,
        /// Ensemble sizes.
        #[arg(long, num_args = 1.., default_values_t = [1000usize, 100_000])]
        scenes: Vec<usize>,
        /// Run the reference stepper up to this many scenes.
        #[arg(long, default_value_t = 1000)]
        reference_up_to: usize,
    },
    /// Merges the directories of the shards of one ensemble into what one run would have written.
    Merge {
        /// Shard directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Lists the GPU adapters (pick one with RICOCHET_ADAPTER=name-or-backend).
    Adapters,
    /// Lists every scene template with its parameters and their defaults, in the order the
    /// template asks for them.
    Templates,
    /// A dry run: validates the scenario (every scene built), prints its drawn parameters'
    /// ranges, size and records, and per backend an estimate of the run's time and memory.
    Check {
        /// The scenario file.
        scenario: PathBuf,
    },
    /// Draws one column of a run's table against another (e.g. --x gap --y impacts).
    Plot {
        /// A run's (or a merge's) directory.
        dir: PathBuf,
        /// The column across.
        #[arg(long)]
        x: String,
        /// The column up.
        #[arg(long)]
        y: String,
        /// The table: summary, events or strobe.
        #[arg(long, default_value = "summary")]
        table: String,
        /// The picture: PNG, or SVG for a name ending in .svg (default DIR/<y>_vs_<x>.png).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// What makes `run` fail after writing its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum FailOn {
    /// Some scene did not converge or became NaN or infinite.
    Unhealthy,
}

const DEFAULT_SCENARIO: &str = include_str!("../scenarios/bouncing_balls.toml");

/// Writes a line to standard output: a full or closed stdout (`> /dev/full`, `| head -1`) is
/// an error naming it, never a panic.
macro_rules! out {
    ($($arg:tt)*) => {
        std::io::Write::write_fmt(&mut std::io::stdout().lock(), format_args!("{}\n", format_args!($($arg)*)))
            .map_err(|e| ricochet::Error::Io(std::io::Error::new(e.kind(), format!("writing to standard output: {e}"))))
    };
}

mod cli;

use cli::check::check;
use cli::compare::{bench, verify};
use cli::plot::plot;
use cli::progress::Progress;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = private_runtime_dir();
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    };
    if let Some(dir) = runtime {
        // Best effort: the drivers may have left nothing there, or files we need not keep.
        let _ = std::fs::remove_dir_all(dir);
    }
    code
}

/// Where `XDG_RUNTIME_DIR` is unset or not a directory (batch jobs, containers), points it at a
/// private directory of ours before any adapter is opened: Mesa's Vulkan drivers otherwise
/// print `error: XDG_RUNTIME_DIR is invalid or not set` for every instance they create.
/// Returns the directory made, to be removed at the end.
fn private_runtime_dir() -> Option<PathBuf> {
    const VAR: &str = "XDG_RUNTIME_DIR";
    if std::env::var_os(VAR).is_some_and(|dir| std::path::Path::new(&dir).is_dir()) {
        return None;
    }
    let dir = std::env::temp_dir().join(format!("ricochet-runtime-{}", std::process::id()));
    // A new directory of ours, 0700 from its creation: an existing one (or a link planted
    // under the name) is not taken.
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(&dir).ok()?;
    // SAFETY: called first thing in `main` after parsing the arguments, before any other
    // thread exists (clap starts none; no engine, thread pool or adapter has been created
    // yet), so nothing reads the environment concurrently.
    unsafe { std::env::set_var(VAR, &dir) };
    Some(dir)
}

fn run(cli: Cli) -> ricochet::Result<ExitCode> {
    match cli.command {
        Command::Run {
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
        } => {
            let path = scenario;
            let mut scenario = Scenario::load(&path)?;
            scenario.scenes = scenes.unwrap_or(scenario.scenes);
            scenario.seed = seed.unwrap_or(scenario.seed);
            scenario.validate()?;
            // The output directory before any simulation: an unwritable one is found now.
            ricochet::ensemble::output::prepare_dir(&out)?;
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
                eprintln!("resuming the run in {}", out.display());
            }
            let started = std::time::SystemTime::now();
            let mut progress = Progress::new(&scenario.name, total, steps);
            let run = ensemble::run(&scenario, &options, &mut |done| progress.update(done)).map_err(|e| match e {
                // A drawn scene that is invalid: name the file too.
                ricochet::Error::Scenario { what, reason } => ricochet::Error::Scenario {
                    what: format!("{}: {what}", path.display()),
                    reason,
                },
                e => e,
            })?;
            progress.finish();
            if let Some(notice) = &run.notice {
                eprintln!("notice: {notice}");
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
                arithmetic: run.arithmetic.clone(),
                resumed: resume,
                started: humantime::format_rfc3339_seconds(started).to_string(),
                finished: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
                seconds: run.seconds,
                scene_steps_per_second: run.scene_steps as f64 / run.seconds,
                host: Provenance::host(),
            };
            let files = RunFiles {
                info: RunInfo::new(&scenario, shard, &run.arithmetic),
                summary: run.summary,
                trajectories: run.trajectories,
                strobe: scenario.strobe.is_some().then_some(run.strobe),
                events: scenario.events.is_some().then_some(run.events),
            };
            // The files first: what is computed is kept even where stdout is full or closed.
            let mut written = write(&files, &out)?;
            written.push(provenance.write(&out)?);
            // The run's files are whole: its chunks are no longer needed.
            ricochet::ensemble::checkpoint::remove(&out)?;
            let printed = if json {
                let mut object = summary_json;
                object["files"] =
                    serde_json::json!(written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>());
                out!("{object}")
            } else {
                out!("{line}").and_then(|()| report_written(&written))
            };
            if fail_on == Some(FailOn::Unhealthy) && !healthy {
                // Status 2 whatever became of stdout: the unhealthy scenes matter more.
                if let Err(e) = printed {
                    eprintln!("error: {e}");
                }
                eprintln!("error: unhealthy scenes (--fail-on unhealthy); the files are written");
                return Ok(ExitCode::from(2));
            }
            printed?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Verify {
            scenario,
            scenes,
            max_time,
            json,
        } => verify(Scenario::load(&scenario)?, scenes, max_time, json),
        Command::Bench {
            scenario,
            scenes,
            reference_up_to,
        } => {
            let scenario = match scenario {
                Some(path) => Scenario::load(&path)?,
                None => Scenario::from_toml(DEFAULT_SCENARIO)?,
            };
            bench(scenario, &scenes, reference_up_to)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Merge { dirs, out } => {
            ricochet::ensemble::output::prepare_dir(&out)?;
            let parts = dirs
                .iter()
                .map(|d| RunFiles::read(d))
                .collect::<ricochet::Result<Vec<_>>>()?;
            let merged = RunFiles::merge(parts)?;
            ricochet::ensemble::output::clear(&out)?;
            let written = write(&merged, &out)?;
            out!(
                "{}: {} scenes merged from {} directories",
                merged.info.scenario,
                merged.summary.rows(),
                dirs.len()
            )?;
            report_written(&written)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Adapters => {
            adapters()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Plot { dir, x, y, table, out } => {
            let out = out.unwrap_or_else(|| dir.join(format!("{y}_vs_{x}.png")));
            plot(&dir, (&x, &y), &table, &out)?;
            out!("  wrote {}", out.display())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check { scenario } => check(&Scenario::load(&scenario)?),
        Command::Templates => {
            for template in ricochet::scenes::template::Template::ALL {
                let parameters: Vec<String> = template
                    .parameters()
                    .into_iter()
                    .map(|(name, default)| format!("{name} = {default}"))
                    .collect();
                out!("{}: {}", template.name(), parameters.join(", "))?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Prints the GPU adapters and the one a run would take.
#[cfg(feature = "gpu")]
fn adapters() -> ricochet::Result<()> {
    use ricochet::batch::gpu::{ADAPTER_VAR, GpuContext, list_adapters};
    let adapters = list_adapters();
    if adapters.is_empty() {
        out!("no Vulkan, Metal or DX12 adapter (on Debian: apt-get install mesa-vulkan-drivers)")?;
    }
    for a in &adapters {
        out!("{a}")?;
    }
    match GpuContext::new() {
        Ok(ctx) => out!("selected: {} (set {ADAPTER_VAR} to choose another)", ctx.adapter_name()),
        Err(e) => out!("{e}"),
    }
}

#[cfg(not(feature = "gpu"))]
fn adapters() -> ricochet::Result<()> {
    out!("this build of ricochet has no `gpu` feature: no adapters are used")
}

/// Writes the run's files into `out`, returning their paths.
fn write(files: &RunFiles, out: &std::path::Path) -> ricochet::Result<Vec<PathBuf>> {
    let (written, notice) = files.write(out)?;
    if let Some(notice) = notice {
        eprintln!("notice: {notice}");
    }
    Ok(written)
}

/// Lists the files a run wrote.
fn report_written(written: &[PathBuf]) -> ricochet::Result<()> {
    for path in written {
        out!("  wrote {}", path.display())?;
    }
    Ok(())
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
            eprintln!(
                "warning: {} scenes {label} (first: scene {}, worst LCP residual {:e} after {} sweeps); their rows are kept",
                bad.len(),
                scene[i],
                residual[i],
                iterations[i]
            );
        }
    }
    healthy
}
