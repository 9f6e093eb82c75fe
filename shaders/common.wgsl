// Shared declarations of the batched kernels. Mirrors src/batch/layout.rs.
// `real`, `REAL_MAX`, `REAL_EPSILON`, `sine_cosine`, the sizes `MAX_DOF`,
// `MAX_CONTACTS`, `FIXED_DOF`, `FIXED_CONTACTS`, `PRIVATE_OPS`, `NONLINEAR`, `QUAD_MN`,
// `QUAD_MM`, `NL_DOF`, `NL_CONTACTS`, `OBSERVERS`, `OBSERVED`, `RECORD`, `STROBE_FIRST`,
// `STROBE_EVERY`, `STROBE_COUNT`, `EVENTS`, `EVENTS_AT`, `EVENT_ROWS`, `COMPRESSED`, `LOCATE`,
// `LOC_DOF`, `LOC_CONTACTS`, `LOC_OBSERVERS`, `LOCATED` and the located step's constants, and `StepParams` and `OperatorOffsets` (generated from
// their one definition in src/batch/shared.rs), are defined by the host in front of this file
// (f32 or f64, sizes of the batch): see src/batch/gpu/shaders.rs.

// One dispatch; see batch::gpu::moreau_jean_pgs::Params.
struct Params {
    scenes: u32,
    steps: u32,
    // 1 for a packed batch; the number of scenes for an interleaved one.
    stride: u32,
    // 2: the trip count of the loop-limiter probe at the end of each invocation.
    probe: u32,
    // 0, which the compiler cannot see.
    zero: u32,
}

// One scene's offsets: see batch::layout::SceneHeader.
struct SceneHeader {
    ndof: u32,
    ncontacts: u32,
    state_offset: u32,
    operator_offset: u32,
    flags: u32,
    row_offset: u32,
    h_entries: u32,
    delassus_entries: u32,
}

// See batch::layout::HealthCounters.
struct HealthCounters {
    impacts: u32,
    contact_steps: u32,
    last_impact: u32,
    max_iterations: u32,
    flags: u32,
    steps: u32,
}

// The flag bits (HAS_*, NOT_CONVERGED, NON_FINITE, IN_CONTACT, CUT_SHORT), EXTREMES (per
// scene: worst LCP residual, deepest penetration, worst cone violation) and the row kinds
// (ROW_CONTACT, ROW_EQUALITY, ROW_NORMAL_2D, ROW_NORMAL_3D, ROW_TANGENT: a normal row's code
// is its contact's row count) are generated from batch::layout (constants_wgsl) ahead of
// this file.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step_params: StepParams;
@group(0) @binding(2) var<storage, read> headers: array<SceneHeader>;
@group(0) @binding(3) var<storage, read> ops: array<real>;
@group(0) @binding(4) var<storage, read_write> state: array<real>;
@group(0) @binding(5) var<storage, read_write> counters: array<HealthCounters>;
// Per scene the EXTREMES values.
@group(0) @binding(6) var<storage, read_write> extremes: array<real>;
// The observers (signal kind, index, accumulator, 0: see batch::observe::Observer::code) and
// per scene its record of RECORD values: the observers' accumulators, the stroboscopic
// samples and the impact events (observe.wgsl).
@group(0) @binding(7) var<storage, read> observers: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read_write> observed: array<real>;
// The row kind of each row of each scene, from its header's row_offset (batch::layout::RowKind).
@group(0) @binding(9) var<storage, read> row_kinds: array<u32>;
// Per scene, LOCATED values a located kernel keeps between dispatches (located.wgsl).
@group(0) @binding(10) var<storage, read_write> located_record: array<real>;

fn is_finite(x: real) -> bool {
    return abs(x) <= REAL_MAX;
}
