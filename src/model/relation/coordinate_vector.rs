//! Exudyn's `ObjectConnectorCoordinateVector`: equations between the coordinate vectors of
//! two markers — here the coordinates of one or two systems, or the ground.
//!
//! With q_m0, q_m1 the markers' coordinates (a ground marker has none), the position-level
//! constraint is
//! ```text
//!     c(q) = X_m1 q_m1 + Y_m1 q_m1² − X_m0 q_m0 − Y_m0 q_m0² − v_off = 0
//! ```
//! (squares taken entrywise), with Jacobian G = [−X_m0 − 2 Y_m0 diag(q_m0), X_m1 + 2 Y_m1 diag(q_m1)].
//! With `velocity_level` it constrains velocities instead, ċ = X_m1 v_m1 − X_m0 v_m0 − v_off = 0.
//! A user function c(t, q) with its Jacobian ∂c/∂q (n_ae × len q) replaces the matrices and
//! the offset. An inactive constraint applies no force (λ = 0).
//!
//! The dimension rules are Exudyn's: n_ae is the largest row count of X_m0, Y_m0, X_m1, Y_m1;
//! each of them has 0 or n_ae rows and, when not empty, as many columns as its marker has
//! coordinates; a ground marker's matrices are empty; the offset has n_ae entries (or none).
//!
//! Moreau–Jean enforces the position-level form at velocity level, Gv = 0, so c drifts by
//! O(h) unless the time stepping projects or stabilises (see `Stabilization`).

use std::sync::Arc;

use nalgebra::{DMatrix, DVector};

use crate::error::{Error, Result};
use crate::validate;

/// A user constraint function c(t, q) (q: the markers' coordinates, concatenated).
pub type UserConstraintFn = Arc<dyn Fn(f64, &DVector<f64>) -> DVector<f64> + Send + Sync>;
/// Its Jacobian ∂c/∂q(t, q), n_ae × len q.
pub type UserJacobianFn = Arc<dyn Fn(f64, &DVector<f64>) -> DMatrix<f64> + Send + Sync>;

/// The constraint of the module docs; build it with [`CoordinateVectorConstraint::builder`].
#[derive(Clone)]
pub struct CoordinateVectorConstraint {
    name: String,
    coordinates: [usize; 2],
    scaling: [DMatrix<f64>; 2],
    quadratic: [DMatrix<f64>; 2],
    offset: DVector<f64>,
    velocity_level: bool,
    active: bool,
    user: Option<(UserConstraintFn, UserJacobianFn)>,
}

/// The output variables of a coordinate-vector constraint (Exudyn's names).
#[derive(Clone, Debug, PartialEq)]
pub struct CoordinateVectorOutputs {
    /// Δq = q_m1 − q_m0, when both markers have as many coordinates (or one is the ground).
    pub displacement: Option<DVector<f64>>,
    /// Δv = v_m1 − v_m0, likewise.
    pub velocity: Option<DVector<f64>>,
    /// The residual of the constraint equations: c(q), or ċ(v) at velocity level.
    pub constraint_equation: DVector<f64>,
    /// The constraint force λ / h (the mean force over the last step; λ is an impulse).
    pub force: DVector<f64>,
}

/// Collects the parameters of a [`CoordinateVectorConstraint`] and checks them in `build`.
pub struct CoordinateVectorBuilder {
    name: String,
    coordinates: [usize; 2],
    scaling: [Option<DMatrix<f64>>; 2],
    quadratic: [Option<DMatrix<f64>>; 2],
    offset: Option<DVector<f64>>,
    velocity_level: bool,
    active: bool,
    constraint: Option<(usize, UserConstraintFn)>,
    jacobian: Option<UserJacobianFn>,
    /// A marker index other than 0 or 1 given to `scaling` or `quadratic`.
    bad_marker: Option<usize>,
}

impl CoordinateVectorConstraint {
    /// Starts a constraint named `name` between markers with `coordinates[k]` coordinates each
    /// (0 for the ground). Link it to the marker systems in order, ground omitted.
    pub fn builder(name: &str, coordinates: [usize; 2]) -> CoordinateVectorBuilder {
        CoordinateVectorBuilder {
            name: name.into(),
            coordinates,
            scaling: [None, None],
            quadratic: [None, None],
            offset: None,
            velocity_level: false,
            active: true,
            constraint: None,
            jacobian: None,
            bad_marker: None,
        }
    }

    /// The number of algebraic equations n_ae.
    pub fn size(&self) -> usize {
        self.offset.len()
    }

    /// The number of coordinates of both markers together (the linked systems' total).
    pub fn marker_coordinates(&self) -> usize {
        self.coordinates[0] + self.coordinates[1]
    }

    /// The coordinates of each marker (0: the ground).
    pub fn coordinates(&self) -> [usize; 2] {
        self.coordinates
    }

    /// The constraint's name (given to the builder).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the constraint acts on velocities.
    pub fn is_velocity_level(&self) -> bool {
        self.velocity_level
    }

