//! One chunk of a batch on the device: its buffers uploaded once, the steps recorded as
//! dispatches of `per_dispatch` steps into few command buffers, its final state, health and
//! records read back, and a chunk that the loop limiter cut short reported as such.

use super::super::buffers::{bind_group, read_back, storage, uniform};
use super::super::{GpuContext, Precision};
use super::{Params, SUBMISSIONS};
use crate::batch::BatchOutcome;
use crate::batch::SceneBatch;
use crate::batch::layout::{CUT_SHORT, EXTREMES, HealthCounters};
use crate::batch::observe::Observer;
use crate::batch::{BatchOptions, Progress, StepParams};
use crate::error::{Error, Result};

/// The first scene of a chunk (its index in the chunk) that stopped before the run's steps,
/// and the steps it had taken.
pub(super) struct CutShort {
    pub(super) scene: usize,
    pub(super) steps: u32,
}

/// Runs one chunk; `Err` when some scene stopped before `steps` (see
/// [`CPU_ADAPTER_LOOP_BUDGET`](super::CPU_ADAPTER_LOOP_BUDGET)).
pub(super) fn run_chunk(
    ctx: &GpuContext,
    (pipeline, located_len): (&wgpu::ComputePipeline, usize),
    chunk: &SceneBatch,
    precision: Precision,
    (steps, progress): (u32, &Progress),
    per_dispatch: u32,
    options: &BatchOptions,
) -> Result<std::result::Result<BatchOutcome, CutShort>> {
    let scenes = u32::try_from(chunk.len()).map_err(|_| Error::Gpu("more than 2³² scenes in one chunk".into()))?;
    let step = StepParams {
        h: chunk.h,
        theta: chunk.theta,
        gamma: chunk.gamma,
        tolerance: options.tolerance,
        newton_tolerance: options.newton_tolerance,
        position_tolerance: options.position_tolerance,
        t0: chunk.t0,
        max_iterations: options.max_iterations,
        newton_max_iterations: options.newton_max_iterations,
    };
    let codes: Vec<[u32; 4]> = chunk.recording.observers.iter().map(Observer::code).collect();
    let observed: Vec<f64> = chunk
        .headers
        .iter()
        .flat_map(|h| chunk.recording.initial::<f64>(h.ndof as usize, h.ncontacts as usize))
        .collect();
    let observed_len = observed.len();
    // With located impacts, per scene: no impact yet (NaN), no recent row, no rate yet (NaN).
    let located: Vec<f64> = if options.locate_impacts {
        let observers = chunk.recording.observers.len();
        let rows = located_len - 1 - observers;
        [vec![f64::NAN], vec![0.0; rows], vec![f64::NAN; observers]]
            .concat()
            .repeat(chunk.len())
    } else {
        vec![0.0]
    };
    // Identical scenes are uploaded component-major (coalesced); others packed, stride 1.
    let interleaved = chunk.interleave();
    let (headers, operators, state, stride) = match &interleaved {
        Some(i) => (&i.headers, &i.operators, &i.state, scenes),
        None => (&chunk.headers, &chunk.operators, &chunk.state, 1),
    };
    let buffers = [
        storage(
            ctx,
            "step_params",
            &step.to_bytes(precision.size(), |x, out| out.extend(precision.bytes(&[x]))),
        ),
        storage(ctx, "headers", bytemuck::cast_slice(headers)),
        storage(ctx, "operators", &precision.bytes(operators)),
        storage(ctx, "state", &precision.bytes(state)),
        storage(
            ctx,
            "counters",
            bytemuck::cast_slice(&vec![HealthCounters::default(); chunk.len()]),
        ),
        storage(
            ctx,
            "extremes",
            &precision.bytes(&vec![precision.lowest(); EXTREMES * chunk.len()]),
        ),
        storage(ctx, "observers", bytemuck::cast_slice(&codes)),
        storage(ctx, "observed", &precision.bytes(&observed)),
        storage(ctx, "row_kinds", bytemuck::cast_slice(&chunk.row_kinds)),
        storage(ctx, "located", &precision.bytes(&located)),
    ];
    let bind_group = |steps: u32| {
        let params = Params {
            scenes,
            steps,
            stride,
            probe: 2,
            zero: 0,
        };
        let params = uniform(ctx, "params", bytemuck::bytes_of(&params));
        // (A kernel compiled without the located step binds no located record.)
        let bound = buffers.len() - usize::from(!options.locate_impacts);
        let storage: Vec<&wgpu::Buffer> = buffers[..bound].iter().collect();
        bind_group(
            ctx,
            "moreau_jean_pgs",
            &pipeline.get_bind_group_layout(0),
            &params,
            &storage,
        )
    };
    // The pass's start and end times, where the adapter has timestamps.
    let timer = ctx.has_timestamps().then(|| {
        ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("steps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        })
    });
    let ticks = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("ticks"),
        size: 16,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let (full, rest) = (steps / per_dispatch, steps % per_dispatch);
    let workgroup = ctx.tuning().workgroup_size;
    let groups = scenes.div_ceil(workgroup).clamp(1, ctx.max_workgroups());
    let full_group = (full > 0).then(|| bind_group(per_dispatch));
    // (A run of no steps still dispatches once: the observers take their sample at t₀.)
    let rest_group = (rest > 0 || steps == 0).then(|| bind_group(rest));
    let dispatches: Vec<(&wgpu::BindGroup, u32)> = std::iter::repeat_n((&full_group, per_dispatch), full as usize)
        .chain(std::iter::once((&rest_group, rest)))
        .filter_map(|(group, steps)| group.as_ref().map(|g| (g, steps)))
        .collect();
    // The dispatches in up to SUBMISSIONS command buffers, all queued before the host waits
    // (the device never idles for it); waiting on each in turn reports the progress. The
    // timer spans them: started in the first pass, stopped in the last.
    let segments: Vec<&[(&wgpu::BindGroup, u32)]> = dispatches
        .chunks(dispatches.len().div_ceil(SUBMISSIONS).max(1))
        .collect();
    let last = segments.len() - 1;
    let mut encoders: Vec<(wgpu::CommandEncoder, u64)> = segments
        .iter()
        .enumerate()
        .map(|(i, segment)| {
            let mut commands = ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("steps") });
            {
                let writes = (i == 0, i == last);
                let mut pass = commands.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("steps"),
                    timestamp_writes: timer.as_ref().filter(|_| writes != (false, false)).map(|query_set| {
                        wgpu::ComputePassTimestampWrites {
                            query_set,
                            beginning_of_pass_write_index: writes.0.then_some(0),
                            end_of_pass_write_index: writes.1.then_some(1),
                        }
                    }),
                });
                pass.set_pipeline(pipeline);
                for (group, _) in segment.iter() {
                    pass.set_bind_group(0, *group, &[]);
                    pass.dispatch_workgroups(groups, 1, 1);
                }
            }
            let scene_steps = u64::from(scenes) * segment.iter().map(|&(_, k)| u64::from(k)).sum::<u64>();
            (commands, scene_steps)
        })
        .collect();
    // All but the last submitted now; the last carries the read-back.
    let (mut encoder, last_steps) = encoders.pop().ok_or_else(|| Error::Gpu("no dispatch".into()))?;
    let queued: Vec<(wgpu::SubmissionIndex, u64)> = encoders
        .into_iter()
        .map(|(commands, scene_steps)| (ctx.queue.submit([commands.finish()]), scene_steps))
        .collect();
    if let Some(query_set) = &timer {
        encoder.resolve_query_set(query_set, 0..2, &ticks, 0);
    }
    let [_, _, _, state, counters, extremes, _, observed, _, located] = &buffers;
    let mut reported = 0;
    let [state, counters, extremes, observed, located, ticks] = read_back(
        ctx,
        encoder,
        [state, counters, extremes, observed, located, &ticks],
        || {
            for (index, scene_steps) in queued {
                let wait = wgpu::PollType::Wait {
                    submission_index: Some(index),
                    timeout: None,
                };
                if ctx.device.poll(wait).is_ok() {
                    progress.add(scene_steps);
                    reported += scene_steps;
                }
            }
        },
    );
    progress.add(last_steps);
    reported += last_steps;
    let (state, counters, extremes, observed, located, ticks) =
        (state?, counters?, extremes?, observed?, located?, ticks?);
    let device_seconds = timer.map(|_| ctx.timestamp_seconds(&ticks[..16]));
    let counters: Vec<HealthCounters> =
        bytemuck::pod_collect_to_vec(&counters[..chunk.len() * std::mem::size_of::<HealthCounters>()]);
    if let Some(scene) = counters
        .iter()
        .position(|c| c.steps != steps || c.flags & CUT_SHORT != 0)
    {
        // (Run again with fewer steps per dispatch: its steps are reported again.)
        progress.take_back(reported);
        let steps = counters[scene].steps;
        return Ok(Err(CutShort { scene, steps }));
    }
    Ok(Ok(BatchOutcome {
        state: match interleaved {
            Some(_) => chunk.deinterleave_state(&precision.values(&state)[..chunk.state.len()]),
            None => precision.values(&state)[..chunk.state.len()].to_vec(),
        },
        counters,
        extremes: precision.values(&extremes)[..EXTREMES * chunk.len()].to_vec(),
        observed: precision.values(&observed)[..observed_len].to_vec(),
        impact_times: if options.locate_impacts {
            precision
                .values(&located)
                .iter()
                .step_by(located_len)
                .take(chunk.len())
                .copied()
                .collect()
        } else {
            Vec::new()
        },
        device_seconds,
    }))
}
