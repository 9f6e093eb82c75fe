//! The state of one scene on the time grid: what every one-step integrator reads and writes.
//!
//! All vectors are global: the coordinates of every system concatenated in insertion order,
//! so the Delassus matrix `H W⁻¹ Hᵀ` couples interactions that share a system by itself.

use nalgebra::{DMatrix, DVector, Dyn, LU};

use crate::error::{Error, Result};
use crate::model::{DsId, Interaction, Nsds};

/// One impact located inside a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocatedImpact {
    /// Its time t*.
    pub t: f64,
    /// The first (normal) row of the interaction, in the scene's λ vector.
    pub row: usize,
    /// ẏ of that row just before the impact.
    pub ydot_before: f64,
    /// ẏ just after.
    pub ydot_after: f64,
    /// The impact's normal impulse λ.
    pub lambda: f64,
}

/// One scene at step k: t_k = t₀ + k h, (q_k, v_k), the last input p and impulse λ.
pub struct SceneState {
    /// The scene.
    pub(crate) nsds: Nsds,
    /// Time step h.
    pub(crate) h: f64,
    /// Initial time t₀.
    pub(crate) t0: f64,
    /// Steps taken.
    pub(crate) k: usize,
    /// Coordinates q (or x) of all systems.
    pub(crate) q: DVector<f64>,
    /// Velocities v of all systems (empty for first-order scenes).
    pub(crate) v: DVector<f64>,
    /// Input of the last step: p = Hᵀ λ (or r = B λ).
    pub(crate) p: DVector<f64>,
    /// Impulses of the last step, interaction by interaction.
    pub(crate) lambda: DVector<f64>,
    /// Offset of each system's coordinates.
    offsets: Vec<usize>,
    /// What the one-step integrator keeps from one step to the next.
    pub(crate) memory: SchemeMemory,
    /// The impacts the last step located (none unless it locates them).
    pub(crate) impacts: Vec<LocatedImpact>,
}

/// What a one-step integrator keeps from one step to the next, its own: one kind per scheme.
#[derive(Clone, Debug, Default)]
pub(crate) enum SchemeMemory {
    /// Nothing (yet).
    #[default]
    None,
    /// Moreau–Jean's factorised iteration matrix W of a scene whose systems are all linear
    /// (W depends on h and θ only: dropped when the integrator is set).
    IterationMatrix(LU<f64, Dyn, Dyn>),
    /// What Euler–Moreau's Newton loop keeps (nonlinear first-order scenes; kept when the
    /// state, z or the integrator is set, as Siconos keeps it in its interactions).
    Newton(NewtonMemory),
    /// Nonsmooth RATTLE's first-same-as-last: (k, M, F) at (t_k, q_k) from the end kick of
    /// the step that reached step k (F independent of v), for the next half kick; dropped
    /// where the state, z or the integrator is set between steps.
    Fsal(usize, DMatrix<f64>, DVector<f64>),
}

impl SchemeMemory {
    /// Euler–Moreau's Newton memory, if that is what is kept.
    pub(crate) fn newton(&self) -> Option<&NewtonMemory> {
        match self {
            Self::Newton(memory) => Some(memory),
            _ => None,
        }
    }

    /// What survives a change of the state or z between steps: all but RATTLE's FSAL.
    pub(crate) fn state_changed(&mut self) {
        if matches!(self, Self::Fsal(..)) {
            *self = Self::None;
        }
    }

    /// What survives a change of the integrator: Euler–Moreau's Newton memory only.
    pub(crate) fn integrator_changed(&mut self) {
        if !matches!(self, Self::Newton(_)) {
            *self = Self::None;
        }
    }
}

impl SceneState {
    /// `nsds` at its initial state, at time `t0`, with step `h` (checked by the caller).
    pub(crate) fn new(nsds: Nsds, t0: f64, h: f64) -> Self {
        let mut offsets = Vec::new();
        let (mut q, mut v) = (Vec::new(), Vec::new());
        for (_, ds) in nsds.systems() {
            offsets.push(q.len());
            let (q0, v0) = ds.initial_state();
            q.extend(q0.iter());
            v.extend(v0.iter());
        }
        let n = q.len();
        let m = nsds.interactions().iter().map(Interaction::size).sum();
        Self {
            nsds,
            h,
            t0,
            k: 0,
            q: DVector::from_vec(q),
            v: DVector::from_vec(v),
            p: DVector::zeros(n),
            lambda: DVector::zeros(m),
            offsets,
            memory: SchemeMemory::None,
            impacts: Vec::new(),
        }
    }

