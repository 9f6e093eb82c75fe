//! The `#[repr(C)]` records shared with `shaders/common.wgsl` (same field order and sizes).

use bytemuck::{Pod, Zeroable};

use super::shared::OperatorOffsets;

/// Where one scene's data lives in the batch arrays: `state[state_offset ..]` holds q (ndof)
/// then v (ndof), `operators[operator_offset ..]` the blocks of [`OperatorOffsets`],
/// `row_kinds[row_offset ..]` the [`RowKind`] of each of its ncontacts rows and, for a
/// [`SPARSE`] scene, the row patterns of its matrices after them
/// ([`Rows`](crate::batch::sparsity::Rows)).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct SceneHeader {
    /// Degrees of freedom n.
    pub ndof: u32,
    /// Contacts m.
    pub ncontacts: u32,
    /// Offset of q in the state array.
    pub state_offset: u32,
    /// Offset of the scene's operators.
    pub operator_offset: u32,
    /// Bit 0: A and B are nonzero (the scene has stiffness or damping; else they are not
    /// stored). Bit 1: nonlinear rows — Y nonzero or sphere–sphere gaps (the Jacobian G(q)
    /// moves: a Newton loop per step). Bit 2: F_ext has a harmonic part. Bit 3: some row is an
    /// equality. Bit 4: friction contacts (both set from the row kinds). Bit 5: the scene is
    /// stepped by nonsmooth RATTLE. Bit 6: H, W⁻¹Hᵀ and the Delassus matrix are stored by
    /// compressed rows ([`SPARSE`]). Bit 7: M, C, K, f₀ and a are stored for located
    /// sub-steps ([`SPAN_DYNAMICS`]). (Engines skip what a scene lacks.)
    pub flags: u32,
    /// Offset of the scene's row kinds and patterns (scenes with the same rows and patterns
    /// may share them).
    pub row_offset: u32,
    /// The entries stored of H and of W⁻¹Hᵀ: m n, or the pattern's when [`SPARSE`].
    pub h_entries: u32,
    /// The entries stored of the Delassus matrix: m², or the pattern's when [`SPARSE`].
    pub delassus_entries: u32,
}

/// The kind of one row of a scene's MLCP, which says which local solve the row takes (as
/// MuJoCo Warp's `ConstraintType`): one u32 per row in the batch's `row_kinds`, read by the
/// kernel and its twin alike. A normal row's code is its contact's row count d.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowKind {
    /// A unilateral contact without friction, 0 ≤ λ ⟂ w ≥ 0 (`normal_row`).
    Contact = 0,
    /// An equality, w = 0 with λ free (`equality_row`).
    Equality = 1,
    /// The normal row of a 2-D Coulomb contact, its tangent row after it (`friction_2d`).
    Normal2d = 2,
    /// The normal row of a 3-D Coulomb contact, its two tangent rows after it (`friction_3d`).
    Normal3d = 3,
    /// A tangent row of a Coulomb contact, solved with the contact's normal row.
    Tangent = 4,
}

impl RowKind {
    /// The kind's code in `row_kinds`.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The rows of the block this row starts: d for a contact's normal row, else 1.
    pub fn block_rows(self) -> usize {
        match self {
            Self::Normal2d => 2,
            Self::Normal3d => 3,
            _ => 1,
        }
    }

    /// Whether the row is a contact's normal row with friction.
    pub fn is_normal(self) -> bool {
        matches!(self, Self::Normal2d | Self::Normal3d)
    }
}

impl SceneHeader {
    /// Loop iterations of one kernel step with every contact active and four PGS sweeps
    /// (an estimate of its cost, counted as lavapipe's loop limiter counts).
    pub fn cost_per_step(&self) -> u32 {
        let (n, m) = (self.ndof, self.ncontacts);
        // The entries of H (and W⁻¹Hᵀ) and of D that the loops visit: all of them when dense.
        let (nh, nd) = (self.h_entries, self.delassus_entries);
        let stiffness = if self.flags & HAS_STIFFNESS != 0 { n * n } else { 0 };
        let lcp_error = 1 + m + nd;
        let solve = 5 * lcp_error + 4 * (1 + m + nd) + n + nh;
        let once = 1 + n + stiffness + m + 2 * nh + m + 2 * n;
        // G, W⁻¹Gᵀ and D of nonlinear rows, rebuilt.
        let operators = 2 * n * (1 + m) + m * n * (1 + n) + m * m * (1 + n);
        if self.flags & RATTLE != 0 {
            // Two kicks and row passes; stage 1's solves (about three passes with nonlinear
            // rows) and stage 2's, each with its vector; the operators twice.
            let (passes, rebuilt) = if self.flags & HAS_NONLINEAR != 0 {
                (3, 2 * operators)
            } else {
                (1, 0)
            };
            return 2 * once + (passes + 1) * (solve + m + nd) + rebuilt;
        }
        if self.flags & HAS_NONLINEAR != 0 {
            // About three Newton iterations, each rebuilding G, W⁻¹Gᵀ and D.
            once + 3 * (solve + operators)
        } else {
            once + solve
        }
    }
}

