//! Shader composition: the precision prelude, `common.wgsl`, then one kernel file.

use super::Precision;

const COMMON: &str = include_str!("../../../shaders/common.wgsl");
const MOREAU_JEAN_PGS: &str = include_str!("../../../shaders/moreau_jean_pgs.wgsl");
const MOREAU_JEAN_STAGES: &str = include_str!("../../../shaders/moreau_jean_stages.wgsl");
const MOREAU_JEAN_ROWS: &str = include_str!("../../../shaders/moreau_jean_rows.wgsl");
const CONTACT_LOCAL: &str = include_str!("../../../shaders/contact_local.wgsl");
const OBSERVE: &str = include_str!("../../../shaders/observe.wgsl");
/// The located step (`LOCATE`): its state and walk, sub-steps, crossings, impacts and the
/// observers' part, then the Hermite roots.
const LOCATED: [&str; 6] = [
    include_str!("../../../shaders/located.wgsl"),
    include_str!("../../../shaders/located_sub_step.wgsl"),
    include_str!("../../../shaders/located_crossing.wgsl"),
    include_str!("../../../shaders/located_impact.wgsl"),
    include_str!("../../../shaders/located_observe.wgsl"),
    include_str!("../../../shaders/hermite_root.wgsl"),
];
const LOCATED_OFF: &str = include_str!("../../../shaders/located_off.wgsl");
const RATTLE_STAGES: &str = include_str!("../../../shaders/rattle_stages.wgsl");
const CHAIN_JACOBI: &str = include_str!("../../../shaders/chain_jacobi.wgsl");
const LARGE_SCENE_NSGS: &str = include_str!("../../../shaders/large_scene_nsgs.wgsl");
const LARGE_SCENE_STEP: &str = include_str!("../../../shaders/large_scene_step.wgsl");
const LARGE_SCENE_REPORT: &str = include_str!("../../../shaders/large_scene_report.wgsl");
const LARGE_SCENE_REBUILD: &str = include_str!("../../../shaders/large_scene_rebuild.wgsl");
const ROUND_AWAY: &str = include_str!("../../../shaders/round_away.wgsl");
const LARGE_SCENE_BROAD_PHASE: &str = include_str!("../../../shaders/large_scene_broad_phase.wgsl");
const LARGE_SCENE_COLOURING: &str = include_str!("../../../shaders/large_scene_colouring.wgsl");
const INVOCATION: &str = include_str!("../../../shaders/invocation.wgsl");

/// The definitions of `real`, `REAL_MAX`, `REAL_EPSILON` and `sine_cosine` for a precision.
fn real(precision: Precision) -> String {
    match precision {
        Precision::F32 => [
            "alias real = f32;\nconst REAL_MAX: real = 3.40282347e38;\nconst REAL_EPSILON: real = 1.1920929e-7;\n",
            "// (sin x, cos x). Twin: batch::cpu::lever::sine_cosine (in f64; f32 kernels use WGSL's).\nfn sine_cosine(x: real) -> vec2<real> {\n    return vec2<real>(sin(x), cos(x));\n}\n",
        ]
        .concat(),
        Precision::F64 => {
            use crate::batch::cpu::lever::{PIO2_HI, PIO2_LO};
            use std::f64::consts::FRAC_2_PI;
            // Rust prints the shortest decimal that reads back as the same f64.
            format!(
                "alias real = f64;\nconst REAL_MAX: real = {:e};\nconst REAL_EPSILON: real = {:e};\nconst PIO2_HI: f64 = {PIO2_HI:e};\nconst PIO2_LO: f64 = {PIO2_LO:e};\nconst TWO_OVER_PI: f64 = {FRAC_2_PI:e};\n{SINE_COSINE_F64}",
                f64::MAX,
                f64::EPSILON,
            )
        }
    }
}

