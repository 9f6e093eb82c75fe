//! Readers for Siconos's text formats (numerics `.dat` problems and tutorial `.ref`
//! trajectories) and writers of VTK's XML formats.

pub mod siconos;
pub mod vtk;
