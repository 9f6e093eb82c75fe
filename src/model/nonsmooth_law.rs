//! Non-smooth laws: the complementarity condition an interaction's (y, λ) must satisfy.

use nalgebra::DVector;

use crate::error::{Error, Result};
use crate::validate;

/// Any non-smooth law.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NonSmoothLaw {
    /// Newton impact: if y ≤ 0 then `0 ≤ ẏ⁺ + e ẏ⁻ ⟂ λ ≥ 0`.
    NewtonImpact(NewtonImpactNSL),
    /// `0 ≤ y ⟂ λ ≥ 0`.
    ComplementarityCondition(ComplementarityConditionNSL),
    /// A bilateral constraint: y = 0 with λ free (enforced at velocity level, ẏ = 0, by
    /// Moreau–Jean; Euler–Moreau enforces y = 0).
    EqualityCondition(EqualityConditionNSL),
    /// Newton impact with Coulomb friction on (normal, tangents).
    NewtonImpactFriction(NewtonImpactFrictionNSL),
    /// The relay `−y ∈ N_[lb, ub](λ)` (first-order systems).
    Relay(RelayNSL),
    /// Equalities on the first rows, complementarity on the others (first-order systems).
    MixedComplementarityCondition(MixedComplementarityConditionNSL),
}

impl NonSmoothLaw {
    /// Number of scalar conditions.
    pub fn size(&self) -> usize {
        match self {
            Self::NewtonImpact(law) => law.size,
            Self::ComplementarityCondition(law) => law.size,
            Self::EqualityCondition(law) => law.size,
            Self::NewtonImpactFriction(law) => law.size,
            Self::Relay(law) => law.size,
            Self::MixedComplementarityCondition(law) => law.equalities + law.complementarities,
        }
    }

    /// One entry per row: whether the row is an equality (y = 0, λ free).
    pub fn equality_rows(&self) -> Vec<bool> {
        match self {
            Self::MixedComplementarityCondition(law) => (0..self.size()).map(|k| k < law.equalities).collect(),
            _ => vec![self.is_equality(); self.size()],
        }
    }

    /// Whether the law is an equality (its rows are always active and λ is free).
    pub fn is_equality(&self) -> bool {
        matches!(self, Self::EqualityCondition(_))
    }

    /// The law's term in the one-step problem's vector from the local velocity ẏ_k at the
    /// start of the step: e ẏ_k for Newton's impact law; for Newton impact with friction
    /// e_N ẏ_{k,N} on the normal row if e_N > 0 and e_T ẏ_{k,T} on the tangent rows if e_T > 0
    /// (Siconos's `_NSLEffectOnFreeOutput`); zero otherwise.
    pub fn impact_term(&self, ydot_k: &DVector<f64>) -> DVector<f64> {
        match self {
            Self::NewtonImpact(law) => ydot_k * law.e,
            Self::NewtonImpactFriction(law) => DVector::from_fn(ydot_k.len(), |i, _| {
                let e = if i == 0 { law.e_n } else { law.e_t };
                if e > 0.0 { e * ydot_k[i] } else { 0.0 }
            }),
            Self::ComplementarityCondition(_)
            | Self::EqualityCondition(_)
            | Self::Relay(_)
            | Self::MixedComplementarityCondition(_) => DVector::zeros(ydot_k.len()),
        }
    }

    /// The friction law, if this is one.
    pub fn friction(&self) -> Option<&NewtonImpactFrictionNSL> {
        match self {
            Self::NewtonImpactFriction(law) => Some(law),
            _ => None,
        }
    }

    /// The relay law, if this is one.
    pub fn relay(&self) -> Option<&RelayNSL> {
        match self {
            Self::Relay(law) => Some(law),
            _ => None,
        }
    }
}

/// Newton's impact law with Coulomb friction (Siconos's `NewtonImpactFrictionNSL`) on an
/// interaction of `size` 2 (normal, tangent) or 3 (normal, two tangents), its rows the local
/// frame: with r = λ the local impulse and u = ẏ_{k+1},
/// ```text
///     active contact (ỹ_N ≤ 0):  û = u + e ẏ_k + (μ ‖u_T + e_T ẏ_{k,T}‖, 0, 0),
///                                K* ∋ û ⟂ r ∈ K = {‖r_T‖ ≤ μ r_N}
/// ```
/// (e = (e_N, e_T, e_T), each applied only when positive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonImpactFrictionNSL {
    e_n: f64,
    e_t: f64,
    mu: f64,
    size: usize,
}

impl NewtonImpactFrictionNSL {
    /// The law with normal and tangential restitution `e_n`, `e_t` ∈ [0, 1], friction
    /// coefficient `mu` ≥ 0, on `size` ∈ {2, 3} rows.
    pub fn new(e_n: f64, e_t: f64, mu: f64, size: usize) -> Result<Self> {
        for (what, e) in [
            ("NewtonImpactFrictionNSL e_N", e_n),
            ("NewtonImpactFrictionNSL e_T", e_t),
        ] {
            if !(0.0..=1.0).contains(&e) {
                return Err(Error::Restitution {
                    what: what.into(),
                    value: e,
                });
            }
        }
        validate::scalar("NewtonImpactFrictionNSL μ", mu, mu >= 0.0, "must be ≥ 0")?;
        validate::scalar(
            "NewtonImpactFrictionNSL size",
            size as f64,
            size == 2 || size == 3,
            "must be 2 (normal, tangent) or 3 (normal, two tangents)",
        )?;
        Ok(Self { e_n, e_t, mu, size })
    }

