//! `Nsds`: the non-smooth dynamical system of one scene — its dynamical systems and the
//! interactions between them.

use nalgebra::DVector;

use super::dynamical_system::DynamicalSystem;
use super::interaction::{DsId, Interaction, InteractionId};
use super::nonsmooth_law::NonSmoothLaw;
use super::relation::Relation;
use super::relation::first_order_nonlinear::At;
use crate::error::{Error, Result};
use crate::validate;

/// The systems and interactions of one scene.
#[derive(Clone, Default)]
pub struct Nsds {
    systems: Vec<(String, DynamicalSystem)>,
    interactions: Vec<Interaction>,
    /// The coordinates' names, in the order of the concatenated q; empty: unnamed.
    coordinates: Vec<String>,
}

impl Nsds {
    /// An empty scene.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a dynamical system under `name`. (Coordinates named before are unnamed again:
    /// name them once every system is in.)
    pub fn add(&mut self, name: &str, ds: impl Into<DynamicalSystem>) -> DsId {
        self.systems.push((name.into(), ds.into()));
        self.coordinates.clear();
        DsId(self.systems.len() - 1)
    }

    /// Names the coordinates of the concatenated q (`z`, `theta`, `x_0`, …): one identifier
    /// per coordinate, all different. The outputs name their columns after them.
    pub fn name_coordinates<S: Into<String>>(&mut self, names: impl IntoIterator<Item = S>) -> Result<()> {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        let n: usize = self.systems.iter().map(|(_, ds)| ds.dimension()).sum();
        if names.len() != n {
            return Err(Error::Dimension {
                what: "Nsds::name_coordinates: names".into(),
                expected: format!("{n} (the systems' coordinates)"),
                got: names.len().to_string(),
            });
        }
        for (i, name) in names.iter().enumerate() {
            let reason = if !validate::is_identifier(name) {
                "a name is letters, digits and `_`, not starting with a digit"
            } else if names[..i].contains(name) {
                "two coordinates have this name"
            } else {
                continue;
            };
            return Err(Error::Unsupported {
                what: format!("Nsds: coordinate {i}, `{name}`"),
                reason: reason.into(),
            });
        }
        self.coordinates = names;
        Ok(())
    }

    /// The coordinates' names ([`Nsds::name_coordinates`]), `q0`, `q1`, … where unnamed.
    pub fn coordinates(&self) -> Vec<String> {
        if self.coordinates.is_empty() {
            let n: usize = self.systems.iter().map(|(_, ds)| ds.dimension()).sum();
            return (0..n).map(|i| format!("q{i}")).collect();
        }
        self.coordinates.clone()
    }

    /// Links one or two systems by `relation` under `law`. Checks that the systems exist and
    /// are of the relation's family, and evaluates the relation at the initial state to check
    /// its sizes against the law and the systems' dimensions.
    pub fn link(
        &mut self,
        name: &str,
        law: impl Into<NonSmoothLaw>,
        relation: impl Into<Relation>,
        systems: &[DsId],
    ) -> Result<InteractionId> {
        let interaction = Interaction {
            name: name.into(),
            law: law.into(),
            relation: relation.into(),
            systems: systems.to_vec(),
        };
        self.check_interaction(&interaction)?;
        self.interactions.push(interaction);
        Ok(InteractionId(self.interactions.len() - 1))
    }