/// `flags` bit: the free velocity needs the A v + B q terms.
pub const HAS_STIFFNESS: u32 = 1;
/// `flags` bit: some row is nonlinear (quadratic terms Y, a sphere–sphere gap).
pub const HAS_NONLINEAR: u32 = 2;
/// `flags` bit: F_ext has a harmonic part.
pub const HAS_FORCING: u32 = 4;
/// `flags` bit: some row is an equality.
pub const HAS_EQUALITY: u32 = 8;
/// `flags` bit: some rows are friction contacts (normal and tangent rows); informational,
/// the engines branch on the row kinds.
pub const HAS_FRICTION: u32 = 16;
/// `flags` bit: the scene is stepped by nonsmooth RATTLE (its operators are the half kick's
/// and the end kick's) instead of Moreau–Jean.
pub const RATTLE: u32 = 32;
/// `flags` bit: the scene's H, W⁻¹Hᵀ and Delassus matrix are stored by compressed rows, their
/// patterns after its row kinds (`batch::sparsity`); only linear Moreau–Jean scenes.
pub const SPARSE: u32 = 64;
/// `flags` bit: the scene's W depends on the step's length (stiffness or damping) and it
/// stores M, C, K, f₀ and a, from which a located sub-step of length τ builds W(τ) and its
/// operators (`span_mass` … `span_amplitude`); only in a located run's dense linear
/// Moreau–Jean scenes, with [`HAS_STIFFNESS`].
pub const SPAN_DYNAMICS: u32 = 128;

impl SceneHeader {
    /// Length of the scene's state: 2n.
    pub fn state_len(ndof: usize) -> usize {
        2 * ndof
    }

    /// The entries of A and of B of a scene of header `flags`: n² with [`HAS_STIFFNESS`], else
    /// none (they are not stored).
    pub fn stiffness_len(ndof: usize, flags: u32) -> usize {
        if flags & HAS_STIFFNESS != 0 { ndof * ndof } else { 0 }
    }

    /// The order of M, C and K stored for located sub-steps: n with [`SPAN_DYNAMICS`], else
    /// 0 (they are not stored).
    pub fn span_dynamics_len(ndof: usize, flags: u32) -> usize {
        if flags & SPAN_DYNAMICS != 0 { ndof } else { 0 }
    }

    /// Where the blocks of a dense scene of header `flags` start (H, W⁻¹Hᵀ and the Delassus
    /// matrix stored whole).
    pub fn dense_offsets(ndof: usize, ncontacts: usize, flags: u32) -> OperatorOffsets {
        let stiffness = Self::stiffness_len(ndof, flags);
        let span = Self::span_dynamics_len(ndof, flags);
        OperatorOffsets::new(
            ndof,
            ncontacts,
            stiffness,
            ndof * ncontacts,
            ncontacts * ncontacts,
            span,
        )
    }

    /// Where the blocks of this scene's operators start.
    pub fn offsets(&self) -> OperatorOffsets {
        let (n, m) = (self.ndof as usize, self.ncontacts as usize);
        let stiffness = Self::stiffness_len(n, self.flags);
        let span = Self::span_dynamics_len(n, self.flags);
        OperatorOffsets::new(
            n,
            m,
            stiffness,
            self.h_entries as usize,
            self.delassus_entries as usize,
            span,
        )
    }

    /// Length of the operators of a dense scene of header `flags`: 2s + 2n + 3nm + m² + 13m +
    /// 3 + n² (s = n² with [`HAS_STIFFNESS`], else 0), with [`SPAN_DYNAMICS`] 3n² + 2n more,
    /// and with [`RATTLE`] (never with [`SPAN_DYNAMICS`]) the end kick's 2s + 2n + nm + m² +
    /// n² more (an upper bound of any scene's of these sizes and flags).
    pub fn operator_len(ndof: usize, ncontacts: usize, flags: u32) -> usize {
        let o = Self::dense_offsets(ndof, ncontacts, flags);
        if flags & RATTLE != 0 { o.end } else { o.end_a }
    }

    /// Length of this scene's operators: as [`SceneHeader::operator_len`] for its entries; a
    /// [`SPARSE`] scene stores only the blocks a linear scene reads, those before `quadratic`.
    pub fn operators(&self) -> usize {
        let o = self.offsets();
        if self.flags & RATTLE != 0 {
            o.end
        } else if self.flags & SPARSE != 0 {
            o.quadratic
        } else {
            o.end_a
        }
    }
}

/// Where each block of a located sub-step's own operators starts, in the scratch the CPU
/// lanes (`Group::span_ops`) and the kernel (`span_ops`, `shaders/located_sub_step.wgsl`)
/// build them in from a [`SPAN_DYNAMICS`] scene's M, C, K, f₀, a (n dofs): A(τ), B(τ)
/// (n × n), c(τ), c_h(τ) (n), and W(τ) (n × n) while it is eliminated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpanBlocks {
    /// A(τ).
    pub a: usize,
    /// B(τ).
    pub b: usize,
    /// c(τ).
    pub c: usize,
    /// c_h(τ).
    pub c_harmonic: usize,
    /// W(τ).
    pub w: usize,
    /// The scratch's length, 3n² + 2n.
    pub len: usize,
}

