//! The reference time stepping of one scene from Python: its integrator, LCP solver and
//! stabilisation by name, runs whose samples come back as arrays (what a failed run had
//! recorded included), and the discrete states and constraint switches changed between runs.

use nalgebra::DVector;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use ricochet::model::{DsId, InteractionId};
use ricochet::numerics::SolverKind;
use ricochet::reference::{self, Integrator, Trajectory};
use ricochet::scheme::moreau_jean::Activation;
use ricochet::scheme::{EulerMoreauOSI, MoreauJeanOSI, NonsmoothRattleOSI, Stabilization};
use serde::Deserialize;
use serde::de::value::StrDeserializer;

use super::Nsds;
use crate::callbacks::{Failure, raised_or};
use crate::convert::exception;

/// A vector of a sample.
type Field = fn(&reference::Sample) -> &DVector<f64>;
/// A number of a sample.
type Scalar = fn(&reference::Sample) -> f64;

/// The reference time stepping of one scene (f64, an LCP per step).
#[pyclass(module = "ricochet._ricochet")]
pub struct TimeStepping {
    inner: reference::TimeStepping,
    failures: Vec<Failure>,
}

/// `integrator` by name with θ, γ (`None`: the scheme's default) and `activation`.
fn integrator(name: &str, theta: f64, gamma: Option<f64>, activation: &str) -> PyResult<Integrator> {
    let activation = match activation {
        "current" => Activation::Current,
        "predicted" => Activation::Predicted,
        _ => {
            return Err(PyValueError::new_err(format!(
                "activation `{activation}`: expected current or predicted"
            )));
        }
    };
    Ok(match name {
        "moreau_jean" | "moreau-jean" => {
            let gamma = gamma.unwrap_or(MoreauJeanOSI::default().gamma);
            Integrator::MoreauJean(
                MoreauJeanOSI::new(theta, gamma)
                    .map_err(exception)?
                    .with_activation(activation),
            )
        }
        "euler_moreau" | "euler-moreau" => Integrator::EulerMoreau(EulerMoreauOSI {
            relation_gamma: gamma,
            ..EulerMoreauOSI::new(theta).map_err(exception)?
        }),
        "rattle" => Integrator::NonsmoothRattle(NonsmoothRattleOSI::default()),
        _ => {
            return Err(PyValueError::new_err(format!(
                "integrator `{name}`: expected moreau_jean, euler_moreau or rattle"
            )));
        }
    })
}

