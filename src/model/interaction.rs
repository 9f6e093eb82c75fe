//! An interaction: a relation and a non-smooth law linking one or two dynamical systems.

use super::nonsmooth_law::NonSmoothLaw;
use super::relation::Relation;

/// Index of a dynamical system in its [`Nsds`](super::Nsds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DsId(pub usize);

/// Index of an interaction in its [`Nsds`](super::Nsds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InteractionId(pub usize);

/// One interaction of a scene. Its relation sees the coordinates of its systems concatenated
/// in the order given (q = [q₁; q₂]).
pub struct Interaction {
    /// A name for reports and errors.
    pub name: String,
    /// The non-smooth law.
    pub law: NonSmoothLaw,
    /// The relation.
    pub relation: Relation,
    /// The one or two systems linked.
    pub systems: Vec<DsId>,
}

impl Interaction {
    /// Number of scalar rows (the law's size).
    pub fn size(&self) -> usize {
        self.law.size()
    }
}
