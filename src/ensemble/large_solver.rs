//! The engine of a large scene's steps for a `--backend` and a `[solver] method`: coloured
//! NSGS or Jacobi with mass splitting, on every CPU core or on a GPU (NSGS there with the
//! whole step on the device, Jacobi with its sweeps there).

use super::engine::Backend;
use super::large_scene::Method;
use crate::batch::cpu::simd::Simd;
use crate::error::{Error, Result};
use crate::large_scene::{CpuSolver, JacobiSolver, Stepper};

/// The steps of a large scene by `method` on `backend`, its engine's name, and why
/// `auto` did not take a GPU: `auto` a hardware GPU (f64 where it has it), else the CPU; `gpu`
/// the best adapter, software ones included; `cpu` every core; `reference` is refused (the
/// dense reference checks small large scenes from the library, `LargeScene::reference`).
pub fn solver(backend: Backend, method: Method) -> Result<(Box<dyn Stepper>, String, Option<String>)> {
    // On the instruction set `RICOCHET_SIMD` names (an error where this CPU lacks it), else
    // the widest.
    let cpu = || -> Result<(Box<dyn Stepper>, String)> {
        let simd = Simd::requested()?;
        let solver: Box<dyn Stepper> = match method {
            Method::Nsgs => Box::new(CpuSolver::on(simd)),
            Method::Jacobi => Box::new(JacobiSolver::on(simd)),
        };
        let name = solver.engine();
        Ok((solver, name))
    };
    match backend {
        Backend::Cpu => cpu().map(|(s, n)| (s, n, None)),
        Backend::Reference => Err(Error::Unsupported {
            what: "--backend reference on a large scene".into(),
            reason: "the dense reference checks large scenes of up to 200 bodies from the library (`LargeScene::reference`), not as runs: use cpu or gpu".into(),
        }),
        Backend::Gpu => gpu(true, method).map(|(s, n)| (s, n, None)),
        Backend::Auto => match gpu(false, method) {
            Ok((s, n)) => Ok((s, n, None)),
            Err(e) => {
                let (s, n) = cpu()?;
                Ok((s, n, Some(format!("{e}: running on the CPU cores"))))
            }
        },
    }
}

/// The large-scene kernels on the best adapter (refused when it is a software one and
/// `software` is false), f64 where the adapter has it: the whole step for NSGS
/// ([`GpuScene`](crate::large_scene::GpuScene)), the sweeps for Jacobi.
#[cfg(feature = "gpu")]
fn gpu(software: bool, method: Method) -> Result<(Box<dyn Stepper>, String)> {
    use crate::batch::gpu::GpuContext;
    use crate::large_scene::{GpuScene, GpuSolver};
    let ctx = GpuContext::new()?;
    if ctx.is_cpu() && !software {
        return Err(Error::Unsupported {
            what: format!("only a software adapter ({})", ctx.adapter_name()),
            reason: "--backend gpu to use it".into(),
        });
    }
    let precision = ctx.best_precision();
    let solver: Box<dyn Stepper> = match method {
        Method::Nsgs => Box::new(GpuScene::new(&ctx, precision)?),
        Method::Jacobi => Box::new(GpuSolver::jacobi(&ctx, precision)?),
    };
    let name = solver.engine();
    Ok((solver, name))
}

/// For `bench` beside [`solver`]'s: coloured NSGS with only its sweeps on the best adapter
/// (f64 where it has it) behind the host's other stages — what `--backend gpu` ran before
/// the whole step went to the device — named with ` (sweeps only)`.
#[cfg(feature = "gpu")]
pub fn gpu_sweeps_only() -> Result<(Box<dyn Stepper>, String)> {
    use crate::batch::gpu::GpuContext;
    use crate::large_scene::GpuSolver;
    let ctx = GpuContext::new()?;
    let precision = ctx.best_precision();
    let solver = GpuSolver::new(&ctx, precision)?;
    let name = format!("{} (sweeps only)", solver.engine());
    Ok((Box::new(solver), name))
}

#[cfg(not(feature = "gpu"))]
fn gpu(_: bool, _: Method) -> Result<(Box<dyn Stepper>, String)> {
    Err(Error::Unsupported {
        what: "the GPU backend".into(),
        reason: "this build of ricochet has no `gpu` feature (cargo build --features gpu)".into(),
    })
}