    fn check_interaction(&self, inter: &Interaction) -> Result<()> {
        let what = format!("interaction `{}`", inter.name);
        let unsupported = |reason: &str| Error::Unsupported {
            what: what.clone(),
            reason: reason.into(),
        };
        if inter.systems.is_empty() || inter.systems.len() > 2 {
            return Err(unsupported("must link one or two dynamical systems"));
        }
        if inter.systems.len() == 2 && inter.systems[0] == inter.systems[1] {
            return Err(unsupported("links the same dynamical system twice"));
        }
        let mut n = 0;
        for id in &inter.systems {
            let (_, ds) = self
                .systems
                .get(id.0)
                .ok_or_else(|| unsupported("links a system not in this Nsds"))?;
            if ds.is_lagrangian() != inter.relation.is_lagrangian() {
                return Err(unsupported("relation and dynamical system are of different families"));
            }
            n += ds.dimension();
        }
        let markers = match &inter.relation {
            Relation::CoordinateVector(c) => Some(c.coordinates()),
            Relation::SphereSphere(r) => Some(r.coordinates),
            Relation::PlanarContact(r) => Some([0, r.ndof]),
            Relation::DiskDisk(r) => Some(r.gap.coordinates),
            Relation::SphereLDSSphereLDS(r) => Some(r.gap.coordinates),
            _ => None,
        };
        if let Some(markers) = markers {
            // Each marker's coordinates are those of its system; a ground marker (0) has none.
            let dims: Vec<usize> = inter
                .systems
                .iter()
                .map(|id| self.systems[id.0].1.dimension())
                .collect();
            let linked: Vec<usize> = markers.iter().copied().filter(|&k| k > 0).collect();
            if linked != dims {
                return Err(unsupported(&format!(
                    "its relation was built for markers of {markers:?} coordinates (0: ground) but the linked systems have {dims:?}"
                )));
            }
        }
        if inter.law.friction().is_some() && (!inter.relation.is_lagrangian() || inter.relation.is_compliant()) {
            return Err(unsupported(
                "Newton impact with friction takes a Lagrangian relation whose rows are (normal, tangents), not a first-order or compliant one",
            ));
        }
        if inter.law.relay().is_some() && inter.relation.is_lagrangian() {
            return Err(unsupported(
                "a relay (RelayNSL) takes a first-order relation: Euler–Moreau integrates it, Moreau–Jean does not",
            ));
        }
        if matches!(inter.law, NonSmoothLaw::MixedComplementarityCondition(_)) && inter.relation.is_lagrangian() {
            return Err(unsupported(
                "MixedComplementarityConditionNSL takes a first-order relation (Lagrangian scenes link equalities and contacts as separate interactions)",
            ));
        }
        if inter.law.is_equality() && inter.relation.is_compliant() {
            return Err(unsupported(
                "a compliant relation is a unilateral spring: use it with a complementarity or Newton law",
            ));
        }
        let m = inter.size();
        if inter.relation.is_lagrangian() {
            let q0 = self.gather(&inter.systems, |ds| ds.initial_state().0);
            let z = self.gather(&inter.systems, DynamicalSystem::z);
            inter.jacobian(&q0, &z, 0.0)?;
            inter.output(&q0, &z, 0.0).map_err(|e| Error::Unsupported {
                what: what.clone(),
                reason: e.to_string(),
            })?;
            inter.relation.hdot(&q0, &z, 0.0, m)?;
            if let Some(linearisation) = inter.relation.compliant_at(&q0, &DVector::zeros(m), &z) {
                let d = linearisation
                    .map_err(|e| Error::Unsupported {
                        what: what.clone(),
                        reason: e.to_string(),
                    })?
                    .d;
                validate::matrix(&format!("{what}: compliance"), &d, m, m)?;
            }
        } else if let Relation::FirstOrderNonLinearR(r) = &inter.relation {
            let x0 = self.gather(&inter.systems, |ds| ds.initial_state().0);
            let z = self.gather(&inter.systems, DynamicalSystem::z);
            let lambda = DVector::zeros(m);
            let at = At {
                t: 0.0,
                x: &x0,
                lambda: &lambda,
                z: &z,
            };
            r.check(&format!("{what}, at (t, x, λ) = (0, x0, 0)"), at, m, n)?;
        } else {
            let z = self.gather(&inter.systems, DynamicalSystem::z);
            inter
                .relation
                .first_order_operators(0.0, &z)
                .map_err(|e| Error::Unsupported {
                    what: what.clone(),
                    reason: e.to_string(),
                })?
                .check(&what, m, n)?;
        }
        Ok(())
    }

    /// Concatenates a per-system vector over `ids`.
    pub(crate) fn gather(&self, ids: &[DsId], f: impl Fn(&DynamicalSystem) -> DVector<f64>) -> DVector<f64> {
        let parts: Vec<f64> = ids
            .iter()
            .flat_map(|id| f(&self.systems[id.0].1).iter().copied().collect::<Vec<_>>())
            .collect();
        DVector::from_vec(parts)
    }