    /// Whether the constraint applies a force.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Switches the constraint on or off (off: λ = 0).
    pub fn set_active(&mut self, active: bool) {
        self.active = active;
    }

    /// Whether c is affine in q with constant operators.
    pub fn is_linear(&self) -> bool {
        self.user.is_none() && self.quadratic.iter().all(|y| y.iter().all(|&x| x == 0.0))
    }

    /// (H, Y, b) of c(q) = H q + Y q² + b (squares entrywise, q both markers' coordinates):
    /// H = [−X_m0, X_m1], Y = [−Y_m0, Y_m1], b = −v_off; `None` for a user function.
    pub fn quadratic_form(&self) -> Option<(DMatrix<f64>, DMatrix<f64>, DVector<f64>)> {
        if self.user.is_some() {
            return None;
        }
        let side_by_side = |m: &[DMatrix<f64>; 2]| {
            let mut out = DMatrix::zeros(self.size(), self.marker_coordinates());
            out.columns_mut(0, self.coordinates[0]).copy_from(&(-&m[0]));
            out.columns_mut(self.coordinates[0], self.coordinates[1])
                .copy_from(&m[1]);
            out
        };
        Some((
            side_by_side(&self.scaling),
            side_by_side(&self.quadratic),
            -&self.offset,
        ))
    }

    fn split<'a>(&self, q: &'a DVector<f64>) -> [nalgebra::DVectorView<'a, f64>; 2] {
        [
            q.rows(0, self.coordinates[0]),
            q.rows(self.coordinates[0], self.coordinates[1]),
        ]
    }

    /// c(q) at position level; zero (no position output) at velocity level.
    pub(crate) fn output(&self, q: &DVector<f64>, t: f64) -> DVector<f64> {
        if self.velocity_level {
            return DVector::zeros(self.size());
        }
        if let Some((c, _)) = &self.user {
            return c(t, q);
        }
        let [q0, q1] = self.split(q);
        let squares = |x: nalgebra::DVectorView<f64>| x.map(|v| v * v);
        &self.scaling[1] * q1 + &self.quadratic[1] * squares(q1)
            - &self.scaling[0] * q0
            - &self.quadratic[0] * squares(q0)
            - &self.offset
    }

    /// G = ∂c/∂q (∂ċ/∂v at velocity level).
    pub(crate) fn jacobian(&self, q: &DVector<f64>, t: f64) -> DMatrix<f64> {
        if let Some((_, jacobian)) = &self.user {
            return jacobian(t, q);
        }
        let [q0, q1] = self.split(q);
        let [n0, n1] = self.coordinates;
        let mut g = DMatrix::zeros(self.size(), n0 + n1);
        for (k, (start, x)) in [(0, q0), (n0, q1)].into_iter().enumerate() {
            let sign = if k == 0 { -1.0 } else { 1.0 };
            for j in 0..self.coordinates[k] {
                let column = self.scaling[k].column(j) + self.quadratic[k].column(j) * (2.0 * x[j]);
                g.column_mut(start + j).copy_from(&(column * sign));
            }
        }
        g
    }

    /// ∂c/∂t: −v_off at velocity level; for a user function c(t, q), by central differences
    /// (c(t + δ) − c(t − δ)) / 2δ, δ = 10⁻⁶ max(1, |t|); else zero.
    pub(crate) fn hdot(&self, q: &DVector<f64>, t: f64) -> DVector<f64> {
        if self.velocity_level {
            return -&self.offset;
        }
        match &self.user {
            Some((c, _)) => {
                let delta = 1e-6 * t.abs().max(1.0);
                (c(t + delta, q) - c(t - delta, q)) / (2.0 * delta)
            }
            None => DVector::zeros(self.size()),
        }
    }

    /// The output variables at the markers' coordinates q, velocities v and the interaction's
    /// last impulse λ over a step h.
    pub fn outputs(
        &self,
        q: &DVector<f64>,
        v: &DVector<f64>,
        lambda: &DVector<f64>,
        t: f64,
        h: f64,
    ) -> CoordinateVectorOutputs {
        let difference = |x: &DVector<f64>| {
            let [x0, x1] = self.split(x);
            match self.coordinates {
                [0, _] => Some(x1.into_owned()),
                [_, 0] => Some(-x0),
                [n0, n1] if n0 == n1 => Some(x1 - x0),
                _ => None,
            }
        };
        let constraint_equation = if self.velocity_level {
            self.jacobian(q, t) * v + self.hdot(q, t)
        } else {
            self.output(q, t)
        };
        CoordinateVectorOutputs {
            displacement: difference(q),
            velocity: difference(v),
            constraint_equation,
            force: lambda / h,
        }
    }
}

