//! Recorded output variables of a simulation.

use std::io::Write;

use nalgebra::DVector;

use super::state::LocatedImpact;

/// The output variables at one time, over the whole scene.
///
/// Vectors over systems are concatenated in the order the systems were added; vectors over
/// interactions in link order (an inactive interaction has λ = 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Time.
    pub t: f64,
    /// Coordinates: q of Lagrangian systems, x of first-order ones.
    pub q: DVector<f64>,
    /// Velocities v (empty for first-order systems).
    pub v: DVector<f64>,
    /// Input of the last step: the impulse p = Hᵀ λ (Lagrangian) or r = B λ (first order).
    pub p: DVector<f64>,
    /// Interaction outputs y.
    pub y: DVector<f64>,
    /// Interaction output velocities ẏ (Lagrangian) — empty for first-order scenes.
    pub ydot: DVector<f64>,
    /// Multipliers λ of the last step.
    pub lambda: DVector<f64>,
    /// Mechanical energy of the Lagrangian systems (see `LagrangianDynamics::energy`).
    pub energy: f64,
    /// max |g(q)| over the holonomic equality constraints (0 when there are none).
    pub constraint_residual: f64,
    /// max |G v + ∂g/∂t| over all equality constraints, holonomic or not (0 when none).
    pub velocity_residual: f64,
    /// The discrete states z of the systems, concatenated (empty when none has one).
    pub z: DVector<f64>,
}

/// A sequence of samples, one per recorded step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trajectory {
    /// The samples in time order.
    pub samples: Vec<Sample>,
    /// The impacts located inside the steps, in time order (empty unless
    /// [`TimeStepping::locate_impacts`](super::TimeStepping::locate_impacts)).
    pub impacts: Vec<LocatedImpact>,
}

impl Trajectory {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// One value per sample, e.g. `traj.column(|s| s.q[0])`.
    pub fn column(&self, f: impl Fn(&Sample) -> f64) -> Vec<f64> {
        self.samples.iter().map(f).collect()
    }

    /// Writes CSV `t,<coordinates>,v<coordinates>,residual` to `out`, one row per sample:
    /// `coordinates` names every entry of q (and, prefixed with v, of v); `residual` picks the
    /// last column from a sample.
    pub fn write_csv(
        &self,
        out: impl std::io::Write,
        coordinates: &[&str],
        residual: impl Fn(&Sample) -> f64,
    ) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(out);
        let names: Vec<String> = coordinates.iter().map(|c| c.to_string()).collect();
        let velocities: Vec<String> = coordinates.iter().map(|c| format!("v{c}")).collect();
        writeln!(out, "t,{},{},residual", names.join(","), velocities.join(","))?;
        for s in &self.samples {
            if s.q.len() != coordinates.len() || s.v.len() != coordinates.len() {
                let message = format!("{} coordinate names for {} coordinates", coordinates.len(), s.q.len());
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, message));
            }
            write!(out, "{:e}", s.t)?;
            for x in s.q.iter().chain(s.v.iter()) {
                write!(out, ",{x:e}")?;
            }
            writeln!(out, ",{:e}", residual(s))?;
        }
        out.flush()
    }

    /// Writes CSV `t,<coordinates>,lambda0,…,y0,…,z0,…` to `out`, one row per sample — the
    /// columns of a first-order scene (x, the multipliers λ, the outputs y and the discrete
    /// states z; no velocities).
    pub fn write_first_order_csv(&self, out: impl std::io::Write, coordinates: &[String]) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(out);
        let Some(first) = self.samples.first() else {
            return out.flush();
        };
        let numbered = |prefix: &str, n: usize| (0..n).map(move |i| format!(",{prefix}{i}")).collect::<String>();
        writeln!(
            out,
            "t,{}{}{}{}",
            coordinates.join(","),
            numbered("lambda", first.lambda.len()),
            numbered("y", first.y.len()),
            numbered("z", first.z.len())
        )?;
        for s in &self.samples {
            if s.q.len() != coordinates.len() {
                let message = format!("{} coordinate names for {} coordinates", coordinates.len(), s.q.len());
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, message));
            }
            write!(out, "{:e}", s.t)?;
            for x in s.q.iter().chain(&s.lambda).chain(&s.y).chain(&s.z) {
                write!(out, ",{x:e}")?;
            }
            writeln!(out)?;
        }
        out.flush()
    }
}
