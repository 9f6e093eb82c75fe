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
use ricochet::ensemble::large_scene::LargeScenario;
use ricochet::ensemble::output::RunFiles;
use ricochet::ensemble::provenance::MergeProvenance;
use ricochet::ensemble::{Backend, Scenario};

#[derive(Parser)]
#[command(
    name = "ricochet",
    version,
    about = "Monte Carlo ensembles of bouncing, impacting systems on the GPU or the CPU",
    after_help = cli::exit::HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Errors and warnings only: no progress, no notices.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// More on stderr: each chunk's timing, the engine's choices (-vv: everything).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
}

#[derive(Subcommand)]
enum Command {
    /// Runs an ensemble and writes summary.parquet (or .csv, .npy), stats.json, trajectories and plots.
    #[command(allow_negative_numbers = true)]
    Run(RunArgs),
    /// Runs K scenes on the reference stepper, the CPU backend and the GPU, and fails if they differ.
    #[command(allow_negative_numbers = true)]
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
        /// Exit 0 when no batched engine could be compared (no GPU, and scenes only the
        /// reference runs); by default that fails, as nothing was verified.
        #[arg(long)]
        allow_nothing: bool,
    },
    /// Prints scene-steps per second of every backend: one JSON line per run on stdout, then a
    /// table on stderr.
    #[command(allow_negative_numbers = true)]
    Bench {
        /// The scenario file (default: the bouncing-ball ensemble).
        scenario: Option<PathBuf>,
        /// Ensemble sizes.
        #[arg(long, num_args = 1.., default_values_t = [1000usize, 100_000])]
        scenes: Vec<usize>,
        /// Run the reference stepper up to this many scenes.
        #[arg(long, default_value_t = 1000)]
        reference_up_to: usize,
        /// Runs per backend and size: each row gives their median and spread.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
        repeat: u32,
        /// The backends measured (the GPU at each --precision; a large scene's CPU rows are
        /// `cpu`'s).
        #[arg(long, num_args = 1.., default_values_t = [Backend::Reference, Backend::Cpu, Backend::Gpu],
              value_parser = clap::builder::TypedValueParser::try_map(
                  clap::builder::PossibleValuesParser::new(["reference", "cpu", "gpu"]),
                  |b| b.parse::<Backend>()))]
        backends: Vec<Backend>,
        /// The GPU's precision: auto (f64 where the adapter has it), f32, f64, or both (a row
        /// each).
        #[arg(long, default_value = "auto", value_parser = ["auto", "f32", "f64", "both"])]
        precision: String,
        /// A large-scene scenario's sizes: its template scaled to about these many bodies,
        /// each run on one thread and on all cores (default 1000 10000).
        #[arg(long, num_args = 1..)]
        bodies: Vec<usize>,
        /// A large-scene scenario's steps timed per size (at most its own).
        #[arg(long, default_value_t = 100)]
        steps: u64,
        /// Overrides a large-scene scenario's sweep cap per step.
        #[arg(long)]
        max_sweeps: Option<usize>,
    },
    /// Merges the directories of the shards of one ensemble into what one run would have written.
    Merge {
        /// Shard directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// The tables' formats, comma-separated: csv, npy, parquet (default: the first
        /// directory's).
        #[arg(long, value_delimiter = ',')]
        format: Vec<ricochet::ensemble::formats::Format>,
    },
    /// Lists the GPU adapters (pick one with RICOCHET_ADAPTER=name-or-backend).
    Adapters,
    /// Chooses the GPU kernel's launch (workgroup size, steps per dispatch) for this adapter
    /// by timing a batch of bouncing balls under each, and keeps the fastest for later runs
    /// (in $RICOCHET_CACHE_DIR, else ~/.cache/ricochet; RICOCHET_GPU_TUNING overrides it).
    Tune {
        /// Balls in the batch (default 65536; 2048 on a CPU adapter).
        #[arg(long)]
        scenes: Option<usize>,
        /// Steps each run takes.
        #[arg(long, default_value_t = 500)]
        steps: u32,
        /// Timed runs per launch (the best is kept).
        #[arg(long, default_value_t = 2)]
        repeat: usize,
    },
    /// Lists every scene template with its parameters and their defaults, in the order the
    /// template asks for them, then the large-scene templates (`[large_scene]`).
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
use cli::compare::{bench, bench_large, verify};
use cli::plot::plot;
use cli::run::{RunArgs, run_ensemble};

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli::logger::init(cli.quiet, cli.verbose);
    let runtime = private_runtime_dir();
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            log::error!("{e}");
            cli::exit::of_error(&e)
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
    // A new directory of ours under a random name, 0700 from its creation (tempfile): an
    // existing one (a killed run's, or a link planted under the name) is never taken.
    let dir = tempfile::Builder::new()
        .prefix("ricochet-runtime-")
        .tempdir()
        .ok()?
        .keep();
    // SAFETY: called first thing in `main` after parsing the arguments, before any other
    // thread exists (clap starts none; no engine, thread pool or adapter has been created
    // yet), so nothing reads the environment concurrently.
    unsafe { std::env::set_var(VAR, &dir) };
    Some(dir)
}

