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
mod job;
mod model;
mod scenario;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _ricochet(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<scenario::Scenario>()?;
    m.add_class::<job::Job>()?;
    m.add_class::<model::LagrangianLinearTIDS>()?;
    m.add_class::<model::LagrangianDS>()?;
    m.add_class::<model::LagrangianLinearTIR>()?;
    m.add_class::<model::NewtonImpactNSL>()?;
    m.add_class::<model::NewtonImpactFrictionNSL>()?;
    m.add_class::<model::EqualityConditionNSL>()?;
    m.add_class::<model::ComplementarityConditionNSL>()?;
    m.add_class::<model::Nsds>()?;
    m.add_class::<model::TimeStepping>()?;
    m.add_class::<custom::Rng>()?;
    m.add_function(wrap_pyfunction!(custom::custom_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(commands::start_run, m)?)?;
    m.add_function(wrap_pyfunction!(commands::start_verify, m)?)?;
    m.add_function(wrap_pyfunction!(commands::start_bench, m)?)?;
    m.add_function(wrap_pyfunction!(commands::start_check, m)?)?;
    m.add_function(wrap_pyfunction!(commands::templates, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
