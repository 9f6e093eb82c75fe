//! One scene reduced to the constant operators of its Moreau–Jean step (below), or of its
//! nonsmooth RATTLE step ([`LinearScene::reduce_rattle`]: the same blocks for the half kick,
//! and an [`EndKick`]).
//!
//! For linear time-invariant systems (M, C, K constant, F_ext constant) and relations
//! `y = H q + b` (or `y = H q + Y q² + b`, squares entrywise: Exudyn's quadratic
//! coordinate-vector constraint), the free velocity of Siconos's `MoreauJeanOSI`
//! (`computeFreeState`, `kernel/src/simulation/MoreauJeanOSI.cpp`) is affine in (q_k, v_k):
//! ```text
//!   W      = M + hθ C + h²θ² K
//!   v_free = v_k − A v_k − B q_k + c,
//!            A = W⁻¹ (h C + h²θ K),  B = W⁻¹ h K,  c = W⁻¹ h [(1−θ) F_ext(t_k) + θ F_ext(t_{k+1})]
//!   MLCP   : 0 ≤ λ_r ⟂ w_r ≥ 0 on contact rows,  w_r = 0 with λ_r free on equality rows,
//!            w = D λ + H v_free + e H v_k + f (H q_k + b),   D = H W⁻¹ Hᵀ
//!   v_{k+1} = v_free + (W⁻¹ Hᵀ) λ
//! ```
//! (f = β/h on equality rows under Baumgarte stabilisation, else 0; a friction contact's rows
//! (normal, tangents) are solved together under Coulomb's law, `rows` and `mu`), so everything but the
//! state is computed once, in f64, here. With nonlinear rows — quadratic terms, sphere–sphere
//! gaps ‖x₁ − x₀‖, a planar body point's lever terms a cos q_k + b sin q_k — the Jacobian
//! G(q) (H + 2 Y diag(q) + the gaps' normals + the levers' (b cos q_k − a sin q_k) e_k)
//! replaces H in the MLCP, evaluated by the engines at the Newton iterates
//! q^i = q_k + h((1−θ) v_k + θ v^{i−1}) from W⁻¹, as the reference's Newton loop does.
//!
//! What the engines require of the step and the row layout before indexing it: `checks`.

use nalgebra::{DMatrix, DVector};

use super::gathered::Gathered;
use super::layout::{HAS_FORCING, HAS_NONLINEAR, HAS_STIFFNESS, RATTLE, RowKind, SPAN_DYNAMICS};
// (Products by the nonzeros of their left factor: a scene of many bodies has a diagonal W⁻¹
// and an H of a few entries per row.)
use super::sparsity::{inverse as invert, product};
use crate::error::{Error, Result};
use crate::scheme::NonsmoothRattleOSI;

mod checks;

