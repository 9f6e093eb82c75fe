//! [`GpuScene`]: the whole step of a large scene on the device. The scene goes up once
//! (bodies, walls, laws, the pairs in sweep order with their carried impulses) and stays
//! there: each step is one submit of `narrow_phase`, `free_velocity`, `contact_q`,
//! `warm_start` (colour by colour), the active count, the sweeps with their stopping test,
//! `update_position` with `discharge` and the tallies of the step's report (more submits of
//! sweeps when the solve needs them) — the control, ten values and two counts come back,
//! nothing per body or contact. When a pair outside the candidates may touch, the broad
//! phase runs on the device too (`rebuild`: the pairs, their colours, the sort by colour
//! and the carried impulses), where its pairs fit the buffers; else, and when
//! [`Stepper::advance`] returns, the state comes back to the host. Every stage is the
//! twin's ([`LargeScene::step_on`] with [`super::super::CpuSolver`]) in the same order: in
//! f64 on lavapipe a 2-D scene gives its bits, a 3-D one stays within 1e-9 m (its sweeps
//! part by an ulp now and then, as the sweeps alone do). Should a step fail on the device,
//! the scene is left as it was when it went up (its steps and time too), the steps since
//! then taken back.

use super::timer::{PASSES, StageTimer};
use super::{BLOCK, CONTROL, DONE, F32_SWEEPS, GpuSolver, INCIDENCE, PARTIAL, SCENE, SweepOrder};
use crate::batch::gpu::buffers::read_back_ranges;
use crate::batch::gpu::kernel::groups;
use crate::batch::gpu::{GpuContext, Precision};
use crate::error::{Error, Result};
use crate::large_scene::solve::ContactSolver;
use crate::large_scene::stepper::{StageSeconds, Stepper};
use crate::large_scene::{LargeScene, StepReport};
use std::ops::Range;

mod rebuild;
mod transfer;

/// The integer counts at the head of the incidence buffer (the kernel's `COUNTS`): active
/// contacts, bodies discharged.
pub(super) const COUNTS: usize = 2;
/// The scene buffer's head, values per wall, per body, the report and per block (the
/// kernel's `HEAD`, `WALL`, `BODY_STATE`, `REPORT`, `TALLY`).
const HEAD: usize = 16;
const WALL: usize = 12;
const BODY_STATE: usize = 16;
const REPORT: usize = 10;
const TALLY: usize = 10;

/// The values of the scene buffer for `walls` walls, `bodies` bodies and `contacts`
/// contacts.
pub(super) fn scene_values(walls: usize, bodies: usize, contacts: usize) -> usize {
    HEAD + WALL * walls + BODY_STATE * bodies + REPORT + TALLY * contacts.div_ceil(BLOCK).max(bodies.div_ceil(BLOCK))
}

/// Declares [`Stages`] from its entry points' names, written once: a pipeline per name,
/// [`Stages::NAMES`] and [`Stages::new`].
macro_rules! stages {
    ($($name:ident),+ $(,)?) => {
        /// The kernels of the stages around the sweeps (`shaders/large_scene_step.wgsl`,
        /// `shaders/large_scene_report.wgsl`) and of the broad phase's part in the step's
        /// module (`shaders/large_scene_rebuild.wgsl`).
        pub(super) struct Stages {
            $(pub(super) $name: wgpu::ComputePipeline,)+
        }

        impl Stages {
            /// Their entry points, in the order [`Self::new`] takes their pipelines.
            pub(super) const NAMES: [&str; [$(stringify!($name)),+].len()] = [$(stringify!($name)),+];

            /// The stages from the pipelines of [`Self::NAMES`], in that order.
            pub(super) fn new([$($name),+]: [wgpu::ComputePipeline; [$(stringify!($name)),+].len()]) -> Self {
                Self { $($name),+ }
            }
        }
    };
}

stages!(
    narrow_phase,
    free_velocity,
    contact_q,
    warm_start_colour,
    warm_start_overflow,
    contact_tally,
    skip_solve,
    update_position,
    body_tally,
    report,
    rebuild_bodies,
    carry_out,
    carry_in,
);

/// What the host knows of the scene held on the device: the steps it had when it went up,
/// the contacts and their colours (ranges in sweep order, the overflow's last when
/// `overflow`) since the last broad phase, the dispatch slots of the light and full errors,
/// and the last step's largest displacement since the broad phase and speed, whether a
/// body's state is not finite — the broad phase's test — and the box of the centres.
#[derive(Clone, Debug)]
struct Held {
    steps: u64,
    contacts: usize,
    colours: Vec<Range<usize>>,
    overflow: bool,
    slots: [usize; 2],
    moved: f64,
    speed: f64,
    broken: bool,
    bounds: [[f64; 3]; 2],
}

