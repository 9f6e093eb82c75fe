//! The broad phase of a scene held on the device, there ([`GpuScene::rebuild_on_device`]):
//! the host's stage (`LargeScene::broad_phase`) without the scene's trip down and up. The
//! grid is laid over the box of the centres the last step reported; each body writes its
//! sphere and keeps its centre (`rebuild_bodies`) and each contact its world impulse and
//! pair in key order (`carry_out`, `shaders/large_scene_rebuild.wgsl`); the spheres go to
//! [`super::super::GpuBroadPhase`], which counts the pairs (a 4-byte read) and writes
//! them; [`super::super::GpuColouring`] colours them by Jones–Plassmann rounds and sorts
//! them by (colour, key) into the step's pair list, where `carry_in` gives each the impulse
//! of the same pair before; each colour's start comes back and the dispatches go up. The
//! same pairs, colours, order and carried impulses as the host's stage: its bits in f64.

use super::super::upload::dispatches;
use super::super::{PAIRS, VELOCITY};
use super::{GpuScene, scene_values};
use crate::batch::gpu::kernel::groups;
use crate::error::Result;
use crate::large_scene::LargeScene;
use crate::large_scene::colouring::COLOURS;

impl GpuScene {
    /// The broad phase of the scene held on the device, there (see the module's
    /// documentation). False, with nothing changed that the host reads back, when the grid
    /// does not fit the device's coordinates or the pairs its buffers: the host's broad
    /// phase is then due.
    pub(super) fn rebuild_on_device(&mut self, scene: &LargeScene) -> Result<bool> {
        let held = self.held.as_mut().expect("held");
        let solver = &mut self.solver;
        let (n, previous) = (scene.bodies.len(), held.contacts);
        if !solver
            .broad_phase
            .prepare(held.bounds, &scene.bodies, &scene.walls, scene.margin)?
        {
            return Ok(false);
        }
        let ctx = solver.ctx.clone();
        let size = solver.precision.size() as u64;
        let buffers = solver.buffers.as_ref().expect("held");
        let stages = &solver.stages;
        let stride = solver.stride as usize;
        // The light error's slot: every contact held and every body.
        let light = held.slots[0];
        let run = |pass: &mut wgpu::ComputePass, pipeline: &wgpu::ComputePipeline, items: usize| {
            pass.set_bind_group(0, &buffers.group, &[(stride * light) as u32]);
            pass.set_pipeline(pipeline);
            let (x, y) = groups(items);
            pass.dispatch_workgroups(x, y, 1);
        };
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            run(&mut pass, &stages.rebuild_bodies, n);
            run(&mut pass, &stages.carry_out, previous);
        }
        encoder.copy_buffer_to_buffer(
            &buffers.storage[VELOCITY],
            0,
            solver.broad_phase.spheres(),
            0,
            4 * n as u64 * size,
        );
        let m = solver.broad_phase.count(encoder)?;
        if m > buffers.contacts || scene_values(scene.walls.len(), n, m) > buffers.scene {
            return Ok(false);
        }
        // `carry_in` over the m contacts, the `previous` ones before.
        solver.write_dispatches(light, &dispatches(&scene.bodies, Some(&[]), m, previous));
        let (colours, overflow) = if m == 0 {
            (Vec::new(), false)
        } else {
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            let pairs = solver.broad_phase.write(&mut encoder, m)?;
            ctx.queue.submit([encoder.finish()]);
            let starts = solver.colouring.sort(pairs, m, n, |encoder, sorted| {
                encoder.copy_buffer_to_buffer(sorted, 0, &buffers.storage[PAIRS], 0, 16 * m as u64);
                let mut pass = encoder.begin_compute_pass(&Default::default());
                run(&mut pass, &stages.carry_in, m);
            })?;
            // The colours in order, the overflow colour (COLOURS) last when it has pairs.
            let colours = starts
                .windows(2)
                .map(|w| w[0]..w[1])
                .filter(|r| !r.is_empty())
                .collect();
            (colours, starts[COLOURS + 1] > starts[COLOURS])
        };
        let slots = dispatches(&scene.bodies, Some(&colours), m, previous);
        solver.write_dispatches(0, &slots);
        held.overflow = overflow;
        held.slots = [colours.len(), colours.len() + 1];
        held.contacts = m;
        held.colours = colours;
        Ok(true)
    }
}
