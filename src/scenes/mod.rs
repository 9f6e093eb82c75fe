//! Named scenes shared by the examples, tests, benches and the command line (through the
//! [`template`] registry), so they all simulate the same systems. Defaults are the parameters
//! of Siconos's tutorials.

pub mod bouncing_ball;
pub mod chaplygin_sleigh;
pub mod circuit_rlcd;
pub mod column_of_beads;
pub mod diode_bridge;
pub mod disc_pile;
pub mod dropped_ball;
pub mod dumbbell;
pub mod impact_oscillator;
pub mod impacting_bar;
pub mod linear;
pub mod newtons_cradle;
pub mod parameters;
pub mod pendulum;
pub mod slider_crank;
pub mod template;
