//! The narrow phase: each candidate pair's gap, contact frame, local Delassus block and
//! Newton target for the step, and the contact's H (body velocities → local velocity) and
//! Hᵀ (local impulse → body velocities).
//!
//! For discs and spheres the normal passes through the centres, so the local block
//! W_cc = H_ci M_i⁻¹ H_ciᵀ + H_cj M_j⁻¹ H_cjᵀ is diagonal: w_N = 1/m_i + 1/m_j on the normal,
//! w_T = w_N + R_i²/I_i + R_j²/I_j on each tangent (a wall adds nothing).

use super::bodies::{Bodies, Dimension};
use super::broad_phase::Pair;
use super::walls::Wall;
use crate::contact::vector::{cross, dot, ortho_tangent};
use crate::model::NewtonImpactFrictionNSL;

/// One candidate contact during a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Its bodies (or body and wall).
    pub pair: Pair,
    /// The gap g at the start of the step (m; < 0: penetration).
    pub gap: f64,
    /// The frame [n, t₁, t₂]: n the unit normal from body i to j (or to the wall), t₁ =
    /// (−n_y, n_x) in 2-D, (t₁, t₂) Siconos's `orthoBaseFromVector` of n in 3-D.
    pub frame: [[f64; 3]; 3],
    /// w_N and w_T of the diagonal local block.
    pub w: [f64; 2],
    /// The contact's law (e_N, e_T, μ): the grains' or the wall's.
    pub law: NewtonImpactFrictionNSL,
    /// ê = (e_N u_N,k, e_T u_T,k): the Newton law's term from the velocity at the start of
    /// the step, each where its coefficient is positive.
    pub target: [f64; 3],
    /// Siconos's q = H v_free + ê, the scale of the solver's error.
    pub q: [f64; 3],
    /// The local impulse r = (r_N, r_T) in the frame.
    pub r: [f64; 3],
    /// Whether the contact takes part in the step: g + γ h u_N,k ≤ 0.
    pub active: bool,
}

impl Contact {
    /// A candidate as the broad phase or a restored state leaves it: `pair` carrying the
    /// impulse `r` in `frame` (what the next narrow phase turns into its warm start), under
    /// `law`, with no geometry yet.
    pub fn carried(pair: Pair, frame: [[f64; 3]; 3], r: [f64; 3], law: NewtonImpactFrictionNSL) -> Self {
        Self {
            pair,
            gap: 0.0,
            frame,
            w: [0.0; 2],
            law,
            target: [0.0; 3],
            q: [0.0; 3],
            r,
            active: false,
        }
    }
}

/// The state a step of the narrow phase reads: the bodies, walls, the grains' law.
pub struct Geometry<'a> {
    /// The bodies, at the start of the step.
    pub bodies: &'a Bodies,
    /// The walls.
    pub walls: &'a [Wall],
    /// The law of grain–grain contacts.
    pub grains: NewtonImpactFrictionNSL,
}

