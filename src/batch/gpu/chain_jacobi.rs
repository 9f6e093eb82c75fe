//! Runs a [`BeadChain`] — one large scene — contact-parallel on the device: one invocation
//! per contact or bead, relaxed Jacobi with ping-pong λ buffers, every dispatch of the run
//! recorded into one command buffer, and only z, v and the residuals read back.
//!
//! [`BeadChain`]: crate::batch::BeadChain

use super::buffers::{bind_group, read_back, storage, uniform};
use super::kernel::{Bindings, compile};
use super::{GpuContext, Precision, shaders};
use crate::batch::BeadChain;
use crate::batch::ChainOptions;
use crate::error::{Error, Result};

/// The chain after a run, widened to f64.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainOutcome {
    /// Heights.
    pub z: Vec<f64>,
    /// Velocities.
    pub v: Vec<f64>,
    /// Worst natural-map residual max_i |λ_i − max(0, λ_i − w_i)| of any step.
    pub residual: f64,
}

/// Advances `chain` by `steps` steps on the device in `precision`.
pub fn run_chain(
    ctx: &GpuContext,
    chain: &BeadChain,
    precision: Precision,
    steps: u32,
    options: &ChainOptions,
) -> Result<ChainOutcome> {
    chain.check()?;
    options.check()?;
    ctx.check_precision(precision)?;
    let n = chain.len();
    let too_large = || Error::Unsupported {
        what: format!("a chain of {n} beads"),
        reason: "does not fit one binding or one 65 535-workgroup dispatch".into(),
    };
    let groups = u32::try_from(n.div_ceil(64))
        .ok()
        .filter(|&g| g <= 65_535)
        .ok_or_else(too_large)?;
    if (n * precision.size()) as u64 > ctx.max_binding_bytes() {
        return Err(too_large());
    }
    let bindings = Bindings {
        dynamic_uniform: false,
        read_only: &[false; 7],
    };
    let source = shaders::chain_jacobi(precision);
    let names = ["prepare", "sweep", "update"];
    let (bind_layout, [prepare, sweep, update]) = compile(ctx, ("chain_jacobi", "chain"), source, bindings, names)?;

    // The uniform's bytes, padded to 16 as uniform buffers are.
    let mut bytes = chain
        .params(options)
        .to_bytes(precision.size(), |x, out| out.extend(precision.bytes(&[x])));
    bytes.resize(bytes.len().next_multiple_of(16), 0);
    let params = uniform(ctx, "params", &bytes);
    let zeros = precision.bytes(&vec![0.0; n]);
    let buffers = [
        storage(ctx, "z", &precision.bytes(&chain.z)),
        storage(ctx, "v", &precision.bytes(&chain.v)),
        storage(ctx, "lcp_q", &zeros),
        storage(ctx, "lambda_a", &zeros),
        storage(ctx, "lambda_b", &zeros),
        storage(ctx, "active", bytemuck::cast_slice(&vec![0u32; n])),
        storage(ctx, "residual", &zeros),
    ];
    // Group A reads λ from lambda_a and writes lambda_b; group B the other way round.
    let group = |swap: bool| {
        let mut resources: Vec<&wgpu::Buffer> = buffers.iter().collect();
        if swap {
            resources.swap(3, 4);
        }
        bind_group(ctx, "chain", &bind_layout, &params, &resources)
    };
    let (a, b) = (group(false), group(true));
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("chain") });
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("chain"),
            timestamp_writes: None,
        });
        for _ in 0..steps {
            pass.set_pipeline(&prepare);
            pass.set_bind_group(0, &a, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
            pass.set_pipeline(&sweep);
            for k in 0..options.sweeps {
                pass.set_bind_group(0, if k.is_multiple_of(2) { &a } else { &b }, &[]);
                pass.dispatch_workgroups(groups, 1, 1);
            }
            // The latest λ is in lambda_a after an even number of sweeps.
            pass.set_pipeline(&update);
            pass.set_bind_group(0, if options.sweeps.is_multiple_of(2) { &a } else { &b }, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
    }
    let [z, v, residual] = read_back(ctx, encoder, [&buffers[0], &buffers[1], &buffers[6]], || {});
    let residual = precision.values(&residual?).into_iter().fold(0.0, f64::max);
    Ok(ChainOutcome {
        z: precision.values(&z?),
        v: precision.values(&v?),
        residual,
    })
}
