//! Non-smooth laws: the complementarity condition an interaction's (y, λ) must satisfy.

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
}

impl NonSmoothLaw {
    /// Number of scalar conditions.
    pub fn size(&self) -> usize {
        match self {
            Self::NewtonImpact(law) => law.size,
            Self::ComplementarityCondition(law) => law.size,
            Self::EqualityCondition(law) => law.size,
        }
    }

    /// Whether the law is an equality (its rows are always active and λ is free).
    pub fn is_equality(&self) -> bool {
        matches!(self, Self::EqualityCondition(_))
    }

    /// The restitution coefficient (0 for a plain complementarity condition).
    pub fn restitution(&self) -> f64 {
        match self {
            Self::NewtonImpact(law) => law.e,
            Self::ComplementarityCondition(_) | Self::EqualityCondition(_) => 0.0,
        }
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
