//! Shader composition: the precision prelude, `common.wgsl`, then one kernel file.

use super::Precision;

const COMMON: &str = include_str!("../../../shaders/common.wgsl");
const MOREAU_JEAN_PGS: &str = include_str!("../../../shaders/moreau_jean_pgs.wgsl");
const MOREAU_JEAN_STAGES: &str = include_str!("../../../shaders/moreau_jean_stages.wgsl");
const MOREAU_JEAN_ROWS: &str = include_str!("../../../shaders/moreau_jean_rows.wgsl");
const CHAIN_JACOBI: &str = include_str!("../../../shaders/chain_jacobi.wgsl");

/// The definitions of `real`, `REAL_MAX`, `REAL_EPSILON` and `cosine` for a precision.
fn real(precision: Precision) -> String {
    match precision {
        Precision::F32 => [
            "alias real = f32;\nconst REAL_MAX: real = 3.40282347e38;\nconst REAL_EPSILON: real = 1.1920929e-7;\n",
            "const PI_OVER_2: real = 1.5707963267948966;\nfn cosine(x: real) -> real {\n    return cos(x);\n}\n",
        ]
        .concat(),
        Precision::F64 => [
            "alias real = f64;\nconst REAL_MAX: real = 1.7976931348623157e308;\nconst REAL_EPSILON: real = 2.220446049250313e-16;\n",
            COSINE_F64,
        ]
        .concat(),
    }
}

/// cos for f64, which WGSL's `cos` does not take: Cody–Waite reduction by π/2 (π/2 split
/// into a 33-bit head and a tail, so k·head is exact for |k| < 2²⁰) and the Taylor polynomials
/// of cos (to r¹⁶) and sin (to r¹⁷) on |r| ≤ π/4, in Horner form without loops (truncation
/// below 3e-18).
const COSINE_F64: &str = "
const PIO2_HI: f64 = 1.57079632673412561417e+00;
const PIO2_LO: f64 = 6.07710050650619224932e-11;
const TWO_OVER_PI: f64 = 6.36619772367581382433e-01;
const PI_OVER_2: f64 = 1.5707963267948966;
fn cosine(x: real) -> real {
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
    return select(select(select(s, -c, quadrant == 2), -s, quadrant == 1), c, quadrant == 0);
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
    /// Whether some scene has nonlinear rows, quadratic terms or sphere–sphere gaps (the
    /// kernel then runs a Newton loop per step).
    pub nonlinear: bool,
}

/// The scene-parallel Moreau–Jean + PGS kernel (entry point `main`) in `precision`, for
/// scenes of the given sizes.
pub fn moreau_jean_pgs(precision: Precision, sizes: KernelSizes) -> String {
    use crate::batch::{OperatorOffsets, SceneHeader, StepParams};
    let (n, m) = (sizes.max_dof.max(1), sizes.max_contacts.max(1));
    let operators = if sizes.nonlinear {
        SceneHeader::operator_len(n, m)
    } else {
        SceneHeader::linear_operator_len(n, m)
    };
    let (quad_mn, quad_mm, nl_dof, nl_contacts) = if sizes.nonlinear {
        (m * n, m * m, n, m)
    } else {
        (1, 1, 1, 1)
    };
    let constants = format!(
        "const MAX_DOF: u32 = {n}u;\nconst MAX_CONTACTS: u32 = {m}u;\nconst FIXED_DOF: u32 = {}u;\nconst FIXED_CONTACTS: u32 = {}u;\nconst PRIVATE_OPS: u32 = {}u;\nconst NONLINEAR: bool = {};\nconst QUAD_MN: u32 = {quad_mn}u;\nconst QUAD_MM: u32 = {quad_mm}u;\nconst NL_DOF: u32 = {nl_dof}u;\nconst NL_CONTACTS: u32 = {nl_contacts}u;\n",
        sizes.fixed_dof,
        sizes.fixed_contacts,
        if operators <= PRIVATE_OPS_LIMIT { operators } else { 1 },
        sizes.nonlinear,
    );
    [
        real(precision).as_str(),
        &constants,
        StepParams::<f64>::WGSL,
        OperatorOffsets::WGSL,
        COMMON,
        MOREAU_JEAN_PGS,
        MOREAU_JEAN_STAGES,
        MOREAU_JEAN_ROWS,
    ]
    .concat()
}

/// The contact-parallel bead-chain kernels (entry points `prepare`, `sweep`, `update`).
pub fn chain_jacobi(precision: Precision) -> String {
    let params = crate::batch::ChainParams::<f64>::WGSL;
    [real(precision).as_str(), params, CHAIN_JACOBI].concat()
}
