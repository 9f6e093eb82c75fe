//! Shader composition: the precision prelude, `common.wgsl`, then one kernel file.

use super::Precision;

const COMMON: &str = include_str!("../../../shaders/common.wgsl");
const MOREAU_JEAN_PGS: &str = include_str!("../../../shaders/moreau_jean_pgs.wgsl");
const CHAIN_JACOBI: &str = include_str!("../../../shaders/chain_jacobi.wgsl");

/// The definitions of `real`, `REAL_MAX` and `REAL_EPSILON` for a precision.
fn real(precision: Precision) -> &'static str {
    match precision {
        Precision::F32 => {
            "alias real = f32;\nconst REAL_MAX: real = 3.40282347e38;\nconst REAL_EPSILON: real = 1.1920929e-7;\n"
        }
        Precision::F64 => {
            "alias real = f64;\nconst REAL_MAX: real = 1.7976931348623157e308;\nconst REAL_EPSILON: real = 2.220446049250313e-16;\n"
        }
    }
}

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
    /// Whether some scene has quadratic rows (the kernel then runs a Newton loop per step).
    pub quadratic: bool,
}

/// The scene-parallel Moreau–Jean + PGS kernel (entry point `main`) in `precision`, for
/// scenes of the given sizes.
pub fn moreau_jean_pgs(precision: Precision, sizes: KernelSizes) -> String {
    use crate::assemble::SceneHeader;
    let (n, m) = (sizes.max_dof.max(1), sizes.max_contacts.max(1));
    let operators = if sizes.quadratic {
        SceneHeader::operator_len(n, m)
    } else {
        SceneHeader::linear_operator_len(n, m)
    };
    let (quad_mn, quad_mm) = if sizes.quadratic { (m * n, m * m) } else { (1, 1) };
    let constants = format!(
        "const MAX_DOF: u32 = {n}u;\nconst MAX_CONTACTS: u32 = {m}u;\nconst FIXED_DOF: u32 = {}u;\nconst FIXED_CONTACTS: u32 = {}u;\nconst PRIVATE_OPS: u32 = {}u;\nconst QUADRATIC: bool = {};\nconst QUAD_MN: u32 = {quad_mn}u;\nconst QUAD_MM: u32 = {quad_mm}u;\n",
        sizes.fixed_dof,
        sizes.fixed_contacts,
        if operators <= PRIVATE_OPS_LIMIT { operators } else { 1 },
        sizes.quadratic,
    );
    [real(precision), &constants, COMMON, MOREAU_JEAN_PGS].concat()
}

/// The contact-parallel bead-chain kernels (entry points `prepare`, `sweep`, `update`).
pub fn chain_jacobi(precision: Precision) -> String {
    [real(precision), CHAIN_JACOBI].concat()
}
