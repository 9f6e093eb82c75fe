//! The scene's trips between the host and the device: up ([`GpuScene::hold`], with the
//! scene buffer's values) and back ([`GpuScene::release`]).

use super::super::{GEOMETRY, GEOMETRY_BUFFER, IMPULSE, PAIRS, SCENE};
use super::{BODY_STATE, GpuScene, HEAD, Held, WALL, scene_values};
use crate::batch::gpu::buffers::read_back_ranges;
use crate::error::Result;
use crate::large_scene::LargeScene;
use crate::large_scene::broad_phase::{Pair, bodies_box};
use crate::large_scene::narrow_phase::Contact;
use crate::large_scene::solve::{Coloured, Velocities};
use crate::large_scene::walls::Shape;

impl GpuScene {
    /// Puts `scene` on the device.
    pub(super) fn hold(&mut self, scene: &mut LargeScene) -> Result<()> {
        let values = scene_buffer(scene);
        let (mut v, mut omega) = (scene.bodies.v.clone(), scene.bodies.omega.clone());
        let state = Velocities {
            bodies: &scene.bodies,
            v: &mut v,
            omega: &mut omega,
        };
        let coloured = Coloured {
            contacts: &mut scene.contacts,
            colours: &scene.colours,
            overflow: scene.overflow,
        };
        let slots = self.solver.upload(&state, &coloured, &scene.solver, &values)?;
        self.held = Some(Held {
            steps: scene.steps,
            contacts: scene.contacts.len(),
            colours: scene.colours.clone(),
            overflow: scene.overflow,
            slots,
            moved: 0.0,
            speed: 0.0,
            broken: false,
            bounds: bodies_box(&scene.bodies),
        });
        Ok(())
    }

    /// Brings the scene's state back from the device: the bodies' x, v, ω, θ, presence and
    /// centre at the broad phase, and every contact as the last step left it, in sweep
    /// order with its colours.
    pub(super) fn release(&mut self, scene: &mut LargeScene) -> Result<()> {
        let buffers = self.solver.buffers.as_ref().expect("held");
        let held = self.held.take().expect("held");
        let (n, m) = (scene.bodies.len(), held.contacts);
        let size = self.solver.precision.size() as u64;
        let bodies = (HEAD + WALL * scene.walls.len()) as u64;
        let encoder = self.solver.ctx.device.create_command_encoder(&Default::default());
        let [state, geometry, impulse, pairs] = read_back_ranges(
            &self.solver.ctx,
            encoder,
            [
                (
                    &buffers.storage[SCENE],
                    bodies * size..(bodies + (BODY_STATE * n) as u64) * size,
                ),
                (&buffers.storage[GEOMETRY_BUFFER], 0..(GEOMETRY * m) as u64 * size),
                (&buffers.storage[IMPULSE], 0..(6 * m) as u64 * size),
                (&buffers.storage[PAIRS], 0..16 * m as u64),
            ],
            || {},
        );
        let precision = self.solver.precision;
        let [state, geometry, impulse] = [state?, geometry?, impulse?].map(|bytes| precision.values(&bytes));
        let pairs = pairs?;
        let b = &mut scene.bodies;
        for (k, s) in state.chunks_exact(BODY_STATE).enumerate() {
            b.x[k] = [s[0], s[1], s[2]];
            b.v[k] = [s[3], s[4], s[5]];
            b.omega[k] = [s[6], s[7], s[8]];
            scene.rebuilt_at[k] = [s[9], s[10], s[11]];
            b.angle[k] = s[12];
            b.present[k] = s[13] == 1.0;
        }
        let (grains, walls) = (scene.grains, &scene.walls);
        let pairs: Vec<[u32; 4]> = bytemuck::pod_collect_to_vec(&pairs);
        scene.contacts = (0..m)
            .map(|c| {
                let g = &geometry[GEOMETRY * c..GEOMETRY * (c + 1)];
                let r = &impulse[6 * c..6 * c + 3];
                let [i, j, active, _] = pairs[c];
                let pair = Pair { i, j };
                let j = j as usize;
                Contact {
                    pair,
                    gap: g[18],
                    frame: [[g[0], g[1], g[2]], [g[3], g[4], g[5]], [g[6], g[7], g[8]]],
                    w: [g[9], g[10]],
                    law: if j < n { grains } else { walls[j - n].law },
                    target: [g[12], g[13], g[14]],
                    q: [g[15], g[16], g[17]],
                    r: [r[0], r[1], r[2]],
                    active: active != 0,
                }
            })
            .collect();
        scene.colours = held.colours;
        scene.overflow = held.overflow;
        Ok(())
    }
}

/// The scene buffer's values (the kernel's `scene`): the head, the walls, the bodies, and
/// zeros for the report.
fn scene_buffer(scene: &LargeScene) -> Vec<f64> {
    let b = &scene.bodies;
    let (n, m, walls) = (b.len(), scene.contacts.len(), scene.walls.len());
    let mut values = Vec::with_capacity(scene_values(walls, n, m));
    let g = scene.gravity;
    let grains = scene.grains;
    values.extend([
        scene.h,
        scene.theta,
        scene.gamma * scene.h,
        g[0],
        g[1],
        g[2],
        b.period.unwrap_or(0.0),
        scene.sink.unwrap_or(0.0),
        f64::from(u8::from(scene.sink.is_some())),
        grains.e_n(),
        grains.e_t(),
        grains.mu(),
        f64::from(u8::from(scene.solver.warm_start)),
        (b.dimension.rows() - 1) as f64,
        walls as f64,
        f64::INFINITY,
    ]);
    for wall in &scene.walls {
        let (kind, p, q, owns) = match wall.shape {
            Shape::Plane { point, normal } => (0.0, point, normal, 0.0),
            Shape::Segment { a, b, owns_a, owns_b } => (1.0, a, b, f64::from(u8::from(owns_a) + 2 * u8::from(owns_b))),
        };
        values.push(kind);
        values.extend(p);
        values.extend(q);
        values.extend([owns, wall.law.e_n(), wall.law.e_t(), wall.law.mu(), 0.0]);
    }
    for k in 0..n {
        values.extend(b.x[k]);
        values.extend(b.v[k]);
        values.extend(b.omega[k]);
        values.extend(scene.rebuilt_at[k]);
        values.extend([b.angle[k], f64::from(u8::from(b.present[k])), b.spin_compliance(k), 0.0]);
    }
    values.resize(scene_values(walls, n, m), 0.0);
    values
}
