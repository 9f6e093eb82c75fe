//! A 2-D large scene keeps its discs in the plane z = 0 (their centres' z is checked by
//! [`Bodies::new`](super::Bodies::new)): what a scene or a restored state is refused for out of it.

use super::bodies::Dimension;
use super::walls::{Shape, Wall};
use crate::{Error, Result};

/// In 2-D (`dimension`) a disc moves in the plane z = 0: refuses a gravity, a wall or a
/// disc's velocity out of it (g_z, a wall's z, v_z, ω_x and ω_y must be 0), naming the first,
/// and makes the discs' −0 there +0. A disc's v_z, ω_x and ω_y then stay +0 through every
/// kick (+0 + ±0 is +0), which the packed sweep relies on (it neither reads nor writes them).
/// Nothing to check in 3-D.
pub(super) fn in_plane(
    dimension: Dimension,
    gravity: [f64; 3],
    walls: &[Wall],
    (v, omega): (&mut [[f64; 3]], &mut [[f64; 3]]),
) -> Result<()> {
    if dimension == Dimension::Three {
        return Ok(());
    }
    let plane = "discs move in the plane z = 0";
    if gravity[2] != 0.0 {
        return Err(Error::Parameter {
            what: "large scene: gravity g_z of discs".into(),
            value: gravity[2],
            reason: format!("must be 0: {plane}"),
        });
    }
    let off = |w: &Wall| match w.shape {
        Shape::Plane { point, normal } => point[2] != 0.0 || normal[2] != 0.0,
        Shape::Segment { a, b, .. } => a[2] != 0.0 || b[2] != 0.0,
    };
    if let Some(w) = walls.iter().position(off) {
        return Err(Error::Unsupported {
            what: format!("large scene: wall {w} ({:?}) among discs", walls[w].shape),
            reason: format!("its z must be 0: {plane}"),
        });
    }
    for (k, (v, w)) in v.iter_mut().zip(omega.iter_mut()).enumerate() {
        if v[2] != 0.0 || w[0] != 0.0 || w[1] != 0.0 {
            return Err(Error::Unsupported {
                what: format!(
                    "large scene: disc {k} with v_z = {}, ω_x = {}, ω_y = {}",
                    v[2], w[0], w[1]
                ),
                reason: format!("they must be 0: {plane}"),
            });
        }
        (v[2], w[0], w[1]) = (0.0, 0.0, 0.0);
    }
    Ok(())
}
