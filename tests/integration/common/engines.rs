//! The cross-engine harness: one scenario on the reference stepper, the CPU lanes and the
//! GPU kernel in f64 and f32, each engine with its tolerance against the CPU lanes
//! ([`engines`], [`Case`]), and the helpers the ensemble tests share.

use ricochet::ensemble::scenario::PrecisionChoice;
use ricochet::ensemble::{self, Backend, RunOptions, Scenario, Shard};

pub const BALLS: &str = r#"
name = "balls"
scenes = 2000
seed = 99
[scene]
template = "bouncing_ball"
height = { uniform = [1.0, 2.0] }
restitution = { uniform = [0.8, 0.95] }
radius = 0.1
[time]
step = 1e-3
final = 2.0
[record]
trajectories = 3
stride = 50
"#;

/// max |a − b| over two columns of numbers.
pub fn differ(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// The summary column `name` of a run.
pub fn col(run: &ensemble::EnsembleRun, name: &str) -> Vec<f64> {
    run.summary.column(name).unwrap()
}

/// max |a − b| over the summary column `name` of two runs of the same scenes.
pub fn deviation(a: &ensemble::EnsembleRun, b: &ensemble::EnsembleRun, name: &str) -> f64 {
    differ(&col(a, name), &col(b, name))
}

/// A shipped scenario (`scenarios/<file>`).
pub fn shipped(file: &str) -> Scenario {
    Scenario::load(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(file),
    )
    .unwrap()
}

pub fn run(scenario: &Scenario, backend: Backend, chunk: usize, shard: Shard) -> ensemble::EnsembleRun {
    let options = RunOptions {
        backend,
        chunk: Some(chunk),
        shard,
        ..Default::default()
    };
    ensemble::run(scenario, &options, &ensemble::Progress::new()).unwrap()
}

pub const ALL: Shard = Shard { index: 0, count: 1 };

/// `scenario` on `backend` in `precision`, all its scenes in one chunk of at most 2¹⁶.
pub fn run_in(scenario: &Scenario, backend: Backend, precision: PrecisionChoice) -> ensemble::EnsembleRun {
    let mut scenario = scenario.clone();
    scenario.solver.precision = precision;
    run(&scenario, backend, 1 << 16, ALL)
}

/// One engine the CPU lanes are checked against, and how far from them its summary may be.
pub struct Case {
    pub backend: Backend,
    pub precision: PrecisionChoice,
    pub tolerance: f64,
}

impl Case {
    /// `scenario` on this engine.
    pub fn run(&self, scenario: &Scenario) -> ensemble::EnsembleRun {
        run_in(scenario, self.backend, self.precision)
    }

    pub fn is_gpu(&self) -> bool {
        self.backend == Backend::Gpu
    }

    /// Asserts that `columns` of `run` are within the tolerance of the CPU lanes' `cpu`.
    pub fn assert_agrees(&self, run: &ensemble::EnsembleRun, cpu: &ensemble::EnsembleRun, columns: &[&str]) {
        for name in columns {
            let worst = deviation(run, cpu, name);
            println!("{self} {name}: {worst:.1e}");
            assert!(worst <= self.tolerance, "{self} vs CPU backend, {name}: {worst:e}");
        }
    }
}

impl std::fmt::Display for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.backend {
            Backend::Gpu => write!(f, "GPU {:?}", self.precision),
            backend => write!(f, "{backend:?}"),
        }
    }
}

/// The engines the CPU lanes are checked against, each where it applies: the reference
/// stepper within `reference`, and, where there is an adapter, the GPU kernel in f64 (1e-9:
/// rounding only) and in f32 within `f32` (K steps of rounding; each test says its K).
pub fn engines(reference: Option<f64>, f32: Option<f64>) -> Vec<Case> {
    #[cfg(feature = "gpu")]
    let gpu = super::gpu().is_some();
    #[cfg(not(feature = "gpu"))]
    let gpu = false;
    let case = |backend, precision, tolerance| Case {
        backend,
        precision,
        tolerance,
    };
    let mut cases: Vec<Case> = reference
        .map(|t| case(Backend::Reference, PrecisionChoice::Auto, t))
        .into_iter()
        .collect();
    if gpu {
        cases.push(case(Backend::Gpu, PrecisionChoice::F64, 1e-9));
        cases.extend(f32.map(|t| case(Backend::Gpu, PrecisionChoice::F32, t)));
    }
    cases
}