/// sin and cos for f64, which WGSL's `sin` and `cos` do not take: Cody–Waite reduction by π/2
/// (π/2 = PIO2_HI + PIO2_LO, the twin's constants, printed in front) and the Taylor
/// polynomials of cos (to r¹⁶) and sin (to r¹⁷) on |r| ≤ π/4, in Horner form without loops
/// (truncation below 3e-18), picked by k mod 4. Twin: `batch::cpu::lever::sine_cosine`.
const SINE_COSINE_F64: &str = "
// (sin x, cos x) by Cody–Waite reduction and Taylor polynomials. Twin: batch::cpu::lever::sine_cosine.
fn sine_cosine(x: real) -> vec2<real> {
    let k = round(x * TWO_OVER_PI);
    let r = (x - k * PIO2_HI) - k * PIO2_LO;
    let z = r * r;
    let c = 1.0 + z * (-1.0 / 2.0 + z * (1.0 / 24.0 + z * (-1.0 / 720.0 + z * (1.0 / 40320.0
        + z * (-1.0 / 3628800.0 + z * (1.0 / 479001600.0 + z * (-1.0 / 87178291200.0
        + z * (1.0 / 20922789888000.0))))))));
    let s = r * (1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (1.0 / 362880.0
        + z * (-1.0 / 39916800.0 + z * (1.0 / 6227020800.0 + z * (-1.0 / 1307674368000.0
        + z * (1.0 / 355687428096000.0)))))))));
    let quadrant = i32(k) & 3;
    let cosine = select(select(select(s, -c, quadrant == 2), -s, quadrant == 1), c, quadrant == 0);
    let sine = select(select(select(-c, -s, quadrant == 2), c, quadrant == 1), s, quadrant == 0);
    return vec2<real>(sine, cosine);
}
";

/// Scenes whose operators (for the kernel's array sizes) fit this many values keep them in
/// private memory for the whole run; larger ones read them from storage every step.
pub const PRIVATE_OPS_LIMIT: usize = 2048;

/// Scene sizes a kernel is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelSizes {
    /// Length of the private arrays over degrees of freedom (≥ every scene's).
    pub max_dof: usize,
    /// Length of the private arrays over contacts (≥ every scene's).
    pub max_contacts: usize,
    /// The degrees of freedom of every scene when they are all equal (loops unroll), else 0.
    pub fixed_dof: usize,
    /// The contacts of every scene when they are all equal, else 0.
    pub fixed_contacts: usize,
    /// The length of the private copy of a scene's operators (≥ every scene's
    /// [`SceneHeader::operators`](crate::batch::SceneHeader::operators)); scenes read them
    /// from storage when it is over [`PRIVATE_OPS_LIMIT`].
    pub max_operators: usize,
    /// Whether some scene has nonlinear rows, quadratic terms or sphere–sphere gaps (the
    /// kernel then runs a Newton loop per step).
    pub nonlinear: bool,
    /// Whether the scenes are stepped by nonsmooth RATTLE (else Moreau–Jean).
    pub rattle: bool,
    /// Whether some scene stores its matrices by compressed rows
    /// ([`SPARSE`](crate::batch::layout::SPARSE)); without, the dense loops keep their
    /// constant trip counts.
    pub compressed: bool,
    /// The number of observers (`batch::observe`).
    pub observers: usize,
    /// The stroboscopic steps (first, every, count; count 0: none).
    pub strobe: (u32, u32, u32),
    /// Values recorded per scene (`batch::observe::Recording::len`).
    pub record: usize,
    /// Impact events kept per scene (0: none recorded).
    pub events: u32,
    /// Where a record's events part starts (`batch::observe::Recording::events_at`).
    pub events_at: usize,
    /// Invocations per workgroup ([`Tuning`](super::Tuning)).
    pub workgroup: u32,
    /// Whether impacts are located inside the step (`shaders/located.wgsl`).
    pub locate: bool,
    /// Whether some located scene builds its sub-steps' operators from W(τ)
    /// ([`SPAN_DYNAMICS`](crate::batch::layout::SPAN_DYNAMICS): `span_operators`).
    pub span_operators: bool,
}

