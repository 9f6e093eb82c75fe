//! Readers for Siconos's text formats: numerics `.dat` problems and tutorial `.ref` trajectories.

pub mod siconos;