/// The constant operators and initial state of one linear scene (all in f64).
#[derive(Clone, Debug, PartialEq)]
pub struct LinearScene {
    /// Initial q of all systems, concatenated.
    pub q0: DVector<f64>,
    /// Initial v.
    pub v0: DVector<f64>,
    /// A = W⁻¹ (h C + h²θ K).
    pub a: DMatrix<f64>,
    /// B = W⁻¹ h K.
    pub b: DMatrix<f64>,
    /// c = W⁻¹ h f₀ (the constant part of F_ext).
    pub c: DVector<f64>,
    /// W⁻¹ h a, for a harmonic F_ext = f₀ + a cos(ω t + φ): the step adds
    /// `c_harmonic [(1 − θ) cos(ω t_k + φ) + θ cos(ω t_{k+1} + φ)]` to c.
    pub c_harmonic: DVector<f64>,
    /// ω of the harmonic force (0 without one).
    pub omega: f64,
    /// φ of the harmonic force.
    pub phase: f64,
    /// The time the harmonic force stops (+∞: never).
    pub forcing_end: f64,
    /// W⁻¹ Hᵀ.
    pub winv_ht: DMatrix<f64>,
    /// H, one row per contact.
    pub h: DMatrix<f64>,
    /// The Delassus matrix H W⁻¹ Hᵀ.
    pub delassus: DMatrix<f64>,
    /// Offsets b of y = H q + b.
    pub offset: DVector<f64>,
    /// Restitution e per contact (0 on equality rows).
    pub restitution: DVector<f64>,
    /// The kind of each row: a contact, an equality (always in the problem, λ free), or a
    /// Coulomb contact's normal row followed by its tangent rows.
    pub rows: Vec<RowKind>,
    /// The position feedback f of each row (β/h on equality rows under Baumgarte, else 0).
    pub feedback: DVector<f64>,
    /// Coulomb's μ on each row of a friction contact (its normal and tangent rows), 0 elsewhere.
    pub mu: Vec<f64>,
    /// Y, the quadratic terms of y = H q + Y q² + b (zero for linear relations).
    pub quadratic: DMatrix<f64>,
    /// Per row, a sphere–sphere gap ‖x_{i₁} − x_{i₀}‖ added to y: [dim (0: none), i₀ (−1: the
    /// fixed centre c), i₁, c₀, c₁, c₂], i the scene coordinate of a centre's first entry; or,
    /// with dim −2, the tangent row of two discs: t·(v₁ − v₀) added to ẏ, t = (−n_y, n_x) of
    /// their separation n (`DiskDiskR`); with −3, −4 the tangents t₁, t₂ of two spheres, c₀ and
    /// c₁ their radii (`SphereLDSSphereLDSR`): see `batch::cpu::sphere_rows`.
    pub distance: Vec<[f64; 6]>,
    /// Per row, the lever term a cos q_k + b sin q_k of a planar rigid body's point added to y:
    /// [k, a, b] (a = b = 0: none).
    pub lever: Vec<[f64; 3]>,
    /// W⁻¹ (to rebuild W⁻¹Gᵀ when G moves).
    pub w_inv: DMatrix<f64>,
    /// Nonsmooth RATTLE's end kick (`None` for Moreau–Jean): then the blocks above are its
    /// half kick's, with W = W½ = M + (h/2) C in place of Moreau–Jean's W (see
    /// [`LinearScene::reduce_rattle`]).
    pub end_kick: Option<EndKick>,
    /// M, C, K and F_ext's parts, kept for a Moreau–Jean step whose W depends on the step's
    /// length (stiffness or damping) where W(τ) is symmetric positive definite for every τ:
    /// a sub-step of length τ ≠ h (impacts located inside the step) builds its own
    /// operators from them ([`SubStepDynamics`]). `None` otherwise.
    pub sub_steps: Option<SubStepDynamics>,
}

/// What the operators of a Moreau–Jean sub-step of any length τ are built from:
/// ```text
///   W(τ) = M + θτ C + θ²τ² K,   A(τ) = W(τ)⁻¹ (τ C + θτ² K),   B(τ) = W(τ)⁻¹ τ K,
///   c(τ) = W(τ)⁻¹ τ f₀,   c_h(τ) = W(τ)⁻¹ τ a,   W(τ)⁻¹Hᵀ,   D(τ) = H W(τ)⁻¹ Hᵀ
/// ```
/// (the module's equations with h = τ). Kept only where M is symmetric positive definite and
/// C, K symmetric positive semi-definite, so that W(τ) is symmetric positive definite for
/// every τ ≥ 0 and Gauss–Jordan elimination without pivoting inverts it stably (Higham,
/// *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §10.1): the batched engines
/// invert it per lane that way.
#[derive(Clone, Debug, PartialEq)]
pub struct SubStepDynamics {
    /// M.
    pub mass: DMatrix<f64>,
    /// C.
    pub damping: DMatrix<f64>,
    /// K.
    pub stiffness: DMatrix<f64>,
    /// f₀, the constant part of F_ext.
    pub force: DVector<f64>,
    /// a, the amplitude of its harmonic part.
    pub amplitude: DVector<f64>,
}

