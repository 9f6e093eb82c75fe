//! Scenes whose H, W⁻¹Hᵀ and Delassus matrix are stored by compressed rows (the `SPARSE`
//! layout, chosen at assembly) step exactly as the same scenes stored dense: the CPU lanes
//! give the same bits (up to the sign of a zero, which skipping a zero term may flip), the
//! same counters and extremes; and the GPU kernel in f64 gives the compressed lanes' bits.
//! Cradles of 12 balls (tridiagonal D, frictionless impacts through the chain) and balls
//! sliding on a rough floor in 3-D (block-diagonal D: the friction blocks read by entry).

use crate::common;

use ricochet::batch::cpu::moreau_jean_pgs::{BatchState, run};
use ricochet::batch::layout::SPARSE;
use ricochet::batch::{BatchOptions, LinearScene, SceneBatch};
use ricochet::model::{NewtonImpactFrictionNSL, Nsds};
use ricochet::reference::Stabilization;
use ricochet::scenes::newtons_cradle::NewtonsCradle;
use ricochet::scheme::moreau_jean::MoreauJeanOSI;

const H: f64 = 1e-4;

/// Cradles of 12 balls, launched at different speeds with different restitutions.
fn cradles() -> Vec<Nsds> {
    (0..5)
        .map(|s| {
            let cradle = NewtonsCradle {
                balls: 12,
                velocity: 0.5 + 0.3 * s as f64,
                restitution: 0.9 + 0.02 * s as f64,
                step: H,
                ..Default::default()
            };
            cradle.nsds().unwrap().0
        })
        .collect()
}

/// Three balls sliding on a rough floor in 3-D, each its own contact of three rows, with
/// different μ and launch velocities per scene.
fn sliding_balls() -> Vec<Nsds> {
    let (radius, m) = (0.1, 1.0);
    let inertia = 0.4 * m * radius * radius;
    (0..3)
        .map(|s| {
            let mut nsds = Nsds::new();
            for b in 0..3 {
                let x = 0.5 * b as f64;
                let (vx, vy) = (0.3 + 0.2 * (s + b) as f64, 0.1 * b as f64 - 0.15 * s as f64);
                let law = NewtonImpactFrictionNSL::new(0.2, 0.0, 0.1 + 0.1 * (s + b) as f64, 3).unwrap();
                common::ball_on_rough_floor(
                    &mut nsds,
                    &format!("ball {b}"),
                    (radius, m, [inertia; 3]),
                    ([x, 0.0, radius + 0.01 * b as f64], [vx, vy]),
                    law,
                );
            }
            nsds
        })
        .collect()
}

/// `scenes` batched, compressed where that halves their matrices or kept dense.
fn batch_of(scenes: &[Nsds], compress: bool) -> SceneBatch {
    let mut batch = SceneBatch::new(H, MoreauJeanOSI::default()).unwrap();
    batch.compress_from = if compress { 1 } else { usize::MAX };
    for nsds in scenes {
        batch
            .push(&LinearScene::from_nsds(nsds, H, 0.5, Stabilization::None).unwrap())
            .unwrap();
    }
    batch
}

/// Each value with the sign of a zero dropped, as bits.
fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|x| (x + 0.0).to_bits()).collect()
}

fn compressed_and_dense_agree(name: &str, scenes: &[Nsds], steps: u32, contacts: u32) {
    let (compressed, dense) = (batch_of(scenes, true), batch_of(scenes, false));
    assert!(
        compressed.headers.iter().all(|h| h.flags & SPARSE != 0),
        "{name}: every scene compressed"
    );
    assert!(
        dense.headers.iter().all(|h| h.flags & SPARSE == 0),
        "{name}: kept dense"
    );
    // Compressed, the operators are a fraction of the dense ones.
    assert!(
        2 * compressed.operators.len() < dense.operators.len(),
        "{name}: {} vs {} operators",
        compressed.operators.len(),
        dense.operators.len()
    );
    let options = BatchOptions::for_precision(true);
    let lanes = |batch: &SceneBatch| {
        let mut state = BatchState::<f64>::new(batch);
        run(batch, &batch.operators, &mut state, steps, &options);
        state
    };
    let (a, b) = (lanes(&compressed), lanes(&dense));
    assert_eq!(bits(&a.state), bits(&b.state), "{name}: state");
    assert_eq!(
        bits(&a.extremes),
        bits(&b.extremes),
        "{name}: residual, penetration, cone"
    );
    assert_eq!(a.counters, b.counters, "{name}: counters");
    // Something happened: every scene healthy and in contact for some steps.
    for (s, c) in a.counters.iter().enumerate() {
        assert!(c.healthy() && c.contact_steps >= contacts, "{name} scene {s}: {c:?}");
    }
    #[cfg(feature = "gpu")]
    if let Some(ctx) = common::gpu() {
        use ricochet::batch::gpu::{Precision, run_batch};
        let gpu = run_batch(ctx, &compressed, Precision::F64, steps, &options).unwrap();
        assert_eq!(
            gpu.state.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            a.state.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            "{name}: GPU f64 vs lanes"
        );
        assert_eq!(gpu.counters, a.counters, "{name}: GPU counters");
    }
}

#[test]
fn compressed_cradles_step_as_dense_ones() {
    // 0.12 s: ball 0 reaches the chain and the impact runs through it.
    compressed_and_dense_agree("cradles", &cradles(), 1200, 10);
}

#[test]
fn compressed_friction_blocks_step_as_dense_ones() {
    compressed_and_dense_agree("sliding balls", &sliding_balls(), 400, 300);
}
