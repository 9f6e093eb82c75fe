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
use indicatif::{ProgressBar, ProgressStyle};
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
            let printed = out!("{line}").and_then(|()| report_written(&written));
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
        } => verify(Scenario::load(&scenario)?, scenes, max_time),
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

/// Draws `y` against `x` of `table`.csv in a run's directory, titled with its scenario, seed
/// and scene count.
#[cfg(feature = "plots")]
fn plot(dir: &std::path::Path, (x, y): (&str, &str), table: &str, out: &std::path::Path) -> ricochet::Result<()> {
    if !["summary", "events", "strobe"].contains(&table) {
        return Err(ricochet::Error::Scenario {
            what: format!("--table {table}"),
            reason: "expected summary, events or strobe".into(),
        });
    }
    let run = RunFiles::read(dir)?;
    let rows = match table {
        "summary" => run.summary.clone(),
        "events" => run.events.clone().unwrap_or_else(|| Table::new(Vec::new())),
        _ => run.strobe.clone().unwrap_or_else(|| Table::new(Vec::new())),
    };
    if rows.columns.is_empty() {
        return Err(ricochet::Error::Parse {
            file: dir.join(format!("{table}.csv")).display().to_string(),
            reason: "not in this run (its scenario has no [events] or [strobe])".into(),
        });
    }
    // A summary column (a drawn parameter, say) joins an events or strobe row by its scene.
    let mut rows = rows;
    for name in [x, y] {
        if rows.index(name).is_none() && run.summary.index(name).is_some() {
            rows = ricochet::ensemble::table::join_by_scene(&rows, &run.summary, name)?;
        }
    }
    let info = run.info;
    let title = format!(
        "{}: {y} vs {x} (N = {}, seed {})",
        info.scenario, info.scenes, info.seed
    );
    ricochet::ensemble::plots::scatter(out, &rows, (x, y), &title)
}