    /// t_k = t₀ + k h.
    pub(crate) fn time_at(&self, k: usize) -> f64 {
        self.t0 + k as f64 * self.h
    }

    /// The current time t_k.
    pub(crate) fn time(&self) -> f64 {
        self.time_at(self.k)
    }

    /// The system offsets.
    pub(crate) fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// Global indices of an interaction's coordinates (its systems concatenated).
    pub(crate) fn indices(&self, inter: &Interaction) -> Vec<usize> {
        inter
            .systems
            .iter()
            .flat_map(|id| {
                let start = self.offsets[id.0];
                start..start + self.nsds.system(*id).dimension()
            })
            .collect()
    }

    /// The discrete states z of an interaction's systems, concatenated.
    pub(crate) fn z_of(&self, inter: &Interaction) -> DVector<f64> {
        self.nsds.gather(&inter.systems, crate::model::DynamicalSystem::z)
    }

    /// The entries `idx` of a global vector (an interaction's local coordinates).
    pub(crate) fn gather(idx: &[usize], x: &DVector<f64>) -> DVector<f64> {
        DVector::from_iterator(idx.len(), idx.iter().map(|&i| x[i]))
    }

    /// The outputs y = h(q, z, t), the Jacobians G (scattered over all coordinates) and
    /// ∂h/∂t of the interactions `chosen`, stacked in their order, at (q, t).
    pub(crate) fn stacked_rows<'a>(
        &self,
        chosen: impl IntoIterator<Item = &'a Interaction>,
        q: &DVector<f64>,
        t: f64,
    ) -> Result<(DVector<f64>, DMatrix<f64>, DVector<f64>)> {
        let chosen: Vec<&Interaction> = chosen.into_iter().collect();
        let m: usize = chosen.iter().map(|i| i.size()).sum();
        let (mut y, mut jac, mut hdot) = (DVector::zeros(m), DMatrix::zeros(m, q.len()), DVector::zeros(m));
        let mut r0 = 0;
        for inter in chosen {
            let (idx, size, z) = (self.indices(inter), inter.size(), self.z_of(inter));
            let local = Self::gather(&idx, q);
            y.rows_mut(r0, size).copy_from(&inter.output(&local, &z, t)?);
            hdot.rows_mut(r0, size)
                .copy_from(&inter.relation.hdot(&local, &z, t, size)?);
            let g = inter.jacobian(&local, &z, t)?;
            for (c, &k) in idx.iter().enumerate() {
                jac.view_mut((r0, k), (size, 1)).copy_from(&g.column(c));
            }
            r0 += size;
        }
        Ok((y, jac, hdot))
    }

    /// The block-diagonal mass matrix of the Lagrangian systems at the current q.
    pub(crate) fn mass(&self) -> Result<DMatrix<f64>> {
        self.block_diagonal(|i, o, d| {
            let ds = self.nsds.system(DsId(i));
            let lagrangian = ds.as_lagrangian().ok_or_else(|| Error::Unsupported {
                what: "projection onto the constraints".into(),
                reason: "needs Lagrangian systems".into(),
            })?;
            lagrangian.mass(&self.q.rows(o, d).into_owned())
        })
    }

    /// Block-diagonal assembly over the systems of `f(system index, offset, dimension)`.
    pub(crate) fn block_diagonal(
        &self,
        mut f: impl FnMut(usize, usize, usize) -> Result<DMatrix<f64>>,
    ) -> Result<DMatrix<f64>> {
        let n = self.q.len();
        let mut out = DMatrix::zeros(n, n);
        for (i, (_, ds)) in self.nsds.systems().enumerate() {
            let (o, d) = (self.offsets[i], ds.dimension());
            out.view_mut((o, o), (d, d)).copy_from(&f(i, o, d)?);
        }
        Ok(out)
    }
}

/// What Euler–Moreau's Newton loop ([`super::euler_moreau_newton`]) keeps from one step to
/// the next (Siconos's `H_ALPHA`, `G_ALPHA`, the interactions' y and the
/// systems' f_k).
#[derive(Clone, Debug)]
pub(crate) struct NewtonMemory {
    /// h_α, every interaction's rows.
    pub(crate) h_alpha: DVector<f64>,
    /// g_α of each interaction (its systems' entries).
    pub(crate) g_alpha: Vec<DVector<f64>>,
    /// The interactions' outputs y as the loop left them.
    pub(crate) y: DVector<f64>,
    /// f_k: the last f evaluated.
    pub(crate) f_k: DVector<f64>,
}
