//! Models built from Python with arrays: the linear time-invariant Lagrangian system, the
//! Lagrangian system with Python functions ([`callbacks`]), the linear relation, the laws
//! (Newton impact, with friction, equality, complementarity), the [`Nsds`] that links them
//! and the reference [`TimeStepping`] that steps it, whose trajectory comes back as arrays.

use nalgebra::DVector;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use ricochet::model::force::Force;
use ricochet::model::{self, DsId};
use ricochet::numerics::SolverKind;
use ricochet::reference::{self, Integrator, Trajectory};
use ricochet::scheme::{MoreauJeanOSI, NonsmoothRattleOSI};

use crate::callbacks::{self, Failure, first};
use crate::convert::{exception, rows_to_matrix};

/// M v̇ = F_ext − K q − C v + p (Siconos's `LagrangianLinearTIDS`).
#[pyclass(module = "ricochet._ricochet", frozen)]
pub struct LagrangianLinearTIDS {
    inner: model::LagrangianLinearTIDS,
}

#[pymethods]
impl LagrangianLinearTIDS {
    /// q0, v0 (n), the mass M (n × n, symmetric positive definite), and optionally the
    /// stiffness K, the damping C (n × n) and a constant F_ext (n).
    #[new]
    #[pyo3(signature = (q0, v0, mass, stiffness=None, damping=None, fext=None))]
    fn new(
        q0: Vec<f64>,
        v0: Vec<f64>,
        mass: Vec<Vec<f64>>,
        stiffness: Option<Vec<Vec<f64>>>,
        damping: Option<Vec<Vec<f64>>>,
        fext: Option<Vec<f64>>,
    ) -> PyResult<Self> {
        let mut inner = model::LagrangianLinearTIDS::new(
            DVector::from_vec(q0),
            DVector::from_vec(v0),
            rows_to_matrix("mass", mass)?,
        )
        .map_err(exception)?;
        if let Some(k) = stiffness {
            inner = inner
                .with_stiffness(rows_to_matrix("stiffness", k)?)
                .map_err(exception)?;
        }
        if let Some(c) = damping {
            inner = inner.with_damping(rows_to_matrix("damping", c)?).map_err(exception)?;
        }
        if let Some(f) = fext {
            inner = inner.with_fext(DVector::from_vec(f)).map_err(exception)?;
        }
        Ok(Self { inner })
    }
}

/// M(q) v̇ = F_ext(t) − F_int(q, v, t) + p (Siconos's `LagrangianDS`), M, F_int and F_ext
/// given as arrays or Python functions.
#[pyclass(module = "ricochet._ricochet", frozen)]
pub struct LagrangianDS {
    inner: model::LagrangianDS,
    failure: Failure,
}

#[pymethods]
impl LagrangianDS {
    /// q0, v0 (n); `mass`: an n × n matrix or a function M(q); `fint`: a function F_int(q, v,
    /// t) with optional Jacobians `fint_jacobians = (∂F_int/∂q, ∂F_int/∂v)` (functions of q,
    /// v, t; central differences where not given); `fext`: a vector or a function F_ext(t).
    /// Functions get numpy arrays and return arrays (or lists) of the right size.
    #[new]
    #[pyo3(signature = (q0, v0, mass, fint=None, fint_jacobians=None, fext=None))]
    fn new(
        q0: Vec<f64>,
        v0: Vec<f64>,
        mass: Bound<'_, PyAny>,
        fint: Option<Py<PyAny>>,
        fint_jacobians: Option<(Py<PyAny>, Py<PyAny>)>,
        fext: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (n, failure) = (q0.len(), Failure::default());
        let (q0, v0) = (DVector::from_vec(q0), DVector::from_vec(v0));
        let built = (|| {
            let mut ds = if mass.is_callable() {
                model::LagrangianDS::with_mass_fn(q0, v0, callbacks::mass(mass.unbind(), failure.clone(), n))
            } else {
                model::LagrangianDS::new(q0, v0, rows_to_matrix("mass", mass.extract()?)?)
            }
            .map_err(exception)?;
            if let Some(f) = fint {
                let mut force = Force::new(callbacks::force(f, failure.clone(), n));
                if let Some((jq, jv)) = fint_jacobians {
                    force = force
                        .with_jacobian_q(callbacks::jacobian(jq, failure.clone(), n))
                        .with_jacobian_v(callbacks::jacobian(jv, failure.clone(), n));
                }
                ds = ds.with_fint(force).map_err(exception)?;
            }
            match fext {
                Some(f) if f.is_callable() => {
                    ds = ds
                        .with_fext_fn(callbacks::external(f.unbind(), failure.clone(), n))
                        .map_err(exception)?;
                }
                Some(f) => ds = ds.with_fext(DVector::from_vec(f.extract()?)).map_err(exception)?,
                None => {}
            }
            Ok::<_, PyErr>(ds)
        })();
        // A function that raised: its own exception rather than the check that found NaN.
        if let Some(e) = failure.take() {
            return Err(e);
        }
        Ok(Self { inner: built?, failure })
    }
}