impl KernelSizes {
    /// The values a located kernel keeps per scene between dispatches: the last impact time,
    /// each row's recent flag, each observer's last rate (1 without location).
    pub fn located_len(&self) -> usize {
        if self.locate {
            1 + self.max_contacts.max(1) + self.observers
        } else {
            1
        }
    }
}

/// The scene-parallel Moreau–Jean + PGS kernel (entry point `main`) in `precision`, for
/// scenes of the given sizes.
pub fn moreau_jean_pgs(precision: Precision, sizes: KernelSizes) -> String {
    use crate::batch::{OperatorOffsets, StepParams};
    let (n, m) = (sizes.max_dof.max(1), sizes.max_contacts.max(1));
    let operators = sizes.max_operators;
    // (W⁻¹Gᵀ and D of a Newton iterate, or of a located sub-step's W(τ).)
    let (quad_mn, quad_mm) = if sizes.nonlinear || sizes.span_operators {
        (m * n, m * m)
    } else {
        (1, 1)
    };
    let (nl_dof, nl_contacts) = if sizes.nonlinear { (n, m) } else { (1, 1) };
    let constants = format!(
        "const MAX_DOF: u32 = {n}u;\nconst MAX_CONTACTS: u32 = {m}u;\nconst FIXED_DOF: u32 = {}u;\nconst FIXED_CONTACTS: u32 = {}u;\nconst PRIVATE_OPS: u32 = {}u;\nconst NONLINEAR: bool = {};\nconst QUAD_MN: u32 = {quad_mn}u;\nconst QUAD_MM: u32 = {quad_mm}u;\nconst NL_DOF: u32 = {nl_dof}u;\nconst NL_CONTACTS: u32 = {nl_contacts}u;\nconst SLIDE_ITERATIONS: u32 = {}u;\nconst OBSERVERS: u32 = {}u;\nconst OBSERVED: u32 = {}u;\nconst RECORD: u32 = {}u;\nconst STROBE_FIRST: u32 = {}u;\nconst STROBE_EVERY: u32 = {}u;\nconst STROBE_COUNT: u32 = {}u;\nconst EVENTS: u32 = {}u;\nconst EVENTS_AT: u32 = {}u;\nconst EVENT_ROWS: u32 = {}u;\nconst RATTLE: bool = {};\nconst RATTLE_CONTACTS: u32 = {}u;\nconst COMPRESSED: bool = {};\nconst WORKGROUP: u32 = {}u;\n",
        sizes.fixed_dof,
        sizes.fixed_contacts,
        if operators <= PRIVATE_OPS_LIMIT { operators } else { 1 },
        sizes.nonlinear,
        crate::contact::local::SLIDE_ITERATIONS,
        sizes.observers,
        crate::batch::observe::SLOTS * sizes.observers.max(1),
        sizes.record,
        sizes.strobe.0,
        sizes.strobe.1.max(1),
        sizes.strobe.2,
        sizes.events,
        sizes.events_at,
        if sizes.events > 0 || sizes.rattle { m } else { 1 },
        sizes.rattle,
        if sizes.rattle { m } else { 1 },
        sizes.compressed,
        sizes.workgroup,
    );
    let (loc_dof, loc_contacts, loc_observers) = if sizes.locate {
        (n, m, sizes.observers.max(1))
    } else {
        (1, 1, 1)
    };
    let located = format!(
        "const LOCATE: bool = {};\nconst SPAN_OPERATORS: bool = {};\nconst SPAN_OPS: u32 = {}u;\nconst LOC_DOF: u32 = {loc_dof}u;\nconst LOC_CONTACTS: u32 = {loc_contacts}u;\nconst LOC_OBSERVERS: u32 = {loc_observers}u;\nconst LOCATED: u32 = {}u;\nconst MAX_TRIALS: u32 = {}u;\nconst NEWTON_STEPS: u32 = {}u;\nconst MAX_LOCATED_IMPACTS: u32 = {}u;\nconst MAX_IMPACTS_PER_CONTACT: u32 = {}u;\nconst TIME_TOLERANCE = {:e};\nconst MIN_FLIGHT = {:e};\nconst FLOOR_ULPS = {:e};\n",
        sizes.locate,
        sizes.locate && sizes.span_operators,
        if sizes.locate && sizes.span_operators {
            crate::batch::layout::SpanBlocks::new(n).len
        } else {
            1
        },
        sizes.located_len(),
        crate::reference::MAX_TRIALS,
        crate::reference::NEWTON_STEPS,
        crate::reference::MAX_LOCATED_IMPACTS,
        crate::reference::MAX_IMPACTS_PER_CONTACT,
        crate::reference::TIME_TOLERANCE,
        crate::reference::MIN_FLIGHT,
        crate::reference::FLOOR_ULPS,
    );
    [
        real(precision).as_str(),
        &constants,
        &located,
        &crate::batch::layout::constants_wgsl(),
        StepParams::<f64>::WGSL,
        OperatorOffsets::WGSL,
        COMMON,
        MOREAU_JEAN_PGS,
        MOREAU_JEAN_STAGES,
        MOREAU_JEAN_ROWS,
        CONTACT_LOCAL,
        RATTLE_STAGES,
        OBSERVE,
        &if sizes.locate {
            LOCATED.concat()
        } else {
            LOCATED_OFF.to_string()
        },
    ]
    .concat()
}

