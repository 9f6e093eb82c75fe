//! The whole step of a large scene on the device ([`GpuScene`]: narrow phase, free
//! velocity, warm start, sweeps, position update, discharge and the broad phase's test
//! without the host) against the host's stages with the CPU twin, on the four shipped
//! scenarios cut small: every wall shape (planes, the hopper's segments), the sink, the
//! chute's period, 2-D and 3-D.

use crate::common;
use crate::common::large::{floor, gravity, largest_difference, law, state_bits};

use std::path::Path;

use ricochet::batch::gpu::Precision;
use ricochet::ensemble::large_scene::LargeScenario;
use ricochet::large_scene::{Bodies, CpuSolver, Dimension, GpuScene, LargeScene, StepReport, Stepper};

/// The shipped scenario `name` cut to about `bodies` bodies, built.
fn cut(name: &str, bodies: usize) -> LargeScene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/{name}.toml"));
    let mut scenario = LargeScenario::load(&path).unwrap();
    scenario.large_scene = scenario.large_scene.scaled(bodies);
    scenario.build().unwrap()
}

/// `steps` steps of `scene` by `stepper`, asked for in `chunks` of varying length (the
/// scene comes back to the host after each), and the reports.
fn advance(scene: &mut LargeScene, stepper: &mut dyn Stepper, steps: u64, chunks: &[u64]) -> Vec<StepReport> {
    let mut reports = Vec::new();
    for &chunk in chunks.iter().cycle() {
        let left = steps - scene.steps;
        if left == 0 {
            break;
        }
        stepper
            .advance(scene, chunk.min(left), &mut |r| {
                reports.push(r);
                true
            })
            .unwrap();
    }
    reports
}

/// Each contact's impulse and frame, as bits.
fn contact_bits(scene: &LargeScene) -> Vec<u64> {
    scene
        .contacts()
        .iter()
        .flat_map(|c| c.r.into_iter().chain(c.frame.into_iter().flatten()).chain([c.gap]))
        .map(f64::to_bits)
        .collect()
}

/// In f64 the device's whole step is the twin's: in 2-D bit for bit (reports, bodies,
/// every contact's impulse, frame and gap), in 3-D within 10⁻⁹ m (its sweeps part from
/// the twin's by an ulp now and then, as the sweeps alone do); each scenario takes the
/// paths it exists for (rebuilds while held, discharges, contacts through the period,
/// several submits of sweeps in a step, a start from zero impulses without warm starts,
/// broad phases on the device and back on the host when the pairs outgrow its buffers).
/// The overflow colour is `large_scene::gpu_overflow_colour_is_the_cpu_twin`'s.
#[test]
fn the_whole_step_on_the_device_is_the_cpu_twin() {
    let Some(ctx) = common::gpu().filter(|c| c.supports_f64()) else {
        return;
    };
    let (mut held_rebuilds, mut more_sweeps, mut discharged) = (0, 0, 0);
    let mut rebuilds = [0; 3];
    for (name, bodies, steps, warm_start) in [
        ("pyramid_2d", 120, 100, true),
        ("hopper_2d", 300, 800, true),
        ("hopper_2d", 300, 200, false),
        ("pile_3d", 150, 200, true),
        ("chute_3d", 150, 200, true),
    ] {
        let cut = |name, bodies| {
            let mut scene = cut(name, bodies);
            scene.solver.warm_start = warm_start;
            scene
        };
        let mut twin = cut(name, bodies);
        let twin_reports = advance(&mut twin, &mut CpuSolver::default(), steps, &[steps]);
        let mut device = cut(name, bodies);
        let mut gpu = GpuScene::new(ctx, Precision::F64).unwrap();
        let reports = advance(&mut device, &mut gpu, steps, &[1, 37, 5, 200]);
        if device.bodies.dimension == Dimension::Two {
            assert_eq!(reports, twin_reports, "{name}: reports");
            assert_eq!(state_bits(&device), state_bits(&twin), "{name}: bodies");
            assert_eq!(device.bodies.present, twin.bodies.present, "{name}: present");
            assert_eq!(contact_bits(&device), contact_bits(&twin), "{name}: contacts");
        } else {
            let worst = largest_difference(&device, &twin);
            assert!(worst < 1e-9, "{name}: moved {worst:e} m from the twin");
            let active = |r: &[StepReport]| r.iter().map(|r| r.active).collect::<Vec<_>>();
            assert_eq!(active(&reports), active(&twin_reports), "{name}: active contacts");
        }
        let rebuilt = reports.iter().filter(|r| r.rebuilt).count();
        assert_eq!(gpu.rebuilds().iter().sum::<usize>(), rebuilt, "{name}: rebuilds");
        for (total, count) in rebuilds.iter_mut().zip(gpu.rebuilds()) {
            *total += count;
        }
        held_rebuilds += twin_reports[1..].iter().filter(|r| r.rebuilt).count();
        more_sweeps += twin_reports.windows(2).filter(|w| w[1].sweeps > w[0].sweeps).count();
        discharged += twin_reports.last().unwrap().discharged;
    }
    assert!(
        held_rebuilds > 10 && rebuilds[0] > 10 && rebuilds[1] > 0 && more_sweeps > 10 && discharged > 5,
        "{held_rebuilds} rebuilds past the first step ({rebuilds:?} on the device, on the host \
         for a scene outgrowing the device's buffers, before a scene went up), {more_sweeps} \
         steps needing more sweeps than the last, {discharged} discharged"
    );
}