/// y = H q + b, p = Hᵀ λ (Siconos's `LagrangianLinearTIR`).
#[pyclass(module = "ricochet._ricochet", frozen)]
pub struct LagrangianLinearTIR {
    inner: model::LagrangianLinearTIR,
}

#[pymethods]
impl LagrangianLinearTIR {
    /// H (m × n: the rows over the coordinates of the linked systems, in order) and b (m).
    #[new]
    #[pyo3(signature = (h, b=None))]
    fn new(h: Vec<Vec<f64>>, b: Option<Vec<f64>>) -> PyResult<Self> {
        let h = rows_to_matrix("H", h)?;
        let inner = match b {
            Some(b) => model::LagrangianLinearTIR::with_offset(h, DVector::from_vec(b)),
            None => model::LagrangianLinearTIR::new(h),
        }
        .map_err(exception)?;
        Ok(Self { inner })
    }
}

/// Newton's impact law: 0 ≤ ẏ⁺ + e ẏ⁻ ⟂ λ ≥ 0 where a contact closes (y ≤ 0).
#[pyclass(module = "ricochet._ricochet", frozen)]
pub struct NewtonImpactNSL {
    inner: model::NewtonImpactNSL,
}

#[pymethods]
impl NewtonImpactNSL {
    /// The restitution e ∈ [0, 1], for `size` rows.
    #[new]
    #[pyo3(signature = (e, size=1))]
    fn new(e: f64, size: usize) -> PyResult<Self> {
        Ok(Self {
            inner: model::NewtonImpactNSL::with_size(e, size).map_err(exception)?,
        })
    }
}

/// Newton impact and Coulomb friction on a contact's rows (normal, then one or two
/// tangents): ẏ_N⁺ = −e_N ẏ_N⁻ where it closes, ‖λ_T‖ ≤ μ λ_N, sliding against ẏ_T.
#[pyclass(module = "ricochet._ricochet", frozen)]
pub struct NewtonImpactFrictionNSL {
    inner: model::NewtonImpactFrictionNSL,
}

#[pymethods]
impl NewtonImpactFrictionNSL {
    /// Restitutions e_N, e_T ∈ [0, 1], friction coefficient μ ≥ 0, `size` 2 (planar) or 3.
    #[new]
    #[pyo3(signature = (e_n, e_t, mu, size=2))]
    fn new(e_n: f64, e_t: f64, mu: f64, size: usize) -> PyResult<Self> {
        Ok(Self {
            inner: model::NewtonImpactFrictionNSL::new(e_n, e_t, mu, size).map_err(exception)?,
        })
    }
}

/// y = 0 on `size` rows (a bilateral constraint; λ free).
#[pyclass(module = "ricochet._ricochet", frozen)]
pub struct EqualityConditionNSL {
    inner: model::EqualityConditionNSL,
}

#[pymethods]
impl EqualityConditionNSL {
    #[new]
    #[pyo3(signature = (size=1))]
    fn new(size: usize) -> PyResult<Self> {
        Ok(Self {
            inner: model::EqualityConditionNSL::new(size).map_err(exception)?,
        })
    }
}

/// 0 ≤ y ⟂ λ ≥ 0 on `size` rows.
#[pyclass(module = "ricochet._ricochet", frozen)]
pub struct ComplementarityConditionNSL {
    inner: model::ComplementarityConditionNSL,
}

#[pymethods]
impl ComplementarityConditionNSL {
    #[new]
    #[pyo3(signature = (size=1))]
    fn new(size: usize) -> PyResult<Self> {
        Ok(Self {
            inner: model::ComplementarityConditionNSL::new(size).map_err(exception)?,
        })
    }
}

