//! The ball ensemble end to end against a yardstick: the same Moreau–Jean step written by
//! hand for one ball, the way a one-thread kernel (NVIDIA Warp's CPU backend, a C loop) runs
//! it — one ball after another, each looping over its steps, the one-row LCP in closed form.
//! Both run the shipped `scenarios/bouncing_balls.toml` (2·10⁵ balls × 2000 steps); the
//! throughput is in scene-steps. Per core: `RAYON_NUM_THREADS=1 taskset -c 1 cargo bench
//! --bench yardstick`.
//!
//! RICOCHET_BENCH_QUICK=1 runs 2·10⁴ balls.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use ricochet::ensemble::{Backend, Progress, Scenario, open_engine, run_on};

/// The ball of the scenario: m = 1 kg, R = 0.1 m, g = 9.81 m/s², h = 1e-3 s, θ = γ = ½.
const MASS: f64 = 1.0;
const RADIUS: f64 = 0.1;
const GRAVITY: f64 = 9.81;
const H: f64 = 1e-3;
const THETA: f64 = 0.5;
const GAMMA: f64 = 0.5;

/// The ball's state after `steps` Moreau–Jean steps from rest at height `z`, restitution `e`,
/// and its impacts: v_free = v_k − g h; the contact y = z − R is active when
/// y + γ h v_k ≤ 0, then the one-row LCP 0 ≤ λ ⟂ v_free + e v_k + λ/m ≥ 0 has λ =
/// max(0, −m (v_free + e v_k)); v_{k+1} = v_free + λ/m, z_{k+1} = z_k + h (θ v_{k+1} + (1 − θ) v_k).
fn ball(mut z: f64, e: f64, steps: u32) -> (f64, f64, u32) {
    let (mut v, mut impacts) = (0.0, 0);
    for _ in 0..steps {
        let free = v - GRAVITY * H;
        let active = z - RADIUS + GAMMA * H * v <= 0.0;
        let lambda = if active { (-MASS * (free + e * v)).max(0.0) } else { 0.0 };
        impacts += u32::from(lambda > 0.0);
        let next = free + lambda / MASS;
        z += H * (THETA * next + (1.0 - THETA) * v);
        v = next;
    }
    (z, v, impacts)
}

fn yardstick(c: &mut Criterion) {
    let scenes = if std::env::var_os("RICOCHET_BENCH_QUICK").is_some() {
        20_000
    } else {
        200_000
    };
    let mut scenario = Scenario::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/bouncing_balls.toml")).unwrap();
    scenario.record.trajectories = 0;
    scenario.scenes = scenes;
    let steps = scenario.steps() as u32;
    // The yardstick's draws: h₀ ~ U[1, 2], e ~ U[0.8, 1] (the cost does not depend on them).
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let draws: Vec<(f64, f64)> = (0..scenes)
        .map(|_| (rng.random_range(1.0..2.0), rng.random_range(0.8..1.0)))
        .collect();
    let (engine, _) = open_engine(Backend::Cpu, &scenario).unwrap();

    let mut group = c.benchmark_group("ball ensemble");
    group.sample_size(10);
    group.throughput(Throughput::Elements(scenes as u64 * u64::from(steps)));
    group.bench_function("yardstick, one ball at a time", |b| {
        b.iter(|| {
            for &(z, e) in &draws {
                black_box(ball(black_box(z), black_box(e), steps));
            }
        })
    });
    group.bench_function("ricochet cpu end to end", |b| {
        b.iter(|| run_on(engine.as_ref(), &scenario, 0..scenes, None, &Progress::new()).unwrap())
    });
    group.finish();
}

criterion_group!(benches, yardstick);
criterion_main!(benches);
