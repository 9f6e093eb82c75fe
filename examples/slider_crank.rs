//! A slider–crank hitting a stop: crank pin A and slider B held by three equality constraints
//! (crank, rod, guide) and a Newton impact at the stop; written as CSV
//! `t,xA,yA,xB,yB,vxA,vyA,vxB,vyB,residual` (residual = the largest |g(q)| of the three).
//!
//! cargo run --release --example slider_crank -- --out slider_crank.csv [--restitution 0.8]
//!     [--step 1e-4] [--final-time 1] [--integrator moreau-jean|rattle]

use clap::Parser;
use ricochet::reference::{Integrator, Trajectory};
use ricochet::scenes::slider_crank::SliderCrank;

#[derive(Parser)]
#[command(allow_negative_numbers = true)]
struct Args {
    /// Output CSV file.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Restitution of the stop.
    #[arg(long, default_value_t = 0.8)]
    restitution: f64,
    /// Time step h (s).
    #[arg(long, default_value_t = 1e-4)]
    step: f64,
    /// Final time (s).
    #[arg(long, default_value_t = 1.0)]
    final_time: f64,
    /// The one-step integrator: moreau-jean (first order, Siconos's) or rattle (nonsmooth
    /// RATTLE, second order between impacts).
    #[arg(long, default_value = "moreau-jean")]
    integrator: Integrator,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let mechanism = SliderCrank {
        restitution: args.restitution,
        step: args.step,
        ..Default::default()
    };
    let mut trajectory = Trajectory::default();
    let mut sim = mechanism.simulation()?;
    sim.set_integrator(args.integrator)?;
    sim.run(args.final_time, &mut trajectory)?;
    let names = ["xA", "yA", "xB", "yB"];
    trajectory.write_csv(std::fs::File::create(&args.out)?, &names, |s| s.constraint_residual)?;
    println!("wrote {} rows to {}", trajectory.len(), args.out.display());
    Ok(())
}