impl SubStepDynamics {
    /// M, C, K, f₀ and a when M is symmetric positive definite and C, K symmetric positive
    /// semi-definite (to a relative 1e-12 of their largest entries), else `None`.
    fn of(
        mass: &DMatrix<f64>,
        damping: &DMatrix<f64>,
        stiffness: &DMatrix<f64>,
        force: &DVector<f64>,
        amplitude: &DVector<f64>,
    ) -> Option<Self> {
        let symmetric = |x: &DMatrix<f64>| (x - x.transpose()).amax() <= 1e-12 * x.amax();
        let semi_definite =
            |x: &DMatrix<f64>| symmetric(x) && x.clone().symmetric_eigenvalues().min() >= -1e-12 * x.amax();
        let definite = symmetric(mass) && mass.clone().cholesky().is_some();
        (definite && semi_definite(damping) && semi_definite(stiffness)).then(|| Self {
            mass: mass.clone(),
            damping: damping.clone(),
            stiffness: stiffness.clone(),
            force: force.clone(),
            amplitude: amplitude.clone(),
        })
    }
}

/// The operators of nonsmooth RATTLE's end kick v* = v½ − A v½ − B q_{n+1} + c − M⁻¹Gᵀ P¹
/// and of its stage 2 (with M: the kick is explicit).
#[derive(Clone, Debug, PartialEq)]
pub struct EndKick {
    /// A = M⁻¹ (h/2) C.
    pub a: DMatrix<f64>,
    /// B = M⁻¹ (h/2) K.
    pub b: DMatrix<f64>,
    /// c = M⁻¹ (h/2) f₀.
    pub c: DVector<f64>,
    /// M⁻¹ (h/2) a, weighted by cos(ω t_{n+1} + φ).
    pub c_harmonic: DVector<f64>,
    /// M⁻¹Hᵀ.
    pub winv_ht: DMatrix<f64>,
    /// H M⁻¹ Hᵀ.
    pub delassus: DMatrix<f64>,
    /// M⁻¹.
    pub w_inv: DMatrix<f64>,
}

/// The step a scene is reduced for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reduction {
    /// Moreau–Jean's θ-method, Baumgarte's β on equality rows.
    MoreauJean { theta: f64, beta: f64 },
    /// Nonsmooth RATTLE.
    NonsmoothRattle,
}

impl LinearScene {
    /// The operators of the Moreau–Jean step of size `h` with θ = `theta` and Baumgarte's
    /// `beta` (0: none) from the scene `gathered` over its coordinates (the module's
    /// equations); `row_name` names a row in errors. Checks that PGS can divide by every row's
    /// diagonal of G W⁻¹ Gᵀ at q₀.
    pub fn reduce(
        gathered: Gathered,
        h: f64,
        theta: f64,
        beta: f64,
        row_name: &dyn Fn(usize) -> String,
    ) -> Result<Self> {
        Self::reduce_with(gathered, h, Reduction::MoreauJean { theta, beta }, row_name)
    }