impl CoordinateVectorBuilder {
    /// X_m: the linear scaling of marker `marker`'s coordinates (n_ae × n_q).
    pub fn scaling(mut self, marker: usize, x: DMatrix<f64>) -> Self {
        self.bad_marker = self.bad_marker.or((marker > 1).then_some(marker));
        self.scaling[marker.min(1)] = Some(x);
        self
    }

    /// Y_m: the scaling of marker `marker`'s squared coordinates (n_ae × n_q).
    pub fn quadratic(mut self, marker: usize, y: DMatrix<f64>) -> Self {
        self.bad_marker = self.bad_marker.or((marker > 1).then_some(marker));
        self.quadratic[marker.min(1)] = Some(y);
        self
    }

    /// v_off, the offset of the equations (n_ae).
    pub fn offset(mut self, offset: DVector<f64>) -> Self {
        self.offset = Some(offset);
        self
    }

    /// Constrain velocities instead of coordinates.
    pub fn velocity_level(mut self, velocity_level: bool) -> Self {
        self.velocity_level = velocity_level;
        self
    }

    /// Start active (default) or inactive.
    pub fn active(mut self, active: bool) -> Self {
        self.active = active;
        self
    }

    /// A user constraint function c(t, q) of `size` equations (needs [`Self::jacobian_function`]).
    pub fn constraint_function(
        mut self,
        size: usize,
        c: impl Fn(f64, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
    ) -> Self {
        self.constraint = Some((size, Arc::new(c)));
        self
    }

    /// The Jacobian ∂c/∂q(t, q) of the user function, n_ae × (n_q0 + n_q1).
    pub fn jacobian_function(mut self, j: impl Fn(f64, &DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static) -> Self {
        self.jacobian = Some(Arc::new(j));
        self
    }

    /// Checks the dimension rules of the module docs.
    pub fn build(self) -> Result<CoordinateVectorConstraint> {
        let name = format!("coordinate-vector constraint `{}`", self.name);
        let unsupported = |reason: String| Error::Unsupported {
            what: name.clone(),
            reason,
        };
        if let Some(marker) = self.bad_marker {
            return Err(unsupported(format!("has no marker {marker}: markers are 0 and 1")));
        }
        let labels = [["X_m0", "X_m1"], ["Y_m0", "Y_m1"]];
        let given = || {
            [&self.scaling, &self.quadratic]
                .into_iter()
                .zip(labels)
                .flat_map(|(pair, label)| {
                    pair.iter()
                        .zip(label)
                        .zip(0..2)
                        .filter_map(|((m, l), k)| m.as_ref().map(|m| (m, l, k)))
                })
        };
        let user = match (self.constraint, self.jacobian) {
            (Some((size, c)), Some(j)) => Some((size, c, j)),
            (None, None) => None,
            (Some(_), None) => {
                return Err(unsupported(
                    "has a constraint user function but no Jacobian user function".into(),
                ));
            }
            (None, Some(_)) => {
                return Err(unsupported(
                    "has a Jacobian user function but no constraint user function".into(),
                ));
            }
        };
        let n_ae = match &user {
            Some((size, ..)) => *size,
            None => given().map(|(m, ..)| m.nrows()).max().unwrap_or(0),
        };
        if n_ae == 0 {
            return Err(unsupported(
                "has no equation: give X_m0, X_m1, Y_m0, Y_m1 or a user function".into(),
            ));
        }
        for (m, label, k) in given() {
            if m.nrows() == 0 && m.ncols() == 0 {
                continue;
            }
            validate::matrix(&format!("{name}: {label}"), m, n_ae, self.coordinates[k])?;
        }
        let offset = self.offset.unwrap_or_else(|| DVector::zeros(n_ae));
        validate::vector(&format!("{name}: offset"), &offset, n_ae)?;
        let full = |m: &Option<DMatrix<f64>>, k: usize| match m {
            Some(m) if m.nrows() > 0 => m.clone(),
            _ => DMatrix::zeros(n_ae, self.coordinates[k]),
        };
        let constraint = CoordinateVectorConstraint {
            coordinates: self.coordinates,
            scaling: [full(&self.scaling[0], 0), full(&self.scaling[1], 1)],
            quadratic: [full(&self.quadratic[0], 0), full(&self.quadratic[1], 1)],
            offset,
            velocity_level: self.velocity_level,
            active: self.active,
            user: user.map(|(_, c, j)| (c, j)),
            name: self.name,
        };
        if constraint.velocity_level && !(constraint.is_linear()) {
            return Err(unsupported(
                "velocity level takes X_m0, X_m1 and the offset only (quadratic terms or a user function would make ċ nonlinear in v; use PfaffianR for a(q) v = 0)".into(),
            ));
        }
        Ok(constraint)
    }
}

impl std::fmt::Debug for CoordinateVectorConstraint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoordinateVectorConstraint")
            .field("name", &self.name)
            .field("coordinates", &self.coordinates)
            .field("size", &self.size())
            .field("velocity_level", &self.velocity_level)
            .field("active", &self.active)
            .field("user_function", &self.user.is_some())
            .finish()
    }
}
