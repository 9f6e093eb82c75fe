//! Shared test helpers: where Siconos's data lives, and column-by-column comparison.
#![allow(dead_code)]

/// The cross-engine harness (reference, CPU lanes, GPU f64 and f32).
pub mod engines;

/// Scenes and the assembled contact problem of the large-scene tests.
pub mod large;

use std::path::PathBuf;

/// The environment variable that overrides the location of Siconos's data.
pub const DATA_VAR: &str = "RICOCHET_SICONOS_DATA";

/// `../shared/data/siconos` (or `$RICOCHET_SICONOS_DATA`). Under CI (`CI=true`) a missing
/// folder fails the test; elsewhere it returns `None` after printing a skip notice.
pub fn siconos_data() -> Option<PathBuf> {
    let dir = std::env::var_os(DATA_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/siconos"));
    if dir.is_dir() {
        return Some(dir);
    }
    let message = format!(
        "Siconos data not found at {} (set {DATA_VAR} to its folder)",
        dir.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED: {message}");
    None
}

/// Compares `rows` (one Vec per time) with the reference matrix column by column and returns
/// the max absolute error per column; panics naming the first row and column above `tol`.
pub fn compare_with_reference(name: &str, reference: &nalgebra::DMatrix<f64>, rows: &[Vec<f64>], tol: f64) -> Vec<f64> {
    assert_eq!(rows.len(), reference.nrows(), "{name}: number of rows");
    let cols = reference.ncols();
    let mut max = vec![0.0f64; cols];
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), cols, "{name}: number of columns");
        for (j, &value) in row.iter().enumerate() {
            let err = (value - reference[(i, j)]).abs();
            assert!(
                err <= tol,
                "{name}: row {i} column {j} differs: ours {value:e}, reference {:e} (error {err:e} > {tol:e})",
                reference[(i, j)]
            );
            max[j] = max[j].max(err);
        }
    }
    let formatted: Vec<String> = max.iter().map(|e| format!("{e:.1e}")).collect();
    println!("{name}: max abs error per column [{}]", formatted.join(", "));
    max
}

/// The files of a directory that `keep` keeps (not its subfolders), sorted by name, with
/// their bytes: what two runs' directories are compared by.
pub fn files_of(dir: &std::path::Path, keep: impl Fn(&std::path::Path) -> bool) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && keep(p))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The GPU context shared by a test binary: `None` (after a printed notice) when there is
/// no adapter, except under `RICOCHET_REQUIRE_GPU=1`, where that fails the test.
#[cfg(feature = "gpu")]
pub fn gpu() -> Option<&'static ricochet::batch::gpu::GpuContext> {
    static CONTEXT: std::sync::OnceLock<Option<ricochet::batch::gpu::GpuContext>> = std::sync::OnceLock::new();
    CONTEXT
        .get_or_init(|| match ricochet::batch::gpu::GpuContext::new() {
            Ok(ctx) => Some(ctx),
            Err(e) if std::env::var("RICOCHET_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
                panic!("RICOCHET_REQUIRE_GPU=1 but {e}")
            }
            Err(e) => {
                eprintln!("SKIPPED: {e} (set RICOCHET_REQUIRE_GPU=1 to make this a failure)");
                None
            }
        })
        .as_ref()
}

/// The shipped ensemble scenarios (`scenarios/*.toml` but the large-scene ones), sorted by
/// name, each with whether the batched engines run it (a scenario of first-order scenes, such
/// as the circuits, runs on the reference engine only).
pub fn shipped_scenarios() -> Vec<(PathBuf, bool)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !is_large_scene(p))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let scenario = ricochet::ensemble::Scenario::load(&path).unwrap();
            let scene = scenario.sample(0).unwrap().scene;
            let batched = match scenario.time.integrator {
                ricochet::scheme::LagrangianIntegrator::MoreauJean => scene
                    .linear(scenario.time.step, scenario.time.theta, scenario.stabilization())
                    .is_ok(),
                ricochet::scheme::LagrangianIntegrator::Rattle => scene.linear_rattle(scenario.time.step).is_ok(),
            };
            (path, batched)
        })
        .collect()
}

/// Whether a scenario file is a large-scene one (a `[large_scene]` table), which the ensemble
/// engines do not run.
pub fn is_large_scene(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| ricochet::ensemble::large_scene::LargeScenario::is_large(&t))
}

