//! The contact geometry (sphere–sphere gaps, rotating discs and spheres with friction, a
//! planar body's point on a line; `LagrangianLinearTIR.sphere_plane` is the plane) and
//! Exudyn's coordinate-vector constraint.

use nalgebra::DVector;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use ricochet::model;

use super::relations::Relation;
use crate::callbacks::{Arg, Callback, Failure};
use crate::convert::rows_to_matrix;

/// The gap between two spheres (discs in 2-D, intervals in 1-D) of radii summing to ρ:
/// y = ‖x₁ − x₀‖ − ρ, x the first `dim` coordinates of each system.
#[pyclass(module = "ricochet._ricochet", extends = Relation, frozen)]
pub struct SphereSphereR;

#[pymethods]
impl SphereSphereR {
    /// Between two systems of `coordinates = (n0, n1)` coordinates whose first `dim` (1, 2 or
    /// 3) are the centres; `radii` = r₀ + r₁.
    #[new]
    fn new(dim: usize, coordinates: (usize, usize), radii: f64) -> PyResult<PyClassInitializer<Self>> {
        let (n0, n1) = coordinates;
        Ok(PyClassInitializer::from(Relation::of(model::SphereSphereR::new(dim, [n0, n1], radii))?).add_subclass(Self))
    }

    /// Between a system of `n` coordinates and a sphere fixed at `centre` (`dim` entries);
    /// link it to that one system.
    #[staticmethod]
    fn fixed(py: Python<'_>, dim: usize, n: usize, centre: Vec<f64>, radii: f64) -> PyResult<Py<Self>> {
        let relation = model::SphereSphereR::fixed(dim, n, &centre, radii);
        Py::new(py, PyClassInitializer::from(Relation::of(relation)?).add_subclass(Self))
    }
}

/// Two rotating discs, q = (x, y, θ, …) each, in frictional contact (Siconos's `DiskDiskR`):
/// rows (normal, tangent) for a `NewtonImpactFrictionNSL` of size 2.
#[pyclass(module = "ricochet._ricochet", extends = Relation, frozen)]
pub struct DiskDiskR;

#[pymethods]
impl DiskDiskR {
    /// Between systems of `coordinates = (n0, n1)` ≥ 3 coordinates, discs of `radius = (R0, R1)`.
    #[new]
    fn new(coordinates: (usize, usize), radius: (f64, f64)) -> PyResult<PyClassInitializer<Self>> {
        let relation = model::DiskDiskR::new(coordinates.into(), radius.into());
        Ok(PyClassInitializer::from(Relation::of(relation)?).add_subclass(Self))
    }
}

/// Two spheres, q = (x, y, z, φ_x, φ_y, φ_z, …) each with v = (v, ω), in frictional contact
/// (Siconos's `SphereLDSSphereLDSR`): rows (normal, t₁, t₂) for a `NewtonImpactFrictionNSL`
/// of size 3.
#[pyclass(module = "ricochet._ricochet", extends = Relation, frozen)]
pub struct SphereLDSSphereLDSR;

#[pymethods]
impl SphereLDSSphereLDSR {
    /// Between systems of `coordinates = (n0, n1)` ≥ 6 coordinates, spheres of `radius`.
    #[new]
    fn new(coordinates: (usize, usize), radius: (f64, f64)) -> PyResult<PyClassInitializer<Self>> {
        let relation = model::SphereLDSSphereLDSR::new(coordinates.into(), radius.into());
        Ok(PyClassInitializer::from(Relation::of(relation)?).add_subclass(Self))
    }
}

/// A planar rigid body's point against a fixed line (a box's corner on a floor, a disc on an
/// incline): rows (normal, tangent) for a `NewtonImpactFrictionNSL` of size 2 (or the normal
/// alone through a Newton law of size 2).
#[pyclass(module = "ricochet._ricochet", extends = Relation, frozen)]
pub struct PlanarContactR;

