//! [`LargeScene`]: the bodies, walls and laws of one large scene, its Moreau–Jean step as
//! named stages, and what each step reports.

use std::ops::Range;

use rayon::prelude::*;

use super::bodies::Bodies;
use super::broad_phase::{Pair, candidate_pairs};
use super::colouring::COLOURS;
use super::narrow_phase::{Contact, Geometry, world_impulse};
use super::plane::in_plane;
use super::solve::{Coloured, ContactSolver, CpuSolver, SolverOptions, Velocities, warm_start};
use super::walls::Wall;
use crate::contact::vector::dot;
use crate::model::NewtonImpactFrictionNSL;
use crate::validate;
use crate::{Error, Result};

/// The world frame, in which a rebuilt pair carries its last world impulse.
const IDENTITY: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// What one step did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepReport {
    /// Candidate pairs (within the margin at the last rebuild).
    pub candidates: usize,
    /// Active contacts (g + γ h u_N,k ≤ 0).
    pub active: usize,
    /// Colours of the candidates (the overflow counted as one).
    pub colours: usize,
    /// NSGS sweeps.
    pub sweeps: usize,
    /// Siconos's relative error after the last sweep.
    pub residual: f64,
    /// Whether the solve met the tolerance.
    pub converged: bool,
    /// The largest penetration −g among the candidates at the start of the step (m, ≥ 0).
    pub max_penetration: f64,
    /// Whether the broad phase ran this step.
    pub rebuilt: bool,
    /// Bodies discharged through the sink so far.
    pub discharged: usize,
}

/// One scene of many discs or spheres among static walls, stepped by Moreau–Jean
/// (θ-method, activation g + γ h u_N,k ≤ 0, Newton's impact law with Coulomb friction), its
/// contacts solved by graph-coloured NSGS ([`super::solve`]).
#[derive(Clone, Debug)]
pub struct LargeScene {
    /// The bodies: state at time [`Self::time`].
    pub bodies: Bodies,
    /// The static walls.
    pub walls: Vec<Wall>,
    /// The law of grain–grain contacts (a wall's contacts take the wall's).
    pub grains: NewtonImpactFrictionNSL,
    /// The gravity g (m/s²).
    pub gravity: [f64; 3],
    /// The time step h (s).
    pub h: f64,
    /// θ of the position update x_{k+1} = x_k + h (θ v_{k+1} + (1 − θ) v_k) (default 1, for
    /// which E never increases at e = 0; Acary, ZAMM 96:585, 2016).
    pub theta: f64,
    /// γ of the activation predictor (default ½, Siconos's).
    pub gamma: f64,
    /// The broad phase's margin δ (m; default a tenth of the largest radius).
    pub margin: f64,
    /// When the sweeps stop.
    pub solver: SolverOptions,
    /// A sink: a body whose centre ends a step below this height (along −g's axis: y in 2-D,
    /// z in 3-D) leaves the scene, discharged ([`Bodies::present`]); none by default.
    pub sink: Option<f64>,
    /// The time t_k (s).
    pub time: f64,
    /// Steps taken.
    pub steps: u64,
    pub(super) contacts: Vec<Contact>,
    pub(super) colours: Vec<Range<usize>>,
    pub(super) overflow: bool,
    pub(super) rebuilt_at: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    omega: Vec<[f64; 3]>,
    cpu: CpuSolver,
}

