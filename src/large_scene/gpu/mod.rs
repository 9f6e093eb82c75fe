//! The stages `broad_phase` ([`GpuBroadPhase`], [`GpuColouring`]) and `solve` of a large
//! scene on the device ([`GpuSolver`]). For `solve`, the host's contacts,
//! colours and warm-started velocities go up once per step; a submit then holds many
//! sweeps, each the colours' dispatches, then the light error's block sums and its test, and
//! the full error's when due — the stopping rule of the CPU twin ([`super::CpuSolver`])
//! evaluated on the device, so that the sweeps past the stop do nothing: the same sweeps in
//! the same order, so f64 gives the twin's bits on lavapipe. The control, v, ω and r come
//! back after each submit; a step takes as many sweeps in its first submit as the last step
//! needed, and twice as many in each further one. [`GpuSolver::jacobi`] sweeps by Jacobi with mass splitting
//! instead (the twin of [`super::jacobi`]): the split blocks and each body's list of active
//! contacts go up with the contacts, and a sweep is two dispatches, every contact's solve
//! then every body's gather. Kernels: `solve_colour`, `solve_overflow`, `jacobi_solve`,
//! `jacobi_apply`, `block_sums`, `light_test` and `error_test`
//! (`shaders/large_scene_nsgs.wgsl`). [`GpuScene`] keeps the scene itself on the device
//! and runs the whole step there (`shaders/large_scene_step.wgsl`), its broad phases
//! included (`shaders/large_scene_rebuild.wgsl`).

mod broad_phase;
mod colouring;
mod layout;
mod resident;
mod timer;
mod upload;

pub use broad_phase::GpuBroadPhase;
pub use colouring::GpuColouring;
pub use layout::device_bytes;
pub use resident::GpuScene;

use super::broad_phase::Pair;
use super::residual::{BLOCK, ERROR_TERMS};
use super::solve::{Coloured, ContactSolver, SolverOptions, Sweeps, Velocities};
use super::{Bodies, Wall};
use crate::batch::gpu::buffers::read_back;
use crate::batch::gpu::kernel::{Bindings, compile, groups};
use crate::batch::gpu::{GpuContext, Precision, shaders};
use crate::error::{Error, Result};

/// Values per contact in the geometry buffer: frame (9), w_N, w_T, μ, ê (3), q (3), g.
const GEOMETRY: usize = 19;

/// The control values at the head of the partial sums (the kernel's `CONTROL`): state,
/// sweeps, tolerance, cap, ε, residual, converged, one unused.
const CONTROL: usize = 8;

/// The kernel's state `DONE`.
const DONE: f64 = 2.0;

/// The most sweeps an f32 control counts exactly (2²⁴).
const F32_SWEEPS: usize = 1 << 24;

/// The uniform of one dispatch (the kernel's `Dispatch`): its contacts `first..end`, the
/// bodies, the dimension, the terms per contact `block_sums` adds, a zero the kernel
/// cannot fold (its blocks' off-diagonal entries), and the contacts before a broad phase on
/// the device ([`GpuScene`]'s `carry_in`).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Dispatch {
    first: u32,
    end: u32,
    bodies: u32,
    dimension: u32,
    terms: u32,
    zero: u32,
    previous: u32,
    pad: u32,
}

const PRELUDE: &str = "struct Dispatch {\n    first: u32,\n    end: u32,\n    bodies: u32,\n    dimension: u32,\n    terms: u32,\n    zero: u32,\n    previous: u32,\n    pad: u32,\n}\n";

/// The device buffers, sized for `bodies` bodies, `contacts` contacts, `slots` dispatches
/// and a scene of `scene` values ([`GpuScene`]'s; none for the sweeps alone).
struct Buffers {
    bodies: usize,
    contacts: usize,
    slots: usize,
    scene: usize,
    dispatch: wgpu::Buffer,
    storage: [wgpu::Buffer; 8],
    group: wgpu::BindGroup,
}

const BODY: usize = 0;
const VELOCITY: usize = 1;
const PAIRS: usize = 2;
const GEOMETRY_BUFFER: usize = 3;
const IMPULSE: usize = 4;
const PARTIAL: usize = 5;
const INCIDENCE: usize = 6;
const SCENE: usize = 7;

/// The order of a step's sweeps: the colours as ranges of the contacts (the last the
/// overflow colour when `overflow`), and the numbers of contacts and bodies.
struct SweepOrder<'a> {
    colours: &'a [std::ops::Range<usize>],
    overflow: bool,
    contacts: usize,
    bodies: usize,
}

