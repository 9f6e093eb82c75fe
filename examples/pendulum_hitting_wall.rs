//! The pendulum hitting a wall: released from (L, 0), the mass swings down and hits a wall at
//! x = 0 (the bottom of the swing) with restitution e, while the rod x² + y² = L² holds (an
//! MLCP per step: the rod's equality row beside the wall's contact row). Written as CSV
//! `t,x,y,vx,vy,residual`; the energy after each impact is printed (it scales by e²).
//!
//! cargo run --release --example pendulum_hitting_wall -- --out wall.csv [--restitution 0.8] [--step 1e-3]
//!     [--final-time 5] [--integrator moreau-jean|rattle]

use clap::Parser;
use ricochet::reference::{Integrator, Trajectory};
use ricochet::scenes::pendulum::Pendulum;

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Restitution e of the wall.
    #[arg(long, default_value_t = 0.8)]
    restitution: f64,
    /// Time step h (s).
    #[arg(long, default_value_t = 1e-3)]
    step: f64,
    /// Final time (s).
    #[arg(long, default_value_t = 5.0)]
    final_time: f64,
    /// The one-step integrator: moreau-jean (first order, Siconos's) or rattle (nonsmooth
    /// RATTLE, second order between impacts).
    #[arg(long, default_value = "moreau-jean")]
    integrator: Integrator,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let pendulum = Pendulum {
        step: args.step,
        ..Pendulum::hitting_wall(args.restitution)
    };
    let mut trajectory = Trajectory::default();
    let mut sim = pendulum.simulation()?;
    sim.set_integrator(args.integrator)?;
    sim.run(args.final_time, &mut trajectory)?;
    trajectory.write_csv(std::fs::File::create(&args.out)?, &["x", "y"], |s| {
        s.constraint_residual
    })?;
    // Energy relative to the bottom of the swing, ½ m v² + m g (y + L), around each impact.
    let bottom = pendulum.mass * pendulum.gravity * pendulum.length;
    let s = &trajectory.samples;
    for i in (1..s.len()).filter(|&i| s[i].lambda[1] > 0.0 && s[i - 1].lambda[1] == 0.0) {
        let (before, after) = (s[i - 1].energy + bottom, s[i].energy + bottom);
        println!(
            "impact at t = {:.3} s: E {before:.4} → {after:.4} J (ratio {:.4})",
            s[i].t,
            after / before
        );
    }
    println!("wrote {} rows to {}", trajectory.len(), args.out.display());
    Ok(())
}