impl Geometry<'_> {
    /// The contact of `pair` at the bodies' current positions and velocities v_k, with the
    /// predictor γ h and r = 0: gap, frame, block, law, target and activation (q is set
    /// later, from the free velocity).
    pub fn contact(&self, pair: Pair, gamma_h: f64) -> Contact {
        let b = self.bodies;
        let n_bodies = b.len();
        let (i, j) = (pair.i as usize, pair.j as usize);
        let (gap, normal, law, mut w_n, mut w_t) = if j < n_bodies {
            let d = b.separation(i, j);
            let distance = dot(d, d).sqrt();
            let n = if distance > 0.0 {
                d.map(|c| c / distance)
            } else {
                [1.0, 0.0, 0.0]
            };
            let wj = b.inverse_mass(j);
            (
                distance - b.radius[i] - b.radius[j],
                n,
                self.grains,
                wj,
                wj + b.spin_compliance(j),
            )
        } else {
            let wall = &self.walls[j - n_bodies];
            // A candidate whose nearest point moved to an end it does not own is out of
            // reach of this wall: the neighbouring segment carries the contact.
            let (g, n) = wall
                .shape
                .contact(b.x[i], b.radius[i])
                .unwrap_or((f64::INFINITY, [1.0, 0.0, 0.0]));
            (g, n, wall.law, 0.0, 0.0)
        };
        w_n += b.inverse_mass(i);
        w_t += b.inverse_mass(i) + b.spin_compliance(i);
        let frame = match b.dimension {
            Dimension::Two => [normal, [-normal[1], normal[0], 0.0], [0.0; 3]],
            Dimension::Three => [normal, ortho_tangent(normal, 0), ortho_tangent(normal, 1)],
        };
        let mut contact = Contact {
            pair,
            gap,
            frame,
            w: [w_n, w_t],
            law,
            target: [0.0; 3],
            q: [0.0; 3],
            r: [0.0; 3],
            active: false,
        };
        let u = local_velocity(b, &b.v, &b.omega, &contact);
        contact.active = gap + gamma_h * u[0] <= 0.0;
        let (e_n, e_t) = (law.e_n(), law.e_t());
        contact.target = [
            if e_n > 0.0 { e_n * u[0] } else { 0.0 },
            if e_t > 0.0 { e_t * u[1] } else { 0.0 },
            if e_t > 0.0 { e_t * u[2] } else { 0.0 },
        ];
        contact
    }
}

/// A body as a contact's H and M⁻¹ see it: its velocity v and spin ω with the constants
/// 1/m, R/I and R — what a sweep reads and writes per body, side by side in memory.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Moving {
    /// v (m/s).
    pub v: [f64; 3],
    /// ω (rad/s).
    pub omega: [f64; 3],
    /// 1/m ([`Bodies::inverse_mass`]).
    pub inverse_mass: f64,
    /// R/I ([`Bodies::spin_per_impulse`]).
    pub spin_per_impulse: f64,
    /// R (m).
    pub radius: f64,
}

/// Which end of a contact a body is: i, its contact point at +R n and taking −P, or j, at
/// −R n and taking +P.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The first body of the pair.
    I,
    /// The second body (a wall has no velocity and takes nothing: its callers pass a zero
    /// velocity and no kick for it).
    J,
}

impl Moving {
    /// Body k of `b` moving at `v[k]`, `omega[k]`.
    #[inline(always)]
    pub fn of(b: &Bodies, v: &[[f64; 3]], omega: &[[f64; 3]], k: usize) -> Self {
        Self {
            v: v[k],
            omega: omega[k],
            inverse_mass: b.inverse_mass(k),
            spin_per_impulse: b.spin_per_impulse(k),
            radius: b.radius[k],
        }
    }

    /// The velocity v + s R ω × n of its contact point on the normal n, s = +1 at `end` i
    /// and −1 at j (±R, which is the kernel's R · (±1) for every R but a NaN).
    #[inline(always)]
    pub fn point(&self, n: [f64; 3], end: End) -> [f64; 3] {
        let spin = cross(self.omega, n);
        let r = match end {
            End::I => self.radius,
            End::J => -self.radius,
        };
        [
            self.v[0] + r * spin[0],
            self.v[1] + r * spin[1],
            self.v[2] + r * spin[2],
        ]
    }

    /// v += s P/m, ω −= (R/I) τ for the world impulse P and its moment τ = n × P, s = −1 at
    /// `end` i and +1 at j.
    #[inline(always)]
    pub fn kick(&mut self, (p, torque): ([f64; 3], [f64; 3]), end: End) {
        let w = match end {
            End::I => -self.inverse_mass,
            End::J => self.inverse_mass,
        };
        let s = self.spin_per_impulse;
        for a in 0..3 {
            self.v[a] += w * p[a];
            self.omega[a] -= s * torque[a];
        }
    }
}