impl LargeScene {
    /// A scene at t = 0, checking h > 0, that no two bodies overlap (through the period, if
    /// any) and no body crosses a wall (each named, with by how much), that centres lie in
    /// the period, and in 2-D that nothing moves a disc out of its plane z = 0 (a gravity, a
    /// wall or a disc's velocity out of it is refused by name; a −0 there becomes +0).
    pub fn new(
        mut bodies: Bodies,
        walls: Vec<Wall>,
        grains: NewtonImpactFrictionNSL,
        gravity: [f64; 3],
        h: f64,
    ) -> Result<Self> {
        validate::positive("large scene: time step h", h)?;
        if !gravity.iter().all(|g| g.is_finite()) {
            return Err(Error::NonFinite {
                what: "large scene: gravity".into(),
            });
        }
        in_plane(bodies.dimension, gravity, &walls, (&mut bodies.v, &mut bodies.omega))?;
        if let Some(l) = bodies.period {
            validate::positive("large scene: period", l)?;
            let body = bodies.dimension.body();
            if let Some(k) = bodies.x.iter().position(|x| !(0.0..l).contains(&x[0])) {
                return Err(Error::Unsupported {
                    what: format!("large scene: {body} {k} at x = {}", bodies.x[k][0]),
                    reason: format!("centres must lie in the period [0, {l})"),
                });
            }
        }
        let margin = 0.1 * bodies.max_radius();
        let scene = Self {
            rebuilt_at: bodies.x.clone(),
            v: bodies.v.clone(),
            omega: bodies.omega.clone(),
            bodies,
            walls,
            grains,
            gravity,
            h,
            theta: 1.0,
            gamma: 0.5,
            margin,
            solver: SolverOptions::default(),
            sink: None,
            time: 0.0,
            steps: 0,
            contacts: Vec::new(),
            colours: Vec::new(),
            overflow: false,
            cpu: CpuSolver::default(),
        };
        scene.check_overlaps()?;
        Ok(scene)
    }

    /// Refuses bodies that overlap each other or cross a wall by more than 10⁻⁹ of the
    /// largest radius (touching is allowed).
    fn check_overlaps(&self) -> Result<()> {
        let b = &self.bodies;
        let n = b.len();
        let slack = 1e-9 * b.max_radius();
        let geometry = self.geometry();
        for pair in candidate_pairs(b, &self.walls, 0.0)? {
            let c = geometry.contact(pair, 0.0);
            if c.gap < -slack {
                let (body, i, j) = (b.dimension.body(), pair.i, pair.j as usize);
                let other = if j < n {
                    format!("{body} {j}")
                } else {
                    format!("wall {}", j - n)
                };
                return Err(Error::Unsupported {
                    what: format!("large scene at t = 0: {body} {i} and {other}"),
                    reason: format!("overlap by {:e} m (bodies must not interpenetrate)", -c.gap),
                });
            }
        }
        Ok(())
    }

