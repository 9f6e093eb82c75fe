//! Nonlinear first-order relations (Siconos's `FirstOrderNonLinearR`, `FirstOrderType2R`,
//! `FirstOrderType1R`: `kernel/src/modelingTools/FirstOrder*R.hpp`), x and z the concatenated
//! states and discrete states of the interaction's one or two systems:
//! ```text
//!     FirstOrderNonLinearR:  y = h(t, x, λ, z),   r = g(t, x, λ, z)
//!     FirstOrderType2R:      y = h(x, λ),         r = g(λ)            (K = ∇ₓg = 0)
//!     FirstOrderType1R:      y = h(x, z),         r = g(λ, z)         (D = 0, K = 0)
//! ```
//! with the Jacobians C = ∇ₓh, D = ∇_λh, B = ∇_λg and K = ∇ₓg (Siconos's code names; the
//! H₀, H₁, G₁, G₀ of its `docs/sphinx/users_guide/relations.rst`). Each Jacobian is a constant
//! matrix, a closure of (t, x, λ, z), or — where neither is given — central finite differences
//! of h or g (step 1e-7·max(1, |u_j|)).
//! The closures read z; they do not write it (z changes between steps, by user code).
//!
//! Type2R and Type1R are the general relation with the arguments they ignore and the
//! Jacobians they know to be zero: Euler–Moreau runs all three through the same Newton loop
//! (Type1R as Type2R with D = 0: Siconos's own Type1R path cannot run that loop, as
//! `kernel/src/simulationTools/EulerMoreauOSI.cpp` allocates no g_α or r-residual for it).

use std::sync::Arc;

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::force::central_difference;
use crate::validate;

