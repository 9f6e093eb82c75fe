//! The frictional contact problem of a step, solved contact-parallel by graph-coloured
//! NSGS in velocity form: no global Delassus matrix, but the invariant v = v_free + M⁻¹Hᵀr,
//! so that contact c's local problem is u_c = W_cc r_c + q̃_c with q̃_c = H_c v + ê_c − W_cc r_c
//! (Siconos's `fc3d_local_problem_compute_q`: q_c + Σ_{d≠c} W_cd r_d, the shared bodies carrying
//! the coupling; Chrono's `ChSolverPSOR` and LMGC90's `nlgs` keep the same invariant). The local
//! solve is the scene-parallel engine's ([`super::local`]), exact for the
//! diagonal blocks of discs and spheres.

use std::ops::Range;

use rayon::prelude::*;

use super::bodies::{Bodies, Dimension};
use super::broad_phase::Pair;
use super::local::local_impulse;
use super::narrow_phase::{Contact, Moving, apply_impulse, kick, relative_velocity};
use super::packed::{Packed, Shared, tile};
use super::residual::{blocked_sum, error, light_error, square};
use crate::batch::cpu::simd::Simd;

/// When the sweeps stop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverOptions {
    /// Siconos's relative natural-map error to reach (default 1e-6).
    pub tolerance: f64,
    /// The sweep cap (default 1000; at least one sweep is made): a capped step is recorded
    /// with its residual, not an error.
    pub max_sweeps: usize,
    /// Start from the impulses of the same pairs at the previous step, carried in the world
    /// frame (default true); false starts from zero, as Siconos does.
    pub warm_start: bool,
}

impl Default for SolverOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-6,
            max_sweeps: 1000,
            warm_start: true,
        }
    }
}

/// How a step's solve ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweeps {
    /// Sweeps done.
    pub sweeps: usize,
    /// Siconos's relative error after the last (0 with no active contact).
    pub residual: f64,
    /// Whether it reached the tolerance (or the natural map is within rounding of the
    /// velocities, [`error`]).
    pub converged: bool,
}

/// The velocity iterate of the sweeps and the bodies it belongs to.
pub struct Velocities<'a> {
    /// The bodies (their v and ω are v_k, read only).
    pub bodies: &'a Bodies,
    /// v, starting at v_free.
    pub v: &'a mut [[f64; 3]],
    /// ω, starting at ω_k (no torque acts but the contacts').
    pub omega: &'a mut [[f64; 3]],
}

/// The contacts in sweep order: the colours as ranges of `contacts`, the overflow last.
pub struct Coloured<'a> {
    /// All candidate contacts, sorted by (colour, pair key).
    pub contacts: &'a mut [Contact],
    /// Each colour's range, in order; the last may be the overflow colour.
    pub colours: &'a [Range<usize>],
    /// Whether the last range is the overflow colour, swept sequentially.
    pub overflow: bool,
}

/// v += M⁻¹Hᵀr for every active contact's (warm-started) r, in sweep order.
pub fn warm_start(state: &mut Velocities, contacts: &[Contact]) {
    for c in contacts.iter().filter(|c| c.active) {
        apply_impulse(state.bodies, state.v, state.omega, c, c.r);
    }
}

/// Contact c's new impulse given the others': with u = H_c v (from its bodies `i` and `j`,
/// `None` for a wall), [`local_impulse`] with the contact's target, impulse and law and the
/// block `w` (W_cc for NSGS, the split W̃_cc for [`super::jacobi`]).
#[inline(always)]
pub fn local_solve(dimension: Dimension, c: &Contact, i: &Moving, j: Option<&Moving>, w: [f64; 2]) -> [f64; 3] {
    let u = relative_velocity(c, i, j);
    local_impulse(dimension, u, (c.target, c.r), (w, c.law.mu()))
}