    /// e_N.
    pub fn e_n(&self) -> f64 {
        self.e_n
    }

    /// e_T.
    pub fn e_t(&self) -> f64 {
        self.e_t
    }

    /// μ.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// Rows: 2 or 3.
    pub fn size(&self) -> usize {
        self.size
    }
}

impl From<NewtonImpactFrictionNSL> for NonSmoothLaw {
    fn from(law: NewtonImpactFrictionNSL) -> Self {
        Self::NewtonImpactFriction(law)
    }
}

/// Newton's impact law with restitution e ∈ [0, 1], applied componentwise to `size` rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonImpactNSL {
    e: f64,
    size: usize,
}

impl NewtonImpactNSL {
    /// A one-row law with restitution `e`.
    pub fn new(e: f64) -> Result<Self> {
        Self::with_size(e, 1)
    }

    /// A law of `size` rows sharing restitution `e`.
    pub fn with_size(e: f64, size: usize) -> Result<Self> {
        if !(0.0..=1.0).contains(&e) {
            return Err(Error::Restitution {
                what: "NewtonImpactNSL".into(),
                value: e,
            });
        }
        validate::scalar("NewtonImpactNSL size", size as f64, size > 0, "must be ≥ 1")?;
        Ok(Self { e, size })
    }

    /// The restitution coefficient.
    pub fn e(&self) -> f64 {
        self.e
    }
}

/// The complementarity condition `0 ≤ y ⟂ λ ≥ 0` on `size` rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComplementarityConditionNSL {
    size: usize,
}

impl ComplementarityConditionNSL {
    /// A condition on `size` rows.
    pub fn new(size: usize) -> Result<Self> {
        validate::scalar("ComplementarityConditionNSL size", size as f64, size > 0, "must be ≥ 1")?;
        Ok(Self { size })
    }
}

/// Siconos's `MixedComplementarityConditionNSL(n, eq)`: `y = 0` (λ free) on the first `eq`
/// rows, `0 ≤ y ⟂ λ ≥ 0` on the `n` others — one interaction whose rows couple through h, as
/// in an ideal switch written with both kinds of row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MixedComplementarityConditionNSL {
    complementarities: usize,
    equalities: usize,
}

impl MixedComplementarityConditionNSL {
    /// `complementarities` complementarity rows after `equalities` equality rows (Siconos's
    /// argument order).
    pub fn new(complementarities: usize, equalities: usize) -> Result<Self> {
        let size = complementarities + equalities;
        validate::scalar(
            "MixedComplementarityConditionNSL size",
            size as f64,
            size > 0,
            "must be ≥ 1",
        )?;
        Ok(Self {
            complementarities,
            equalities,
        })
    }
}

impl From<MixedComplementarityConditionNSL> for NonSmoothLaw {
    fn from(law: MixedComplementarityConditionNSL) -> Self {
        Self::MixedComplementarityCondition(law)
    }
}

/// The equality `y = 0` on `size` rows, λ free (Siconos's `EqualityConditionNSL`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EqualityConditionNSL {
    size: usize,
}

impl EqualityConditionNSL {
    /// An equality on `size` rows.
    pub fn new(size: usize) -> Result<Self> {
        validate::scalar("EqualityConditionNSL size", size as f64, size > 0, "must be ≥ 1")?;
        Ok(Self { size })
    }
}

impl From<EqualityConditionNSL> for NonSmoothLaw {
    fn from(law: EqualityConditionNSL) -> Self {
        Self::EqualityCondition(law)
    }
}

impl From<NewtonImpactNSL> for NonSmoothLaw {
    fn from(law: NewtonImpactNSL) -> Self {
        Self::NewtonImpact(law)
    }
}

impl From<ComplementarityConditionNSL> for NonSmoothLaw {
    fn from(law: ComplementarityConditionNSL) -> Self {
        Self::ComplementarityCondition(law)
    }
}

/// Siconos's `RelayNSL`: on `size` rows, `−y ∈ N_[lb, ub](λ)` — λ ∈ [lb, ub], λ = lb where
/// y > 0, λ = ub where y < 0, y = 0 between (the convention of Siconos's relay problem,
/// `docs/sphinx/users_guide/problems_and_solvers/relay.rst`): a sign (or step) function of y
/// made set-valued at 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RelayNSL {
    size: usize,
    lb: f64,
    ub: f64,
}

impl RelayNSL {
    /// A relay of `size` rows with λ ∈ [−1, 1] (Siconos's default bounds).
    pub fn new(size: usize) -> Result<Self> {
        Self::with_bounds(size, -1.0, 1.0)
    }

    /// A relay of `size` rows with λ ∈ [lb, ub], lb < ub finite.
    pub fn with_bounds(size: usize, lb: f64, ub: f64) -> Result<Self> {
        validate::scalar("RelayNSL size", size as f64, size > 0, "must be ≥ 1")?;
        validate::scalar("RelayNSL lb", lb, lb.is_finite(), "must be finite")?;
        validate::scalar("RelayNSL ub", ub, ub > lb, "must be finite and above lb")?;
        Ok(Self { size, lb, ub })
    }

    /// The bounds (lb, ub).
    pub fn bounds(&self) -> (f64, f64) {
        (self.lb, self.ub)
    }
}

impl From<RelayNSL> for NonSmoothLaw {
    fn from(law: RelayNSL) -> Self {
        Self::Relay(law)
    }
}