#[pymethods]
impl TimeStepping {
    /// `nsds` stepped from `t0` by `h` with `integrator` (`moreau_jean`: θ = `theta`, the
    /// activation predictor γ = `gamma` at q_k (`activation="current"`) or q_k + h v_k
    /// (`"predicted"`); `euler_moreau` for first-order systems, θ = `theta`, the relation at
    /// x_{k+γ}; `rattle`), the LCP `solver` (`lemke`, `pgs`, `jacobi`, `enumerative`) and the
    /// `stabilization` of equality constraints (`none`, `baumgarte` with gain `beta`,
    /// `projection`); `locate_impacts`: each impact applied at its time inside the step
    /// (Moreau–Jean).
    #[new]
    #[pyo3(signature = (nsds, h, t0=0.0, integrator="moreau_jean", theta=0.5, gamma=None, activation="current",
                        solver="lemke", stabilization="none", beta=0.5, locate_impacts=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        nsds: &Nsds,
        h: f64,
        t0: f64,
        integrator: &str,
        theta: f64,
        gamma: Option<f64>,
        activation: &str,
        solver: &str,
        stabilization: &str,
        beta: f64,
        locate_impacts: bool,
    ) -> PyResult<Self> {
        let integrator = self::integrator(integrator, theta, gamma, activation)?;
        // By the names scenario files use.
        let solver = SolverKind::deserialize(StrDeserializer::<serde::de::value::Error>::new(solver))
            .map_err(|e| PyValueError::new_err(format!("solver: {e}")))?;
        let stabilization = match stabilization {
            "none" => Stabilization::None,
            "baumgarte" => Stabilization::Baumgarte { beta },
            "projection" => Stabilization::projection(),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "stabilization `{stabilization}`: expected none, baumgarte or projection"
                )));
            }
        };
        let failures = nsds.failures.clone();
        let mut inner =
            reference::TimeStepping::new(nsds.inner.clone(), integrator, t0, h).map_err(|e| raised_or(&failures, e))?;
        inner.solver = solver;
        inner.stabilization = stabilization;
        inner.locate_impacts = locate_impacts;
        Ok(Self { inner, failures })
    }

    /// Steps to `t_final` (the GIL released). Returns the samples of every step, the start
    /// included — a dict of name → (bytes of f64, shape) for `t`, `q`, `v`, `p`, `y`, `ydot`,
    /// `lambda`, `z`, `energy`, `constraint_residual`, `impacts` (located: t, row, ẏ before,
    /// ẏ after, λ), or `None` when nothing was recorded — and the exception that
    /// stopped the run, if one did (the samples are then those before it).
    fn run(&mut self, py: Python<'_>, t_final: f64) -> PyResult<(Option<Py<PyAny>>, Option<PyErr>)> {
        let mut trajectory = Trajectory::default();
        let sim = &mut self.inner;
        let outcome = py.detach(|| sim.run(t_final, &mut trajectory));
        let error = outcome.err().map(|e| raised_or(&self.failures, e));
        let samples = &trajectory.samples;
        if samples.is_empty() {
            return Ok((None, error));
        }
        let out = PyDict::new(py);
        let vectors: [(&str, Field); 7] = [
            ("q", |s| &s.q),
            ("v", |s| &s.v),
            ("p", |s| &s.p),
            ("y", |s| &s.y),
            ("ydot", |s| &s.ydot),
            ("lambda", |s| &s.lambda),
            ("z", |s| &s.z),
        ];
        let put = |name: &str, values: Vec<f64>, shape: &[usize]| {
            let bytes = PyBytes::new(py, bytemuck::cast_slice::<f64, u8>(&values));
            out.set_item(name, (bytes, shape.to_vec()))
        };
        for (name, field) in vectors {
            let width = samples.iter().map(|s| field(s).len()).max().unwrap_or(0);
            let mut values = Vec::with_capacity(samples.len() * width);
            for s in samples {
                let v = field(s);
                // (Before the first step λ, p have no value: NaN.)
                values.extend((0..width).map(|i| v.get(i).copied().unwrap_or(f64::NAN)));
            }
            put(name, values, &[samples.len(), width])?;
        }
        let scalars: [(&str, Scalar); 3] = [
            ("t", |s| s.t),
            ("energy", |s| s.energy),
            ("constraint_residual", |s| s.constraint_residual),
        ];
        for (name, field) in scalars {
            put(name, samples.iter().map(field).collect(), &[samples.len()])?;
        }
        let impacts: Vec<f64> = (trajectory.impacts.iter())
            .flat_map(|i| [i.t, i.row as f64, i.ydot_before, i.ydot_after, i.lambda])
            .collect();
        put("impacts", impacts, &[trajectory.impacts.len(), 5])?;
        Ok((Some(out.into_any().unbind()), error))
    }

    /// The current time.
    #[getter]
    fn time(&self) -> f64 {
        self.inner.time()
    }

    /// The discrete state z of system `system` (an index from `Nsds.add`).
    fn z(&self, system: usize) -> PyResult<Vec<f64>> {
        self.system(system)?;
        Ok(self.inner.z(DsId(system)).map_err(exception)?.as_slice().to_vec())
    }

    /// Sets the discrete state z of system `system` (its size unchanged): the system's and
    /// the relations' functions see it from the next step on.
    fn set_z(&mut self, system: usize, z: Vec<f64>) -> PyResult<()> {
        self.system(system)?;
        self.inner.set_z(DsId(system), &DVector::from_vec(z)).map_err(exception)
    }

    /// Switches the coordinate-vector constraint `interaction` (an index from `Nsds.link`)
    /// on or off (off: it applies no force).
    fn set_active(&mut self, interaction: usize, active: bool) -> PyResult<()> {
        let count = self.inner.nsds().interactions().len();
        if interaction >= count {
            return Err(PyValueError::new_err(format!(
                "interaction {interaction}: the scene has {count}"
            )));
        }
        self.inner
            .set_active(InteractionId(interaction), active)
            .map_err(exception)
    }

    /// max |g(q)| over the holonomic equality constraints now (0 when there are none).
    fn constraint_residual(&self) -> PyResult<f64> {
        self.inner
            .constraint_residual()
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }
}

impl TimeStepping {
    /// Checks that `system` is an index of the scene's systems.
    fn system(&self, system: usize) -> PyResult<()> {
        let count = self.inner.nsds().number_of_systems();
        match system < count {
            true => Ok(()),
            false => Err(PyValueError::new_err(format!("system {system}: the scene has {count}"))),
        }
    }
}
