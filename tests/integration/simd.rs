//! The CPU lanes give the same bits on every instruction set this CPU has (the portable
//! binary picks one at run time): every shipped scenario, in f64 and f32. The copies differ
//! in an optimised build only (a dev build's stages are out of line, compiled for the
//! baseline, in every copy: `batch::cpu::moreau_jean_stages`), so this checks what ships
//! under `cargo test --release --test integration simd::`.

use crate::common;

use ricochet::batch::cpu::moreau_jean_pgs::{BatchState, LaneFloat, run_on};
use ricochet::batch::cpu::simd::Simd;
use ricochet::batch::{BatchOptions, SceneBatch};
use ricochet::ensemble::Scenario;

/// 37 scenes of a scenario in one batch (two full lane groups of 16 and a partial one where
/// the scenes have equal sizes).
fn batch(path: &std::path::Path) -> SceneBatch {
    let scenario = Scenario::load(path).unwrap();
    let mut batch = SceneBatch::new(scenario.time.step, scenario.osi()).unwrap();
    for index in 0..37 {
        let scene = scenario.sample(index).unwrap();
        let linear = scene
            .scene
            .linear(scenario.time.step, scenario.time.theta, scenario.stabilization())
            .unwrap();
        batch.push(&linear).unwrap();
    }
    batch
}

fn run<T: LaneFloat + std::fmt::Debug>(simd: Simd, batch: &SceneBatch, double: bool) -> BatchState<T> {
    let operators: Vec<T> = batch.operators.iter().map(|&x| T::from(x).unwrap()).collect();
    let mut state = BatchState::<T>::new(batch);
    run_on(
        simd,
        batch,
        &operators,
        &mut state,
        (400, &ricochet::batch::Progress::new()),
        &BatchOptions::for_precision(double),
    );
    state
}

#[test]
fn every_instruction_set_gives_the_same_bits() {
    let available = Simd::available();
    println!(
        "instruction sets: {:?}",
        available.iter().map(|s| s.name()).collect::<Vec<_>>()
    );
    // (The scenarios the batched engines run.)
    let scenarios: Vec<_> = common::shipped_scenarios()
        .into_iter()
        .filter_map(|(path, batched)| batched.then_some(path))
        .collect();
    assert!(scenarios.len() >= 9);
    for path in &scenarios {
        let batch = batch(path);
        let (base64, base32) = (
            run::<f64>(available[0], &batch, true),
            run::<f32>(available[0], &batch, false),
        );
        // The run did something: no scene is still at its initial state.
        assert_ne!(base64.state, BatchState::<f64>::new(&batch).state, "{}", path.display());
        for &simd in &available[1..] {
            let (s64, s32) = (run::<f64>(simd, &batch, true), run::<f32>(simd, &batch, false));
            let bits64 = |s: &BatchState<f64>| {
                s.state
                    .iter()
                    .chain(&s.extremes)
                    .map(|x| x.to_bits())
                    .collect::<Vec<_>>()
            };
            let bits32 = |s: &BatchState<f32>| {
                s.state
                    .iter()
                    .chain(&s.extremes)
                    .map(|x| x.to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                bits64(&s64),
                bits64(&base64),
                "{} f64 on {}",
                path.display(),
                simd.name()
            );
            assert_eq!(
                bits32(&s32),
                bits32(&base32),
                "{} f32 on {}",
                path.display(),
                simd.name()
            );
            assert_eq!(s64.counters, base64.counters, "{} on {}", path.display(), simd.name());
            assert_eq!(s32.counters, base32.counters, "{} on {}", path.display(), simd.name());
        }
    }
}
