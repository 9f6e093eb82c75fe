//! Shader composition: the precision prelude, `common.wgsl`, then one kernel file.

use super::Precision;

const COMMON: &str = include_str!("../../../shaders/common.wgsl");
const MOREAU_JEAN_PGS: &str = include_str!("../../../shaders/moreau_jean_pgs.wgsl");

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

/// The scene-parallel Moreau–Jean + PGS kernel (entry point `main`) in `precision`, for
/// scenes of at most `max_dof` degrees of freedom and `max_contacts` contacts (the sizes of
/// its private arrays).
pub fn moreau_jean_pgs(precision: Precision, max_dof: usize, max_contacts: usize) -> String {
    let sizes = format!(
        "const MAX_DOF: u32 = {}u;\nconst MAX_CONTACTS: u32 = {}u;\n",
        max_dof.max(1),
        max_contacts.max(1)
    );
    [real(precision), &sizes, COMMON, MOREAU_JEAN_PGS].concat()
}