/// NSGS's update of one active contact: its new impulse by [`local_solve`] with its block
/// W_cc, then its bodies' velocities kicked by the change Δr; returns the light error's terms
/// (‖Δr‖², ‖r‖²).
#[inline(always)]
pub(super) fn relax(dimension: Dimension, c: &mut Contact, i: &mut Moving, j: Option<&mut Moving>) -> [f64; 2] {
    let r = local_solve(dimension, c, i, j.as_deref(), c.w);
    let d = [r[0] - c.r[0], r[1] - c.r[1], r[2] - c.r[2]];
    c.r = r;
    kick(c, i, j, d);
    [square(d), square(r)]
}

/// The two bodies of `pair` in `bodies` (the second `None` for a wall).
#[inline(always)]
pub fn ends(bodies: &mut [Moving], pair: Pair) -> (&mut Moving, Option<&mut Moving>) {
    let (i, j) = (pair.i as usize, pair.j as usize);
    let (low, high) = bodies.split_at_mut(i + 1);
    (&mut low[i], high.get_mut(j.wrapping_sub(i + 1)))
}

/// One NSGS sweep: a colour's contacts share no body, so they solve their local problems
/// and kick their bodies at once — [`WIDTH`](super::packed::WIDTH) at a time in the lanes of
/// a block of `packed` ([`Packed`]), the blocks in parallel, colour after colour or by strips
/// of body ids ([`Packed::relax_sweep`]); the overflow colour is swept last, one contact at a
/// time (`relax`). The result is the sequential
/// sweep in (colour, pair key) order, bit for bit, on any number of threads and instruction
/// set `simd`. Returns Siconos's light error terms (Σ‖Δr_c‖², Σ‖r_c‖²) over the active
/// contacts: each contact's pair goes to `terms` as it is relaxed (an inactive one's must be
/// zero), and [`blocked_sum`] adds them, so that the sum reads 16 bytes per contact rather
/// than the contacts again. `packed` must hold `coloured`'s proper colours, checked by
/// [`check_colours`] (private: a safe caller could race on an improper colouring); the packed
/// contacts' r stay there until [`Packed::unpack`].
fn sweep(
    (bodies, simd): (&mut [Moving], Simd),
    dimension: Dimension,
    (coloured, packed): (&mut Coloured, &mut Packed),
    terms: &mut [[f64; 2]],
) -> [f64; 2] {
    let proper = coloured.colours.len() - usize::from(coloured.overflow);
    // SAFETY: a colour's contacts share no body (checked by the caller) and each is in one
    // block.
    unsafe { packed.relax_sweep(simd, dimension, (&Shared::new(bodies), &Shared::new(terms))) };
    if coloured.overflow {
        let range = coloured.colours[proper].clone();
        let contacts = coloured.contacts[range.clone()].iter_mut();
        for (c, t) in contacts.zip(&mut terms[range]).filter(|(c, _)| c.active) {
            let (i, j) = ends(bodies, c.pair);
            *t = relax(dimension, c, i, j);
        }
    }
    blocked_sum(terms.len(), |k| terms[k])
}

/// Refuses colours in which two contacts share a body (the overflow colour may) and pairs
/// that are not (i, j) with i < j, i one of the `bodies`, naming the colour or pair and the
/// body; `stamps` is scratch.
pub fn check_colours(coloured: &Coloured, bodies: usize, stamps: &mut Vec<usize>) -> crate::Result<()> {
    stamps.clear();
    stamps.resize(bodies, usize::MAX);
    let proper = coloured.colours.len() - usize::from(coloured.overflow);
    for (k, range) in coloured.colours.iter().enumerate() {
        for c in &coloured.contacts[range.clone()] {
            let (i, j) = (c.pair.i as usize, c.pair.j as usize);
            if i >= j || i >= bodies {
                return Err(crate::Error::Unsupported {
                    what: format!("large scene: contact ({i}, {j})"),
                    reason: format!("a pair is (i, j) with i < j and i one of the {bodies} bodies"),
                });
            }
            for body in [i, j].into_iter().filter(|&b| b < bodies && k < proper) {
                if stamps[body] == k {
                    return Err(crate::Error::Unsupported {
                        what: format!("large scene: colour {k} of the contacts"),
                        reason: format!("two of its contacts share body {body} (the second is ({i}, {j}))"),
                    });
                }
                stamps[body] = k;
            }
        }
    }
    Ok(())
}