/// A function of (t, x, λ, z): h or g.
pub type RelationFn = Arc<dyn Fn(f64, &DVector<f64>, &DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync>;
/// A Jacobian closure of (t, x, λ, z).
pub type RelationJacobianFn =
    Arc<dyn Fn(f64, &DVector<f64>, &DVector<f64>, &DVector<f64>) -> DMatrix<f64> + Send + Sync>;

/// How a Jacobian of a nonlinear relation is obtained.
#[derive(Clone)]
pub enum Jacobian {
    /// Central finite differences of h or g.
    FiniteDifference,
    /// Known to be zero.
    Zero,
    /// A constant matrix (Siconos's `setCPtr`, `setBPtr`, …).
    Constant(DMatrix<f64>),
    /// A closure of (t, x, λ, z).
    Function(RelationJacobianFn),
}

impl Jacobian {
    /// A Jacobian given by a closure of (t, x, λ, z).
    pub fn function(
        f: impl Fn(f64, &DVector<f64>, &DVector<f64>, &DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Self {
        Self::Function(Arc::new(f))
    }
}

impl From<DMatrix<f64>> for Jacobian {
    fn from(m: DMatrix<f64>) -> Self {
        Self::Constant(m)
    }
}

/// The point (t, x, λ, z) at which a relation is evaluated.
#[derive(Clone, Copy)]
pub(crate) struct At<'a> {
    pub t: f64,
    pub x: &'a DVector<f64>,
    pub lambda: &'a DVector<f64>,
    pub z: &'a DVector<f64>,
}

/// The four Jacobians at one point.
#[derive(Clone, Debug)]
pub(crate) struct Linearisation {
    /// C = ∇ₓh (m × n).
    pub c: DMatrix<f64>,
    /// D = ∇_λh (m × m).
    pub d: DMatrix<f64>,
    /// B = ∇_λg (n × m).
    pub b: DMatrix<f64>,
    /// K = ∇ₓg (n × n).
    pub k: DMatrix<f64>,
}

/// `y = h(t, x, λ, z)`, `r = g(t, x, λ, z)` (see the [module](self) documentation).
#[derive(Clone)]
pub struct FirstOrderNonLinearR {
    pub(crate) kind: &'static str,
    pub(crate) h: RelationFn,
    pub(crate) g: RelationFn,
    pub(crate) c: Jacobian,
    pub(crate) d: Jacobian,
    pub(crate) b: Jacobian,
    pub(crate) k: Jacobian,
}

impl FirstOrderNonLinearR {
    /// The relation y = h(t, x, λ, z), r = g(t, x, λ, z), its Jacobians by finite differences
    /// until given. h and g are checked when the relation is linked.
    pub fn new(
        h: impl Fn(f64, &DVector<f64>, &DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
        g: impl Fn(f64, &DVector<f64>, &DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
    ) -> Self {
        Self {
            kind: "FirstOrderNonLinearR",
            h: Arc::new(h),
            g: Arc::new(g),
            c: Jacobian::FiniteDifference,
            d: Jacobian::FiniteDifference,
            b: Jacobian::FiniteDifference,
            k: Jacobian::FiniteDifference,
        }
    }

    /// Sets C = ∇ₓh.
    pub fn with_c(mut self, c: impl Into<Jacobian>) -> Self {
        self.c = c.into();
        self
    }

    /// Sets D = ∇_λh.
    pub fn with_d(mut self, d: impl Into<Jacobian>) -> Self {
        self.d = d.into();
        self
    }

    /// Sets B = ∇_λg.
    pub fn with_b(mut self, b: impl Into<Jacobian>) -> Self {
        self.b = b.into();
        self
    }

    /// Sets K = ∇ₓg.
    pub fn with_k(mut self, k: impl Into<Jacobian>) -> Self {
        self.k = k.into();
        self
    }

    /// Siconos's name of the relation (`FirstOrderNonLinearR`, `FirstOrderType2R`, …).
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// y = h(t, x, λ, z).
    pub(crate) fn h(&self, at: At) -> DVector<f64> {
        (self.h)(at.t, at.x, at.lambda, at.z)
    }

    /// r = g(t, x, λ, z).
    pub(crate) fn g(&self, at: At) -> DVector<f64> {
        (self.g)(at.t, at.x, at.lambda, at.z)
    }

    /// C, D, B and K at `at`, with `m` rows and `n` state entries.
    pub(crate) fn linearise(&self, at: At, m: usize, n: usize) -> Linearisation {
        let wrt_x = |f: &RelationFn| central_difference(|x| f(at.t, x, at.lambda, at.z), at.x);
        let wrt_lambda = |f: &RelationFn| central_difference(|l| f(at.t, at.x, l, at.z), at.lambda);
        let eval = |jacobian: &Jacobian, rows: usize, cols: usize, difference: &dyn Fn() -> DMatrix<f64>| match jacobian
        {
            Jacobian::FiniteDifference => difference(),
            Jacobian::Zero => DMatrix::zeros(rows, cols),
            Jacobian::Constant(matrix) => matrix.clone(),
            Jacobian::Function(f) => f(at.t, at.x, at.lambda, at.z),
        };
        Linearisation {
            c: eval(&self.c, m, n, &|| wrt_x(&self.h)),
            d: eval(&self.d, m, m, &|| wrt_lambda(&self.h)),
            b: eval(&self.b, n, m, &|| wrt_lambda(&self.g)),
            k: eval(&self.k, n, n, &|| wrt_x(&self.g)),
        }
    }

    /// Checks h, g and the Jacobians at `at` against the relation size m and the state size
    /// n: shapes, and finite values.
    pub(crate) fn check(&self, what: &str, at: At, m: usize, n: usize) -> Result<()> {
        let what = format!("{what} ({})", self.kind);
        let y = self.h(at);
        validate::vector(&format!("{what}: h(t, x, λ, z)"), &y, m)?;
        validate::finite_vector(&format!("{what}: h(t, x, λ, z)"), &y)?;
        let r = self.g(at);
        validate::vector(&format!("{what}: g(t, x, λ, z)"), &r, n)?;
        validate::finite_vector(&format!("{what}: g(t, x, λ, z)"), &r)?;
        self.check_linearisation(&what, &self.linearise(at, m, n), m, n)
    }

    /// Checks the Jacobians' shapes and values.
    pub(crate) fn check_linearisation(&self, what: &str, l: &Linearisation, m: usize, n: usize) -> Result<()> {
        for (name, matrix, rows, cols) in [
            ("C = ∇ₓh", &l.c, m, n),
            ("D = ∇_λh", &l.d, m, m),
            ("B = ∇_λg", &l.b, n, m),
            ("K = ∇ₓg", &l.k, n, n),
        ] {
            validate::matrix(&format!("{what}: {name}"), matrix, rows, cols)?;
            validate::finite_matrix(&format!("{what}: {name}"), matrix)?;
        }
        Ok(())
    }
}

/// Siconos's `FirstOrderType2R`: y = h(x, λ), r = g(λ), K = 0 (no t, no z).
pub struct FirstOrderType2R;

impl FirstOrderType2R {
    /// The relation y = h(x, λ), r = g(λ), as a [`FirstOrderNonLinearR`] with K = 0 whose C,
    /// D and B are set (or differenced) as that relation's.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(
        h: impl Fn(&DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
        g: impl Fn(&DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
    ) -> FirstOrderNonLinearR {
        FirstOrderNonLinearR {
            kind: "FirstOrderType2R",
            k: Jacobian::Zero,
            ..FirstOrderNonLinearR::new(move |_, x, l, _| h(x, l), move |_, _, l, _| g(l))
        }
    }
}

/// Siconos's `FirstOrderType1R`: y = h(x, z), r = g(λ, z), D = 0, K = 0.
pub struct FirstOrderType1R;

impl FirstOrderType1R {
    /// The relation y = h(x, z), r = g(λ, z), as a [`FirstOrderNonLinearR`] with D = K = 0
    /// whose C and B are set (or differenced) as that relation's.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(
        h: impl Fn(&DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
        g: impl Fn(&DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
    ) -> FirstOrderNonLinearR {
        FirstOrderNonLinearR {
            kind: "FirstOrderType1R",
            d: Jacobian::Zero,
            k: Jacobian::Zero,
            ..FirstOrderNonLinearR::new(move |_, x, _, z| h(x, z), move |_, _, l, z| g(l, z))
        }
    }
}
