//! Jacobi with mass splitting (Tonge, Benevolenski & Voroshilov, "Mass splitting for jitter-free
//! parallel rigid body simulation", ACM TOG 31(4), 2012): every contact solves its local
//! problem at once from the same velocities, needing no colouring. Each body b is split into
//! n_b sub-bodies of mass m_b/n_b, one per active contact (n_b its active contacts), so a
//! contact's block is W̃_cc = Σ_{b∈c} n_b H_cb M_b⁻¹ H_cbᵀ; the sub-bodies' velocities averaged
//! give back the full mass: v_b ← v_b + M_b⁻¹ Σ_{c∋b} H_cbᵀ Δr_c. By Cauchy–Schwarz W ⪯
//! blockdiag W̃ (so frictionless projected Jacobi converges); a fixed point solves the same
//! frictional contact problem as NSGS (with friction the solution need not be unique). Each body's increments are added in contact order:
//! the same bits on any number of threads.

use rayon::prelude::*;

use super::bodies::{Bodies, Dimension};
use super::narrow_phase::{Contact, Moving, kick};
use super::packed::{Packed, Shared};
use super::residual::blocked_sum;
use super::solve::{Coloured, ContactSolver, SolverOptions, Sweep, Sweeps, Velocities, ends, iterate};
use crate::batch::cpu::simd::Simd;

/// The stage `solve` as Jacobi with mass splitting on the CPU cores, with its buffers.
#[derive(Clone, Debug)]
pub struct JacobiSolver {
    bodies: Vec<Moving>,
    delta: Vec<[f64; 3]>,
    /// Each contact's light error terms (‖Δr‖², ‖r‖²) at the last sweep.
    terms: Vec<[f64; 2]>,
    split: Vec<[f64; 2]>,
    counts: Vec<u32>,
    packed: Packed,
    simd: Simd,
}

impl Default for JacobiSolver {
    /// On [`Simd::detect`]'s instruction set.
    fn default() -> Self {
        Self::on(Simd::detect())
    }
}

impl JacobiSolver {
    /// The blocks' lanes compiled for `simd` (every instruction set gives the same bits).
    pub fn on(simd: Simd) -> Self {
        Self {
            bodies: Vec::new(),
            delta: Vec::new(),
            terms: Vec::new(),
            split: Vec::new(),
            counts: Vec::new(),
            packed: Packed::default(),
            simd,
        }
    }
}

impl ContactSolver for JacobiSolver {
    fn name(&self) -> String {
        "large-scene cpu jacobi".into()
    }

    fn solve(
        &mut self,
        state: &mut Velocities,
        coloured: &mut Coloured,
        options: &SolverOptions,
    ) -> crate::Result<Sweeps> {
        let n = coloured.contacts.len();
        self.delta.resize(n, [0.0; 3]);
        // (zero for the inactive contacts, which no sweep visits)
        self.terms.clear();
        self.terms.resize(n, [0.0; 2]);
        self.split.resize(n, [0.0; 2]);
        split_blocks(state.bodies, coloured.contacts, &mut self.counts, &mut self.split);
        // (All the active contacts as one colour: Jacobi's solves only read the bodies.)
        let all = 0..n;
        self.packed.pack(
            coloured.contacts,
            std::slice::from_ref(&all),
            state.bodies.len(),
            usize::MAX,
        );
        self.packed.split(&self.split);
        let sweeps = JacobiSweeps {
            delta: &mut self.delta,
            terms: &mut self.terms,
            packed: &mut self.packed,
            simd: self.simd,
            dimension: state.bodies.dimension,
        };
        Ok(iterate(state, &mut self.bodies, coloured, options, sweeps))
    }
}

/// [`JacobiSolver`]'s sweeps, on its buffers.
struct JacobiSweeps<'a> {
    delta: &'a mut [[f64; 3]],
    terms: &'a mut [[f64; 2]],
    packed: &'a mut Packed,
    simd: Simd,
    dimension: Dimension,
}

impl Sweep for JacobiSweeps<'_> {
    fn sweep(&mut self, bodies: &mut [Moving], coloured: &mut Coloured) -> [f64; 2] {
        let buffers = (&mut *self.delta, &mut *self.terms);
        sweep(
            (bodies, self.simd),
            self.dimension,
            (coloured.contacts, self.packed),
            buffers,
        )
    }

    fn settle(&mut self, coloured: &mut Coloured) {
        self.packed.unpack(coloured.contacts);
    }
}

/// Each contact's split block w̃ = (Σ_{b∈c} n_b/m_b, Σ_{b∈c} n_b (1/m_b + R_b²/I_b)), n_b the
/// active contacts of body b (a wall is not split); `counts` is scratch.
pub fn split_blocks(b: &Bodies, contacts: &[Contact], counts: &mut Vec<u32>, split: &mut [[f64; 2]]) {
    counts.clear();
    counts.resize(b.len(), 0);
    for c in contacts.iter().filter(|c| c.active) {
        counts[c.pair.i as usize] += 1;
        if let Some(j) = counts.get_mut(c.pair.j as usize) {
            *j += 1;
        }
    }
    let counts = &*counts;
    split.par_iter_mut().zip(contacts).for_each(|(w, c)| {
        let part = |k: usize| {
            let n = f64::from(counts[k]);
            [n * b.inverse_mass(k), n * (b.inverse_mass(k) + b.spin_compliance(k))]
        };
        let (i, j) = (c.pair.i as usize, c.pair.j as usize);
        let [wn, wt] = part(i);
        *w = if j < b.len() {
            let [jn, jt] = part(j);
            [wn + jn, wt + jt]
        } else {
            [wn, wt]
        };
    });
}

/// One Jacobi sweep: every active contact's new impulse from the same v, ω with its split
/// block (in parallel, in the lanes of `packed`: all the active contacts, their blocks split,
/// [`Packed::split`]), then each Δr applied with the full masses in contact order. Returns
/// the light error terms (Σ‖Δr_c‖², Σ‖r_c‖²) summed by [`blocked_sum`] from `terms`, where
/// each active contact leaves its own as it solves (an inactive one's must be zero); each
/// Δr goes to `delta`; the impulses stay in `packed` until [`Packed::unpack`].
fn sweep(
    (bodies, simd): (&mut [Moving], Simd),
    dimension: Dimension,
    (contacts, packed): (&[Contact], &mut Packed),
    (delta, terms): (&mut [[f64; 3]], &mut [[f64; 2]]),
) -> [f64; 2] {
    let shared = (&Shared::new(bodies), &Shared::new(terms), &Shared::new(delta));
    // SAFETY: the solves only read the bodies; each contact's terms and Δr are its block's.
    unsafe { packed.solve_jacobi(simd, dimension, shared) };
    for (c, d) in contacts.iter().zip(delta.iter()).filter(|(c, _)| c.active) {
        let (i, j) = ends(bodies, c.pair);
        kick(c, i, j, *d);
    }
    blocked_sum(terms.len(), |k| terms[k])
}