/// The large scene's sweeps on one device, f32 or f64 (see the module's documentation).
pub struct GpuSolver {
    ctx: GpuContext,
    precision: Precision,
    layout: wgpu::BindGroupLayout,
    solve_colour: wgpu::ComputePipeline,
    solve_overflow: wgpu::ComputePipeline,
    jacobi_solve: wgpu::ComputePipeline,
    jacobi_apply: wgpu::ComputePipeline,
    /// Jacobi with mass splitting instead of coloured NSGS, with its scratch: each
    /// contact's split block and each body's active contacts.
    jacobi: Option<(Vec<[f64; 2]>, Vec<u32>)>,
    block_sums: wgpu::ComputePipeline,
    light_test: wgpu::ComputePipeline,
    error_test: wgpu::ComputePipeline,
    /// The other stages of a step, for [`GpuScene`].
    stages: resident::Stages,
    /// Sweeps the last step needed: the next step's first submit.
    guess: usize,
    /// The broad phase's pairs on the device.
    broad_phase: GpuBroadPhase,
    /// The broad phase's colouring on the device.
    colouring: GpuColouring,
    stride: u64,
    buffers: Option<Buffers>,
}

impl GpuSolver {
    /// Coloured NSGS on the device: compiles the kernels for `ctx` (shared) in `precision`
    /// (f64 needs `SHADER_F64`).
    pub fn new(ctx: &GpuContext, precision: Precision) -> Result<Self> {
        Self::compile(ctx, precision, false)
    }

    /// Jacobi with mass splitting on the device (the twin of [`super::JacobiSolver`]).
    pub fn jacobi(ctx: &GpuContext, precision: Precision) -> Result<Self> {
        Self::compile(ctx, precision, true)
    }

    fn compile(ctx: &GpuContext, precision: Precision, jacobi: bool) -> Result<Self> {
        ctx.check_precision(precision)?;
        // Eight storage buffers (wgpu's default limit per shader stage).
        let bindings = Bindings {
            dynamic_uniform: true,
            read_only: &[true, false, false, false, false, false, false, false],
        };
        let prelude = format!("const BLOCK: u32 = {BLOCK}u;\n{PRELUDE}");
        let source = shaders::large_scene_nsgs(precision, &prelude);
        // The sweeps' entry points, then the other stages' (`resident::Stages::NAMES`).
        let sweeps = [
            "solve_colour",
            "solve_overflow",
            "jacobi_solve",
            "jacobi_apply",
            "block_sums",
            "light_test",
            "error_test",
        ];
        let names: [&str; 20] = std::array::from_fn(|k| match sweeps.get(k) {
            Some(name) => name,
            None => resident::Stages::NAMES[k - sweeps.len()],
        });
        let (
            layout,
            [
                solve_colour,
                solve_overflow,
                jacobi_solve,
                jacobi_apply,
                block_sums,
                light_test,
                error_test,
                stages @ ..,
            ],
        ) = compile(ctx, ("large_scene_nsgs", "large-scene"), source, bindings, names)?;
        let stages = resident::Stages::new(stages);
        Ok(Self {
            ctx: ctx.clone(),
            precision,
            solve_colour,
            solve_overflow,
            jacobi_solve,
            jacobi_apply,
            jacobi: jacobi.then(Default::default),
            block_sums,
            light_test,
            error_test,
            stages,
            guess: 8,
            broad_phase: GpuBroadPhase::new(ctx, precision)?,
            colouring: GpuColouring::new(ctx)?,
            layout,
            stride: u64::from(ctx.uniform_offset_alignment()).max(size_of::<Dispatch>() as u64),
            buffers: None,
        })
    }