/// The whole step of a large scene on one device, coloured NSGS in f32 or f64 (see the
/// module's documentation); the broad phase and the colouring are [`GpuSolver`]'s.
pub struct GpuScene {
    solver: GpuSolver,
    held: Option<Held>,
    /// The broad phases run so far: on the device, on the host for a scene held that
    /// outgrew the device's buffers, on the host before a scene went up.
    rebuilds: [usize; 3],
    timer: StageTimer,
    /// Seconds so far: the broad phases by the clock (on the device, or on the host with the
    /// trips), then each pass on the device ([`PASSES`]).
    seconds: (f64, [f64; PASSES]),
}

impl GpuScene {
    /// Compiles the kernels for `ctx` (shared) in `precision` (f64 needs `SHADER_F64`).
    pub fn new(ctx: &GpuContext, precision: Precision) -> Result<Self> {
        Ok(Self {
            solver: GpuSolver::new(ctx, precision)?,
            held: None,
            rebuilds: [0; 3],
            timer: StageTimer::new(ctx),
            seconds: (0.0, [0.0; PASSES]),
        })
    }

    /// The broad phases this engine ran: on the device; on the host for a scene held whose
    /// pairs outgrew the device's buffers (or its grid the device's coordinates); on the
    /// host before a scene went up.
    pub fn rebuilds(&self) -> [usize; 3] {
        self.rebuilds
    }

    /// One step of the scene held on the device; `rebuilt` whether the broad phase ran
    /// before it. One submit holds the stages up to the sweeps, as many sweeps as the last
    /// step needed, and the stages after them (which wait for the solve to be done); while
    /// it is not, further submits hold twice as many sweeps and those stages again.
    fn step(&mut self, scene: &mut LargeScene, rebuilt: bool) -> Result<StepReport> {
        let held = self.held.as_ref().expect("held");
        let options = scene.solver;
        let cap = options.max_sweeps.max(1);
        let solver = &self.solver;
        let (n, m) = (scene.bodies.len(), held.contacts);
        let order = SweepOrder {
            colours: &held.colours,
            overflow: held.overflow,
            contacts: m,
            bodies: n,
        };
        let buffers = solver.buffers.as_ref().expect("held");
        let control = [0.0, 0.0, options.tolerance, cap as f64, f64::EPSILON, 0.0, 0.0, 0.0];
        let ctx = &solver.ctx;
        ctx.queue
            .write_buffer(&buffers.storage[PARTIAL], 0, &solver.precision.bytes(&control));
        let stages = &solver.stages;
        // All contacts and all bodies: the light error's slot.
        let all = (solver.stride as usize * held.slots[0]) as u32;
        let blocks = |k: usize| (k.div_ceil(BLOCK).div_ceil(64).max(1) as u32, 1);
        let run = |pass: &mut wgpu::ComputePass, pipeline: &wgpu::ComputePipeline, (x, y): (u32, u32)| {
            pass.set_bind_group(0, &buffers.group, &[all]);
            pass.set_pipeline(pipeline);
            pass.dispatch_workgroups(x, y, 1);
        };
        let size = solver.precision.size() as u64;
        let report = (HEAD + WALL * scene.walls.len() + BODY_STATE * n) as u64;
        // `sweeps` sweeps (after the stages before them in the `first` submit) and the
        // stages after them, submitted; the control, the report and the counts read back.
        // (Each group of stages is a pass of its own, timed where the adapter can.)
        let timer = &self.timer;
        let submit = |sweeps: usize, first: bool| -> Result<([Vec<f64>; 3], [f64; PASSES])> {
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            let pass = |encoder: &mut wgpu::CommandEncoder, k: usize| {
                encoder
                    .begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("large-scene step"),
                        timestamp_writes: timer.writes(k),
                    })
                    .forget_lifetime()
            };
            if first {
                let mut pass = pass(&mut encoder, 0);
                run(&mut pass, &stages.narrow_phase, groups(m));
                run(&mut pass, &stages.free_velocity, groups(n));
                run(&mut pass, &stages.contact_q, groups(m));
                let warm_start = [&stages.warm_start_colour, &stages.warm_start_overflow];
                solver.record_colours(&mut pass, &order, warm_start);
                run(&mut pass, &stages.contact_tally, blocks(m));
                run(&mut pass, &stages.skip_solve, (1, 1));
            }
            solver.record_sweeps(&mut pass(&mut encoder, 1), &order, sweeps, held.slots);
            {
                let mut pass = pass(&mut encoder, 2);
                run(&mut pass, &stages.update_position, groups(n));
                run(&mut pass, &stages.body_tally, blocks(n));
                run(&mut pass, &stages.report, (1, 1));
            }
            let passes = usize::from(!first)..PASSES;
            let ticks = timer.resolve(&mut encoder, passes.clone());
            let [control, values, counts, ticks] = read_back_ranges(
                ctx,
                encoder,
                [
                    (&buffers.storage[PARTIAL], 0..CONTROL as u64 * size),
                    (&buffers.storage[SCENE], report * size..(report + REPORT as u64) * size),
                    (&buffers.storage[INCIDENCE], 0..4 * COUNTS as u64),
                    ticks,
                ],
                || {},
            );
            let counts: Vec<u32> = bytemuck::pod_collect_to_vec(&counts?);
            let precision = solver.precision;
            let counts = counts.into_iter().map(f64::from).collect();
            let seconds = StageTimer::seconds(ctx, &ticks?, passes);
            Ok((
                [precision.values(&control?), precision.values(&values?), counts],
                seconds,
            ))
        };
        let mut device = [0.0; PASSES];
        let mut timed = |(read, seconds): ([Vec<f64>; 3], [f64; PASSES])| {
            for (total, s) in device.iter_mut().zip(seconds) {
                *total += s;
            }
            read
        };
        let mut batch = solver.guess.clamp(1, cap);
        let mut recorded = batch;
        let mut read = timed(submit(batch, true)?);
        while read[0][0] != DONE {
            if recorded == cap {
                return Err(Error::Gpu(format!(
                    "the large-scene solve did not stop at its cap of {cap} sweeps (control {:?})",
                    read[0]
                )));
            }
            batch *= 2;
            let sweeps = batch.min(cap - recorded);
            recorded += sweeps;
            read = timed(submit(sweeps, false)?);
        }
        let [control, values, counts] = read;
        let colours = held.colours.len();
        for (total, s) in self.seconds.1.iter_mut().zip(device) {
            *total += s;
        }
        let (sweeps, active) = (control[1] as usize, counts[0] as usize);
        if active > 0 {
            self.solver.guess = sweeps;
        }
        let held = self.held.as_mut().expect("held");
        held.moved = values[1];
        held.speed = values[2];
        held.broken = values[3] != 0.0;
        held.bounds = [[values[4], values[5], values[6]], [values[7], values[8], values[9]]];
        scene.steps += 1;
        scene.time = LargeScene::time_after(scene.steps, scene.h);
        Ok(StepReport {
            candidates: m,
            active,
            colours,
            sweeps,
            residual: control[5],
            converged: control[6] == 1.0,
            max_penetration: values[0],
            rebuilt,
            discharged: counts[1] as usize,
        })
    }

    /// Steps until `steps` are taken or `each` says stop, the broad phase whenever it is
    /// due: on the device while the scene is held there and fits, else on the host (the
    /// scene comes back for it).
    fn steps(&mut self, scene: &mut LargeScene, steps: u64, each: &mut dyn FnMut(StepReport) -> bool) -> Result<()> {
        for _ in 0..steps {
            let rebuilt = match &self.held {
                Some(h) => h.broken || scene.may_close(h.moved, h.speed),
                None => scene.rebuild_due(),
            };
            let started = std::time::Instant::now();
            let timed = rebuilt || self.held.is_none();
            if rebuilt {
                let held = self.held.is_some();
                let on_device = self.held.as_ref().is_some_and(|h| !h.broken) && self.rebuild_on_device(scene)?;
                if !on_device {
                    if held {
                        self.release(scene)?;
                    }
                    scene.broad_phase(&mut self.solver)?;
                }
                self.rebuilds[if on_device {
                    0
                } else if held {
                    1
                } else {
                    2
                }] += 1;
            }
            if self.held.is_none() {
                self.hold(scene)?;
            }
            if timed {
                self.seconds.0 += started.elapsed().as_secs_f64();
            }
            if !each(self.step(scene, rebuilt)?) {
                break;
            }
        }
        Ok(())
    }
}

