//! Lagrangian relations: the output y = h(q, t) of an interaction, its velocity
//! ẏ = G0(q, t) v + ∂h/∂t, and the generalised impulse p = G0ᵀ λ it applies.
//!
//! q is the concatenation of the coordinates of the interaction's one or two systems, z of
//! their discrete states (Siconos's Z), which the nonlinear relations' closures may read.

use std::sync::Arc;

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::force::central_difference;
use crate::validate;

/// y = h(q, z), as a closure.
pub type OutputFn = Arc<dyn Fn(&DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync>;
/// G0(q, z) = ∇_q h(q, z), as a closure.
pub type JacobianFn = Arc<dyn Fn(&DVector<f64>, &DVector<f64>) -> DMatrix<f64> + Send + Sync>;
/// A function of (q, t, z) returning a vector: h(q, t, z) or ∂h/∂t(q, t, z).
pub type TimeOutputFn = Arc<dyn Fn(&DVector<f64>, f64, &DVector<f64>) -> DVector<f64> + Send + Sync>;
/// G0(q, t, z), as a closure.
pub type TimeJacobianFn = Arc<dyn Fn(&DVector<f64>, f64, &DVector<f64>) -> DMatrix<f64> + Send + Sync>;

/// Linear time-invariant relation `y = H q + b + F z`, `ẏ = H v`, `p = Hᵀ λ`, z the linked
/// systems' discrete states (F z only where F is given; the batched engines take z as it is
/// when the scene is built). (Siconos calls H "C" and b "e"; the D λ term of its
/// `docs/sphinx/users_guide/relations.rst` is [`LagrangianCompliantLinearTIR`].)
#[derive(Clone, Debug)]
pub struct LagrangianLinearTIR {
    pub(crate) h: DMatrix<f64>,
    pub(crate) b: DVector<f64>,
    /// F (m × n_z), where given.
    pub(crate) f: Option<DMatrix<f64>>,
}

impl LagrangianLinearTIR {
    /// `y = H q` (b = 0).
    pub fn new(h: DMatrix<f64>) -> Result<Self> {
        let b = DVector::zeros(h.nrows());
        Self::with_offset(h, b)
    }

    /// `y = H q + b`.
    pub fn with_offset(h: DMatrix<f64>, b: DVector<f64>) -> Result<Self> {
        Self::check(&h, &b)?;
        Ok(Self { h, b, f: None })
    }

    /// Adds the term F z of the linked systems' discrete states z (F: a row per row of H, a
    /// column per entry of their z, checked when linked).
    pub fn with_f(mut self, f: DMatrix<f64>) -> Result<Self> {
        validate::matrix("LagrangianLinearTIR: F", &f, self.h.nrows(), f.ncols())?;
        validate::finite_matrix("LagrangianLinearTIR: F", &f)?;
        self.f = Some(f);
        Ok(self)
    }

    /// The constant part of y at the linked systems' discrete states `z`: b + F z (b without
    /// F).
    pub(crate) fn offset(&self, z: &DVector<f64>) -> Result<DVector<f64>> {
        match &self.f {
            Some(f) => {
                validate::matrix(
                    "LagrangianLinearTIR: F (m × the linked systems' z)",
                    f,
                    f.nrows(),
                    z.len(),
                )?;
                Ok(&self.b + f * z)
            }
            None => Ok(self.b.clone()),
        }
    }

    /// What [`with_offset`](Self::with_offset) checks (H finite, b finite with a row per row
    /// of H), for scenes that give a relation in closed form.
    pub fn check(h: &DMatrix<f64>, b: &DVector<f64>) -> Result<()> {
        validate::finite_matrix("LagrangianLinearTIR: H", h)?;
        validate::vector("LagrangianLinearTIR: b", b, h.nrows())
    }
}

/// Scleronomous relation `y = h(q)` — or h(q, z) — `ẏ = G0(q) v`, `p = G0(q)ᵀ λ`,
/// `G0 = ∇_q h`.
#[derive(Clone)]
pub struct LagrangianScleronomousR {
    pub(crate) h: OutputFn,
    pub(crate) jacobian: JacobianFn,
}

impl LagrangianScleronomousR {
    /// From h(q) and its Jacobian G0(q); sizes are checked when the interaction is linked.
    pub fn new(
        h: impl Fn(&DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
        jacobian: impl Fn(&DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Self {
        Self::with_z(move |q, _| h(q), move |q, _| jacobian(q))
    }

    /// From h(q, z) and G0(q, z) of the linked systems' discrete states z.
    pub fn with_z(
        h: impl Fn(&DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
        jacobian: impl Fn(&DVector<f64>, &DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Self {
        Self {
            h: Arc::new(h),
            jacobian: Arc::new(jacobian),
        }
    }
}

/// Rheonomous relation `y = h(q, t)` — or h(q, t, z) — `ẏ = G0(q, t) v + ∂h/∂t(q, t)`,
/// `p = G0ᵀ λ`.
#[derive(Clone)]
pub struct LagrangianRheonomousR {
    pub(crate) h: TimeOutputFn,
    pub(crate) jacobian: TimeJacobianFn,
    pub(crate) hdot: TimeOutputFn,
}

impl LagrangianRheonomousR {
    /// From h(q, t), G0(q, t) and ∂h/∂t(q, t).
    pub fn new(
        h: impl Fn(&DVector<f64>, f64) -> DVector<f64> + Send + Sync + 'static,
        jacobian: impl Fn(&DVector<f64>, f64) -> DMatrix<f64> + Send + Sync + 'static,
        hdot: impl Fn(&DVector<f64>, f64) -> DVector<f64> + Send + Sync + 'static,
    ) -> Self {
        Self::with_z(
            move |q, t, _| h(q, t),
            move |q, t, _| jacobian(q, t),
            move |q, t, _| hdot(q, t),
        )
    }

    /// From h(q, t, z), G0(q, t, z) and ∂h/∂t(q, t, z) of the linked systems' discrete
    /// states z.
    pub fn with_z(
        h: impl Fn(&DVector<f64>, f64, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
        jacobian: impl Fn(&DVector<f64>, f64, &DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static,
        hdot: impl Fn(&DVector<f64>, f64, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
    ) -> Self {
        Self {
            h: Arc::new(h),
            jacobian: Arc::new(jacobian),
            hdot: Arc::new(hdot),
        }
    }
}

/// Linear compliant relation (Siconos's `LagrangianCompliantLinearTIR`):
/// `y = H q + b + D λ`, `ẏ = H v + D λ̇`, `p = Hᵀ λ`, D the compliance (symmetric, ≥ 0).
///
/// Used with a complementarity law `0 ≤ y ⟂ λ ≥ 0` it is a unilateral spring of stiffness
/// D⁻¹. The Moreau–Jean step discretises it as Siconos's kernel does (`LinearOSNS.cpp`,
/// `MoreauJeanOSI::computeFreeOutput`), which BouncingBallTS-CompliantContact.ref records:
/// the interaction's diagonal Delassus block is θ (D + H W⁻¹ Hᵀ) + D/h and its LCP vector
/// hθ H v_free + y(q_k + h v_k) + h(1−θ) ẏ_k, λ being an impulse.
#[derive(Clone, Debug)]
pub struct LagrangianCompliantLinearTIR {
    pub(crate) h: DMatrix<f64>,
    pub(crate) b: DVector<f64>,
    pub(crate) compliance: DMatrix<f64>,
}

/// A function of (q, λ, z) returning a vector: h.
pub type CompliantOutputFn = Arc<dyn Fn(&DVector<f64>, &DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync>;
/// A Jacobian of h(q, λ, z): G0 = ∇_q h or G1 = ∇_λ h.
pub type CompliantJacobianFn = Arc<dyn Fn(&DVector<f64>, &DVector<f64>, &DVector<f64>) -> DMatrix<f64> + Send + Sync>;

/// Nonlinear compliant relation (Siconos's `LagrangianCompliantR`): `y = h(q, λ, z)`,
/// `p = G0ᵀ λ`, G0 = ∇_q h and G1 = ∇_λ h by closures or central differences.
///
/// The Moreau–Jean step takes it as the [`LagrangianCompliantLinearTIR`] of its
/// linearisation in λ at the step's start λ_k: H = G0(q, λ_k, z), D = G1(q, λ_k, z) and
/// y = h(q, λ_k, z) − G1 λ_k + D λ — exact for a relation linear in λ, and at a rest state
/// (λ = λ_k). Its plain output (`Relation::output`) is h at λ = 0.
#[derive(Clone)]
pub struct LagrangianCompliantR {
    pub(crate) size: usize,
    pub(crate) h: CompliantOutputFn,
    pub(crate) g0: Option<CompliantJacobianFn>,
    pub(crate) g1: Option<CompliantJacobianFn>,
}

impl LagrangianCompliantR {
    /// From h(q, λ, z) of `size` rows (λ too); G0 and G1 by central differences until given.
    /// Checked when linked.
    pub fn new(
        size: usize,
        h: impl Fn(&DVector<f64>, &DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
    ) -> Self {
        Self {
            size,
            h: Arc::new(h),
            g0: None,
            g1: None,
        }
    }

    /// Sets G0(q, λ, z) = ∇_q h.
    pub fn with_g0(
        mut self,
        g0: impl Fn(&DVector<f64>, &DVector<f64>, &DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Self {
        self.g0 = Some(Arc::new(g0));
        self
    }

    /// Sets G1(q, λ, z) = ∇_λ h.
    pub fn with_g1(
        mut self,
        g1: impl Fn(&DVector<f64>, &DVector<f64>, &DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Self {
        self.g1 = Some(Arc::new(g1));
        self
    }

    /// (h, G0, G1) at (q, λ, z).
    pub(crate) fn evaluate(
        &self,
        q: &DVector<f64>,
        lambda: &DVector<f64>,
        z: &DVector<f64>,
    ) -> (DVector<f64>, DMatrix<f64>, DMatrix<f64>) {
        let y = (self.h)(q, lambda, z);
        let g0 = match &self.g0 {
            Some(g0) => g0(q, lambda, z),
            None => central_difference(|x| (self.h)(x, lambda, z), q),
        };
        let g1 = match &self.g1 {
            Some(g1) => g1(q, lambda, z),
            None => central_difference(|l| (self.h)(q, l, z), lambda),
        };
        (y, g0, g1)
    }
}

impl LagrangianCompliantLinearTIR {
    /// From H, b and the compliance D (m × m).
    pub fn new(h: DMatrix<f64>, b: DVector<f64>, compliance: DMatrix<f64>) -> Result<Self> {
        let m = h.nrows();
        validate::finite_matrix("LagrangianCompliantLinearTIR: H", &h)?;
        validate::vector("LagrangianCompliantLinearTIR: b", &b, m)?;
        validate::matrix("LagrangianCompliantLinearTIR: compliance D", &compliance, m, m)?;
        Ok(Self { h, b, compliance })
    }
}