    /// Records `sweeps` sweeps, each followed by the stopping test ([`Self::record_sweep`],
    /// [`Self::record_test`]), submits them, and reads back the control, v, ω and r.
    fn batch(&self, coloured: &Coloured, bodies: usize, sweeps: usize, slots: [usize; 2]) -> Result<[Vec<f64>; 3]> {
        let buffers = self.buffers.as_ref().expect("uploaded");
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            let order = SweepOrder {
                colours: coloured.colours,
                overflow: coloured.overflow,
                contacts: coloured.contacts.len(),
                bodies,
            };
            self.record_sweeps(&mut pass, &order, sweeps, slots);
        }
        let [partial, velocity, impulse] = read_back(
            &self.ctx,
            encoder,
            [
                &buffers.storage[PARTIAL],
                &buffers.storage[VELOCITY],
                &buffers.storage[IMPULSE],
            ],
            || {},
        );
        Ok([partial?, velocity?, impulse?].map(|bytes| self.precision.values(&bytes)))
    }

    /// Records `sweeps` sweeps, each followed by the stopping test.
    fn record_sweeps(&self, pass: &mut wgpu::ComputePass, order: &SweepOrder, sweeps: usize, slots: [usize; 2]) {
        for _ in 0..sweeps {
            self.record_sweep(pass, order);
            self.record_test(pass, order.contacts, slots);
        }
    }

    /// Records one sweep: the colours' dispatches in order (Jacobi: every contact's solve,
    /// then every body's gather).
    fn record_sweep(&self, pass: &mut wgpu::ComputePass, order: &SweepOrder) {
        let buffers = self.buffers.as_ref().expect("uploaded");
        if self.jacobi.is_some() {
            let sizes = [order.contacts, order.bodies];
            for (k, (pipeline, size)) in [&self.jacobi_solve, &self.jacobi_apply]
                .into_iter()
                .zip(sizes)
                .enumerate()
            {
                pass.set_bind_group(0, &buffers.group, &[(self.stride as usize * k) as u32]);
                pass.set_pipeline(pipeline);
                let (x, y) = groups(size);
                pass.dispatch_workgroups(x, y, 1);
            }
            return;
        }
        self.record_colours(pass, order, [&self.solve_colour, &self.solve_overflow]);
    }

    /// Records `kernels` (one per colour, one for the overflow colour) over the contacts of
    /// each colour in order: a dispatch per colour, the overflow by one invocation.
    fn record_colours(
        &self,
        pass: &mut wgpu::ComputePass,
        order: &SweepOrder,
        [colour, overflow]: [&wgpu::ComputePipeline; 2],
    ) {
        let buffers = self.buffers.as_ref().expect("uploaded");
        for (k, range) in order.colours.iter().enumerate() {
            pass.set_bind_group(0, &buffers.group, &[(self.stride as usize * k) as u32]);
            if order.overflow && k + 1 == order.colours.len() {
                pass.set_pipeline(overflow);
                pass.dispatch_workgroups(1, 1, 1);
            } else {
                let (x, y) = groups(range.len());
                pass.set_pipeline(colour);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
    }

    /// Records the stopping test after a sweep of `m` contacts: the light error's block sums
    /// and test, then the full error's (which do nothing unless the light test made them
    /// due).
    fn record_test(&self, pass: &mut wgpu::ComputePass, m: usize, [light, full]: [usize; 2]) {
        let buffers = self.buffers.as_ref().expect("uploaded");
        for (slot, test) in [(light, &self.light_test), (full, &self.error_test)] {
            pass.set_bind_group(0, &buffers.group, &[(self.stride as usize * slot) as u32]);
            pass.set_pipeline(&self.block_sums);
            pass.dispatch_workgroups(m.div_ceil(BLOCK).div_ceil(64) as u32, 1, 1);
            pass.set_pipeline(test);
            pass.dispatch_workgroups(1, 1, 1);
        }
    }
}

impl ContactSolver for GpuSolver {
    /// `large-scene gpu f64` (or f32), ` jacobi` for [`GpuSolver::jacobi`], and the
    /// adapter's name.
    fn name(&self) -> String {
        let bits = if self.precision == Precision::F64 { "f64" } else { "f32" };
        let method = if self.jacobi.is_some() { " jacobi" } else { "" };
        format!("large-scene gpu {bits}{method}, {}", self.ctx.adapter_name())
    }

    /// The counting sort on the device ([`GpuBroadPhase`]): the twin's pairs (f64).
    fn pairs(&mut self, bodies: &Bodies, walls: &[Wall], margin: f64) -> Result<Vec<Pair>> {
        self.broad_phase.pairs(bodies, walls, margin)
    }

    /// Jones–Plassmann on the device ([`GpuColouring`]): the twin's colours.
    fn colour(&mut self, pairs: &[Pair], bodies: usize) -> Result<Vec<u32>> {
        self.colouring.colour(pairs, bodies)
    }

    /// The twin's [`super::CpuSolver`] on the device: the same sweeps, the same light and
    /// full errors from the same fixed sums, the same stopping rule.
    fn solve(&mut self, state: &mut Velocities, coloured: &mut Coloured, options: &SolverOptions) -> Result<Sweeps> {
        if !coloured.contacts.iter().any(|c| c.active) {
            return Ok(Sweeps {
                sweeps: 0,
                residual: 0.0,
                converged: true,
            });
        }
        let cap = options.max_sweeps.max(1);
        if self.precision == Precision::F32 && cap > F32_SWEEPS {
            return Err(Error::Unsupported {
                what: format!("solver.max_sweeps = {cap} on the f32 device engine"),
                reason: format!("its control counts sweeps exactly up to {F32_SWEEPS}"),
            });
        }
        let slots = self.upload(state, coloured, options, &[])?;
        let n = state.bodies.len();
        let (mut recorded, mut batch) = (0, self.guess.clamp(1, cap));
        let [control, velocity, impulse] = loop {
            let sweeps = batch.min(cap - recorded);
            let [control, velocity, impulse] = self.batch(coloured, n, sweeps, slots)?;
            recorded += sweeps;
            if control[0] == DONE {
                break [control, velocity, impulse];
            }
            if recorded == cap {
                return Err(Error::Gpu(format!(
                    "the large-scene solve did not stop at its cap of {cap} sweeps (control {:?})",
                    &control[..CONTROL]
                )));
            }
            batch *= 2;
        };
        for k in 0..n {
            let x = &velocity[6 * k..6 * k + 6];
            state.v[k] = [x[0], x[1], x[2]];
            state.omega[k] = [x[3], x[4], x[5]];
        }
        for (c, r) in coloured.contacts.iter_mut().zip(impulse.chunks(6)) {
            c.r = [r[0], r[1], r[2]];
        }
        let sweeps = control[1] as usize;
        self.guess = sweeps;
        Ok(Sweeps {
            sweeps,
            residual: control[5],
            converged: control[6] == 1.0,
        })
    }
}
