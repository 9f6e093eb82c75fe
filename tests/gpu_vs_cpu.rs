//! The batched engines — the CPU twin (`solver::cpu::batch`) and the WGSL kernel in f32 and
//! f64 — against the f64 reference stepper, scene by scene, on ensembles of bouncing balls,
//! Newton's cradles and bead columns, mixed in one batch.

mod common;

use nalgebra::{DMatrix, DVector};
use ricochet::assemble::{LinearScene, SceneBatch};
use ricochet::model::{LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use ricochet::scenes::{bouncing_ball::BouncingBall, newtons_cradle::NewtonsCradle};
use ricochet::solver::cpu::batch::{self, BatchOptions, BatchState};
use ricochet::solver::cpu::{Integrator, TimeStepping};
use ricochet::solver::gpu::{Precision, run_batch};
use ricochet::solver::moreau_jean::MoreauJeanOSI;

const H: f64 = 1e-3;
const STEPS: u32 = 1500;

/// A small deterministic generator (xorshift64*), so the ensemble is the same everywhere.
struct Rng(u64);
impl Rng {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * x
    }
}

/// A column of `n` beads (1 dof each) above a floor, every contact linked from the start.
fn column(n: usize, e: f64, rng: &mut Rng) -> Nsds {
    let (r, g) = (0.1, 9.81);
    let mut nsds = Nsds::new();
    let beads: Vec<_> = (0..n)
        .map(|i| {
            let z = 0.3 + 0.25 * i as f64 + rng.uniform(0.0, 0.05);
            let bead = LagrangianLinearTIDS::new(
                DVector::from_element(1, z),
                DVector::zeros(1),
                DMatrix::identity(1, 1),
            )
            .unwrap()
            .with_fext(DVector::from_element(1, -g))
            .unwrap();
            nsds.add(&format!("bead {i}"), bead)
        })
        .collect();
    let law = NewtonImpactNSL::new(e).unwrap();
    let floor = LagrangianLinearTIR::with_offset(
        DMatrix::from_element(1, 1, 1.0),
        DVector::from_element(1, -r),
    )
    .unwrap();
    nsds.link("floor", law, floor, &[beads[0]]).unwrap();
    for i in 1..n {
        let pair = LagrangianLinearTIR::with_offset(
            DMatrix::from_row_slice(1, 2, &[-1.0, 1.0]),
            DVector::from_element(1, -2.0 * r),
        )
        .unwrap();
        nsds.link(
            &format!("{}-{i}", i - 1),
            law,
            pair,
            &[beads[i - 1], beads[i]],
        )
        .unwrap();
    }
    nsds
}

/// The ensemble: sampled bouncing balls, cradles and columns, interleaved.
fn ensemble(count: usize) -> Vec<Nsds> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..count)
        .map(|s| match s % 4 {
            0 | 1 => BouncingBall {
                height: rng.uniform(0.5, 2.0),
                restitution: rng.uniform(0.5, 0.95),
                step: H,
                ..Default::default()
            }
            .nsds()
            .unwrap(),
            2 => {
                let cradle = NewtonsCradle {
                    velocity: rng.uniform(0.5, 2.0),
                    restitution: rng.uniform(0.8, 1.0),
                    step: H,
                    ..Default::default()
                };
                cradle.nsds().unwrap().0
            }
            _ => column(4, rng.uniform(0.5, 0.9), &mut rng),
        })
        .collect()
}

/// Final (q, v) and number of impact steps of one scene under the reference stepper.
fn reference(nsds: Nsds) -> (Vec<f64>, Vec<f64>, u32) {
    let mut sim = TimeStepping::new(
        nsds,
        Integrator::MoreauJean(MoreauJeanOSI::default()),
        0.0,
        H,
    )
    .unwrap();
    let mut impacts = 0;
    for _ in 0..STEPS {
        sim.step().unwrap();
        impacts += u32::from(sim.sample().unwrap().lambda.iter().any(|&l| l > 0.0));
    }
    let s = sim.sample().unwrap();
    (s.q.as_slice().to_vec(), s.v.as_slice().to_vec(), impacts)
}

fn batch_of(scenes: &[Nsds]) -> SceneBatch {
    let mut batch = SceneBatch::new(H, MoreauJeanOSI::default()).unwrap();
    for nsds in scenes {
        batch
            .push(&LinearScene::from_nsds(nsds, H, 0.5).unwrap())
            .unwrap();
    }
    batch
}

/// Max |Δ| over q and v of every scene, and the scenes whose impact counts differ.
fn compare(
    batch: &SceneBatch,
    state: &[f64],
    impacts: &[u32],
    references: &[(Vec<f64>, Vec<f64>, u32)],
) -> (f64, Vec<usize>) {
    let mut worst = 0.0f64;
    let mut mismatched = Vec::new();
    for (s, (q, v, count)) in references.iter().enumerate() {
        let hd = batch.headers[s];
        let ours = &state[hd.state_offset as usize..][..2 * hd.ndof as usize];
        for (a, b) in ours.iter().zip(q.iter().chain(v)) {
            worst = worst.max((a - b).abs());
        }
        if impacts[s] != *count {
            mismatched.push(s);
        }
    }
    (worst, mismatched)
}

#[test]
fn cpu_twin_f64_matches_the_reference() {
    let scenes = ensemble(16);
    let batch = batch_of(&scenes);
    let references: Vec<_> = scenes.into_iter().map(reference).collect();
    let mut state = BatchState::<f64>::new(&batch);
    batch::run(
        &batch,
        &batch.operators,
        &mut state,
        STEPS,
        &BatchOptions::for_precision(true),
    );
    let impacts: Vec<u32> = state.counters.iter().map(|c| c.impacts).collect();
    let (worst, mismatched) = compare(&batch, &state.state, &impacts, &references);
    println!("CPU twin f64 vs reference: max |Δ| = {worst:e}");
    assert!(
        worst <= 1e-9 && mismatched.is_empty(),
        "max |Δ| {worst:e}, impact counts differ in {mismatched:?}"
    );
    assert!(
        state.counters.iter().all(|c| c.flags == 0),
        "every LCP converged, nothing non-finite"
    );
}

#[test]
fn gpu_f64_matches_the_reference() {
    let Some(ctx) = common::gpu() else { return };
    let scenes = ensemble(64);
    let batch = batch_of(&scenes);
    let references: Vec<_> = scenes.into_iter().map(reference).collect();
    let outcome = run_batch(
        ctx,
        &batch,
        Precision::F64,
        STEPS,
        &BatchOptions::for_precision(true),
    )
    .unwrap();
    let impacts: Vec<u32> = outcome.counters.iter().map(|c| c.impacts).collect();
    let (worst, mismatched) = compare(&batch, &outcome.state, &impacts, &references);
    println!(
        "GPU f64 ({}) vs reference: max |Δ| = {worst:e}",
        ctx.adapter_name()
    );
    assert!(
        worst <= 1e-9 && mismatched.is_empty(),
        "max |Δ| {worst:e}, impact counts differ in {mismatched:?}"
    );
    assert!(outcome.counters.iter().all(|c| c.flags == 0));
}