/// The contact-parallel bead-chain kernels (entry points `prepare`, `sweep`, `update`).
pub fn chain_jacobi(precision: Precision) -> String {
    let params = crate::batch::ChainParams::<f64>::WGSL;
    [real(precision).as_str(), params, CHAIN_JACOBI].concat()
}

/// The large scene's sweeps (entry points `solve_colour`, `solve_overflow`, `jacobi_solve`,
/// `jacobi_apply`, `block_sums`, `light_test`, `error_test`) and the other stages of its
/// step (`narrow_phase`, `free_velocity`, `contact_q`, `warm_start_colour`,
/// `warm_start_overflow`, `contact_tally`, `skip_solve`, `update_position`, `body_tally`,
/// `report`, and the broad phase's `rebuild_bodies`, `carry_out`, `carry_in`) in
/// `precision`, after `prelude`: the host's `BLOCK` and `Dispatch` (`large_scene::gpu`).
pub fn large_scene_nsgs(precision: Precision, prelude: &str) -> String {
    let slide = format!(
        "const SLIDE_ITERATIONS: u32 = {}u;\n",
        crate::contact::local::SLIDE_ITERATIONS
    );
    [
        real(precision).as_str(),
        prelude,
        &slide,
        INVOCATION,
        ROUND_AWAY,
        CONTACT_LOCAL,
        LARGE_SCENE_NSGS,
        LARGE_SCENE_STEP,
        LARGE_SCENE_REPORT,
        LARGE_SCENE_REBUILD,
    ]
    .concat()
}

/// The large scene's broad phase (entry points `cell_keys`, `scatter`, `count_partners`,
/// `write_pairs`) in `precision`.
pub fn large_scene_broad_phase(precision: Precision) -> String {
    [
        real(precision).as_str(),
        INVOCATION,
        ROUND_AWAY,
        LARGE_SCENE_BROAD_PHASE,
    ]
    .concat()
}

/// The large scene's Jones–Plassmann colouring (entry points `reset`, `bid`, `pick`):
/// integers only, one source for f32 and f64.
pub fn large_scene_colouring() -> String {
    [INVOCATION, LARGE_SCENE_COLOURING].concat()
}

#[cfg(test)]
mod tests;