    fn geometry(&self) -> Geometry<'_> {
        Geometry {
            bodies: &self.bodies,
            walls: &self.walls,
            grains: self.grains,
        }
    }

    /// The candidate contacts of the last step, in sweep order (colour, pair key), with
    /// their impulses r.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Advances one step h: `broad_phase` (when due) → `narrow_phase` → `free_velocity` →
    /// `warm_start` → `solve` → `update_position` → `discharge`, solving on the CPU on all
    /// cores.
    pub fn step(&mut self) -> Result<StepReport> {
        let empty = CpuSolver::on(self.cpu.simd());
        let mut cpu = std::mem::replace(&mut self.cpu, empty);
        let report = self.step_on(&mut cpu);
        self.cpu = cpu;
        report
    }

    /// [`Self::step`] with the stage `solve` on `solver` (e.g. the large-scene kernel).
    pub fn step_on(&mut self, solver: &mut dyn ContactSolver) -> Result<StepReport> {
        let rebuilt = self.rebuild_due();
        if rebuilt {
            self.broad_phase(solver)?;
        }
        let max_penetration = self.narrow_phase();
        self.free_velocity();
        let mut state = Velocities {
            bodies: &self.bodies,
            v: &mut self.v,
            omega: &mut self.omega,
        };
        warm_start(&mut state, &self.contacts);
        let mut coloured = Coloured {
            contacts: &mut self.contacts,
            colours: &self.colours,
            overflow: self.overflow,
        };
        let sweeps = solver.solve(&mut state, &mut coloured, &self.solver)?;
        self.update_position();
        self.discharge();
        Ok(StepReport {
            candidates: self.contacts.len(),
            active: self.contacts.iter().filter(|c| c.active).count(),
            colours: self.colours.len(),
            sweeps: sweeps.sweeps,
            residual: sweeps.residual,
            converged: sweeps.converged,
            max_penetration,
            rebuilt,
            discharged: self.bodies.discharged(),
        })
    }

    /// Stage `discharge`: a body present whose centre is below the sink leaves the scene,
    /// at rest where it is.
    fn discharge(&mut self) {
        let Some(sink) = self.sink else { return };
        let up = self.bodies.dimension.rows() - 1;
        let b = &mut self.bodies;
        for k in 0..b.len() {
            if b.present[k] && b.x[k][up] < sink {
                b.present[k] = false;
                b.v[k] = [0.0; 3];
                b.omega[k] = [0.0; 3];
            }
        }
    }

    /// Whether a pair outside the candidates could touch during this step
    /// ([`Self::may_close`] of the largest displacement since the rebuild and the largest
    /// speed), or a body's x, v or ω is not finite (the broad phase then names it).
    pub(super) fn rebuild_due(&self) -> bool {
        if self.steps == 0 {
            return true;
        }
        let b = &self.bodies;
        let (moved, speed, finite) = (0..b.len())
            .into_par_iter()
            .map(|k| {
                let (x, y) = (b.x[k], self.rebuilt_at[k]);
                let d = b.nearest_image([x[0] - y[0], x[1] - y[1], x[2] - y[2]]);
                let finite = [x, b.v[k], b.omega[k]].iter().flatten().all(|c| c.is_finite());
                (dot(d, d).sqrt(), dot(b.v[k], b.v[k]).sqrt(), finite)
            })
            .reduce(|| (0.0, 0.0, true), |a, c| (a.0.max(c.0), a.1.max(c.1), a.2 && c.2));
        !finite || self.may_close(moved, speed)
    }

    /// Whether two bodies out of reach at the broad phase may touch during this step when
    /// none moved farther than `moved` since then nor moves faster than `speed`: the broad
    /// phase's pairs had g > δ, and two bodies close at most 2 (d_max + h v_max) ≥ δ.
    pub(super) fn may_close(&self, moved: f64, speed: f64) -> bool {
        2.0 * (moved + self.h * speed) >= self.margin
    }

    /// Stage `broad_phase`: the candidate pairs found by `solver` ([`ContactSolver::pairs`],
    /// sorted by key), coloured by it (greedily in priority order, [`ContactSolver::colour`])
    /// and ordered by (colour, key) — counted into their colours in key order; each keeps its
    /// pair's world impulse from the last step (matched by key) for the warm start.
    pub(super) fn broad_phase(&mut self, solver: &mut dyn ContactSolver) -> Result<()> {
        let pairs = solver.pairs(&self.bodies, &self.walls, self.margin)?;
        debug_assert!(pairs.windows(2).all(|p| p[0] < p[1]), "pairs sorted by key");
        let colour = solver.colour(&pairs, self.bodies.len())?;
        let mut old: Vec<(Pair, [f64; 3])> = self.contacts.iter().map(|c| (c.pair, world_impulse(c))).collect();
        old.par_sort_unstable_by_key(|&(p, _)| p);
        let carried = carried_impulses(&pairs, &old);
        let n_colours = colour.iter().max().map_or(0, |&c| c as usize + 1);
        // Each colour's start in (colour, key) order.
        let mut start = vec![0; n_colours + 1];
        for &c in &colour {
            start[c as usize + 1] += 1;
        }
        for c in 0..n_colours {
            start[c + 1] += start[c];
        }
        self.colours = start.windows(2).map(|w| w[0]..w[1]).filter(|r| !r.is_empty()).collect();
        self.overflow = n_colours > COLOURS;
        let mut order = vec![0; pairs.len()];
        for (k, &c) in colour.iter().enumerate() {
            order[start[c as usize]] = k;
            start[c as usize] += 1;
        }
        let grains = self.grains;
        // The identity frame: r is the carried world impulse. (In the last step's allocation.)
        self.contacts.clear();
        self.contacts.par_extend(
            order
                .par_iter()
                .map(|&k| Contact::carried(pairs[k], IDENTITY, carried[k], grains)),
        );
        self.rebuilt_at.clone_from(&self.bodies.x);
        Ok(())
    }

    /// Stage `narrow_phase`: each candidate's gap, frame, block, target and activation at
    /// the start of the step; an active one starts from its last world impulse projected
    /// on the new frame (warm start) or zero. Returns the largest penetration.
    fn narrow_phase(&mut self) -> f64 {
        let gamma_h = self.gamma * self.h;
        let warm = self.solver.warm_start;
        let geometry = Geometry {
            bodies: &self.bodies,
            walls: &self.walls,
            grains: self.grains,
        };
        self.contacts.par_iter_mut().with_min_len(256).for_each(|c| {
            let carried = world_impulse(c);
            *c = geometry.contact(c.pair, gamma_h);
            if warm && c.active {
                c.r = c.frame.map(|axis| dot(axis, carried));
            }
        });
        // (+0 for a −0: the sign of max(0, −0) is open, here and on a device.)
        self.contacts.iter().fold(0.0f64, |a, c| a.max(-c.gap)) + 0.0
    }

    /// Stage `free_velocity`: v_free = v_k + h g (zero for a body no longer present),
    /// ω_free = ω_k; and each active contact's q = H v_free + ê.
    fn free_velocity(&mut self) {
        let (g, h) = (self.gravity, self.h);
        let present = &self.bodies.present;
        self.v
            .par_iter_mut()
            .zip(&self.bodies.v)
            .zip(present)
            .for_each(|((v, vk), &here)| {
                *v = if here {
                    [vk[0] + h * g[0], vk[1] + h * g[1], vk[2] + h * g[2]]
                } else {
                    [0.0; 3]
                };
            });
        self.omega.clone_from(&self.bodies.omega);
        let (b, v, omega) = (&self.bodies, &self.v, &self.omega);
        self.contacts.par_iter_mut().with_min_len(256).for_each(|c| {
            let u = super::narrow_phase::local_velocity(b, v, omega, c);
            c.q = [u[0] + c.target[0], u[1] + c.target[1], u[2] + c.target[2]];
        });
    }

    /// Stage `update_position`: x_{k+1} = x_k + h (θ v_{k+1} + (1 − θ) v_k) (x wrapped into
    /// [0, L) along a period), a disc's θ the same with ω; then v_k ← v_{k+1}, t ← t + h.
    fn update_position(&mut self) {
        let (h, theta) = (self.h, self.theta);
        let b = &mut self.bodies;
        let advance = |x: f64, v0: f64, v1: f64| x + h * (theta * v1 + (1.0 - theta) * v0);
        let period = b.period;
        b.x.par_iter_mut().zip(&b.v).zip(&self.v).for_each(|((x, v0), v1)| {
            *x = std::array::from_fn(|k| advance(x[k], v0[k], v1[k]));
            if let Some(l) = period {
                x[0] = x[0].rem_euclid(l);
            }
        });
        b.angle
            .par_iter_mut()
            .zip(&b.omega)
            .zip(&self.omega)
            .for_each(|((a, w0), w1)| *a = advance(*a, w0[2], w1[2]));
        b.v.clone_from(&self.v);
        b.omega.clone_from(&self.omega);
        self.steps += 1;
        self.time = Self::time_after(self.steps, h);
    }
}

/// Each pair's world impulse in `old` (zero where it has none): both sorted by pair key, merged.
fn carried_impulses(pairs: &[Pair], old: &[(Pair, [f64; 3])]) -> Vec<[f64; 3]> {
    let mut at = 0;
    pairs
        .iter()
        .map(|&pair| {
            while at < old.len() && old[at].0 < pair {
                at += 1;
            }
            old.get(at).filter(|&&(p, _)| p == pair).map_or([0.0; 3], |&(_, r)| r)
        })
        .collect()
}