/// The stages of a step that an engine may run elsewhere than the host's arrays — the broad
/// phase's pairs and colours, and `solve`: sweeps until the tolerance or the cap
/// ([`CpuSolver`] on the CPU; the large-scene kernels on a device).
pub trait ContactSolver: Send {
    /// The engine, as runs name it (e.g. `large-scene cpu`).
    fn name(&self) -> String;

    /// The broad phase's stage `pairs`: the candidate pairs within `margin`, sorted by key,
    /// [`super::broad_phase::candidate_pairs`]'s (a device engine finds the same pairs there).
    fn pairs(&mut self, bodies: &super::Bodies, walls: &[super::Wall], margin: f64) -> crate::Result<Vec<Pair>> {
        super::broad_phase::candidate_pairs(bodies, walls, margin)
    }

    /// The broad phase's stage `colour`: each candidate pair's colour among `bodies` bodies,
    /// [`super::colouring::greedy`]'s (a device engine computes the same colours there).
    fn colour(&mut self, pairs: &[Pair], bodies: usize) -> crate::Result<Vec<u32>> {
        Ok(super::colouring::greedy(pairs, bodies))
    }

    /// Solves the step's problem from the warm-started `state` and impulses, leaving v, ω
    /// and each contact's r at the last sweep's.
    fn solve(
        &mut self,
        state: &mut Velocities,
        coloured: &mut Coloured,
        options: &SolverOptions,
    ) -> crate::Result<Sweeps>;
}

/// The CPU twin of the sweeps on all cores: coloured NSGS (`sweep`, the colours' contacts
/// packed in lanes) repeated by [`iterate`], with its buffers.
#[derive(Clone, Debug)]
pub struct CpuSolver {
    /// Each contact's light error terms (‖Δr‖², ‖r‖²) at the last sweep.
    terms: Vec<[f64; 2]>,
    bodies: Vec<Moving>,
    stamps: Vec<usize>,
    packed: Packed,
    simd: Simd,
}

impl Default for CpuSolver {
    /// On [`Simd::detect`]'s instruction set.
    fn default() -> Self {
        Self::on(Simd::detect())
    }
}

impl CpuSolver {
    /// The sweeps' lanes compiled for `simd` (every instruction set gives the same bits).
    pub fn on(simd: Simd) -> Self {
        Self {
            terms: Vec::new(),
            bodies: Vec::new(),
            stamps: Vec::new(),
            packed: Packed::default(),
            simd,
        }
    }

    /// The instruction set its sweeps run on.
    pub fn simd(&self) -> Simd {
        self.simd
    }
}

/// [`CpuSolver`]'s sweeps, on its buffers.
struct Nsgs<'a> {
    terms: &'a mut [[f64; 2]],
    packed: &'a mut Packed,
    simd: Simd,
    dimension: Dimension,
}

impl Sweep for Nsgs<'_> {
    fn sweep(&mut self, bodies: &mut [Moving], coloured: &mut Coloured) -> [f64; 2] {
        sweep((bodies, self.simd), self.dimension, (coloured, self.packed), self.terms)
    }

    fn settle(&mut self, coloured: &mut Coloured) {
        self.packed.unpack(coloured.contacts);
    }
}

impl ContactSolver for CpuSolver {
    fn name(&self) -> String {
        "large-scene cpu".into()
    }