fn run(cli: Cli) -> ricochet::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run_ensemble(args),
        Command::Verify {
            scenario,
            scenes,
            max_time,
            json,
            allow_nothing,
        } => verify(Scenario::load(&scenario)?, scenes, max_time, (json, allow_nothing)),
        Command::Bench {
            scenario,
            scenes,
            reference_up_to,
            repeat,
            backends,
            precision,
            bodies,
            steps,
            max_sweeps,
        } => {
            if let Some(path) = scenario.as_ref().filter(|p| {
                std::fs::read_to_string(p).is_ok_and(|t| ricochet::ensemble::large_scene::LargeScenario::is_large(&t))
            }) {
                let sizes = if bodies.is_empty() { vec![1000, 10_000] } else { bodies };
                let mut large = ricochet::ensemble::large_scene::LargeScenario::load(path)?;
                large.solver.max_sweeps = max_sweeps.unwrap_or(large.solver.max_sweeps);
                bench_large(&large, (&sizes, steps), &backends)?;
                return Ok(ExitCode::SUCCESS);
            }
            let scenario = match scenario {
                Some(path) => Scenario::load(&path)?,
                None => Scenario::from_toml(DEFAULT_SCENARIO)?,
            };
            use ricochet::ensemble::scenario::PrecisionChoice;
            let precisions = match precision.as_str() {
                "f32" => vec![PrecisionChoice::F32],
                "f64" => vec![PrecisionChoice::F64],
                "both" => vec![PrecisionChoice::F32, PrecisionChoice::F64],
                _ => vec![PrecisionChoice::Auto],
            };
            let plan = ricochet::ensemble::bench::BenchPlan {
                backends,
                sizes: scenes,
                reference_up_to,
                repeat: repeat as usize,
                precisions,
            };
            bench(scenario, &plan)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Merge { dirs, out, format } => {
            ricochet::ensemble::output::prepare_dir(&out)?;
            let parts = dirs
                .iter()
                .map(|d| RunFiles::read(d))
                .collect::<ricochet::Result<Vec<_>>>()?;
            let mut merged = RunFiles::merge(parts)?;
            if !format.is_empty() {
                ricochet::ensemble::formats::Format::check(&format)?;
                merged.info.formats = format;
            }
            let command: Vec<String> = std::env::args().collect();
            let _lock = ricochet::ensemble::lock::DirLock::acquire(&out, &command.join(" "))?;
            // (Read before writing: `out` may be one of the parts, whose provenance goes.)
            let finished = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
            let provenance = MergeProvenance::of(&dirs, command, finished);
            let mut written = write(&merged, &out)?.paths;
            written.push(provenance.write(&out)?);
            // (No earlier run's chunks stay beside the merged files.)
            ricochet::ensemble::checkpoint::remove(&out)?;
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
        Command::Tune { scenes, steps, repeat } => {
            tune(scenes, steps, repeat)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Plot { dir, x, y, table, out } => {
            let out = out.unwrap_or_else(|| dir.join(format!("{y}_vs_{x}.png")));
            plot(&dir, (&x, &y), &table, &out)?;
            out!("  wrote {}", out.display())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check { scenario } => {
            if std::fs::read_to_string(&scenario).is_ok_and(|text| LargeScenario::is_large(&text)) {
                cli::large::check_large(&scenario)
            } else {
                check(&Scenario::load(&scenario)?)
            }
        }
        Command::Templates => {
            for template in ricochet::scenes::template::Template::all() {
                let parameters: Vec<String> = template
                    .parameters()
                    .into_iter()
                    .map(|d| match d.unit {
                        Some(unit) if !unit.is_empty() => format!("{} = {} {unit}", d.name, d.default),
                        _ => format!("{} = {}", d.name, d.default),
                    })
                    .collect();
                out!("{}: {}", template.name(), parameters.join(", "))?;
            }
            for (name, defaults) in ricochet::ensemble::large_scene::LargeTemplate::defaults() {
                out!("{name} ([large_scene]): {defaults}")?;
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

/// Times each launch on the adapter, prints one JSON line per launch and the one chosen.
#[cfg(feature = "gpu")]
fn tune(scenes: Option<usize>, steps: u32, repeat: usize) -> ricochet::Result<()> {
    let tuned = ricochet::ensemble::tune::tune(scenes, steps, repeat)?;
    for trial in &tuned.trials {
        out!("{}", serde_json::json!(trial))?;
    }
    out!(
        "chosen for {}: {} (kept in {})",
        tuned.adapter,
        tuned.chosen,
        tuned.cache.display()
    )
}

#[cfg(not(feature = "gpu"))]
fn tune(_: Option<usize>, _: u32, _: usize) -> ricochet::Result<()> {
    Err(ricochet::Error::Unsupported {
        what: "ricochet tune".into(),
        reason: "this build of ricochet has no `gpu` feature".into(),
    })
}

#[cfg(not(feature = "gpu"))]
fn adapters() -> ricochet::Result<()> {
    out!("this build of ricochet has no `gpu` feature: no adapters are used")
}

/// Writes the run's files into `out`, returning their paths.
fn write(files: &RunFiles, out: &std::path::Path) -> ricochet::Result<ricochet::ensemble::output::Written> {
    let written = files.write(out)?;
    if let Some(notice) = &written.notice {
        log::info!("notice: {notice}");
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