#[cfg(not(feature = "plots"))]
fn plot(_: &std::path::Path, _: (&str, &str), _: &str, _: &std::path::Path) -> ricochet::Result<()> {
    Err(ricochet::Error::Unsupported {
        what: "ricochet plot".into(),
        reason: "this build has no `plots` feature".into(),
    })
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

/// The largest deviation of each compared column of `other` from `reference`, relative to
/// 1 + |reference|.
fn deviations(reference: &Table, other: &Table) -> Vec<(String, f64)> {
    let skip = ["scene", "lcp_residual", "lcp_iterations"];
    reference
        .columns
        .iter()
        .filter(|c| !skip.contains(&c.as_str()))
        .map(|c| {
            let (a, b) = (
                reference.column(c).unwrap_or_default(),
                other.column(c).unwrap_or_default(),
            );
            let worst = a
                .iter()
                .zip(&b)
                .map(|(x, y)| {
                    if x.is_nan() && y.is_nan() {
                        0.0
                    } else {
                        (x - y).abs() / (1.0 + x.abs())
                    }
                })
                .fold(0.0, |m: f64, d| if d.is_nan() { f64::INFINITY } else { m.max(d) });
            (c.clone(), worst)
        })
        .collect()
}

fn verify(mut scenario: Scenario, scenes: usize, max_time: Option<f64>) -> ricochet::Result<ExitCode> {
    if scenes == 0 {
        return Err(ricochet::Error::Scenario {
            what: "--scenes".into(),
            reason: "verify needs at least 1 scene to compare".into(),
        });
    }
    // The ensemble's first scenes (its size stays: it places swept parameters).
    let scenes = scenes.min(scenario.scenes);
    scenario.record.trajectories = 0;
    // The summaries are compared (observables included); the samples and events, which
    // `--max-time` may cut, are not.
    (scenario.strobe, scenario.events) = (None, None);
    if let Some(t) = max_time {
        scenario.time.final_time = scenario.time.final_time.min(t);
        scenario.validate()?;
    }
    let run_on = |backend| -> ricochet::Result<Option<(String, Table, f64)>> {
        let engine = match ensemble::open_engine(backend, &scenario) {
            Ok((engine, _)) => engine,
            Err(e @ ricochet::Error::NoAdapter { .. }) => {
                eprintln!("notice: {e}: the GPU is not verified");
                return Ok(None);
            }
            Err(e @ ricochet::Error::Unsupported { .. }) if backend != Backend::Reference => {
                out!("{backend:?}: {e}: only the reference stepper runs these scenes, nothing to compare")?;
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let double = engine.double();
        let run = ensemble::run_on(engine.as_ref(), &scenario, 0..scenes, None, &mut |_| {})?;
        // f64 engines agree with the reference to rounding; f32 to its rounding over the run.
        Ok(Some((run.engine, run.summary, if double { 1e-9 } else { 1e-3 })))
    };
    let (_, reference, _) = run_on(Backend::Reference)?.expect("the reference backend always opens");
    let mut ok = true;
    for backend in [Backend::Cpu, Backend::Gpu] {
        let Some((name, summary, tolerance)) = run_on(backend)? else {
            continue;
        };
        out!("{name} vs reference ({scenes} scenes), relative deviations (tolerance {tolerance:e}):")?;
        for (column, worst) in deviations(&reference, &summary) {
            let exact = ["impacts", "in_contact", "converged", "finite"].contains(&column.as_str());
            let pass = if exact && tolerance < 1e-6 {
                worst == 0.0
            } else {
                worst <= tolerance.max(if exact { 0.5 } else { 0.0 })
            };
            ok &= pass;
            out!("  {column:>20} {worst:10.3e} {}", if pass { "ok" } else { "FAIL" })?;
        }
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn bench(mut scenario: Scenario, sizes: &[usize], reference_up_to: usize) -> ricochet::Result<()> {
    scenario.record.trajectories = 0;
    let base = scenario.scenes;
    let mut rows = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let engine = match ensemble::open_engine(backend, &scenario) {
            Ok((engine, _)) => engine,
            Err(e) => {
                eprintln!("notice: {backend:?} skipped: {e}");
                continue;
            }
        };
        // A warm-up run compiles the kernels (lavapipe's LLVM takes seconds on a cold Mesa
        // shader cache) and spins up the threads, so that the figures below are steady ones.
        let warmup = {
            let mut small = scenario.clone();
            small.time.final_time = small.time.step;
            small.strobe = None;
            ensemble::run_on(engine.as_ref(), &small, 0..64.min(small.scenes), None, &mut |_| {})?.seconds
        };
        for &n in sizes {
            if backend == Backend::Reference && n > reference_up_to {
                continue;
            }
            // A whole number of the scenario's ensembles (so that its sweeps stay valid).
            scenario.scenes = n.div_ceil(base) * base;
            let run = ensemble::run_on(engine.as_ref(), &scenario, 0..n, None, &mut |_| {})?;
            let rate = run.scene_steps as f64 / run.seconds;
            out!(
                "{}",
                serde_json::json!({
                    "backend": engine.name(),
                    "adapter": run.engine,
                    "scenario": scenario.name,
                    "scenes": n,
                    "steps": scenario.steps(),
                    "seconds": run.seconds,
                    "scene_steps_per_second": rate,
                    "device_seconds": run.device_seconds,
                    "warmup_seconds": warmup,
                })
            )?;
            rows.push((run.engine, n, run.seconds, rate, run.device_seconds));
        }
    }
    // The table for people on stderr: stdout stays JSON lines, one per run, for scripts.
    eprintln!(
        "\n{:<45} {:>10} {:>10} {:>16} {:>10}",
        "backend", "scenes", "seconds", "scene-steps/s", "device s"
    );
    for (engine, n, seconds, rate, device) in rows {
        let device = device.map_or("—".to_string(), |d| format!("{d:.3}"));
        eprintln!("{engine:<45} {n:>10} {seconds:>10.3} {rate:>16.3e} {device:>10}");
    }
    Ok(())
}

/// The progress of a run on stderr: a bar on a terminal; elsewhere (a batch job's log) a
/// plain line every 5 s and at the end, with scenes done, scene-steps/s and the time left.
struct Progress {
    bar: Option<ProgressBar>,
    name: String,
    total: usize,
    steps: u64,
    start: std::time::Instant,
    last_line: std::time::Instant,
    done: usize,
}

impl Progress {
    fn new(name: &str, total: usize, steps: u64) -> Self {
        use std::io::IsTerminal;
        let bar = std::io::stderr().is_terminal().then(|| {
            ProgressBar::new(total as u64).with_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} scenes, {per_sec}, ETA {eta} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            )
        });
        let now = std::time::Instant::now();
        Self {
            bar,
            name: name.to_string(),
            total,
            steps,
            start: now,
            last_line: now,
            done: 0,
        }
    }

    fn update(&mut self, done: usize) {
        self.done = done;
        let elapsed = self.start.elapsed().as_secs_f64();
        let rate = done as f64 * self.steps as f64 / elapsed;
        match &self.bar {
            Some(bar) => {
                bar.set_position(done as u64);
                bar.set_message(format!("({rate:.3e} scene-steps/s)"));
            }
            None if self.last_line.elapsed().as_secs_f64() >= 5.0 => {
                self.last_line = std::time::Instant::now();
                self.line(elapsed, rate);
            }
            None => {}
        }
    }

    fn line(&self, elapsed: f64, rate: f64) {
        let left = elapsed * (self.total - self.done) as f64 / self.done.max(1) as f64;
        eprintln!(
            "{}: {}/{} scenes ({:.0} %), {rate:.3e} scene-steps/s, {elapsed:.0} s, about {left:.0} s left",
            self.name,
            self.done,
            self.total,
            100.0 * self.done as f64 / self.total.max(1) as f64
        );
    }

    fn finish(&self) {
        match &self.bar {
            Some(bar) => bar.finish(),
            None => {
                let elapsed = self.start.elapsed().as_secs_f64();
                self.line(elapsed, self.done as f64 * self.steps as f64 / elapsed);
            }
        }
    }
}
