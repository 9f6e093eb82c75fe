//! What goes up to the device for a step's solve: the buffers, grown when a scene outgrows
//! them, then the bodies, the warm-started velocities, the contacts in sweep order (for
//! Jacobi their split blocks and each body's active contacts), the dispatches and the
//! control of the stopping test.

use super::layout::{buffer_lengths, geometry_of, incidence_of};
use super::{
    BODY, Buffers, Dispatch, GEOMETRY, GEOMETRY_BUFFER, GpuSolver, IMPULSE, INCIDENCE, PAIRS, PARTIAL, SCENE, VELOCITY,
};
use crate::batch::gpu::buffers::{grown, storage_of, uniform_of};
use crate::error::Result;
use crate::large_scene::Bodies;
use crate::large_scene::colouring::COLOURS;
use crate::large_scene::jacobi::split_blocks;
use crate::large_scene::residual::ERROR_TERMS;
use crate::large_scene::solve::{Coloured, SolverOptions, Velocities};
use std::ops::Range;

impl GpuSolver {
    /// The buffers, grown (by a quarter more than asked) when the scene outgrows them; a
    /// scene of `scene` values ([`super::GpuScene`]'s; 0 for the sweeps alone).
    fn buffers(&mut self, bodies: usize, contacts: usize, slots: usize, scene: usize) -> Result<&Buffers> {
        let fits = self
            .buffers
            .as_ref()
            .is_some_and(|b| b.bodies >= bodies && b.contacts >= contacts && b.slots >= slots && b.scene >= scene);
        if !fits {
            let old = self.buffers.as_ref();
            let bodies = grown(bodies, old.map_or(0, |b| b.bodies));
            let contacts = grown(contacts, old.map_or(0, |b| b.contacts));
            let slots = grown(slots, old.map_or(0, |b| b.slots));
            let scene = if scene == 0 {
                0
            } else {
                grown(scene, old.map_or(0, |b| b.scene))
            };
            let what = format!("a large scene of {bodies} bodies and {contacts} contacts");
            let lengths = buffer_lengths(bodies, contacts, scene, self.precision);
            let storage = lengths.map(|bytes| storage_of(&self.ctx, &what, bytes));
            let [
                body,
                velocity,
                pairs,
                geometry,
                impulse,
                partial,
                incidence,
                scene_buffer,
            ] = storage;
            let storage = [
                body?,
                velocity?,
                pairs?,
                geometry?,
                impulse?,
                partial?,
                incidence?,
                scene_buffer?,
            ];
            let dispatch = uniform_of(&self.ctx, "dispatch", self.stride * slots as u64);
            let device = &self.ctx.device;
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &dispatch,
                    offset: 0,
                    size: wgpu::BufferSize::new(size_of::<Dispatch>() as u64),
                }),
            }];
            entries.extend((1..).zip(&storage).map(|(binding, b)| wgpu::BindGroupEntry {
                binding,
                resource: b.as_entire_binding(),
            }));
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("large_scene"),
                layout: &self.layout,
                entries: &entries,
            });
            self.buffers = Some(Buffers {
                bodies,
                contacts,
                slots,
                scene,
                dispatch,
                storage,
                group,
            });
        }
        Ok(self.buffers.as_ref().expect("sized above"))
    }

    /// Writes the step's bodies, velocities, contacts, dispatches and the solve's control
    /// (`options`) to the device (for Jacobi, the split blocks in the contacts' geometry and
    /// the bodies' incidence), and `scene` unless it is empty ([`super::GpuScene`]'s);
    /// returns the slots of the light and the full error's dispatches.
    pub(super) fn upload(
        &mut self,
        state: &Velocities,
        coloured: &Coloured,
        options: &SolverOptions,
        scene: &[f64],
    ) -> Result<[usize; 2]> {
        let (b, contacts) = (state.bodies, &*coloured.contacts);
        let (n, m) = (b.len(), contacts.len());
        let mut geometry: Vec<f64> = contacts.iter().flat_map(geometry_of).collect();
        let mut incidence = Vec::new();
        if let Some((split, counts)) = &mut self.jacobi {
            split.resize(m, [0.0; 2]);
            split_blocks(b, contacts, counts, split);
            for (g, w) in geometry.chunks_mut(GEOMETRY).zip(split.iter()) {
                g[9..11].copy_from_slice(w);
            }
            incidence = incidence_of(n, contacts, counts);
        }
        let colours = self.jacobi.is_none().then_some(coloured.colours);
        let slots = dispatches(b, colours, m, m);
        let light = slots.len() - 2;
        let precision = self.precision;
        let queue = self.ctx.queue.clone();
        // Room for every colour's slot: a broad phase on the device may bring more colours.
        let buffers = self.buffers(n, m, slots.len().max(COLOURS + 3), scene.len())?;
        let body: Vec<f64> = (0..n)
            .flat_map(|k| [b.inverse_mass(k), b.spin_per_impulse(k), b.radius[k]])
            .collect();
        let velocity: Vec<f64> = (0..n)
            .flat_map(|k| state.v[k].into_iter().chain(state.omega[k]))
            .collect();
        // Each contact's place in key order, which a broad phase on the device reads (a held
        // scene's only: the sweeps alone leave it 0).
        let mut rank = vec![0u32; m];
        if !scene.is_empty() {
            let mut by_key: Vec<usize> = (0..m).collect();
            by_key.sort_unstable_by_key(|&c| contacts[c].pair);
            for (k, &c) in by_key.iter().enumerate() {
                rank[c] = k as u32;
            }
        }
        let pairs: Vec<[u32; 4]> = contacts
            .iter()
            .enumerate()
            .map(|(c, contact)| {
                let p = contact.pair;
                [p.i, p.j, u32::from(contact.active), rank[c]]
            })
            .collect();
        let impulse: Vec<f64> = contacts.iter().flat_map(|c| c.r.into_iter().chain([0.0; 3])).collect();
        queue.write_buffer(&buffers.storage[BODY], 0, &precision.bytes(&body));
        queue.write_buffer(&buffers.storage[VELOCITY], 0, &precision.bytes(&velocity));
        queue.write_buffer(&buffers.storage[PAIRS], 0, bytemuck::cast_slice(&pairs));
        queue.write_buffer(&buffers.storage[GEOMETRY_BUFFER], 0, &precision.bytes(&geometry));
        queue.write_buffer(&buffers.storage[IMPULSE], 0, &precision.bytes(&impulse));
        if !scene.is_empty() {
            queue.write_buffer(&buffers.storage[SCENE], 0, &precision.bytes(scene));
        }
        if !incidence.is_empty() {
            queue.write_buffer(&buffers.storage[INCIDENCE], 0, bytemuck::cast_slice(&incidence));
        }
        let cap = options.max_sweeps.max(1) as f64;
        let control = [0.0, 0.0, options.tolerance, cap, f64::EPSILON, 0.0, 0.0, 0.0];
        queue.write_buffer(&buffers.storage[PARTIAL], 0, &precision.bytes(&control));
        self.write_dispatches(0, &slots);
        Ok([light, light + 1])
    }

    /// Writes `slots` to the dispatch buffer from slot `first` on, one per stride.
    pub(super) fn write_dispatches(&self, first: usize, slots: &[Dispatch]) {
        let stride = self.stride as usize;
        let mut bytes = vec![0u8; stride * slots.len()];
        for (k, d) in slots.iter().enumerate() {
            bytes[k * stride..k * stride + size_of::<Dispatch>()].copy_from_slice(bytemuck::bytes_of(d));
        }
        let buffers = self.buffers.as_ref().expect("sized");
        self.ctx
            .queue
            .write_buffer(&buffers.dispatch, (stride * first) as u64, &bytes);
    }
}

/// The dispatch slots of a step over `m` contacts of `b`: one per colour, or (`None`)
/// Jacobi's solve and its gather; then the light and the full error's. `previous`: the
/// contacts before a broad phase on the device.
pub(super) fn dispatches(b: &Bodies, colours: Option<&[Range<usize>]>, m: usize, previous: usize) -> Vec<Dispatch> {
    let n = b.len();
    let dimension = b.dimension.rows() as u32;
    let at = |first: usize, end: usize, terms: u32| Dispatch {
        first: first as u32,
        end: end as u32,
        bodies: n as u32,
        dimension,
        terms,
        zero: 0,
        previous: previous as u32,
        pad: 0,
    };
    let mut slots: Vec<Dispatch> = match colours {
        Some(colours) => colours.iter().map(|r| at(r.start, r.end, 0)).collect(),
        None => vec![at(0, m, 0), at(0, n, 0)],
    };
    slots.extend([at(0, m, 2), at(0, m, ERROR_TERMS as u32)]);
    slots
}
