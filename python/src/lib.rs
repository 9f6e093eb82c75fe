//! `ricochet._ricochet`: the Rust half of the `ricochet` Python package. It parses scenarios
//! ([`scenario`]), starts the library's commands on a thread of their own ([`job`]) and hands
//! their results to Python as `.npy` bytes and JSON ([`convert`]); it builds models and steps
//! them on the reference stepper ([`model`]); the Python half
//! (`ricochet/__init__.py`) turns those into numpy arrays and dicts, shows the progress and
//! turns Ctrl-C into a cancellation.

mod callbacks;
mod commands;
mod convert;
mod custom;
mod files;
mod job;
mod model;
mod scenario;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _ricochet(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<scenario::Scenario>()?;
    m.add_class::<job::Job>()?;
    add_model_classes(m)?;
    m.add_class::<custom::Rng>()?;
    m.add_function(wrap_pyfunction!(custom::custom_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(commands::start_run, m)?)?;
    m.add_function(wrap_pyfunction!(commands::summarise, m)?)?;
    m.add_function(wrap_pyfunction!(files::write_run, m)?)?;
    m.add_function(wrap_pyfunction!(files::read_run, m)?)?;
    m.add_function(wrap_pyfunction!(commands::start_large_run, m)?)?;
    m.add_function(wrap_pyfunction!(commands::start_verify, m)?)?;
    m.add_function(wrap_pyfunction!(commands::start_bench, m)?)?;
    m.add_function(wrap_pyfunction!(commands::start_check, m)?)?;
    m.add_function(wrap_pyfunction!(commands::templates, m)?)?;
    m.add_function(wrap_pyfunction!(commands::shipped_scenarios, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::scenario_from_json, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// The model's classes: the base classes, then each kind's.
fn add_model_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
    use model::{contacts, laws, relations, systems};
    m.add_class::<systems::DynamicalSystem>()?;
    m.add_class::<systems::LagrangianLinearTIDS>()?;
    m.add_class::<systems::LagrangianDS>()?;
    m.add_class::<systems::FirstOrderLinearDS>()?;
    m.add_class::<relations::Relation>()?;
    m.add_class::<relations::LagrangianLinearTIR>()?;
    m.add_class::<relations::LagrangianCompliantLinearTIR>()?;
    m.add_class::<relations::LagrangianScleronomousR>()?;
    m.add_class::<relations::LagrangianRheonomousR>()?;
    m.add_class::<relations::PfaffianR>()?;
    m.add_class::<relations::FirstOrderLinearTIR>()?;
    m.add_class::<contacts::SphereSphereR>()?;
    m.add_class::<contacts::DiskDiskR>()?;
    m.add_class::<contacts::SphereLDSSphereLDSR>()?;
    m.add_class::<contacts::PlanarContactR>()?;
    m.add_class::<contacts::CoordinateVectorConstraint>()?;
    m.add_class::<laws::NonSmoothLaw>()?;
    m.add_class::<laws::NewtonImpactNSL>()?;
    m.add_class::<laws::NewtonImpactFrictionNSL>()?;
    m.add_class::<laws::EqualityConditionNSL>()?;
    m.add_class::<laws::ComplementarityConditionNSL>()?;
    m.add_class::<laws::MixedComplementarityConditionNSL>()?;
    m.add_class::<laws::RelayNSL>()?;
    m.add_class::<model::Nsds>()?;
    m.add_class::<model::time_stepping::TimeStepping>()?;
    Ok(())
}
