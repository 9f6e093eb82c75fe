//! Ensembles of bouncing balls and of 5-ball Newton's cradles: the f64 reference stepper,
//! the batched CPU twin (f64, f32, 16-lane groups on all cores) and the GPU kernel (f32, f64) side by side.
//! Throughput is in scene-steps (`Elements` = scenes × steps). The GPU timing includes
//! upload, every dispatch and the read-back of the final state.
//!
//! RICOCHET_BENCH_QUICK=1 keeps to the small sizes.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ricochet::batch::BatchOptions;
use ricochet::batch::cpu::moreau_jean_pgs::{self, BatchState};
use ricochet::batch::gpu::{BatchKernel, GpuContext, Precision};
use ricochet::batch::{LinearScene, SceneBatch};
use ricochet::model::Nsds;
use ricochet::scenes::{bouncing_ball::BouncingBall, newtons_cradle::NewtonsCradle};
use ricochet::scheme::Stabilization;
use ricochet::scheme::moreau_jean::MoreauJeanOSI;

const H: f64 = 1e-3;
const STEPS: u32 = 200;

fn batch_of(scenes: usize, scene: impl Fn(usize) -> Nsds) -> SceneBatch {
    let mut batch = SceneBatch::new(H, MoreauJeanOSI::default()).unwrap();
    for s in 0..scenes {
        batch
            .push(&LinearScene::from_nsds(&scene(s), H, 0.5, Stabilization::None).unwrap())
            .unwrap();
    }
    batch
}

fn ball(s: usize) -> Nsds {
    let height = 1.0 + (s % 1000) as f64 / 1000.0;
    BouncingBall {
        height,
        step: H,
        ..Default::default()
    }
    .nsds()
    .unwrap()
}

fn cradle(s: usize) -> Nsds {
    let velocity = 0.5 + (s % 1000) as f64 / 1000.0;
    NewtonsCradle {
        velocity,
        step: H,
        ..Default::default()
    }
    .nsds()
    .unwrap()
    .0
}

fn ensemble(c: &mut Criterion, name: &str, scene: fn(usize) -> Nsds, sizes: &[usize]) {
    let gpu = GpuContext::new()
        .map_err(|e| eprintln!("GPU benches skipped: {e}"))
        .ok();
    let kernels = gpu.as_ref().map(|ctx| {
        eprintln!("adapter: {}", ctx.adapter_name());
        let precisions: &[Precision] = if ctx.supports_f64() {
            &[Precision::F32, Precision::F64]
        } else {
            &[Precision::F32]
        };
        precisions
            .iter()
            .map(|&p| (p, BatchKernel::new(ctx, p).unwrap()))
            .collect::<Vec<_>>()
    });
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for &n in sizes {
        let batch = batch_of(n, scene);
        group.throughput(Throughput::Elements(n as u64 * u64::from(STEPS)));
        if n <= 1000 {
            group.bench_function(BenchmarkId::new("reference_f64", n), |b| {
                b.iter(|| {
                    for s in 0..n {
                        let nsds = scene(s);
                        let integrator = ricochet::reference::Integrator::MoreauJean(MoreauJeanOSI::default());
                        let mut sim = ricochet::reference::TimeStepping::new(nsds, integrator, 0.0, H).unwrap();
                        for _ in 0..STEPS {
                            sim.step().unwrap();
                        }
                    }
                })
            });
        }
        let ops32: Vec<f32> = batch.operators.iter().map(|&x| x as f32).collect();
        group.bench_function(BenchmarkId::new("cpu_batch_f64", n), |b| {
            b.iter(|| {
                moreau_jean_pgs::run(
                    &batch,
                    &batch.operators,
                    &mut BatchState::<f64>::new(&batch),
                    STEPS,
                    &BatchOptions::for_precision(true),
                )
            })
        });
        group.bench_function(BenchmarkId::new("cpu_batch_f32", n), |b| {
            b.iter(|| {
                moreau_jean_pgs::run(
                    &batch,
                    &ops32,
                    &mut BatchState::<f32>::new(&batch),
                    STEPS,
                    &BatchOptions::for_precision(false),
                )
            })
        });
        if let (Some(ctx), Some(kernels)) = (&gpu, &kernels) {
            for (precision, kernel) in kernels {
                let options = BatchOptions::for_precision(*precision == Precision::F64);
                group.bench_function(BenchmarkId::new(format!("gpu_{precision:?}").to_lowercase(), n), |b| {
                    b.iter(|| {
                        kernel
                            .run(ctx, &batch, (STEPS, &ricochet::batch::progress::UNWATCHED), &options)
                            .unwrap()
                    })
                });
            }
        }
    }
    group.finish();
}

/// One large bead chain, contact-parallel: throughput in contact-iterations
/// (beads × sweeps × steps) for the CPU twin (one thread) and the GPU kernels.
fn bead_chain(c: &mut Criterion, sizes: &[usize]) {
    use ricochet::batch::BeadChain;
    use ricochet::batch::ChainOptions;
    use ricochet::batch::cpu::chain_jacobi::{self, ChainState};
    let gpu = GpuContext::new().ok();
    let options = ChainOptions {
        sweeps: 50,
        ..Default::default()
    };
    let steps = 10u32;
    let mut group = c.benchmark_group("bead_chain_jacobi");
    group.sample_size(10);
    for &n in sizes {
        let beads = BeadChain::new(n, 0.12, 0.201).unwrap();
        group.throughput(Throughput::Elements(n as u64 * u64::from(options.sweeps * steps)));
        group.bench_function(BenchmarkId::new("cpu_f32", n), |b| {
            b.iter(|| chain_jacobi::run(&beads, &mut ChainState::<f32>::new(&beads), steps, &options))
        });
        if let Some(ctx) = &gpu {
            group.bench_function(BenchmarkId::new("gpu_f32", n), |b| {
                b.iter(|| ricochet::batch::gpu::run_chain(ctx, &beads, Precision::F32, steps, &options).unwrap())
            });
        }
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let quick = std::env::var("RICOCHET_BENCH_QUICK").is_ok();
    let sizes: &[usize] = if quick {
        &[1_000, 10_000]
    } else {
        &[1_000, 10_000, 100_000, 1_000_000]
    };
    ensemble(c, "bouncing_ball_ensemble", ball, sizes);
    ensemble(c, "newtons_cradle_ensemble", cradle, &sizes[..sizes.len().min(3)]);
    bead_chain(
        c,
        if quick {
            &[10_000]
        } else {
            &[10_000, 100_000, 1_000_000]
        },
    );
}

criterion_group!(ensembles, benches);
criterion_main!(ensembles);