    /// Refuses an improper colouring ([`check_colours`]; the parallel sweep relies on it),
    /// then sweeps until the tolerance or the cap.
    fn solve(
        &mut self,
        state: &mut Velocities,
        coloured: &mut Coloured,
        options: &SolverOptions,
    ) -> crate::Result<Sweeps> {
        check_colours(coloured, state.bodies.len(), &mut self.stamps)?;
        // (zero for the inactive contacts, which no sweep visits)
        self.terms.clear();
        self.terms.resize(coloured.contacts.len(), [0.0; 2]);
        let proper = coloured.colours.len() - usize::from(coloured.overflow);
        let colours = &coloured.colours[..proper];
        let n = state.bodies.len();
        self.packed.pack(coloured.contacts, colours, n, tile(n));
        let nsgs = Nsgs {
            terms: &mut self.terms,
            packed: &mut self.packed,
            simd: self.simd,
            dimension: state.bodies.dimension,
        };
        Ok(iterate(state, &mut self.bodies, coloured, options, nsgs))
    }
}

/// What [`iterate`] repeats: one sweep, and what makes the contacts' impulses the sweeps'
/// before the error reads them.
pub trait Sweep: Send {
    /// One sweep over the active contacts of `coloured` on `bodies`; returns the light
    /// error's terms (Σ‖Δr_c‖², Σ‖r_c‖²).
    fn sweep(&mut self, bodies: &mut [Moving], coloured: &mut Coloured) -> [f64; 2];

    /// Leaves each contact's r in `coloured` the last sweep's (the sweeps keep them in their
    /// packed blocks).
    fn settle(&mut self, coloured: &mut Coloured);
}

/// Repeats `sweep` on the bodies gathered from `state` ([`Moving`], in `bodies`) until
/// [`error`] ≤ the tolerance or the cap, as Siconos's `fc3d_nsgs`: after each sweep the light
/// error √(Σ‖Δr‖²)/‖r‖ (from the sums `sweep` returns) is compared with the tolerance, and
/// only when it is within is the full error computed (after [`Sweep::settle`]) and tested (and
/// once at the cap, to report); then the velocities go back to `state`. With no active
/// contact, no sweep.
///
/// The sweeps run inside one task of rayon's pool: each colour's parallel loop then starts
/// from a worker thread, instead of handing its work to the pool and sleeping on it (a
/// futex round trip per colour and sweep, which cost more than the sweeps on small scenes).
pub fn iterate(
    state: &mut Velocities,
    bodies: &mut Vec<Moving>,
    coloured: &mut Coloured,
    options: &SolverOptions,
    sweep: impl Sweep,
) -> Sweeps {
    rayon::scope(|_| iterate_in_pool(state, bodies, coloured, options, sweep))
}

fn iterate_in_pool(
    state: &mut Velocities,
    bodies: &mut Vec<Moving>,
    coloured: &mut Coloured,
    options: &SolverOptions,
    mut sweep: impl Sweep,
) -> Sweeps {
    if !coloured.contacts.iter().any(|c| c.active) {
        return Sweeps {
            sweeps: 0,
            residual: 0.0,
            converged: true,
        };
    }
    let (b, dimension) = (state.bodies, state.bodies.dimension);
    bodies.clear();
    bodies.par_extend(
        (0..b.len())
            .into_par_iter()
            .map(|k| Moving::of(b, state.v, state.omega, k)),
    );
    let cap = options.max_sweeps.max(1);
    let mut result = None;
    for k in 1..=cap {
        let light = light_error(sweep.sweep(bodies, coloured));
        if light <= options.tolerance || k == cap {
            sweep.settle(coloured);
            let (residual, rounding) = error(bodies, dimension, coloured.contacts);
            let converged = residual <= options.tolerance || rounding;
            if converged || k == cap {
                result = Some(Sweeps {
                    sweeps: k,
                    residual,
                    converged,
                });
                break;
            }
        }
    }
    (state.v.par_iter_mut(), state.omega.par_iter_mut())
        .into_par_iter()
        .zip(&*bodies)
        .for_each(|((v, omega), m)| (*v, *omega) = (m.v, m.omega));
    result.expect("the last sweep sets it")
}