/// u = H_c v from the velocities of the contact points, `pi` of body i and `pj` of body j
/// (zero for a wall): with s = pj − pi, u_N = n·s (the spins give no normal term),
/// u_Tk = t_k·s, in `frame` = [n, t₁, t₂] (u_T₂ = 0 in 2-D).
#[inline(always)]
pub fn frame_velocity(frame: &[[f64; 3]; 3], pi: [f64; 3], pj: [f64; 3]) -> [f64; 3] {
    let s = [pj[0] - pi[0], pj[1] - pi[1], pj[2] - pi[2]];
    [dot(frame[0], s), dot(frame[1], s), dot(frame[2], s)]
}

/// The world impulse P = r_N n + r_T₁ t₁ + r_T₂ t₂ of the local impulse r in `frame` =
/// [n, t₁, t₂], and τ = n × P (the moment of P applied at ±R n is ±R τ): what [`Moving::kick`]
/// applies.
#[inline(always)]
pub fn push(frame: &[[f64; 3]; 3], r: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let [n, t1, t2] = *frame;
    let p: [f64; 3] = std::array::from_fn(|k| r[0] * n[k] + r[1] * t1[k] + r[2] * t2[k]);
    (p, cross(n, p))
}

/// u = H_c v: the contact's local velocity (u_N, u_T₁, u_T₂) from the relative velocity of
/// its contact points, s = (v_j − R_j ω_j × n) − (v_i + R_i ω_i × n) (a wall's is zero, `j` =
/// `None`), by [`frame_velocity`].
#[inline(always)]
pub fn relative_velocity(c: &Contact, i: &Moving, j: Option<&Moving>) -> [f64; 3] {
    let n = c.frame[0];
    let pj = j.map_or([0.0; 3], |j| j.point(n, End::J));
    frame_velocity(&c.frame, i.point(n, End::I), pj)
}

/// v += M⁻¹ H_cᵀ Δr: the world impulse P of Δr ([`push`]) acts on body j and −P on body i
/// (Δv = ±P/m), and both spin by Δω = −(R/I) n × P (a wall, `j` = `None`, takes nothing).
#[inline(always)]
pub fn kick(c: &Contact, i: &mut Moving, j: Option<&mut Moving>, dr: [f64; 3]) {
    let pushed = push(&c.frame, dr);
    i.kick(pushed, End::I);
    if let Some(j) = j {
        j.kick(pushed, End::J);
    }
}

/// [`relative_velocity`] of contact c with its bodies' velocities in the arrays `v`, `omega`.
#[inline(always)]
pub fn local_velocity(b: &Bodies, v: &[[f64; 3]], omega: &[[f64; 3]], c: &Contact) -> [f64; 3] {
    let (i, j) = (c.pair.i as usize, c.pair.j as usize);
    let j = (j < b.len()).then(|| Moving::of(b, v, omega, j));
    relative_velocity(c, &Moving::of(b, v, omega, i), j.as_ref())
}

/// [`kick`] on the bodies' velocities in the arrays `v`, `omega`.
#[inline(always)]
pub fn apply_impulse(b: &Bodies, v: &mut [[f64; 3]], omega: &mut [[f64; 3]], c: &Contact, dr: [f64; 3]) {
    let (i, j) = (c.pair.i as usize, c.pair.j as usize);
    let mut mi = Moving::of(b, v, omega, i);
    let mut mj = (j < b.len()).then(|| Moving::of(b, v, omega, j));
    kick(c, &mut mi, mj.as_mut(), dr);
    (v[i], omega[i]) = (mi.v, mi.omega);
    if let Some(mj) = mj {
        (v[j], omega[j]) = (mj.v, mj.omega);
    }
}

/// The world impulse P = r_N n + r_T₁ t₁ + r_T₂ t₂ the contact gives body j (and −P body i).
pub fn world_impulse(c: &Contact) -> [f64; 3] {
    push(&c.frame, c.r).0
}