/// Adds to `nsds` a ball (6 dof: x, y, z and three rotations; mass `m`, the rotations'
/// inertias `inertia`, gravity along −z) starting at `q0` with velocity `v0`, and its
/// contact with the floor z = 0 under `law`: three rows, the normal gap z − R and the contact
/// point's tangential velocities vₓ − R ω_y and v_y + R ωₓ. Both are named after `name`.
pub fn ball_on_rough_floor(
    nsds: &mut ricochet::model::Nsds,
    name: &str,
    (radius, m, inertia): (f64, f64, [f64; 3]),
    (q0, v0): ([f64; 3], [f64; 2]),
    law: ricochet::model::NewtonImpactFrictionNSL,
) {
    use nalgebra::{DMatrix, DVector};
    use ricochet::model::{LagrangianLinearTIDS, LagrangianLinearTIR};
    let ball = LagrangianLinearTIDS::new(
        DVector::from_vec(vec![q0[0], q0[1], q0[2], 0.0, 0.0, 0.0]),
        DVector::from_vec(vec![v0[0], v0[1], 0.0, 0.0, 0.0, 0.0]),
        DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, m, inertia[0], inertia[1], inertia[2]])),
    )
    .unwrap()
    .with_fext(DVector::from_vec(vec![0.0, 0.0, -9.81 * m, 0.0, 0.0, 0.0]))
    .unwrap();
    let ball = nsds.add(name, ball);
    #[rustfmt::skip]
    let rows = DMatrix::from_row_slice(3, 6, &[
        0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
        1.0, 0.0, 0.0, 0.0, -radius, 0.0,
        0.0, 1.0, 0.0, radius, 0.0, 0.0,
    ]);
    let floor = LagrangianLinearTIR::with_offset(rows, DVector::from_vec(vec![-radius, 0.0, 0.0])).unwrap();
    nsds.link(&format!("{name} on the floor"), law, floor, &[ball]).unwrap();
}

/// A shipped scene whose GPU kernel lavapipe compiles for minutes, and the size it compiles
/// in seconds running the same code.
struct LeanSize {
    template: ricochet::scenes::template::Template,
    file: &'static str,
    key: &'static str,
    shipped: u32,
    lean: u32,
    /// The parameters of the parts the lean size leaves out.
    left_out: &'static [&'static str],
}

/// The impacting bar at 5 nodes (20: the kernel holds W of 20 nodes, and inverts W(τ) when
/// located); the disc pile at 2 discs (4: the Newton loop rebuilds the Jacobian of 22 rows and
/// 8 dofs; 2 discs keep a sphere–sphere gap), without the shifts `x2`, `x3` of the discs left
/// out. A hardware GPU compiles either in a second.
const LEAN_SIZES: [LeanSize; 2] = [
    LeanSize {
        template: ricochet::scenes::template::Template::ImpactingBar,
        file: "impacting_bar.toml",
        key: "nodes",
        shipped: 20,
        lean: 5,
        left_out: &[],
    },
    LeanSize {
        template: ricochet::scenes::template::Template::DiscPile,
        file: "disc_pile.toml",
        key: "discs",
        shipped: 4,
        lean: 2,
        left_out: &["x2", "x3"],
    },
];

/// Shrinks a scenario to its [`LEAN_SIZES`]; returns whether it changed it.
pub fn lean_for_lavapipe(scenario: &mut ricochet::ensemble::Scenario) -> bool {
    use ricochet::ensemble::{custom::Scenes, sampling::Parameter, scene_spec::Value};
    let Scenes::Template(spec) = &mut scenario.scene else {
        return false;
    };
    let Some(size) = LEAN_SIZES.iter().find(|size| size.template == spec.template) else {
        return false;
    };
    spec.parameters.insert(
        size.key.into(),
        Value::Parameter(Parameter::Fixed(f64::from(size.lean))),
    );
    spec.parameters.retain(|key, _| !size.left_out.contains(&key.as_str()));
    true
}

/// A shipped scenario file's text at its [`LEAN_SIZES`], for the tests that run the
/// `ricochet` binary on a file: `None` for the scenarios it leaves as they are.
pub fn lean_scenario_text(path: &std::path::Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let size = LEAN_SIZES.iter().find(|size| size.file == name)?;
    let text = std::fs::read_to_string(path).unwrap();
    let from = format!("{} = {}", size.key, size.shipped);
    assert!(text.contains(&from), "{name} no longer has `{from}`: update LEAN_SIZES");
    Some(
        text.replace(&from, &format!("{} = {}", size.key, size.lean))
            .lines()
            .filter(|line| !size.left_out.iter().any(|x| line.starts_with(&format!("{x} ="))))
            .map(|line| format!("{line}\n"))
            .collect(),
    )
}