#[pymethods]
impl PlanarContactR {
    /// The `point` (body frame) of a body whose system has `ndof` ≥ 3 coordinates (x, y, θ
    /// first), rounded by `radius`, against the line `normal`·p = `offset` (the body on the
    /// side the normal points to).
    #[new]
    #[pyo3(signature = (ndof, point, normal, offset=0.0, radius=0.0))]
    fn new(
        ndof: usize,
        point: (f64, f64),
        normal: (f64, f64),
        offset: f64,
        radius: f64,
    ) -> PyResult<PyClassInitializer<Self>> {
        let relation = model::PlanarContactR::new(ndof, point.into(), radius, normal.into(), offset);
        Ok(PyClassInitializer::from(Relation::of(relation)?).add_subclass(Self))
    }
}

/// Exudyn's `ObjectConnectorCoordinateVector` between the coordinates q₀, q₁ of two markers
/// (one or two systems, or the ground):
/// c(q) = X₁ q₁ + Y₁ q₁² − X₀ q₀ − Y₀ q₀² − v_off = 0 (squares entrywise), or at velocity
/// level X₁ v₁ − X₀ v₀ − v_off = 0, or a function c(t, q) with its Jacobian. Link it with an
/// `EqualityConditionNSL` of its size to the marker systems in order, the ground omitted.
#[pyclass(module = "ricochet._ricochet", extends = Relation, frozen)]
pub struct CoordinateVectorConstraint;

#[pymethods]
impl CoordinateVectorConstraint {
    /// `coordinates = (n0, n1)`: the markers' coordinate counts (0 for the ground); `x0`,
    /// `x1`, `y0`, `y1`: X_m0, X_m1, Y_m0, Y_m1 (n_ae × the marker's coordinates; omitted:
    /// none); `offset`: v_off (n_ae); `velocity_level`; `active` (an inactive constraint
    /// applies no force); `constraint(t, q)` (`size` equations) with `jacobian(t, q)` in place
    /// of the matrices. Checked by Exudyn's dimension rules.
    #[new]
    #[pyo3(signature = (coordinates, x0=None, x1=None, y0=None, y1=None, offset=None, velocity_level=false,
                        active=true, constraint=None, jacobian=None, size=None, name="coordinate vector"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        coordinates: (usize, usize),
        x0: Option<Vec<Vec<f64>>>,
        x1: Option<Vec<Vec<f64>>>,
        y0: Option<Vec<Vec<f64>>>,
        y1: Option<Vec<Vec<f64>>>,
        offset: Option<Vec<f64>>,
        velocity_level: bool,
        active: bool,
        constraint: Option<Py<PyAny>>,
        jacobian: Option<Py<PyAny>>,
        size: Option<usize>,
        name: &str,
    ) -> PyResult<PyClassInitializer<Self>> {
        let failure = Failure::default();
        let mut builder = model::CoordinateVectorConstraint::builder(name, coordinates.into())
            .velocity_level(velocity_level)
            .active(active);
        for (label, marker, x) in [("X_m0", 0, x0), ("X_m1", 1, x1)] {
            if let Some(x) = x {
                builder = builder.scaling(marker, rows_to_matrix(label, x)?);
            }
        }
        for (label, marker, y) in [("Y_m0", 0, y0), ("Y_m1", 1, y1)] {
            if let Some(y) = y {
                builder = builder.quadratic(marker, rows_to_matrix(label, y)?);
            }
        }
        if let Some(offset) = offset {
            builder = builder.offset(DVector::from_vec(offset));
        }
        let none = DVector::zeros(0);
        if let Some(c) = constraint {
            let n = size.ok_or_else(|| {
                PyValueError::new_err(format!("{name}: `size` (the equations of `constraint`) is missing"))
            })?;
            let c = Callback::new("c(t, q)", c, &failure).shaped((n, 1));
            let none = none.clone();
            builder = builder.constraint_function(n, move |t, q| c.vector(&[Arg::Time(t), Arg::Array(q)], &none));
        }
        if let Some(j) = jacobian {
            let j = Callback::new("∂c/∂q(t, q)", j, &failure);
            builder = builder.jacobian_function(move |t, q| j.matrix(&[Arg::Time(t), Arg::Array(q)], &none));
        }
        let mut base = failure.or(Relation::of(builder.build()))?;
        base.failure = failure;
        Ok(PyClassInitializer::from(base).add_subclass(Self))
    }
}
