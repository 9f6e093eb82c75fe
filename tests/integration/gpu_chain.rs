//! The contact-parallel bead chain: its CPU twin against the reference stepper, and the
//! WGSL kernels (f64, f32) against the twin.

use crate::common;

use nalgebra::{DMatrix, DVector};
use ricochet::batch::BeadChain;
use ricochet::batch::ChainOptions;
use ricochet::batch::cpu::chain_jacobi::{self, ChainState};
use ricochet::batch::gpu::{Precision, run_chain};
use ricochet::model::{LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use ricochet::reference::{Integrator, TimeStepping};
use ricochet::scheme::moreau_jean::MoreauJeanOSI;

/// The same chain as an Nsds for the reference stepper (every contact linked from the start).
fn reference(chain: &BeadChain, h: f64, steps: usize) -> (Vec<f64>, Vec<f64>) {
    let mut nsds = Nsds::new();
    let beads: Vec<_> = (0..chain.len())
        .map(|i| {
            let mass = DMatrix::from_element(1, 1, chain.mass);
            let bead = LagrangianLinearTIDS::new(
                DVector::from_element(1, chain.z[i]),
                DVector::from_element(1, chain.v[i]),
                mass,
            )
            .unwrap()
            .with_fext(DVector::from_element(1, -chain.mass * chain.gravity))
            .unwrap();
            nsds.add(&format!("bead {i}"), bead)
        })
        .collect();
    let law = NewtonImpactNSL::new(chain.restitution).unwrap();
    let floor = LagrangianLinearTIR::with_offset(
        DMatrix::from_element(1, 1, 1.0),
        DVector::from_element(1, -chain.radius),
    )
    .unwrap();
    nsds.link("floor", law, floor, &[beads[0]]).unwrap();
    for i in 1..chain.len() {
        let h = DMatrix::from_row_slice(1, 2, &[-1.0, 1.0]);
        let pair = LagrangianLinearTIR::with_offset(h, DVector::from_element(1, -2.0 * chain.radius)).unwrap();
        nsds.link(&format!("{}-{i}", i - 1), law, pair, &[beads[i - 1], beads[i]])
            .unwrap();
    }
    let mut sim = TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, h).unwrap();
    for _ in 0..steps {
        sim.step().unwrap();
    }
    let s = sim.sample().unwrap();
    (s.q.as_slice().to_vec(), s.v.as_slice().to_vec())
}

fn max_gap(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// With enough sweeps Jacobi solves each step's LCP, and the chain follows the reference
/// (Lemke) stepper through its impacts and into a resting stack.
#[test]
fn chain_twin_matches_the_reference_stepper() {
    let chain = BeadChain::new(6, 0.3, 0.22).unwrap();
    let options = ChainOptions {
        sweeps: 3000,
        ..Default::default()
    };
    let steps = 3000;
    let (z_ref, v_ref) = reference(&chain, options.step, steps);
    let mut state = ChainState::<f64>::new(&chain);
    chain_jacobi::run(&chain, &mut state, steps as u32, &options);
    let (dz, dv) = (max_gap(&state.z, &z_ref), max_gap(&state.v, &v_ref));
    println!(
        "chain twin vs reference: |Δz| {dz:e}, |Δv| {dv:e}, worst residual {:e}",
        state.residual
    );
    assert!(dz <= 1e-9 && dv <= 1e-9, "|Δz| {dz:e}, |Δv| {dv:e}");
    assert!(state.z.windows(2).all(|w| w[1] > w[0]), "beads stay in order");
}

/// The kernels do the twin's arithmetic, in f64 and in f32. (A compressed chain after a few
/// Jacobi sweeps is far from its LCP solution, and resting contacts sit at y ≈ 0 where
/// rounding decides activation, so f32 is compared with the f32 twin, not with f64.)
#[test]
fn chain_kernels_match_the_twin() {
    let Some(ctx) = common::gpu() else { return };
    let chain = BeadChain::new(1000, 0.12, 0.201).unwrap();
    let options = ChainOptions {
        sweeps: 20,
        ..Default::default()
    };
    let steps = 400u32;
    let mut twin = ChainState::<f64>::new(&chain);
    chain_jacobi::run(&chain, &mut twin, steps, &options);
    let gpu = run_chain(ctx, &chain, Precision::F64, steps, &options).unwrap();
    let (dz, dv) = (max_gap(&gpu.z, &twin.z), max_gap(&gpu.v, &twin.v));
    println!(
        "chain GPU f64 vs twin: |Δz| {dz:e}, |Δv| {dv:e}, residual {:e} vs {:e}",
        gpu.residual, twin.residual
    );
    assert!(dz <= 1e-12 && dv <= 1e-10);
    assert!((gpu.residual - twin.residual).abs() <= 1e-12 * (1.0 + twin.residual));
    assert!(twin.residual > 0.0, "contacts were active during the run");

    // f32: against the twin in f32, which rounds the same operations.
    let gpu = run_chain(ctx, &chain, Precision::F32, steps, &options).unwrap();
    let mut twin32 = ChainState::<f32>::new(&chain);
    chain_jacobi::run(&chain, &mut twin32, steps, &options);
    let widen = |x: &[f32]| x.iter().map(|&v| f64::from(v)).collect::<Vec<_>>();
    let (dz, dv) = (max_gap(&gpu.z, &widen(&twin32.z)), max_gap(&gpu.v, &widen(&twin32.v)));
    let tolerance = 1e-5;
    println!("chain GPU f32 vs twin f32: |Δz| {dz:e}, |Δv| {dv:e}");
    assert!(dz <= tolerance && dv <= tolerance);
}