impl SpanBlocks {
    /// The blocks of a scene of `n` dofs.
    pub fn new(n: usize) -> Self {
        let nn = n * n;
        Self {
            a: 0,
            b: nn,
            c: 2 * nn,
            c_harmonic: 2 * nn + n,
            w: 2 * nn + 2 * n,
            len: 3 * nn + 2 * n,
        }
    }
}

/// Per-scene health, accumulated over the steps of a run (u32 part).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct HealthCounters {
    /// Impacts: steps in which some contact carries an impulse λ > 0 while none did in the
    /// step before (a ball coming to rest counts once, not once per resting step).
    pub impacts: u32,
    /// Steps in which some contact carried an impulse λ > 0.
    pub contact_steps: u32,
    /// The step count at the end of the step in which the last impact began (its time is
    /// t₀ + h · this); 0 if none.
    pub last_impact: u32,
    /// Largest number of PGS sweeps in one step.
    pub max_iterations: u32,
    /// Bit 0: some step's LCP missed the tolerance, or its Newton loop ran out of iterations.
    /// Bit 1: a NaN or inf appeared. Bit 2:
    /// the last step carried an impulse (the scene is in contact). Bit 3: the adapter's loop
    /// limiter cut a dispatch short (the host reruns the chunk).
    pub flags: u32,
    /// Steps completed (the host checks that every scene ran every step).
    pub steps: u32,
}

impl HealthCounters {
    /// Every LCP converged and the state stayed finite.
    pub fn healthy(&self) -> bool {
        self.flags & (NOT_CONVERGED | NON_FINITE) == 0
    }

    /// Some contact carried an impulse in the last step.
    pub fn in_contact(&self) -> bool {
        self.flags & IN_CONTACT != 0
    }

    /// Counts the step just completed: an impact when some contact carries an impulse
    /// (`loaded`) and none did in the step before.
    pub fn record_contact(&mut self, loaded: bool) {
        self.steps += 1;
        if loaded {
            self.contact_steps += 1;
            if self.flags & IN_CONTACT == 0 {
                self.impacts += 1;
                self.last_impact = self.steps;
            }
            self.flags |= IN_CONTACT;
        } else {
            self.flags &= !IN_CONTACT;
        }
    }
}

/// Per-scene extremes the engines keep over a run, in this order: the worst MLCP residual,
/// the deepest penetration (max of −y over gap rows) and the worst cone violation
/// ‖λ_T‖ − μ λ_N over friction contacts (≤ 0 inside the cone; `f64::MIN` before anything is
/// recorded).
pub const EXTREMES: usize = 3;

/// `HealthCounters::flags` bit: an LCP did not converge.
pub const NOT_CONVERGED: u32 = 1;
/// `HealthCounters::flags` bit: the state became NaN or infinite.
pub const NON_FINITE: u32 = 2;
/// `HealthCounters::flags` bit: some contact carried an impulse in the last step.
pub const IN_CONTACT: u32 = 4;
/// `HealthCounters::flags` bit: lavapipe's loop limiter cut the kernel short in a dispatch
/// (set by the kernel's probe; the host then reruns the chunk with fewer steps per dispatch).
pub const CUT_SHORT: u32 = 8;

/// The header's and the health counters' flag bits, the [`RowKind`] codes (`ROW_CONTACT`,
/// `ROW_EQUALITY`, `ROW_NORMAL_2D`, `ROW_NORMAL_3D`, `ROW_TANGENT`) and [`EXTREMES`] as WGSL
/// constants, from the values above: one source for host and kernel (the kernel's
/// `common.wgsl` uses them; the header's RATTLE bit is read on the host only).
pub fn constants_wgsl() -> String {
    [
        ("HAS_STIFFNESS", HAS_STIFFNESS),
        ("HAS_NONLINEAR", HAS_NONLINEAR),
        ("HAS_FORCING", HAS_FORCING),
        ("HAS_EQUALITY", HAS_EQUALITY),
        ("HAS_FRICTION", HAS_FRICTION),
        ("SPARSE", SPARSE),
        ("SPAN_DYNAMICS", SPAN_DYNAMICS),
        ("NOT_CONVERGED", NOT_CONVERGED),
        ("NON_FINITE", NON_FINITE),
        ("IN_CONTACT", IN_CONTACT),
        ("CUT_SHORT", CUT_SHORT),
        ("EXTREMES", EXTREMES as u32),
        ("ROW_CONTACT", RowKind::Contact.code()),
        ("ROW_EQUALITY", RowKind::Equality.code()),
        ("ROW_NORMAL_2D", RowKind::Normal2d.code()),
        ("ROW_NORMAL_3D", RowKind::Normal3d.code()),
        ("ROW_TANGENT", RowKind::Tangent.code()),
    ]
    .iter()
    .map(|(name, value)| format!("const {name}: u32 = {value}u;\n"))
    .collect()
}
