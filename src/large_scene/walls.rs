//! Static walls: half-spaces (a line in 2-D, a plane in 3-D) and 2-D segments, each with its
//! own Newton–Coulomb law, and the containers made of them (a box, a hopper).

use crate::contact::vector::{dot, unit};
use crate::model::NewtonImpactFrictionNSL;
use crate::{Error, Result};

/// A wall's shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// The half-space n·(x − p) ≥ 0 bodies stay in: `normal` n is a unit vector pointing to
    /// the free side (a line in 2-D, z = 0).
    Plane {
        /// A point p of the boundary (m).
        point: [f64; 3],
        /// The unit normal n, into the free side.
        normal: [f64; 3],
    },
    /// The 2-D segment [a, b], touched from either side. Of two segments sharing an end (a
    /// polyline's vertex) only one owns it, so that a disc at the vertex gets one contact,
    /// not two equal rows.
    Segment {
        /// One end (m, z = 0).
        a: [f64; 3],
        /// The other end (m, z = 0).
        b: [f64; 3],
        /// Whether a contact at end a belongs to this segment.
        owns_a: bool,
        /// Whether a contact at end b belongs to this segment.
        owns_b: bool,
    },
}

/// A static wall: a shape and the law of its contacts with bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wall {
    /// Where it is.
    pub shape: Shape,
    /// e_N, e_T and μ of its contacts.
    pub law: NewtonImpactFrictionNSL,
}

impl Wall {
    /// The half-space n·(x − p) ≥ 0, n normalised here (it must be finite and non-zero).
    pub fn plane(point: [f64; 3], normal: [f64; 3], law: NewtonImpactFrictionNSL) -> Result<Self> {
        let n = unit(normal);
        if !(point.iter().chain(&normal).all(|c| c.is_finite()) && dot(n, n) > 0.0) {
            return Err(Error::Parameter {
                what: "wall: plane normal".into(),
                value: dot(normal, normal).sqrt(),
                reason: "must be finite and non-zero, through a finite point".into(),
            });
        }
        Ok(Self {
            shape: Shape::Plane { point, normal: n },
            law,
        })
    }

    /// The open polyline through `points` (2-D): a segment per pair of neighbours, each
    /// owning its first end (the last also its second).
    pub fn polyline(points: &[[f64; 2]], law: NewtonImpactFrictionNSL) -> Result<Vec<Self>> {
        if points.len() < 2 || !points.iter().flatten().all(|c| c.is_finite()) {
            return Err(Error::Parameter {
                what: "wall: polyline points".into(),
                value: points.len() as f64,
                reason: "must be at least two finite points".into(),
            });
        }
        let last = points.len() - 2;
        let mut walls = Vec::with_capacity(last + 1);
        for (k, pair) in points.windows(2).enumerate() {
            let (a, b) = ([pair[0][0], pair[0][1], 0.0], [pair[1][0], pair[1][1], 0.0]);
            if a == b {
                return Err(Error::Parameter {
                    what: format!("wall: polyline segment {k}"),
                    value: 0.0,
                    reason: "has zero length (two equal points)".into(),
                });
            }
            let shape = Shape::Segment {
                a,
                b,
                owns_a: true,
                owns_b: k == last,
            };
            walls.push(Self { shape, law });
        }
        Ok(walls)
    }
}

impl Shape {
    /// The gap g and the unit normal n from a body of radius R centred at x towards the wall
    /// (the contact normal, body first): for a plane g = n_w·(x − p) − R, n = −n_w; for a
    /// segment, with p the nearest point a + t(b − a), t = clamp((x − a)·(b − a)/‖b − a‖², 0, 1),
    /// g = ‖x − p‖ − R and n = (p − x)/‖p − x‖ (the segment's normal through x if x is on it).
    /// `None` where the nearest point is an end the segment does not own.
    pub fn contact(&self, x: [f64; 3], radius: f64) -> Option<(f64, [f64; 3])> {
        match *self {
            Self::Plane { point, normal } => {
                let d = [x[0] - point[0], x[1] - point[1], x[2] - point[2]];
                Some((dot(normal, d) - radius, normal.map(|c| -c)))
            }
            Self::Segment { a, b, owns_a, owns_b } => {
                let ab = [b[0] - a[0], b[1] - a[1], 0.0];
                let ax = [x[0] - a[0], x[1] - a[1], 0.0];
                let t = (dot(ax, ab) / dot(ab, ab)).clamp(0.0, 1.0);
                if (t == 0.0 && !owns_a) || (t == 1.0 && !owns_b) {
                    return None;
                }
                let to_wall = [a[0] + t * ab[0] - x[0], a[1] + t * ab[1] - x[1], 0.0];
                let distance = dot(to_wall, to_wall).sqrt();
                let n = if distance > 0.0 {
                    to_wall.map(|c| c / distance)
                } else {
                    unit([ab[1], -ab[0], 0.0])
                };
                Some((distance - radius, n))
            }
        }
    }
}