/// A law to link with.
#[derive(FromPyObject)]
enum Law<'py> {
    Newton(PyRef<'py, NewtonImpactNSL>),
    Friction(PyRef<'py, NewtonImpactFrictionNSL>),
    Equality(PyRef<'py, EqualityConditionNSL>),
    Complementarity(PyRef<'py, ComplementarityConditionNSL>),
}

impl From<Law<'_>> for model::NonSmoothLaw {
    fn from(law: Law<'_>) -> Self {
        match law {
            Law::Newton(l) => l.inner.into(),
            Law::Friction(l) => l.inner.into(),
            Law::Equality(l) => l.inner.into(),
            Law::Complementarity(l) => l.inner.into(),
        }
    }
}

/// A nonsmooth dynamical system: systems linked by interactions (one scene).
#[pyclass(module = "ricochet._ricochet")]
#[derive(Default)]
pub struct Nsds {
    pub inner: model::Nsds,
    /// Where its systems' Python functions keep an exception.
    pub failures: Vec<Failure>,
}

/// A system to add.
#[derive(FromPyObject)]
enum System<'py> {
    Linear(PyRef<'py, LagrangianLinearTIDS>),
    Nonlinear(PyRef<'py, LagrangianDS>),
}

#[pymethods]
impl Nsds {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Adds a system (a `LagrangianLinearTIDS` or a `LagrangianDS`) under `name`; returns
    /// its index (for `link`).
    fn add(&mut self, name: &str, system: System<'_>) -> usize {
        match system {
            System::Linear(ds) => self.inner.add(name, ds.inner.clone()).0,
            System::Nonlinear(ds) => {
                self.failures.push(ds.failure.clone());
                self.inner.add(name, ds.inner.clone()).0
            }
        }
    }

    /// Links the systems `systems` (indices from `add`) by `relation` under `law` (Newton
    /// impact, Newton impact with friction, equality, complementarity); returns the
    /// interaction's index.
    fn link(
        &mut self,
        name: &str,
        law: Law<'_>,
        relation: &LagrangianLinearTIR,
        systems: Vec<usize>,
    ) -> PyResult<usize> {
        let systems: Vec<DsId> = systems.into_iter().map(DsId).collect();
        let id = (self.inner)
            .link(name, model::NonSmoothLaw::from(law), relation.inner.clone(), &systems)
            .map_err(exception)?;
        Ok(id.0)
    }
}

/// A vector of a sample.
type Field = fn(&reference::Sample) -> &DVector<f64>;

/// The reference time stepping of one scene (f64, an LCP per step).
#[pyclass(module = "ricochet._ricochet")]
pub struct TimeStepping {
    inner: reference::TimeStepping,
    failures: Vec<Failure>,
}

#[pymethods]
impl TimeStepping {
    /// `nsds` stepped from `t0` by `h` with `integrator` (`moreau_jean`, θ = `theta`, or
    /// `rattle`) and the LCP `solver` (`lemke`, `pgs`, `jacobi`, `enumerative`).
    #[new]
    #[pyo3(signature = (nsds, h, t0=0.0, integrator="moreau_jean", theta=0.5, solver="lemke"))]
    fn new(nsds: &Nsds, h: f64, t0: f64, integrator: &str, theta: f64, solver: &str) -> PyResult<Self> {
        let integrator = match integrator {
            "moreau_jean" | "moreau-jean" => Integrator::MoreauJean(MoreauJeanOSI {
                theta,
                ..MoreauJeanOSI::default()
            }),
            "rattle" => Integrator::NonsmoothRattle(NonsmoothRattleOSI::default()),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "integrator `{integrator}`: expected moreau_jean or rattle"
                )));
            }
        };
        let solver = match solver {
            "lemke" => SolverKind::Lemke,
            "pgs" => SolverKind::Pgs,
            "jacobi" => SolverKind::Jacobi,
            "enumerative" => SolverKind::Enumerative,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "solver `{solver}`: expected lemke, pgs, jacobi or enumerative"
                )));
            }
        };
        let failures = nsds.failures.clone();
        let mut inner = reference::TimeStepping::new(nsds.inner.clone(), integrator, t0, h)
            .map_err(|e| first(&failures).unwrap_or_else(|| exception(e)))?;
        inner.solver = solver;
        Ok(Self { inner, failures })
    }

    /// Steps to `t_final` (the GIL released) and returns the samples of every step, the
    /// start included: a dict of name → (bytes of f64, shape) for `t`, `q`, `v`, `p`, `y`,
    /// `ydot`, `lambda`, `energy`.
    fn run(&mut self, py: Python<'_>, t_final: f64) -> PyResult<Py<PyAny>> {
        let mut trajectory = Trajectory::default();
        let sim = &mut self.inner;
        let outcome = py.detach(|| sim.run(t_final, &mut trajectory));
        // A function that raised: its own exception rather than the check that found NaN.
        if let Some(e) = first(&self.failures) {
            return Err(e);
        }
        outcome.map_err(exception)?;
        let samples = &trajectory.samples;
        if samples.is_empty() {
            return Err(PyRuntimeError::new_err("no sample was recorded"));
        }
        let out = PyDict::new(py);
        let vectors: [(&str, Field); 6] = [
            ("q", |s| &s.q),
            ("v", |s| &s.v),
            ("p", |s| &s.p),
            ("y", |s| &s.y),
            ("ydot", |s| &s.ydot),
            ("lambda", |s| &s.lambda),
        ];
        for (name, field) in vectors {
            let width = samples.iter().map(|s| field(s).len()).max().unwrap_or(0);
            let mut values = Vec::with_capacity(samples.len() * width);
            for s in samples {
                let v = field(s);
                // (Before the first step λ, p have no value: NaN.)
                values.extend((0..width).map(|i| v.get(i).copied().unwrap_or(f64::NAN)));
            }
            out.set_item(
                name,
                (
                    PyBytes::new(py, bytemuck::cast_slice::<f64, u8>(&values)),
                    (samples.len(), width),
                ),
            )?;
        }
        for (name, values) in [
            ("t", samples.iter().map(|s| s.t).collect::<Vec<_>>()),
            ("energy", samples.iter().map(|s| s.energy).collect()),
        ] {
            out.set_item(
                name,
                (
                    PyBytes::new(py, bytemuck::cast_slice::<f64, u8>(&values)),
                    (samples.len(),),
                ),
            )?;
        }
        Ok(out.into_any().unbind())
    }

    /// The current time.
    #[getter]
    fn time(&self) -> f64 {
        self.inner.time()
    }
}
