//! Named scenes shared by the examples, tests, benches and the command line (through the
//! [`template`] registry), so they all simulate the same systems. Defaults are the parameters
//! of Siconos's tutorials.

pub mod billiard_shot;
pub mod block_on_incline;
pub mod bouncing_ball;
pub mod chaplygin_sleigh;
pub mod chute_3d;
pub mod circuit_rlcd;
pub mod column_of_beads;
pub mod cubic_resistor;
pub mod diode_bridge;
pub mod diode_bridge_cap_filter;
pub mod disc_pile;
pub mod dropped_ball;
pub mod dumbbell;
pub mod filippov;
pub mod grains;
pub mod hopper_2d;
pub mod impact_oscillator;
pub mod impacting_bar;
pub mod linear;
pub mod newtons_cradle;
pub mod nonlinear_switch;
pub mod optimal_control;
pub mod parameters;
pub mod pendulum;
pub mod pile_3d;
pub mod pyramid_2d;
pub mod relay_bi_simulation;
pub mod rocking_block;
pub mod slider_crank;
pub mod spinning_ball;
pub mod step_system;
pub mod template;
pub mod units;
pub mod woodpecker;

use crate::error::Result;
use crate::model::Nsds;
use crate::reference::{Integrator, TimeStepping};
use crate::scheme::euler_moreau::EulerMoreauOSI;
use crate::scheme::moreau_jean::MoreauJeanOSI;

/// The reference simulation of `nsds` from t = 0 with step `h`: Moreau–Jean with θ = ½, the
/// scenes' `simulation`.
fn moreau_jean(nsds: Nsds, h: f64) -> Result<TimeStepping> {
    TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, h)
}

/// The reference simulation of the circuit `nsds` from t = 0 with step `h`: Euler–Moreau
/// with `theta`, the circuit scenes' `simulation`.
fn euler_moreau(nsds: Nsds, theta: f64, h: f64) -> Result<TimeStepping> {
    TimeStepping::new(nsds, Integrator::EulerMoreau(EulerMoreauOSI::new(theta)?), 0.0, h)
}

/// The coordinates of a solid in 3-D whose angles integrate ω: (x, y, z, φ_x, φ_y, φ_z).
const SOLID: [&str; 6] = ["x", "y", "z", "phi_x", "phi_y", "phi_z"];

/// The coordinate names of `bodies` alike bodies of coordinates `labels` each: the labels
/// themselves for one body, `label_i` for body i of several (`x_0, z_0, x_1, z_1, …`).
fn body_coordinates(labels: &[&str], bodies: usize) -> Vec<String> {
    if bodies == 1 {
        return labels.iter().map(|l| l.to_string()).collect();
    }
    (0..bodies)
        .flat_map(|i| labels.iter().map(move |l| format!("{l}_{i}")))
        .collect()
}

/// ½ v (m v) + ½ q (k q) − f q: the energy of a one-dof `LagrangianLinearTIDS` (mass m,
/// stiffness k, constant F_ext f) at (q, v), with the operations of its `energy` (the same
/// bits), for scenes given in closed form.
fn one_dof_energy(m: f64, k: f64, f: f64, q: f64, v: f64) -> f64 {
    let kinetic = 0.5 * (v * (m * v));
    let elastic = 0.5 * (q * (k * q));
    let potential = -(f * q);
    kinetic + elastic + potential
}