/// In f32 the whole step follows the f64 twin on a pour (within 10⁻⁶ m after 60 steps at a
/// tolerance f32 reaches), and a sweep cap past what its control counts is refused.
#[test]
fn the_whole_step_in_f32_follows_the_twin() {
    let Some(ctx) = common::gpu() else { return };
    let mut gpu = GpuScene::new(ctx, Precision::F32).unwrap();
    for name in ["hopper_2d", "pile_3d"] {
        let mut twin = cut(name, 300);
        twin.solver.tolerance = 1e-4;
        let mut single = twin.clone();
        advance(&mut twin, &mut CpuSolver::default(), 60, &[60]);
        advance(&mut single, &mut gpu, 60, &[60]);
        let worst = largest_difference(&single, &twin);
        assert!(worst < 1e-6, "{name}: f32 moved {worst:e} m from the twin");
    }
    let mut scene = cut("pile_3d", 50);
    scene.solver.max_sweeps = 1 << 25;
    let e = gpu.advance(&mut scene, 1, &mut |_| true).unwrap_err().to_string();
    assert!(e.contains("solver.max_sweeps = 33554432"), "{e}");
}

/// A lone disc dropped from 0.5 m onto a floor: no candidate pair for its first steps (a
/// step on the device with no contact at all), then the floor's, an impact and bounces —
/// the twin's bits throughout.
#[test]
fn a_lone_disc_without_contacts_then_on_the_floor_is_the_twin() {
    let Some(ctx) = common::gpu().filter(|c| c.supports_f64()) else {
        return;
    };
    let d = Dimension::Two;
    let scene = || {
        let bodies = Bodies::new(d, vec![[0.5, 0.5, 0.0]], vec![0.05], vec![1.0]).unwrap();
        LargeScene::new(
            bodies,
            vec![floor(1, law(0.5, 0.3, d))],
            law(0.5, 0.3, d),
            gravity(d),
            1e-3,
        )
        .unwrap()
    };
    let (mut twin, mut device) = (scene(), scene());
    let twin_reports = advance(&mut twin, &mut CpuSolver::default(), 600, &[600]);
    let mut gpu = GpuScene::new(ctx, Precision::F64).unwrap();
    let reports = advance(&mut device, &mut gpu, 600, &[600]);
    assert_eq!(twin_reports[1].candidates, 0, "{:?}", twin_reports[1]);
    assert!(twin_reports.iter().any(|r| r.active > 0), "no impact");
    assert_eq!(reports, twin_reports);
    assert_eq!(state_bits(&device), state_bits(&twin));
}

/// The device engine reports where its time went: the broad phases on the host (at least
/// the first trip up) and, where the adapter has timestamps (lavapipe has), each group of
/// device stages of a pyramid settling — finite, not negative, the sweeps' positive, and
/// together within the wall time of the steps; the host's stages report none.
#[test]
fn the_device_step_reports_its_time_by_stage() {
    let Some(ctx) = common::gpu() else { return };
    assert_eq!(CpuSolver::default().stage_seconds(), None);
    let mut gpu = GpuScene::new(ctx, Precision::F32).unwrap();
    let mut scene = cut("pyramid_2d", 120);
    scene.solver.tolerance = 1e-4;
    let before = gpu.stage_seconds().unwrap();
    let started = std::time::Instant::now();
    let reports = advance(&mut scene, &mut gpu, 60, &[20]);
    let wall = started.elapsed().as_secs_f64();
    let stages = gpu.stage_seconds().unwrap().since(&before);
    let sweeps: Vec<usize> = reports.iter().map(|r| r.sweeps).collect();
    assert!(
        sweeps.iter().sum::<usize>() > sweeps.len(),
        "the pyramid sweeps: {sweeps:?}"
    );
    assert!(
        stages.broad_phase > 0.0 && stages.broad_phase < wall,
        "{stages:?} in {wall} s"
    );
    if !ctx.has_timestamps() {
        assert_eq!(
            (stages.before_sweeps, stages.sweeps, stages.after_sweeps),
            (None, None, None)
        );
        return;
    }
    let device = [stages.before_sweeps, stages.sweeps, stages.after_sweeps].map(Option::unwrap);
    assert!(device.iter().all(|s| s.is_finite() && *s >= 0.0), "{stages:?}");
    assert!(device[1] > 0.0, "{stages:?}");
    assert!(
        device.iter().sum::<f64>() + stages.broad_phase <= wall,
        "{stages:?} in {wall} s"
    );
}