    /// The operators of the nonsmooth RATTLE step of size `h` (Breuling et al. 2024, see
    /// [`NonsmoothRattleOSI`]) for
    /// forces F = F_ext − C v − K q:
    /// ```text
    ///   half kick : v̄ = v_n − A v_n − B q_n + c(t_n),   W½ = M + (h/2) C,
    ///               A = W½⁻¹ (h/2) C,  B = W½⁻¹ (h/2) K,  c = W½⁻¹ (h/2) F_ext
    ///   stage 1   : W½⁻¹Hᵀ and D½ = H W½⁻¹ Hᵀ (the chord matrix at q_n with nonlinear rows)
    ///   end kick  : [`EndKick`], with M;  stage 2: M⁻¹Hᵀ and H M⁻¹ Hᵀ
    /// ```
    /// Refused: friction, and a step with h ω_max ≥ 2 (the forces are explicit). Equality
    /// rows need no feedback (stage 1 holds them at position level).
    pub fn reduce_rattle(gathered: Gathered, h: f64, row_name: &dyn Fn(usize) -> String) -> Result<Self> {
        if let Some(row) = gathered.rows.iter().position(|k| k.is_normal()) {
            return Err(Error::Unsupported {
                what: row_name(row),
                reason: "nonsmooth RATTLE takes no friction yet (the batched engines' and the reference's)".into(),
            });
        }
        NonsmoothRattleOSI::check_stability(&gathered.mass, &gathered.stiffness, h, "the scene")?;
        Self::reduce_with(gathered, h, Reduction::NonsmoothRattle, row_name)
    }

    fn reduce_with(
        gathered: Gathered,
        h: f64,
        reduction: Reduction,
        row_name: &dyn Fn(usize) -> String,
    ) -> Result<Self> {
        let Gathered {
            mass,
            stiffness,
            damping,
            fext,
            amplitude,
            frequency,
            q0,
            v0,
            h: hmat,
            quadratic,
            offset,
            restitution,
            rows,
            mu,
            distance,
            lever,
            g0,
        } = gathered;
        let m = hmat.nrows();
        let inverse = |w: DMatrix<f64>, what: &str| invert(w).ok_or_else(|| Error::Singular { what: what.into() });
        // W(τ) of a located sub-step, where W depends on the step's length.
        let sub_steps = match reduction {
            Reduction::MoreauJean { .. } if damping.amax() > 0.0 || stiffness.amax() > 0.0 => {
                SubStepDynamics::of(&mass, &damping, &stiffness, &fext, &amplitude)
            }
            _ => None,
        };
        // W, and the kick's A, B and the step length of F_ext in c.
        let (w_inv, a, b, span, beta, end_kick) = match reduction {
            Reduction::MoreauJean { theta, beta } => {
                let w = &mass + &damping * (h * theta) + &stiffness * (h * h * theta * theta);
                let w_inv = inverse(w, "iteration matrix W")?;
                let a = product(&w_inv, &(&damping * h + &stiffness * (h * h * theta)));
                let b = product(&w_inv, &stiffness) * h;
                (w_inv, a, b, h, beta, None)
            }
            Reduction::NonsmoothRattle => {
                let half = h / 2.0;
                let w_inv = inverse(&mass + &damping * half, "RATTLE's half-kick matrix W½ = M + (h/2) C")?;
                let m_inv = inverse(mass.clone(), "the mass matrix M")?;
                let winv_ht = &m_inv * hmat.transpose();
                let end = EndKick {
                    a: &m_inv * &damping * half,
                    b: &m_inv * &stiffness * half,
                    c: &m_inv * &fext * half,
                    c_harmonic: &m_inv * &amplitude * half,
                    delassus: &hmat * &winv_ht,
                    winv_ht,
                    w_inv: m_inv,
                };
                let (a, b) = (&w_inv * &damping * half, &w_inv * &stiffness * half);
                (w_inv, a, b, half, 0.0, Some(end))
            }
        };
        let feedback = DVector::from_iterator(
            m,
            rows.iter()
                .map(|&kind| if kind == RowKind::Equality { beta / h } else { 0.0 }),
        );
        let winv_ht = product(&w_inv, &hmat.transpose());
        let delassus = product(&hmat, &winv_ht);
        let scene = Self {
            a,
            b,
            c: &w_inv * &fext * span,
            c_harmonic: &w_inv * &amplitude * span,
            omega: frequency.map_or(0.0, |f| f.0),
            phase: frequency.map_or(0.0, |f| f.1),
            forcing_end: frequency.map_or(f64::INFINITY, |f| f.2),
            delassus,
            winv_ht,
            h: hmat,
            offset,
            restitution,
            rows,
            feedback,
            mu,
            quadratic,
            distance,
            lever,
            w_inv,
            q0,
            v0,
            end_kick,
            sub_steps,
        };
        // PGS divides by the diagonal of G W⁻¹ Gᵀ, here at q₀ (D itself for linear rows).
        let d0 = if scene.has_nonlinear() {
            &g0 * &scene.w_inv * g0.transpose()
        } else {
            scene.delassus.clone()
        };
        let floor = f64::EPSILON * d0.amax();
        if let Some(row) = (0..m).find(|&r| d0[(r, r)] <= floor) {
            return Err(Error::Unsupported {
                what: row_name(row),
                reason: "its row of G W⁻¹ Gᵀ has no positive diagonal at q₀ (G row is zero?): PGS cannot solve it"
                    .into(),
            });
        }
        // A 2-D friction contact's block is solved by Cramer's rule and its slides divide by
        // W_NN ± μ W_NT: both must be safely nonzero (else: dependent rows, or Painlevé's
        // paradox, where Coulomb's law has no or several solutions), here at q₀.
        for r in (0..m).filter(|&r| scene.rows[r] == RowKind::Normal2d) {
            let d = &d0;
            let (a, b, c, dd, mu) = (d[(r, r)], d[(r, r + 1)], d[(r + 1, r)], d[(r + 1, r + 1)], scene.mu[r]);
            if a * dd - b * c <= 1e-12 * a * dd || a - mu * b.abs() <= 1e-12 * a {
                return Err(Error::Unsupported {
                    what: row_name(r),
                    reason: format!(
                        "its friction contact's block of D is singular or W_NN − μ|W_NT| ≤ 0 (μ = {}: Painlevé's paradox): Coulomb's law has no unique local solution",
                        crate::error::number(mu)
                    ),
                });
            }
        }
        Ok(scene)
    }