impl Stepper for GpuScene {
    /// The solver's name: the same results as its sweeps behind the host's stages.
    fn engine(&self) -> String {
        self.solver.name()
    }

    fn advance(&mut self, scene: &mut LargeScene, steps: u64, each: &mut dyn FnMut(StepReport) -> bool) -> Result<()> {
        let cap = scene.solver.max_sweeps.max(1);
        if self.solver.precision == Precision::F32 && cap > F32_SWEEPS {
            return Err(Error::Unsupported {
                what: format!("solver.max_sweeps = {cap} on the f32 device engine"),
                reason: format!("its control counts sweeps exactly up to {F32_SWEEPS}"),
            });
        }
        let result = self.steps(scene, steps, each).and_then(|()| match self.held {
            Some(_) => self.release(scene),
            None => Ok(()),
        });
        // (A failure while the scene was on the device leaves it where it went up: the
        // host's scene is not touched while it is held.)
        if let Some(held) = self.held.take() {
            // A failure while the scene was on the device: it stands where it went up.
            scene.steps = held.steps;
            scene.time = LargeScene::time_after(held.steps, scene.h);
        }
        result
    }

    /// The broad phases (on the host: the trips included) and, where the adapter has
    /// timestamps, the device's passes.
    fn stage_seconds(&self) -> Option<StageSeconds> {
        let (broad_phase, [before, sweeps, after]) = self.seconds;
        let device = |s: f64| self.timer.timed().then_some(s);
        Some(StageSeconds {
            broad_phase,
            before_sweeps: device(before),
            sweeps: device(sweeps),
            after_sweeps: device(after),
        })
    }
}
