//! `ricochet run` on a large-scene scenario (a `[large_scene]` table): one scene stepped by
//! the contact-parallel engine — its sweeps on a GPU or on every CPU core (`--backend`) —
//! its series and final state written.

use std::path::Path;
use std::process::ExitCode;

use ricochet::ensemble::Backend;
use ricochet::ensemble::large_scene::LargeScenario;
use ricochet::ensemble::large_solver::solver;

use super::progress::watch;
use crate::report_written;

/// The options of `run` a large scene takes: everything else (scenes, shards, chunks) is an
/// ensemble's, refused by name.
pub struct LargeArgs<'a> {
    /// The scenario file.
    pub path: &'a Path,
    /// Where the sweeps run.
    pub backend: Backend,
    /// The output directory.
    pub out: &'a Path,
    /// One JSON object on stdout instead of text.
    pub json: bool,
    /// Continue from the checkpoint an interrupted run left in `out`.
    pub resume: bool,
    /// The ensemble options given, by flag, to refuse.
    pub refused: Vec<&'static str>,
}

/// Runs the scene and prints its throughput.
pub fn run_large(args: LargeArgs) -> ricochet::Result<ExitCode> {
    if let Some(flag) = args.refused.first() {
        return Err(ricochet::Error::Argument {
            what: (*flag).into(),
            reason: format!(
                "{} is a large-scene scenario (one scene); {flag} applies to ensembles",
                args.path.display()
            ),
        });
    }
    let scenario = LargeScenario::load(args.path)?;
    let (mut solver, engine, notice) = solver(args.backend, scenario.solver.method)?;
    if let Some(notice) = notice {
        log::info!("{notice}");
    }
    let steps = scenario.steps();
    if args.resume {
        log::info!("resuming the run in {}", args.out.display());
    }
    let run = watch(&scenario.name, (1, steps), |progress| {
        scenario.run(args.out, solver.as_mut(), args.resume, progress)
    })?;
    let computed = run.steps - run.resumed_steps;
    let body_steps = run.bodies as f64 * computed as f64 / run.seconds;
    if let Some(notice) = &run.notice {
        log::info!("notice: {notice}");
    }
    if run.unconverged_steps > 0 {
        log::warn!(
            "{} of {} steps stopped at the sweep cap (their residuals are in series.csv)",
            run.unconverged_steps,
            run.steps
        );
    }
    if args.json {
        let object = serde_json::json!({
            "scenario": scenario.name,
            "engine": engine,
            "bodies": run.bodies,
            "steps": run.steps,
            "resumed_steps": run.resumed_steps,
            "seconds": run.seconds,
            "body_steps_per_second": body_steps,
            "contact_iterations_per_second": run.contact_iterations / run.seconds,
            "unconverged_steps": run.unconverged_steps,
            "files": run.files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        });
        out!("{object}")?;
    } else {
        out!(
            "{}: {} bodies × {computed} steps on {engine} in {:.2} s ({body_steps:.3e} body-steps/s, {:.3e} contact-iterations/s)",
            scenario.name,
            run.bodies,
            run.seconds,
            run.contact_iterations / run.seconds
        )?;
        report_written(&run.files)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `ricochet check` on a large-scene scenario: builds the scene (every body and wall checked,
/// no overlap at t = 0), finds its candidate pairs at t = 0, and prints its size, the run's
/// steps and an estimate of its host memory and output.
pub fn check_large(path: &Path) -> ricochet::Result<ExitCode> {
    use ricochet::large_scene::broad_phase::candidate_pairs;
    use ricochet::large_scene::narrow_phase::Contact;
    let scenario = LargeScenario::load(path)?;
    let scene = scenario.build()?;
    let b = &scene.bodies;
    let n = b.len();
    let pairs = candidate_pairs(b, &scene.walls, scene.margin)?.len();
    out!(
        "{}: {n} {}s among {} walls, {} steps of h = {} s to t = {} s (built, no overlap at t = 0: ok)",
        scenario.name,
        b.dimension.body(),
        scene.walls.len(),
        scenario.steps(),
        scenario.time.step,
        scenario.time.final_time
    )?;
    out!("  candidate pairs at t = 0: {pairs} (margin {:e} m)", scene.margin)?;
    if let Some(l) = b.period {
        out!("  periodic along x: L = {l} m")?;
    }
    if let Some(sink) = scene.sink {
        out!("  sink: bodies below {sink} m leave (series.csv counts them)")?;
    }
    // Bodies: state, constants and the step's copies (≈ 30 f64); contacts: a dense pack
    // holds about 3 per disc, 6 per sphere.
    let per_body = 30 * 8;
    let contacts = n * if b.dimension.rows() == 2 { 3 } else { 6 };
    let memory = n * per_body + contacts * (std::mem::size_of::<Contact>() + 24);
    let snapshots = match scenario.output.snapshots {
        0 => 0,
        k => scenario.steps().div_ceil(k) + 1,
    };
    out!(
        "  memory: about {} on the host (≈ {contacts} contacts when packed); output: {} series rows, {snapshots} snapshots of about {} each",
        ricochet::validate::bytes(memory as f64),
        scenario.steps() / scenario.output.every + 2,
        ricochet::validate::bytes((n * 200) as f64)
    )?;
    #[cfg(feature = "gpu")]
    {
        use ricochet::batch::gpu::Precision;
        use ricochet::large_scene::gpu::device_bytes;
        let on_device = |p| ricochet::validate::bytes(device_bytes(n, contacts, p) as f64);
        out!(
            "  on a device when packed: about {} in f64, {} in f32",
            on_device(Precision::F64),
            on_device(Precision::F32)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