    /// Degrees of freedom.
    pub fn ndof(&self) -> usize {
        self.q0.len()
    }

    /// Contacts.
    pub fn ncontacts(&self) -> usize {
        self.offset.len()
    }

    /// Whether F_ext has a harmonic part.
    pub fn has_forcing(&self) -> bool {
        self.c_harmonic.iter().any(|&x| x != 0.0)
    }

    /// Whether some row is nonlinear (quadratic terms, a sphere–sphere gap or a lever term):
    /// G moves.
    pub fn has_nonlinear(&self) -> bool {
        self.quadratic.iter().any(|&x| x != 0.0)
            || self.distance.iter().any(|d| d[0] != 0.0)
            || self.lever.iter().any(|l| l[1] != 0.0 || l[2] != 0.0)
    }

    /// Whether A and B are nonzero.
    pub fn has_stiffness(&self) -> bool {
        self.a.iter().chain(self.b.iter()).any(|&x| x != 0.0)
    }

    /// The scene's own bits of its header's `flags` ([`SceneHeader`](super::SceneHeader)):
    /// [`HAS_STIFFNESS`], [`HAS_NONLINEAR`], [`HAS_FORCING`], [`RATTLE`], and in a batch whose
    /// impacts are located (`sub_steps`) [`SPAN_DYNAMICS`] where it keeps its
    /// [`SubStepDynamics`].
    pub fn header_flags(&self, sub_steps: bool) -> u32 {
        let bit = |set: bool, bit: u32| if set { bit } else { 0 };
        bit(self.has_stiffness(), HAS_STIFFNESS)
            | bit(self.has_nonlinear(), HAS_NONLINEAR)
            | bit(self.has_forcing(), HAS_FORCING)
            | bit(self.end_kick.is_some(), RATTLE)
            | bit(
                sub_steps && self.end_kick.is_none() && self.sub_steps.is_some(),
                SPAN_DYNAMICS,
            )
    }
}