    /// Total mechanical energy of the Lagrangian systems (½vᵀMv + ½qᵀKq − F_extᵀq each; 0
    /// for first-order systems) at the concatenated state (q, v).
    pub fn energy(&self, q: &DVector<f64>, v: &DVector<f64>) -> Result<f64> {
        let mut energy = 0.0;
        let mut offset = 0;
        for (_, ds) in self.systems() {
            let n = ds.dimension();
            if let Some(l) = ds.as_lagrangian() {
                energy += l.energy(&q.rows(offset, n).into_owned(), &v.rows(offset, n).into_owned())?;
            }
            offset += n;
        }
        Ok(energy)
    }

    /// The systems, with their names, in insertion order.
    pub fn systems(&self) -> impl Iterator<Item = (&str, &DynamicalSystem)> {
        self.systems.iter().map(|(name, ds)| (name.as_str(), ds))
    }

    /// The system `id`.
    pub fn system(&self, id: DsId) -> &DynamicalSystem {
        &self.systems[id.0].1
    }

    /// The name system `id` was added under.
    pub fn system_name(&self, id: DsId) -> &str {
        &self.systems[id.0].0
    }

    /// System `id`, to change between steps (its discrete state z).
    pub(crate) fn system_mut(&mut self, id: DsId) -> &mut DynamicalSystem {
        &mut self.systems[id.0].1
    }

    /// Number of systems.
    pub fn number_of_systems(&self) -> usize {
        self.systems.len()
    }

    /// The interactions in link order.
    pub fn interactions(&self) -> &[Interaction] {
        &self.interactions
    }

    /// The interaction `id`, to change a parameter (such as a constraint's `active` flag).
    pub(crate) fn interaction_mut(&mut self, id: InteractionId) -> &mut Interaction {
        &mut self.interactions[id.0]
    }

    /// The first row of each interaction in λ (the interactions' rows concatenated in link
    /// order).
    pub fn row_offsets(&self) -> Vec<usize> {
        let mut offset = 0;
        self.interactions
            .iter()
            .map(|inter| {
                let at = offset;
                offset += inter.size();
                at
            })
            .collect()
    }

    /// One entry per scalar row of the interactions, in link order (the order of λ): whether
    /// the row is an equality (its λ free) rather than a contact.
    pub fn equality_rows(&self) -> Vec<bool> {
        self.interactions.iter().flat_map(|i| i.law.equality_rows()).collect()
    }

    /// One entry per scalar row of the interactions, in link order: the bounds (lb, ub) of a
    /// relay row, `None` for the others.
    pub fn relay_rows(&self) -> Vec<Option<(f64, f64)>> {
        self.interactions
            .iter()
            .flat_map(|i| std::iter::repeat_n(i.law.relay().map(|r| r.bounds()), i.size()))
            .collect()
    }

    /// One entry per scalar row of the interactions, in link order: whether the row's y is a
    /// gap (every row of a contact law, the normal row of a friction contact; not its tangent
    /// rows, nor equalities, nor the rows of a first-order relation — a diode's voltage is no
    /// gap), the rows on which impacts and penetration are counted.
    pub fn gap_rows(&self) -> Vec<bool> {
        self.interactions
            .iter()
            .flat_map(|i| {
                let friction = i.law.friction().is_some();
                let contact = !i.law.is_equality() && i.relation.is_lagrangian();
                (0..i.size()).map(move |k| contact && (!friction || k == 0))
            })
            .collect()
    }

    /// The friction contacts as (first row, rows d, μ), the rows in link order: the normal row
    /// then its d − 1 tangent rows.
    pub fn friction_contacts(&self) -> Vec<(usize, usize, f64)> {
        let mut row = 0;
        let mut contacts = Vec::new();
        for i in &self.interactions {
            if let Some(law) = i.law.friction() {
                contacts.push((row, i.size(), law.mu()));
            }
            row += i.size();
        }
        contacts
    }

    /// Whether every system and relation is linear time-invariant (a single pass per step).
    pub fn is_linear(&self) -> bool {
        self.systems_are_linear() && self.interactions.iter().all(|i| i.relation.is_linear())
    }

    /// Whether every system has constant operators (M, ∂F/∂q, ∂F/∂v or A).
    pub fn systems_are_linear(&self) -> bool {
        self.systems.iter().all(|(_, ds)| match ds {
            DynamicalSystem::FirstOrderNonLinearDS(_) => false,
            _ => ds.as_lagrangian().is_none_or(|l| l.is_linear_time_invariant()),
        })
    }
}
